"""The TP × CP × PP splits the planner searches, and the layouts of each at one data-parallel degree
(advisor.estimator.planner: with idle GPUs allowed, DP is searched per split)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING

from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

from .calibration import Calibration
from .parallel_layout import ParallelLayout, divisors, max_tp, stages_ok, tp_ok
from .step_time import bubble_factor

if TYPE_CHECKING:
    from .planner import Overrides

LONG_SEQUENCE = 16384  # context parallelism is searched from this sequence length on


@lru_cache(maxsize=64)
def expert_divisors(experts: int) -> tuple[int, ...]:
    return tuple(divisors(experts))

class Split(Value):
    """TP × CP × PP with the layouts of one data-parallel degree (`layouts`), and the least pipeline bubble of
    its schedules: `beta` / micro-batches of the compute."""

    tp: int
    cp: int
    pp: int
    vpps: tuple[int, ...]
    zero_bubble: bool
    dualpipe: bool
    experts: int
    ep: int | None
    beta: float

    @property
    def gpus(self) -> int:
        return self.tp * self.cp * self.pp

    def eps(self, dp: int) -> list[int]:
        """Expert-parallel degrees: the divisors of the routed experts that divide DP × CP."""
        if self.ep:
            return [self.ep]
        return [e for e in expert_divisors(self.experts) if (dp * self.cp) % e == 0] if self.experts else [1]

    def next_leaner(self, dp: int) -> int:
        """The largest DP below `dp` that allows an expert-parallel degree above any `dp` allows (0: none). A
        smaller DP holds more per GPU (optimizer shards, micro-batches in flight), so when nothing fits at `dp`
        only a larger EP, which splits the experts finer, can make a smaller DP fit."""
        if not self.experts or self.ep:
            return 0
        top = max(self.eps(dp))
        return max((((dp - 1) // q) * q for e in expert_divisors(self.experts) if e > top
                    for q in [e // math.gcd(e, self.cp)]), default=0)

    def layouts(self, dp: int) -> Iterator[ParallelLayout]:
        tp, cp, pp = self.tp, self.cp, self.pp
        for ep in self.eps(dp):
            for v in self.vpps:
                yield ParallelLayout(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, vpp=v)
            if self.zero_bubble:  # ZB-H1: plain stages, split backward
                yield ParallelLayout(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, schedule="zero-bubble")
            if self.dualpipe:  # two stages per rank, both ends
                yield ParallelLayout(tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, schedule="dualpipe")


def splits(model: ModelSpec, gpu: GpuSpec, count: int, context: int, ov: Overrides, calib: Calibration,
            engine: str = "megatron", idle: bool = False) -> Iterator[Split]:
    """Every TP × CP × PP the rules, the engine's schedules and the overrides allow: dividing `count`, or with
    `idle` any of at most `count` GPUs."""
    eng = calib.planner.training_engines.get(engine)
    zero_bubble = eng is not None and "zero-bubble" in eng.schedules
    dualpipe = eng is not None and "dualpipe" in eng.schedules
    interleave = eng is None or "interleaved" in eng.schedules
    per_node = int(calib.training.gpus_per_node.value)
    tp_cap = per_node if ov.tp else max_tp(gpu, per_node, int(calib.planner.pcie_tp_max.value))
    tps = ([ov.tp] if ov.tp else [t for t in (range(1, min(tp_cap, count) + 1) if idle else divisors(count))
                                  if t <= tp_cap and tp_ok(model, t) is None])
    cps = [ov.cp] if ov.cp else ([c for c in (1, 2, 4, 8, 16, 32) if context % (2 * c) == 0 or c == 1]
                                 if context >= LONG_SEQUENCE else [1])
    experts = model.n_routed_experts if model.is_moe else 0
    least_bubble: dict[tuple[int, tuple[int, ...], bool, bool], float] = {}
    for tp in tps:
        for cp in cps:
            if (tp * cp > count) if idle else count % (tp * cp):
                continue
            rest = count // (tp * cp)
            pps = [ov.pp] if ov.pp else [p for p in (range(1, min(rest, model.num_layers) + 1) if idle  # ≥ 1 layer a stage
                                                     else divisors(rest)) if stages_ok(model.num_layers, p)]
            for pp in pps:
                if (pp > rest) if idle else rest % pp:
                    continue
                vpps = (ov.vpp,) if ov.vpp else (1, *[v for v in (8, 4, 2) if pp > 1 and interleave and
                                                      stages_ok(model.num_layers, pp * v)][:1])
                zb, dual = zero_bubble and pp > 1 and not ov.vpp, dualpipe and pp > 1 and pp % 2 == 0 and not ov.vpp
                if (pp, vpps, zb, dual) not in least_bubble:  # the least bubble of the schedules tried
                    shares = [bubble_factor(ParallelLayout(tp=1, pp=pp, dp=1, vpp=v), calib) / v for v in vpps]
                    shares += [bubble_factor(ParallelLayout(tp=1, pp=pp, dp=1, schedule=s), calib)
                               for s, on in (("zero-bubble", zb), ("dualpipe", dual)) if on]
                    least_bubble[pp, vpps, zb, dual] = (pp - 1) * min(shares)
                yield Split(tp, cp, pp, vpps, zb, dual, experts, ov.ep, least_bubble[pp, vpps, zb, dual])
