""""How much throughput do I lose going from FP8 to BF16 on 4 H100 at 32 users?": two weight formats compared with
a speed word are the served model at each format on the same cards, simulated at the load (the memory of each is
another question, answered as before); and "推理速度？" or "prefill for 100k tokens" are read as asked."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from advisor.conversation.reader.variants import read_variants
from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "formats"), [
    ("How much throughput do I lose going from FP8 to BF16?", ("fp8", "bf16")),
    ("How much memory does FP8 save over BF16 for Llama-3.1-70B?", ("fp8", "bf16")),
    ("从 BF16 换成 FP8 能快多少？", ("bf16", "fp8")),
])
def test_two_formats_are_read_in_more_phrasings(text: str, formats: tuple[str, str]) -> None:
    assert read_variants(text) == tuple(("weights", f) for f in formats)


@pytest.mark.parametrize(("text", "lang"), [
    ("How much throughput do I lose going from FP8 to BF16 on Llama-3.3-70B with 4 H100 at 32 users?", "en"),
    ("FP8 vs BF16 for Qwen2.5-72B on 4 H100 at 64 users: how much faster?", "en"),
    ("Llama-3.1-8B 一张 L40S，FP8 比 BF16 快多少？20 并发", "zh"),
])
def test_each_format_is_simulated_at_the_load(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    rx = (r"(FP8|BF16) weights \([^)]*\) gives ([\d.]+) tokens/s per user and ([\d.]+) tokens/s in total" if lang == "en"
          else r"(FP8|BF16) 权重（[^）]*） 每路 ([\d.]+) tokens/s、合计 ([\d.]+) tokens/s")
    runs = {fmt: (float(per), float(tot)) for fmt, per, tot in re.findall(rx, first)}
    assert set(runs) == {"FP8", "BF16"}, first
    # half the weight bytes per step: FP8 decodes faster, never slower, on a card with FP8 tensor cores
    assert runs["FP8"][0] > runs["BF16"][0] and runs["FP8"][1] > runs["BF16"][1]


def test_the_memory_question_stays_the_memory() -> None:
    first = answer("How much memory does FP8 save over BF16 for Llama-3.1-70B?").split("\n")[0]
    fp8, bf16 = number(r"needs ([\d.]+) GiB", first), number(r"and ([\d.]+) GiB with BF16", first)
    assert bf16 > fp8 and "tokens/s" not in first


def test_the_speed_asked_at_the_end_of_a_chinese_question() -> None:
    assert asks("speed", "Mixtral-8x22B 在 4 张 H100 上推理速度？")
    first = answer("Mixtral-8x22B 在 4 张 H100 上推理速度？", "zh").split("\n")[0]
    assert first.startswith("**4× NVIDIA H100") and "tokens/s" in first, first


def test_a_prefill_length_is_the_prompt() -> None:
    first = answer("How long does prefill take for 100k tokens on Qwen2.5-72B across 8 H200s?").split("\n")[0]
    assert "for a prompt of 100,000 tokens" in first, first
