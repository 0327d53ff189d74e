"""A serving batch said as the load: "What is the decode throughput at batch 256 for Mistral-7B on A100?" had answered
"No speed to give: it does not run as asked". Two things hid the answer: "what is the decode throughput" was not read as
a speed question, and the batch said (256) was held as a floor under every probe of how many sequences the card holds
(memory.estimate counts max(batch, concurrency) sequences), so the card held none. The probes now count c sequences in
all, and the answer gives the load as chat turns on a paged KV cache, as "256 concurrent users" does."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("What is the decode throughput at batch 256 for Mistral-7B on A100?", True),
    ("What's the expected generation speed of Qwen2.5-7B on a 4090?", True),
    ("what would be the aggregate throughput of 8 H100s on Llama-3.1-70B", True),
    ("What is the total cost of 8 H100s?", False),
    ("What is the output format of the API?", False),
])
def test_throughput_words_ask_speed(text: str, asked: bool) -> None:
    assert asks("speed", text) is asked


@pytest.mark.parametrize("text", [
    "What is the decode throughput at batch 256 for Mistral-7B on A100?",
    "What is the decode throughput with 256 concurrent users for Mistral-7B on one A100?",
    "Mistral-7B on one A100 at batch size 256: tokens per second?",
])
def test_batch_said_is_answered_as_that_load(text: str) -> None:
    out = answer(text)
    first = out.splitlines()[0]
    assert "No speed to give" not in first
    assert re.search(r"serves 256 concurrent users at \d+ tokens/s each", first), first
    assert re.search(r"\*\*At 256 concurrent users\*\* on 1× NVIDIA A100 80GB SXM4: .* ([\d,]+) tokens/s in total", out)
