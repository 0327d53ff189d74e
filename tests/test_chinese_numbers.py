"""Chinese scaled numbers in chat are read whole (万, 亿, 千, numerals), then range-checked like any number."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.numbers import read
from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("text", "value"), [
    ("20万", 2e5), ("2000万", 2e7), ("1.5亿", 1.5e8), ("3千", 3e3), ("两千", 2e3), ("三万", 3e4), ("十万", 1e5),
    ("二十万", 2e5), ("两千万", 2e7), ("一千五百万", 1.5e7), ("1万亿", 1e12), ("1.5 万", 1.5e4), ("1e3", 1e3),
    ("1,200", 1200), ("八", 8),
])
def test_read(text: str, value: float) -> None:
    assert read(text) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", "万x", "abc", "fp8"])
def test_read_refuses_what_is_not_a_number(text: str) -> None:
    assert read(text) is None


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("qwen2.5-7b 推理 3千个用户", "concurrency", 3000),  # was 1000 (the 千 alone)
    ("qwen2.5-7b 两千个用户", "concurrency", 2000),
    ("qwen2.5-7b 1.5万并发", "concurrency", 15000),  # was nothing
    ("qwen2.5-7b 5万用户", "concurrency", 50000),
    ("qwen2.5-7b 三万个用户", "concurrency", 30000),
    ("qwen2.5-7b 上下文两千", "context", 2000),
    ("qwen2.5-7b 上下文 8千", "context", 8192),  # 千 beside a context stays "k"
    ("预训练 llama-3-8b，1.5亿 tokens", "train_tokens", 1.5e8),
])
def test_scaled_numbers_fill_their_slot(text: str, slot: str, value: float) -> None:
    slots = extract(text, lang="zh")
    assert getattr(slots, slot) == value and slots.out_of_range == []


@pytest.mark.parametrize(("text", "slot", "value", "hi"), [
    ("qwen2.5-7b 推理 20万个用户", "concurrency", 2e5, 1e5),  # was nothing (dropped)
    ("qwen2.5-7b 20万并发", "concurrency", 2e5, 1e5),
    ("qwen2.5-7b 并发 20万", "concurrency", 2e5, 1e5),  # was a budget of ¥200,000
    ("qwen2.5-7b 上下文 2000万", "context", 2e7, 10_485_760),  # was a budget of ¥20,000,000
    ("qwen2.5-7b 上下文 2000万 tokens", "context", 2e7, 10_485_760),  # was a context of 2,000
    ("qwen2.5-7b 上下文 1.5亿", "context", 1.5e8, 10_485_760),
])
def test_too_large_scaled_numbers_are_reported(text: str, slot: str, value: float, hi: float) -> None:
    slots = extract(text, lang="zh")
    assert [(o.slot, o.value, o.hi) for o in slots.out_of_range] == [(slot, value, hi)]
    assert getattr(slots, slot) is None and slots.budget is None


@pytest.mark.parametrize(("text", "budget"), [("qwen2.5-72b 推理，预算 20万", 2e5), ("20万能买什么卡跑 qwen2.5-32b", 2e5),
                                              ("预算 1.5万元", 1.5e4)])
def test_money_in_wan_is_still_a_budget(text: str, budget: float) -> None:
    slots = extract(text, lang="zh")
    assert slots.budget == budget and slots.currency == "CNY"


@pytest.mark.parametrize(("text", "needles"), [
    ("用 qwen2.5-7b 推理，20万个用户", ["200,000", "并发数", "1 到 100,000"]),
    ("用 qwen2.5-7b，上下文 2000万", ["20,000,000", "上下文长度", "超过了上限"]),
])
def test_the_chat_reply_names_what_was_read(text: str, needles: list[str]) -> None:
    turn = Conversation(driver="deterministic").respond(text)
    for needle in needles:
        assert needle in turn.answer
    assert turn.options == []
