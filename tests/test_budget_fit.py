"""A budget and no card ("一两万的预算，能跑什么模型？"): the answer names the hardware the budget buys and the models
that fit it, first; it does not ask which model. Checked against the catalog's own facts (prices, regions, memory)
rather than the selection code's formula."""

from __future__ import annotations

import re

import pytest

from advisor.analysis.budget_hardware import budget_hardware, fast_enough, most_memory_within
from advisor.conversation.session import Conversation
from advisor.estimator.cost import end_of_life
from advisor.recommend.prices import unit_price
from advisor.recommend.search import sold_in
from knowledge.catalog import load_catalog

CAT = load_catalog()


@pytest.mark.parametrize(("budget", "currency", "region"), [
    (20_000, "CNY", "cn"), (10_000, "CNY", "cn"), (200_000, "CNY", "cn"), (1_000_000, "CNY", "cn"),
    (800, "USD", "global"), (3_000, "USD", "global"), (30_000, "USD", "global"), (300_000, "USD", "global")])
def test_the_pick_is_affordable_new_sold_in_the_region_and_no_card_alone_holds_more(budget: float, currency: str,
                                                                                     region: str) -> None:
    pick = most_memory_within(CAT, budget, currency, region)
    assert pick is not None
    assert pick.total <= budget and pick.count in (1, 2, 4, 8)
    assert sold_in(pick.gpu, region) and not end_of_life(pick.gpu) and fast_enough(pick.gpu)
    price = unit_price(pick.gpu, currency)
    assert price is not None and pick.total == pytest.approx(pick.count * price.per_card.amount)
    # any single fast new card the budget buys holds at most what the pick holds in all
    for gpu in CAT.gpus:
        one = unit_price(gpu, currency)
        if one is None or not sold_in(gpu, region) or end_of_life(gpu) or not fast_enough(gpu):
            continue
        if one.per_card.amount <= budget and gpu.interface not in ("sxm", "oam"):
            assert gpu.memory_bytes <= pick.count * pick.gpu.memory_bytes, gpu.id


def test_cards_restricted_in_china_or_slow_are_not_picked_there() -> None:
    for budget in (5_000, 20_000, 60_000, 200_000):
        pick = most_memory_within(CAT, budget, "CNY", "cn")
        assert pick is not None
        assert pick.gpu.id not in ("rtx-4090", "rtx-5090", "h100-sxm", "a100-80g-sxm")  # not sold new in China
        assert pick.gpu.id != "atlas-300i-duo"  # most memory per yuan, but 0.25 s to read its memory once


def test_a_budget_below_every_card_buys_nothing_and_names_the_cheapest() -> None:
    hw = budget_hardware(CAT, 1_000, "CNY", "cn")
    assert hw.pick is None and hw.cheapest is not None
    assert hw.cheapest.total > 1_000


def _first(text: str) -> str:
    return text.strip().split("\n", 1)[0]


@pytest.mark.parametrize(("message", "budget"), [
    ("一两万的预算，能跑什么模型？", 20_000),
    ("预算一万，推荐能跑的模型", 10_000),
    ("我有5万块钱，能本地跑什么模型", 50_000),
    ("10万预算能部署多大的模型？", 100_000),
    ("我手上有 3 万块，想本地跑个写代码的模型，买啥？", 30_000),
])
def test_chinese_budget_questions_are_answered_with_models_first(message: str, budget: int) -> None:
    turn = Conversation(lang="zh").respond(message)
    first = _first(turn.answer)
    assert first.startswith(f"**预算 ¥{budget:,} 能跑的最大"), first
    assert "请问" not in turn.answer and "哪个模型" not in turn.answer
    spent = re.search(r"仅显卡 ¥([\d,]+)", first)
    assert spent and int(spent.group(1).replace(",", "")) <= budget
    assert "中国大陆" in first


@pytest.mark.parametrize(("message", "budget"), [
    ("What LLMs can I run with a $3k budget?", 3_000),
    ("budget is 5000 dollars, which model can I run locally?", 5_000),
    ("Got $800 to spend, what's the best model I can run?", 800),
])
def test_english_budget_questions_are_answered_with_models_first(message: str, budget: int) -> None:
    turn = Conversation(lang="en").respond(message)
    first = _first(turn.answer)
    assert first.startswith(f"**With ${budget:,}, the largest models you can run are"), first
    spent = re.search(r"\(\$([\d,]+) for the cards? alone", first)
    assert spent and int(spent.group(1).replace(",", "")) <= budget
    assert "Which model" not in turn.answer


def test_a_budget_too_small_is_said_first_in_the_users_language() -> None:
    zh = Conversation(lang="zh").respond("预算 2000 元，能跑什么大模型")
    assert _first(zh.answer).startswith("**¥2,000 在中国大陆买不到目录里的任何一张 GPU**")
    en = Conversation(lang="en").respond("I have $200, what models can I run?")
    assert _first(en.answer).startswith("**$200 does not buy a GPU in the catalog**")
