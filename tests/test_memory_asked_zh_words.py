"""The memory asked in Chinese with a word between 显存 and 多少: "Qwen2.5-14B LoRA rank 16，batch 4，序列 2048，显存要多少？"
had been answered with a recommendation (4× Ascend 910B2 and its price) where the English question got the memory
figure. "显存要多少", "显存至少要多少", "显存占用大概要多大" ask how much memory the job needs."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("Qwen2.5-14B LoRA rank 16，batch 4，序列 2048，显存要多少？", True),
    ("Qwen2.5-14B LoRA，显存至少要多少", True),
    ("Llama-3.1-8B 推理显存占用大概要多大？", True),
    ("全参微调 7B 显存得多少", True),
    ("一张 4090 显存够吗？", False),
    ("显存带宽多少对推理速度影响最大？", False),
])
def test_memory_asked(text: str, asked: bool) -> None:
    assert asks("memory", text) is asked


def test_lora_memory_answer_opens_with_the_figure() -> None:
    first = answer("Qwen2.5-14B LoRA rank 16，batch 4，序列 2048，显存要多少？", "zh").splitlines()[0]
    assert first.startswith("Qwen2.5-14B") and "GiB 显存 = 权重" in first, first
