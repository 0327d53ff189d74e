"""The serving engines' own KV-cache arithmetic at start-up: vLLM and SGLang, each with its own semantics.

vLLM (V1 engine; vllm/v1/worker/gpu_worker.py `determine_available_memory`, vllm/v1/core/kv_cache_utils.py)
[vllm-kv-cache-code]. `--gpu-memory-utilization` is a fraction of the TOTAL GPU memory, per instance:

    budget     = total_gpu_memory × gpu_memory_utilization
    KV bytes   = budget − weights − activation peak − non-torch memory [− CUDA-graph memory when profiled]
    activation peak = the profile run's forward at max_num_batched_tokens (one layer's temporaries) + fp32 logits of
                 min(max_num_seqs, max_num_batched_tokens) sequences
    CUDA graphs: counted only with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 (default 0: they come out of the
                 1 − utilization headroom)
    --kv-cache-memory-bytes replaces the whole computation (it ignores gpu_memory_utilization)
    blocks     = ⌊KV bytes / (block_size × KV bytes per token)⌋            (block_size 16)
    tokens     = blocks × block_size;  "Maximum concurrency for N tokens per request: tokens / N x"

This module follows vLLM's current defaults (CacheConfig: gpu_memory_utilization 0.92; 0.9 before) unless a release
profile is named; total_gpu_memory is what the driver reports (torch.cuda.mem_get_info), slightly under the
datasheet capacity: VISIBLE_FRACTION, derived from published start-up logs.

SGLang (python/sglang/srt/server_args.py `_handle_gpu_memory_settings`, PR #10975; model_runner
`profile_max_num_token`) [sglang-mem-fraction-code]. `--mem-fraction-static` = (weights + KV pool) / total and is
chosen automatically when not given:

    reserved MiB = 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs + 1024 × tp·pp / 8
                   (at least 10 GiB on cards of more than 60 GiB)
    mem_fraction_static = round((gpu_mem − reserved) / gpu_mem, 3)
    KV pool = total × mem_fraction_static − weights − CUDA context (+ NCCL buffers when tp > 1);
    tokens = KV pool / KV bytes per token (page size 1)

All sizes are bytes, memory per GPU of one tensor-parallel group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from advisor.workload import DEFAULT_CONTEXT
from knowledge.errors import InputError
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

from .activations import prefill_workspace_bytes
from .engines import default_engines
from .formats import check_format, weight_bytes
from .kv_cache import kv_bytes_per_token_layer
from .throughput import default_engine

if TYPE_CHECKING:
    from .speed_results import ThroughputEstimate

MIB = 2**20

# driver-visible share of the datasheet capacity (torch.cuda.mem_get_info total): H100/A100 80 GB report 79.15-79.22
# GiB, RTX 3090/4090 23.55-23.58 GiB in the vLLM logs of benchmarks/engine_memory_validation.yaml
VISIBLE_FRACTION = {"hbm": 0.990, "gddr": 0.982}


class VllmRelease(Value):
    """Defaults of one vLLM release line that change the KV budget."""

    label: str
    gpu_memory_utilization: float
    cuda_graphs_profiled: bool = False
    chunked_prefill: bool = True  # False (V0 ≤ 0.6): max_num_batched_tokens = max(max_model_len, 2048)
    max_num_seqs_large: int = 1024  # OpenAI server on ≥ 70 GiB GPUs other than A100 (EngineArgs.get_batch_defaults)
    max_num_seqs: int = 256
    counts_non_torch: bool = True  # releases before v0.4 did not subtract non-torch memory


VLLM_RELEASES = {
    "current": VllmRelease("vLLM V1, current defaults (gpu_memory_utilization 0.92)", 0.92),
    "v1-0.9": VllmRelease("vLLM V1 0.8-0.10 (gpu_memory_utilization 0.9)", 0.9),
    "v0-0.6": VllmRelease("vLLM V0 0.6 (0.9, no chunked prefill up to 32K)", 0.9, chunked_prefill=False,
                          max_num_seqs_large=256),
    "v0-0.2": VllmRelease("vLLM 0.2 (0.9, non-torch memory not counted)", 0.9, chunked_prefill=False,
                          max_num_seqs_large=256, counts_non_torch=False),
}


class EngineKvBudget(Value):
    """What an engine gives the KV cache on one GPU, and what it prints at start-up."""

    engine: str
    release: str
    fraction: float  # gpu_memory_utilization (vLLM) or mem_fraction_static (SGLang)
    total_bytes: int  # driver-visible memory of one GPU
    weights_bytes: int
    activation_bytes: int
    non_torch_bytes: int
    cuda_graph_bytes: int  # subtracted (0 when the engine does not profile it)
    kv_cache_bytes: int
    kv_bytes_per_token: int
    block_size: int
    num_blocks: int
    kv_tokens: int
    max_model_len: int
    formulas: list[str] = msgspec.field(default_factory=list)

    @property
    def max_concurrency(self) -> float:
        """Requests of max_model_len tokens the KV cache holds at once (vLLM's "Maximum concurrency")."""
        return self.kv_tokens / self.max_model_len if self.max_model_len else 0.0

    @property
    def log_line(self) -> str:
        """The line the engine prints, e.g. "Maximum concurrency for 4,096 tokens per request: 12.34x"."""
        if self.engine == "sglang":
            return f"KV Cache is allocated. #tokens: {self.kv_tokens}"
        return f"Maximum concurrency for {self.max_model_len:,} tokens per request: {self.max_concurrency:.2f}x"

    def to_contract(self) -> dict[str, object]:
        return {"engine": self.engine, "release": self.release, "fraction": self.fraction,
                "total_bytes": self.total_bytes, "kv_cache_bytes": self.kv_cache_bytes,
                "num_blocks": self.num_blocks, "block_size": self.block_size, "kv_tokens": self.kv_tokens,
                "max_model_len": self.max_model_len, "max_concurrency": round(self.max_concurrency, 2),
                "log_line": self.log_line, "formulas": list(self.formulas)}


def visible_bytes(gpu: GpuSpec) -> int:
    """Memory the driver reports for `gpu` (torch.cuda.mem_get_info total)."""
    cls = "hbm" if gpu.memory_type.upper().startswith("HBM") else "gddr"
    return int(gpu.memory_bytes * VISIBLE_FRACTION[cls])


def _per_token_kv(model: ModelSpec, kv: str, tp: int, attention_dp: bool = False) -> int:
    """One token's KV bytes on one GPU, all layers (under DP attention the GPU's average share: whole tokens / tp)."""
    return round(kv_bytes_per_token_layer(model, kv, tp, attention_dp) * model.num_layers)


def _engine_constants(tp: int) -> tuple[int, int, int]:
    """(non-torch bytes, CUDA-graph bytes, block size) for vLLM from knowledge/data/engines.yaml: CUDA context
    (+ NCCL buffers when tp > 1), the captured graphs, and the KV block size in tokens."""
    prof = default_engines().get("vllm")
    non_torch = int(prof.cuda_context_bytes.value)
    if tp > 1 and prof.nccl_bytes is not None:
        non_torch += int(prof.nccl_bytes.value)
    graphs = int(prof.cuda_graph_bytes.value) if prof.cuda_graph_bytes is not None else 0
    return non_torch, graphs, int(prof.kv_block_tokens or 16)


def check_fraction(value: float, flag: str) -> None:
    if not 0 < value <= 1:
        raise InputError.from_key("errors.fraction", field=flag.lstrip("-").replace("-", "_"),
                                  accepted="a fraction > 0 and ≤ 1 of the whole GPU's memory", flag=flag, value=value)


def vllm_kv_budget(model: ModelSpec, gpu: GpuSpec, *, tp: int = 1, weights: str = "bf16", kv: str = "fp16",
                   max_model_len: int = DEFAULT_CONTEXT, release: str = "current", gpu_memory_utilization: float | None = None,
                   kv_cache_memory_bytes: int | None = None, max_num_batched_tokens: int | None = None,
                   max_num_seqs: int | None = None, cuda_graphs_profiled: bool | None = None,
                   total_bytes: int | None = None, attention_dp: bool = False) -> EngineKvBudget:
    """vLLM's KV cache on each GPU of a TP group (module docstring). `total_bytes` overrides the driver-visible
    memory (a log's total_gpu_memory); the other keywords are vLLM's own engine arguments. `attention_dp`: the
    group runs as data-parallel ranks with the experts split (--data-parallel-size, --enable-expert-parallel); the
    tokens are the whole group's."""
    rel = VLLM_RELEASES.get(release)
    if rel is None:
        raise InputError(f"unknown vLLM release profile '{release}'", field="release", accepted=", ".join(VLLM_RELEASES))
    util = rel.gpu_memory_utilization if gpu_memory_utilization is None else gpu_memory_utilization
    check_fraction(util, "--gpu-memory-utilization")
    if max_model_len < 1:
        raise InputError(f"max_model_len must be ≥ 1, got {max_model_len}", field="context", accepted="≥ 1 token")
    fmt = check_format(weights).name
    total = int(total_bytes or visible_bytes(gpu))
    large = gpu.memory_bytes >= 70 * GIB and not gpu.id.startswith(("a100", "a800"))
    if max_num_batched_tokens is None:
        max_num_batched_tokens = (max(max_model_len, 2048) if not rel.chunked_prefill
                                  else (8192 if large else 2048))
    if max_num_seqs is None:
        max_num_seqs = rel.max_num_seqs_large if large else rel.max_num_seqs
    w = weight_bytes(model, fmt, tp=tp, attention_dp=attention_dp)
    act = prefill_workspace_bytes(model, max_num_batched_tokens, max_num_batched_tokens, tp=tp, flash=True,
                                  logits_tokens=min(max_num_seqs, max_num_batched_tokens))
    non_torch, graphs, block = _engine_constants(tp)
    if not rel.counts_non_torch:
        non_torch = 0
    profiled = rel.cuda_graphs_profiled if cuda_graphs_profiled is None else cuda_graphs_profiled
    graphs = graphs if profiled else 0
    budget = total * util
    if kv_cache_memory_bytes is not None:
        if kv_cache_memory_bytes <= 0:
            raise InputError.from_key("errors.kv_cache_bytes", field="kv_cache_memory_bytes", accepted="> 0 bytes")
        kv_bytes = int(kv_cache_memory_bytes)
        how = f"KV = --kv-cache-memory-bytes = {kv_bytes / GIB:.2f} GiB (gpu_memory_utilization ignored)"
    else:
        kv_bytes = max(0, int(budget - w - act - non_torch - graphs))
        how = (f"KV = {total / GIB:.2f} GiB × {util:g} − weights {w / GIB:.2f} − activation peak {act / GIB:.2f} "
               f"({max_num_batched_tokens} tokens) − non-torch {non_torch / GIB:.2f}"
               + (f" − CUDA graphs {graphs / GIB:.2f}" if graphs else "") + f" = {kv_bytes / GIB:.2f} GiB")
    per_tok = _per_token_kv(model, kv, tp, attention_dp)
    blocks = kv_bytes // (block * per_tok) if per_tok else 0
    out = EngineKvBudget(
        engine="vllm", release=rel.label, fraction=util, total_bytes=total, weights_bytes=w, activation_bytes=act,
        non_torch_bytes=non_torch, cuda_graph_bytes=graphs, kv_cache_bytes=kv_bytes, kv_bytes_per_token=per_tok,
        block_size=block, num_blocks=int(blocks), kv_tokens=int(blocks * block), max_model_len=max_model_len)
    out.formulas.extend([
        how, f"blocks = ⌊KV / ({block} × {per_tok:,} B per token)⌋ = {blocks:,}; {blocks * block:,} tokens",
        out.log_line,
    ])
    return out


def sglang_mem_fraction_static(gpu: GpuSpec, *, tp: int = 1, pp: int = 1) -> tuple[float, int, int]:
    """SGLang's automatic mem_fraction_static for `gpu` (module docstring): (fraction, chunked_prefill_size,
    cuda_graph_max_bs). gpu_mem is the driver-visible capacity in MiB."""
    gpu_mem = visible_bytes(gpu) / MIB
    small = tp < 4
    if gpu_mem < 20 * 1024:
        chunk, graph_bs = 2048, (16 if small else 64)
    elif gpu_mem < 35 * 1024:
        chunk, graph_bs = 2048, (24 if small else 80)
    elif gpu_mem < 60 * 1024:
        chunk, graph_bs = 4096, (32 if small else 160)
    elif gpu_mem < 160 * 1024:
        chunk, graph_bs = 8192, (256 if small else 512)
    else:
        chunk, graph_bs = 16384, 512
    reserved = 512 + 1.5 * max(chunk, 2048) + 2 * graph_bs + tp * pp / 8 * 1024
    if gpu_mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((gpu_mem - reserved) / gpu_mem, 3), chunk, graph_bs


def sglang_kv_budget(model: ModelSpec, gpu: GpuSpec, *, tp: int = 1, weights: str = "bf16", kv: str = "fp16",
                     max_model_len: int = DEFAULT_CONTEXT, mem_fraction_static: float | None = None,
                     total_bytes: int | None = None, attention_dp: bool = False) -> EngineKvBudget:
    """SGLang's KV pool on each GPU: total × mem_fraction_static − weights − CUDA context (module docstring);
    `attention_dp` (--enable-dp-attention): whole attention on each GPU, the tokens the whole group's."""
    auto, chunk, graph_bs = sglang_mem_fraction_static(gpu, tp=tp)
    frac = auto if mem_fraction_static is None else mem_fraction_static
    check_fraction(frac, "--mem-fraction-static")
    total = int(total_bytes or visible_bytes(gpu))
    w = weight_bytes(model, check_format(weights).name, tp=tp, attention_dp=attention_dp)
    context, _, _ = _engine_constants(tp)  # CUDA context (+ NCCL buffers for TP) exist before the pool is sized
    kv_bytes = max(0, int(total * frac - w - context))
    per_tok = _per_token_kv(model, kv, tp, attention_dp)
    tokens = kv_bytes // per_tok if per_tok else 0
    out = EngineKvBudget(
        engine="sglang", release="SGLang, automatic mem_fraction_static (PR #10975)", fraction=frac,
        total_bytes=total, weights_bytes=w, activation_bytes=0, non_torch_bytes=context, cuda_graph_bytes=0,
        kv_cache_bytes=kv_bytes, kv_bytes_per_token=per_tok, block_size=1, num_blocks=int(tokens),
        kv_tokens=int(tokens), max_model_len=max_model_len)
    src = "given" if mem_fraction_static is not None else (
        f"auto: chunked_prefill_size {chunk}, cuda_graph_max_bs {graph_bs}")
    out.formulas.extend([
        f"mem_fraction_static = {frac:.3f} ({src}) = (weights + KV pool) / total",
        f"KV pool = {total / GIB:.2f} GiB × {frac:.3f} − weights {w / GIB:.2f} − CUDA context {context / GIB:.2f} = "
        f"{kv_bytes / GIB:.2f} GiB; {tokens:,} tokens of {per_tok:,} B",
        f"max concurrency at {max_model_len:,} tokens = {out.max_concurrency:.2f}",
    ])
    return out


def engine_kv_budget(engine: str, model: ModelSpec, gpu: GpuSpec, *, tp: int, weights: str, kv: str,
                     max_model_len: int, attention_dp: bool = False) -> EngineKvBudget | None:
    """The budget of `engine` at its defaults (None for engines without a start-up KV reservation: llama.cpp,
    transformers, TensorRT-LLM here)."""
    if engine == "vllm":
        return vllm_kv_budget(model, gpu, tp=tp, weights=weights, kv=kv, max_model_len=max_model_len,
                              attention_dp=attention_dp)
    if engine == "sglang":
        return sglang_kv_budget(model, gpu, tp=tp, weights=weights, kv=kv, max_model_len=max_model_len,
                                attention_dp=attention_dp)
    return None


def budget_for_estimate(est: ThroughputEstimate, model: ModelSpec, gpu: GpuSpec, engine: str | None = None) -> EngineKvBudget | None:
    """The engine budget matching a ThroughputEstimate (its TP group, formats and context) for `engine` (default:
    the one its weight format implies); the `engine_memory` key of the throughput JSON adds `instances`."""
    weights, kv, tp, context = est.weights, est.kv, est.tp, est.context
    return engine_kv_budget(engine or default_engine(weights), model, gpu, tp=tp, weights=weights, kv=kv,
                            max_model_len=context, attention_dp=est.attention_dp)
