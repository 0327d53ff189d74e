"""Training time from 6·N·D (8·N·D with full recomputation) at a calibrated MFU: formulas, published rows,
monotonicity in GPU count, bad input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimator.calibration import load_calibration
from advisor.estimator.training import estimate_train_time, gpu_class, train_flops_per_token
from benchmarks.validate_speed import TOLERANCE, predict_all
from knowledge.catalog import load_catalog
from knowledge.errors import InputError

CAT = load_catalog()
CAL = load_calibration()
PROPS = settings(max_examples=40, deadline=None, derandomize=True, database=None)

# Llama-3-8B: 8,030,261,248 parameters; the 128256 × 4096 input embedding is a gather, not a matmul.
N_8B = 8_030_261_248 - 128256 * 4096
L, D = 32, 4096


def attn(seq: int) -> float:
    """Forward attention FLOPs per token, causal: 2·L·(s+1)/2·(d_qk + d_v)."""
    return 2 * L * (seq + 1) / 2 * (2 * D)


def test_six_n_plus_attention_for_pretraining():
    model_f, hw_f = train_flops_per_token(CAT.model("llama-3-8b"), 4096, "pretrain", "none")
    assert model_f == pytest.approx(6 * N_8B + 3 * attn(4096))
    assert hw_f == model_f


def test_full_recomputation_is_eight_n():
    model_f, hw_f = train_flops_per_token(CAT.model("llama-3-8b"), 2048, "pretrain", "full")
    assert model_f == pytest.approx(6 * N_8B + 3 * attn(2048))
    assert hw_f == pytest.approx(8 * N_8B + 4 * attn(2048))
    _, sel = train_flops_per_token(CAT.model("llama-3-8b"), 2048, "pretrain", "selective")
    assert sel == pytest.approx(6 * N_8B + 4 * attn(2048))


def test_lora_skips_weight_gradients():
    model_f, _ = train_flops_per_token(CAT.model("llama-3-8b"), 2048, "lora", "none")
    assert model_f == pytest.approx(4 * N_8B + 3 * attn(2048))


def test_mfu_override_gives_tokens_per_second_from_peak():
    g = CAT.gpu("h100-sxm")
    est = estimate_train_time(CAT.model("llama-3-8b"), g, 8, 1e11, CAL, context=4096, recompute="none", mfu=0.4)
    expected = 8 * g.bf16_dense_flops * 0.4 / (6 * N_8B + 3 * attn(4096))
    assert est.tokens_per_s == pytest.approx(expected, rel=1e-9)
    assert est.mfu == pytest.approx(0.4)
    assert est.wall.s == pytest.approx(1e11 / expected)
    assert est.gpu_hours == pytest.approx(est.wall.s * 8 / 3600)
    assert est.mfu_source == "user override"


def test_moe_uses_active_parameters():
    m = CAT.model("mixtral-8x7b")
    model_f, _ = train_flops_per_token(m, 2048, "pretrain", "none")
    from knowledge.params import param_counts

    pc = param_counts(m)
    n_active = pc.active - pc.by_group["embedding"]
    assert model_f == pytest.approx(6 * n_active + 3 * 2 * m.num_layers * 2049 / 2 * 2 * 4096)
    assert model_f < 6 * (pc.total - pc.by_group["embedding"])


def test_recompute_lowers_the_achieved_mfu_by_the_hardware_flops_ratio():
    m, g = CAT.model("llama-3-8b"), CAT.gpu("a100-80g-sxm")
    none = estimate_train_time(m, g, 8, 1e10, CAL, context=2048, recompute="none")
    full = estimate_train_time(m, g, 8, 1e10, CAL, context=2048, recompute="full")
    mf, hf = train_flops_per_token(m, 2048, "pretrain", "full")
    assert full.mfu == pytest.approx(none.mfu * mf / hf, rel=0.02)
    assert full.wall > none.wall


def test_gpu_classes():
    assert gpu_class(CAT.gpu("h100-sxm")) == "hopper"
    assert gpu_class(CAT.gpu("h20")) == "hopper"
    assert gpu_class(CAT.gpu("a100-80g-sxm")) == "ampere-datacenter"
    assert gpu_class(CAT.gpu("rtx-4090")) == "consumer"
    assert gpu_class(CAT.gpu("l40s")) == "ada-datacenter"
    assert gpu_class(CAT.gpu("mi300x")) == "amd"
    for g in CAT.gpus:  # every GPU gets a class the calibration knows (or the default)
        cls = gpu_class(g)
        assert cls in CAL.training.mfu_by_class or cls == "default"


def test_interconnect_and_scale_enter_through_exposed_communication():
    """B200 FP8, micro-batches of 3 × 1024 tokens: 8 GPUs gather over NVLink 5 within a micro-batch's compute; 32 GPUs
    span four servers whose 8 × 400 Gb/s NICs carry the ZeRO-3 rings more slowly than NVLink, and the traffic
    outlasts the compute — per-GPU speed drops, total still rises."""
    m, g = CAT.model("llama-3-8b"), CAT.gpu("b200")
    one = estimate_train_time(m, g, 8, 1e10, CAL, context=1024, micro_batch=3, precision="fp8", recompute="none")
    two = estimate_train_time(m, g, 32, 1e10, CAL, context=1024, micro_batch=3, precision="fp8", recompute="none")
    assert one.communication_s_per_step == 0 and two.communication_s_per_step > 0
    assert two.tokens_per_s_per_gpu < one.tokens_per_s_per_gpu
    assert two.tokens_per_s > one.tokens_per_s


def test_consumer_cards_collect_through_host_memory():
    from advisor.estimator.training import data_parallel_link

    bw_4090, path = data_parallel_link(CAT.gpu("rtx-4090"), 8, CAL)
    bw_l40s, _ = data_parallel_link(CAT.gpu("l40s"), 8, CAL)
    bw_sxm, _ = data_parallel_link(CAT.gpu("h100-sxm"), 8, CAL)
    assert "no P2P" in path
    assert bw_4090 < bw_l40s < bw_sxm


TRAIN_ROWS = predict_all(kinds=("training",))


@pytest.mark.parametrize("row", TRAIN_ROWS, ids=[r.id for r in TRAIN_ROWS])
def test_published_training_rows_within_25_percent(row):
    """MosaicML llm-foundry MPT rows (A100/H100, BF16 and FP8) and NVIDIA Megatron-Bridge FP8 rows: tokens/s/GPU."""
    assert abs(row.error) <= TOLERANCE["training"], (
        f"{row.id}: predicted {row.predicted:,.0f}, measured {row.measured:,.0f} tok/s/GPU ({row.error:+.1%})")


def test_training_rows_cover_both_sources_and_precisions():
    assert len(TRAIN_ROWS) >= 18
    assert {r.source for r in TRAIN_ROWS} == {"llm-foundry-benchmarks", "megatron-bridge-perf"}
    assert any("fp8" in r.setting for r in TRAIN_ROWS) and any("bf16" in r.setting for r in TRAIN_ROWS)


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus]),
       mid=st.sampled_from(["llama-3-8b", "qwen2.5-72b", "mixtral-8x7b", "gpt2"]),
       task=st.sampled_from(["pretrain", "full", "lora", "qlora"]), n=st.integers(1, 255),
       extra=st.integers(1, 64))
def test_more_gpus_never_slow_training(gid, mid, task, n, extra):
    # ZeRO-1: gradients all-reduced once per step. (ZeRO-3 gathers in every micro-batch and can make an extra GPU
    # slower on slow links — see tests/test_training_time_review.py.)
    g, m = CAT.gpu(gid), CAT.model(mid)
    a = estimate_train_time(m, g, n, 1e10, CAL, context=2048, task=task, zero=1)
    b = estimate_train_time(m, g, n + extra, 1e10, CAL, context=2048, task=task, zero=1)
    assert b.tokens_per_s >= a.tokens_per_s * (1 - 1e-12)
    assert b.wall <= a.wall * (1 + 1e-12)
    # and never faster than the peak allows
    assert b.tokens_per_s <= (n + extra) * b.peak_flops_per_gpu / b.flops_per_token


@pytest.mark.parametrize("tokens", [0, -5, 1e16, float("nan")])
def test_zero_negative_or_absurd_budgets_are_refused(tokens):
    with pytest.raises(InputError) as err:
        estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu("h100-sxm"), 8, tokens, CAL)
    assert err.value.field == "tokens"


def test_other_bad_inputs():
    m, g = CAT.model("llama-3-8b"), CAT.gpu("a100-80g-sxm")
    with pytest.raises(InputError, match="FP8"):
        estimate_train_time(m, g, 8, 1e9, CAL, precision="fp8")
    with pytest.raises(InputError, match="MFU"):
        estimate_train_time(m, g, 8, 1e9, CAL, mfu=1.5)
    with pytest.raises(InputError, match="count"):
        estimate_train_time(m, g, 0, 1e9, CAL)
    with pytest.raises(InputError, match="task"):
        estimate_train_time(m, g, 1, 1e9, CAL, task="distill")
