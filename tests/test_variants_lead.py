"""A question that compares settings of one job opens with each setting's memory need side by side: two methods
("LoRA vs QLoRA"), two weight formats ("FP16 or INT4"), an 8-bit KV cache against FP16, or the context's effect.
The figures are checked against hand arithmetic from the models' config.json shapes."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.variants import read_variants
from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("text", "field"), [
    ("What's the difference between LoRA and QLoRA memory for a 13B?", "task"),
    ("QLoRA vs full fine-tuning for Qwen2.5-7B — how much memory do I save?", "task"),
    ("Qwen2.5-14B 全参微调和 LoRA 显存差多少", "task"),
    ("FP16 or INT4 for Llama 3 70B on 2 A100?", "weights"),
    ("Llama 3.1 8B 用 8bit 还是 4bit 跑？", "weights"),
    ("Is 8 bit KV cache worth it for Llama 3 70B at 128k context?", "kv"),
    ("how much does an FP8 KV cache save for Qwen2.5-72B at 32k", "kv"),
    ("How much does context length affect memory for Qwen2.5-7B?", "context"),
    ("上下文长度对 Qwen2.5-7B 显存的影响有多大", "context"),
    ("Does a longer context need much more memory with Llama 3.1 8B?", "context"),
])
def test_compared_settings_are_read(text: str, field: str) -> None:
    got = read_variants(text)
    assert got and {f for f, _ in got} == {field}, got


@pytest.mark.parametrize("text", [
    "Qwen2.5-7B QLoRA on a 4090", "serve llama 3 70b in 4-bit on 2 A100", "LoRA fine-tune Llama 3 8B for 1B tokens",
    "8 张 H100 能跑 DeepSeek-V3 吗",
])
def test_one_setting_is_no_comparison(text: str) -> None:
    assert read_variants(text) == ()


def test_an_fp8_kv_cache_halves_the_kv_cache() -> None:
    """Llama-3-70B at 128k: 2 × 80 layers × 8 KV heads × 128 × 2 B × 131,072 tokens = 40.0 GiB in FP16, 20.0 in FP8;
    the rest of the need does not change, so the two totals are 20.0 GiB apart."""
    first = Conversation(lang="en").respond("Is 8 bit KV cache worth it for Llama 3 70B at 128k context?"
                                            ).answer.split("\n")[0]
    m = re.search(r"needs ([\d.]+) GiB .*? and ([\d.]+) GiB with an FP8 KV cache\*\* \(([\d.]+) GiB less", first)
    assert m, first
    hand = 2 * 80 * 8 * 128 * 2 * 131072 / 2**30
    assert float(m.group(1)) - float(m.group(2)) == pytest.approx(hand / 2, abs=0.11)
    assert "KV cache 40.0 GiB → 20.0 GiB" in first


def test_qlora_saves_the_base_weights() -> None:
    """Llama-2-13B (13.0 B parameters): BF16 base 24.2 GiB against NF4 ≈ 0.5 B per parameter + the BF16 embeddings
    and head that stay unquantised; QLoRA must need less than LoRA by at least 60 % of the BF16 weights."""
    first = Conversation(lang="en").respond("What's the difference between LoRA and QLoRA memory for a 13B?"
                                            ).answer.split("\n")[0]
    m = re.search(r"needs ([\d.]+) GiB .*?LoRA fine-tuning and ([\d.]+) GiB with QLoRA", first)
    assert m, first
    assert float(m.group(1)) - float(m.group(2)) >= 0.6 * 13.0e9 * 2 / 2**30


def test_the_context_ladder_grows_by_the_kv_cache_per_token() -> None:
    """Qwen2.5-7B: 2 × 28 layers × 4 KV heads × 128 × 2 B = 57,344 B per token = 56 MiB per 1,000 tokens."""
    first = Conversation(lang="zh").respond("上下文长度对 Qwen2.5-7B 显存的影响有多大").answer.split("\n")[0]
    m = re.search(r"多约 (\d+) MiB", first)
    assert m, first
    assert int(m.group(1)) == pytest.approx(2 * 28 * 4 * 128 * 2 * 1000 / 2**20, abs=1.5)
