"""Who of the people is on at once. "A team of 40 people, 5 of them at the same time" had read 40 concurrent users,
"only about 5 use the chatbot at the same time" had fallen back to 10 % of 40, "maybe a quarter are chatting at
once" had read 120 concurrent agents, and "team of 25, never all at once" had read 25 at once."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CATALOG = load_catalog()


def _read(text: str, lang: str = "en") -> tuple[int | None, int | None, float | None]:
    s = extract(text, CATALOG, lang=lang)
    return s.concurrency, s.headcount, s.peak_share


@pytest.mark.parametrize(("text", "lang", "concurrency", "headcount"), [
    # a number of them on at once
    ("We have a team of 40 people but only about 5 use the chatbot at the same time", "en", 5, 40),
    ("A team of 40 people, 5 of them at the same time, Llama-3.1-8B on one 4090", "en", 5, 40),
    ("50 engineers, at most 10 at once, Llama-3.1-70B on H100", "en", 10, 50),
    ("we're 300 people and I'd guess 30 are using it at any given time", "en", 30, 300),
    ("team of 25, never all at once, usually 3 or 4 concurrently", "en", 4, 25),
    ("A team of 12 using it throughout the day, 2 or 3 at once", "en", 3, 12),
    ("The company has 400 staff but realistically only twenty use it at the same time", "en", 20, 400),
    ("Our 15 engineers use Copilot-style completion all day, maybe 6 at once", "en", 6, 15),
    ("Only 3 of our 12 analysts use it simultaneously; is a single L40S fine for Llama-3.1-8B?", "en", 3, 12),
    ("2 out of 10 people at once on Llama-3.1-8B", "en", 2, 10),
    ("We're a 25-person agency and honestly only a handful, maybe 4, would be chatting with it at any one moment",
     "en", 4, 25),
    ("我们组十来个人，同一时间顶多三四个在用，一张 4090 跑 Qwen3-14B 扛得住不？", "zh", 4, 10),
    ("团队 40 人，其中 5 个人同时用", "zh", 5, 40),
    ("全公司 300 人，同时用的也就 20 来个", "zh", 20, 300),
    ("全组 20 人，一般也就三四个人同时用", "zh", 4, 20),
    # everyone at once: the people are the concurrency
    ("A classroom of 35 students all hitting one RTX 4080 Super at the same time with Phi-4", "en", 35, None),
    ("I need it for 30 students in a lab session, all at once", "en", 30, None),
    ("a team of 8 who all use it simultaneously", "en", 8, None),
    ("40 people using it at the same time, Llama-3.1-8B", "en", 40, None),
    ("实验室 30 个学生，上课时全部同时访问", "zh", 30, None),
    # no one said at once: a headcount, the dialog's peak share applies
    ("20 people, but not all of them at the same time, Llama-3.1-8B", "en", None, 20),
    ("we run 3 models at the same time on 2 GPUs for 20 people", "en", None, 20),
    ("30 people, 4 GPUs at the same time", "en", None, 30),
    ("Train 2 models at once for a 30 person team", "en", None, 30),
    ("我们有 50 个研发，不会同时用", "zh", None, 50),
    ("3 of our 8 GPUs are busy at once with Llama-3.1-8B", "en", None, None),  # cards, not people
])
def test_the_people_on_at_once(text: str, lang: str, concurrency: int | None, headcount: int | None) -> None:
    got = _read(text, lang)
    assert got[:2] == (concurrency, headcount), got


@pytest.mark.parametrize(("text", "lang", "share"), [
    ("Our support desk has 120 agents; maybe a quarter are chatting at once. Qwen2.5-32B", "en", 0.25),
    ("200 employees, about half of them online at peak, Qwen2.5-14B", "en", 0.5),
    ("A 60-person company where maybe one in ten uses it simultaneously", "en", 0.1),
    ("We have 80 developers, 20% use it concurrently", "en", 0.2),
    ("Half our 60 engineers will hit the code assistant at once. Qwen2.5-Coder-32B on what?", "en", 0.5),
    ("Around 10 percent of our 2,000 employees will be active at the same time on Llama-3.1-70B", "en", 0.1),
    ("We have 1 in 5 of 300 users online at peak, Qwen2.5-7B, which GPU?", "en", 0.2),
    ("公司 200 人，大概一半同时在线", "zh", 0.5),
    ("100 个员工，高峰期四分之一同时使用", "zh", 0.25),
    ("500 人，三成同时在线", "zh", 0.3),
])
def test_a_share_of_them_at_once(text: str, lang: str, share: float) -> None:
    concurrency, headcount, got = _read(text, lang)
    assert concurrency is None and headcount is not None and got == pytest.approx(share)


def test_the_answer_sizes_the_five_not_a_tenth_of_forty() -> None:
    text = answer("We have a team of 40 people but only about 5 use the chatbot at the same time. Can one RTX 4090 "
                  "run Llama-3.1-8B for them?", "en")
    assert "**At 5 concurrent users**" in text, text
    assert "10% of them" not in text


def test_the_answer_takes_the_quarter_said() -> None:
    text = answer("Our support desk has 120 agents; maybe a quarter are chatting at once. What GPUs for Qwen2.5-32B?", "en")
    assert "120 people → about 30 at the same time (25% of them at peak, as you said)" in text, text


def test_the_chinese_answer_takes_the_half_said() -> None:
    text = answer("公司 200 人，大概一半同时在线，Qwen2.5-14B 用什么卡？", "zh")
    assert "**100 路并发时**" in text and "200 人 → 约 100 路并发" in text, text
