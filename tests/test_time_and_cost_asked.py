"""A training job asked for both its time and its money. "Fine-tune Llama-3.1-70B … with 64 H100s: time and cost?" had
opened with the rent-or-buy verdict and never said how long the run takes; "How long and how much to fine-tune …?"
and "要多久、花多少钱？" had given the time and no money. Both now say both in the first line: the wall-clock and
GPU-hours, then the rent (the same quote and GPU-hours in either order)."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer, number


@pytest.mark.parametrize("text", [
    "Fine-tune Llama-3.1-70B full parameters on 1B tokens with 64 H100s: time and cost?",
    "Cost and duration to pretrain a 1B model on 100B tokens with 8 H100?",
    "What's the time and the price to LoRA Qwen2.5-14B on 300M tokens with 4 A100s?",
])
def test_cost_question_says_the_time_first(text: str) -> None:
    first = answer(text).splitlines()[0]
    assert re.match(r"About [\d.]+ (?:hours|days) on \d+× ", first), first
    assert re.search(r"Renting is cheaper|Buying is cheaper|to buy", first), first


@pytest.mark.parametrize(("text", "lang"), [
    ("How long and how much to fine-tune Qwen2.5-32B with LoRA on 500M tokens using 8 A100s?", "en"),
    ("8 张 H100 全参微调 Llama-3.1-8B，20 亿 token，要多久、花多少钱？", "zh"),
])
def test_time_question_says_the_rent(text: str, lang: str) -> None:
    first = answer(text, lang).splitlines()[0]
    if lang == "en":
        hours = number(r"\(([\d,.]+) GPU-hours\)", first)
        cost = number(r"about \$([\d,.]+) at ", first)
        rate = number(r"\(\$([\d,.]+) per GPU-hour", first)
    else:
        hours = number(r"GPU 时数 ([\d,.]+)", first)
        cost = number(r"租用约 ¥([\d,.]+)", first)
        rate = number(r"每 GPU 小时 ¥([\d,.]+)", first)
    # the rent is the run's own GPU-hours at the quoted rate (rounding of the printed figures aside)
    assert cost == pytest.approx(hours * rate, rel=0.02)


def test_same_money_either_way() -> None:
    """The cost said after the time and the rent-or-buy verdict price the same GPU-hours at the same quote."""
    a = answer("How long and how much to fully fine-tune Llama-3.1-70B on 1B tokens with 64 H100s?").splitlines()[0]
    b = answer("Fine-tune Llama-3.1-70B full parameters on 1B tokens with 64 H100s: time and cost?").splitlines()[0]
    assert number(r"about \$([\d,]+)", a) == number(r"about \$([\d,]+) rented", b)


@pytest.mark.parametrize("text", [
    "How long to fine-tune Qwen2.5-32B with LoRA on 500M tokens using 8 A100s?",
    "Pretrain a 7B model on 2T tokens with 256 H100s, how many days?",
])
def test_time_alone_has_no_rent(text: str) -> None:
    first = answer(text).splitlines()[0]
    assert "Rented by the GPU-hour" not in first and "$" not in first, first
