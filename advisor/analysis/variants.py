"""The same job at two or more settings of one field ("LoRA vs QLoRA", "FP16 or INT4", an 8-bit KV cache, a
ladder of contexts), each sized on one GPU with no card (advisor.estimator.memory.estimate_memory), for an answer
that sets their memory side by side. The variants come from advisor.conversation.reader.variants."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from advisor.estimator.memory import estimate_memory
from knowledge.errors import AdvisorError
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from advisor.workload import Workload
    from knowledge.schemas import ModelSpec


class VariantNeed(msgspec.Struct, frozen=True):
    """One setting of the job and its memory need on one GPU (unsharded)."""

    field: str  # the workload field varied: task, weights, kv or context
    value: str | int
    need: MemoryEstimate
    workload: Workload


def variant_needs(model: ModelSpec, workload: Workload, variants: tuple[tuple[str, str | int], ...]
                  ) -> list[VariantNeed]:
    """Each variant's memory need; a context past the model's maximum is left out, a method or format the
    estimator refuses for this model is left out (the others still compare)."""
    out = []
    for field, value in variants:
        changes: dict[str, object] = {field: value}
        if field == "task":  # each method with its own base format (QLoRA: NF4) unless one was stated
            changes["weights"] = None if workload.weights in (None, "nf4") else workload.weights
        if field == "context" and int(value) > model.max_context:
            continue
        try:
            w = replace(workload, **changes)
            out.append(VariantNeed(field=field, value=value, need=estimate_memory(model, w), workload=w))
        except (AdvisorError, msgspec.ValidationError, ValueError):
            continue
    return out if len(out) >= 2 else []
