"""What one routed token copy of an MoE layer costs beyond its expert GEMMs' FLOPs at the dense rate.

The training planner (step_time.moe_copy_seconds) and the serving roofline (throughput.matmul_s_per_token) both
charge it; this module is the one place for the two mechanisms:

* reduction width: a GEMM's time grows as 1 + K₀/K with its reduction width K, K₀ = `gemm_reduction_bytes` × peak
  FLOP/s ÷ HBM bytes/s (the output tile's epilogue is paid once per K-loop; DeepGEMM's H800 FP8 table, calibration
  planner.gemm_reduction_bytes). An expert's down projection reduces over its own width f, so its 2·h·f FLOPs cost
  2·h·f·K₀/f = 2·h·K₀ FLOPs more per copy whatever f is: 2·h·`gemm_reduction_bytes` bytes at the HBM bandwidth.
* permutation: token permutation, unpermutation and the gated activation are memory-bound gather/scatter kernels;
  forward and backward they move 8 h-wide and 8 f-wide 16-bit rows per copy (16·h + 16·f bytes), FP8 adding the
  casts of the expert inputs and gradients (6·h + 9·f bytes); the forward alone (inference) half of each, at
  `moe_bandwidth_efficiency` of the HBM bandwidth.
"""

from __future__ import annotations

TRAIN_H_BYTES, TRAIN_F_BYTES = 16.0, 16.0  # forward + backward, per h-wide / f-wide unit of a copy (16-bit rows)
FP8_H_BYTES, FP8_F_BYTES = 6.0, 9.0  # the FP8 casts of the expert inputs and gradients
FORWARD_SHARE = 0.5  # the forward's share of the permutation traffic (inference runs the forward only)


def permutation_bytes(h: float, f: float, *, low_precision: bool, forward_only: bool) -> float:
    """Bytes one routed copy moves through permutation, activation and unpermutation: (16 + 6·q)·h + (16 + 9·q)·f
    forward and backward (q = 1 for FP8/FP4 compute), half of it for the forward alone. `h` and `f` are the
    widths one GPU moves (f/TP when the experts are split across the TP group)."""
    q = 1.0 if low_precision else 0.0
    total = (TRAIN_H_BYTES + FP8_H_BYTES * q) * h + (TRAIN_F_BYTES + FP8_F_BYTES * q) * f
    return total * (FORWARD_SHARE if forward_only else 1.0)


def down_projection_seconds(h: float, bandwidth: float, efficiency: float, reduction_bytes: float) -> float:
    """Seconds one GPU spends per copy on the forward down projection's narrow reduction: 2·h·K₀ FLOPs at the peak
    × efficiency, K₀ = reduction_bytes × peak / bandwidth, i.e. 2·h·reduction_bytes / (bandwidth × efficiency)."""
    return 2.0 * h * reduction_bytes / (bandwidth * efficiency)
