"""The memory-only answer, when the recommender is missing or broken: each named configuration sized with the
memory estimator (tensor parallelism for serving, data parallelism with ZeRO for training), and the smallest count
of each card that fits when none was named."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from advisor.analysis.result import ConfigResult
from advisor.analysis.steps import Step, timed
from advisor.estimator.memory import estimate_memory
from advisor.workload import Constraints, Workload
from knowledge.errors import AdvisorError
from knowledge.structs import StructError, dump, replace, validate

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec

SERVE_COUNTS = (1, 2, 4, 8)


def _layouts(model: ModelSpec, workload: Workload, count: int) -> list[dict[str, Any]]:
    """Layouts to try for `count` GPUs on one node: inference shards by tensor parallelism (pipeline when the
    heads do not divide); training tries data parallelism with ZeRO 0→3 (ZeRO-3 first for full/pretrain)."""
    if count == 1:
        return [{"gpus": 1}]
    if workload.task == "inference":
        heads = model.num_attention_heads
        tp = max(d for d in range(1, count + 1) if count % d == 0 and heads % d == 0)
        return [{"gpus": count, "tp": tp, "pp": count // tp}]
    stages = (workload.zero,) if workload.zero else (1, 2, 3)
    return [{"gpus": count, "zero": z} for z in stages]


def _layout_text(w: Workload) -> str:
    if w.task == "inference":
        return f"TP {w.tp}" + (f" × PP {w.pp}" if w.pp > 1 else "") if w.gpus > 1 else "1 GPU"
    return f"DP {w.gpus}, ZeRO-{w.zero}" if w.gpus > 1 else "1 GPU"


def evaluate_config(model: ModelSpec, workload: Workload, gpu: GpuSpec, count: int, role: str,
                    steps: list[Step]) -> ConfigResult:
    result = ConfigResult(gpu=gpu, count=count, role=role)
    last: tuple[MemoryEstimate, Workload] | None = None
    for layout in _layouts(model, workload, count):
        try:
            w = replace(workload, **layout)
            w = validate(Workload, dump(w))
            mem = timed(steps, "estimate_memory", {"model": model.id, "gpu": gpu.id, "count": count, **layout},
                        partial(estimate_memory, model, w, gpu),
                        lambda r: f"{r.per_gpu.total.text('GiB')} per GPU")
        except (AdvisorError, StructError) as exc:
            result.error = str(exc)
            continue
        last = (mem, w)
        if mem.fits(gpu):
            break
    if last is not None:
        result.memory, result.workload = last
        result.fits = bool(last[0].fits(gpu))
        result.layout = _layout_text(last[1])
    return result


def smallest_count(model: ModelSpec, workload: Workload, gpu: GpuSpec) -> int:
    for count in SERVE_COUNTS:
        for layout in _layouts(model, workload, count):
            try:
                w = validate(Workload, {**dump(workload), **layout})
                if estimate_memory(model, w, gpu).fits(gpu):
                    return count
            except (AdvisorError, StructError):
                continue
    return SERVE_COUNTS[-1]


def search(model: ModelSpec, workload: Workload, constraints: Constraints, catalog: Catalog,
           steps: list[Step]) -> list[ConfigResult]:
    """Until the recommender is available: the smallest count of each card that fits, fewest GPUs first."""
    found: list[ConfigResult] = []
    for gpu in catalog.gpus:
        if constraints.region == "cn" and gpu.china.status in ("restricted", "not_sold"):
            continue
        for count in SERVE_COUNTS:
            if count > constraints.max_gpus_per_node:
                break
            local: list[Step] = []
            r = evaluate_config(model, workload, gpu, count, "fit", local)
            if r.fits:
                found.append(r)
                break
    found.sort(key=lambda r: (r.count, r.gpu.memory_bytes * r.count, r.gpu.tdp_w))
    steps.append(Step(name="search_configurations", arguments={"model": model.id, "region": constraints.region},
                      summary=f"{len(found)} cards fit"))
    return found[:3]

