"""One person, one card, a job too big as asked: a 4-bit GGUF file at the longest context the card holds comes
before 3- or 2-bit weights at the full context (R1-Distill-32B on a 4090 at its 32k default: Q4_K_M up to the
context that fits, not Q2_K), and a speed question is answered at that changed configuration."""

from __future__ import annotations

import re

import pytest

from advisor.recommend.changes import BELOW_4_BIT, FOUR_BIT_MIN_CONTEXT
from advisor.recommend.recommender import recommend
from advisor.workload import Constraints, ExistingGpus, Workload
from tests.answer_text import answer


def _first(text: str) -> str:
    return text.split("\n\n")[0]


def _cut(text: str) -> int:
    m = re.search(r"context cut to ([\d,]+) tokens", text) or re.search(r"上下文降到 ([\d,]+) tokens", text)
    assert m, text
    return int(m.group(1).replace(",", ""))


@pytest.mark.parametrize("lang,question", [
    ("en", "Can my 4090 run DeepSeek-R1-Distill-Qwen-32B? How fast?"),
    ("en", "how many tokens/s would DeepSeek-R1-Distill-Qwen-32B do on one RTX 4090?"),
    ("zh", "单卡 4090 能跑 DeepSeek-R1-Distill-Qwen-32B 吗？速度多少？"),
    ("zh", "我的 4090 跑 DeepSeek-R1-Distill-Qwen-32B 每秒多少 token？"),
])
def test_four_bit_at_a_shorter_context_before_two_bit(lang: str, question: str) -> None:
    head = _first(answer(question, lang))
    assert "Q2_K" not in head and "Q3_K" not in head, head
    assert "Q4_K_M" in head, head
    cut = _cut(head)
    assert FOUR_BIT_MIN_CONTEXT <= cut < 32768, head
    speed = re.search(r"about (\d+) tokens/s for one user|单路约 (\d+) tokens/s", head)
    assert speed, head  # the speed question is answered at the changed configuration
    tps = int(next(g for g in speed.groups() if g))
    assert 15 <= tps <= 60, head  # a 4-bit 32B on a 1 TB/s card: tens of tokens/s, not the offload's few
    assert "No speed to give" not in head and "谈不上速度" not in head, head
    # the layer-offload route is named for the context asked, not as the only way to run it
    assert "runs only with llama.cpp layer offload" not in head and "本身只能用" not in head, head


def test_the_cut_context_fits_and_one_more_step_does_not() -> None:
    """The offered context is the longest that fits: the 4-bit job at it fits the card, 512 tokens more does not
    (checked through the recommender itself on the one card owned)."""
    w = Workload(model="deepseek-r1-distill-qwen-32b", task="inference", context=32768, concurrency=1)
    c = Constraints(existing=ExistingGpus(gpu="rtx-4090", count=1))
    change = next(ch for ch in recommend(w, c).changes if ch.kind == "precision")
    assert change.context and change.value == "q4_k_m"
    at = recommend(Workload(model=w.model, task="inference", context=change.context, weights="q4_k_m"), c)
    assert at.options and at.options[0].fits
    over = recommend(Workload(model=w.model, task="inference", context=change.context + 1024, weights="q4_k_m"), c)
    assert not (over.options and over.options[0].fits and over.options[0].headroom_ratio >= 0.1)


def test_below_four_bit_stays_when_four_bit_holds_no_useful_context() -> None:
    """Where 4-bit weights alone overflow the card (Qwen2.5-32B Q4_K_M, ~18.5 GiB, on a 16 GB RTX 4080), no context
    cut helps: the below-4-bit last resort is offered at the context asked."""
    w = Workload(model="qwen2.5-32b", task="inference", context=8192, concurrency=1)
    changes = recommend(w, Constraints(existing=ExistingGpus(gpu="rtx-4080", count=1))).changes
    fmt = next(ch for ch in changes if ch.kind == "precision")
    assert fmt.value in BELOW_4_BIT and fmt.context is None, fmt
