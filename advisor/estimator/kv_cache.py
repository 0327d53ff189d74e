"""The KV cache and the linear-attention state: bytes per token and layer, and the cache of `sequences` sequences on
one GPU under TP and PP (used by the memory estimate, the throughput's capacity and the engines' KV accounting)."""

from __future__ import annotations

from advisor.estimator.formats import kv_bits, kv_heads_per_gpu
from knowledge.errors import InputError
from knowledge.schemas import ModelSpec


def kv_bytes_per_token_layer(model: ModelSpec, kv: str = "fp16", tp: int = 1, attention_dp: bool = False) -> float:
    """Bytes of one token's cache in one layer on one GPU.

    MHA/GQA/MQA: 2 (K and V) × kv_heads_per_gpu × head_dim × bytes, kv_heads_per_gpu = max(1, kv_heads / tp)
    (heads are replicated once TP exceeds them). MLA (DeepSeek-V2/V3): the compressed latent and the shared rope
    key, (kv_lora_rank + qk_rope_head_dim) × bytes, the same on every TP rank [deepseek-v2-paper, vllm-mla].
    Attention data-parallel over the TP group (`attention_dp`): each GPU caches whole tokens of its own sequences,
    so one GPU's average share of a token is the unsharded bytes / tp [sglang-dp-attention].
    """
    if attention_dp:
        return kv_bytes_per_token_layer(model, kv, 1) / tp
    b = kv_bits(kv) / 8
    if model.is_mla:
        # DeepSeek-V3.2: the lightning indexer caches one fp8 key (+ an fp32 scale per 128) per token and layer
        indexer = (model.indexer_head_dim or 0) * (1 + 4 / 128)
        return ((model.kv_lora_rank or 0) + (model.qk_rope_head_dim or 0)) * b + indexer
    return 2 * kv_heads_per_gpu(model, tp) * model.head_dim * b


def sliding_layers(model: ModelSpec) -> int:
    """Layers with a local window (sliding or chunked): all, every other (Gemma-2, gpt-oss: layers 0, 2, …), or all
    but every k-th (Gemma 3, Llama 4). Linear-attention layers are not counted (they keep a state, no KV)."""
    if model.sliding_window is None or model.sliding_window_layers == "none":
        return 0
    return model.num_layers - model.global_layers - model.linear_layers


def linear_state_bytes(model: ModelSpec, sequences: int = 1, tp: int = 1) -> int:
    """Fixed-size state of the linear-attention (Gated DeltaNet) layers, independent of context [qwen3-next]:
    per layer and sequence, the conv state (2·key_dim + value_dim) × (kernel − 1) plus the recurrent state
    v_heads × key_head_dim × value_head_dim, in bf16 (vLLM's mamba cache dtype "auto"), split over TP ranks."""
    la = model.linear_attention
    if la is None:
        return 0
    conv_dim = 2 * la.num_key_heads * la.key_head_dim + la.num_value_heads * la.value_head_dim
    per_layer = conv_dim * (la.conv_kernel - 1) + la.num_value_heads * la.key_head_dim * la.value_head_dim
    return round(model.linear_layers * per_layer * 2 * sequences / tp)


def round_up(x: int, block: int | None) -> int:
    if not block or block <= 1:
        return x
    return -(-x // block) * block


def kv_cache_bytes(model: ModelSpec, context: int, sequences: int = 1, kv: str = "fp16", tp: int = 1,
                   block_size: int | None = None, pp: int = 1, attention_dp: bool = False) -> int:
    """KV-cache bytes on one GPU for `sequences` sequences of `context` tokens each.

    Σ_layers min(context, window_l) (rounded up to `block_size`-token pages) × per-token-per-layer bytes × sequences;
    sliding-window layers hold at most `sliding_window` tokens (Mistral: all layers; Gemma-2: every other layer).
    Under PP a GPU holds ⌈L/pp⌉ layers (the share of sliding layers kept proportional). `attention_dp`: one GPU's
    average share, the unsharded cache / tp (the memory estimate sizes the rank with ⌈sequences / tp⌉ instead).
    """
    if attention_dp and tp > 1:
        return round(kv_cache_bytes(model, context, sequences, kv, 1, block_size, pp) / tp)
    if context < 1 or sequences < 1:
        raise InputError("tokens and sequences must be at least 1", field="context", accepted="≥ 1")
    if tp < 1 or pp < 1:
        raise InputError("tp and pp must be at least 1", field="tp", accepted="≥ 1")
    per = kv_bytes_per_token_layer(model, kv, tp)
    n_sliding = sliding_layers(model)
    n_full = model.num_layers - n_sliding - model.linear_layers
    window = model.sliding_window or context
    full_tok = round_up(context, block_size)
    slide_tok = round_up(min(context, window), block_size)
    total_layers = model.num_layers
    stage_layers = -(-total_layers // pp)
    scale = stage_layers / total_layers
    value = (n_full * full_tok + n_sliding * slide_tok) * per * sequences * scale
    return round(value) + round(linear_state_bytes(model, sequences, tp) * scale)
