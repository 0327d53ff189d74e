"""KV-cache bytes equal the closed-form formula for MHA, GQA, MLA and sliding-window models."""

from __future__ import annotations

import pytest

from advisor.estimator.kv_cache import kv_bytes_per_token_layer, kv_cache_bytes
from knowledge.catalog import load_catalog
from knowledge.errors import InputError


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def test_llama2_7b_mha(cat):
    # 2 (K,V) × 32 layers × 32 heads × 128 dims × 2 B = 524,288 B = 0.5 MiB per token
    m = cat.model("llama-2-7b")
    assert kv_cache_bytes(m, 1) == 2 * 32 * 32 * 128 * 2
    assert kv_cache_bytes(m, 4096, sequences=1) == 2 * 2**30  # 2 GiB at 4k context


def test_llama3_70b_gqa(cat):
    # 2 × 80 layers × 8 KV heads × 128 × 2 B = 327,680 B per token
    m = cat.model("llama-3-70b")
    assert kv_cache_bytes(m, 8192, sequences=4) == 2 * 80 * 8 * 128 * 2 * 8192 * 4
    # fp8 KV halves it, int4 quarters it
    assert kv_cache_bytes(m, 8192, kv="fp8") == kv_cache_bytes(m, 8192) // 2
    assert kv_cache_bytes(m, 8192, kv="int4") == kv_cache_bytes(m, 8192) // 4


def test_tp_splits_kv_heads_then_replicates(cat):
    m = cat.model("llama-3-70b")  # 8 KV heads
    one = kv_cache_bytes(m, 1000)
    assert kv_cache_bytes(m, 1000, tp=8) == one // 8  # one KV head per GPU
    assert kv_cache_bytes(m, 1000, tp=16) == one // 8  # 16 > 8 KV heads: heads replicated, still one per GPU


def test_deepseek_v3_mla_latent_cache(cat):
    # MLA caches the 512-dim latent + 64-dim rope key per token per layer: 61 × 576 × 2 B = 70,272 B per token
    m = cat.model("deepseek-v3")
    assert kv_bytes_per_token_layer(m) == (512 + 64) * 2
    assert kv_cache_bytes(m, 32768) == 61 * 576 * 2 * 32768
    # the latent is not split by TP: every rank holds it
    assert kv_cache_bytes(m, 32768, tp=8) == kv_cache_bytes(m, 32768)
    # versus what naive MHA bookkeeping would claim (128 heads × (128+64 key, 128 value)): ≈ 71× more
    naive = 61 * 128 * (192 + 128) * 2
    assert naive / (61 * 576 * 2) > 70


def test_gemma2_sliding_window_alternate_layers(cat):
    # Gemma-2-9B: 42 layers, 8 KV heads × 256 dims; every other layer attends within a 4096-token window
    m = cat.model("gemma-2-9b")
    per = 2 * 8 * 256 * 2
    assert kv_cache_bytes(m, 2048) == 42 * 2048 * per
    assert kv_cache_bytes(m, 8192) == (21 * 8192 + 21 * 4096) * per
    g27 = cat.model("gemma-2-27b")  # 46 layers, 16 × 128
    assert kv_cache_bytes(g27, 8192) == (23 * 8192 + 23 * 4096) * 2 * 16 * 128 * 2


def test_mistral_window_on_every_layer(cat):
    m = cat.model("mistral-7b")  # sliding window 4096 on all 32 layers, 8 KV heads
    assert kv_cache_bytes(m, 32768) == kv_cache_bytes(m, 4096) == 32 * 4096 * 2 * 8 * 128 * 2


def test_paged_block_rounding(cat):
    m = cat.model("llama-2-7b")
    assert kv_cache_bytes(m, 100, block_size=16) == kv_cache_bytes(m, 112)
    assert kv_cache_bytes(m, 112, block_size=16) == kv_cache_bytes(m, 112)
    assert kv_cache_bytes(m, 100, sequences=3, block_size=16) == 3 * kv_cache_bytes(m, 112)


def test_pipeline_parallel_holds_its_layers(cat):
    m = cat.model("llama-3-70b")
    assert kv_cache_bytes(m, 4096, pp=4) == kv_cache_bytes(m, 4096) // 4


def test_bad_sizes():
    from tests.memory_fixtures import llama_like
    with pytest.raises(InputError):
        kv_cache_bytes(llama_like(), 0)
    with pytest.raises(InputError) as exc:
        kv_cache_bytes(llama_like(), 16, kv="fp6")
    assert exc.value.field == "kv"
