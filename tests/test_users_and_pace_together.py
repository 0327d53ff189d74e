"""A question that states a load, asks its pace and asks the most users within a target ("Qwen3-32B on 2x L20 with
40 concurrent users: TTFT and per-user speed? And how many users max at 20 tok/s each?") had given the users limit
and then the figures at 20 users, the whole contexts the memory holds, not at the 40 asked. When the users' chat
turns fit the paged KV cache, the figures are at the load asked and the limit is the simulation's within the target."""

from __future__ import annotations

import pytest

from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "lang"), [
    ("Qwen3-32B on 2x L20 with 40 concurrent users: TTFT and per-user speed? And how many users max at 20 tok/s "
     "each?", "en"),
    ("Qwen3-32B，两张 L20，40 个并发，首字延迟和每路速度？要求每路不低于 20 token/s 的话最多多少并发？", "zh"),
])
def test_figures_at_the_load_asked_and_the_limit(text: str, lang: str) -> None:
    lines = answer(text, lang).splitlines()
    first, second = lines[0], next(x for x in lines[1:] if x.strip())
    limit = number(r"at most (\d+) concurrent users" if lang == "en" else r"最多可同时服务 (\d+) 路", first)
    at = number(r"At (\d+) concurrent users" if lang == "en" else r"(\d+) 路并发时", second)
    assert at == 40, second
    assert 1 <= limit < 40
    per = number(r"([\d.]+) tokens/s per user" if lang == "en" else r"每路 ([\d.]+) tokens/s", second)
    assert per < 20  # the 40 users miss the 20 tokens/s the limit is judged at


def test_limit_matches_the_limit_asked_alone() -> None:
    """The users limit is the same number whether or not the load's pace was asked beside it."""
    both = answer("Qwen3-32B on 2x L20 with 40 concurrent users: TTFT and per-user speed? And how many users max at "
                  "20 tok/s each?").splitlines()[0]
    alone = answer("Qwen3-32B on 2x L20: how many users max at 20 tok/s each?").splitlines()[0]
    assert number(r"at most (\d+) concurrent users", both) == number(r"at most (\d+) concurrent users", alone)


@pytest.mark.parametrize(("text", "lang", "yes"), [
    ("8 张 H20 能跑满血 DeepSeek-R1 吗？并发能到多少？", "zh", "能跑。"),
    ("单卡 4090 能跑 Qwen2.5-7B 吗，能支持多少并发？", "zh", "能跑。"),
    ("Can 2x H100 run Llama-3.1-70B FP8, and how many users can it serve?", "en", "Yes, it runs. "),
])
def test_runs_then_users(text: str, lang: str, yes: str) -> None:
    """Asked whether it runs and how many users it serves: the yes first, then the users."""
    first = answer(text, lang).splitlines()[0]
    assert first.startswith(yes), first
    assert number(r"at most (\d+) concurrent users" if lang == "en" else r"最多可同时服务 (\d+) 路", first) >= 1


def test_users_alone_has_no_yes() -> None:
    first = answer("How many users can 2x H100 serve with Llama-3.1-70B FP8?").splitlines()[0]
    assert not first.startswith("Yes"), first
