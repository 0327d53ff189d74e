""""What's the best parallelism layout for training Llama 3.1 70B on 256 H100?" asks for a large run's layout. It had
been answered as LoRA fine-tuning that fits in 6 minutes (the default kind of training), where the Chinese
"并行策略" already read a full-parameter run; both now open with the planned layout."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer

PLAN_EN = re.compile(r"^\*\*On (\d+)× .+?: (?:TP \d+, )?(?:PP \d+, )?DP \d+, ZeRO-\d, Megatron-LM, a global batch of ")


@pytest.mark.parametrize(("text", "gpus"), [
    ("What's the best parallelism layout for training Llama 3.1 70B on 256 H100?", 256),
    ("Optimal sharding for training Qwen2.5-32B on 64 A100s?", 64),
    ("What parallelism strategy would you pick for training Llama 3.1 8B on 8 H100?", 8),
    ("Recommended parallel setup for training Qwen2.5-72B on 128 H100?", 128),
])
def test_a_layout_asked_opens_with_the_plan(text: str, gpus: int) -> None:
    first = answer(text).split("\n")[0]
    m = PLAN_EN.search(first)
    assert m, first
    assert int(m.group(1)) == gpus
    assert "LoRA" not in first


def test_the_chinese_question_reads_the_same() -> None:
    first = answer("在 256 张 H100 上训练 Llama 3.1 70B，最优的并行策略是什么？", "zh").split("\n")[0]
    assert re.match(r"\*\*256× NVIDIA H100 SXM5 80GB：TP \d+、PP \d+、DP \d+", first), first


@pytest.mark.parametrize("text", [
    "training Llama 3.1 8B on 8 H100, how long?",  # no layout asked: the default kind of training (LoRA), said
    "What parallelism strategy for serving Llama 70B on 8 H100?",  # a served model's layout, not a training plan
])
def test_no_plan_where_no_training_layout_is_asked(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "a global batch of" not in first, first
