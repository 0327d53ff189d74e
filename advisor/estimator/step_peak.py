"""What is live when, in one Hugging Face training step: the peak over the phases of a step, not a sum of parts.

A step of the HF Trainer / PEFT (and of ``shared/tools/device_measure.py``) is forward → loss → backward →
optimizer step → ``zero_grad(set_to_none=True)``. Bytes live in each phase [hf-causal-lm-loss, peft-lora-forward,
hf-llama-rmsnorm, torch-autocast, torch-checkpoint]:

* end of forward: weights + optimizer states (from step 2 on) + autocast's bf16 weight copies (its cache holds them
  until the autocast region exits) + the tensors every layer saved for backward + the loss buffers of the forward
  (bf16 logits, their fp32 upcast, log_softmax's fp32 output: 10 B per token per vocabulary entry);
* loss backward: the bf16 logits and the fp32 upcast are gone, NLL's fp32 gradient and log_softmax's fp32 input
  gradient are added: three fp32 ``tokens × vocabulary`` buffers (12 B); no weight gradient exists yet;
* backward with checkpointing: the layer inputs, one layer recomputed with its gradient temporaries, the lm_head's
  gradient;
* end of backward / optimizer step: weights + gradients + optimizer states (fused AdamW updates in place).

Per layer and token, the tensors saved for backward (h hidden, q/kv attention widths, f MLP width, a heads), read
from the modelling code: RMSNorm upcasts its input to fp32 and keeps it (4h) and keeps its normalised output for its
weight's gradient (in the weight's dtype); SDPA (flash / memory-efficient) keeps q, k, v, its output and a fp32
log-sum-exp; SwiGLU keeps gate, act(gate), up and their product (8f in bf16). Under ``torch.autocast`` with fp32
master weights the residual stream is fp32 and every projection casts its fp32 input to bf16 itself (q, k, v each
keep a copy). PEFT's LoRA ``Linear.forward`` casts its input to the adapter dtype (``_cast_input_dtype``): fp32
adapters keep a fp32 copy of every adapted layer's input, one per adapter; a frozen base keeps no input of its own.
With gradient checkpointing (non-reentrant, per decoder layer) a layer keeps only its input (fp32 under autocast).
"""

from __future__ import annotations

from typing import Literal

from knowledge.quantities import GIB
from knowledge.schemas import ModelSpec
from knowledge.structs import Value

Regime = Literal["mixed", "bf16", "fp32", "adapter"]
LOSS_FORWARD_BYTES = {"bf16": 2 + 4 + 4, "fp32": 4 + 4}  # per token × vocab: logits, fp32 upcast, log_softmax out
LOSS_BACKWARD_BYTES = 4 + 4 + 4  # log_softmax output, NLL gradient, log_softmax input gradient (all fp32)


def _widths(m: ModelSpec) -> tuple[int, int, int, int, int]:
    """(h, q, kv, f, a): hidden, query width, key (= value) width, MLP width per token as computed, heads."""
    h, a = m.hidden_size, m.num_attention_heads
    if m.is_mla:
        q = a * ((m.qk_nope_head_dim or 0) + (m.qk_rope_head_dim or 0))
        kv = q
    else:
        q, kv = a * m.head_dim, m.num_kv_heads * m.head_dim
    if m.is_moe:
        f = (m.moe_intermediate_size or m.intermediate_size) * (m.experts_per_token + m.n_shared_experts)
    else:
        f = m.intermediate_size
    return h, q, kv, f, a


def _fused_qkv(m: ModelSpec) -> bool:
    return m.block in ("gpt", "bloom", "chatglm")


def layer_saved_per_token(m: ModelSpec, regime: Regime, *, adapter_bytes: int = 4, targets: str = "all-linear",
                          eager_scores_len: int = 0) -> float:
    """Bytes one decoder layer keeps for backward per token (no checkpointing), by precision regime.

    mixed (fp32 weights, bf16 autocast): norms 2·(4h + 4h), bf16 casts of the normed input per projection reading
    it (q, k, v, gate, up: 5·2h), SDPA 2(q + 2kv) + 2q + 4a, SwiGLU 8f.
    bf16 (pure 16-bit, all trainable): norms 2·(4h + 2h), SDPA, SwiGLU 8f.
    fp32 (no autocast): norms 2·(4h + 4h), SDPA 4(q + 2kv) + 4q + 4a, SwiGLU 16f.
    adapter (frozen 16-bit base, LoRA): norms 2·4h (no weight gradient), SDPA, SwiGLU 6f (the down projection is
    frozen), + each adapted projection's input in the adapter dtype (one copy per adapter when it casts).
    ``eager_scores_len`` > 0: attention without a fused kernel keeps a·s scores (bf16) and softmax (bf16) per token.
    """
    h, q, kv, f, a = _widths(m)
    gated = m.gated_mlp
    mlp_tensors = 4 if gated else 2
    reads = (1, 1) if _fused_qkv(m) else (3, 2 if gated else 1)  # projections reading the attention / MLP input
    if regime == "fp32":
        norms = 2 * (4 * h + 4 * h)
        attn = 4 * (q + 2 * kv) + 4 * q + 4 * a
        mlp = 4 * mlp_tensors * f
        casts = 0.0
    else:
        attn = 2 * (q + 2 * kv) + 2 * q + 4 * a
        if regime == "mixed":
            norms, mlp, casts = 2 * (4 * h + 4 * h), 2 * mlp_tensors * f, 2 * h * sum(reads)
        elif regime == "bf16":
            norms, mlp, casts = 2 * (4 * h + 2 * h), 2 * mlp_tensors * f, 0
        else:
            norms, mlp, casts = 2 * 4 * h, 2 * (mlp_tensors - 1) * f, 0
    if eager_scores_len:
        attn += a * eager_scores_len * (2 + 2)
    if m.is_moe:
        attn += 2 * h * m.experts_per_token + 4 * m.n_routed_experts  # token copies to experts, fp32 router logits
    extra = 0.0
    if regime == "adapter":
        extra = adapter_input_per_token(m, adapter_bytes, targets)
    return norms + attn + mlp + casts + extra


def adapter_input_per_token(m: ModelSpec, adapter_bytes: int, targets: str) -> float:
    """LoRA's kept inputs per token and layer: fp32 adapters cast their input, each its own copy
    (adapter_bytes × Σ d_in over adapted projections); 16-bit adapters keep the shared bf16 input once per
    distinct input tensor."""
    h, q, _kv, f, _a = _widths(m)
    if adapter_bytes == 2:
        distinct = [h, q] + ([h, f] if targets == "all-linear" else [])
        return 2 * sum(distinct)
    attn_in = [h] * (1 if _fused_qkv(m) else 3) + [q]
    mlp_in = ([h] * (2 if m.gated_mlp else 1) + [f]) if targets == "all-linear" else []
    return adapter_bytes * sum(attn_in + mlp_in)


def layer_input_per_token(m: ModelSpec, regime: Regime) -> int:
    """What a checkpointed layer keeps: its input, fp32 under autocast (fp32 residual stream) and in fp32."""
    return (4 if regime in ("mixed", "fp32") else 2) * m.hidden_size


def head_saved_per_token(m: ModelSpec, regime: Regime) -> int:
    """The final norm's kept tensors and the lm_head's input (autocast's bf16 cast under mixed precision)."""
    h = m.hidden_size
    return {"mixed": 4 * h + 4 * h + 2 * h, "bf16": 4 * h + 2 * h, "fp32": 4 * h + 4 * h, "adapter": 4 * h}[regime]


def backward_working_per_token(m: ModelSpec, regime: Regime) -> float:
    """Gradient temporaries of one layer's backward: the residual-stream gradient and the input gradient (fp32
    under autocast), and three gradients of MLP width (SwiGLU's gate, up and product)."""
    h, _q, _kv, f, _a = _widths(m)
    g = 4 if regime in ("mixed", "fp32") else 2
    return 2 * g * h + 3 * (4 if regime == "fp32" else 2) * f


class StepStates(Value):
    """Model-state bytes on the GPU that the phases combine."""

    weights: float  # resident parameters (frozen base, adapters, or all weights in their dtype)
    gradients: float  # all gradients at the end of backward
    optimizer: float  # optimizer states (allocated at the first optimizer step, live from step 2 on)
    cast_copies: float = 0.0  # autocast's bf16 copies of every linear weight (mixed precision)
    head_cast: float = 0.0  # the lm_head's bf16 copy, kept by its backward (mixed precision)
    head_grad: float = 0.0  # the lm_head's gradient, the first one backward makes
    tied_grad_temp: float = 0.0  # a tied embedding's second gradient before it is added into the first


class Phase(Value):
    name: str
    weights: float
    gradients: float
    optimizer: float
    activations: float  # saved tensors + loss buffers + working set at this phase
    note: str

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations


class StepPeak(Value):
    phases: list[Phase]
    peak: Phase
    loss_forward: float  # bytes of the loss buffers at the end of forward
    loss_backward: float  # ... at the loss-backward peak
    largest_transient: float  # the largest single transient buffer (one fp32 tokens × vocab tensor)
    layer_working: float  # one layer's recomputed activations + backward temporaries
    stored: float  # tensors kept for backward at the end of forward (all layers + the head)

    def lines(self) -> list[str]:
        out = []
        for p in self.phases:
            mark = " ← peak" if p is self.peak else ""
            out.append(f"phase {p.name}: {_gib(p.total)} = weights {_gib(p.weights)} + gradients "
                       f"{_gib(p.gradients)} + optimizer {_gib(p.optimizer)} + activations {_gib(p.activations)} "
                       f"({p.note}){mark}")
        return out


def step_phases(m: ModelSpec, states: StepStates, *, tokens: int, regime: Regime, checkpointing: bool,
                trained_layers: int | None = None, adapter_bytes: int = 4, targets: str = "all-linear",
                eager_scores_len: int = 0, accumulating: bool = False, ddp: bool = False) -> StepPeak:
    """Live bytes in each phase of one step for a micro-batch of `tokens` (= micro-batch × sequence), and the peak.

    ``trained_layers``: layers that keep activations (freeze-tuning: only the trainable top blocks).
    ``accumulating``: gradient accumulation, the previous micro-batches' gradients are live in every phase.
    ``ddp``: DistributedDataParallel's gradient buckets (a second copy of the gradients, allocated at wrap time
    with the default gradient_as_bucket_view=False) are live in every phase.
    """
    L = m.num_layers if trained_layers is None else min(trained_layers, m.num_layers)
    T, V = tokens, m.vocab_size
    per_layer = layer_saved_per_token(m, regime, adapter_bytes=adapter_bytes, targets=targets,
                                      eager_scores_len=eager_scores_len) * T
    kept_layer = layer_input_per_token(m, regime) * T if checkpointing else per_layer
    stored = kept_layer * L + head_saved_per_token(m, regime) * T
    logits_kind = "fp32" if regime == "fp32" else "bf16"
    loss_fwd = LOSS_FORWARD_BYTES[logits_kind] * T * V
    loss_bwd = LOSS_BACKWARD_BYTES * T * V
    working = backward_working_per_token(m, regime) * T
    W, Opt, G = states.weights, states.optimizer, states.gradients
    held = (G if accumulating else 0.0) + (G if ddp else 0.0)  # gradients live before backward makes them
    after = G if ddp else 0.0
    casts_kept = states.head_cast if checkpointing else states.cast_copies
    what = "layer inputs (checkpointing)" if checkpointing else "every layer's saved tensors"
    phases = [
        Phase("end of forward", W + states.cast_copies, held, Opt, stored + loss_fwd,
              f"{what} + logits, their fp32 upcast and log_softmax: {LOSS_FORWARD_BYTES[logits_kind]} B × tokens × "
              "vocab" + ("; autocast's bf16 weight copies" if states.cast_copies else "")),
        Phase("loss backward", W + casts_kept, held, Opt, stored + loss_bwd,
              "three fp32 tokens × vocab buffers (log_softmax output, NLL and log_softmax gradients); "
              "no weight gradient yet"),
    ]
    if checkpointing:
        phases.append(Phase("backward of the last layer", W, max(held, states.head_grad + after), Opt,
                            stored - kept_layer + per_layer + working,
                            "layer inputs + one layer recomputed + its gradient temporaries"))
    else:
        phases.append(Phase("backward of the last layer", W + casts_kept, max(held, states.head_grad + after), Opt,
                            stored + working, "saved tensors + the lm_head's gradient + gradient temporaries"))
    phases.append(Phase("end of backward", W, G + after + states.tied_grad_temp, Opt, working,
                        "all gradients" + (" + the tied embedding's second gradient" if states.tied_grad_temp
                                           else "")))
    phases.append(Phase("optimizer step", W, G + after, Opt, 0.0, "fused AdamW updates in place"))
    peak = max(phases, key=lambda p: p.total)
    return StepPeak(phases=phases, peak=peak, loss_forward=loss_fwd, loss_backward=loss_bwd,
                    largest_transient=4.0 * T * V, layer_working=per_layer + working, stored=stored)


def _gib(x: float) -> str:
    return f"{x / GIB:.2f} GiB"
