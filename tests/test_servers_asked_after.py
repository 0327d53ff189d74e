""""If we rent g6e.48xlarge boxes, how many do we need …?": the count asked of the boxes named before the question
(it had been answered "Not as asked" for one box, the copies never said first)."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("If we rent g6e.48xlarge boxes, how many do we need for Llama-3.3-70B with 300 people typing at once?", True),
    ("We'd buy 8-GPU H100 servers. How many would we need for 2000 users of Qwen2.5-72B?", True),
    ("p5 instances for Llama 3.1 405B, 500 users: how many should I have to rent?", True),
    ("Using DGX nodes, how many will we need to serve DeepSeek-V3 to 1000 users?", True),
    ("How many GPUs do we need for Llama-3.3-70B with 300 users?", False),  # cards, not boxes
    ("Our servers are full. How many users can we add?", False),
])
def test_a_count_asked_of_boxes_said_first(text: str, asked: bool) -> None:
    assert asks("servers", text) is asked


def test_the_answer_opens_with_the_copies() -> None:
    first = answer("If we rent g6e.48xlarge boxes, how many do we need for Llama-3.3-70B with 300 people typing at "
                   "once?").split("\n")[0]
    assert first.startswith("**2 copies** of 8× NVIDIA L40S (16 cards in 2 servers)"), first
