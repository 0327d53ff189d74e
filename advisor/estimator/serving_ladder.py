"""Latency figures "for up to C users": monotone in C and the same figures the capacity search reads.

One closed-loop simulation at C (serving_sim.simulate) is a deterministic run of whole steps, and its percentiles
move with discrete alignments that one more user changes: which long prompts share a step, how many identical
requests finish in the same step (convoys), whether a request sits just above or below the median of the 64
measured (benchmarks/sweep_serving_properties.py --raw counts the falls; docs/speed.md, "Properties", what was
tried against their causes). What the product prints has to be one consistent answer: the latency a deployment sized for C users gives is the worst it
gives at any load up to C (users come and go; a load of C passes through every smaller one), so

    M(g_k) = max over j ≤ k of f(g_j)       f: TTFT/TPOT/ITL p50 and p95 simulated at the ladder's loads g_j
    F(C)   = M(g_k) + (M(g_k+1) − M(g_k)) · (C − g_k)/(g_k+1 − g_k)      g_k ≤ C < g_k+1

each figure on its own: non-decreasing in C by construction, exact at the ladder's loads, and linear between them
(TPOT grows about linearly with the running batch). The ladder is every power of two (1, 2, 4 … 1,024; STEPS per
doubling), plus the load at which the engine is full
(serving_sim.saturation; past it the extra users queue, serving_sim.queued). Throughput and the mean batch stay the
simulation's at C itself. The capacity search walks the same ladder and solves F(C) ≤ target between the last load
that meets the target and the first that does not, so the largest C it reports meets the target with the figures
printed at C, and C + 1 does not.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

from msgspec.structs import replace

from .serving_sim import ServingResult, queued

LATENCY = ("ttft_p50_s", "ttft_p95_s", "ttft_p99_s", "tpot_p50_s", "tpot_p95_s", "itl_p50_s", "itl_p95_s")
STEPS = 1  # ladder loads per doubling (2: closer to the simulation at C between ladder loads, 1.3-1.8× the time)
MAX_LOAD = 1 << 14  # the ladder's top (the capacity search stops at min(max_num_seqs, 1024) per replica)


def ladder(full: int, top: int) -> list[int]:
    """The loads simulated for figures up to `top` users: 2^(k/STEPS) rounded, and `full` (the engine's saturation),
    up to the first load ≥ `top`."""
    pts = sorted({round(2 ** (k / STEPS)) for k in range(STEPS * int(math.log2(MAX_LOAD)) + 1)} | {full})
    out = []
    for g in pts:
        out.append(g)
        if g >= top:
            return out
    return [*out, top]  # past the ladder's top (and past saturation: the queue's figures are linear in C)


class Envelope:
    """The running maximum of the latency figures over the ladder, simulated lazily and each load once.

    `sim(c)` is the simulation at c ≤ `full` users; above `full` the ladder's figures are the full engine's with the
    queue's wait (serving_sim.queued), from the one simulation at `full`. Safe to share between threads.
    """

    def __init__(self, sim: Callable[[int], ServingResult], full: int) -> None:
        self._sim, self.full = sim, full
        self._lock = threading.RLock()
        self._runs: dict[int, ServingResult] = {}
        self._pts: list[int] = []
        self._max: list[tuple[float, ...]] = []

    def run(self, c: int) -> ServingResult:
        """The simulation at c users (memoised)."""
        with self._lock:
            if c not in self._runs:
                self._runs[c] = queued(self.run(self.full), c, self.full) if c > self.full else self._sim(c)
            return self._runs[c]

    def _extend(self, top: int) -> None:
        with self._lock:
            for g in ladder(self.full, top)[len(self._pts):]:
                r = self.run(g)
                row = tuple(getattr(r, k) for k in LATENCY)
                self._max.append(tuple(map(max, self._max[-1], row)) if self._max else row)
                self._pts.append(g)

    def figures(self, c: int) -> dict[str, float]:
        """F(c) for every latency figure (module doc)."""
        self._extend(c)
        k = next(i for i, g in enumerate(self._pts) if g >= c)  # the list only grows: safe to read unlocked
        if self._pts[k] == c or k == 0:
            return dict(zip(LATENCY, self._max[k], strict=True))
        g0, g1 = self._pts[k - 1], self._pts[k]
        w = (c - g0) / (g1 - g0)
        return {name: a + (b - a) * w for name, a, b in zip(LATENCY, self._max[k - 1], self._max[k], strict=True)}

    def result(self, c: int) -> ServingResult:
        """The simulation at c users with the latency figures F(c)."""
        return replace(self.run(c), **self.figures(c))

    def max_meeting(self, ok: Callable[[dict[str, float]], bool], cap: int) -> int:
        """The largest c ≤ `cap` whose figures F(c) meet `ok` (0: not even one user). F is non-decreasing, so the
        ladder is walked up to the first load that fails and the integers between it and the last that passed are
        bisected on F alone (no further simulation)."""
        if not ok(self.figures(1)):
            return 0
        lo = 1
        while lo < cap:
            self._extend(lo + 1)
            g = min(next(p for p in self._pts if p > lo), cap)
            if not ok(self.figures(g)):
                hi = g
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    lo, hi = (mid, hi) if ok(self.figures(mid)) else (lo, mid)
                return lo
            lo = g
        return cap
