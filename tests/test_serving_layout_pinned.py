""""Llama-3.1-70B on 8 H100 with TP 4 at 64 users": a TP degree said beside a load is the served model's group
(two replicas of TP 4 on eight cards), not a training layout; the answer runs that group and its speed."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()


@pytest.mark.parametrize("text", [
    "Llama-3.1-70B on 8 H100 with TP 4 at 64 users",
    "Qwen2.5-7B on 4 L40S with TP 2, 40 users",
    "serve Llama-3.1-70B with tensor parallel 8 on 8 H100 for 100 concurrent requests",
])
def test_a_tp_degree_beside_a_load_is_serving(text: str) -> None:
    s = extract(text.lower(), CAT, lang="en")
    assert s.task == "inference" and s.pinned_layout is not None, (s.task, s.task_generic)


def test_training_with_tp_stays_training() -> None:
    s = extract("pretrain llama-3.1-70b on 64 h100 with tp 8 pp 2", CAT, lang="en")
    assert s.task == "pretrain"


@pytest.mark.parametrize(("text", "layout"), [
    ("Llama-3.1-70B on 8 H100 with TP 4 at 64 users", "2 replicas × TP 4"),
    ("Qwen2.5-7B on 4 L40S with TP 2, 40 users", "2 replicas × TP 2"),
    ("Llama-3.1-70B on 8 H100 with TP 8 at 64 users", "TP 8"),
])
def test_the_served_group_is_the_one_said(text: str, layout: str) -> None:
    first = answer(text).split("\n")[0]
    assert f"({layout}, vLLM)" in first, first


def test_two_groups_of_four_share_the_load_the_group_of_eight_carries() -> None:
    """At 64 users on 8 H100 each TP-4 replica runs 32 of them: the total is the two replicas' together, and per
    user it stays within what one group of eight gives (a step reads twice the weights per GPU at half the batch)."""
    four = [p for p in answer("Llama-3.1-70B on 8 H100 with TP 4 at 64 users").split("\n") if p.strip()][1]
    eight = [p for p in answer("Llama-3.1-70B on 8 H100 with TP 8 at 64 users").split("\n") if p.strip()][1]
    per4, per8 = (number(r"([\d.]+) tokens/s per user", p) for p in (four, eight))
    tot4 = number(r"([\d,]+) tokens/s in total", four)
    assert tot4 == pytest.approx(64 * per4, rel=0.1)
    assert 0 < per4 <= per8 * 1.05
    assert re.search(r"At 64 concurrent users", four)
