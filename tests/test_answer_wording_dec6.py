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
