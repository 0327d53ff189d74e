"""The tensor-parallel all-reduces of one serving step, costed as the serving engines run them.

Each layer all-reduces its activations twice (after attention, after the MLP): n = tokens × hidden × 2 bytes on
every GPU of a group of t. With B the link's achieved bandwidth one way and α one synchronisation
(calibration.yaml inference.allreduce):

* custom all-reduce, on a switched fabric (NVSwitch, Infinity Fabric) with t in {2, 4, 6, 8} and n up to its 8 MiB
  buffer (vLLM csrc/custom_all_reduce.cuh and CustomAllreduce(max_size=8192 * 1024); SGLang runs the same kernels as
  sglang::cross_device_reduce_*; TensorRT-LLM's AllReduceStrategy AUTO picks its ONESHOT/TWOSHOT kernels alike):
  - one-shot (cross_device_reduce_1stage), always at t = 2, below 512 KiB at t ≤ 4 and 256 KiB at t ≤ 8: each GPU
    reads the t − 1 other buffers and adds them, between a start and an end synchronisation:
        (t − 1) · n / B + 2α
  - two-shot (cross_device_reduce_2stage) above that: a reduce-scatter and an all-gather in one kernel, with the
    same two synchronisations:                  2(t − 1)/t · n / B + 2α
* NCCL otherwise: on a switched fabric recursive halving/doubling, 2·log2(t) synchronisations (Thakur, Rabenseifner
  & Gropp 2005); a ring over PCIe or 2-way bridges, 2(t − 1):
        2(t − 1)/t · n / B + s · α

One-shot reads (t − 1)·n instead of 2(t − 1)/t·n but synchronises twice instead of 2·log2(t) times: what a decode
step of a few sequences on 8 GPUs spends in all-reduces is mostly synchronisation (gpt-oss-120b at one user on
8 × B200: 72 all-reduces a step). The cost is piecewise linear in the tokens of the step: :func:`pieces` gives the
lines the serving simulation evaluates step by step.
"""

from __future__ import annotations

import math

ACT_BYTES = 2  # 16-bit activations
CUSTOM_SIZES = frozenset({2, 4, 6, 8})  # the group sizes the custom kernels are built for
CUSTOM_MAX_BYTES = 8 * 1024 * 1024  # CustomAllreduce max_size: larger messages go to NCCL


def one_shot_limit(tp: int) -> int:
    """Message bytes below which the custom all-reduce runs one-shot (vLLM custom_all_reduce.cuh)."""
    if tp == 2:
        return CUSTOM_MAX_BYTES
    return 512 * 1024 if tp <= 4 else 256 * 1024


def pieces(tp: int, hidden: int, layers: int, link_bw: float, alpha: float,
           switched: bool) -> tuple[tuple[float, float, float], ...]:
    """The step's all-reduce seconds as lines: ((tokens up to, seconds at 0 tokens, seconds per token), ...), in
    order of the token limit; the last line has no limit (inf). Empty for one GPU."""
    if tp == 1:
        return ()
    per_token = hidden * ACT_BYTES  # bytes of one token's activations
    twice = 2.0 * layers  # two all-reduces per layer
    ring = 2.0 * (tp - 1) / tp / link_bw  # seconds per byte of a reduce-scatter + all-gather
    nccl_syncs = 2.0 * math.log2(tp) if switched else 2.0 * (tp - 1)
    nccl = (twice * nccl_syncs * alpha, twice * ring * per_token)
    if not switched or tp not in CUSTOM_SIZES:
        return ((math.inf, *nccl),)
    # a message of exactly the limit goes to the next kernel (the engines compare bytes < limit)
    one_shot_tokens = (one_shot_limit(tp) - 1) / per_token
    custom_tokens = CUSTOM_MAX_BYTES / per_token
    one_shot = (twice * 2.0 * alpha, twice * (tp - 1) / link_bw * per_token)
    two_shot = (twice * 2.0 * alpha, twice * ring * per_token)
    return ((one_shot_tokens, *one_shot), (custom_tokens, *two_shot), (math.inf, *nccl))


def seconds(tokens: float, lines: tuple[tuple[float, float, float], ...]) -> float:
    """All-reduce seconds of a step over `tokens` tokens, from :func:`pieces`."""
    for limit, at_zero, per_token in lines:
        if tokens <= limit:
            return at_zero + per_token * tokens
    return 0.0


def kernel(tokens: float, tp: int, hidden: int, switched: bool) -> str:
    """Which all-reduce runs for a step of `tokens` tokens (for the formula text)."""
    n = tokens * hidden * ACT_BYTES
    if tp == 1:
        return "none"
    if switched and tp in CUSTOM_SIZES and n <= CUSTOM_MAX_BYTES:
        return "one-shot" if n < one_shot_limit(tp) else "two-shot"
    return "NCCL"
