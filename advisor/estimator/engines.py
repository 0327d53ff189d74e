"""Runtime profiles of inference/training engines: fixed overheads and how they reserve memory.

The constants live in ``knowledge/data/engines.yaml``, each with a source id; :func:`parse_engines` validates the
parsed YAML (pure), :func:`default_engines` reads the packaged file once (the only I/O, cached).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

from knowledge.errors import CatalogError, InputError
from knowledge.record import Field, NonNegativeInt, Record

if TYPE_CHECKING:
    from pathlib import Path


class EngineConstant(Record):
    value: float
    unit: str
    source: list[str]
    note: str = ""


class EngineProfile(Record):
    """How one engine spends GPU memory besides weights and KV cache."""

    id: str
    name: str
    kind: Literal["inference", "training", "both"]
    # bytes every process pays: CUDA context, kernels/cuBLAS workspace, allocator reserve
    cuda_context_bytes: EngineConstant
    # bytes for captured CUDA graphs (serving engines), per GPU
    cuda_graph_bytes: EngineConstant | None = None
    # extra bytes per GPU when the job spans more than one GPU (NCCL communicators and buffers)
    nccl_bytes: EngineConstant | None = None
    # share of the GPU the engine claims up front (vLLM gpu_memory_utilization); None: allocates on demand
    memory_fraction: EngineConstant | None = None
    # tokens processed per forward during prefill (vLLM max_num_batched_tokens, llama.cpp n_ubatch); None: whole prompt
    prefill_chunk_tokens: EngineConstant | None = None
    # KV cache page size in tokens (vLLM block_size); None: contiguous, sized to the context
    kv_block_tokens: NonNegativeInt | None = None
    kv_block_source: list[str] = Field(default_factory=list)
    flash_attention: bool = True  # uses a fused attention kernel by default where the GPU supports it
    logits_fp32_all_tokens: bool = False  # computes fp32 logits for every prompt token (old HF generate)
    notes: str = ""


class EngineTable(Record):
    engines: dict[str, EngineProfile]

    def get(self, name: str) -> EngineProfile:
        try:
            return self.engines[name]
        except KeyError:
            raise InputError(f"unknown engine '{name}'", field="engine",
                             accepted=", ".join(sorted(self.engines))) from None


def parse_engines(data: dict[str, Any]) -> EngineTable:
    """Validate the parsed ``engines.yaml`` mapping (id -> profile fields)."""
    try:
        return EngineTable(engines={k: EngineProfile(id=k, **v) for k, v in (data.get("engines") or {}).items()})
    except (TypeError, ValueError) as exc:
        raise CatalogError(f"knowledge/data/engines.yaml is invalid: {exc}", field="engines") from exc


@lru_cache(maxsize=1)
def default_engines() -> EngineTable:
    """The packaged engine table (knowledge/data/engines.yaml); a warm start reads back the JSON snapshot of the
    last load instead of parsing and validating the YAML (knowledge.snapshot keyed by the file and this module;
    knowledge.trusted)."""
    from pathlib import Path

    from knowledge import snapshot, trusted

    path = Path(__file__).resolve().parents[2] / "knowledge" / "data" / "engines.yaml"
    return snapshot.cached("table-engines", [path, Path(__file__), *trusted.READER_FILES], lambda: _parse_file(path),
                           trusted.dump, lambda data: trusted.construct(EngineTable, data))


def _parse_file(path: Path) -> EngineTable:
    import yaml  # here: a warm start reads the snapshot and parses no YAML

    text = path.read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10× faster than the Python parser
    return parse_engines(yaml.load(text, Loader=loader))
