"""Engines compared on throughput with no load said ("vLLM 和 TensorRT-LLM 跑 Llama-3.1-8B，单卡 H100，吞吐差多少？") had
been compared at one user (168 against 168 tokens/s). A throughput asked is what the engine puts out when it runs
as many requests as it takes at once (its max_num_seqs, within its KV cache), as an offline throughput benchmark
runs it; each engine is timed there and judged on its total."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "lang"), [
    ("vLLM 和 TensorRT-LLM 跑 Llama-3.1-8B，单卡 H100，吞吐差多少？", "zh"),
    ("Which has higher throughput on 8x H200 for DeepSeek-V3, vLLM or SGLang?", "en"),
    ("Compare the throughput of vLLM vs SGLang for Qwen2.5-7B on one L40S", "en"),
])
def test_throughput_compared_at_full_load(text: str, lang: str) -> None:
    first = answer(text, lang).splitlines()[0]
    assert ("满载" in first) if lang == "zh" else ("at full load" in first), first
    totals = [float(x.replace(",", "")) for x in re.findall(r"(?:合计约|about) ([\d,]+) tokens/s(?: in total)?", first)]
    assert len(totals) == 2 and min(totals) > 1000, first  # thousands at full load, not one user's ~100


def test_speed_question_stays_per_user() -> None:
    first = answer("vLLM or llama.cpp for Qwen2.5-14B on a 4090, which is faster?").splitlines()[0]
    assert "at full load" not in first and "per user" in first, first


def test_stated_load_is_kept() -> None:
    first = answer("Compare vLLM and SGLang throughput for DeepSeek-V3 on 8x H200 at 64 concurrency.").splitlines()[0]
    assert "at 64 users" in first and "at full load" not in first, first


def test_full_load_total_exceeds_one_user() -> None:
    """The same engine puts out more at full load than one user's decode speed (batching)."""
    one = answer("vLLM or SGLang for Llama-3.1-8B on one H100, which is faster?").splitlines()[0]
    full = answer("vLLM or SGLang for Llama-3.1-8B on one H100, which has more throughput?").splitlines()[0]
    single = number(r"vLLM decodes about ([\d,]+) tokens/s per user", one)
    assert number(r"vLLM puts out about ([\d,]+) tokens/s in total", full) > 10 * single
