""""How much slower per user going from 50 to 100 users?": a change of load said in one breath is answered with both
loads on the same configuration — per-user speed, first token and total output at each, and the change in per-user
speed — simulated twice by the scheduler model (advisor.analysis.load_answers.load_change)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang", "a", "b"), [
    ("What happens to per-user speed going from 50 to 100 users on 8x H100 with Qwen2.5-32B?", "en", 50, 100),
    ("How much slower per user is Qwen2.5-32B on 8x H100 at 100 users than at 50?", "en", 50, 100),
    ("If we grow from 20 concurrent users to 80 on 4x H100 with Llama-3.1-70B FP8, what changes?", "en", 20, 80),
    ("Llama-3.1-8B on one H100: concurrency from 16 to 64, how does latency change?", "en", 16, 64),
    ("we'll scale from 200 down to 50 users on 4x H200 with Qwen2.5-72B, how much faster per user?", "en", 200, 50),
    ("8 张 H100 跑 Qwen2.5-32B，用户从 50 增加到 100，每人速度会慢多少？", "zh", 50, 100),
    ("4 张 4090 部署 Qwen3-30B-A3B，并发从 10 提高到 40，首 token 延迟会变多少？", "zh", 10, 40),
    ("Qwen2.5-72B 在 8 卡 H20 上，从 30 个用户增加到 90 个，每路速度怎么变？", "zh", 30, 90),
    ("what happens to each user's tokens/sec on our 4x H100 box running Qwen2.5-32B if concurrent chats go from "
     "10 to 40?", "en", 10, 40),
    # a factor said instead of the new load
    ("Our 8x A100 box serves Llama-3.1-70B; if traffic triples from 30 users, what happens to latency?", "en", 30, 90),
    ("What if we double the users from 40 on 4x H100 with Qwen2.5-32B?", "en", 40, 80),
    ("8 卡 H100 跑 Qwen2.5-32B，并发从 50 翻倍，每路速度会怎样？", "zh", 50, 100),
])
def test_both_loads_are_answered_first(text: str, lang: str, a: int, b: int) -> None:
    first = answer(text, lang).split("\n")[0]
    if lang == "en":
        assert f"From {a} to {b} concurrent users" in first, first
        speeds = [float(x) for x in re.findall(r"([\d.]+) tokens/s(?: →| per user)", first)[:2]]
        word = "slower" if b > a else "faster"
    else:
        assert f"从 {a} 路并发到 {b} 路" in first, first
        speeds = [float(x) for x in re.findall(r"([\d.]+) tokens/s(?: →|（)", first)[:2]]
        word = "慢" if b > a else "快"
    assert len(speeds) == 2, first
    # more users share each step: per-user speed never rises with the load (the simulator's monotonic property)
    assert (speeds[1] <= speeds[0]) if b > a else (speeds[1] >= speeds[0]), first
    assert word in first, first


@pytest.mark.parametrize("text", [
    "scale from 1 to 8 GPUs for Llama-3.1-70B with 100 users",  # a change of cards, not of load
    "Serve Qwen2.5-32B on 8x H100 to 100 users",  # one load
    "We went from 2023 to 2024 budgets; serve Llama-3.1-8B to 50 users",
])
def test_no_change_of_load_is_read_where_none_was_said(text: str) -> None:
    assert extract(text).load_from is None


def test_a_change_of_load_the_cards_hold_only_with_a_change_is_given_with_it() -> None:
    """One L40S holds 80 users of Llama-3.1-8B only with an FP8 KV cache: the verdict on the card as asked comes
    first, then both loads on the card as the change makes it hold them (not the new load alone)."""
    text = answer("If traffic grows from 20 to 80 concurrent users, how does Llama-3.1-8B on one L40S hold up?")
    first, second = [p for p in text.split("\n") if p.strip()][:2]
    assert first.startswith("**Not as asked**"), first
    assert second.startswith("With an FP8 KV cache: **From 20 to 80 concurrent users"), second
    per = [float(x) for x in re.findall(r"([\d.]+) tokens/s(?: →| per user)", second)[:2]]
    assert per[1] <= per[0], second
