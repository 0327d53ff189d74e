"""A load far beyond what the leading configuration keeps within the default per-token target: 300 users of a 72B
on L40S in BF16 keep only 4 users within 40 ms a token per 16-card copy, so "75 copies, 1,200 cards" is no
deployment anyone buys. The answer then names what the recommender sizes with that target among the same cards
(it moves to 4-bit weights and TP 4 groups), and keeps the copies sentence when a few copies do it."""

from __future__ import annotations

import re

from advisor.analysis.evaluate import SANE_COPIES, analyse
from advisor.analysis.request import AnalysisRequest
from advisor.workload import Constraints, Workload
from tests.answer_text import answer


def _lead(text: str) -> str:
    return text.split("\n\n")[1]


def test_three_hundred_users_on_l40s_name_a_configuration_not_1200_cards() -> None:
    text = answer("We need to serve Qwen2.5-72B to 300 users on L40S. How many cards?")
    load = _lead(text)
    m = re.search(r"all 300 users within that take (\d+)× NVIDIA L40S with (\S+ \S+) weights .*not (\d+) copies", load)
    assert m, load
    cards, copies = int(m.group(1)), int(m.group(3))
    assert copies > SANE_COPIES and cards < copies * 16 / 4, load  # a fraction of the copies' cards
    assert "INT4" in m.group(2) or "FP8" in m.group(2), load


def test_the_analysis_keeps_the_sized_configuration_and_checks_its_target() -> None:
    w = Workload(model="qwen2.5-72b", concurrency=300)
    ev = analyse(AnalysisRequest(workload=w, constraints=Constraints(candidates=("l40s",)), concurrency_given=True,
                                 intent="how_many"))
    o = ev.at_target
    assert o is not None and o.fits and o.meets_targets and o.gpu == "l40s"
    load = ev.load or {}
    assert o.count < -(-300 // load["max_concurrency_for_target"]) * 16


def test_a_paraphrase() -> None:
    text = answer("how many L40S cards do we need to host qwen 2.5 72b for 300 concurrent chat users?")
    assert re.search(r"take \d+× NVIDIA L40S with .*, not \d+ copies", _lead(text)), _lead(text)


def test_a_few_copies_are_still_said_as_copies() -> None:
    load = _lead(answer("serve qwen3-32b to 200 users on rtx 4090s"))
    assert re.search(r"take (\d) copies of this deployment", load), load


def test_a_stated_target_is_sized_for_directly() -> None:
    text = answer("We need to serve Qwen2.5-72B to 300 users on L40S at 25 tokens/s each. How many cards?")
    head = text.split("\n\n")[0]
    assert "for your target of 25 tokens/s per user" in head and "copies of this deployment" not in text, head


def test_in_chinese_outside_china() -> None:
    load = _lead(answer("我们在美国，Qwen2.5-72B 给 300 个用户同时用，用 L40S，要几张卡？", "zh"))
    assert re.search(r"应选 \d+× NVIDIA L40S、.+? 权重（.*而不是 \d+ 套这样的部署", load), load
