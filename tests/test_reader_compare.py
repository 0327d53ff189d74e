"""Questions that compare two models (or two sets of cards) are answered for both sides in the first sentence, with
both numbers. Checked against hand arithmetic: decoding one token reads at least the active parameters' weights,
so a card's per-user speed is at most its bandwidth / (active parameters × bytes per weight) (published model-card
parameter counts, the catalog's bandwidth); the MoE model with ~3B active parameters is the faster one."""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.session import Conversation

ACTIVE = {"Qwen3-30B-A3B": 3.3e9, "Qwen3-32B": 32.8e9, "Llama-3.1-70B": 70.6e9, "Qwen2.5-72B": 72.7e9,
          "Llama-3.1-8B": 8.03e9, "Qwen2.5-7B": 7.61e9}  # model cards: activated / total parameters
BYTES = {"BF16": 2.0, "FP8": 1.0, "AWQ-INT4": 0.5}


def first_paragraph(answer: str) -> str:
    return answer.strip().split("\n\n")[0]


def speeds(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"([\d,]+(?:\.\d+)?) tokens/s", text)]


def run(lang: str, turns: list[str]) -> Any:
    conv = Conversation(driver="deterministic", lang=lang)
    for text in turns:
        turn = conv.respond(text)
    return turn


CASES = [  # (lang, turns, the two models, the card, the faster model or None for "about the same")
    ("en", ["Qwen3-30B-A3B vs Qwen3-32B on a 4090 — which is faster?"], ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090",
     "Qwen3-30B-A3B"),
    ("en", ["On a single RTX 4090, would Qwen3-32B or Qwen3-30B-A3B give my users quicker replies?"],
     ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090", "Qwen3-30B-A3B"),
    ("zh", ["一张 4090 上 Qwen3-30B-A3B 和 Qwen3-32B 哪个快？"], ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090",
     "Qwen3-30B-A3B"),
    ("zh", ["对比一下 Qwen2.5-72B 和 Llama-3.1-70B 跑在两张 H100 上"], ("Qwen2.5-72B", "Llama-3.1-70B"), "h100-sxm", None),
    ("en", ["Compare Llama-3.1-70B with Qwen2.5-72B on 2 H100s"], ("Qwen2.5-72B", "Llama-3.1-70B"), "h100-sxm", None),
    ("zh", ["单卡 L40S 跑 Qwen2.5-7B 还是 Llama-3.1-8B 更快"], ("Qwen2.5-7B", "Llama-3.1-8B"), "l40s", "Qwen2.5-7B"),
    ("en", ["Serve Qwen3-32B on one RTX 4090 in AWQ", "is Qwen3-30B-A3B or Qwen3-32B faster on this card?"],
     ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090", "Qwen3-30B-A3B"),
    ("zh", ["用一张 4090 部署 Qwen3-32B，AWQ 量化", "那 Qwen3-30B-A3B 和 Qwen3-32B 在这张卡上哪个快"],
     ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090", "Qwen3-30B-A3B"),
    ("en", ["I'm choosing between Qwen3-30B-A3B and Qwen3-32B for a chatbot on one RTX 4090",
            "is the MoE or the dense model faster on this card?"], ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090",
     "Qwen3-30B-A3B"),
    ("zh", ["在 Qwen3-32B 和 Qwen3-30B-A3B 之间选，单卡 4090", "稠密的和 MoE 的哪个在这张卡上更快？"],
     ("Qwen3-30B-A3B", "Qwen3-32B"), "rtx-4090", "Qwen3-30B-A3B"),
]


@pytest.mark.parametrize(("lang", "turns", "models", "gpu", "faster"), CASES, ids=[c[1][-1][:40] for c in CASES])
def test_two_models_are_both_answered_first(lang: str, turns: list[str], models: tuple[str, str], gpu: str,
                                            faster: str | None) -> None:
    turn = run(lang, turns)
    first = first_paragraph(turn.answer)
    assert all(m in first for m in models), first
    card = default_catalog().find_gpu(gpu)
    assert card is not None and card.name in first, first
    shown = speeds(first)
    assert len(shown) == 2, first  # both sides' numbers
    fmt = min((f for f in BYTES if f in first), key=first.index)  # the format compared in, named first
    for name, speed in zip(sorted(models, key=first.index), shown, strict=True):
        count = 2 if gpu == "h100-sxm" else 1
        ceiling = card.bandwidth_bytes_per_s * count / (ACTIVE[name] * BYTES[fmt])
        assert 0 < speed <= ceiling * 1.02, (name, speed, ceiling)  # the roofline can't be beaten
    if faster is None:
        assert first.startswith(("**About the same", "**两者速度相当")), first
    else:
        assert first.startswith(f"**{faster}"), first
        assert shown[0] > shown[1]
    req = turn.extra["request"]
    assert req["act"] == "compare"
    assert {s["id"] for s in req["subjects"] if s["kind"] == "model"} >= {
        default_catalog().find_model(m).id for m in models}  # type: ignore[union-attr]


@pytest.mark.parametrize(("lang", "text", "sides"), [
    ("en", "H100 or four 4090s for Llama 3 70B?", ("H100", "4090")),
    ("zh", "对比一下 H20 和 L20 跑 Qwen2.5-72B", ("H20", "L20")),
    ("en", "For Qwen2.5-32B, is one H100 better than four RTX 4090s?", ("H100", "4090")),
    ("zh", "Qwen2.5-32B 用一张 H100 好还是四张 4090 好", ("H100", "4090")),
])
def test_two_sets_of_cards_are_both_answered_first(lang: str, text: str, sides: tuple[str, str]) -> None:
    turn = run(lang, [text])
    first = first_paragraph(turn.answer)
    assert all(s in first for s in sides), first
    assert turn.extra["request"]["act"] == "compare"
    assert sum(1 for h in turn.extra["request"]["hardware"] if h["role"] == "compared") == 2
