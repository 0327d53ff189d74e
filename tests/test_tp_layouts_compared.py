""""TP 8 on 8 H100, or 2 replicas of TP 4?": two TP degrees named with a comparison are the served model on the
same cards at each degree (the cards left over are replicas), both simulated at the load asked, with which one is
faster per user and which delivers more in total."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import tp_degrees_compared
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "tps"), [
    ("Is it better to run 70B as TP8 on 8 H100 or as 2 replicas of TP4?", (8, 4)),
    ("TP 8 还是两组 TP 4？", (8, 4)),
    ("tensor parallel 4 vs tensor parallel 2 for Qwen2.5-32B on 4 L40S", (4, 2)),
])
def test_two_degrees_with_a_comparison(text: str, tps: tuple[int, ...]) -> None:
    assert tp_degrees_compared(text) == tps


@pytest.mark.parametrize("text", ["Llama-3.1-70B on 8 H100 with TP 4 at 64 users", "TP 8 or PP 2?"])
def test_one_degree_is_no_comparison(text: str) -> None:
    assert tp_degrees_compared(text) == ()


@pytest.mark.parametrize(("text", "lang"), [
    ("Is it better to run Llama-3.1-70B as TP8 on 8 H100 or as 2 replicas of TP4 at 64 users?", "en"),
    ("Llama-3.1-70B 8 张 H100，TP 8 还是两组 TP 4，100 并发哪个好？", "zh"),
    ("Qwen2.5-7B on 4 L40S: TP 4 or TP 1 replicas for 200 users?", "en"),
])
def test_each_degree_is_simulated_and_the_verdict_follows_the_figures(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    rx = (r"((?:\d+ replicas × )?(?:TP \d+|1 GPU)), vLLM gives ([\d.]+) tokens/s per user and ([\d.]+) tokens/s in total"
          if lang == "en" else r"((?:\d+ 个副本 × )?(?:TP \d+|单卡))、vLLM 每路 ([\d.]+) tokens/s、合计 ([\d.]+) tokens/s")
    runs = [(lay, float(per), float(tot)) for lay, per, tot in re.findall(rx, first)]
    assert len(runs) == 2, first
    users = int(re.search(r"at (\d+) users|(\d+) 路并发", first).group(1) or re.search(r"(\d+) 路并发", first).group(1))
    for _, per, tot in runs:
        assert tot <= users * per * 1.1  # no copy serves more than its users at their speed
    best_user = max(runs, key=lambda r: r[1])[0]
    tail = first.split("**")[-1]
    assert best_user in tail or "about the same" in tail or "差不多" in tail, first


def test_a_degree_the_cards_cannot_run_is_said_and_the_other_is_simulated() -> None:
    first = answer("Llama-3.1-70B on 8 H100: TP 8 or TP 16 at 32 users?").split("\n")[0]
    assert "TP 16 cannot run the model on these cards" in first
    assert re.search(r"TP 8, vLLM gives [\d.]+ tokens/s per user", first), first


def test_a_served_group_larger_than_the_cards_is_one_clear_line() -> None:
    text = answer("Llama-3.1-70B on 2 H100 with TP 4 at 8 users")
    first = text.split("\n")[0]
    assert "TP 4 takes 4 GPUs per copy of the model" in first and "attention heads" not in first, first


@pytest.mark.parametrize(("text", "said"), [
    ("Llama-3.1-70B 两张 H100，TP 4，8 并发", "TP 4 每份模型要 4 张卡"),
    ("Llama-3.1-70B 两张 H100，TP 3，8 并发", "张量并行度 3 必须整除"),
])
def test_a_served_group_the_cards_cannot_run_is_said_in_chinese(text: str, said: str) -> None:
    first = answer(text, "zh").split("\n")[0]
    assert said in first and "cannot" not in first, first
