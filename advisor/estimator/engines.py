"""Runtime profiles of inference/training engines: fixed overheads and how they reserve memory.

The constants live in ``knowledge/data/engines.yaml``, each with a source id; :func:`parse_engines` validates the
parsed YAML (pure), :func:`default_engines` reads the packaged file once (the only I/O, cached).
"""


from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from knowledge import snapshot, trusted
from knowledge.errors import CatalogError, InputError
from knowledge.structs import Frozen, NonNegativeInt

if TYPE_CHECKING:
    from pathlib import Path

# the implementation each engine's training memory follows, said in the estimate's assumptions
ENGINE_VERSIONS = {"transformers": " (followed: transformers 5.17, PEFT 0.21, torch 2.11)",
                   "deepspeed": " (followed: DeepSpeed's estimate_zero2/zero3_model_states_mem_needs)",
                   "fsdp": " (followed: PyTorch FSDP2 fully_shard with MixedPrecisionPolicy(bf16 params))",
                   "megatron": " (followed: Megatron-LM distributed optimizer, fp32 main gradients)"}


class EngineConstant(Frozen):
    value: float
    unit: str
    source: list[str]
    note: str = ""


class ServingProfile(Frozen):
    """How one serving engine schedules and what each step costs besides the roofline (advisor/estimator/serving_sim.py).

    Fixed costs per forward step: step_s + (layer_s + act_quant_s · G) · L + seq_s · (sequences in the batch), G the
    FP8 GEMMs of a layer when the matmuls run on FP8 tensor cores; request_s is added to each request's time to first
    token (HTTP, tokenisation, detokenisation of the first token)."""

    step_s: EngineConstant
    layer_s: EngineConstant
    seq_s: EngineConstant
    request_s: EngineConstant
    max_num_seqs: int  # running sequences at most (vLLM max_num_seqs, SGLang max_running_requests, TRT max_batch_size)
    max_num_batched_tokens: int  # token budget of one step (prefill chunk + decodes)
    chunked_prefill: bool  # long prompts are split across steps, decodes scheduled first
    continuous_batching: bool = True  # False: one request at a time (transformers generate, llama.cpp default slot)
    speculative: bool = False  # the engine offers speculative decoding (an explicit option, never a default)
    fp4_compute: bool = False  # runs FP4 (NVFP4/MXFP4) matmuls on Blackwell tensor cores
    # a hybrid-attention model's sliding-window layers keep only their window of a running request in the KV cache
    # (vLLM V1's SlidingWindowManager, SGLang's hybrid SWA pool); False: every layer's pool holds the whole sequence
    window_kv_freed: bool = True
    # per FP8 GEMM and layer: the kernel that quantises the activations per token group before a block-scaled FP8
    # GEMM on FP8 tensor cores (advisor.estimator.throughput.fp8_gemms_per_layer); None: fused into the previous kernel
    act_quant_s: EngineConstant | None = None
    source: list[str] = msgspec.field(default_factory=list)
    note: str = ""


class EngineProfile(Frozen):
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
    kv_block_source: list[str] = msgspec.field(default_factory=list)
    flash_attention: bool = True  # uses a fused attention kernel by default where the GPU supports it
    logits_fp32_all_tokens: bool = False  # computes fp32 logits for every prompt token (old HF generate)
    serving: ServingProfile | None = None  # scheduler and per-step costs (serving engines and generate loops)
    notes: str = ""


class EngineTable(Frozen):
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

    path = Path(__file__).resolve().parents[2] / "knowledge" / "data" / "engines.yaml"
    return snapshot.cached("table-engines", [path, Path(__file__), *trusted.READER_FILES], lambda: _parse_file(path),
                           trusted.dump, lambda data: trusted.construct(EngineTable, data))


def _parse_file(path: "Path") -> "EngineTable":
    import yaml  # here: a warm start reads the snapshot and parses no YAML

    text = path.read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10× faster than the Python parser
    return parse_engines(yaml.load(text, Loader=loader))
