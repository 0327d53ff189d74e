"""A checkpoint's published precision is the default serving format (issue 27), and the format is named.

Kimi K2 Thinking ships its routed experts in INT4 (quantisation-aware trained; compressed-tensors pack-quantized,
symmetric, one bf16 scale per 32 weights, no zero point) and every other tensor in BF16. By hand, from its
config.json shape (61 layers, first_k_dense 1 → 60 MoE layers, 384 experts, hidden 7168, moe_intermediate 2048,
gate/up/down = 3 matrices per expert):

    expert weights = 60 × 384 × 3 × 7168 × 2048        = 1,014,686,023,680
    expert bytes   = that × (4 + 16/32) / 8              = 570,760,888,320
    checkpoint     ≈ 594 GB (the maker's published size) → the other tensors ≈ 23.4 GB of BF16

so the whole weights must come to ≈ 594 GB (±1 %), not the 2.05 TB of an all-BF16 reading. On H200 (141 GB, a
serving engine using 90 % = 126.9 GiB): 594 GB over 4 cards is 138 GiB each (does not fit), over 8 cards 69 GiB
(fits), so the answer is 8×, where BF16 needed 16×.
"""

from __future__ import annotations

import pytest

from advisor.conversation.dialog.machine import default_catalog, default_weights
from advisor.conversation.session import Conversation
from advisor.estimator.formats import weight_bytes, weight_bytes_by_group

GIB = 2**30
KIMI_CHECKPOINT_BYTES = 594e9  # the card's published size of moonshotai/Kimi-K2-Thinking


def test_kimi_k2_thinking_weights_match_the_published_int4_checkpoint() -> None:
    m = default_catalog().find_model("Kimi K2 Thinking")
    assert m is not None and default_weights(m.id) == "int4-experts"
    experts = 60 * 384 * 3 * 7168 * 2048
    assert weight_bytes_by_group(m, "int4-experts")["experts"] == experts * 9 // 16  # 4.5 bits = 9/16 byte
    total = weight_bytes(m, "int4-experts")
    assert abs(total - KIMI_CHECKPOINT_BYTES) / KIMI_CHECKPOINT_BYTES < 0.01
    # the non-expert tensors stay 16-bit: 2 bytes each
    other = total - experts * 9 // 16
    assert 11e9 < other / 2 < 12.5e9


@pytest.mark.parametrize(("alias", "fmt"), [
    ("deepseek-v3", "fp8"), ("deepseek r1", "fp8"), ("DeepSeek-V3.2", "fp8"), ("kimi k2", "fp8"),
    ("MiniMax-M2", "fp8"), ("gpt-oss-120b", "mxfp4"), ("gpt-oss-20b", "mxfp4"), ("Kimi K2 Thinking", "int4-experts"),
    ("llama-3.1-70b", "bf16"), ("qwen3-32b", "bf16"),
])
def test_each_model_defaults_to_its_published_format(alias: str, fmt: str) -> None:
    m = default_catalog().find_model(alias)
    assert m is not None
    assert default_weights(m.id) == fmt


def test_kimi_k2_thinking_h200_count_uses_its_int4_checkpoint_in_chinese() -> None:
    conv = Conversation(lang="zh")
    out = conv.respond("Kimi K2 Thinking 需要几张 H200？")
    text = out.answer
    assert text.startswith("需要 8×") and "H200" in text.split("\n")[0]
    named = [a for a in out.contract().assumptions if "模型发布时的精度" in a]
    assert named and "INT4" in named[0] and "BF16" in named[0]  # experts INT4, the rest BF16, both named


def test_deepseek_answer_names_its_block_scaled_fp8() -> None:
    out = Conversation(lang="en").respond("How many H200 do I need for DeepSeek-V3?")
    named = [a for a in out.contract().assumptions if "own precision" in a]
    assert named and "FP8" in named[0] and "128×128" in named[0]


@pytest.mark.parametrize("text", ["How much does an A10 cost?", "A10 多少钱？"])
def test_an_unpriced_card_with_a_rental_quote_offers_it(text: str) -> None:
    """No dated purchase price: the honest sentence stays first, then the catalog's dated rental quote (the A10's
    only one: Lambda on-demand, US$0.86/GPU-hour, verified 2026-05-07); in Chinese it is marked as a provider
    outside mainland China."""
    card = default_catalog().find_gpu("a10")
    assert card is not None and not card.prices
    zh = "多少钱" in text
    out = Conversation(lang="zh" if zh else "en").respond(text)
    head = out.answer.split("\n\n")[0]
    assert head.startswith("目录里没有 NVIDIA A10 的带日期价格" if zh else "The catalog has no dated price for the NVIDIA A10")
    assert "$0.86" in head and "Lambda" in head and "2026-05-07" in head
    assert ("海外云厂商" in head) if zh else ("per GPU-hour" in head)


def test_the_l40s_has_a_dated_new_card_price() -> None:
    """The L40S is sold new: a dated street price (the midpoint of $7,500–8,500, June 2026) and an on-demand
    rental quote (AWS g6e, $1.861/h, August 2025)."""
    card = default_catalog().find_gpu("l40s")
    assert card is not None
    p = card.price("USD", "any")
    assert p is not None and p.amount == (7500 + 8500) / 2 and p.date.isoformat() == "2026-06-01"
    assert any(q.tier == "on_demand" and q.usd_per_hour == 1.861 for q in card.cloud)
    out = Conversation(lang="en").respond("How much does an L40S cost?")
    assert "$8,000" in out.answer.split("\n\n")[0]


def test_a_kimi_k2_thinking_config_json_reads_as_int4_experts() -> None:
    """The maker's config.json shape (61 layers, 384 experts, MLA) with its compressed-tensors quantization_config:
    int4, symmetric, group 32, attention / shared experts / dense MLP / lm_head ignored → the INT4-experts format,
    and the weights come to the same ≈ 594 GB as the catalog entry."""
    from knowledge.hf_config import spec_from_hf_config

    config = {
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "kimi_k2", "num_hidden_layers": 61,
        "hidden_size": 7168, "num_attention_heads": 64, "num_key_value_heads": 64, "intermediate_size": 18432,
        "vocab_size": 163840, "max_position_embeddings": 262144, "n_routed_experts": 384, "n_shared_experts": 1,
        "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "moe_layer_freq": 1, "first_k_dense_replace": 1,
        "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "routed_scaling_factor": 2.827, "torch_dtype": "bfloat16", "tie_word_embeddings": False,
        "quantization_config": {
            "quant_method": "compressed-tensors", "format": "pack-quantized", "quantization_status": "compressed",
            "config_groups": {"group_0": {"targets": ["Linear"], "input_activations": None, "weights": {
                "num_bits": 4, "type": "int", "symmetric": True, "strategy": "group", "group_size": 32}}},
            "ignore": ["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
                       "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"],
        },
    }
    spec = spec_from_hf_config(config, id="my-kimi")
    assert spec.native_dtype == "int4-experts"
    assert abs(weight_bytes(spec, "int4-experts") - KIMI_CHECKPOINT_BYTES) / KIMI_CHECKPOINT_BYTES < 0.01
