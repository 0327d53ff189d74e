"""A card or model typed by its specs instead of a name (issue 27): used as given and said so. The decode ceiling is
checked against the roofline by hand: bandwidth / (weights + KV cache bytes read per token); Qwen2.5-72B: 72.7 B
parameters (model card) in BF16, KV cache 2 × 80 layers × 8 KV heads × 128 × 2 bytes × 4096 tokens (config.json)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation

QWEN72_WEIGHTS = 72.7e9 * 2
QWEN72_KV = 2 * 80 * 8 * 128 * 2 * 4096


@pytest.mark.parametrize(("lang", "text", "given"), [
    ("en", "Can Qwen2.5-72B run on a card with 96 GB at 1.8 TB/s?", "Taken as given"),
    ("zh", "一张 96G 显存、带宽 1.8TB/s 的卡能跑 Qwen2.5-72B 吗", "按您给的规格"),
])
def test_a_card_typed_by_its_specs_is_used_as_given(lang: str, text: str, given: str) -> None:
    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    first = "\n".join(turn.answer.split("\n\n")[:2])
    assert turn.extra.get("answer_verdict") == "no", first  # 145 GB of weights alone exceed 96 GB
    assert given in first and "1.8 TB/s" in first and "96 GB" in first, first
    ceiling = 1.8e12 / (QWEN72_WEIGHTS + QWEN72_KV)
    shown = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) tokens/s", first)]
    assert any(abs(s - ceiling) <= 0.05 * ceiling for s in shown), (ceiling, first)


def test_a_card_typed_by_its_memory_alone_says_only_memory_is_checked() -> None:
    turn = Conversation(lang="en").respond("Can Qwen2.5-32B run on a card with 48 GB?")
    first = "\n".join(turn.answer.split("\n\n")[:2])
    assert "Taken as given" in first and "only its memory" in first, first


@pytest.mark.parametrize(("lang", "text"), [("en", "Can a 30B dense model run on one H100?"),
                                            ("zh", "一个 30B 的稠密模型，一张 H100 能跑吗")])
def test_a_dense_size_stands_in_with_a_dense_model(lang: str, text: str) -> None:
    from advisor.conversation.dialog.machine import default_catalog
    from knowledge.params import param_counts

    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    spec = default_catalog().find_model(conv.state.slots.model or "")
    assert spec is not None and not spec.is_moe, conv.state.slots.model
    counts = param_counts(spec)
    assert abs(counts.total / 30e9 - 1) < 0.15
    assert spec.name in turn.answer.split("\n\n")[1] or spec.name in turn.answer.split("\n\n")[0], turn.answer[:400]


def _llama_params(layers: int, hidden: int, heads: int, kv: int, inter: int, vocab: int) -> int:
    """Hand count of a Llama-layout decoder: per layer q and o (hidden × heads·128 each), k and v (hidden × kv·128
    each), gate/up/down (3 × hidden × inter), two RMSNorms; untied input and output embeddings; the final norm."""
    d = hidden // heads
    per_layer = 2 * hidden * heads * d + 2 * hidden * kv * d + 3 * hidden * inter + 2 * hidden
    return layers * per_layer + 2 * vocab * hidden + hidden


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "How much memory does a model with 80 layers, hidden size 8192, 64 heads, 8 kv heads, intermediate 28672, "
           "vocab 128256 need at 8k context?"),
    ("zh", "一个 80 层、hidden 8192、64 个注意力头、8 个 KV 头、intermediate 28672、词表 128256 的模型，8k 上下文需要多少显存"),
])
def test_a_model_typed_by_its_shape_is_sized_as_the_users_own(lang: str, text: str) -> None:
    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    assert (conv.state.slots.model or "").startswith("user-shape-"), conv.state.slots.model
    screen = turn.answer.split("<details>")[0]
    assert ("您自己的模型" if lang == "zh" else "your own model") in screen, screen
    hand = _llama_params(80, 8192, 64, 8, 28672, 128256)  # Llama-3-70B's shape: Meta publishes 70.6 B
    assert abs(hand / 70.6e9 - 1) < 0.005
    stated = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) ?B", screen)]
    assert any(abs(v - hand / 1e9) <= 0.1 for v in stated), (hand / 1e9, stated)
    kv = 2 * 80 * 8 * 128 * 2 * 8192  # bytes of KV cache for one 8k sequence: 2.5 GiB
    m = re.search(r"(?:KV cache|KV 缓存) (\d+(?:\.\d+)?) GiB", screen)
    assert m and abs(float(m.group(1)) - kv / 2**30) <= 0.05, screen
    w = re.search(r"(?:weights|权重) (\d+(?:\.\d+)?) GiB", screen)
    assert w and abs(float(w.group(1)) - hand * 2 / 2**30) <= 0.02 * hand * 2 / 2**30, screen


def test_a_shape_without_layers_and_hidden_size_is_not_a_model() -> None:
    conv = Conversation(lang="en")
    conv.respond("Can a model with 8 KV heads run on one H100?")
    assert not (conv.state.slots.model or "").startswith("user-shape-")


def test_what_the_shape_leaves_out_is_said_as_assumed() -> None:
    conv = Conversation(lang="en")
    turn = conv.respond("Can a 40-layer model with hidden 5120 and 8 KV heads run on one RTX 4090?")
    screen = turn.answer.split("<details>")[0]
    assert "assumed" in screen and "3.5 × hidden" in screen and "151,936" in screen, screen
    hand = _llama_params(40, 5120, 40, 8, 17920, 151936)
    stated = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) ?B", screen)]
    assert any(abs(v - hand / 1e9) <= 0.1 for v in stated), (hand / 1e9, stated)
