"""A ready-to-use command or config line for an option's layout: `vllm serve` or `llama-server` for serving,
LLaMA-Factory (with its DeepSpeed configs) for fine-tuning, Megatron-LM for the planner's layouts.
"""

from __future__ import annotations

from advisor.recommend import training_advice
from advisor.recommend.search import Layout, Search, engine_for, precision
from advisor.workload import Workload
from knowledge.schemas import GpuSpec, ModelSpec, QuantCheckpoint

VLLM_QUANTIZATION = {"awq-int4": "awq", "gptq-int4": "gptq", "gptq-int8": "gptq", "fp8": "fp8",
                     "bnb-int8": "bitsandbytes", "nf4": "bitsandbytes"}  # weight format → vLLM --quantization
GGUF_TYPE = {"bf16": "BF16", "fp16": "F16", "fp32": "F32"}  # a 16-bit GGUF's file type (llama.cpp's names)
FINETUNING_TYPE = {"lora": "lora", "qlora": "lora", "freeze": "freeze", "full": "full", "pretrain": "full"}


def launch_hint(search: Search, gpu: GpuSpec, w: Workload, layout: Layout) -> str:
    """A ready-to-use command or config line for the layout (vLLM, DeepSpeed, LLaMA-Factory, Megatron-LM)."""
    if layout.plan is not None:
        return training_advice.launch_hint(layout.plan)
    if not w.is_training:
        return _serving_hint(search.model, gpu, w, layout)
    return _training_hint(search.model, gpu, w, layout)


def _serving_hint(m: ModelSpec, gpu: GpuSpec, w: Workload, layout: Layout) -> str:
    """`llama-server` for a GGUF format or a card only llama.cpp serves (Apple silicon), else `vllm serve` on the instruction-tuned (or quantised) checkpoint: one
    replica's command (`w` is sized for one replica: its share of the users), × the replicas behind a load balancer."""
    repo = m.hf_repo_chat or m.hf_repo or m.id  # a chat service serves the instruction-tuned checkpoint
    fmt = "awq-int4" if w.weights == "int4" else w.weights or ""  # generic 4-bit: the AWQ checkpoint
    quant = VLLM_QUANTIZATION.get(fmt, "")
    ckpt = quantized_checkpoint(m, fmt)
    gguf = fmt.startswith("q") or engine_for(gpu, w) == "llama.cpp"  # a Mac serves BF16 as a GGUF too
    if gguf:
        split = f" --tensor-split {','.join(['1'] * layout.tp)}" if layout.tp > 1 else ""  # one copy's GPUs
        name = GGUF_TYPE.get(fmt, fmt.upper() or "BF16")
        model_arg = f"-hf {ckpt.repo}:{name}" if ckpt else f"-m <{name} GGUF of {repo}>"
        copies = f" (× {layout.dp} replicas behind a load balancer)" if layout.dp > 1 else ""
        return (f"llama-server {model_arg} -c {w.context} -ngl 999 "
                f"--parallel {w.concurrency}{split}{copies}")
    if quant in ("awq", "gptq"):
        repo = ckpt.repo if ckpt else f"<{fmt.upper()} checkpoint of {repo}>"
    if gpu.stack == "cann" and (fmt or precision(w, m)) in ("fp8", "int8", "gptq-int8", "bnb-int8"):
        # (an FP8 checkpoint served as it is, DeepSeek-V3's, is one too)
        # Ascend has no FP8: 8-bit weights are a W8A8 INT8 checkpoint made with msModelSlim, served by vllm-ascend's
        # own quantisation method (rules-vllm-ascend-quant)
        quant, repo = "ascend", f"<W8A8 checkpoint of {repo} (msModelSlim)>"
    elif gpu.stack == "cann" and quant in ("awq", "gptq"):
        # 4-bit on Ascend: not AWQ/GPTQ kernels but msModelSlim's W4A8 weights under the same method
        quant, repo = "ascend", f"<W4A8 checkpoint of {m.hf_repo_chat or m.hf_repo or m.id} (msModelSlim)>"
    if layout.attention_dp:
        return _dp_attention_hint(repo, w, layout)
    parts = [f"vllm serve {repo}", f"--tensor-parallel-size {layout.tp}"]
    if layout.pp > 1:
        parts.append(f"--pipeline-parallel-size {layout.pp}")
    parts += [f"--max-model-len {w.context}", f"--max-num-seqs {w.concurrency}"]  # `w`: one replica's share
    if quant:
        parts.append(f"--quantization {quant}")
    elif not gpu.supports_bf16 and precision(w, m) == "fp16":
        parts.append("--dtype half")
    if w.kv in ("fp8", "int8"):
        parts.append("--kv-cache-dtype fp8")
    if layout.dp > 1:
        parts.append(f"(× {layout.dp} replicas behind a load balancer)")
    return " ".join(parts)


def _dp_attention_hint(repo: str, w: Workload, layout: Layout) -> str:
    """One copy of an MLA model with attention data-parallel over its GPUs: SGLang's --enable-dp-attention with
    --dp equal to --tp [sglang-dp-attention]; vLLM's data-parallel ranks with the experts split over them
    (--enable-expert-parallel), where --max-num-seqs is per rank [vllm-data-parallel]."""
    n = layout.tp
    copies = f" (× {layout.dp} replicas behind a load balancer)" if layout.dp > 1 else ""
    kv = " --kv-cache-dtype fp8_e4m3" if w.kv in ("fp8", "int8") else ""
    if w.engine == "sglang":
        return (f"python -m sglang.launch_server --model-path {repo} --tp {n} --dp {n} --enable-dp-attention "
                f"--context-length {w.context} --max-running-requests {w.concurrency}{kv}{copies}")
    per_rank = -(-w.concurrency // n)
    kv = " --kv-cache-dtype fp8" if w.kv in ("fp8", "int8") else ""
    return (f"vllm serve {repo} --data-parallel-size {n} --enable-expert-parallel --max-model-len {w.context} "
            f"--max-num-seqs {per_rank}{kv}{copies}")


def _training_hint(m: ModelSpec, gpu: GpuSpec, w: Workload, layout: Layout) -> str:
    """`llamafactory-cli train` on the base checkpoint, with the DeepSpeed config of the layout's ZeRO stage."""
    repo = m.hf_repo or m.id
    bits = " quantization_bit=4" if w.task == "qlora" else ""
    stage = "pt" if w.task == "pretrain" else "sft"
    ds = ""
    if layout.count > 1 or layout.zero:
        off = "_offload" if layout.offload != "none" else ""
        ds = f" deepspeed=examples/deepspeed/ds_z{layout.zero}{off}_config.json"
    launcher = f"FORCE_TORCHRUN=1 NNODES={layout.nodes} " if layout.nodes > 1 else ""
    return (f"{launcher}llamafactory-cli train stage={stage} model_name_or_path={repo} "
            f"finetuning_type={FINETUNING_TYPE[w.task]}{bits}{ds} cutoff_len={w.context} "
            f"per_device_train_batch_size={w.batch} bf16={'true' if gpu.supports_bf16 else 'false'} "
            "gradient_checkpointing=true")


def quantized_checkpoint(model: ModelSpec, fmt: str) -> QuantCheckpoint | None:
    """The catalog's published checkpoint of `model` in weight format `fmt` (knowledge ModelSpec.quantized, cited),
    or None."""
    return next((q for q in model.quantized if q.format == fmt), None)
