"""The memory-vs-context plot's data: the memory estimator swept over context lengths for the first option's GPU
and sized workload (`sized_workload` of the recommendation contract), trusted only when it reproduces the option."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError
from knowledge.structs import replace
from ui.web import render as R

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn

log = logging.getLogger(__name__)

ContextSweep = Callable[[int], Mapping[str, Any] | None]  # context in tokens -> per-GPU bytes by part (or None)


def _max_context(model_id: object) -> int | None:
    """The catalog model's maximum context in tokens (the memory-vs-context plot spans it), None when unknown."""
    try:
        return int(load_catalog().model(str(model_id)).max_context) if model_id else None
    except Exception:  # noqa: BLE001 - the plot then spans the default range
        return None


def _first_capacity(turn: Turn) -> float | None:
    """The first option's card capacity in bytes, else the memory breakdown's."""
    memory = turn.memory
    options = turn.options
    for source in ([options[0]] if options and isinstance(options[0], Mapping) else []) + [memory]:
        cap = R.capacity_bytes(source) if isinstance(source, Mapping) else None
        if cap:
            return cap
    return None


def sized_workload(option: Mapping[str, Any], job: Mapping[str, Any]) -> Workload | None:
    """The workload one GPU of the option sees, from the recommendation contract's `sized_workload` (its layout,
    its share of the concurrency); the turn's model when the option's workload names none. None without it: the
    plot is never rebuilt from the layout's text."""
    sized = option.get("sized_workload")
    if not isinstance(sized, Mapping):
        return None
    base = Workload(**sized)
    return base if base.model or not job.get("model") else replace(base, model=str(job["model"]))


def estimator_context_sweep(turn: Turn) -> ContextSweep | None:
    """`context -> per-GPU bytes` from the memory estimator for the first option's GPU and sized workload, or None when
    the turn does not name them. The sweep is trusted only if it reproduces the option's own per-GPU total at the
    turn's context (within 1 %); otherwise no plot is drawn."""
    options = turn.options
    if not options or not isinstance(options[0], Mapping):
        return None
    first = options[0]
    expected = (first.get("per_gpu_bytes") or {}).get("total")
    job, _ = R.workload_view(turn.workload)
    base = sized_workload(first, job)
    if not expected or not first.get("gpu") or base is None or not base.model:
        return None

    catalog = load_catalog()
    model = catalog.model(base.model)
    gpu = catalog.gpu(str(first["gpu"]))

    def per_gpu(context: int) -> dict[str, Any] | None:
        if base.prompt_tokens and base.prompt_tokens >= context:
            return None
        try:
            return estimate_memory(model, replace(base, context=int(context)), gpu).per_gpu.to_contract()
        except AdvisorError:
            return None

    got = per_gpu(base.context)
    if not got or abs(got["total"] - expected) > 0.01 * expected:
        log.debug("context sweep does not reproduce the option (%s vs %s); no plot", got and got["total"], expected)
        return None
    return per_gpu


def context_rows(turn: Turn, lang: str, sweep: Callable[[Turn], ContextSweep | None]) -> list[dict[str, Any]]:
    """The memory-vs-context plot's rows for the turn's first option (`web_render.context_sweep_rows`), over the
    model's context range; empty when `sweep` has no trusted estimate."""
    try:
        estimate = sweep(turn)
        if estimate is None:
            return []
        job, _ = R.workload_view(turn.workload)
        context = int(job.get("context") or 0)
        contexts = R.sweep_contexts(_max_context(job.get("model")), context)
        return R.context_sweep_rows(context, estimate, _first_capacity(turn), lang, contexts)
    except Exception:
        log.debug("memory-vs-context sweep not available", exc_info=True)
        return []


def catalog_capacity(gpu_id: str) -> float | None:
    """Memory of a catalog GPU in bytes (the cited catalog entry), or None when unknown."""
    try:
        return float(load_catalog().gpu(gpu_id).memory_bytes)
    except Exception:  # noqa: BLE001 - no capacity means no "free" segment, nothing else
        return None
