""""How much does chunked prefill help TTFT for 32k prompts?": the load asked (one request when none was said) simulated
with chunked prefill and without, the first-token time (median, p95) and per-user speed of each, and why they differ
or do not: a prompt that fits one step's token budget has nothing to split; alone, a prompt has nothing to share a step
with; under load, chunks share steps with the decodes (advisor.analysis.load_answers.chunked_prefill)."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


def _first(text: str, lang: str = "en") -> str:
    return answer(text, lang).split("\n")[0]


def _ttfts(first: str) -> tuple[float, float]:
    def s(x: str) -> float:
        v, unit = re.match(r"([\d.]+) (ms|s)", x).groups()  # type: ignore[union-attr]
        return float(v) / (1000 if unit == "ms" else 1)
    got = re.findall(r"after ([\d.]+ m?s)", first)
    return s(got[0]), s(got[1])


@pytest.mark.parametrize("text", [
    "How much does chunked prefill help TTFT for 32k prompts on Llama-3.1-8B on one H100?",
    "is it worth enabling chunked prefill for Llama-3.1-8B on an H100 with 32k-token prompts?",
])
def test_one_request_with_a_long_prompt(text: str) -> None:
    first = _first(text)
    assert first.startswith("**With chunked prefill the first token comes after"), first
    assert "one request at a time" in first, first
    assert "$" not in first  # "how much does … help" is not a price


def test_a_prompt_within_the_step_budget_has_nothing_to_split() -> None:
    first = _first("Does chunked prefill help Llama-3.1-8B on one H100 with 30 users and 8k prompts?")
    assert "No difference here" in first and "8192" in first, first


def test_under_load_chunking_never_delays_the_first_token() -> None:
    """The issue's property: chunked prefill never raises TTFT above no chunking for long prompts."""
    first = _first("Does chunked prefill help SGLang with Qwen2.5-7B on one H100, 20 users and 16k prompts?")
    on, off = _ttfts(first)
    assert on <= off * 1.001, first


def test_asked_in_chinese() -> None:
    first = _first("分块预填充对 Llama-3.1-8B 在一张 H100 上 30 并发、8k 提示词的首 token 延迟有多大帮助？", "zh")
    assert first.startswith("**开启分块预填充时首 token 延迟") and "30 路并发" in first, first
