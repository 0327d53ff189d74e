""""两张 3090 跑 DeepSeek-R1-Distill-Qwen-32B 速度大概多少？" had not been read as a speed question (a hedge between 速度
and 多少), so the Chinese answer gave the fix without the speed the English one gave."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("两张 3090 跑 DeepSeek-R1-Distill-Qwen-32B 速度大概多少？", True),
    ("4090 上 Qwen2.5-7B 速度能有多快", True),
    ("速度一般多少", True),
    ("显存大概多少？", False),
    ("预算大概多少合适？", False),
])
def test_speed_asked_with_a_hedge(text: str, asked: bool) -> None:
    assert asks("speed", text) is asked


def test_the_chinese_answer_gives_the_speed_in_the_format_that_fits() -> None:
    first = answer("两张 3090 跑 DeepSeek-R1-Distill-Qwen-32B 速度大概多少？", "zh").split("\n")[0]
    assert "用 AWQ INT4 权重时，2× GeForce RTX 3090 单路约" in first, first
