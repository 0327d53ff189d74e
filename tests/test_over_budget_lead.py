"""A stated budget that rules out every configuration is said first, with the budget that would buy the cheapest
configuration a buyer could be recommended (new, sold in the region) — not "nothing fits"."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


def _amounts(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in re.findall(r"[$¥]([\d,]+)", text)]


@pytest.mark.parametrize(("text", "budget", "word"), [
    ("Budget $20k: serve Llama-3.1-405B to 30 users", 20_000, "budget of $20,000 buys nothing"),
    ("We only have $15,000. Can we serve Llama-3.1-405B for our team of 30?", 15_000, "budget of $15,000 buys nothing"),
    ("我们预算 20 万，想私有化部署 DeepSeek-R1 给 200 人用，买什么？", 200_000, "¥200,000 的预算买不到"),
    ("预算只有 10 万元，Qwen3-235B-A22B 推理 50 路并发怎么配？", 100_000, "¥100,000 的预算买不到"),
])
def test_budget_too_small_is_the_first_sentence(text: str, budget: float, word: str) -> None:
    first = Conversation(driver="deterministic").respond(text).answer.splitlines()[0]
    assert word in first, first
    amounts = _amounts(first)
    assert amounts[0] == budget and max(amounts[1:]) > budget  # the budget that buys the cheapest that fits
    assert "used" not in first and "二手" not in first


def test_a_budget_that_buys_only_a_slow_configuration_says_so_first() -> None:
    """¥500,000 buys 16 Atlas 300I Duo cards (32 Ascend 310P chips) that hold DeepSeek-R1, at about 8.5 tokens/s per
    user: the first sentence gives the purchase within the budget and that it is below the 25 tokens/s target."""
    first = Conversation(driver="deterministic").respond("我们预算 50 万，想私有化部署 DeepSeek-R1 给 200 人用，买什么？"
                                                         ).answer.splitlines()[0]
    assert "在您 ¥500,000 的预算之内" in first and "低于默认交互目标" in first and "会卡" in first, first

