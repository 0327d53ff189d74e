"""A card or model typed by its specs instead of a name (issue 27): used as given and said so. The decode ceiling is
checked against the roofline by hand: bandwidth / (weights + KV cache bytes read per token); Qwen2.5-72B: 72.7 B
parameters (model card) in BF16, KV cache 2 × 80 layers × 8 KV heads × 128 × 2 bytes × 4096 tokens (config.json)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation

QWEN72_WEIGHTS = 72.7e9 * 2
QWEN72_KV = 2 * 80 * 8 * 128 * 2 * 4096


@pytest.mark.parametrize(("lang", "text", "given"), [
    ("en", "Can Qwen2.5-72B run on a card with 96 GB at 1.8 TB/s?", "Taken as given"),
    ("zh", "一张 96G 显存、带宽 1.8TB/s 的卡能跑 Qwen2.5-72B 吗", "按您给的规格"),
])
def test_a_card_typed_by_its_specs_is_used_as_given(lang: str, text: str, given: str) -> None:
    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    first = "\n".join(turn.answer.split("\n\n")[:2])
    assert turn.extra.get("answer_verdict") == "no", first  # 145 GB of weights alone exceed 96 GB
    assert given in first and "1.8 TB/s" in first and "96 GB" in first, first
    ceiling = 1.8e12 / (QWEN72_WEIGHTS + QWEN72_KV)
    shown = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) tokens/s", first)]
    assert any(abs(s - ceiling) <= 0.05 * ceiling for s in shown), (ceiling, first)


def test_a_card_typed_by_its_memory_alone_says_only_memory_is_checked() -> None:
    turn = Conversation(lang="en").respond("Can Qwen2.5-32B run on a card with 48 GB?")
    first = "\n".join(turn.answer.split("\n\n")[:2])
    assert "Taken as given" in first and "only its memory" in first, first


@pytest.mark.parametrize(("lang", "text"), [("en", "Can a 30B dense model run on one H100?"),
                                            ("zh", "一个 30B 的稠密模型，一张 H100 能跑吗")])
def test_a_dense_size_stands_in_with_a_dense_model(lang: str, text: str) -> None:
    from advisor.conversation.dialog.machine import default_catalog
    from knowledge.params import param_counts

    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    spec = default_catalog().find_model(conv.state.slots.model or "")
    assert spec is not None and not spec.is_moe, conv.state.slots.model
    counts = param_counts(spec)
    assert abs(counts.total / 30e9 - 1) < 0.15
    assert spec.name in turn.answer.split("\n\n")[1] or spec.name in turn.answer.split("\n\n")[0], turn.answer[:400]
