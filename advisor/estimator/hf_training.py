"""Training memory as Hugging Face transformers + PEFT (the HF Trainer, LLaMA-Factory) allocate it on one GPU.

Model states by task, in the bytes the runtime holds [hf-model-memory-anatomy, peft-lora-forward]:

* full fine-tuning in mixed precision (the Trainer's ``bf16=True``; LLaMA-Factory upcasts trainable weights to
  fp32): fp32 weights 4 B, fp32 gradients 4 B, AdamW moments 8 B, and autocast's bf16 weight copies 2 B — the
  18 B/param the HF docs count; the copies live from forward to each linear's backward, the gradients from
  backward on, so they are counted in the phases where they are live (forward 4 + 2 + 8, end of backward
  4 + 4 + 8), and all 18 together with gradient accumulation (the gradients of the previous micro-batch stay);
* pure bf16 (``--optimizer adamw-bf16``): weights, gradients and AdamW moments in bf16, 2 + 2 + 4 B;
* fp32 weights without autocast: 4 + 4 + 8 B;
* LoRA: the frozen base in its format, fp32 adapters (PEFT ``autocast_adapter_dtype=True``) with fp32 gradients
  and AdamW moments; QLoRA: NF4 base, 16-bit adapters, 32-bit optimizer states; freeze-tuning: the last 2 blocks
  in fp32 under autocast, the rest frozen in 16-bit.

Activations and the loss buffers per phase come from :mod:`advisor.estimator.step_peak`; the allocator's reserve
from :mod:`advisor.estimator.allocator`; the peak is taken over the phases, not summed.
"""

from __future__ import annotations

from advisor.estimator import training_memory as tm
from advisor.estimator.allocator import ReserveShares, reserve_shares, training_reserve  # noqa: F401 - re-exported
from advisor.estimator.engines import ENGINE_VERSIONS  # noqa: F401 - re-exported
from advisor.estimator.formats import weight_bytes
from advisor.estimator.step_peak import Regime, StepPeak, StepStates, step_phases
from advisor.workload import Workload
from knowledge.params import param_counts
from knowledge.quantities import GIB
from knowledge.schemas import ModelSpec
from knowledge.structs import Value


class HfTraining(Value):
    step: StepPeak
    reserve: float
    workspace: float
    trainable: int
    formulas: list[str]
    assumptions: list[str]


def _linear_params(m: ModelSpec) -> int:
    """Parameters of the weights a linear layer multiplies (autocast casts each to bf16): all but the norms and,
    when the lm_head is untied, the embedding (a lookup, not autocast)."""
    c = param_counts(m)
    emb = 0 if m.tie_word_embeddings else c.by_group.get("embedding", 0) + c.by_group.get("position", 0)
    return c.total - c.by_group.get("norm", 0) - emb


def hf_states(m: ModelSpec, w: Workload, fmt: str) -> tuple[StepStates, Regime, int, int | None, list[str]]:
    """(states, regime, trainable params, layers keeping activations, assumptions) for the HF engine."""
    counts = param_counts(m)
    N, V, h = counts.total, m.vocab_size, m.hidden_size
    tied = m.tie_word_embeddings
    accum = w.grad_accum > 1
    notes: list[str] = []
    if w.task in ("full", "pretrain"):
        if w.optimizer == "adamw-bf16":
            s = StepStates(weights=2 * N, gradients=2 * N, optimizer=4 * N, head_grad=2 * V * h,
                           tied_grad_temp=2 * V * h if tied else 0)
            notes.append("pure bf16: bf16 weights, gradients and AdamW moments (2 + 2 + 4 B/param)")
            regime: Regime = "bf16"
        else:
            k = tm.OPTIMIZER_K_FP32[w.optimizer]
            fp32 = fmt == "fp32"
            casts = 0 if fp32 else 2 * _linear_params(m)
            s = StepStates(weights=4 * N, gradients=4 * N, optimizer=k * N, cast_copies=casts,
                           head_cast=0 if fp32 else 2 * V * h, head_grad=4 * V * h,
                           tied_grad_temp=4 * V * h if tied else 0)
            regime = "fp32" if fp32 else "mixed"
            notes.append("fp32 weights, gradients and optimizer states, no autocast" if fp32 else
                         f"mixed precision (HF Trainer bf16=True): fp32 weights 4 + fp32 gradients 4 + "
                         f"{w.optimizer} states {k} + autocast's bf16 weight copies 2 = {8 + k + 2} B/param, "
                         "each counted in the phases where it is live")
        trainable, layers = N, None
    elif w.task == "freeze":
        trainable = tm.freeze_params(m)
        base = weight_bytes(m, fmt)
        k = tm.OPTIMIZER_K_FP32[w.optimizer]
        s = StepStates(weights=base + 2 * trainable, gradients=4 * trainable, optimizer=k * trainable,
                       cast_copies=2 * trainable)  # bf16 casts of the fp32 trainable blocks; lm_head stays frozen
        regime, layers = "mixed", tm.FREEZE_TRAINABLE_LAYERS
        notes.append(f"freeze-tuning: the last {tm.FREEZE_TRAINABLE_LAYERS} blocks in fp32 under autocast "
                     "(LLaMA-Factory freeze_trainable_layers=2), the rest frozen in 16-bit and keeping no activations")
    else:
        trainable = tm.lora_params(m, w.lora_rank, w.lora_targets)
        base = weight_bytes(m, fmt)
        k = tm.OPTIMIZER_K_FP32[w.optimizer]
        ab = 2 if w.task == "qlora" else 4
        extra = 0.0
        if w.task == "qlora":
            extra = 2 * max(la.d_in * la.d_out for la in tm.lora_targets(m, "all-linear"))
            notes.append("QLoRA: NF4 base dequantised to bf16 one matrix at a time, bf16 adapters, 32-bit AdamW")
        else:
            notes.append(f"LoRA: frozen {fmt} base, fp32 adapters, gradients and AdamW moments (PEFT "
                         "autocast_adapter_dtype=True); each adapted layer keeps a fp32 copy of its input")
        s = StepStates(weights=base + ab * trainable + extra, gradients=ab * trainable, optimizer=k * trainable)
        regime, layers = "adapter", None
    if accum:
        notes.append(f"gradient accumulation over {w.grad_accum} micro-batches: the gradients stay live through "
                     "the next micro-batch's forward and loss")
    return s, regime, int(trainable), layers, notes


def hf_training(m: ModelSpec, w: Workload, fmt: str, shares: ReserveShares, *, flash: bool) -> HfTraining:
    """Peak over the phases of one step (step_peak) + the caching allocator's reserve (allocator) + cuBLAS
    workspaces, for the HF engine on one GPU (DDP replicas hold the same, plus gradient buckets)."""
    states, regime, trainable, layers, notes = hf_states(m, w, fmt)
    recompute = w.recompute or "full"
    ckpt = recompute == "full"
    if recompute == "selective":
        notes.append("transformers has no selective recomputation: sized without checkpointing")
    tokens = w.context * w.batch
    step = step_phases(m, states, tokens=tokens, regime=regime, checkpointing=ckpt, trained_layers=layers,
                       adapter_bytes=2 if w.task == "qlora" else 4, targets=w.lora_targets,
                       eager_scores_len=0 if flash else w.context, accumulating=w.grad_accum > 1,
                       ddp=w.world_size > 1)
    full = w.task in ("full", "pretrain", "freeze")
    reserve = training_reserve(shares, tokens=tokens, vocab=m.vocab_size, full=full, checkpointing=ckpt,
                               layer_working=step.layer_working, saved_activations=step.stored)
    formulas = step.lines() + [reserve.formula,
                               f"cuBLAS/cuBLASLt workspaces = {shares.cublas_workspace / 2**20:.0f} MiB"]
    notes.append("gradient checkpointing on (non-reentrant, every decoder layer keeps only its input)" if ckpt
                 else "no gradient checkpointing: every layer keeps its saved tensors until its backward")
    notes.append(f"HF causal-LM loss: logits upcast to fp32 and cross_entropy over {m.vocab_size} vocabulary "
                 f"entries for {tokens} tokens per micro-batch")
    notes.append("peak = the largest phase of a step; the reserve is PyTorch's caching allocator "
                 "(reserved − allocated, the figure an out-of-memory error is measured against)")
    return HfTraining(step=step, reserve=reserve.total, workspace=shares.cublas_workspace, trainable=trainable,
                      formulas=formulas, assumptions=notes)


def hf_wrapped_activations(m: ModelSpec, w: Workload, shares: ReserveShares, *,
                           flash: bool) -> tuple[float, float, list[str]]:
    """(activation bytes, allocator reserve, formula lines) of an HF model run by DeepSpeed or FSDP2 (bf16
    modules, no autocast): the largest activation phase of step_peak (the engine's model states, which
    DeepSpeed's estimator counts whole, are added by the caller) and the caching allocator's reserve."""
    regime: Regime = "adapter" if w.task in ("lora", "qlora") else "bf16"
    ckpt = (w.recompute or "full") == "full"
    tokens = w.context * w.batch
    layers = tm.FREEZE_TRAINABLE_LAYERS if w.task == "freeze" else None
    step = step_phases(m, StepStates(weights=0.0, gradients=0.0, optimizer=0.0), tokens=tokens, regime=regime,
                       checkpointing=ckpt, trained_layers=layers, adapter_bytes=2 if w.task == "qlora" else 4,
                       targets=w.lora_targets, eager_scores_len=0 if flash else w.context)
    peak = max(step.phases, key=lambda p: p.activations)
    reserve = training_reserve(shares, tokens=tokens, vocab=m.vocab_size, full=regime == "bf16", checkpointing=ckpt,
                               layer_working=step.layer_working, saved_activations=step.stored)
    lines = [f"phase {peak.name}: activations {peak.activations / GIB:.2f} GiB ({peak.note}; the HF model's own "
             "step in bf16, with the engine's model states)", reserve.formula]
    return peak.activations, reserve.total, lines
