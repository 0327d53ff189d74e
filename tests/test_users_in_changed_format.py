""""Max concurrency for Qwen2.5-32B on an L40S if TTFT must stay under 500 ms?" when the card holds the weights
only in another format: the users the changed configuration serves open the answer, led by the format, and the
shortfall as asked follows (it had opened with the shortfall and one user's speed, the users a paragraph below)."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "fmt", "gpu"), [
    ("What's the max concurrency for Qwen2.5-32B on an L40S if TTFT must stay under 500ms?", "FP8", "1× NVIDIA L40S"),
    ("How many users can one RTX 4090 serve with Qwen2.5-14B?", "FP8", "1× GeForce RTX 4090"),
    ("How many concurrent users can Llama 3.1 70B on 2x L40S handle at 20 tokens/s each?", "AWQ INT4",
     "2× NVIDIA L40S"),
])
def test_english_users_in_the_format_that_fits(text: str, fmt: str, gpu: str) -> None:
    out = answer(text)
    first = out.split("\n")[0]
    assert first.startswith(f"With {fmt} weights: **{gpu} serves at most "), first
    assert re.search(r"In BF16, it does not fit: [\d.]+ GiB short per GPU", first), first
    most = number(r"serves at most (\d+) concurrent users", first)
    below = number(r"\*\*At (\d+) concurrent users\*\*", out)  # the load line under it is at those users
    assert most == below


@pytest.mark.parametrize("text", ["单卡 L40S 跑 Qwen2.5-32B，首 token 500ms 以内，最多多少并发？",
                                  "一张 4090 跑 Qwen2.5-14B 能同时服务多少人？"])
def test_chinese_users_in_the_format_that_fits(text: str) -> None:
    first = answer(text, "zh").split("\n")[0]
    assert re.match(r"改用 FP8 权重后：\*\*1× .+ 最多可同时服务 \d+ 路\*\*", first), first
    assert "按 BF16 放不下：每卡差" in first


def test_a_configuration_that_holds_it_as_asked_is_unchanged() -> None:
    first = answer("How many users can one H100 serve with Qwen2.5-14B?").split("\n")[0]
    assert first.startswith("**1× NVIDIA H100 SXM5 80GB serves at most"), first


@pytest.mark.parametrize("text", [
    "Qwen2.5-32B for 50 users on 2x L40S, how many users can it actually serve?",
    "serve Qwen2.5-32B to 50 users on 2x L40S, keeping inter-token latency under 30 ms: how many users max?",
])
def test_cards_that_hold_some_users_as_asked_answer_with_those(text: str) -> None:
    """2× L40S holds Qwen2.5-32B in BF16 for 20 whole contexts, not the 50 said: the users as asked are the answer,
    not another format's."""
    first = answer(text).split("\n")[0]
    assert "With AWQ INT4 weights" not in first and "In BF16, it does not fit" not in first, first
    assert "20 concurrent requests of 4096 tokens" in first, first


def test_the_shortfall_names_the_format_it_was_judged_in() -> None:
    """DeepSeek-V3 with no format said is its FP8 checkpoint: the shortfall beside AWQ INT4 says FP8, not BF16."""
    first = answer("DeepSeek-V3 on 8x H100 for 100 users: tokens per second each?").split("\n")[0]
    assert first.startswith("With AWQ INT4 weights: **8× NVIDIA H100 SXM5 80GB serves 100 concurrent users"), first
    assert "In FP8, it does not fit" in first and "BF16" not in first, first
