"""Defaults are answered with, not named and then asked for; two values offered for one slot are asked about, not
guessed. Answers are checked against hand arithmetic: BF16 weights = published parameters × 2 bytes; KV cache =
2 × layers × KV heads × head size × 2 bytes × context × sequences (config.json values)."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.conversation.session import Conversation

SHAPES = {"qwen2.5-7b": (28, 4, 128), "llama-3.1-8b": (32, 8, 128)}


def turns(lang: str, texts: list[str]) -> tuple[Conversation, Any]:
    conv = Conversation(driver="deterministic", lang=lang)
    for text in texts:
        turn = conv.respond(text)
    return conv, turn


def kv(model: str, ctx: int, seqs: int) -> float:
    layers, heads, dim = SHAPES[model]
    return 2 * layers * heads * dim * 2 * ctx * seqs


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Llama-3.1-8B"), ("en", "thinking about Qwen2.5-7B for our team"), ("en", "what about Mistral-7B?"),
    ("zh", "llama-3.1-8b"), ("zh", "我们在考虑 qwen2.5-7b"), ("zh", "mistral-7b 呢？"),
    ("en", "I want to train Qwen2.5-7B"), ("zh", "想训练一下 qwen2.5-7b"),
    ("en", "Qwen2.5-7B on an L4"), ("zh", "一张 L4 上的 qwen2.5-7b"),
])
def test_a_named_model_is_answered_with_the_defaults_then_at_most_one_question(lang: str, text: str) -> None:
    _, turn = turns(lang, [text])
    assert turn.options or turn.memory, turn.answer[:300]  # sized, not asked first
    assert len(turn.questions) <= 1
    first = turn.answer.split("\n\n")[0]
    assert "GiB" in turn.answer and not first.rstrip().endswith(("?", "？")), first
    for q in turn.questions:  # a question after the answer says the default it answered with
        assert ("default" in q or "默认" in q), q


@pytest.mark.parametrize(("lang", "text"), [("en", "Llama-3.1-8B"), ("zh", "llama-3.1-8b")])
def test_the_task_question_comes_after_a_serving_answer_and_a_reply_changes_it(lang: str, text: str) -> None:
    conv, turn = turns(lang, [text])
    assert turn.extra["request"]["act"] in ("other", "which")
    assert next(v for v in turn.extra["request"]["job"] if v["name"] == "task")["provenance"] == "default"
    assert turn.questions and ("serving" in turn.questions[0] or "推理部署" in turn.questions[0])
    after = conv.respond("fine-tune it with LoRA" if lang == "en" else "用 LoRA 微调")
    assert conv.state.slots.task == "lora" and after.options


@pytest.mark.parametrize(("lang", "first", "reply", "check"), [
    ("en", "70B or 8B on a 4090?", "8B", ("weights", "llama-3.1-8b")),
    ("zh", "70B 还是 8B 跑在 4090 上", "8B", ("weights", "llama-3.1-8b")),
    ("en", "Qwen2.5-7B, 8k or 32k context, on one H100", "32k", ("kv", "qwen2.5-7b", 32768, 1)),
    ("zh", "一张 H100 跑 qwen2.5-7b，上下文 8k 还是 32k", "8k", ("kv", "qwen2.5-7b", 8192, 1)),
    ("en", "Llama-3.1-8B for 20 or 50 users on one H100", "50 users", ("kv", "llama-3.1-8b", 4096, 50)),
    ("zh", "llama-3.1-8b 给 20 还是 50 个用户用，一张 H100", "20 个", ("kv", "llama-3.1-8b", 4096, 20)),
    ("en", "Qwen2.5-7B with 8k context on an H100; we need a 32k context window for RAG", "32k",
     ("kv", "qwen2.5-7b", 32768, 1)),
    ("zh", "qwen2.5-7b 上下文 8k，检索时上下文要 32k，一张 H100", "32k", ("kv", "qwen2.5-7b", 32768, 1)),
])
def test_two_values_for_one_slot_are_asked_about_then_sized(lang: str, first: str, reply: str,
                                                            check: tuple[Any, ...]) -> None:
    conv, turn = turns(lang, [first])
    assert len(turn.questions) == 1 and not turn.options and not turn.memory  # a question, not a guess
    assert turn.answer == turn.questions[0]
    sized = conv.respond(reply)
    mem = sized.memory or {}
    assert mem.get("count") == 1, sized.answer[:300]
    if check[0] == "weights":
        assert mem["weights"] == pytest.approx(8.03e9 * 2, rel=0.03)  # Llama-3.1-8B, BF16 (model card: 8.03B)
    else:
        _, model, ctx, seqs = check
        assert mem["kv_cache"] == pytest.approx(kv(model, ctx, seqs), rel=0.001)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Llama-3.1-70B vs Llama-3.1-8B on a 4090"),  # two named models: a comparison, not an ambiguity
    ("en", "Serve Qwen2.5-7B with 8k context to 20 users on one H100"),
    ("zh", "一张 H100 部署 qwen2.5-7b，8k 上下文，20 个用户"),
    ("en", "Llama-3.1-8B on one H100 with 8k context, actually make the context 16k"),  # a correction
    ("en", "Qwen2.5-7B on one H100, context 8192 tokens (8k context)"),  # one value written twice
])
def test_one_value_per_slot_is_not_an_ambiguity(lang: str, text: str) -> None:
    _, turn = turns(lang, [text])
    assert turn.options or turn.memory
