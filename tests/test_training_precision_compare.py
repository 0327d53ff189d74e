""""With FP8 training, how much faster is pretraining Llama-3.1-70B on 512 H100 than BF16?": the two precisions named
far apart in one sentence (a comparative before "than", "instead of", "比") are the comparison asked, and the run is
planned both ways on the count said — 512, however long the run takes; a card named without a count is re-counted to
finish within the default deadline (advisor.analysis.training_compare.training_precisions)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.variants import read_variants
from tests.answer_text import answer


@pytest.mark.parametrize("text", [
    "with fp8 training, how much faster is pretraining llama-3.1-70b on 512 h100 than bf16?",
    "fp8 training on h100 instead of bf16, for a 70b: how much faster?",
    "预训练 llama-3.1-70b，512 张 h100，用 fp8 比 bf16 快多少？",
    "is bf16 much slower than fp8 for pre-training a 13b on 64 h100s?",
])
def test_two_precisions_named_apart_are_compared(text: str) -> None:
    assert {v for f, v in read_variants(text) if f == "weights"} == {"fp8", "bf16"}, text


@pytest.mark.parametrize("text", [
    "serve llama-3.1-8b in fp8 on one h100 for 50 users. is it faster than bf16 on two?",  # another sentence
    "fp8 weights with a bf16 kv cache on one h100, how many users?",  # both named, nothing compared
])
def test_no_comparison_without_a_comparative_in_the_sentence(text: str) -> None:
    assert not read_variants(text), text


@pytest.mark.parametrize(("text", "lang"), [
    ("With FP8 training, how much faster is pretraining Llama-3.1-70B on 512 H100 than BF16?", "en"),
    ("预训练 Llama-3.1-70B，512 张 H100，用 FP8 比 BF16 快多少？", "zh"),
])
def test_the_count_said_is_the_run_compared(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert "512× NVIDIA H100" in first, first
    # NeMo / DGX Cloud Llama 3.1 70B on H100 (held-out rows): FP8 1,662 against BF16 1,118 tokens/s per GPU, 1.49×
    ratio = float(re.search(r"([\d.]+)(?:×| 倍)", first.replace("512×", "")).group(1))
    assert 1.3 <= ratio <= 1.8, first


def test_a_card_without_a_count_that_cannot_hold_it_is_counted() -> None:
    first = answer("FP8 training on H100 instead of BF16, for a 70B: how much faster?").split("\n")[0]
    assert "In FP8 the run takes" in first and "H100" in first, first
