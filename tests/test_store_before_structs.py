"""Conversations stored before the dialog state moved from pydantic models to msgspec structs still load.

`tests/data/stored/before_structs.json` was written by the pydantic code (commit c88b787): two conversations as the
store keeps them (`compact_state(Conversation.to_dict())`: slots with GPU mentions, a quoted claim, a stated
capacity; the pending question and the last answer's numbers) and one turn's result as stored
(`result_json(turn)`, options cut to one, numbers to twelve)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.conversation.dialog.machine import DialogState
from advisor.conversation.reader.slots import Claim, GpuMention, Slots
from advisor.conversation.session import Conversation
from advisor.conversation.turn import Turn, load_turn
from advisor.store.keeper import compact_state, result_json
from knowledge.errors import InputError
from knowledge.structs import dump

STORED = json.loads((Path(__file__).parent / "data" / "stored" / "before_structs.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["conversation_1", "conversation_2"])
def test_a_stored_conversation_loads_and_is_stored_again_unchanged(name: str) -> None:
    stored = STORED[name]
    conv = Conversation.from_dict(stored)
    again = compact_state(conv.to_dict())
    # a slot added since (Dec 5: `headcount`; `scales`) is stored at its default (null, {}); everything that was
    # stored comes back unchanged
    slots, empty = again["state"]["slots"], dump(Slots())
    again["state"]["slots"] = {k: v for k, v in slots.items()
                               if k in stored["state"]["slots"] or v != empty.get(k, object())}
    # so is a state field added since (Dec 5: `act_text`, `catalog_count`) at the default of a new DialogState
    fresh = dump(DialogState())
    again["state"] = {k: v for k, v in again["state"].items() if k in stored["state"] or v != fresh.get(k, object())}
    assert again == stored


def test_the_loaded_state_has_the_values_stored() -> None:
    one = Conversation.from_dict(STORED["conversation_1"]).state
    assert one.slots.model == "llama-3.1-70b" and one.slots.context == 8192 and one.slots.concurrency == 50
    assert one.slots.existing == GpuMention(gpu="a100-80g-sxm", count=2, text="2 A100",
                                            assumed="A 100 = NVIDIA A100 80GB SXM4")
    assert isinstance(one.slots.claim, Claim) and one.slots.claim.bytes_if_gib == 28 * 2**30
    assert one.slots.excluded == ["h20", "h20-141g"] and one.slots.budget == 200000.0
    two = Conversation.from_dict(STORED["conversation_2"]).state
    assert [(c.gpu, c.count) for c in two.slots.candidates] == [("h100-sxm", 3), ("h200-sxm", 3)]
    assert two.slots.capacity is not None and two.slots.capacity.bytes_if_gb == 24e9 and two.slots.home is True
    assert (two.pending, two.asked, two.focus_gpu, two.answered) == ("budget", ["weights", "region", "budget"],
                                                                     "h200-sxm", 3)
    assert two.last_numbers == {"need_total": 175600492544.0}


def test_a_loaded_conversation_answers_its_pending_question() -> None:
    conv = Conversation.from_dict(STORED["conversation_2"])
    turn = conv.respond("default")
    assert turn.note != "error" and conv.state.pending != "budget"


def test_a_stored_turn_loads_and_is_written_back_the_same() -> None:
    stored = STORED["turn"]
    turn = load_turn(stored)
    assert isinstance(turn, Turn) and load_turn(json.dumps(stored)) == turn
    assert json.loads(result_json(turn) or "null") == stored


def test_a_malformed_stored_state_is_one_input_error() -> None:
    bad = json.loads(json.dumps(STORED["conversation_1"]))
    bad["state"]["slots"]["context"] = "a lot"
    with pytest.raises(InputError) as err:
        Conversation.from_dict(bad)
    assert "context" in str(err.value) and "\n" not in str(err.value)


def test_a_malformed_stored_turn_is_one_line_naming_the_field() -> None:
    bad = json.loads(json.dumps(STORED["turn"]))
    bad["numbers"][0]["value"] = "many"
    with pytest.raises(InputError) as err:
        load_turn(bad)
    assert str(err.value).startswith("numbers.0.value: ") and "\n" not in str(err.value)
    with pytest.raises(InputError, match="^mode: Input should be 'llm' or 'deterministic'"):
        load_turn(json.dumps({**STORED["turn"], "mode": "chatty"}))


def test_the_slot_summary_leaves_out_defaults_inside_lists_as_before() -> None:
    """`dump(..., exclude_defaults=True)` reaches the structs in a list, as pydantic's did (the summary of the GPU
    candidates in `ask --json`); the expected dict is what the pydantic Slots gave for the same slots."""
    slots = Slots(model="x", candidates=[GpuMention(gpu="a")], existing=GpuMention(gpu="b", count=2),
                  claim=Claim(text="t", value=1, unit="GB", bytes_if_gb=1e9, bytes_if_gib=2**30))
    assert dump(slots, json=True, exclude_defaults=True) == {
        "model": "x", "existing": {"gpu": "b", "count": 2}, "candidates": [{"gpu": "a"}],
        "claim": {"text": "t", "value": 1.0, "unit": "GB", "bytes_if_gb": 1e9, "bytes_if_gib": 1073741824.0}}
