"""Wording that must not contradict its own numbers: a speed said to be below a target is printed below it, and one
user is one user."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


def _answer(question: str, lang: str = "en") -> str:
    return Conversation(driver="deterministic", lang=lang).respond(question).answer


@pytest.mark.parametrize("question", [
    "Our team has 4x A6000. Can we serve Llama 3.3 70B in FP8 to 20 engineers?",
    "We own four RTX A6000 cards - is that enough to run llama 3.3 70b fp8 for 20 developers?",
])
def test_a_speed_below_the_target_reads_below_it(question: str) -> None:
    answer = _answer(question)
    m = re.search(r"each gets ([\d.]+) tokens/s, below ([\d.]+) tokens/s", answer)
    assert m, answer[:600]
    assert float(m.group(1)) < float(m.group(2)), m.group(0)
    assert "at most 1 concurrent users" not in answer


@pytest.mark.parametrize("question", [
    "Can one 8x 4090 server LoRA fine-tune Qwen2.5-72B?",
    "is our 8-card RTX 4090 box enough for a LoRA finetune of qwen2.5 72b at 4k tokens?",
])
def test_a_named_setup_that_does_not_fit_points_to_another_card_not_hundreds_of_it(question: str) -> None:
    """The named 8× RTX 4090 does not hold a 72B LoRA at 4k; the configuration named after it is another card's,
    not 256 RTX 4090s (what more data-parallel copies of the same card would take)."""
    head = _answer(question).split("\n", 1)[0]
    assert head.startswith("**No**"), head
    others = re.findall(r"(\d+)× ([^()]+?) fits it", head)
    assert others, head
    n, card = int(others[0][0]), others[0][1]
    assert "4090" not in card or n <= 32, head
