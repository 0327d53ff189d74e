"""Inference memory: engines and their reservation semantics, sharding, defaults, the result contract."""

from __future__ import annotations

import pytest

from advisor.estimator.engines import default_engines, parse_engines
from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.memory import estimate_memory
from advisor.estimator.results import Breakdown
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import CatalogError, InputError

GIB = 2**30


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


def test_every_engine_constant_is_cited(cat):
    table = default_engines()
    assert {"transformers", "vllm", "llama.cpp"} <= set(table.engines)
    for engine in table.engines.values():
        consts = [engine.cuda_context_bytes, engine.cuda_graph_bytes, engine.nccl_bytes, engine.memory_fraction,
                  engine.prefill_chunk_tokens]
        for c in filter(None, consts):
            assert c.source and all(s in cat.sources for s in c.source), (engine.id, c)
        for s in engine.kv_block_source:
            assert s in cat.sources


def test_parse_engines_rejects_bad_data():
    with pytest.raises(CatalogError):
        parse_engines({"engines": {"x": {"name": "x", "kind": "inference"}}})  # no cuda_context_bytes


def test_breakdown_is_the_sum_of_its_parts(cat):
    e = estimate_memory(cat.model("llama-3-8b"), Workload(context=8192, batch=4))
    p = e.per_gpu
    assert p.total == p.weights + p.gradients + p.optimizer_states + p.activations + p.kv_cache + p.overhead
    assert p.weights.n == weight_bytes(cat.model("llama-3-8b"), "bf16")
    assert p.kv_cache.n == kv_cache_bytes(cat.model("llama-3-8b"), 8192, sequences=4, block_size=16)
    with pytest.raises(ValueError):
        Breakdown(weights=1, total=5)


def test_contract_keys(cat):
    c = estimate_memory(cat.model("llama-3-8b"), Workload()).to_contract()
    assert list(c) == ["params", "active_params", "per_gpu_bytes", "cpu_bytes", "formulas", "assumptions"]
    assert list(c["per_gpu_bytes"]) == ["weights", "gradients", "optimizer_states", "activations", "kv_cache",
                                        "overhead", "reference_model", "total"]


def test_vllm_reservation_semantics(cat):
    h100 = cat.gpu("h100-sxm")
    e = estimate_memory(cat.model("llama-3-8b"), Workload(engine="vllm"), h100)
    assert e.usable_fraction == 0.9
    assert e.usable_bytes(h100).n == int(0.9 * h100.memory_bytes)
    assert e.fits(h100) and e.headroom_bytes(h100).n == e.usable_bytes(h100).n - e.per_gpu.total.n
    # KV capacity: the tokens whose cache fits in what weights, activations and overhead leave of 0.9 × 80 GiB
    per_token = 2 * 32 * 8 * 128 * 2
    free = int(0.9 * h100.memory_bytes) - (e.per_gpu.total.n - e.per_gpu.kv_cache.n)
    assert e.kv_capacity_tokens(h100) == free // per_token
    assert any("0.9" in a for a in e.assumptions)
    hf = estimate_memory(cat.model("llama-3-8b"), Workload(engine="transformers"), h100)
    assert hf.usable_fraction == 1.0


def test_engines_differ_in_overhead_and_paging(cat):
    m = cat.model("llama-3-8b")
    w = dict(context=1000, weights="q4_k_m")
    lcpp = estimate_memory(m, Workload(engine="llama.cpp", **w))
    vllm = estimate_memory(m, Workload(engine="vllm", **w))
    assert lcpp.per_gpu.kv_cache.n == kv_cache_bytes(m, 1000)  # contiguous
    assert vllm.per_gpu.kv_cache.n == kv_cache_bytes(m, 1008)  # 16-token pages
    assert lcpp.per_gpu.overhead.n < vllm.per_gpu.overhead.n  # no CUDA graphs


def test_llama_cpp_needs_gguf(cat):
    with pytest.raises(InputError) as exc:
        estimate_memory(cat.model("llama-3-8b"), Workload(engine="llama.cpp", weights="gptq-int4"))
    assert exc.value.field == "weights"


def test_training_engine_rejected_for_inference(cat):
    with pytest.raises(InputError) as exc:
        estimate_memory(cat.model("llama-3-8b"), Workload(engine="deepspeed"))
    assert exc.value.field == "engine"


def test_default_format_follows_checkpoint(cat):
    ds = estimate_memory(cat.model("deepseek-v3"), Workload(tp=8, gpus=8))
    assert ds.per_gpu.weights.n == weight_bytes(cat.model("deepseek-v3"), "fp8", tp=8)
    # 671B in FP8 with 16-bit embeddings/head ≈ 640 GiB in all: ≈ 80 GiB per GPU — it does not fit 8 × H100 80GB
    assert not ds.fits(cat.gpu("h100-sxm")) and ds.fits(cat.gpu("h200-sxm"))


def test_guide_claims_corrected(cat):
    # "70B FP16 inference ≈ 70 GB" is wrong: weights alone are ≈ 140 GB; "70B 4-bit ≈ 28 GB": ≈ 35 GB + KV
    m = cat.model("llama-2-70b")
    assert weight_bytes(m, "fp16") / 1e9 == pytest.approx(138, rel=0.01)
    assert 35 < weight_bytes(m, "awq-int4") / 1e9 < 40


def test_tp_sharding_and_kv_replication(cat):
    m = cat.model("llama-3-70b")
    one = estimate_memory(m, Workload(tp=1, context=8192))
    four = estimate_memory(m, Workload(tp=4, gpus=4, context=8192))
    assert four.per_gpu.weights.n == pytest.approx(one.per_gpu.weights.n / 4, rel=0.01)
    assert four.per_gpu.kv_cache.n == one.per_gpu.kv_cache.n // 4
    sixteen = estimate_memory(m, Workload(tp=16, gpus=16, context=8192))
    assert sixteen.per_gpu.kv_cache.n == one.per_gpu.kv_cache.n // 8  # 8 KV heads: replicated beyond TP 8
    assert any("replicated" in a for a in sixteen.assumptions)


@pytest.mark.parametrize("workload, field", [
    (dict(tp=3, gpus=3), "tp"),
    (dict(tp=128, gpus=128), "tp"),
    (dict(pp=200, gpus=200), "pp"),
    (dict(tp=2, gpus=3), "gpus"),
])
def test_layout_errors(cat, workload, field):
    with pytest.raises(InputError) as exc:
        estimate_memory(cat.model("llama-3-8b"), Workload(**workload))
    assert exc.value.field == field


def test_training_input_errors(cat):
    m = cat.model("llama-3-8b")
    for kw, field in [(dict(task="full", offload="optimizer"), "offload"),
                      (dict(task="full", zero=2, offload="all"), "offload"),
                      (dict(task="full", zero=2, offload="optimizer", optimizer="sgd"), "optimizer"),
                      (dict(task="full", weights="q4_k_m"), "weights"),
                      (dict(task="full", weights="nf4"), "weights")]:
        with pytest.raises(InputError) as exc:
            estimate_memory(m, Workload(**kw))
        assert exc.value.field == field, kw


def test_eager_attention_costs_more_on_long_prompts(cat):
    m = cat.model("llama-2-7b")
    fa = estimate_memory(m, Workload(engine="transformers", context=8192, flash_attention=True))
    eager = estimate_memory(m, Workload(engine="transformers", context=8192, flash_attention=False))
    # 32 heads × 8192² × (2 + 4) B of scores for one layer
    assert eager.per_gpu.activations.n - fa.per_gpu.activations.n == 32 * 8192 * 8192 * 6
    v100 = cat.gpu("v100-32g-sxm2")  # no FlashAttention-2 on Volta
    on_v100 = estimate_memory(m, Workload(engine="transformers", context=8192), v100)
    assert on_v100.per_gpu.activations.n == eager.per_gpu.activations.n


def test_engine_line_names_the_kv_type_of_a_bf16_checkpoint():
    """Review R42: a 16-bit KV cache is stored in the checkpoint's own 16-bit type (vLLM kv-cache-dtype "auto"), so a
    bf16 model's engine line says bf16; an fp16 checkpoint and an 8-bit KV cache keep their names; bytes are equal."""
    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    cat = load_catalog()
    qwen, gpt2 = cat.model("qwen2.5-32b"), cat.model("gpt2-xl")
    assert qwen.native_dtype == "bfloat16" and gpt2.native_dtype != "bfloat16"

    def line(m, **kw):
        est = estimate_memory(m, Workload(context=4096, **kw))
        return next(a for a in est.assumptions if a.startswith("engine:")), est.per_gpu.kv_cache.n

    (q16, kv16), (qbf, kvbf) = line(qwen), line(qwen, kv="bf16")
    assert "KV cache bf16" in q16 and kv16 == kvbf
    assert "KV cache fp8" in line(qwen, kv="fp8")[0]
    assert "KV cache fp16" in line(gpt2)[0]
