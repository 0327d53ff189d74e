"""Routed token copies in the serving roofline (advisor/estimator/moe_costs.py): the costs the training planner
charges every copy (the down projection's narrow reduction, the permutation's memory traffic), forward half only."""

from __future__ import annotations

from advisor.estimator.calibration import load_calibration
from advisor.estimator.moe_costs import permutation_bytes
from advisor.estimator.throughput import hardware, matmul_s_per_token, speed_profile
from knowledge.catalog import load_catalog
from knowledge.structs import replace

CAT = load_catalog()
CAL = load_calibration()


def _per_token(model: str, gpu: str, weights: str = "bf16", tp: int = 1) -> tuple[float, float]:
    """(matmul seconds per token with the copy costs, without them) on one GPU."""
    prof = speed_profile(CAT.model(model), weights, "fp16", tp)
    hw = hardware(CAT.gpu(gpu), prof, CAL, "vllm")
    return matmul_s_per_token(prof, hw), matmul_s_per_token(prof, replace(hw, moe_copy_s=0.0))


def test_dense_models_pay_nothing_per_copy():
    for model in ("llama-3.1-8b", "qwen2.5-72b"):
        with_copies, without = _per_token(model, "h100-sxm")
        assert with_copies == without


def test_small_active_moe_pays_more_than_wide_experts():
    """The copy costs scale with the copies (k × MoE layers) and the widths, not with the FLOPs: a 3B-active model
    with 8 narrow experts per token loses a larger share of its compute-bound rate than DeepSeek-V3's 2,048-wide
    experts, as the training planner's MFU of the two does (step_time module doc)."""
    q_with, q_without = _per_token("qwen3-30b-a3b", "h200-sxm")
    d_with, d_without = _per_token("deepseek-v3", "h200-sxm")
    assert q_with > q_without and d_with > d_without
    assert q_with / q_without > d_with / d_without


def test_tensor_parallel_experts_keep_their_full_width_rows():
    """Split f ways by TP, every GPU still gathers and scatters each copy's h-wide rows, so the copies' share of the
    matmul time grows with TP (why DeepSeek-V3 is served with expert parallelism)."""
    one = _per_token("deepseek-v3", "h200-sxm", "fp8", tp=1)
    eight = _per_token("deepseek-v3", "h200-sxm", "fp8", tp=8)
    assert eight[0] / eight[1] > one[0] / one[1]


def test_a_slower_memory_makes_each_copy_dearer():
    """The copy costs are memory-bound: the same model costs more per copy on an L40S (GDDR6, 0.86 TB/s) than on
    an H100 (HBM3, 3.35 TB/s)."""
    cost = {}
    for gpu in ("h100-sxm", "l40s"):
        prof = speed_profile(CAT.model("qwen3-30b-a3b"), "bf16", "fp16", 1)
        cost[gpu] = hardware(CAT.gpu(gpu), prof, CAL, "vllm").moe_copy_s
    assert cost["l40s"] > 3 * cost["h100-sxm"] > 0


def test_inference_moves_half_the_bytes_training_does():
    """The forward alone moves half of the forward-and-backward rows, in 16 bits and with FP8 casts."""
    for low in (False, True):
        train = permutation_bytes(4096, 1536, low_precision=low, forward_only=False)
        assert permutation_bytes(4096, 1536, low_precision=low, forward_only=True) == train / 2
    assert permutation_bytes(4096, 1536, low_precision=True, forward_only=False) > permutation_bytes(
        4096, 1536, low_precision=False, forward_only=False)
