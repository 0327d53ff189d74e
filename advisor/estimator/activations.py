"""Activation memory: training (Korthikanti et al. 2022, adapted) and the prefill workspace of inference.

Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models" (arXiv 2205.05198) count the
bytes one GPT layer stores for backward with 16-bit activations and 1-byte dropout masks:
attention 11sbh + 5as²b, MLP 19sbh, two LayerNorms 4sbh, so sbh(34 + 5as/h) per layer [korthikanti-2022].
The same bookkeeping, tensor by tensor, adapted to the model at hand:

* attention: the QKV input 2sbh; Q, K, V themselves 2sb(q + 2·kv) (GQA/MQA shrink kv; MLA adds its latents);
  the attention output (o_proj input) 2sb·q; the softmax output 2as²b (+ dropout mask and output 3as²b) unless
  FlashAttention, which keeps only the output and a fp32 log-sum-exp (4sba) and recomputes scores in backward.
* MLP: the input 2sbh; GPT/GeLU keeps the GeLU input and output 2·2sbf; SwiGLU keeps gate, up, act(gate) and their
  product 4·2sbf; MoE routes every token to k experts (k copies of the input and k expert MLPs) plus shared experts.
* norms: each keeps its input, 2sbh (RMSNorm and LayerNorm alike; Gemma-2 has four per layer).
* dropout masks sbh after attention and after the MLP for GPT-style blocks (modern LLMs train without dropout).

With h = q = kv, f = 4h, GeLU, dropout and no FlashAttention this is exactly Korthikanti's 34sbh + 5as²b.
Tensor parallelism with sequence parallelism divides everything by t; without sequence parallelism the norm inputs,
the two block inputs and the dropout masks stay replicated (their 10sbh). Recomputation: selective drops the
attention-score terms; full keeps only each layer's input 2sbh (plus one layer's working set during backward).
"""

from __future__ import annotations

from knowledge.schemas import ModelSpec
from knowledge.structs import Value

ACT_BYTES = 2  # bf16/fp16 activations
LOGITS_TRAIN_BYTES_PER_VALUE = 2 + 4 + 4  # bf16 logits, fp32 upcast for the loss, fp32 softmax/grad in backward


class LayerActivations(Value):
    """Bytes one layer stores for backward on one GPU, by part (per micro-batch)."""

    replicated: float  # not split by TP without sequence parallelism
    split: float  # split by TP
    scores: float  # attention-score terms (as²b), split by TP; 0 with FlashAttention

    def per_gpu(self, tp: int, sequence_parallel: bool, recompute: str) -> float:
        scores = 0.0 if recompute == "selective" else self.scores
        rep = self.replicated / tp if sequence_parallel else self.replicated
        return rep + (self.split + scores) / tp


def _dims(m: ModelSpec) -> tuple[int, int, int]:
    """(q width, k width, v width) of the attention projections as materialised in training."""
    if m.is_mla:
        qk = m.num_attention_heads * ((m.qk_nope_head_dim or 0) + (m.qk_rope_head_dim or 0))
        return qk, qk, m.num_attention_heads * (m.v_head_dim or m.head_dim)
    return m.num_attention_heads * m.head_dim, m.num_kv_heads * m.head_dim, m.num_kv_heads * m.head_dim


def layer_activations(m: ModelSpec, s: int, b: int, *, flash: bool, dropout: bool, moe_layer: bool) -> LayerActivations:
    """Per-layer stored activation bytes of `m` at sequence length s and micro-batch b (formula in module doc)."""
    h, a = m.hidden_size, m.num_attention_heads
    sb = s * b
    q, k, v = _dims(m)
    o = a * (m.v_head_dim or m.head_dim) if m.is_mla else q
    rep = ACT_BYTES * sb * h * (2 + m.norms_per_layer)  # attention input, MLP input, norm inputs
    split = ACT_BYTES * sb * (q + k + v) + ACT_BYTES * sb * o
    if m.is_mla:
        split += ACT_BYTES * sb * ((m.q_lora_rank or 0) + (m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0))
    if dropout:
        rep += 2 * sb * h  # 1-byte masks after attention and after the MLP
    if flash:
        split += 4 * sb * a  # fp32 log-sum-exp per head
        scores = 0.0
    else:
        scores = ACT_BYTES * a * s * s * b + (3 * a * s * s * b if dropout else 0)
    per_value_mlp = 4 if m.gated_mlp else 2  # stored tensors of width f
    if moe_layer:
        f = m.moe_intermediate_size or m.intermediate_size
        k_exp = m.experts_per_token
        split += ACT_BYTES * sb * (k_exp * per_value_mlp * f + m.n_shared_experts * per_value_mlp * f)
        split += ACT_BYTES * sb * h * k_exp  # token copies dispatched to the k experts
        split += 4 * sb * m.n_routed_experts  # fp32 router logits
    else:
        split += ACT_BYTES * sb * per_value_mlp * m.intermediate_size
    return LayerActivations(replicated=rep, split=split, scores=scores)


def uses_dropout(m: ModelSpec) -> bool:
    """GPT-2/OPT/BLOOM-style blocks train with dropout; Llama-style models do not."""
    return m.block in ("gpt", "opt", "bloom")


class TrainingActivations(Value):
    stored: int  # layer activations kept for backward on the most loaded GPU
    working: int  # one layer's full activations while it is recomputed / back-propagated (full recompute)
    logits: int
    per_layer: int  # stored bytes of one (average) layer, one micro-batch
    formula: str

    @property
    def total(self) -> int:
        return self.stored + self.working + self.logits


def training_activations(m: ModelSpec, s: int, b: int, *, tp: int = 1, pp: int = 1, sequence_parallel: bool = True,
                         flash: bool = True, recompute: str = "none", layers_with_grad: int | None = None,
                         act_bytes: int = ACT_BYTES) -> TrainingActivations:
    """Activation bytes per GPU for one training step (1F1B pipeline: the first stage holds pp micro-batches of
    L/pp layers, i.e. L layers' worth; the last stage holds the logits)."""
    dropout = uses_dropout(m)
    sp = sequence_parallel and tp > 1
    dense_n = m.num_layers - m.moe_layers
    parts = []
    if dense_n:
        parts.append((dense_n, layer_activations(m, s, b, flash=flash, dropout=dropout, moe_layer=False)))
    if m.moe_layers:
        parts.append((m.moe_layers, layer_activations(m, s, b, flash=flash, dropout=dropout, moe_layer=True)))
    full_mode = "none" if recompute == "full" else recompute
    scale = act_bytes / ACT_BYTES  # fp32 training (no autocast) keeps 4-byte activations
    avg_layer = scale * sum(n * la.per_gpu(tp, sp, full_mode) for n, la in parts) / m.num_layers
    max_layer = scale * max(la.per_gpu(tp, sp, "none") for _, la in parts)
    L = m.num_layers if layers_with_grad is None else min(layers_with_grad, m.num_layers)
    stage_layers = -(-L // pp)
    in_flight = pp  # 1F1B: pp micro-batches in flight on the first stage
    per_layer_kept = act_bytes * s * b * m.hidden_size / (tp if sp else 1)
    if recompute == "full":
        stored = per_layer_kept * stage_layers * in_flight
        working = max_layer
        how = "full recompute: 2sbh per layer (layer input) + one layer's activations while recomputing"
    else:
        stored = avg_layer * stage_layers * in_flight
        working = 0.0
        how = ("selective recompute: attention scores recomputed" if recompute == "selective"
               else "no recompute: every layer keeps its activations")
    logits = s * b * m.vocab_size / tp * (LOGITS_TRAIN_BYTES_PER_VALUE if act_bytes == 2 else 12)
    if pp > 1:  # first stage: pp micro-batches of its layers; last stage: one micro-batch plus the logits
        last_stored = (per_layer_kept if recompute == "full" else avg_layer) * stage_layers
        if stored >= last_stored + logits:
            logits = 0.0
        else:
            stored = last_stored
    formula = (f"activations = {how}; per layer {fmt_gib(avg_layer)} at s={s}, b={b}"
               f"{', TP ' + str(tp) + (' + SP' if sp else '') if tp > 1 else ''}; × {stage_layers} layers"
               f"{' × ' + str(pp) + ' micro-batches in flight' if pp > 1 else ''}"
               f"; logits s·b·V/t·10 B = {fmt_gib(logits)}")
    return TrainingActivations(stored=int(stored), working=int(working), logits=int(logits),
                               per_layer=int(avg_layer), formula=formula)


def korthikanti_layer_bytes(s: int, b: int, h: int, a: int, tp: int = 1, mode: str = "none") -> float:
    """The paper's closed forms (bytes per layer), for checking :func:`layer_activations`:
    none: sbh(10 + 24/t + 5as/(ht)); sp: sbh/t(34 + 5as/h); selective: sbh(10 + 24/t); sp+selective: 34sbh/t;
    full: 2sbh."""
    sbh = s * b * h
    return {
        "none": sbh * (10 + 24 / tp + 5 * a * s / (h * tp)),
        "sp": sbh / tp * (34 + 5 * a * s / h),
        "selective": sbh * (10 + 24 / tp),
        "sp+selective": 34 * sbh / tp,
        "full": 2 * sbh,
    }[mode]


def prefill_workspace_bytes(m: ModelSpec, chunk_tokens: int, context: int, *, tp: int = 1, flash: bool = True,
                            logits_tokens: int = 1) -> int:
    """Transient activations of one inference forward over `chunk_tokens` tokens (no autograd: one layer live).

    2 B × c × (2h + max(q + 2kv + q, k·(3f))) for the residual, the normed input and the larger of the attention
    and MLP temporaries (split by TP), + the eager attention scores a/t·c·ctx·(2 + 4) B (bf16 scores and their
    fp32 softmax) when there is no fused attention, + fp32 logits for `logits_tokens` tokens (logits_tokens·V·4 B).
    """
    h = m.hidden_size
    q, k, v = _dims(m)
    attn = (q + k + v + q) / tp
    if m.is_moe:
        f = (m.moe_intermediate_size or m.intermediate_size) * (m.experts_per_token + m.n_shared_experts)
    else:
        f = m.intermediate_size
    mlp = (3 if m.gated_mlp else 2) * f / tp
    c = chunk_tokens
    act = ACT_BYTES * c * (2 * h + max(attn, mlp))
    if not flash:
        act += m.num_attention_heads / tp * c * context * (2 + 4)
    logits = logits_tokens * m.vocab_size * 4
    return int(act + logits)


def fmt_gib(x: float) -> str:
    return f"{x / 2**30:.3g} GiB"
