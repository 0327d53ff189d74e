"""Preference training as TRL runs it, on top of a training estimate: chosen + rejected sequences and the frozen
reference model.

* Pairs [trl-dpo-trainer]: DPO (and IPO, a DPOTrainer loss), ORPO and SimPO put each prompt's chosen and rejected
  completions in one batch ([chosen, rejected]), so a micro-batch of b prompts runs 2b sequences through the model:
  activations and loss buffers are those of 2b sequences. KTO's examples are unpaired (one sequence each).
* Reference model [trl-dpo-trainer]: DPOTrainer (DPO, IPO) and KTO load a second copy of the model from the same
  checkpoint, unless the policy is a PEFT model (LoRA/QLoRA: the reference is the base with the adapter disabled,
  no copy) or ``precompute_ref_log_probs`` is set; ORPO and SimPO have no reference. TRL prepares the copy
  [trl-prepare-reference]: under ZeRO-3 sharded like the policy (16-bit bytes / N + the gathered largest layer,
  2 B × its params), under ZeRO-0/1/2 and DDP whole on every GPU (ZeRO disabled for it), under FSDP2 one
  ``fully_shard`` unit for the whole model, so its forward gathers all of it: whole per GPU at that moment.
  Its forward also makes bf16 logits for every token, 2 B × tokens × vocabulary, while the policy's activations
  are kept; both are counted in the ``reference_model`` part.
"""

from __future__ import annotations

from advisor.estimator import training_memory as tm
from advisor.estimator.formats import weight_bytes
from advisor.estimator.results import Breakdown, MemoryEstimate
from advisor.workload import Workload
from knowledge.quantities import memory_text
from knowledge.schemas import ModelSpec
from knowledge.structs import replace

PAIRED = frozenset({"dpo", "ipo", "orpo", "simpo"})
WITH_REFERENCE = frozenset({"dpo", "ipo", "kto"})


def compute_factor(w: Workload) -> float:
    """The compute of a preference step over the same training tokens as supervised fine-tuning: each example's
    sequences through the policy (2 for a pair) plus the frozen reference's forward over them (DPO, IPO, KTO):
        factor = sequences × (1 + 2N / f),  f = 6N trained per token in full, 4N for LoRA/QLoRA (no weight gradients)
    DPO in full 2 × (1 + 1/3) = 2.67, DPO with LoRA 2 × 1.5 = 3, ORPO/SimPO 2, KTO 1.33; 1 for supervised training."""
    if not w.is_training or w.method == "sft":
        return 1.0
    seqs = float(sequences_per_prompt(w))
    ref = (2.0 / (4.0 if w.task in ("lora", "qlora") else 6.0)) if w.method in WITH_REFERENCE else 0.0
    return seqs * (1.0 + ref)


def sequences_per_prompt(w: Workload) -> int:
    """2 for the paired methods (chosen + rejected), else 1."""
    return 2 if w.method in PAIRED else 1


def sequences_workload(w: Workload) -> Workload:
    """The workload whose micro-batch is the sequences that run together: 2b for b prompts of a paired method."""
    return replace(w, batch=w.batch * 2) if w.method in PAIRED and w.is_training else w


def needs_reference_copy(w: Workload) -> bool:
    """A method with a reference model, trained without a PEFT adapter (full, pre-training or freeze-tuning)."""
    return w.is_training and w.method in WITH_REFERENCE and w.task not in ("lora", "qlora")


def reference_bytes(m: ModelSpec, w: Workload, engine: str | None, fmt: str) -> tuple[float, str]:
    """Per-GPU bytes of the reference model (weights as TRL prepares them + its forward's bf16 logits) and the
    formula line; (0, "") when the method keeps no copy."""
    if not needs_reference_copy(w):
        return 0.0, ""
    ref_fmt = "fp32" if fmt == "fp32" else "bf16"
    whole = weight_bytes(m, ref_fmt, tp=w.tp, pp=w.pp)
    dp = w.world_size // (w.tp * w.pp)
    if engine == "deepspeed" and w.zero == 3 and dp > 1:
        gathered = 2 * tm.largest_layer_params(m) / w.tp
        weights = whole / dp + gathered
        how = f"ZeRO-3 shards it like the policy: {memory_text(whole, 'GiB', 2)} / {dp} + gathered largest layer"
    elif engine == "fsdp" and dp > 1:
        weights = whole
        how = "FSDP2: TRL wraps it as one fully_shard unit, so its forward gathers the whole copy"
    else:
        weights = whole
        how = "whole on every GPU (TRL runs it with ZeRO disabled below stage 3)"
    tokens = w.context * w.batch * sequences_per_prompt(w)
    logits = 2.0 * tokens * m.vocab_size / w.tp
    total = weights + logits
    line = (f"reference model ({w.method.upper()}, frozen copy, {ref_fmt}) = {memory_text(weights, 'GiB', 2)} ({how}) "
            f"+ its forward's bf16 logits 2 B × {tokens} tokens × {m.vocab_size} vocab = "
            f"{memory_text(total, 'GiB', 2)}")
    return total, line


def with_preference(est: MemoryEstimate, m: ModelSpec, w: Workload, fmt: str) -> MemoryEstimate:
    """`est` (sized for the sequences that run together) with the reference model added as its own part and the
    method's assumptions."""
    if not w.is_training or w.method == "sft":
        return est
    notes: list[str] = []
    lines: list[str] = []
    if w.method in PAIRED:
        notes.append(f"{w.method.upper()}: chosen and rejected completions run together (TRL concatenates them), "
                     f"so micro-batch {w.batch} prompt(s) × {w.context} tokens is {2 * w.batch} sequences")
    ref, line = reference_bytes(m, w, est.engine, fmt)
    if ref:
        lines.append(line)
        notes.append(f"{w.method.upper()} keeps a frozen reference model (TRL DPOTrainer/KTOTrainer without a PEFT "
                     "adapter): a second copy of the weights; precompute_ref_log_probs=True or LoRA avoids it")
    elif w.method in WITH_REFERENCE:
        notes.append(f"{w.method.upper()} with {w.task}: the reference is the base model with the adapter disabled "
                     "(TRL with PEFT), no second copy")
    elif w.method in PAIRED:
        notes.append(f"{w.method.upper()} needs no reference model")
    per: dict[str, float] = {k: float(v.n) for k, v in est.per_gpu.parts().items()}
    per["reference_model"] += ref
    breakdown = Breakdown(**per)
    formulas = [*est.formulas, *lines]
    if ref:
        formulas.append(f"total per GPU with the reference model = {memory_text(breakdown.total.n, 'GiB', 2)}")
    return replace(est, per_gpu=breakdown, formulas=formulas, assumptions=[*est.assumptions, *notes])
