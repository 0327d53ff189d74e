"""Properties of the memory estimator (hypothesis): monotone in context, batch and bits; GQA ≤ MHA; ZeRO stages and
data parallelism never increase per-GPU model states."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.structs import replace
from tests.memory_fixtures import llama_like

CAT = load_catalog()
MODEL_IDS = sorted(CAT.model_ids())
FAST = settings(max_examples=int(os.environ.get("MEMORY_PROPERTY_EXAMPLES", "25")), deadline=None)

GGUF_ORDER = ["q2_k", "q3_k_m", "q4_0", "q4_k_m", "q5_k_m", "q6_k", "q8_0", "fp16", "fp32"]
GPU_ORDER = ["nf4", "awq-int4", "gptq-int4", "int8", "bf16", "fp32"]  # fp8 and int8 are both 8-bit: not ordered
KV_ORDER = ["int4", "fp8", "fp16", "fp32"]


@st.composite
def shapes(draw):
    heads = draw(st.sampled_from([8, 16, 32, 64]))
    head_dim = draw(st.sampled_from([64, 128]))
    kv = draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32, 64) if heads % d == 0]))
    layers = draw(st.integers(2, 64))
    ffn = draw(st.integers(1, 8)) * heads * head_dim
    vocab = draw(st.sampled_from([32000, 128256]))
    return llama_like(h=heads * head_dim, layers=layers, heads=heads, kv=kv, ffn=ffn, vocab=vocab)


models = st.one_of(shapes(), st.sampled_from(MODEL_IDS).map(CAT.model))
tasks = st.sampled_from(["inference", "full", "lora", "qlora", "pretrain"])


@FAST
@given(models, tasks, st.integers(1, 65536), st.integers(1, 65536))
def test_never_decreases_with_context(m, task, c1, c2):
    lo, hi = sorted((c1, c2))
    a = estimate_memory(m, Workload(task=task, context=lo)).per_gpu.total
    b = estimate_memory(m, Workload(task=task, context=hi)).per_gpu.total
    assert a <= b


@FAST
@given(models, tasks, st.integers(1, 64), st.integers(1, 64))
def test_never_decreases_with_batch(m, task, b1, b2):
    lo, hi = sorted((b1, b2))
    a = estimate_memory(m, Workload(task=task, batch=lo, context=2048)).per_gpu.total
    b = estimate_memory(m, Workload(task=task, batch=hi, context=2048)).per_gpu.total
    assert a <= b


@FAST
@given(models, st.data())
def test_never_decreases_with_bits(m, data):
    # llama.cpp stores a k-quant tensor whose rows are not a multiple of 256 in a legacy type instead (Q3_K -> Q4_0,
    # Q4_K -> Q5_0, …), so for such shapes a "3-bit" file can outweigh Q4_0 (test_k_quant_fallback_can_invert_order)
    k_rows_fit = all(r % 256 == 0 for r in (m.hidden_size, m.intermediate_size, m.num_attention_heads * m.head_dim))
    for order in ((GGUF_ORDER, GPU_ORDER) if k_rows_fit else (GPU_ORDER,)):
        i, j = sorted(data.draw(st.lists(st.integers(0, len(order) - 1), min_size=2, max_size=2)))
        assert weight_bytes(m, order[i]) <= weight_bytes(m, order[j])
    assert weight_bytes(m, "awq-int4") <= weight_bytes(m, "fp8") <= weight_bytes(m, "bf16")
    i, j = sorted(data.draw(st.lists(st.integers(0, len(KV_ORDER) - 1), min_size=2, max_size=2)))
    assert kv_cache_bytes(m, 4096, kv=KV_ORDER[i]) <= kv_cache_bytes(m, 4096, kv=KV_ORDER[j])


@FAST
@given(shapes(), st.integers(1, 32768))
def test_gqa_never_costs_more_than_mha(m, context):
    mha = replace(m, num_kv_heads=m.num_attention_heads)
    assert kv_cache_bytes(m, context) <= kv_cache_bytes(mha, context)
    assert weight_bytes(m, "bf16") <= weight_bytes(mha, "bf16")
    g = estimate_memory(m, Workload(context=context)).per_gpu.total
    assert g <= estimate_memory(mha, Workload(context=context)).per_gpu.total


def _states(m, **kw) -> int:
    p = estimate_memory(m, Workload(task="full", **kw)).per_gpu
    return p.weights.n + p.gradients.n + p.optimizer_states.n


@FAST
@given(st.sampled_from(MODEL_IDS).map(CAT.model), st.integers(4, 128), st.sampled_from(["adamw", "adamw8bit", "sgd"]))
def test_zero_stage_n_plus_1_never_needs_more(m, dp, opt):
    # dp ≥ 4: at dp = 2 ZeRO-3's gathered-layer buffer (4 × largest layer) can outweigh its savings on models whose
    # embedding is a large share of the parameters (GPT-2: 31 %), which is real, not an estimator artefact.
    per_stage = [_states(m, zero=z, gpus=dp, optimizer=opt) for z in range(4)]
    assert per_stage == sorted(per_stage, reverse=True)
    per_stage_total = [estimate_memory(m, Workload(task="full", zero=z, gpus=dp)).per_gpu.total for z in range(4)]
    assert per_stage_total == sorted(per_stage_total, reverse=True)


@FAST
@given(st.sampled_from(MODEL_IDS).map(CAT.model), st.integers(0, 3), st.integers(1, 256), st.integers(1, 256))
def test_more_data_parallel_gpus_never_increase_model_states(m, zero, n1, n2):
    # from 1 GPU to DDP (ZeRO 0) the gradient buckets of DistributedDataParallel are added (a copy of the
    # gradients with its default gradient_as_bucket_view=False): compare replicas with replicas
    lo, hi = sorted((n1, n2))
    if zero == 0 and lo == 1:
        lo = 2
        hi = max(hi, 2)
    assert _states(m, zero=zero, gpus=min(hi, 1024)) <= _states(m, zero=zero, gpus=lo)


def test_k_quant_fallback_can_invert_order():
    """GPT-2 XL (hidden 1600, not a multiple of 256): its Q3_K_M tensors fall back to legacy types, the largest of
    them above Q4_0, so the Q3_K_M file is larger than Q4_0 — as llama.cpp writes it, not an estimator slip."""
    m = CAT.model("gpt2-xl")
    assert m.hidden_size % 256
    assert weight_bytes(m, "q3_k_m") > weight_bytes(m, "q4_0") > weight_bytes(m, "q2_k")
