"""Decode/prefill roofline: hand-computed references, physical limits, MoE, tensor parallelism, capacity."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimator.calibration import Calibration, load_calibration
from advisor.estimator.memory import estimate_memory
from advisor.estimator.throughput import (
    decode_rate,
    decode_step,
    estimate_throughput,
    hardware,
    max_concurrency_for_latency,
    prefill_step,
    speed_profile,
)
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.structs import dump, dump_json, replace, validate

CAT = load_catalog()
CAL = load_calibration()
PROPS = settings(max_examples=40, deadline=None, derandomize=True, database=None)


def ideal_calibration() -> Calibration:
    """η = 1, no overheads, an (almost) hard max: the bare roofline, for checks against hand arithmetic."""
    d = dump(CAL)
    inf = d["inference"]
    for fam in inf["bandwidth_efficiency"].values():
        fam["value"] = 1.0
    for k in ("kv_bandwidth_efficiency", "compute_efficiency", "fp8_compute_efficiency", "attention_efficiency"):
        inf[k]["value"] = 1.0
    for k in ("step_overhead_s", "layer_overhead_s", "request_overhead_s"):
        inf[k]["value"] = 0.0
    inf["roofline_sharpness"]["value"] = 200.0
    inf["engine_fixed_costs"] = {}
    return validate(Calibration, d)


def test_decode_is_bandwidth_over_bytes_for_llama2_7b_fp16():
    """Llama-2-7B: 6,738,415,616 parameters, 32000×4096 of them the embedding gather (not streamed per token).
    Bytes per step = 2 × (6,738,415,616 − 131,072,000) + KV (2 × 32 layers × 4096 × 2 B × 64 tokens)."""
    m, g = CAT.model("llama-2-7b"), CAT.gpu("a100-80g-sxm")
    weights = 2 * (6_738_415_616 - 32000 * 4096)
    kv = 2 * 32 * 4096 * 2 * 64
    expected = g.bandwidth_bytes_per_s / (weights + kv)
    per_seq, total, bound = decode_rate(m, g, 1, ideal_calibration(), weights="fp16", context=64)
    assert bound == "memory"
    assert per_seq == pytest.approx(expected, rel=0.01)
    assert total == pytest.approx(per_seq)


def test_tied_embeddings_are_streamed_as_the_output_head():
    """gpt2 ties its embedding to the output head: the matrix is read every step, unlike an untied embedding."""
    m = CAT.model("gpt2")
    prof = speed_profile(m, "fp16", "fp16", 1)
    emb = m.vocab_size * m.hidden_size * 2
    assert prof.dense_read_bytes > emb  # the head is streamed
    untied = CAT.model("llama-2-7b")
    prof2 = speed_profile(untied, "fp16", "fp16", 1)
    assert prof2.dense_read_bytes == pytest.approx(2 * (6_738_415_616 - 32000 * 4096), rel=1e-6)


def test_prefill_compute_bound_for_long_prompt_and_matches_flops():
    """Prefill of 4096 tokens of Llama-3-8B on one H100: FLOPs = 2·N_matmul·p + causal attention; compute-bound."""
    m, g = CAT.model("llama-3-8b"), CAT.gpu("h100-sxm")
    cal = ideal_calibration()
    prof = speed_profile(m, "bf16", "fp16", 1)
    step = prefill_step(prof, hardware(g, prof, cal), 1, 4096)
    n_matmul = 8_030_261_248 - 128256 * 4096  # untied: the input embedding is a gather
    attn = 4096 * 2 * 32 * (4097 / 2) * (2 * 4096)  # tokens × 2·L·mean context·(d_qk + d_v)
    assert step.flops == pytest.approx(2 * n_matmul * 4096 + attn, rel=1e-6)
    assert step.bound == "compute"
    assert step.total_s == pytest.approx(step.flops / g.bf16_dense_flops, rel=0.01)


def test_ttft_grows_with_prompt_and_prefill_is_faster_per_token_than_decode():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("l40s")
    short = estimate_throughput(m, g, 1, Workload(prompt_tokens=128, output_tokens=128, context=4096), CAL,
                                with_capacity=False)
    long = estimate_throughput(m, g, 1, Workload(prompt_tokens=2048, output_tokens=128, context=4096), CAL,
                               with_capacity=False)
    assert long.ttft > short.ttft
    assert long.prefill_tokens_per_s > 10 * long.decode_tokens_per_s


def test_overhead_dominates_small_models_on_fast_gpus():
    """GPT-2 (124M) on an H100: reading 0.25 GB takes ~0.1 ms; the fixed per-step cost is most of the step."""
    m, g = CAT.model("gpt2"), CAT.gpu("h100-sxm")
    prof = speed_profile(m, "fp16", "fp16", 1)
    step = decode_step(prof, hardware(g, prof, CAL), 1, 512)
    assert step.overhead_s > step.memory_s
    big = CAT.model("llama-2-70b")
    prof70 = speed_profile(big, "fp16", "fp16", 2)
    step70 = decode_step(prof70, hardware(g, prof70, CAL), 1, 512)
    assert step70.overhead_s < 0.2 * step70.total_s


def test_moe_reads_active_experts_at_batch_one_and_all_experts_at_large_batch():
    m = CAT.model("mixtral-8x7b")
    prof = speed_profile(m, "bf16", "fp16", 2)
    e, k = m.n_routed_experts, m.experts_per_token
    assert prof.experts_touched(1) == pytest.approx(k)
    for b in (2, 4, 16):
        assert prof.experts_touched(b) == pytest.approx(e * (1 - (1 - k / e) ** b))
    assert prof.experts_touched(256) == pytest.approx(e, rel=1e-6)
    one, many = prof.weight_read_bytes(1), prof.weight_read_bytes(256)
    assert one == pytest.approx(prof.dense_read_bytes + prof.expert_bytes * k / e)
    assert many == pytest.approx(prof.dense_read_bytes + prof.expert_bytes, rel=1e-6)
    dense = speed_profile(CAT.model("llama-3-8b"), "bf16", "fp16", 1)
    assert dense.weight_read_bytes(1) == dense.weight_read_bytes(256)


def test_moe_decode_per_sequence_slows_as_batch_touches_more_experts():
    m, g = CAT.model("mixtral-8x7b"), CAT.gpu("a100-80g-sxm")
    rates = [decode_rate(m, g, 2, CAL, context=512, concurrency=b)[0] for b in (1, 2, 4, 8)]
    assert rates == sorted(rates, reverse=True)
    assert rates[0] > 1.5 * rates[-1]


def test_tensor_parallel_allreduce_costs_more_over_pcie_than_nvlink():
    m = CAT.model("llama-2-70b")
    sxm = CAT.gpu("h100-sxm")
    pcie = replace(sxm, link_kind="none", nvlink_bytes_per_s=0.0, nvlink="none")
    prof = speed_profile(m, "fp8", "fp8", 4)
    nv = prefill_step(prof, hardware(sxm, prof, CAL), 1, 2048)  # 2048 × 8192 × 2 B = 32 MiB per all-reduce
    pc = prefill_step(prof, hardware(pcie, prof, CAL), 1, 2048)
    assert pc.comm_s > 5 * nv.comm_s
    assert pc.total_s > nv.total_s
    small_nv = decode_step(prof, hardware(sxm, prof, CAL), 1, 1024)
    small_pc = decode_step(prof, hardware(pcie, prof, CAL), 1, 1024)
    assert small_pc.comm_s >= small_nv.comm_s
    single = decode_step(speed_profile(m, "fp8", "fp8", 1), hardware(sxm, speed_profile(m, "fp8", "fp8", 1), CAL),
                         32, 1024)
    assert single.comm_s == 0.0


def test_nvlink_bridge_only_joins_pairs():
    """A 2-way bridge (RTX 3090) carries TP 2; TP 4 falls back to PCIe through the host."""
    from advisor.estimator.throughput import tp_link

    g = CAT.gpu("rtx-3090")
    bw2, _, name2 = tp_link(g, 2, CAL)
    bw4, _, name4 = tp_link(g, 4, CAL)
    assert "PCIe" not in name2 and "PCIe" in name4 and bw4 < bw2


def test_prediction_never_exceeds_the_physical_limits_of_the_shipped_calibration():
    for gid in ("rtx-4090", "h100-sxm", "a100-80g-sxm", "l40s", "h20"):
        g = CAT.gpu(gid)
        for mid, fmt in (("llama-3-8b", "bf16"), ("qwen2.5-14b", "q4_k_m"), ("mixtral-8x7b", "fp8")):
            m = CAT.model(mid)
            prof = speed_profile(m, fmt, "fp16", 1)
            hw = hardware(g, prof, CAL)
            for b in (1, 16, 256):
                step = decode_step(prof, hw, b, 2048)
                assert 1 / step.total_s <= g.bandwidth_bytes_per_s / step.bytes_read * (1 + 1e-9)
                assert b / step.total_s <= hw.peak / (step.flops / b) * (1 + 1e-9)


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus]), mid=st.sampled_from(["llama-3-8b", "qwen3-30b-a3b",
                                                                          "llama-2-13b", "mistral-7b"]),
       fmt=st.sampled_from(["bf16", "fp8", "awq-int4", "q4_k_m"]), batch=st.integers(1, 512),
       ctx=st.integers(1, 32768), factor=st.floats(1.0, 4.0))
def test_more_bandwidth_never_slows_decode(gid, mid, fmt, batch, ctx, factor):
    g, m = CAT.gpu(gid), CAT.model(mid)
    faster = replace(g, bandwidth_bytes_per_s=g.bandwidth_bytes_per_s * factor)
    base = decode_rate(m, g, 1, CAL, weights=fmt, context=ctx, concurrency=batch)
    more = decode_rate(m, faster, 1, CAL, weights=fmt, context=ctx, concurrency=batch)
    assert more[0] >= base[0] * (1 - 1e-12)
    assert more[0] <= base[0] * factor * (1 + 1e-9)  # and never more than the bandwidth ratio


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus]), batch=st.integers(1, 1024), ctx=st.integers(1, 65536))
def test_physical_limits_hold_everywhere(gid, batch, ctx):
    g, m = CAT.gpu(gid), CAT.model("llama-3.1-8b")
    prof = speed_profile(m, "bf16", "fp16", 1)
    hw = hardware(g, prof, CAL)
    step = decode_step(prof, hw, batch, ctx)
    assert batch / step.total_s <= batch * g.bandwidth_bytes_per_s / step.bytes_read * (1 + 1e-9)
    assert batch / step.total_s <= hw.peak / (step.flops / batch) * (1 + 1e-9)
    # a bigger batch never makes the whole step faster, and never lowers total throughput
    bigger = decode_step(prof, hw, batch + 1, ctx)
    assert bigger.total_s >= step.total_s * (1 - 1e-12)
    assert (batch + 1) / bigger.total_s >= batch / step.total_s * (1 - 1e-9)


def test_capacity_is_the_largest_concurrency_that_fits_memory():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("l40s")
    w = Workload(context=8192, concurrency=1)
    est = estimate_throughput(m, g, 1, w, CAL)
    n = est.capacity.max_concurrency
    assert n > 1
    fits = estimate_memory(m, Workload(context=8192, concurrency=n), g)
    over = estimate_memory(m, Workload(context=8192, concurrency=n + 1), g)
    assert fits.fits(g) and not over.fits(g)
    assert est.capacity.ms_per_token_at_max > est.tpot.ms


def test_users_at_a_latency_target_inverts_the_step_time():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm")
    target_ms = 12.0
    n = max_concurrency_for_latency(m, g, 1, CAL, ms_per_token=target_ms, context=2048)
    prof = speed_profile(m, "bf16", "fp16", 1)
    hw = hardware(g, prof, CAL)
    assert decode_step(prof, hw, n, 2048).total_s * 1e3 <= target_ms
    assert decode_step(prof, hw, n + 1, 2048).total_s * 1e3 > target_ms
    assert max_concurrency_for_latency(m, g, 1, CAL, ms_per_token=0.5, context=2048) == 0
    assert max_concurrency_for_latency(m, g, 1, CAL, ms_per_token=1000, context=2048, limit=7) == 7


def test_replicas_split_the_concurrency():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm")
    one = estimate_throughput(m, g, 1, Workload(concurrency=16), CAL, with_capacity=False)
    two = estimate_throughput(m, g, 2, Workload(concurrency=32, tp=1, gpus=2), CAL, with_capacity=False)
    assert two.replicas == 2 and two.tp == 1
    assert two.decode_tokens_per_s == pytest.approx(one.decode_tokens_per_s)
    assert two.decode_tokens_per_s_total == pytest.approx(2 * one.decode_tokens_per_s_total)


def test_result_carries_contract_keys_and_formulas():
    est = estimate_throughput(CAT.model("qwen2.5-7b"), CAT.gpu("rtx-4090"), 1, Workload(weights="awq-int4"), CAL)
    out = est.to_contract()
    for key in ("decode_tokens_per_s", "decode_tokens_per_s_total", "prefill_tokens_per_s", "ttft_s", "bound",
                "formulas"):
        assert key in out
    assert out["bound"] in ("memory", "compute")
    assert any("pmax" in f for f in out["formulas"])
    assert all(math.isfinite(out[k]) for k in ("decode_tokens_per_s", "ttft_s"))


def test_model_too_big_reports_shortfall():
    est = estimate_throughput(CAT.model("llama-3-70b"), CAT.gpu("rtx-4090"), 1, Workload(), CAL)
    assert not est.fits
    assert est.memory_shortfall_bytes > 100 * 2**30


@pytest.mark.parametrize("kwargs, field", [
    ({"count": 3}, "count"),  # 3 does not divide 64 attention heads
    ({"count": 0}, "count"),
])
def test_bad_layouts_are_input_errors(kwargs, field):
    with pytest.raises(InputError) as err:
        estimate_throughput(CAT.model("llama-3-70b"), CAT.gpu("h100-sxm"), kwargs["count"], Workload(), CAL,
                            with_capacity=False)
    assert err.value.field == field


def test_unknown_formats_are_input_errors():
    with pytest.raises(InputError, match="weight format"):
        speed_profile(CAT.model("llama-3-8b"), "int3", "fp16", 1)
    with pytest.raises(InputError, match="KV-cache format"):
        speed_profile(CAT.model("llama-3-8b"), "bf16", "fp6", 1)


def test_calibration_constants_are_cited_and_validated(tmp_path):
    from advisor.estimator.calibration import load_calibration as load
    from knowledge.errors import CatalogError

    assert CAL.source_ids() <= set(CAT.sources), CAL.source_ids() - set(CAT.sources)
    bad = tmp_path / "calibration.yaml"
    text = (dump_json(CAL))
    import json

    data = json.loads(text)
    data["inference"]["compute_efficiency"]["value"] = 1.7  # an efficiency above 1 would beat the datasheet
    bad.write_text(json.dumps(data))
    with pytest.raises(CatalogError, match="calibration.yaml"):
        load(bad)
    del data["inference"]["compute_efficiency"]
    bad.write_text(json.dumps(data))
    with pytest.raises(CatalogError, match="compute_efficiency"):
        load(bad)


def test_llamacpp_batch1_fixed_cost_depends_on_engine_layers_and_memory_class():
    """Issue 18: llama.cpp's per-token cost is c_step + L · c_layer[HBM or GDDR]; the serving engines keep theirs.
    Measured (xiongjiedai-llama1), an H100 PCIe decodes LLaMA-7B Q4_0 at 132.7 tok/s, an RTX 4090 at 149.4."""
    m = CAT.model("llama-2-7b")
    prof = speed_profile(m, "q4_0", "fp16", 1)
    h100, g4090 = CAT.gpu("h100-pcie"), CAT.gpu("rtx-4090")
    fc = CAL.inference.engine_fixed_costs["llama.cpp"]
    hw_h = hardware(h100, prof, CAL)  # GGUF: llama.cpp by default
    assert hw_h.layer_overhead == fc.layer_s["hbm"].value and hw_h.step_overhead == fc.step_s.value
    assert hardware(g4090, prof, CAL).layer_overhead == fc.layer_s["gddr"].value
    t_h = decode_step(prof, hw_h, 1, 384).total_s
    t_4090 = decode_step(prof, hardware(g4090, prof, CAL), 1, 384).total_s
    assert t_h > t_4090  # the H100 PCIe is the slower one at batch 1, as measured
    assert t_h == pytest.approx(1 / 132.7, rel=0.25) and t_4090 == pytest.approx(1 / 149.4, rel=0.25)
    # the overhead grows with the layer count: 65B (80 layers) pays 2.5× the 7B's (32 layers) per-layer share
    step7 = decode_step(prof, hw_h, 1, 384)
    assert step7.overhead_s == pytest.approx(fc.step_s.value + 32 * fc.layer_s["hbm"].value)
    # vLLM on the same card: the serving engines' constants, not llama.cpp's
    bf = speed_profile(m, "bf16", "fp16", 1)
    hw_v = hardware(h100, bf, CAL, "vllm")
    assert hw_v.layer_overhead == CAL.inference.layer_overhead_s.value
    assert hw_v.eta_w == CAL.inference.bandwidth_efficiency.float.value
    assert hardware(h100, bf, CAL, "llama.cpp").eta_w == fc.float_bandwidth_efficiency.value


@pytest.mark.parametrize("gpu", ["h100-pcie", "a100-80g-pcie", "rtx-4090", "l40s", "h200-sxm"])
@pytest.mark.parametrize("engine", ["llama.cpp", "vllm"])
def test_roofline_stays_a_hard_ceiling_with_engine_fixed_costs(gpu, engine):
    g = CAT.gpu(gpu)
    for weights in ("q4_0", "q4_k_m", "fp16"):
        prof = speed_profile(CAT.model("llama-3-8b"), weights, "fp16", 1)
        step = decode_step(prof, hardware(g, prof, CAL, engine), 1, 512)
        assert 1 / step.total_s < g.bandwidth_bytes_per_s / step.bytes_read
