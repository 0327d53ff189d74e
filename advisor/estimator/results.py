"""Result schemas of the estimator. Bytes are ints; every result carries its formula lines and assumptions.

`MemoryEstimate.to_contract()` is the `gpu-advisor estimate --json` contract of DESIGN.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from knowledge.structs import Frozen, Meta, NonNegativeInt, set_field

if TYPE_CHECKING:
    from knowledge.schemas import GpuSpec

GIB = 2**30
GB = 10**9

BREAKDOWN_KEYS = ("weights", "gradients", "optimizer_states", "activations", "kv_cache", "overhead")


class Breakdown(Frozen):
    """Bytes by purpose; `total` is their sum (filled in when omitted)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    weights: NonNegativeInt = 0
    gradients: NonNegativeInt = 0
    optimizer_states: NonNegativeInt = 0
    activations: NonNegativeInt = 0
    kv_cache: NonNegativeInt = 0
    overhead: NonNegativeInt = 0
    total: NonNegativeInt = 0

    if TYPE_CHECKING:  # what `prepare` takes: any number of bytes, rounded to whole ones
        def __init__(self, *, weights: float = 0, gradients: float = 0, optimizer_states: float = 0,
                     activations: float = 0, kv_cache: float = 0, overhead: float = 0, total: float = 0) -> None: ...

    def normalize(self) -> None:
        """Parts rounded to whole bytes; `total` filled in as their sum, or checked against it."""
        parts = {k: round(getattr(self, k) or 0) for k in BREAKDOWN_KEYS}
        expected = sum(parts.values())
        if self.total not in (None, 0, expected):
            raise ValueError(f"total {self.total} is not the sum of the parts ({expected})")
        for k, v in parts.items():
            set_field(self, k, v)
        set_field(self, "total", expected)

    def check_invariants(self) -> None:
        if any(v < 0 for v in self.parts().values()):
            raise ValueError(f"negative bytes in {self.parts()}")

    def parts(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in BREAKDOWN_KEYS}

    def to_contract(self) -> dict[str, int]:
        return {**self.parts(), "total": self.total}


class MemoryEstimate(Frozen):
    """Memory needed per GPU (the most loaded one) and in host RAM, with the lines that produced it.

    `usable_fraction` is the share of a GPU's memory the engine lets the job use (vLLM's
    `gpu_memory_utilization`, 1.0 otherwise); `fits`/`headroom_bytes` compare against it.
    """
    derived = True  # computed by the program from checked input (knowledge.structs)

    model: str
    task: str
    params: NonNegativeInt
    active_params: NonNegativeInt
    trainable_params: NonNegativeInt = 0
    gpus: Annotated[int, Meta(ge=1, description="GPUs the job spans (per node × nodes)")] = 1
    per_gpu: Breakdown
    cpu: Breakdown = msgspec.field(default_factory=Breakdown)
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)
    engine: str | None = None
    usable_fraction: Annotated[float, Meta(gt=0, le=1)] = 1.0
    kv_tokens_per_gpu: NonNegativeInt = 0  # tokens of KV cache the estimate holds per GPU (inference)
    kv_bytes_per_token: NonNegativeInt = 0  # per GPU, all layers (inference)

    # --- fit against a GPU ---------------------------------------------------------------------------------
    def usable_bytes(self, gpu: GpuSpec | int) -> int:
        """Memory the engine may use on `gpu` (a GpuSpec or a capacity in bytes)."""
        capacity = gpu if isinstance(gpu, int) else gpu.memory_bytes
        return int(capacity * self.usable_fraction)

    def headroom_bytes(self, gpu: GpuSpec | int) -> int:
        """usable_bytes − per-GPU total; negative when it does not fit."""
        return self.usable_bytes(gpu) - self.per_gpu.total

    def fits(self, gpu: GpuSpec | int) -> bool:
        return self.headroom_bytes(gpu) >= 0

    def utilisation(self, gpu: GpuSpec | int) -> float:
        """per-GPU total / GPU capacity."""
        capacity = gpu if isinstance(gpu, int) else gpu.memory_bytes
        return self.per_gpu.total / capacity

    def kv_capacity_tokens(self, gpu: GpuSpec | int) -> int:
        """Tokens of KV cache that fit in the headroom on top of this estimate (serving capacity)."""
        if not self.kv_bytes_per_token:
            return 0
        free = self.usable_bytes(gpu) - (self.per_gpu.total - self.per_gpu.kv_cache)
        return max(0, free // self.kv_bytes_per_token)

    # --- contract --------------------------------------------------------------------------------------------
    def to_contract(self) -> dict[str, Any]:
        """Exactly the DESIGN.md JSON of `gpu-advisor estimate --json`."""
        return {
            "params": self.params,
            "active_params": self.active_params,
            "per_gpu_bytes": self.per_gpu.to_contract(),
            "cpu_bytes": self.cpu.to_contract(),
            "formulas": list(self.formulas),
            "assumptions": list(self.assumptions),
        }
