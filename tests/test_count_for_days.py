""""Pretrain a 70B on 15T tokens: how many H100s for 60 days?" asks the count that finishes in 60 days. It had been
read as a rent-or-buy horizon of two months and a "how long" question (the "how many A100 days" pattern took "how many
H100s for 60 days"), so the answer gave 6,456 cards finishing in 29.7 days. The count now says the time it takes
within the deadline."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.intent import classify
from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "days"), [
    ("Pretrain a 70B dense model on 15T tokens: how many H100s for 60 days?", 60),
    ("How many GPUs would we need for 30 days of pretraining a 7B on 2T tokens?", 30),
    ("fine-tune Llama-3.1-70B on 5B tokens, how many A100s for 10 days?", 10),
])
def test_a_count_asked_for_a_time_is_a_deadline(text: str, days: int) -> None:
    slots = extract(text)
    assert slots.deadline_s == days * 86400
    assert slots.horizon_months is None
    assert classify(text, slots) == "how_many"


@pytest.mark.parametrize(("text", "months"), [
    ("Rent 8 H100 for 60 days, how much?", 60 / 30.42),  # a rental period: no count asked, no training
    ("How many H100s should we rent for 3 months to serve Llama 70B?", 3),  # serving: how long it is rented
])
def test_a_rental_period_stays_a_horizon(text: str, months: float) -> None:
    slots = extract(text)
    assert slots.deadline_s is None
    assert slots.horizon_months == pytest.approx(months, rel=0.01)


@pytest.mark.parametrize("text", ["How many A100 days to fine-tune a 7B?",
                                  "how many GPU hours to pretrain Llama 8B on 1T tokens?",
                                  "how many H100 GPU-hours for Llama 70B on 2T tokens?",
                                  "how many days on 64 H100?"])
def test_gpu_time_questions_stay_how_long(text: str) -> None:
    assert classify(text, extract(text)) == "how_long"


def test_the_count_says_the_time_within_the_deadline() -> None:
    first = answer("Pretrain a 70B dense model on 15T tokens: how many H100s for 60 days?").split("\n")[0]
    assert first.startswith("You need "), first
    took = number(r"to finish in about ([\d.]+) days, within your deadline of 60 days", first)
    cards = number(r"You need ([\d,]+)× NVIDIA H100", first)
    assert took <= 60
    # the fewest that meet it: a count far above (the 6,456 before) would finish far sooner
    assert took >= 40 and cards < 5000, first


def test_the_count_says_the_time_in_chinese() -> None:
    first = answer("预训练一个 7B 模型，1T tokens，三个月内完成，需要多少张 H800？", "zh").split("\n")[0]
    assert "天训完，在 90 天的期限内" in first, first
