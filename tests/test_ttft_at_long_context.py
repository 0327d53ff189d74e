""""What TTFT will I get with Qwen2.5-72B on 4x L40S at 32k context?" had answered "first token after 111 ms for a
prompt of 215 tokens": a chat turn, not the long prompts the context is stated for. A first-token time asked with a
long context and no prompt length is answered by prompt length up to that context."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


def _ladder(first: str) -> list[tuple[int, float]]:
    """(prompt tokens, seconds) of each rung in the lead."""
    rungs = []
    for value, unit, prompt in re.findall(r"([\d.]+) (ms|s) at (\d+) tokens", first):
        rungs.append((int(prompt), float(value) / (1000 if unit == "ms" else 1)))
    return rungs


@pytest.mark.parametrize(("text", "longest"), [
    ("What TTFT will I get with Qwen2.5-72B on 4x L40S at 32k context?", 32768),
    ("Llama-3.1-8B on one H100 with 128k context: time to first token?", 65536),
    ("Time to first token for Qwen2.5-32B on 2 A100 80GB with a 16k context?", 16384),
])
def test_the_first_token_by_prompt_length_up_to_the_context(text: str, longest: int) -> None:
    first = answer(text, "en").split("\n")[0]
    rungs = _ladder(first)
    assert first.startswith("**First token on ") and rungs, first
    assert max(p for p, _ in rungs) == longest
    times = [s for _, s in sorted(rungs)]
    assert times == sorted(times) and times[-1] > 3 * times[0]  # a longer prompt never comes sooner


def test_chinese_reads_the_same() -> None:
    first = answer("Qwen2.5-32B 在两张 A100 上，32k 上下文，首 token 延迟多少？", "zh").split("\n")[0]
    assert "首 token 延迟随提示词长度" in first and "32768 tokens 时" in first, first


@pytest.mark.parametrize("text", [
    "What TTFT for Llama-3.1-8B on an L4 at 8k context with 2k-token prompts?",  # the prompt is said
    "What TTFT will I get with Qwen2.5-72B on 4x L40S?",  # no context said: a chat turn
    "Llama-3.1-8B on one H100 with 4k context: time to first token?",  # a short context
])
def test_a_single_first_token_time_otherwise(text: str) -> None:
    first = answer(text, "en").split("\n")[0]
    assert "by prompt length" not in first and "for a prompt of" in first, first
