"""Result schemas of the estimator. Memory is :class:`~knowledge.quantities.Bytes` (the layers above read GiB or GB
from it, never from a bare int); every result carries its formula lines and assumptions.

`MemoryEstimate.to_contract()` is the `gpu-advisor estimate --json` contract of DESIGN.md (bytes as integers).
"""


from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from knowledge.quantities import ZERO, Bytes
from knowledge.structs import Frozen, Meta, NonNegativeInt, set_field

if TYPE_CHECKING:
    from knowledge.schemas import GpuSpec

BREAKDOWN_KEYS = ("weights", "gradients", "optimizer_states", "activations", "kv_cache", "overhead", "reference_model")


class Breakdown(Frozen):
    """Memory by purpose; `total` is their sum (filled in when omitted). The estimator builds it from its byte
    counts (numbers, rounded to whole bytes here); every reader gets :class:`Bytes`."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    weights: Bytes = ZERO
    gradients: Bytes = ZERO
    optimizer_states: Bytes = ZERO
    activations: Bytes = ZERO
    kv_cache: Bytes = ZERO
    overhead: Bytes = ZERO
    reference_model: Bytes = ZERO  # preference training (DPO, KTO): the frozen reference model's copy
    total: Bytes = ZERO

    if TYPE_CHECKING:  # what the estimator passes: bytes as numbers (or Bytes), rounded to whole ones
        def __init__(self, *, weights: float | Bytes = 0, gradients: float | Bytes = 0,
                     optimizer_states: float | Bytes = 0, activations: float | Bytes = 0,
                     kv_cache: float | Bytes = 0, overhead: float | Bytes = 0,
                     reference_model: float | Bytes = 0, total: float | Bytes = 0) -> None: ...

    def normalize(self) -> None:
        """Parts as whole Bytes; `total` filled in as their sum, or checked against it."""
        expected = 0
        for k in BREAKDOWN_KEYS:
            part = _whole(getattr(self, k))
            set_field(self, k, part)
            expected += part.n
        given = _whole(self.total).n
        if given not in (0, expected):
            raise ValueError(f"total {given} is not the sum of the parts ({expected})")
        set_field(self, "total", Bytes(expected))

    def check_invariants(self) -> None:
        if any(getattr(self, k).n < 0 for k in BREAKDOWN_KEYS):
            raise ValueError(f"negative bytes in {self.to_contract()}")

    def parts(self) -> dict[str, Bytes]:
        return {k: getattr(self, k) for k in BREAKDOWN_KEYS}

    def to_contract(self) -> dict[str, int]:
        """`{weights, …, total}` in bytes (integers), as `per_gpu_bytes`/`cpu_bytes` of the contract."""
        return {**{k: v.n for k, v in self.parts().items()}, "total": self.total.n}


def _whole(value: Any) -> Bytes:
    """A part as given (Bytes, a number of bytes, None) as whole Bytes."""
    if type(value) is Bytes:
        return value
    return Bytes(round(value or 0))


class MemoryEstimate(Frozen):
    """Memory needed per GPU (the most loaded one) and in host RAM, with the lines that produced it.

    `usable_fraction` is the share of a GPU's memory the engine lets the job use (vLLM's
    `gpu_memory_utilization`, 1.0 otherwise); `fits`/`headroom_bytes` compare against it. A GPU is a GpuSpec or
    its capacity as Bytes.
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
    kv_bytes_per_token: Bytes = ZERO  # per token, per GPU, all layers (inference)

    # --- fit against a GPU ---------------------------------------------------------------------------------
    def usable_bytes(self, gpu: "GpuSpec | Bytes") -> Bytes:
        """Memory the engine may use on `gpu`."""
        return Bytes(int(_capacity(gpu).n * self.usable_fraction))

    def headroom_bytes(self, gpu: "GpuSpec | Bytes") -> Bytes:
        """usable_bytes − per-GPU total; negative when it does not fit."""
        return self.usable_bytes(gpu) - self.per_gpu.total

    def fits(self, gpu: "GpuSpec | Bytes") -> bool:
        return self.headroom_bytes(gpu).n >= 0

    def utilisation(self, gpu: "GpuSpec | Bytes") -> float:
        """per-GPU total / GPU capacity."""
        return self.per_gpu.total.ratio(_capacity(gpu))

    def kv_capacity_tokens(self, gpu: "GpuSpec | Bytes") -> int:
        """Tokens of KV cache that fit in the headroom on top of this estimate (serving capacity)."""
        return self.fit_count(gpu, self.kv_bytes_per_token)

    def kv_free_bytes(self, gpu: "GpuSpec | Bytes") -> Bytes:
        """What one GPU leaves the KV cache next to everything else: usable − (total − kv_cache)."""
        return self.usable_bytes(gpu) - (self.per_gpu.total - self.per_gpu.kv_cache)

    def fit_count(self, gpu: "GpuSpec | Bytes", each: Bytes) -> int:
        """How many `each` (a token's or a sequence's KV cache) fit on one GPU next to everything but the KV cache:
        ⌊kv_free_bytes / each⌋, at least 0; 0 when `each` is 0. The one place the estimator and the recommender count
        tokens and sequences that fit (throughput capacity, an option's max concurrency)."""
        if not each:
            return 0
        return max(0, self.kv_free_bytes(gpu) // each)

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


def _capacity(gpu: "GpuSpec | Bytes") -> Bytes:
    return gpu if isinstance(gpu, Bytes) else gpu.memory
