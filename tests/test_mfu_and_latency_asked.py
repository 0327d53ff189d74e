"""Two questions whose first sentence answered something nearby. "What MFU should I expect training Llama-3.1-70B on 256
H100s?" opened with tokens/s per GPU; it now opens with the MFU (the tokens/s follow). "What's the latency for 100k-token
prompts on Llama-3.1-8B with one H100?" answered only that it fits; "what's the latency" is a speed question, and with
a prompt length said the answer opens with that prompt's first-token time."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang", "pattern"), [
    ("What MFU should I expect training Llama-3.1-70B on 256 H100s?", "en", r"^\*\*About \d+ % MFU\*\* on 256×"),
    ("256 张 H100 训练 Llama-3.1-70B，MFU 能到多少？", "zh", r"^\*\*256× .{0,40}MFU 约 \d+ %\*\*"),
])
def test_mfu_opens(text: str, lang: str, pattern: str) -> None:
    first = answer(text, lang).splitlines()[0]
    assert re.search(pattern, first), first
    assert "tokens/s" in first


def test_throughput_question_still_opens_with_tokens() -> None:
    first = answer("How many tokens per second per GPU when training Llama-3.1-8B on 64 H100?").splitlines()[0]
    assert first.startswith("**About ") and "tokens/s per GPU**" in first


@pytest.mark.parametrize(("text", "asked"), [
    ("What's the latency for 100k-token prompts on Llama-3.1-8B with one H100?", True),
    ("What is the latency of Qwen2.5-32B on two 4090s?", True),
    ("How high is the latency for 32 users of Mistral-7B on an L4?", True),
    ("What's the latency target you assume for chat?", False),
    ("Our latency target is 50 ms per token; which GPU for Llama-3.1-8B?", False),
])
def test_latency_asked(text: str, asked: bool) -> None:
    assert asks("speed", text) is asked


def test_prompt_latency_gives_first_token_time() -> None:
    first = answer("What's the latency for 100k-token prompts on Llama-3.1-8B with one H100?").splitlines()[0]
    assert re.search(r"first token after [\d.]+ s for a prompt of 100,000 tokens", first), first
