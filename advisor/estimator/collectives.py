"""The tensor-parallel all-reduces of one serving step, costed as the serving engines run them.

Each layer all-reduces its activations twice (after attention, after the MLP): n = tokens × hidden × 2 bytes on
every GPU of a group of t. With B the link's achieved bandwidth one way and α one synchronisation
(calibration.yaml inference.allreduce):

* custom all-reduce, on a switched fabric (NVSwitch, Infinity Fabric) with t in {2, 4, 6, 8} and n up to its 8 MiB
  buffer (vLLM csrc/custom_all_reduce.cuh and CustomAllreduce(max_size=8192 * 1024); SGLang runs the same kernels as
  sglang::cross_device_reduce_*; TensorRT-LLM's AllReduceStrategy AUTO picks its ONESHOT/TWOSHOT kernels alike):
  - one-shot (cross_device_reduce_1stage): each GPU reads the t − 1 other buffers and adds them, between a start and
    an end synchronisation:                      (t − 1) · n / B + 2α
  - two-shot (cross_device_reduce_2stage): a reduce-scatter, a synchronisation, then an all-gather from the peers'
    partial sums, one round more:              2(t − 1)/t · n / B + 3α
  The engines run one-shot for small messages and two-shot above a size (vLLM: always one-shot at t = 2, 512 KiB at
  t ≤ 4, 256 KiB at t ≤ 8); this model takes the cheaper of the two, which switches at α·B / ((t−1)(1 − 2/t)) bytes
  (≈ 350 KiB at t = 8 on H100 NVLink, 1.2 MB at t = 4): near the engines' switch, and without a step at it, so a
  larger batch never pays less.
* NCCL otherwise: on a switched fabric recursive halving/doubling, 2·log2(t) synchronisations (Thakur, Rabenseifner
  & Gropp 2005); a ring over PCIe or 2-way bridges, 2(t − 1):
        2(t − 1)/t · n / B + s · α

At a few sequences the synchronisations are the whole cost: gpt-oss-120b at one user on 8 × B200 all-reduces 72
times a step, 2 synchronisations each instead of NCCL's 6. The cost is piecewise linear in the tokens of the step:
:func:`pieces` gives the lines the serving simulation evaluates step by step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

ACT_BYTES = 2  # 16-bit activations
CUSTOM_SIZES = frozenset({2, 4, 6, 8})  # the group sizes the custom kernels are built for
CUSTOM_MAX_BYTES = 8 * 1024 * 1024  # CustomAllreduce max_size: larger messages go to NCCL


class Kernel(NamedTuple):
    """One all-reduce algorithm: the bytes each GPU moves per byte of message and its synchronisations, for a group
    of t GPUs, as numbers (`share`, `syncs`) and as the formula line writes them (`{t}` for the group size)."""

    name: str
    share: Callable[[int], float]
    syncs: Callable[[int], float]
    share_text: str
    syncs_text: str


def _ring_share(t: int) -> float:
    return 2.0 * (t - 1) / t


KERNELS = {
    "one-shot": Kernel("one-shot", lambda t: t - 1, lambda t: 2.0, "({t}−1)", "2"),
    "two-shot": Kernel("two-shot", _ring_share, lambda t: 3.0, "2({t}−1)/{t}", "3"),
    "nccl": Kernel("NCCL", _ring_share, lambda t: 2.0 * math.log2(t), "2({t}−1)/{t}", "2·log2({t})"),  # switched
    "nccl-ring": Kernel("NCCL", _ring_share, lambda t: 2.0 * (t - 1), "2({t}−1)/{t}", "2({t}−1)"),  # PCIe, bridges
    # not an all-reduce: llama.cpp's layer split hands each token's activations from one GPU to the next
    "hand-over": Kernel("layer hand-over", lambda t: t - 1.0, lambda t: t - 1.0, "({t}−1)", "({t}−1)"),
}


class Line(NamedTuple):
    """The all-reduce seconds of a step up to `limit` tokens: at_zero + per_token × tokens, run by the kernel of key
    `kernel` in KERNELS (plain values: a Hardware holding its lines is encoded as a cache key)."""

    limit: float
    at_zero: float
    per_token: float
    kernel: str


def pieces(tp: int, hidden: int, layers: int, link_bw: float, alpha: float, switched: bool) -> tuple[Line, ...]:
    """The step's all-reduce seconds as lines in its tokens, in order of the token limit; the last line has no
    limit (inf). Empty for one GPU."""
    if tp == 1:
        return ()
    per_token = hidden * ACT_BYTES  # bytes of one token's activations
    twice = 2.0 * layers  # two all-reduces per layer

    def line(limit: float, key: str) -> Line:
        k = KERNELS[key]
        return Line(limit, twice * k.syncs(tp) * alpha, twice * (k.share(tp) * per_token / link_bw), key)

    nccl = line(math.inf, "nccl" if switched else "nccl-ring")
    if not switched or tp not in CUSTOM_SIZES:
        return (nccl,)
    custom_tokens = CUSTOM_MAX_BYTES / per_token
    if tp == 2:  # one-shot only: the same bytes as two-shot, one round fewer
        return (line(custom_tokens, "one-shot"), nccl)
    one, two = line(0.0, "one-shot"), line(custom_tokens, "two-shot")
    switch = min(custom_tokens, (two.at_zero - one.at_zero) / (one.per_token - two.per_token))
    return (one._replace(limit=switch), two, nccl)


def hand_overs(stages: int, hidden: int, link_bw: float, alpha: float) -> tuple[Line, ...]:
    """llama.cpp's layer split (--split-mode layer) as a step's communication: the token activations cross the
    (stages − 1) boundaries one after another, each α + tokens · hidden · 2 bytes / B_link (throughput._hand_over, the
    roofline's same term). Empty for one GPU."""
    if stages <= 1:
        return ()
    return (Line(math.inf, (stages - 1) * alpha, (stages - 1) * hidden * ACT_BYTES / link_bw, "hand-over"),)


def seconds(tokens: float, lines: tuple[Line, ...]) -> float:
    """All-reduce seconds of a step over `tokens` tokens, from :func:`pieces`."""
    for limit, at_zero, per_token, _ in lines:
        if tokens <= limit:
            return at_zero + per_token * tokens
    return 0.0


def kernel(tokens: float, lines: tuple[Line, ...]) -> Kernel | None:
    """The all-reduce :func:`seconds` costs for a step of `tokens` tokens (for the formula text); None without TP."""
    return next((KERNELS[ln.kernel] for ln in lines if tokens <= ln.limit), None)
