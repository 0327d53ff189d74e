""""一台 4 卡 4090 服务器，能同时服务多少个 Qwen2.5-14B 用户？" asks for the users (the model named between 多少个 and 用户);
it had been answered "放得下, 78 tokens/s each" with no number of users."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("一台 4 卡 4090 服务器，能同时服务多少个 Qwen2.5-14B 用户？", True),
    ("两张 A100 能同时支持几个人用 Llama 70B？", True),
    ("8 卡 H20 同时容纳多少会话？", True),
    ("4090 支持多少上下文？", False),  # a context, not users
    ("需要多少个 H100 才能服务 100 人？", False),  # cards for 100 people
    ("训练需要多少个小时？", False),
])
def test_users_asked_with_words_between(text: str, asked: bool) -> None:
    assert asks("users", text) is asked


def test_the_answer_opens_with_the_users() -> None:
    first = answer("一台 4 卡 4090 服务器，能同时服务多少个 Qwen2.5-14B 用户？", "zh").split("\n")[0]
    assert first.startswith("**4× GeForce RTX 4090 最多可同时服务 "), first
