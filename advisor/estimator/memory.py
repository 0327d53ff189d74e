"""GPU memory for inference, fine-tuning and training: `estimate_memory(model, workload, gpu)`.

Pure: the model spec, workload, optional GPU and engine table come in, a :class:`MemoryEstimate` with a per-GPU
breakdown, host-RAM breakdown (offload), formula lines and assumptions goes out. Weights come from
:mod:`advisor.estimator.formats`, activations from :mod:`advisor.estimator.activations`, model states and ZeRO from
:mod:`advisor.estimator.training_memory`, engine constants from ``knowledge/data/engines.yaml``.
"""

from __future__ import annotations

from typing import Any

from advisor.estimator import activations as act
from advisor.estimator import training_memory as tm
from advisor.estimator.allocator import dynamic_cache_reserve, reserve_shares
from advisor.estimator.engines import ENGINE_VERSIONS, EngineProfile, EngineTable, default_engines
from advisor.estimator.formats import (
    FORMATS,
    check_format,
    kv_bits,
    kv_heads_per_gpu,
    weight_bytes,
    weight_bytes_by_group,
)
from advisor.estimator.kv_cache import kv_bytes_per_token_layer, kv_cache_bytes, linear_state_bytes, sliding_layers
from advisor.estimator.results import Breakdown, MemoryEstimate
from advisor.workload import WeightFormat, Workload
from knowledge.errors import InputError
from knowledge.params import param_counts
from knowledge.quantities import Bytes, memory_text
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value

DEFAULT_WEIGHTS = {"inference": "bf16", "full": "bf16", "pretrain": "bf16", "lora": "bf16", "freeze": "bf16",
                   "qlora": "nf4"}


def default_inference_format(model: ModelSpec) -> WeightFormat:
    """The checkpoint's own precision: fp8 for FP8 checkpoints (DeepSeek-V3), mxfp4 / int4-experts for checkpoints
    whose MoE experts ship in 4 bits (gpt-oss, Kimi K2 Thinking), fp16 for fp16 ones, else bf16."""
    own: dict[str, WeightFormat] = {"fp8": "fp8", "float16": "fp16", "mxfp4": "mxfp4", "int4-experts": "int4-experts"}
    return own.get(model.native_dtype, "bf16")


# --------------------------------------------------------------------------------------------------------------
# helpers

def _validate(model: ModelSpec, w: Workload) -> None:
    a, kvh = model.num_attention_heads, model.num_kv_heads
    if w.tp > a or a % w.tp:
        # start-up: only a TP degree that does not divide the heads loads the layouts
        from advisor.estimator.parallel_layout import divisors

        raise InputError.from_key("errors.tp_heads", field="tp",
                                  accepted=f"a divisor of {a}: {', '.join(str(d) for d in divisors(a))}",
                                  tp=w.tp, heads=a, model=model.name)
    if not model.is_mla and w.tp > kvh and w.tp % kvh:
        raise InputError(f"tensor parallelism {w.tp} exceeds the {kvh} KV heads and is not a multiple of them",
                         field="tp", accepted=f"a divisor or multiple of {kvh}")
    if w.attention_dp and not model.is_mla:
        raise InputError(f"attention data-parallel (DP attention) is sized for MLA models, whose latent KV cache TP "
                         f"would copy to every GPU; {model.name} uses {model.num_kv_heads} KV heads, which TP splits",
                         field="attention_dp", accepted="an MLA model (DeepSeek-V2/V3/R1, Kimi K2), or tp alone")
    if w.pp > model.num_layers:
        raise InputError(f"pipeline parallelism {w.pp} exceeds the {model.num_layers} layers", field="pp",
                         accepted=f"1 to {model.num_layers}")
    if w.world_size % (w.tp * w.pp):
        raise InputError(f"{w.world_size} GPUs cannot be split into TP {w.tp} × PP {w.pp} groups", field="gpus",
                         accepted="gpus × nodes a multiple of tp × pp")
    if w.is_training:
        if w.offload != "none" and w.zero == 0 and w.engine != "fsdp":  # FSDP always shards (FULL_SHARD)
            raise InputError("CPU offload needs ZeRO (DeepSpeed ZeRO-Offload)", field="offload",
                             accepted="--zero 1, 2 or 3 with --offload optimizer; --zero 3 with --offload all")
        if w.engine == "fsdp" and w.offload == "optimizer":
            raise InputError("FSDP offloads parameters, gradients and the optimizer step together "
                             "(CPUOffload(offload_params=True))", field="offload", accepted="--offload all with --engine fsdp")
        if w.offload == "all" and w.zero != 3 and w.engine != "fsdp":
            raise InputError("offloading parameters needs ZeRO stage 3", field="offload",
                             accepted="--zero 3 with --offload all, or --offload optimizer")
        if w.offload != "none" and w.optimizer not in ("adamw",):
            raise InputError(f"DeepSpeed's CPU offload runs its own CPU Adam, not '{w.optimizer}'",
                             field="optimizer", accepted="adamw with --offload")
        if w.task in ("lora", "qlora"):
            tm.check_lora_rank(model, w.lora_rank)
    if w.task == "qlora":
        base = w.weights or "nf4"
        if base not in ("nf4", "bnb-4bit", "int4", "gptq-int4", "awq-int4"):
            raise InputError.from_key("errors.qlora_base", field="weights", accepted="nf4 (or another 4-bit format)",
                                      base=base)
    if w.task != "inference" and w.weights and FORMATS[w.weights].family == "gguf":
        raise InputError(f"GGUF ({w.weights}) is an inference format; training needs bf16/fp16/fp32 weights "
                         "(or nf4 for QLoRA)", field="weights", accepted="bf16, fp16, fp32; nf4 with --task qlora")
    if w.task in ("full", "pretrain", "freeze") and w.weights and w.weights not in ("bf16", "fp16", "fp32"):
        raise InputError(f"{w.task} training updates the weights and cannot keep them in {w.weights}",
                         field="weights", accepted="bf16, fp16 or fp32 (use --task qlora for a 4-bit base)")
    if w.task == "lora" and w.weights and w.weights not in ("bf16", "fp16", "fp32", "int8", "bnb-int8", "fp8"):
        raise InputError(f"LoRA on a {w.weights} base: use --task qlora for 4-bit bases", field="weights",
                         accepted="bf16, fp16, fp32, int8/bnb-int8")


def _gib(x: float | Bytes) -> str:
    return x.text("GiB", 2) if isinstance(x, Bytes) else memory_text(x, "GiB", 2)


# serving engines whose attention backends are fused on every card they run on, FlashAttention-2 or not: vLLM picks
# FlashAttention on Ampere and later, xFormers / Triton kernels before it (docs.vllm.ai, attention backends), its
# Ascend plugin torch_npu's npu_fused_infer_attention_score and paged attention (vllm-ascend
# vllm_ascend/attention/attention_v1.py); SGLang its FlashInfer / Triton / Ascend backends; TensorRT-LLM its own
# fused MHA. None materialises the s × s attention scores.
FUSED_ON_ANY_CARD = ("vllm", "sglang", "trtllm")
# the engines that run attention data-parallel over a TP group for MLA models: SGLang --enable-dp-attention, vLLM
# --data-parallel-size with --enable-expert-parallel, TensorRT-LLM enable_attention_dp [sglang-dp-attention]
DP_ATTENTION_ENGINES = ("vllm", "sglang", "trtllm")


def _flash(w: Workload, gpu: GpuSpec | None, engine: EngineProfile, engine_id: str = "") -> tuple[bool, str]:
    if w.flash_attention is not None:
        return w.flash_attention, f"FlashAttention {'on' if w.flash_attention else 'off'} (as requested)"
    if not engine.flash_attention:
        return False, f"{engine.name} without flash attention by default (attention scores materialised)"
    if gpu is not None and not gpu.supports_flash_attention_2 and engine_id in FUSED_ON_ANY_CARD:
        return True, (f"{gpu.name} does not run FlashAttention-2; {engine.name}'s own fused attention kernel for it "
                      "keeps the attention scores unmaterialised")
    if gpu is not None and not gpu.supports_flash_attention_2:
        return False, f"{gpu.name} does not run FlashAttention-2: attention scores materialised (eager/SDPA math)"
    return True, "FlashAttention/fused SDPA (no s² attention-score storage)"


# --------------------------------------------------------------------------------------------------------------
# the estimate

def estimate_memory(model: ModelSpec, workload: Workload, gpu: GpuSpec | None = None, *,
                    engines: EngineTable | None = None, weights_file_bytes: int | None = None) -> MemoryEstimate:
    """Memory per GPU (the most loaded one) and in host RAM for `workload` on `model`.

    `weights_file_bytes` (inference): the checkpoint's exact weight bytes (knowledge.weight_files: a safetensors
    index's total_size or a GGUF header's tensors), used instead of the format's computed size."""
    _validate(model, workload)
    table = engines or default_engines()
    if workload.is_training:
        # start-up: preference training is loaded only for training estimates
        from advisor.estimator.preference import sequences_workload, with_preference

        est = _training(model, sequences_workload(workload), gpu, table)
        return with_preference(est, model, workload, check_format(workload.weights or DEFAULT_WEIGHTS[workload.task]).name)
    return _inference(model, workload, gpu, table, weights_file_bytes)


class _Term(Value):
    """One part of an estimate: its bytes per GPU, and the formula lines and assumptions that gave them."""

    value: float
    formulas: list[str]
    assumptions: list[str]


def _inference_engine(model: ModelSpec, w: Workload, table: EngineTable) -> tuple[str, str, EngineProfile]:
    """(weight format, engine id, engine): the checkpoint's own precision unless given; GGUF files run in
    llama.cpp, the rest in vLLM unless given; a training engine or a format the engine cannot load is refused."""
    fmt = check_format(w.weights or default_inference_format(model)).name
    engine_id = w.engine or ("llama.cpp" if FORMATS[fmt].family == "gguf" else "vllm")  # GGUF files run in llama.cpp
    engine = table.get(engine_id)
    if engine.kind == "training":
        raise InputError(f"{engine.name} is a training engine", field="engine",
                         accepted="transformers, vllm, llama.cpp, sglang, trtllm for inference")
    # ggml has an MXFP4 tensor type since August 2025 (gpt-oss's GGUF files keep its MXFP4 experts as released)
    if engine_id == "llama.cpp" and FORMATS[fmt].family not in ("gguf", "float") and fmt not in ("mxfp4", "mxfp4_moe"):
        raise InputError(f"llama.cpp loads GGUF files, not {fmt}", field="weights",
                         accepted="q8_0, q6_k, q5_k_m, q4_k_m, q4_0, q3_k_m, q2_k, mxfp4, fp16, bf16, fp32")
    return fmt, engine_id, engine


def _file_weights(model: ModelSpec, fmt: str, tp: int, pp: int, file_bytes: int, attention_dp: bool = False) -> _Term:
    """weights = the file's bytes × this GPU's share (the share the format's tensor split gives under TP × PP)."""
    computed = sum(weight_bytes_by_group(model, fmt).values())
    share = weight_bytes(model, fmt, tp=tp, pp=pp, attention_dp=attention_dp) / computed
    weights = file_bytes * share
    formulas = [f"weights = the checkpoint file's exact size {_gib(file_bytes)}"
                + (f" × this GPU's share {share:.4f} under TP {tp} × PP {pp} = {_gib(weights)}" if tp * pp > 1 else "")]
    diff = file_bytes / computed - 1
    assumptions = [f"weights read from the file, not computed: {_gib(file_bytes)} vs {_gib(computed)} computed for "
                   f"{FORMATS[fmt].label} ({diff:+.1%}; extra tensors such as MTP layers or a vision tower, or "
                   "another per-tensor mix, explain a difference)"]
    return _Term(weights, formulas, assumptions)


def _inference_weights(model: ModelSpec, fmt: str, tp: int, pp: int, total_params: int,
                       attention_dp: bool = False) -> _Term:
    """weights = Σ tensors × bits/8 in the format (formats.weight_bytes), per GPU under TP × PP; under DP attention
    every GPU keeps the whole attention (formats.shard_weight_bytes)."""
    weights = weight_bytes(model, fmt, tp=tp, pp=pp, attention_dp=attention_dp)
    groups = weight_bytes_by_group(model, fmt)
    info = FORMATS[fmt]
    formulas = [
        f"weights = Σ tensors × bits/8 in {info.label} = {_gib(sum(groups.values()))} in all"
        + (f"; per GPU under TP {tp} × PP {pp}" + (" with DP attention" if attention_dp else "")
           + f" = {_gib(weights)}" if tp * pp > 1 else "")
        + f" ({sum(groups.values()) * 8 / total_params:.3f} bits/param effective)"]
    assumptions: list[str] = []
    if attention_dp:
        assumptions.append(f"DP attention: the routed experts split {tp} ways; each of the {tp} GPUs keeps the rest "
                           f"whole ({_gib(sum(b for g, b in groups.items() if g != 'experts'))}: attention, dense and "
                           "shared-expert MLPs, embedding and output head, as vLLM's data-parallel ranks do)")
    if info.family in ("weight-only", "bnb"):
        assumptions.append(f"{info.label}: embeddings, lm_head and norms kept in 16-bit")
    elif info.family == "gguf":
        assumptions.append("GGUF mix per llama.cpp's llama_tensor_get_type (output.weight in Q6_K, more bits on "
                           "attn_v/ffn_down of the use_more_bits layers; norms F32)")
    return _Term(weights, formulas, assumptions)


def _inference_kv(model: ModelSpec, w: Workload, engine: EngineProfile, sequences: int) -> _Term:
    """kv_cache = seqs × tokens × layers × per-token-per-layer bytes (kv_cache_bytes: sliding windows, pages)."""
    tp, pp, context = w.tp, w.pp, w.context
    block = engine.kv_block_tokens if engine.kv_block_tokens and engine.kv_block_tokens > 1 else None
    shared = sequences
    if w.attention_dp:  # each GPU caches its own sequences: the fullest rank holds ⌈seqs / tp⌉ of them
        sequences, tp = -(-sequences // tp), 1
    kv = kv_cache_bytes(model, context, sequences, w.kv, tp, block, pp)
    stage_layers = -(-model.num_layers // pp)
    assumptions: list[str] = []
    if model.is_mla:
        where = (f"DP attention: ⌈{shared} / {w.tp}⌉ sequences on each GPU" if w.attention_dp
                 else "MLA latent, not split by TP")
        formula = (f"kv_cache = seqs × tokens × layers × (kv_lora_rank + rope_dim) × bytes"
                   f" = {sequences} × {context} × {stage_layers} × ({model.kv_lora_rank} + {model.qk_rope_head_dim})"
                   f" × {kv_bits(w.kv) / 8:g} = {_gib(kv)} ({where})")
    else:
        kvh = kv_heads_per_gpu(model, tp)
        formula = (f"kv_cache = 2 × seqs × tokens × layers × kv_heads × head_dim × bytes = 2 × {sequences} × "
                   f"{context} × {stage_layers} × {kvh} × {model.head_dim} × {kv_bits(w.kv) / 8:g} = {_gib(kv)}")
        if tp > model.num_kv_heads:
            assumptions.append(f"TP {tp} > {model.num_kv_heads} KV heads: each GPU keeps a replicated KV head")
    if sliding_layers(model):
        kind = "chunked-attention" if model.local_attention == "chunked" else "sliding"
        assumptions.append(f"{sliding_layers(model)} of {model.num_layers} layers use a {model.sliding_window}-token "
                           f"{kind} window and cache at most that many tokens (a window-aware cache: HF HybridCache, "
                           "llama.cpp SWA cache, vLLM's hybrid allocator; engines without one hold the full context)")
    if model.linear_attention is not None:
        state = linear_state_bytes(model, sequences, tp)
        assumptions.append(f"{model.linear_layers} of {model.num_layers} layers are linear attention (Gated DeltaNet): "
                           f"no KV cache, a fixed state of {_gib(state)} for {sequences} sequence(s) whatever the "
                           f"context (included); only the {model.global_layers} full-attention layers grow with it")
    if model.indexer_head_dim:
        assumptions.append(f"DeepSeek sparse attention: the indexer caches a {model.indexer_head_dim}-value FP8 key "
                           "(+ a scale) per token and layer beside the MLA latent (included)")
    if block:
        assumptions.append(f"{engine.name} pages the KV cache in blocks of {block} tokens (rounded up per sequence)")
    return _Term(kv, [formula], assumptions)


def _inference_activations(model: ModelSpec, w: Workload, gpu: GpuSpec | None, engine: EngineProfile,
                           engine_id: str, fmt: str, sequences: int) -> _Term:
    """activations = one layer's prefill temporaries for a chunk of the prompts + fp32 logits of the sequences
    (activations.prefill_workspace_bytes); transformers adds one quantised matrix dequantised to fp16."""
    tp, context = w.tp, w.context
    flash, flash_note = _flash(w, gpu, engine, engine_id)
    chunk_cfg = engine.prefill_chunk_tokens.value if engine.prefill_chunk_tokens else None
    prompt = w.prompt_tokens or context
    chunk = int(min(chunk_cfg, prompt * sequences)) if chunk_cfg else prompt * sequences
    activations = act.prefill_workspace_bytes(model, chunk, context, tp=tp, flash=flash,
                                              logits_tokens=sequences)
    formulas = [f"activations = one layer's prefill temporaries for {chunk} tokens + fp32 logits of {sequences} "
                f"sequence(s) = {_gib(activations)}"]
    if engine_id == "transformers" and FORMATS[fmt].family in ("weight-only", "bnb"):
        deq = int(2 * _largest_quantised(model) / tp)
        activations += deq
        formulas.append(f"+ one quantised matrix dequantised to fp16 during its matmul = {_gib(deq)}")
    assumptions = [flash_note, f"prefill in chunks of {int(chunk_cfg)} tokens ({engine.name} default)" if chunk_cfg
                   else "prefill of the whole prompt in one forward"]
    return _Term(activations, formulas, assumptions)


def _usable_fraction(engine: EngineProfile, gpu: GpuSpec | None) -> tuple[float, list[str]]:
    """The share of GPU memory an engine claims up front (vLLM's gpu_memory_utilization), else 1."""
    if engine.memory_fraction is None or "after weights" in engine.memory_fraction.unit:
        return 1.0, []
    fraction = float(engine.memory_fraction.value)
    reserve = f" = {_gib(gpu.memory_bytes * fraction)} of {gpu.name}" if gpu else ""
    return fraction, [f"{engine.name} claims {fraction:g} of GPU memory at start-up{reserve} and fills what "
                      "weights and activations leave with KV cache; nvidia-smi shows that reservation"]


def _inference(model: ModelSpec, w: Workload, gpu: GpuSpec | None, table: EngineTable,
               file_bytes: int | None = None) -> MemoryEstimate:
    """Per GPU: weights + KV cache + prefill activations + engine overhead (the terms above)."""
    fmt, engine_id, engine = _inference_engine(model, w, table)
    if w.attention_dp and engine_id not in DP_ATTENTION_ENGINES:
        raise InputError(f"{engine.name} has no data-parallel attention", field="attention_dp",
                         accepted=", ".join(DP_ATTENTION_ENGINES))
    counts = param_counts(model)
    tp, pp, dpa = w.tp, w.pp, w.attention_dp
    sequences = max(w.batch, w.concurrency)
    context = w.context
    weights = (_file_weights(model, fmt, tp, pp, file_bytes, dpa) if file_bytes
               else _inference_weights(model, fmt, tp, pp, counts.total, dpa))
    kv = _inference_kv(model, w, engine, sequences)
    activations = _inference_activations(model, w, gpu, engine, engine_id, fmt, sequences)
    overhead, overhead_lines = _engine_overhead(engine, w.world_size > 1 or tp > 1)
    if engine_id == "transformers":  # HF generate: DynamicCache re-allocation and cuBLAS workspaces (allocator)
        reserve, reserve_line = dynamic_cache_reserve(kv.value)
        workspace = reserve_shares().cublas_workspace
        overhead += int(reserve + workspace)
        overhead_lines += [reserve_line, f"cuBLAS workspaces {_gib(workspace)}"]
    fraction, fraction_notes = _usable_fraction(engine, gpu)
    per_gpu = Breakdown(weights=weights.value, activations=activations.value, kv_cache=kv.value, overhead=overhead)
    formulas = [*weights.formulas, *kv.formulas, *activations.formulas,
                f"overhead = {' + '.join(overhead_lines)} = {_gib(overhead)}", f"total per GPU = {_gib(per_gpu.total)}"]
    # a 16-bit KV cache is stored in the model's own 16-bit type (vLLM's kv-cache-dtype "auto"): bf16 for a bf16
    # checkpoint, or one whose quantised weights run with bf16 activations (FP8, MXFP4, INT4 experts: their configs'
    # torch_dtype is bfloat16); the bytes are the same (review R42)
    kv_shown = "bf16" if w.kv == "fp16" and model.native_dtype not in ("float16", "float32") else w.kv
    assumptions = [*weights.assumptions, *kv.assumptions, *activations.assumptions, *fraction_notes,
                   f"engine: {engine.name}; weights {fmt}, KV cache {kv_shown}, {sequences} sequence(s) × "
                   f"{context} tokens"]
    per_tok_layer = kv_bytes_per_token_layer(model, w.kv, tp, dpa)
    stage_layers = -(-model.num_layers // pp)
    return MemoryEstimate(
        model=model.id, task=w.task, params=counts.total, active_params=counts.active, gpus=w.world_size,
        per_gpu=per_gpu, formulas=formulas, assumptions=assumptions, engine=engine_id, usable_fraction=fraction,
        kv_tokens_per_gpu=context * sequences, kv_bytes_per_token=Bytes.of(per_tok_layer * stage_layers),
    )


def _largest_quantised(model: ModelSpec) -> int:
    """Weights of the largest matrix a weight-only quantiser converts (attention/MLP/expert projections)."""
    return max(layer.d_in * layer.d_out for layer in tm.lora_targets(model, "all-linear"))


def _engine_overhead(engine: EngineProfile, multi_gpu: bool) -> tuple[int, list[str]]:
    parts = [("CUDA context", engine.cuda_context_bytes.value)]
    if engine.cuda_graph_bytes:
        parts.append(("CUDA graphs", engine.cuda_graph_bytes.value))
    if multi_gpu and engine.nccl_bytes:
        parts.append(("NCCL buffers", engine.nccl_bytes.value))
    return int(sum(v for _, v in parts)), [f"{name} {_gib(v)}" for name, v in parts]


class _States(Value):
    """Model states per GPU (weights, gradients, optimizer), host RAM under offload, and what is trained."""

    weights: float
    gradients: float
    optimizer: float
    cpu: Breakdown
    trainable: float
    layers_with_grad: int | None  # freeze-tuning: the blocks that keep activations for backward
    formulas: list[str]
    assumptions: list[str]


def _training_engine(w: Workload, table: EngineTable) -> tuple[str, EngineProfile]:
    """DeepSpeed when ZeRO or offload is asked for, else transformers (unless given); inference engines refused."""
    engine_id = w.engine or ("deepspeed" if w.zero or w.offload != "none" else "transformers")
    engine = table.get(engine_id)
    if engine.kind == "inference":
        raise InputError(f"{engine.name} is an inference engine", field="engine",
                         accepted="transformers, deepspeed, fsdp, megatron for training")
    return engine_id, engine


def _full_states(model: ModelSpec, w: Workload, engine_id: str, fmt: str, total: int, shard: float,
                 largest: float, dp: int) -> _States:
    """Full training: model states as the engine that runs allocates them — DeepSpeed's estimator for ZeRO (the
    default engine when ZeRO is asked for), FSDP2 (:func:`training_memory.fsdp2_model_states`), Megatron's
    distributed optimizer (:func:`training_memory.megatron_model_states`); otherwise the ZeRO paper's accounting;
    DeepSpeed offload to RAM."""
    assumptions: list[str] = []
    fp32 = fmt == "fp32"
    k = (tm.OPTIMIZER_K_FP32 if fp32 else tm.OPTIMIZER_K_MIXED)[w.optimizer]
    wb = gb = 4 if fp32 else 2
    if w.optimizer == "adamw-bf16":
        wb, gb = 2, 2
        assumptions.append("pure bf16 training: bf16 weights, gradients and AdamW moments, no fp32 master copy")
    else:
        assumptions.append("mixed precision: 16-bit weights and gradients, fp32 master weights in the optimizer"
                           if not fp32 else "fp32 weights, gradients and optimizer states")
    deepspeed = (engine_id == "deepspeed" and w.zero >= 1 and w.offload == "none" and not fp32
                 and w.optimizer == "adamw")
    mixed_adamw = not fp32 and w.optimizer == "adamw"
    if deepspeed:  # DeepSpeed's own estimator accounting (fp32 gradient partitions counted)
        states = tm.deepspeed_model_states(shard, w.zero, dp, largest)
        assumptions.append("model states as DeepSpeed allocates them, in its estimate_zero2/zero3_model_states_"
                           "mem_needs accounting (16-bit weights and gradients, fp32 gradient partition, Adam "
                           "states)" + ("" if w.engine else "; ZeRO runs in DeepSpeed (the engine that implements "
                                        "it), --engine fsdp gives PyTorch FSDP2, --engine megatron Megatron-LM"))
    elif engine_id == "fsdp" and mixed_adamw:
        states = tm.fsdp2_model_states(model, shard, dp)
        assumptions.append("PyTorch FSDP2 (fully_shard per decoder layer, bf16 MixedPrecisionPolicy): fp32 "
                           "parameters, gradients and AdamW states sharded over the data-parallel ranks")
    elif engine_id == "megatron" and mixed_adamw:
        states = tm.megatron_model_states(shard, dp, distributed=w.zero >= 1)
        assumptions.append("Megatron-LM: bf16 parameters, fp32 main gradients, fp32 master weights and Adam "
                           + ("states sharded by the distributed optimizer" if w.zero >= 1 else
                              "states on every rank (no distributed optimizer; --zero 1 turns it on)"))
    else:
        states = tm.zero_model_states(shard, w.zero, dp, weight_bytes=wb, grad_bytes=gb, k=k,
                                      largest_layer=largest)
        if w.zero:
            assumptions.append("model states in the ZeRO paper's accounting (16 B/param before sharding); "
                               "--engine deepspeed gives DeepSpeed's estimator, which also counts fp32 gradient "
                               "partitions")
    weights_b, grads_b, opt_b = states.weights, states.gradients, states.optimizer
    formulas = [states.formula]
    cpu = Breakdown()
    if w.offload != "none":
        weights_b, grads_b, opt_b, cpu = _offload(model, w, total, shard, largest, dp, formulas)
    return _States(weights_b, grads_b, opt_b, cpu, total, None, formulas, assumptions)


def _adapter_states(model: ModelSpec, w: Workload, fmt: str, total: int, largest: float, dp: int) -> _States:
    """Freeze-tuning (the last blocks in fp32) or LoRA/QLoRA adapters (r·(d_in + d_out) per target) on a frozen
    base in `fmt`; ZeRO-3 partitions the frozen base too, ZeRO-1/2 only the trainable states."""
    tp, pp, task, base_fmt = w.tp, w.pp, w.task, fmt
    formulas: list[str] = []
    assumptions: list[str] = []
    layers_with_grad: int | None = None
    base = weight_bytes(model, base_fmt, tp=tp, pp=pp)
    if task == "freeze":
        trainable = tm.freeze_params(model)
        layers_with_grad = tm.FREEZE_TRAINABLE_LAYERS
        tr_shard = trainable / (tp * pp)
        # trainable blocks upcast to fp32 (LLaMA-Factory upcasts trainable params); the rest stays 16-bit
        weights_b = base - 2 * tr_shard + 4 * tr_shard
        grads_b = 4 * tr_shard
        k = tm.OPTIMIZER_K_FP32[w.optimizer]
        opt_b = k * tr_shard
        formulas.append(f"freeze-tuning: last {tm.FREEZE_TRAINABLE_LAYERS} blocks trainable = "
                        f"{trainable / 1e6:.1f}M params in fp32 (weights 4 + grads 4 + optimizer {k} B/param); "
                        f"frozen base in {base_fmt}")
        assumptions.append(f"freeze-tuning trains the last {tm.FREEZE_TRAINABLE_LAYERS} blocks "
                           "(LLaMA-Factory default freeze_trainable_layers=2)")
    else:
        trainable = tm.lora_params(model, w.lora_rank, w.lora_targets)
        tr_shard = trainable / (tp * pp)
        if task == "qlora":
            adapter_w, adapter_g = 2, 2  # 16-bit adapters (QLoRA paper)
            k = tm.OPTIMIZER_K_FP32[w.optimizer]  # 32-bit (paged) optimizer states on the adapters
            assumptions.append("QLoRA: NF4 base with double quantisation, bf16 LoRA adapters, paged 32-bit AdamW "
                               "(pages can spill to host RAM under pressure)")
        else:
            adapter_w, adapter_g = 4, 4  # PEFT keeps adapters in fp32 (autocast_adapter_dtype)
            k = tm.OPTIMIZER_K_FP32[w.optimizer]
            assumptions.append("LoRA adapters in fp32 (PEFT default autocast_adapter_dtype=True) on a "
                               f"{base_fmt} frozen base")
        weights_b = base + adapter_w * tr_shard
        grads_b = adapter_g * tr_shard
        opt_b = k * tr_shard
        formulas.append(f"LoRA adapters = Σ r·(d_in + d_out) over {w.lora_targets} targets, r = {w.lora_rank}: "
                        f"{trainable / 1e6:.2f}M params ({trainable / total:.3%} of the model); "
                        f"weights {adapter_w} + grads {adapter_g} + optimizer {k} B per adapter param")
        if task == "qlora":
            # the matrix being multiplied is dequantised to bf16 during forward and backward
            deq = 2 * _largest_quantised(model) / tp
            weights_b += deq
            formulas.append(f"+ dequantisation buffer of the largest matrix in bf16 = {_gib(deq)}")
    if w.zero >= 3 and dp > 1:
        # ZeRO-3 partitions every parameter, trainable or frozen, and gathers one layer at a time
        # (DeepSpeed ZeRO-3; the layout LLaMA-Factory's ds_z3 configs use for LoRA on large models)
        gathered = largest * base * tp * pp / total
        frozen = base
        weights_b = weights_b - frozen + frozen / dp + gathered
        formulas.append(f"frozen base weights ({base_fmt}) partitioned by ZeRO-3 = {_gib(frozen)} / {dp} + "
                        f"gathered largest layer {_gib(gathered)} per GPU")
        assumptions.append("ZeRO-3 partitions the frozen base as well as the adapters' states")
    else:
        formulas.append(f"frozen base weights ({base_fmt}) = {_gib(base)} per GPU")
    if w.zero:
        if w.zero < 3:
            assumptions.append(f"ZeRO-{w.zero} partitions only the trainable parameters' states; the frozen "
                               "base is replicated on every GPU")
        opt_b /= dp if w.zero >= 1 else 1
        grads_b /= dp if w.zero >= 2 else 1
    return _States(weights_b, grads_b, opt_b, Breakdown(), trainable, layers_with_grad, formulas, assumptions)


def _fsdp_adapter(model: ModelSpec, w: Workload, fmt: str, dp: int) -> _States:
    """(Q)LoRA under FSDP FULL_SHARD (advisor.estimator.fsdp_adapter: Answer.AI's fsdp_qlora layout)."""
    # start-up: loaded only for an FSDP adapter estimate
    from advisor.estimator.fsdp_adapter import fsdp_adapter_states

    f = fsdp_adapter_states(model, w, fmt, dp)
    return _States(f.weights, f.gradients, f.optimizer, f.cpu, f.trainable, None, f.formulas, f.assumptions)


def _training(model: ModelSpec, w: Workload, gpu: GpuSpec | None, table: EngineTable) -> MemoryEstimate:
    """Per GPU: the engine's model states + activations + engine overhead. HF transformers on one model-parallel
    rank without ZeRO: the peak over the phases of a step with the caching allocator's reserve (hf_training);
    DeepSpeed, FSDP2 and Megatron: their model-state accounting + the stored activations at the loss peak."""
    engine_id, engine = _training_engine(w, table)
    counts = param_counts(model)
    tp, pp = w.tp, w.pp
    dp = w.world_size // (tp * pp)
    task = w.task
    fmt = check_format(w.weights or DEFAULT_WEIGHTS[task]).name
    flash, flash_note = _flash(w, gpu, engine)
    if engine_id == "transformers" and tp * pp == 1 and w.zero == 0:
        return _hf_training(model, w, engine, fmt, flash, flash_note)
    assumptions: list[str] = []

    # parameters on one model-parallel rank (bf16 bytes / 2 gives the sharded count)
    shard = weight_bytes(model, "bf16", tp=tp, pp=pp) / 2 if tp * pp > 1 else counts.total
    largest = tm.largest_layer_params(model) / tp

    recompute = w.recompute or ("selective" if task == "pretrain" else "full")
    if w.recompute is None:
        assumptions.append("gradient checkpointing on (full recompute, HF gradient_checkpointing) for fine-tuning"
                           if task != "pretrain" else
                           "selective activation recomputation (Megatron default with sequence parallelism)")
    if engine_id == "fsdp" and task in ("lora", "qlora") and tp * pp == 1:
        st = _fsdp_adapter(model, w, fmt, dp)
    elif task in ("full", "pretrain"):
        st = _full_states(model, w, engine_id, fmt, counts.total, shard, largest, dp)
    else:
        st = _adapter_states(model, w, fmt, counts.total, largest, dp)
    formulas = [f"every phase (model states): {line}" for line in st.formulas]
    assumptions += st.assumptions

    assumptions.append(flash_note)
    act_bytes = 4 if fmt == "fp32" else 2
    if act_bytes == 4:
        assumptions.append("fp32 weights without autocast: activations in fp32 (4 bytes)")
    overhead, lines = _engine_overhead(engine, w.world_size > 1)
    if engine_id in ("deepspeed", "fsdp") and tp * pp == 1:  # an HF model under DeepSpeed / FSDP2: its own step
        # start-up: an inference estimate never loads the HF training model (advisor.estimator.hf_training)
        from advisor.estimator.hf_training import hf_wrapped_activations

        activations, reserve, act_lines = hf_wrapped_activations(model, w, reserve_shares(), flash=flash)
        formulas += act_lines
        overhead += int(reserve)
        lines.append(f"allocator reserve {_gib(reserve)}")
    else:
        a = act.training_activations(model, w.context, w.batch, tp=tp, pp=pp, flash=flash, recompute=recompute,
                                     layers_with_grad=st.layers_with_grad, act_bytes=act_bytes)
        activations = a.total
        formulas.append("phase loss backward: " + a.formula + f" = {_gib(a.total)}")
    if tp > 1:
        assumptions.append("sequence parallelism on with tensor parallelism (activations split by TP)")

    formulas.append(f"overhead = {' + '.join(lines)} = {_gib(overhead)}")
    per_gpu = Breakdown(weights=st.weights, gradients=st.gradients, optimizer_states=st.optimizer,
                        activations=activations, overhead=overhead)
    formulas.append(f"total per GPU = {_gib(per_gpu.total)}")
    label = f"{engine.name}{ENGINE_VERSIONS.get(engine_id, '')}"
    if engine_id == "fsdp" and task in ("lora", "qlora") and tp * pp == 1:
        label = "PyTorch FSDP training (followed: Answer.AI fsdp_qlora train.py, FULL_SHARD wrapper, a unit per layer)"
    assumptions.append(f"engine: {label}; micro-batch {w.batch} × "
                       f"{w.context} tokens; {w.world_size} GPU(s): DP {dp} × TP {tp} × PP {pp}; optimizer "
                       f"{w.optimizer}")
    return MemoryEstimate(
        model=model.id, task=task, params=counts.total, active_params=counts.active,
        trainable_params=int(st.trainable), gpus=w.world_size, per_gpu=per_gpu, cpu=st.cpu, formulas=formulas,
        assumptions=assumptions, engine=engine_id,
    )


def _hf_training(model: ModelSpec, w: Workload, engine: EngineProfile, fmt: str, flash: bool,
                 flash_note: str) -> MemoryEstimate:
    """HF transformers / PEFT on one GPU (or DDP replicas): the phase peak of hf_training.hf_training."""
    # start-up: an inference estimate never loads the HF training model (advisor.estimator.hf_training)
    from advisor.estimator.hf_training import hf_training

    counts = param_counts(model)
    hf = hf_training(model, w, fmt, reserve_shares(), flash=flash)
    peak = hf.step.peak
    context, lines = _engine_overhead(engine, w.world_size > 1)
    overhead = context + hf.reserve + hf.workspace
    formulas = [*hf.formulas,
                f"overhead = {' + '.join(lines)} + allocator reserve {_gib(hf.reserve)} + cuBLAS workspaces "
                f"{_gib(hf.workspace)} = {_gib(overhead)}"]
    per_gpu = Breakdown(weights=peak.weights, gradients=peak.gradients, optimizer_states=peak.optimizer,
                        activations=peak.activations, overhead=overhead)
    formulas.append(f"total per GPU = peak phase ({peak.name}) + overhead = {_gib(per_gpu.total)}")
    dp = w.world_size
    assumptions = [*hf.assumptions, flash_note, f"optimizer {w.optimizer}: the fused PyTorch implementation",
                   f"engine: {engine.name}{ENGINE_VERSIONS['transformers']}; micro-batch {w.batch} × {w.context} "
                   f"tokens; {dp} GPU(s): DP {dp} × TP 1 × PP 1; optimizer {w.optimizer}"]
    return MemoryEstimate(
        model=model.id, task=w.task, params=counts.total, active_params=counts.active,
        trainable_params=hf.trainable, gpus=w.world_size, per_gpu=per_gpu, formulas=formulas,
        assumptions=assumptions, engine="transformers",
    )


def _offload(model: ModelSpec, w: Workload, total: int, shard: float, largest: float, dp: int,
             formulas: list[str]) -> tuple[float, float, float, Breakdown]:
    """GPU model states and per-node CPU bytes under DeepSpeed offload (its estimator's formulas)."""
    gpus_per_node, nodes = w.gpus, w.nodes
    weights_b: float
    if w.zero in (1, 2):
        gpu, cpu_total = tm.deepspeed_zero2(shard, gpus_per_node, nodes, offload_optimizer=True)
        weights_b, grads_b, opt_b = gpu, 0.0, 0.0
        formulas.append(f"ZeRO-{w.zero} + optimizer offload (DeepSpeed estimator): GPU 2Ψ = {_gib(gpu)}; "
                        f"CPU Ψ·max(4·GPUs, 16)·1.5 = {_gib(cpu_total)} per node")
        state = 16 * shard / nodes
    else:
        params_off = w.offload == "all"
        gpu, cpu_total = tm.deepspeed_zero3(shard, largest, gpus_per_node, nodes, offload_params=params_off,
                                            offload_optimizer=True, zero_init=True)
        gather = 4 * largest
        weights_b = gather / 2 + (0 if params_off else 2 * shard / (gpus_per_node * nodes))
        grads_b = gather / 2
        opt_b = 0.0
        formulas.append(f"ZeRO-3 + {'parameter and ' if params_off else ''}optimizer offload (DeepSpeed estimator): "
                        f"GPU 4·largest layer{'' if params_off else ' + 2Ψ/N'} = {_gib(gpu)}; "
                        f"CPU Ψ·{18 if params_off else 16}/nodes·1.5 = {_gib(cpu_total)} per node (zero.Init)")
        state = (18 if params_off else 16) * shard / nodes
    # split the per-node CPU figure: fp32 grads 4, master+moments 12, 16-bit params 2 (param offload), buffers rest
    grads_c = 4 * shard / nodes
    opt_c = 12 * shard / nodes
    weights_c = state - grads_c - opt_c
    cpu = Breakdown(weights=weights_c, gradients=grads_c, optimizer_states=opt_c, overhead=cpu_total - state)
    return weights_b, grads_b, opt_b, cpu


def fit_summary(estimate: MemoryEstimate, gpu: GpuSpec) -> dict[str, Any]:
    """Fit of `estimate` on `gpu` as the contract writes it: capacity, usable bytes, headroom (integers)."""
    return {
        "gpu": gpu.id,
        "capacity_bytes": gpu.memory_bytes,
        "usable_bytes": estimate.usable_bytes(gpu).n,
        "headroom_bytes": estimate.headroom_bytes(gpu).n,
        "fits": estimate.fits(gpu),
    }
