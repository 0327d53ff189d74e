"""The same job at two or more settings of one field ("LoRA vs QLoRA", "FP16 or INT4", an 8-bit KV cache, a
ladder of contexts), each sized on one GPU with no card (advisor.estimator.memory.estimate_memory), for an answer
that sets their memory side by side. The variants come from advisor.conversation.reader.variants."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from advisor.estimator.memory import default_inference_format, estimate_memory
from knowledge.errors import AdvisorError
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from advisor.workload import Workload
    from knowledge.quantities import Bytes
    from knowledge.schemas import GpuSpec, ModelSpec


class VariantNeed(msgspec.Struct, frozen=True):
    """One setting of the job and its memory need on one GPU (unsharded)."""

    field: str  # the workload field varied: task, weights, kv or context
    value: str | int
    need: MemoryEstimate
    workload: Workload
    on: MemoryEstimate | None = None  # the same job on the one configuration named (per GPU), when one was
    usable: Bytes | None = None  # what the engine may use on one of its cards


def _on(model: ModelSpec, w: Workload, gpu: GpuSpec | None, count: int) -> tuple[MemoryEstimate | None, Bytes | None]:
    """The job's memory per GPU on `count` × `gpu` (split as the engine splits it) and one card's usable memory."""
    if gpu is None:
        return None, None
    est = estimate_memory(model, replace(w, gpus=count, tp=count, nodes=1), gpu)
    return est, est.usable_bytes(gpu)


def variant_needs(model: ModelSpec, workload: Workload, variants: tuple[tuple[str, str | int], ...],
                  gpu: GpuSpec | None = None, count: int = 1) -> list[VariantNeed]:
    """Each variant's memory need (and, with `gpu`, its need per GPU on `count` × `gpu`); a context past the
    model's maximum is left out, a method or format the estimator refuses for this model is left out (the others
    still compare)."""
    out = []
    own = default_inference_format(model)
    if len(variants) > 2 and all(f == "weights" for f, _ in variants) and ("weights", own) not in variants:
        variants = (("weights", own), *variants)  # a ladder of formats starts at the checkpoint's own (FP8, MXFP4)
    for field, value in variants:
        changes: dict[str, object] = {field: value}
        if field == "task":  # each method with its own base format (QLoRA: NF4) unless one was stated
            changes["weights"] = None if workload.weights in (None, "nf4") else workload.weights
        if field == "context" and int(value) > model.max_context:
            continue
        try:
            w = replace(workload, **changes)
            on, usable = _on(model, w, gpu, count)
            out.append(VariantNeed(field=field, value=value, need=estimate_memory(model, w), workload=w, on=on,
                                   usable=usable))
        except (AdvisorError, msgspec.ValidationError, ValueError):
            continue
    return out if len(out) >= 2 else []
