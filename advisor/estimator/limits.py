"""Limit searches: the longest context, the most concurrent sequences, the largest micro-batch that still fit.

Every limit is one search over a predicate `fits(n)` that holds up to some n and fails above it (memory grows
with the context length, the sequences and the micro-batch):

    largest(fits, hi) = max{ n ∈ 1..hi : fits(n) }, or 0 when fits(1) fails or hi < 1
    found by bisection on [1, hi]: 1 + ⌈log2 hi⌉ probes of `fits`, not a scan

Context lengths are searched in steps of CONTEXT_STEP tokens: largest_context(fits_at, cap) =
CONTEXT_STEP · largest(k ↦ fits_at(k · CONTEXT_STEP), ⌊cap / CONTEXT_STEP⌋).

The fit criterion is the caller's. `fits_with` is the plain one: the workload with some fields changed fits
the card by advisor.estimator.memory.estimate_memory (MemoryEstimate.fits: the per-GPU total within the
engine's usable memory). The recommender passes its own layout-sized estimate, and for a suggested shorter
context also its headroom rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from advisor.estimator.memory import estimate_memory
from advisor.estimator.results import MemoryEstimate
from advisor.workload import Workload
from knowledge.errors import AdvisorError
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import StructError, dump, validate

CONTEXT_STEP = 256  # tokens: the grain of the "longest context that fits" search
MAX_SEQUENCES_SEARCH = 100_000  # concurrent sequences searched up to this (per replica)


def largest(fits: Callable[[int], bool], hi: int) -> int:
    """The largest n in 1..hi with fits(n), for a `fits` that holds up to some n and fails above (0: none)."""
    if hi < 1 or not fits(1):
        return 0
    lo = 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def largest_context(fits_at: Callable[[int], bool], cap: int, step: int = CONTEXT_STEP) -> int:
    """The longest context length in tokens (a multiple of `step`, at most `cap`) with fits_at(context)."""
    return step * largest(lambda k: fits_at(k * step), cap // step)


def fits_with(model: ModelSpec, gpu: GpuSpec, w: Workload) -> Callable[..., bool]:
    """fits(**changes): does `w` with these changes fit on `gpu` (estimate_memory(...).fits(gpu))?
    Prompt and output lengths shrink with a shorter context; an invalid combination does not fit."""

    def fits(**update: Any) -> bool:
        context = update.get("context", w.context)
        for name in ("prompt_tokens", "output_tokens"):
            if getattr(w, name) is not None:
                update[name] = min(getattr(w, name), context)
        try:
            trial = validate(Workload, {**dump(w), **update})
            return bool(estimate_memory(model, trial, gpu).fits(gpu))
        except (AdvisorError, StructError):
            return False

    return fits


def most_sequences(est: MemoryEstimate, w: Workload, gpu: GpuSpec, replicas: int,
                   fits: Callable[..., bool]) -> int:
    """Most concurrent sequences at `w`'s context over `replicas` replicas: replicas · largest(c ↦
    fits(concurrency=c), hi) on one replica's sized workload `w` with its estimate `est`. The KV cache that fits
    next to the weights and the activations of the asked load only bounds the search,
        hi = min(MAX_SEQUENCES_SEARCH, 2 · max(⌊free / (kv_bytes_per_token · context)⌋, concurrency) + 16),
        free = usable − (per-GPU total − KV cache),
    because the activations (prefill chunk, logits of every sequence) grow with the load too. Each probe is c
    sequences in all (its batch no larger: a serving batch said, "at batch 256", is that load, not a floor under it)."""
    per_seq = est.kv_bytes_per_token * w.context
    free = est.usable_bytes(gpu) - (est.per_gpu.total - est.per_gpu.kv_cache)
    bound = max(int(free // per_seq) if per_seq else 0, w.concurrency)
    return replicas * largest(lambda c: fits(concurrency=c, batch=min(w.batch, c)),
                              min(MAX_SEQUENCES_SEARCH, 2 * bound + 16))
