"""llama.cpp layer offload in the chat (issue 18, part 2): "one card plus system RAM?" is answered with the
offload configuration — `-ngl`, the RAM the other layers need and the decode speed — instead of only "does not
fit"; a single card that cannot hold the model shows the offload row after what fits, even when not asked; a
trainer's optimizer offload is not read as layer offload.

Independent references (not the estimator):
- layers: the model's `num_hidden_layers` from its config.json (catalog `num_layers`); -ngl + layers in RAM = that.
- RAM for the offloaded layers ≥ their share of the weights: layers_in_ram / layers × parameters × 4.5 bits / 8
  (Q4_K_M stores ≥ 4.5 bits per weight: llama.cpp's k-quant block layout, 144 bytes per 256 weights), and at most
  the whole file at 5.5 bits per weight plus 2 GiB (KV cache and output layer).
- decode speed ≤ 1 / (RAM bytes / host peak bandwidth): every token reads the offloaded layers from system RAM;
  the assumed desktop host is dual-channel DDR5-5600 = 2 × 8 B × 5.6 GT/s = 89.6 GB/s (JEDEC).
"""

from __future__ import annotations

import re

import pytest

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
GIB = 2**30
HOST_PEAK = 89.6e9  # bytes/s, 2 × DDR5-5600


@pytest.fixture(autouse=True)
def _no_llm(monkeypatch):
    for name in ("OPENAI_API_KEY", "ADVISOR_MODEL", "ADVISOR_SETTINGS"):
        monkeypatch.delenv(name, raising=False)


def _turn(text: str, lang: str):
    return Conversation(driver="deterministic", lang=lang).respond(text)


def _offload(turn):
    return next(o for o in turn.options if "offload" in o["labels"])


ASKED = [
    ("en", "Could I run Llama-3.1-70B on a single RTX 3090 if I offload some layers to system RAM?", "llama-3.1-70b"),
    ("zh", "我只有一张 3090，跑 Qwen2.5-72B 能不能把一部分层放到内存里？", "qwen2.5-72b"),
    ("zh", "一张 4090 加内存卸载，Llama-3-70B 可以吗", "llama-3-70b"),
]


@pytest.mark.parametrize("lang,text,model_id", ASKED)
def test_offload_asked_leads_with_ngl_ram_and_speed(lang, text, model_id):
    turn = _turn(text, lang)
    contract = turn.to_contract()
    assert contract["intent"] == "feasibility" and contract["verdict"] == "with_changes", turn.answer
    opt = _offload(turn)
    lay = opt["layout"]
    model = CAT.model(model_id)
    assert lay["engine"] == "llama.cpp" and lay["weights"] == "q4_k_m"
    assert lay["ngl"] + lay["cpu_layers"] == model.num_layers
    ram = lay["system_ram_bytes"]
    params = model.published_params  # the model card's parameter count
    in_ram = lay["cpu_layers"] / model.num_layers * params * 4.5 / 8
    assert in_ram <= ram <= params * 5.5 / 8 + 2 * GIB
    tps = opt["throughput"]["decode_tokens_per_s"]
    assert 0.3 * HOST_PEAK / in_ram <= tps <= HOST_PEAK / in_ram
    lead = fs.first_sentences(turn.answer, 2)
    assert f"-ngl {lay['ngl']}" in lead and f"{ram / GIB:.1f} GiB" in lead
    assert re.search(rf"{tps:.1f} tokens/s", lead), lead
    assert ("可以" in lead) if lang == "zh" else lead.startswith("Yes, slowly")


def test_one_card_that_cannot_hold_the_model_shows_the_offload_row_without_being_asked():
    turn = _turn("Will Llama-3.1-70B run on my single RTX 4090?", "en")
    assert turn.to_contract()["verdict"] in ("no", "with_changes")
    screen = fs.split_details(turn.answer)[0]
    assert "RAM offload" in screen and "offload" not in fs.first_sentences(turn.answer, 1)
    assert _offload(turn)["count"] == 1


def test_a_model_that_fits_gets_no_offload_and_training_offload_is_not_layer_offload():
    fits = _turn("Can I run Llama-3.1-8B on one RTX 4090 with CPU offload?", "en")
    assert not any("offload" in o["labels"] for o in fits.options)
    assert fits.to_contract()["verdict"] == "yes"
    train = _turn("Full fine-tune Qwen2.5-7B on one A100 80GB with optimizer offload", "en")
    assert not any(o.get("layout", {}).get("offload") == "layers" for o in train.options)
    assert train.workload["workload"]["task"] == "full"
