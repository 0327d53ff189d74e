"""Two paraphrases that had been answered as something else: "what request rate can it sustain?" asks the requests per
second (it had answered whether it fits, for one user), and "how much does X help / speed up" asks an effect, not a
price (it had answered with the purchase price of the card)."""

from __future__ import annotations

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize("text", [
    "What request rate can 2x H100 sustain for Qwen2.5-32B with 2k prompts and 500-token answers?",
    "max request rate for Llama-3.1-8B on one L40S with 1k in and 200 out?",
])
def test_a_request_rate_asked_is_the_rate(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "requests per second" in first, first


@pytest.mark.parametrize("text", [
    "How much does chunked prefill help TTFT for 32k prompts on Llama-3.1-8B on one H100?",
    "How much would an FP8 KV cache speed up Llama-3.1-70B on 4x H100 at 64 users?",
])
def test_how_much_an_effect_is_not_a_price(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "to buy" not in first and "TCO" not in first, first


def test_a_price_is_still_a_price() -> None:
    first = answer("How much does an H100 cost?").split("\n")[0]
    assert "$" in first, first
