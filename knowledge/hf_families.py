"""config.json readers for the 2025–26 families (gpt-oss, Llama 4, Gemma 3, Qwen3-Next, GLM-4.5, DeepSeek-V3.2,
Kimi K2, MiniMax-M2) and the LayerNorm-era ones (GPT-NeoX, Falcon, Phi-2, StarCoder2, OLMo-2, InternLM2, Qwen2-MoE,
Cohere), plus a generic reader for plain decoder-only configs.

Each reader maps the keys of the family's HF `transformers` configuration class (defaults as in that class) onto
:class:`~knowledge.schemas.ModelSpec` fields; :mod:`knowledge.hf_config` fills the common ones first
(:func:`knowledge.hf_config._llama_like`) and dispatches here by `model_type`. A piece the spec cannot represent
raises :class:`~knowledge.errors.InputError` naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knowledge.errors import InputError
from knowledge.schemas import LinearAttention

if TYPE_CHECKING:
    from knowledge.hf_config import ConfigReader

# model types whose attention and MLP follow the Llama layout, read by the common reader plus the hooks below
NEW_LLAMA_LIKE = frozenset({"gpt_oss", "llama4", "gemma3", "qwen3_next", "glm4_moe", "deepseek_v32", "kimi_k2",
                            "minimax_m2", "olmo2", "internlm2", "qwen2_moe", "cohere", "mistral3", "qwen3_5",
                            "qwen3_5_moe", "glm_moe_dsa", "glm4_moe_lite"})
LAYERNORM_FAMILIES = frozenset({"gpt_neox", "falcon", "phi", "starcoder2"})
# multimodal wrappers whose `text_config` holds the language model: wrapper type -> the text model's type
TEXT_WRAPPERS = {"llama4": "llama4", "gemma3": "gemma3", "mistral3": "mistral", "llama4_text": "llama4",
                 "gemma3_text": "gemma3", "qwen3_vl": "qwen3", "qwen3_vl_text": "qwen3", "qwen3_vl_moe": "qwen3_moe",
                 "qwen3_vl_moe_text": "qwen3_moe", "qwen3_5": "qwen3_5", "qwen3_5_text": "qwen3_5",
                 "qwen3_5_moe": "qwen3_5_moe", "qwen3_5_moe_text": "qwen3_5_moe"}
# keys that mean a piece the generic reader cannot size (checked only for unknown model types)
_GENERIC_REFUSE = {
    "num_local_experts": "mixture-of-experts layers", "num_experts": "mixture-of-experts layers",
    "n_routed_experts": "mixture-of-experts layers", "kv_lora_rank": "multi-head latent attention",
    "layer_types": "a per-layer attention pattern", "ssm_cfg": "state-space (Mamba) layers",
    "mamba_d_state": "state-space (Mamba) layers", "ssm_state_size": "state-space (Mamba) layers",
    "linear_num_key_heads": "linear-attention layers", "attn_layer_period": "hybrid attention/Mamba layers",
    "hybrid_override_pattern": "hybrid attention/Mamba layers", "cross_attention_layers": "cross-attention layers",
    "encoder_layers": "an encoder-decoder model", "is_encoder_decoder": "an encoder-decoder model",
}
# model types known not to be plain decoder-only transformers: never read generically
KNOWN_OTHER = {"mamba": "a state-space (Mamba) model", "mamba2": "a state-space (Mamba-2) model",
               "rwkv": "a recurrent (RWKV) model", "rwkv5": "a recurrent (RWKV) model", "rwkv6": "a recurrent (RWKV) model",
               "jamba": "a hybrid attention/Mamba model", "zamba2": "a hybrid attention/Mamba model",
               "nemotron_h": "a hybrid attention/Mamba model", "falcon_h1": "a hybrid attention/Mamba model",
               "t5": "an encoder-decoder model",
               "bart": "an encoder-decoder model", "whisper": "a speech encoder-decoder", "bert": "an encoder-only model",
               "deepseek_v4": "DeepSeek-V4's attention"}
GENERIC_KEYS = ("hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "vocab_size")


def layer_pattern(r: ConfigReader, types: list[Any]) -> dict[str, Any]:
    """`layer_types` (HF: "sliding_attention" / "full_attention" / "chunked_attention" / "linear_attention" per
    layer) as a ModelSpec pattern: all full; local/full alternating from a local layer; or every k-th layer full."""
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types) or not types:
        raise InputError(f"config.json ({r.t}): 'layer_types' must be a list of strings", field="layer_types")
    full = [i for i, t in enumerate(types) if t == "full_attention"]
    local = sorted({t for t in types if t != "full_attention"})
    if not local:
        return {}
    if len(local) > 1 or local[0] not in ("sliding_attention", "chunked_attention", "linear_attention"):
        raise InputError(f"config.json ({r.t}): the layer mix {', '.join(sorted(set(types)))} is not supported "
                         "(one local kind beside full attention is)", field="layer_types")
    if not full:
        return {"sliding_window_layers": "all"}
    every = full[0] + 1
    if full != list(range(every - 1, len(types), every)):
        raise InputError(f"config.json ({r.t}): full-attention layers {full[:6]}… are not every k-th layer",
                         field="layer_types")
    if local[0] == "linear_attention":
        return {"global_layer_every": every}
    if every == 2:
        return {"sliding_window_layers": "alternate"}
    return {"sliding_window_layers": "pattern", "global_layer_every": every}


def _moe(r: ConfigReader, out: dict[str, Any], experts: str, width: str) -> None:
    out.update(n_routed_experts=r.int(experts), experts_per_token=r.int("num_experts_per_tok", "experts_per_token"),
               moe_intermediate_size=r.int(width))


def _sparse_step(r: ConfigReader, out: dict[str, Any]) -> None:
    """Qwen-MoE `decoder_sparse_step` (every k-th layer MoE) and `mlp_only_layers` (must be empty)."""
    if r.c.get("mlp_only_layers"):
        raise InputError(f"config.json ({r.t}): 'mlp_only_layers' (dense layers at listed positions) is not "
                         "supported", field="mlp_only_layers")
    out["moe_layer_step"] = r.int("decoder_sparse_step", default=1)


def new_family(r: ConfigReader, out: dict[str, Any]) -> None:
    """Adjust the common Llama-like fields `out` for model type `r.t` (in place)."""
    t = r.t
    if "layer_types" in r.c and t in ("gpt_oss", "gemma3", "qwen3_next", "llama4", "qwen3_5", "qwen3_5_moe"):
        out.update(layer_pattern(r, r.c["layer_types"]))
    if t == "gpt_oss":
        _moe(r, out, "num_local_experts", "intermediate_size")
        out.update(o_proj_bias=out["attention_bias"], attention_sinks=True, expert_bias=True, router_bias=True,
                   sliding_window=r.int("sliding_window"))
        out.setdefault("sliding_window_layers", "alternate")
    elif t == "llama4":
        out["intermediate_size"] = r.int("intermediate_size_mlp")
        _moe(r, out, "num_local_experts", "intermediate_size")
        out.update(n_shared_experts=1, moe_layer_step=r.int("interleave_moe_layer_step", default=1),
                   qk_norm=r.bool("use_qk_norm", default=True), qk_norm_kind="weightless")
        chunk = r.int("attention_chunk_size", default=None)
        if chunk:
            every = r.int("no_rope_layer_interval", default=4)
            out.update(sliding_window=chunk, local_attention="chunked", sliding_window_layers="pattern",
                       global_layer_every=every)
    elif t == "gemma3":
        out.update(norms_per_layer=4, qk_norm=True, sliding_window=r.int("sliding_window", default=4096))
        if "layer_types" not in r.c:
            out.update(sliding_window_layers="pattern",
                       global_layer_every=r.int("sliding_window_pattern", default=6))
        out["head_dim"] = r.int("head_dim", default=256)
    elif t in ("qwen3_next", "qwen3_5", "qwen3_5_moe"):
        # Qwen3.5 keeps Qwen3-Next's layout (gated full attention every k-th layer, Gated DeltaNet between) with the
        # linear layers' in_proj split into qkv, z, b, a instead of fused: the same parameters; its dense models
        # (qwen3_5) have no experts
        if t != "qwen3_5":
            _moe(r, out, "num_experts", "moe_intermediate_size")
            _sparse_step(r, out)
            out.update(n_shared_experts=1, shared_expert_gate=True,
                       shared_expert_intermediate_size=r.int("shared_expert_intermediate_size"))
        out.update(qk_norm=True, linear_attention=LinearAttention(
            num_key_heads=r.int("linear_num_key_heads"), num_value_heads=r.int("linear_num_value_heads"),
            key_head_dim=r.int("linear_key_head_dim"), value_head_dim=r.int("linear_value_head_dim"),
            conv_kernel=r.int("linear_conv_kernel_dim", default=4)))
        out.setdefault("global_layer_every", r.int("full_attention_interval", default=4))
    elif t == "qwen2_moe":
        _moe(r, out, "num_experts", "moe_intermediate_size")
        _sparse_step(r, out)
        out.update(n_shared_experts=1, shared_expert_gate=True,
                   shared_expert_intermediate_size=r.int("shared_expert_intermediate_size"))
    elif t == "glm4_moe":
        _moe(r, out, "n_routed_experts", "moe_intermediate_size")
        out.update(n_shared_experts=r.int("n_shared_experts", default=1, positive=False), router_bias=True,
                   first_k_dense=r.int("first_k_dense_replace", default=1, positive=False),
                   qk_norm=r.bool("use_qk_norm", default=False),
                   mtp_layers=r.int("num_nextn_predict_layers", default=0, positive=False))
    elif t == "minimax_m2":
        _moe(r, out, "num_local_experts", "intermediate_size")
        kind = r.raw("qk_norm_type", default="per_layer")
        if kind != "per_layer":
            raise InputError(f"config.json (minimax_m2): qk_norm_type {kind!r} is not supported (per_layer is)",
                             field="qk_norm_type")
        out.update(qk_norm=r.bool("use_qk_norm", default=True), qk_norm_kind="per_layer",
                   router_bias=r.bool("use_routing_bias", default=True))
        if r.int("shared_intermediate_size", default=0, positive=False):
            raise InputError("config.json (minimax_m2): a shared expert ('shared_intermediate_size' > 0) is not "
                             "supported", field="shared_intermediate_size")
    elif t == "olmo2":
        out.update(qk_norm=True, qk_norm_kind="per_layer")
    elif t == "cohere":
        out.update(norms_per_layer=1, tie_word_embeddings=r.bool("tie_word_embeddings", default=True),
                   qk_norm=r.bool("use_qk_norm", default=False), qk_norm_kind="per_layer")
    elif t == "internlm2":
        out["attention_bias"] = r.bool("bias", default=False)
    if t in ("deepseek_v32", "kimi_k2", "glm4_moe", "glm_moe_dsa", "glm4_moe_lite"):
        out["mtp_layers"] = r.int("num_nextn_predict_layers", default=0, positive=False)
    if t in ("deepseek_v32", "glm_moe_dsa"):  # GLM-5: DeepSeek-V3.2's MLA + lightning indexer under GLM's name
        types = r.c.get("indexer_types")
        if isinstance(types, list) and any(x != "full" for x in types):
            raise InputError(f"config.json ({t}): indexers shared across layers ('indexer_types' "
                             f"{sorted({str(x) for x in types})}) are not supported (one indexer per layer is)",
                             field="indexer_types")
        out.update(indexer_heads=r.int("index_n_heads"), indexer_head_dim=r.int("index_head_dim"))


def layernorm_family(r: ConfigReader) -> dict[str, Any]:
    """GPT-NeoX, Falcon, Phi-2 and StarCoder2: LayerNorm with bias, a two-matrix MLP, learned or rotary positions."""
    t = r.t
    h = r.int("hidden_size")
    nh = r.int("num_attention_heads", "n_head")
    if h % nh:
        raise InputError(f"config.json ({t}): hidden_size {h} is not divisible by the head count {nh}",
                         field="num_attention_heads")
    out: dict[str, Any] = {
        "hidden_size": h, "num_layers": r.int("num_hidden_layers", "n_layer"), "num_attention_heads": nh,
        "head_dim": h // nh, "vocab_size": r.int("vocab_size"), "gated_mlp": False, "norm_bias": True,
        "block": "neox", "rope_theta": r.float("rope_theta", default=10000.0),
    }
    if t == "gpt_neox":
        bias = r.bool("attention_bias", default=True)
        out.update(num_kv_heads=nh, intermediate_size=r.int("intermediate_size"),
                   tie_word_embeddings=r.bool("tie_word_embeddings", default=False),
                   max_context=r.int("max_position_embeddings"), hidden_act=r.raw("hidden_act", default="gelu"),
                   attention_bias=bias, o_proj_bias=bias)
    elif t == "phi":
        out.update(num_kv_heads=r.int("num_key_value_heads", default=nh), intermediate_size=r.int("intermediate_size"),
                   tie_word_embeddings=r.bool("tie_word_embeddings", default=False),
                   max_context=r.int("max_position_embeddings"), hidden_act=r.raw("hidden_act", default="gelu_new"),
                   attention_bias=True, o_proj_bias=True, norms_per_layer=1, lm_head_bias=True)
    elif t == "starcoder2":
        bias = r.bool("use_bias", default=True)
        window = r.int("sliding_window", default=None)
        out.update(num_kv_heads=r.int("num_key_value_heads", default=nh), intermediate_size=r.int("intermediate_size"),
                   tie_word_embeddings=r.bool("tie_word_embeddings", default=True),
                   max_context=r.int("max_position_embeddings"),
                   hidden_act=r.raw("hidden_act", default="gelu_pytorch_tanh"),
                   attention_bias=bias, o_proj_bias=bias, mlp_bias=bias)
        if window:
            out.update(sliding_window=window, sliding_window_layers="all")
    else:  # falcon
        new_arch = r.bool("new_decoder_architecture", default=False)
        if new_arch:
            kv = r.int("num_kv_heads", default=nh)
        else:
            kv = 1 if r.bool("multi_query", default=True) else nh
        if r.bool("alibi", default=False):
            raise InputError("config.json (falcon): ALiBi Falcon checkpoints are not supported", field="alibi")
        bias = r.bool("bias", default=False)
        inner = r.int("ffn_hidden_size", default=4 * h)
        out.update(num_kv_heads=kv, intermediate_size=inner,
                   tie_word_embeddings=r.bool("tie_word_embeddings", default=True),
                   max_context=r.int("max_position_embeddings", default=2048), hidden_act="gelu",
                   attention_bias=bias, o_proj_bias=bias, mlp_bias=bias,
                   norms_per_layer=2 if (new_arch and r.int("num_ln_in_parallel_attn", default=2) == 2) else 1)
    return out


def generic_refusal(config: dict[str, Any]) -> str | None:
    """The piece an unknown model type has that the generic reader cannot size, or None when it looks like a plain
    decoder (every key of `GENERIC_KEYS` present, no expert/latent/state-space/hybrid keys)."""
    kind = KNOWN_OTHER.get(str(config.get("model_type")))
    if kind:
        return kind
    for key, piece in _GENERIC_REFUSE.items():
        if config.get(key):
            return f"{piece} ('{key}')"
    missing = [k for k in GENERIC_KEYS if k not in config]
    if missing:
        return f"the standard decoder keys {', '.join(repr(k) for k in missing)}"
    return None
