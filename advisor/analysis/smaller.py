"""A smaller model of the same family that runs on the user's own card as asked (issue 27: "what runs on my
card?" comes before "what would I have to buy?").

Among the catalog's models of the asked model's family with fewer parameters, the largest whose memory estimate
(the same job: task, format, context, concurrency, engine) fits the card with the engine's headroom; ties go to
the model whose id shares the longest prefix with the asked one (Llama-3.1-70B → Llama-3.1-8B, not Llama-3-8B).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from advisor.estimator.memory import estimate_memory
from knowledge.errors import AdvisorError
from knowledge.params import param_counts
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from advisor.workload import Workload
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec


@dataclass(frozen=True)
class SmallerFit:
    model: ModelSpec
    estimate: MemoryEstimate  # the job on one card of `gpu`
    gpu: GpuSpec


def smaller_model_that_fits(model: ModelSpec, workload: Workload, gpu: GpuSpec, catalog: Catalog
                            ) -> SmallerFit | None:
    """The largest same-family model with fewer parameters whose estimate fits one `gpu`; None when none does."""
    size = param_counts(model).total
    pool = [m for m in catalog.models if m.family == model.family and m.id != model.id
            and param_counts(m).total < size]
    best: SmallerFit | None = None
    best_key: tuple[int, int] = (-1, -1)
    for m in pool:
        key = (param_counts(m).total, _shared_prefix(m.id, model.id))
        if key <= best_key:
            continue
        try:
            est = estimate_memory(m, replace(workload, model=m.id), gpu)
        except AdvisorError:
            continue  # the job does not apply to that model (a context beyond its window)
        if est.fits(gpu):
            best, best_key = SmallerFit(m, est, gpu), key
    return best


def _shared_prefix(a: str, b: str) -> int:
    """Characters two ids share from their start ("llama-3.1-8b", "llama-3.1-70b" → 10)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
