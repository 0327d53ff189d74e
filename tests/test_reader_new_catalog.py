"""Questions about the 2025–26 models and accelerators are answered about THAT model and card (issue 27), in both
languages. Checked here against arithmetic done in the test, not the estimator's: the weights are the makers'
published parameter count × bytes per weight of the format asked (or the model's native release format), the card's
memory is the catalog's, and the verdict or count follows from those two alone where the margin is clear."""

from __future__ import annotations

import math
from typing import Any

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.session import Conversation

# published total parameter counts (model cards / release posts) and the bytes per weight of the release format
PUBLISHED = {
    "gpt-oss-120b": 116.83e9, "gpt-oss-20b": 20.91e9,  # OpenAI model card table
    "gemma-3-27b": 27.0e9, "llama-4-scout": 109e9, "llama-4-maverick": 400e9,  # incl. the vision encoder
    "glm-4.5": 355e9, "glm-4.5-air": 106e9, "qwen3-32b": 32.8e9, "qwen3-30b-a3b": 30.5e9,
    "qwen3-235b-a22b": 235e9, "qwen3-next-80b-a3b": 80e9, "phi-4": 14.7e9, "kimi-k2": 1.0e12,
    "deepseek-v3.1": 671e9, "deepseek-v3": 671e9, "minimax-m2": 230e9, "llama-3.1-405b": 405e9,
}
ACTIVE = {"gpt-oss-120b": 5.13e9, "gpt-oss-20b": 3.61e9}  # published active (non-embedding) counts
EMBED = {"gpt-oss-120b": 2 * 201088 * 2880, "gpt-oss-20b": 2 * 201088 * 2880}  # vocab × hidden, untied, config.json
BYTES = {"bf16": 2.0, "fp8": 1.0, "int4": 0.5, "mxfp4": 4.25 / 8}  # MXFP4: 4-bit values + one 8-bit scale per 32

# (text, model id, card id, count the user named or None, format the weights are in, act)
QUESTIONS: list[tuple[str, str, str, int | None, str, str]] = [
    ("Can I run gpt-oss-120b on a single H100 80GB?", "gpt-oss-120b", "h100-sxm", 1, "mxfp4", "feasibility"),
    ("Will gpt-oss-20b fit on one RTX 4090?", "gpt-oss-20b", "rtx-4090", 1, "mxfp4", "feasibility"),
    ("Can Gemma 3 27B run on one L40S?", "gemma-3-27b", "l40s", 1, "bf16", "feasibility"),
    ("Llama 4 Scout on one H100?", "llama-4-scout", "h100-sxm", 1, "bf16", "feasibility"),
    ("How many H100s for GLM-4.5 in FP8?", "glm-4.5", "h100-sxm", None, "fp8", "how_many"),
    ("Is one H200 enough for Qwen3-32B?", "qwen3-32b", "h200-sxm", 1, "bf16", "feasibility"),
    ("Qwen3-30B-A3B on a single RTX 4090 in 4-bit?", "qwen3-30b-a3b", "rtx-4090", 1, "int4", "feasibility"),
    ("Can Phi-4 run on an L4?", "phi-4", "l4", 1, "bf16", "feasibility"),
    ("How many A100 80GB for Kimi K2?", "kimi-k2", "a100-80g-sxm", None, "fp8", "how_many"),
    ("Does Llama 4 Maverick fit on 8 H100s in FP8?", "llama-4-maverick", "h100-sxm", 8, "fp8", "feasibility"),
    ("How many H20s do I need for DeepSeek-V3.1?", "deepseek-v3.1", "h20", None, "fp8", "how_many"),
    ("Kimi K2 推理要几张 H20？", "kimi-k2", "h20", None, "fp8", "how_many"),
    ("一张 4090 能跑 gpt-oss-20b 吗", "gpt-oss-20b", "rtx-4090", 1, "mxfp4", "feasibility"),
    ("一张 H100 能跑 gpt-oss-120b 吗", "gpt-oss-120b", "h100-sxm", 1, "mxfp4", "feasibility"),
    ("Gemma 3 27B 能在一张 4090 上跑吗", "gemma-3-27b", "rtx-4090", 1, "bf16", "feasibility"),
    ("GLM-4.5-Air 需要几张 H100", "glm-4.5-air", "h100-sxm", None, "bf16", "how_many"),
    ("Qwen3-235B-A22B 推理要几张 H20", "qwen3-235b-a22b", "h20", None, "bf16", "how_many"),
    ("MiniMax-M2 能在 4 张 H100 上跑吗", "minimax-m2", "h100-sxm", 4, "fp8", "feasibility"),
    ("一张 H200 跑 Qwen3-32B 够吗", "qwen3-32b", "h200-sxm", 1, "bf16", "feasibility"),
    ("Llama 4 Scout 能在一张 H100 上跑吗", "llama-4-scout", "h100-sxm", 1, "bf16", "feasibility"),
    ("Phi-4 能在一张 L4 上跑吗", "phi-4", "l4", 1, "bf16", "feasibility"),
    ("Qwen3-Next-80B-A3B 需要几张 A100 80GB", "qwen3-next-80b-a3b", "a100-80g-sxm", None, "bf16", "how_many"),
    # the accelerators catalog's new cards: checked once those cards are in the catalog
    ("RTX PRO 6000 96G 能跑 Qwen3-235B-A22B 的 4bit 推理吗", "qwen3-235b-a22b", "rtx-pro-6000-blackwell", 1, "int4",
     "feasibility"),
    ("Can one B300 run Llama-3.1-405B in FP8?", "llama-3.1-405b", "b300", 1, "fp8", "feasibility"),
    ("DGX Spark 能跑 gpt-oss-120b 吗", "gpt-oss-120b", "dgx-spark", 1, "mxfp4", "feasibility"),
    ("How many MI355X for DeepSeek-V3 in FP8?", "deepseek-v3", "mi355x", None, "fp8", "how_many"),
]


def weight_bounds(model: str, fmt: str) -> tuple[float, float]:
    """Bytes of the weights: published count × bytes per weight, within 6 %; a 4-bit MoE keeps its non-expert
    tensors (at most the active ones and the embeddings) in BF16, so its upper bound adds those at 2 bytes."""
    base = PUBLISHED[model] * BYTES[fmt]
    if fmt == "mxfp4":
        return base, base + 2 * (ACTIVE[model] + EMBED[model])
    if fmt == "int4":  # group scales and zero points: 4.25–4.5 bits; embeddings kept in 16 bits
        return base * 0.97, base * 1.2
    return base * 0.94, base * 1.06


@pytest.mark.parametrize(("text", "model", "gpu", "count", "fmt", "act"), QUESTIONS, ids=[q[0][:40] for q in QUESTIONS])
def test_the_named_model_and_card_are_answered(text: str, model: str, gpu: str, count: int | None, fmt: str,
                                               act: str) -> None:
    catalog = default_catalog()
    card = catalog.find_gpu(gpu)
    if card is None or card.id != gpu:
        pytest.skip(f"{gpu} is not in this catalog yet")
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    req: dict[str, Any] = turn.extra.get("request") or {}
    assert req.get("act") == act, (req.get("act"), turn.answer[:300])
    assert conv.state.slots.model == model, (conv.state.slots.model, turn.answer[:300])  # that model, no stand-in
    assert not req.get("unknown"), req.get("unknown")
    assert any(h["gpu"] == gpu and h["role"] == "candidate" and h["count"] == count for h in req["hardware"]), req
    mem = turn.memory or {}
    shown = mem.get("count")
    assert shown, turn.answer[:300]
    total = mem["weights"] * shown  # weights are split across the cards (tensor and pipeline parallel)
    lo, hi = weight_bounds(model, fmt)
    assert lo <= total <= hi, (total / 1e9, lo / 1e9, hi / 1e9)
    first = turn.answer.strip().split("\n\n")[0]
    if fmt == "mxfp4":
        assert "MXFP4" in first, first
    if act == "how_many":  # at least the cards the weights alone fill, and not more than four times that
        least = math.ceil(lo / card.memory_bytes)
        assert least <= shown <= 4 * least, (shown, least)
        assert card.name in first or gpu.upper() in first.upper(), first
        return
    assert shown == count, (shown, count)
    memory = card.memory_bytes * count
    if lo > memory:  # the weights alone overflow the cards: never a yes
        assert turn.extra.get("answer_verdict") != "yes", turn.answer[:300]
    elif hi * 1.25 < memory * 0.9:  # weights plus a quarter for cache and activations fit in 90 % of the memory
        assert turn.extra.get("answer_verdict") == "yes", turn.answer[:300]


def test_the_set_is_bilingual_and_large_enough() -> None:
    assert len(QUESTIONS) >= 20 and sum(any("\u4e00" <= c <= "\u9fff" for c in q[0]) for q in QUESTIONS) >= 10
