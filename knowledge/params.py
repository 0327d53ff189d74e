"""Parameter counts computed from the architecture, never typed in.

Every weight matrix is listed once by :func:`linear_layers` (name, in, out, count, group); the totals,
the active count of MoE models, LoRA adapter sizes and tensor-parallel shards all derive from it.
Method: the HF modelling code of each family (LlamaForCausalLM, Gemma2, DeepseekV3, GPT2, OPT, Bloom,
ChatGLM); it reproduces the exact safetensors counts of Llama-2-7B (6,738,415,616), Llama-3-8B
(8,030,261,248) and Qwen2.5-7B (7,615,616,512).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from knowledge.schemas import ModelSpec
from knowledge.structs import Value

# group names: "embedding", "lm_head", "attention", "mlp" (dense MLP), "experts" (routed), "shared_experts",
# "router", "norm", "position"
GROUPS = ("embedding", "position", "attention", "mlp", "experts", "shared_experts", "router", "norm", "lm_head")


_T = TypeVar("_T")


def _cached_by_value(fn: Callable[..., _T]) -> Callable[..., _T]:
    """Memoise per spec and extra (hashable) arguments. ModelSpec holds a dict (`cite`) and is not hashable, but it is
    frozen: the cache is keyed on the object's identity and keeps the object alive, so an id is never reused while
    its entry exists."""
    cache: dict[tuple[Any, ...], tuple[ModelSpec, _T]] = {}

    @wraps(fn)
    def wrapper(m: ModelSpec, *args: Any, **kwargs: Any) -> _T:
        key = (id(m), args, tuple(sorted(kwargs.items())))
        hit = cache.get(key)
        if hit is not None and hit[0] is m:
            return hit[1]
        if len(cache) > 4096:
            cache.clear()
        value = fn(m, *args, **kwargs)
        cache[key] = (m, value)
        return value

    return wrapper


cached_per_spec = _cached_by_value  # for other pure functions of a spec (e.g. weight bytes per format)


class Linear(Value):
    """`count` copies of an `d_in x d_out` weight (plus `bias` extra values each), across the whole model."""

    name: str
    d_in: int
    d_out: int
    count: int
    group: str
    bias: int = 0
    per_expert: bool = False  # one of n_routed_experts copies inside a MoE layer

    @property
    def params(self) -> int:
        return (self.d_in * self.d_out + self.bias) * self.count


class ParamCounts(Value):
    total: int
    active: int  # per token: top-k routed experts instead of all; equals total for dense models
    by_group: dict[str, int]

    @property
    def embedding(self) -> int:
        return self.by_group.get("embedding", 0) + self.by_group.get("position", 0)

    @property
    def non_embedding(self) -> int:
        return self.total - self.embedding - self.by_group.get("lm_head", 0)


def _attention(m: ModelSpec, n: int) -> list[Linear]:
    h = m.hidden_size
    if m.is_mla:
        nh, rope, nope, vd = m.num_attention_heads, m.qk_rope_head_dim or 0, m.qk_nope_head_dim or 0, m.v_head_dim or 0
        kv = m.kv_lora_rank or 0
        out: list[Linear] = []
        if m.q_lora_rank:
            out += [Linear("q_a_proj", h, m.q_lora_rank, n, "attention"),
                    Linear("q_a_layernorm", 1, m.q_lora_rank, n, "norm"),
                    Linear("q_b_proj", m.q_lora_rank, nh * (nope + rope), n, "attention")]
        else:
            out.append(Linear("q_proj", h, nh * (nope + rope), n, "attention"))
        out += [Linear("kv_a_proj_with_mqa", h, kv + rope, n, "attention"),
                Linear("kv_a_layernorm", 1, kv, n, "norm"),
                Linear("kv_b_proj", kv, nh * (nope + vd), n, "attention"),
                Linear("o_proj", nh * vd, h, n, "attention")]
        if m.indexer_heads and m.indexer_head_dim:
            # DeepSeek-V3.2 lightning indexer (HF/vLLM `Indexer`): wq_b, wk, k_norm (LayerNorm), weights_proj
            ih, idim = m.indexer_heads, m.indexer_head_dim
            out += [Linear("indexer_wq_b", m.q_lora_rank or h, ih * idim, n, "attention"),
                    Linear("indexer_wk", h, idim, n, "attention"),
                    Linear("indexer_k_norm", 2, idim, n, "norm"),
                    Linear("indexer_weights_proj", h, ih, n, "attention")]
        return out
    q, kv = m.num_attention_heads * m.head_dim, m.num_kv_heads * m.head_dim
    bias = m.attention_bias
    gpt_style = m.block in ("gpt", "bloom", "opt") or m.o_proj_bias
    # Qwen3-Next's full-attention layers emit a per-head output gate beside the query (q_proj twice as wide)
    q_out = 2 * q if m.linear_attention is not None else q
    layers = [
        Linear("q_proj", h, q_out, n, "attention", bias=q_out if bias else 0),
        Linear("k_proj", h, kv, n, "attention", bias=kv if bias else 0),
        Linear("v_proj", h, kv, n, "attention", bias=kv if bias else 0),
        Linear("o_proj", q, h, n, "attention", bias=h if gpt_style else 0),
    ]
    if m.qk_norm and m.qk_norm_kind == "per_head":
        layers.append(Linear("qk_norm", 1, 2 * m.head_dim, n, "norm"))
    elif m.qk_norm and m.qk_norm_kind == "per_layer":
        layers.append(Linear("qk_norm", 1, q + kv, n, "norm"))
    if m.attention_sinks:
        layers.append(Linear("sinks", 1, m.num_attention_heads, n, "attention"))
    return layers


def _linear_attention(m: ModelSpec, n: int) -> list[Linear]:
    """Gated DeltaNet layers (HF `Qwen3NextGatedDeltaNet`): in_proj_qkvz (h -> 2·key_dim + 2·value_dim),
    in_proj_ba (h -> 2·v_heads), a depthwise conv1d over q, k, v (kernel K, no bias), dt_bias and A_log per value
    head, a gated RMSNorm(value_head_dim) and out_proj (value_dim -> h)."""
    la = m.linear_attention
    if la is None or n == 0:
        return []
    h = m.hidden_size
    key_dim, value_dim = la.num_key_heads * la.key_head_dim, la.num_value_heads * la.value_head_dim
    conv_dim = 2 * key_dim + value_dim
    return [Linear("in_proj_qkvz", h, 2 * key_dim + 2 * value_dim, n, "attention"),
            Linear("in_proj_ba", h, 2 * la.num_value_heads, n, "attention"),
            Linear("conv1d", la.conv_kernel, conv_dim, n, "attention"),
            Linear("dt_bias_a_log", 2, la.num_value_heads, n, "attention"),
            Linear("linear_norm", 1, la.value_head_dim, n, "norm"),
            Linear("out_proj", value_dim, h, n, "attention")]


def _mlp(m: ModelSpec, width: int, n: int, group: str, per_expert: bool = False) -> list[Linear]:
    h = m.hidden_size
    if m.gated_mlp:
        bias = bool(m.mlp_bias) or (per_expert and m.expert_bias)
        return [Linear("gate_proj", h, width, n, group, bias=width if bias else 0, per_expert=per_expert),
                Linear("up_proj", h, width, n, group, bias=width if bias else 0, per_expert=per_expert),
                Linear("down_proj", width, h, n, group, bias=h if bias else 0, per_expert=per_expert)]
    plain = m.mlp_bias is False  # Falcon: a two-matrix MLP without biases
    return [Linear("fc_in", h, width, n, group, bias=0 if plain else width),
            Linear("fc_out", width, h, n, group, bias=0 if plain else h)]


@_cached_by_value
def linear_layers(m: ModelSpec) -> tuple[Linear, ...]:
    """Every weight tensor of the model as (in x out) x count, grouped."""
    h, L, V = m.hidden_size, m.num_layers, m.vocab_size
    out: list[Linear] = [Linear("embed_tokens", V, h, 1, "embedding")]
    if m.block == "gpt":
        out.append(Linear("wpe", m.max_context, h, 1, "position"))
    elif m.block == "opt":
        out.append(Linear("embed_positions", m.max_context + 2, h, 1, "position"))
    elif m.block == "bloom":
        out.append(Linear("word_embeddings_layernorm", 2, h, 1, "norm"))
    out += _attention(m, L - m.linear_layers)
    out += _linear_attention(m, m.linear_layers)
    if m.is_moe:
        moe_layers = m.moe_layers
        dense_layers = L - moe_layers
        if dense_layers:
            out += _mlp(m, m.intermediate_size, dense_layers, "mlp")
        width = m.moe_intermediate_size or m.intermediate_size
        out += _mlp(m, width, moe_layers * m.n_routed_experts, "experts", per_expert=True)
        if m.n_shared_experts:
            shared = m.shared_expert_intermediate_size or width * m.n_shared_experts
            out += _mlp(m, shared, moe_layers, "shared_experts")
            if m.shared_expert_gate:
                out.append(Linear("shared_expert_gate", h, 1, moe_layers, "router"))
        out.append(Linear("router", h, m.n_routed_experts, moe_layers, "router",
                          bias=m.n_routed_experts if (m.block == "deepseek" or m.router_bias) else 0))
    else:
        out += _mlp(m, m.intermediate_size, L, "mlp")
    layer_norm_width = 2 if (m.block in ("gpt", "bloom", "opt") or m.norm_bias) else 1  # LayerNorm: weight and bias
    out.append(Linear("layer_norms", layer_norm_width * m.norms_per_layer, h, L, "norm"))
    out.append(Linear("final_norm", layer_norm_width, h, 1, "norm"))
    if not m.tie_word_embeddings:
        out.append(Linear("lm_head", h, V, 1, "lm_head", bias=V if m.lm_head_bias else 0))
    return tuple(out)


@_cached_by_value
def param_counts(m: ModelSpec) -> ParamCounts:
    """Total and active parameters. Active = total - (E - k)/E of the routed-expert weights."""
    by_group: dict[str, int] = {}
    for layer in linear_layers(m):
        by_group[layer.group] = by_group.get(layer.group, 0) + layer.params
    total = sum(by_group.values())
    active = total
    if m.is_moe and m.n_routed_experts:
        routed = by_group.get("experts", 0)
        active = total - routed + routed * m.experts_per_token // m.n_routed_experts
    return ParamCounts(total=total, active=active, by_group=by_group)
