"""Models and cards still missing from the catalog are answered honestly (issue 27, "honesty about the rest"), in
both languages: the unknown name comes first, with what would let the product answer (a config.json or the model's
shape; the card's memory size and bandwidth), and never a verdict about another card or model in its place.

When the card asked about is unknown but the model is known, the answer may say what the job needs (memory in GiB)
and, labelled as such, which catalog cards hold it; the weights it states are checked here against the makers'
published parameter count × bytes per weight, not against the estimator. Also checked by hand: the KV cache the
answer states for the new architectures at 32k tokens, from each model's own config.json shape:

    KV bytes per token = 2 (K and V) × layers keeping a full cache × KV heads × head_dim × 2 bytes (BF16)
    MLA (DeepSeek-V3, Kimi K2) = layers × (kv_lora_rank + qk_rope_head_dim) × 2 bytes, one latent per token
    sliding-window / chunked layers hold at most their window; linear-attention layers a fixed state
"""

from __future__ import annotations

import re

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render.firstscreen import split_details
from advisor.conversation.session import Conversation
from knowledge.structs import dump

GIB = 2**30


def _zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _ask(text: str) -> tuple[Conversation, object]:
    conv = Conversation(lang="zh" if _zh(text) else "en")
    return conv, conv.respond(text)


def _first_sentence(answer: str) -> str:
    head = split_details(answer)[0].strip().split("\n\n")[0]
    return re.split(r"(?<=\.)\s|(?<=。)", head, maxsplit=1)[0]


# (question, the unknown card as typed, catalog model asked about, its published parameters, bytes per weight); a Mac
# of any memory size is not unknown: its GPU share of the unified memory is sized (tests/test_answer_the_act.py)
UNKNOWN_CARDS = [
    ("Would an MI450X run Llama 3.3 70B at FP8?", "MI450X", "llama-3.3-70b", 70.6e9, 1.0),
    ("Can an RTX 6090 run Qwen3-32B?", "RTX 6090", "qwen3-32b", 32.8e9, 2.0),
    ("RTX 6090 能跑 Qwen3-32B 吗", "RTX 6090", "qwen3-32b", 32.8e9, 2.0),
    ("昇腾 950 能跑 Qwen3-30B-A3B 吗", "昇腾 950", "qwen3-30b-a3b", 30.5e9, 2.0),
    ("How many Ascend 950 cards for DeepSeek-V3?", "Ascend 950", "deepseek-v3", 671e9, 1.0),
    ("Is one B400 enough for gpt-oss-120b?", "B400", "gpt-oss-120b", 116.83e9, 4.25 / 8),
    ("MI400 跑 GLM-4.5-Air 需要几张", "MI400", "glm-4.5-air", 106e9, 2.0),
    ("一张 5090 Ti 能跑 Qwen3-8B 吗", "5090 Ti", "qwen3-8b", 8.2e9, 2.0),
    ("Can an Arc B580 run Gemma 3 12B?", "Arc B580", "gemma-3-12b", 12.19e9, 2.0),  # (the 4070 Ti SUPER is in the catalog now)
    ("H300 上能跑 Kimi K2 吗", "H300", "kimi-k2", 1.0e12, 1.0),
    ("Jetson AGX Thor 能跑 Qwen3-30B-A3B 吗", "Jetson AGX Thor", "qwen3-30b-a3b", 30.5e9, 2.0),
    ("Is an RX 9070 XT enough for Qwen3-14B?", "RX 9070 XT", "qwen3-14b", 14.8e9, 2.0),  # (the 7900 XTX: in the catalog)
    ("TPU v5e 跑 Llama 3.1 8B 需要几张", "TPU v5e", "llama-3.1-8b", 8.03e9, 2.0),
    ("摩尔线程 MTT S4000 能跑 Qwen3-14B 吗", "MTT S4000", "qwen3-14b", 14.8e9, 2.0),
    ("寒武纪 MLU370 跑 Qwen3-8B 要几张", "MLU370", "qwen3-8b", 8.2e9, 2.0),
    ("昆仑芯 P800 跑 DeepSeek-V3 需要几张", "P800", "deepseek-v3", 671e9, 1.0),
]

# (question, the unknown model as typed): no catalog model stands in for it
UNKNOWN_MODELS = [
    ("Can Llama 5 70B run on 2 H100s?", "Llama 5"),
    ("Qwen4-200B 需要几张 H20", "Qwen4-200B"),
    ("How much memory does DeepSeek-V4 need?", "DeepSeek-V4"),
    ("Gemma 4 27B 能在一张 4090 上跑吗", "Gemma 4 27B"),
    ("Mistral Large 3 需要几张 H100", "Mistral Large 3"),
    ("Will GLM-5.2 fit on 8× H200?", "GLM-5.2"),
    ("Qwen3.5-72B 要几张 A100", "Qwen3.5-72B"),
    ("MI450X 能跑 Llama 5 吗", "Llama 5"),  # both unknown: the model first, the card named too
    ("Can Llama 4 Behemoth run on 8 B200?", "Llama 4 Behemoth"),  # not Scout or Maverick, and named whole
    ("Kimi K2.6 要几张 H200", "Kimi K2.6"),  # a point release is another model than Kimi K2
    ("Phi-5 能在一张 4090 上跑吗", "Phi-5"),
]


@pytest.mark.parametrize(("text", "card", "model", "params", "bpw"), UNKNOWN_CARDS, ids=[q[0] for q in UNKNOWN_CARDS])
def test_an_unknown_card_gets_no_verdict_and_is_named_first(text: str, card: str, model: str, params: float,
                                                            bpw: float) -> None:
    conv, turn = _ask(text)
    zh = _zh(text)
    first = _first_sentence(turn.answer)
    assert card in first, first
    assert ("显存容量和显存带宽" if zh else "memory size and memory bandwidth") in first, first
    assert conv.state.slots.model == model, conv.state.slots.model
    assert turn.extra.get("answer_verdict") is None, turn.answer[:400]  # no yes/no about a card it knows nothing of
    screen = split_details(turn.answer)[0]
    if turn.extra.get("kind") == "question":  # it asks what is missing first (the task): no card sized at all
        assert not turn.memory and not any(g.name in screen for g in default_catalog().gpus), screen
        return
    lead = screen.split("\n\n")[1]
    assert not re.match(r"\*\*(Yes|No|Not as asked|可以|不够|按原样不行)", lead), lead
    assert not lead.startswith(("You need", "需要", "建议")), lead
    # any catalog card in the lead comes after the label that says it is not the card asked about
    label = "仅供参考" if zh else "For reference only"
    names = [g.name for g in default_catalog().gpus if g.name in lead]
    for name in names:
        assert label in lead and lead.index(label) < lead.index(name), (name, lead)
    # the weights it states: the published count × bytes per weight (+6 % for scales and BF16 embeddings)
    stated = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) GiB", lead)]
    weights = params * bpw / GIB
    assert any(0.94 * weights <= v <= 1.15 * weights for v in stated), (weights, stated, lead)


@pytest.mark.parametrize(("text", "word"), UNKNOWN_MODELS, ids=[q[0] for q in UNKNOWN_MODELS])
def test_an_unknown_model_is_named_first_and_nothing_stands_in(text: str, word: str) -> None:
    conv, turn = _ask(text)
    first = _first_sentence(turn.answer)
    assert word in first, first
    assert "config.json" in turn.answer.split("\n\n")[0], turn.answer[:300]
    assert conv.state.slots.model is None, conv.state.slots.model  # no other model sized in its place
    assert not turn.memory, turn.memory
    assert turn.extra.get("answer_verdict") is None


def test_the_unknown_set_is_large_and_bilingual() -> None:
    texts = [q[0] for q in UNKNOWN_CARDS] + [q[0] for q in UNKNOWN_MODELS]
    assert len(texts) >= 15 and sum(map(_zh, texts)) >= 7 and sum(not _zh(t) for t in texts) >= 7


T = 32768
# bytes of KV cache per sequence of T tokens, from each config.json (layers, KV heads, head_dim; windows)
KV_BY_HAND = {
    "Qwen3-32B": 2 * 64 * 8 * 128 * 2 * T,  # 64 layers, 8 KV heads × 128
    "Llama 3.3 70B": 2 * 80 * 8 * 128 * 2 * T,  # 80 layers, 8 KV heads × 128
    "GLM-4.5-Air": 2 * 46 * 8 * 128 * 2 * T,  # 46 layers, 8 KV heads × 128
    "MiniMax-M2": 2 * 62 * 8 * 128 * 2 * T,  # 62 layers, 8 KV heads × 128
    "Qwen3-235B-A22B": 2 * 94 * 4 * 128 * 2 * T,  # 94 layers, 4 KV heads × 128
    # 36 layers alternating full and 128-token sliding attention, 8 KV heads × 64
    "gpt-oss-120b": 2 * 18 * 8 * 64 * 2 * T + 2 * 18 * 8 * 64 * 2 * 128,
    # 62 layers, every 6th global (10), the other 52 a 1024-token window; 16 KV heads × 128
    "Gemma 3 27B": 2 * 10 * 16 * 128 * 2 * T + 2 * 52 * 16 * 128 * 2 * 1024,
    # 48 layers, every 4th global (12), the other 36 chunked attention of 8192 tokens; 8 KV heads × 128
    "Llama 4 Scout": 2 * 12 * 8 * 128 * 2 * T + 2 * 36 * 8 * 128 * 2 * 8192,
    # MLA: 61 layers × (512 latent + 64 rope key)
    "DeepSeek-V3.1": 61 * (512 + 64) * 2 * T,
    "Kimi K2": 61 * (512 + 64) * 2 * T,
    # 48 layers, every 4th full attention (12) with 2 KV heads × 256; 36 Gated DeltaNet layers keep a fixed state of
    # 32 value heads × 128 × 128 (+ a 4-tap conv state of 2·16·128 + 32·128 channels), 2 bytes each
    "Qwen3-Next-80B-A3B": 2 * 12 * 2 * 256 * 2 * T + 36 * (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2,
}


@pytest.mark.parametrize(("lang", "name"), [(("zh" if i % 2 else "en"), n) for i, n in enumerate(KV_BY_HAND)])
def test_the_kv_cache_stated_matches_the_config_by_hand(lang: str, name: str) -> None:
    text = (f"{name} 在 32k 上下文下需要多少显存" if lang == "zh" else f"How much memory does {name} need at 32k context?")
    turn = Conversation(lang=lang).respond(text)
    lead = split_details(turn.answer)[0].split("\n\n")[0]
    m = re.search(r"(?:KV cache|KV 缓存) (\d+(?:\.\d+)?) GiB", lead)
    assert m, lead
    hand = KV_BY_HAND[name] / GIB
    assert abs(float(m.group(1)) - hand) <= max(0.05, 0.02 * hand), (float(m.group(1)), hand, lead)


@pytest.mark.parametrize(("text", "card"), [
    ("MI450X 有 432GB 显存，带宽 19.6TB/s，能跑 DeepSeek-V3 吗", "MI450X"),
    ("Can an MI450X with 432 GB of HBM4 run Kimi K2 in FP8?", "MI450X"),
])
def test_an_unknown_card_with_its_specs_is_sized_from_them_and_named(text: str, card: str) -> None:
    """The user gave the memory of the card the catalog lacks: the answer says it uses those specs (not "nothing
    below is about it"), and its verdict is about that card: the weights alone (671 B × 1 byte for DeepSeek-V3 in
    FP8; 1 T × 1 byte for Kimi K2) exceed 432 GB, so no."""
    _, turn = _ask(text)
    screen = split_details(turn.answer)[0]
    first = screen.split("\n\n")[0]
    assert card in first and ("按您给的规格" in first or "specs you gave" in first), first
    assert "nothing below" not in first and "下面不是关于它" not in first, first
    assert turn.extra.get("answer_verdict") == "no", screen[:400]
    assert f"{card}" in screen.split("\n\n", 2)[2], screen  # the taken-as-given line names the card


@pytest.mark.parametrize(("text", "gpu"), [("How much do 2 H200 NVL cost?", "h200-nvl"),
                                           ("两张 RTX PRO 5000 Blackwell 多少钱", "rtx-pro-5000-blackwell")])
def test_a_price_question_about_an_unpriced_card_says_so_first(text: str, gpu: str) -> None:
    """The catalog has no dated price for the card (its `unpriced` says why): the answer says it cannot price it
    first, not a market status in place of a price, and shows no money figure."""
    card = default_catalog().find_gpu(gpu)
    assert card is not None and not card.prices and card.unpriced
    _, turn = _ask(text)
    first = _first_sentence(turn.answer)
    assert ("无法报价" in first) if _zh(text) else ("cannot be priced" in first), first
    assert not re.search(r"[$¥]\s?\d", split_details(turn.answer)[0]), turn.answer[:300]


def test_an_unknown_card_gets_no_verdict_when_only_memory_is_estimated(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recommender failing leaves the memory-only answer: it too says there is no verdict on the unknown card
    instead of recommending another card in its headline."""
    import advisor.recommend.recommender

    def broken(*_a: object, **_k: object) -> None:
        raise RuntimeError("recommender down")

    monkeypatch.setattr(advisor.recommend.recommender, "recommend", broken)
    _, turn = _ask("Would an MI450X run Llama 3.3 70B at FP8?")
    head = split_details(turn.answer)[0].split("\n\n")
    assert "MI450X" in head[0] and "No verdict on the MI450X" in head[1], head[:2]
    assert not head[1].startswith(("**Recommendation", "**Yes", "**No")), head[1]


@pytest.mark.parametrize("text", [
    "Would an MI450X run Llama 3.3 70B at FP8?", "RTX 6090 能跑 Qwen3-32B 吗",
    "Can an MI450X with 432 GB of HBM4 run Kimi K2 in FP8?", "How much do 2 H200 NVL cost?",
    "Can a 40-layer model with hidden 5120 and 8 KV heads run on one RTX 4090?",
    "一个 64 层、hidden 5120、64 个注意力头、8 个 KV 头、intermediate 25600 的模型需要几张 H100",
])
def test_every_number_on_these_first_screens_is_recorded(text: str) -> None:
    """The grounding gate: each number of the first screen is a Number the turn recorded (or one the user typed)."""
    from advisor.conversation.grounding import gate as grounding

    _, turn = _ask(text)
    pool = grounding.Pool.of([{"numbers": [dump(n) for n in turn.numbers]}], texts=[text])
    for n in turn.numbers:
        pool.add_text(f"{n.value!r} {n.unit}")
    report = grounding.check(split_details(turn.answer)[0], pool)
    assert report.ok, [m.text for m in report.ungrounded]
