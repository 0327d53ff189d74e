""""$500k — what's the biggest model we can train from scratch in a month?": a budget, pre-training and no model is
answered with the compute-optimal model the budget's training cards train in that time (not with the models the
budget could *run*, as before), in both languages.

Independent anchor: Chinchilla itself (Hoffmann et al. 2022) is 70 B parameters trained on 1.4 T tokens, 6 · N · D
= 5.88e23 FLOPs; an answer's (FLOPs, parameters, tokens) must sit on that compute-optimal line (N ∝ √C, D ≈ 20 N).
"""

from __future__ import annotations

import math
import re

import pytest

from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
CHINCHILLA = (5.88e23, 70e9, 1.4e12)


def _num(s: str) -> float:
    return float(s.replace(",", ""))


@pytest.mark.parametrize(("lang", "text", "days"), [
    ("en", "Our budget is $500k, what's the biggest model we can train from scratch in a month?", 30),
    ("en", "With 2 million dollars, what size LLM could we pretrain in 3 months?", 90),
    ("en", "We have $1.2M for compute. How large a model could we pre-train from scratch in 6 weeks?", 42),
    ("zh", "预算 500 万，一个月最大能从头训练多大的模型？", 30),
    ("zh", "我们有 2000 万元预算，三个月能从零预训练多大参数量的模型？", 90),
])
def test_a_training_budget_gets_the_compute_optimal_model(lang: str, text: str, days: int) -> None:
    answer = Conversation(lang=lang).respond(text).answer
    first = answer.splitlines()[0]
    assert re.search(r"pre-train a model of about [\d.]+ B parameters|从头预训练约 [\d.]+ B 参数", first), first
    assert re.search(rf"in {days} days|{days} 天内", first), first
    n, rest = re.search(r"(\d+)× (.+)", first).groups()
    gpu = max((g for g in CAT.gpus if rest.startswith(g.name)), key=lambda g: len(g.name))
    card = gpu.name
    assert int(n) % 8 == 0 and gpu.interface in ("sxm", "oam")  # whole training baseboards
    spent = _num(re.search(r"[($（]?(?:仅显卡 )?[$¥]([\d,]+)", first.split(card, 1)[1]).group(1))
    budget = _num(re.search(r"[$¥]([\d,]+)", first).group(1))
    assert spent <= budget
    flops = float(re.search(r"([\d.]+e\d+) FLOPs", answer).group(1))
    params = float(re.search(r"(?:about|约) ([\d.]+) B 参数|model of about ([\d.]+) B", first).group(1) or
                   re.search(r"model of about ([\d.]+) B", first).group(1)) * 1e9
    c0, n0, d0 = CHINCHILLA
    assert params == pytest.approx(n0 * math.sqrt(flops / c0), rel=0.06)  # on Chinchilla's line
    assert d0 / n0 == pytest.approx(20, rel=0.01)


def test_a_budget_below_one_training_server_says_so_first() -> None:
    first = Conversation().respond("Budget $20k, biggest model I can pretrain from scratch?").answer.splitlines()[0]
    assert first.startswith("**$20,000 does not buy"), first


def test_a_budget_to_run_a_model_is_still_answered_with_models_that_run() -> None:
    first = Conversation().respond("What LLMs can I run with a $3k budget?").answer.splitlines()[0]
    assert "you can run" in first and "pre-train" not in first, first
