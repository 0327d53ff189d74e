"""A smaller model of the same family that runs on the user's own card (issue 27: "what runs on my card?" comes
before "what would I have to buy?").

Among the catalog's models of the asked model's series (its id before the size: "llama-3.1" of "llama-3.1-70b",
"qwen2.5" of "qwen2.5-32b"; a code model or an older generation is another series) with fewer parameters, the
largest whose memory estimate
(the same job: task, format, context, concurrency, engine) fits the card with the engine's headroom; ties go to
the model whose id shares the longest prefix with the asked one (Llama-3.1-70B → Llama-3.1-8B, not Llama-3-8B).
Then the same search at the 4-bit GGUF file people run on one card (llama.cpp, advisor.recommend.offload's
format), kept only when it is a larger model than the one that fits as asked (Qwen2.5-32B on a 12 GB card:
Qwen2.5-3B as asked in BF16, Qwen2.5-14B at Q4_K_M).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.estimator.memory import estimate_memory
from advisor.recommend.offload import OFFLOAD_FORMAT
from knowledge.errors import AdvisorError
from knowledge.params import param_counts
from knowledge.structs import Value, replace

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from advisor.workload import Workload
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec


class SmallerFit(Value):
    model: ModelSpec
    estimate: MemoryEstimate  # the job on one card of `gpu`
    gpu: GpuSpec
    weights: str | None = None  # the format it was sized at; None: as the job asked


def smaller_models_that_fit(model: ModelSpec, workload: Workload, gpu: GpuSpec, catalog: Catalog
                            ) -> list[SmallerFit]:
    """The largest smaller model that fits as asked, then (when larger) the largest that fits as a 4-bit GGUF."""
    out: list[SmallerFit] = []
    asked = smaller_model_that_fits(model, workload, gpu, catalog)
    if asked is not None:
        out.append(asked)
    if workload.task == "inference" and workload.weights != OFFLOAD_FORMAT:
        gguf = replace(workload, weights=OFFLOAD_FORMAT, engine="llama.cpp")
        four = smaller_model_that_fits(model, gguf, gpu, catalog)
        if four is not None and (asked is None or param_counts(four.model).total > param_counts(asked.model).total):
            out.append(replace_fit(four, OFFLOAD_FORMAT))
    return out


def replace_fit(fit: SmallerFit, weights: str) -> SmallerFit:
    return SmallerFit(fit.model, fit.estimate, fit.gpu, weights)


def smaller_model_that_fits(model: ModelSpec, workload: Workload, gpu: GpuSpec, catalog: Catalog
                            ) -> SmallerFit | None:
    """The largest same-family model with fewer parameters whose estimate fits one `gpu`; None when none does."""
    size = param_counts(model).total
    series = _series(model.id)
    if series is None:
        return None
    pool = [m for m in catalog.models if _series(m.id) == series and m.id != model.id
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


_SIZE = re.compile(r"^(?P<series>.+?)-\d+(?:\.\d+)?[bm](?=-|$)")


def _series(model_id: str) -> str | None:
    """The id before its size ("llama-3.1-70b" → "llama-3.1", "qwen3-30b-a3b-2507" → "qwen3"); None without one."""
    m = _SIZE.match(model_id)
    return m.group("series") if m else None


def _shared_prefix(a: str, b: str) -> int:
    """Characters two ids share from their start ("llama-3.1-8b", "llama-3.1-70b" → 10)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
