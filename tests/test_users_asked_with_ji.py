"""The most users asked with 几 ("最多几个并发", "能开几个会话", "并发能到几个"): "一张 4090 跑 Llama-3.1-8B，每人 30 token/s，
最多几个并发？" had answered one user's speed; the English question ("what's the maximum concurrency …") opened with
the most concurrent users. Both do now; a card count asked with 几 ("几张卡") stays a card count."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize("text", [
    "一张 4090 跑 Llama-3.1-8B，每人 30 token/s，最多几个并发？",
    "两张 L40S 跑 Qwen2.5-32B AWQ，能开几个会话？",
    "单卡 H100 跑 Qwen3-8B，并发能到几个？",
    "一张 A100 跑 Llama-3.1-8B，并发最多能开几个",
    "4 张 4090 够几个用户同时用 Qwen2.5-14B？",
])
def test_most_users_opens_the_answer(text: str) -> None:
    first = answer(text, "zh").splitlines()[0]
    assert re.search(r"最多可同时服务 \d+ 路", first), first


@pytest.mark.parametrize("text", ["Llama-3.1-70B 推理需要几张 4090？", "几张 H100 能跑 Qwen2.5-72B？"])
def test_card_count_stays_a_card_count(text: str) -> None:
    assert not asks("users", text)
