""""What TP/PP/EP would you use for DeepSeek-V3 on 1024 H800?" asks the planner's layout: the answer opens with it
(the global batch and micro-batches too), and an MoE run's layout names its expert parallelism, a long-context run
its context parallelism — the degrees the plan was made with (PlannedLayout.ep / .cp)."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize("text", [
    "What TP/PP/EP would you use for DeepSeek-V3 pretraining on 1024 H800?",
    "parallelism strategy for pretraining Qwen3-30B-A3B on 256 H100?",
    "what parallel config for pre-training Mixtral-8x7B on 128 A100s?",
])
def test_a_layout_question_opens_with_the_plan_and_its_expert_parallelism(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "global batch of" in first, first
    ep = re.search(r"EP (\d+)", first)
    assert ep is not None and int(ep.group(1)) > 1, first


def test_a_dense_plan_names_no_expert_parallelism() -> None:
    first = answer("What parallelism layout and global batch would you use to pretrain a 70B on 1024 H100?").split("\n")[0]
    assert "global batch of" in first and "EP " not in first, first
