"""Per-model constants the speed and training estimators need, computed once per model spec.

* N_matmul: parameters that take part in matrix multiplies = total − token/position embeddings (a lookup, not a
  matmul); with tied embeddings the embedding matrix is the output head and counts once. MoE: the routed experts
  count with k/E of their weights (the active parameters).
* Attention FLOPs per token and layer at context c: QKᵀ and AV each 2·c·d_attn multiply-adds → 4·c·d_attn FLOPs
  over the keys a token attends to (Kaplan et al. 2020, Table 1, "2·n_layer·n_ctx·d_attn" forward MACs;
  PaLM, Chowdhery et al. 2022, App. B, 6N + 12·L·H·Q·T per token for training).

The cache is keyed on object identity (ModelSpec holds a dict and is not hashable); the spec object is kept
alive in the cache so an id is never reused for another spec while its entry exists.
"""

from __future__ import annotations

from knowledge.params import param_counts
from knowledge.schemas import ModelSpec
from knowledge.structs import Value


class ModelFlops(Value):
    total_params: int
    active_params: int
    matmul_params: int  # all matmul weights (MoE: every expert)
    matmul_active: int  # per token (MoE: k of E routed experts)
    embedding_params: int  # token + position embeddings (a gather)
    routed_expert_params: int  # all routed-expert weights
    layers: int
    hidden: int
    d_qk: int  # query/key width summed over heads (n_heads × head_dim; MLA: n_heads × (nope + rope))
    d_v: int  # value width summed over heads
    window: int | None  # sliding window, where the model has one
    window_layers: int  # how many layers use the window
    n_experts: int
    experts_per_token: int

    def attention_flops_per_token(self, context: float) -> float:
        """Forward attention FLOPs for one new token that attends to `context` earlier tokens (all layers):
        2·c·(d_qk + d_v) per layer, with c capped at the window on sliding-window layers."""
        full = self.layers - self.window_layers
        total = full * context
        if self.window_layers:
            total += self.window_layers * min(context, float(self.window or context))
        return 2.0 * total * (self.d_qk + self.d_v)

    def causal_attention_flops_per_token(self, context: float) -> float:
        """Forward attention FLOPs per token averaged over a causal sequence of `context` tokens:
        a token at position i attends to i keys (≤ window), so the mean context is (s+1)/2 (≈ s/2)."""
        full = (self.layers - self.window_layers) * (context + 1) / 2.0
        win = 0.0
        if self.window_layers:
            w = float(self.window or context)
            mean = (context + 1) / 2.0 if context <= w else w - w * (w - 1) / (2.0 * context)
            win = self.window_layers * mean
        return 2.0 * (full + win) * (self.d_qk + self.d_v)


_CACHE: dict[int, tuple[ModelSpec, ModelFlops]] = {}


def model_flops(m: ModelSpec) -> ModelFlops:
    """The model's matmul parameter counts and attention widths (cached per spec object)."""
    hit = _CACHE.get(id(m))
    if hit is not None and hit[0] is m:
        return hit[1]
    pc = param_counts(m)
    g = pc.by_group
    embedding = g.get("embedding", 0) + g.get("position", 0)
    tied_head = g.get("embedding", 0) if m.tie_word_embeddings else 0
    matmul = pc.total - embedding + tied_head
    matmul_active = pc.active - embedding + tied_head
    if m.is_mla:
        d_qk = m.num_attention_heads * ((m.qk_nope_head_dim or 0) + (m.qk_rope_head_dim or 0))
        d_v = m.num_attention_heads * (m.v_head_dim or m.head_dim)
    else:
        d_qk = d_v = m.num_attention_heads * m.head_dim
    window_layers = 0
    if m.sliding_window and m.sliding_window_layers != "none":
        window_layers = m.num_layers - m.global_layers - m.linear_layers
    out = ModelFlops(
        total_params=pc.total, active_params=pc.active, matmul_params=matmul, matmul_active=matmul_active,
        embedding_params=embedding, routed_expert_params=g.get("experts", 0), layers=m.num_layers,
        hidden=m.hidden_size, d_qk=d_qk, d_v=d_v, window=m.sliding_window, window_layers=window_layers,
        n_experts=m.n_routed_experts, experts_per_token=m.experts_per_token,
    )
    if len(_CACHE) > 1024:
        _CACHE.clear()
    _CACHE[id(m)] = (m, out)
    return out
