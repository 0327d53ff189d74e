""""Which model can I run on my card?": the largest catalog models that fit, each at the most precise format that
fits. Checked against hand arithmetic: weights = parameters × bits per weight / 8 (Q4_K_M ≈ 4.85 bits, llama.cpp's
quantize table), and the recommender's 10 % headroom."""

from __future__ import annotations

import re

import pytest

from advisor.analysis.model_fit import models_that_fit
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
GIB = 2**30


def test_every_listed_model_leaves_ten_percent_of_the_card_free() -> None:
    gpu = CAT.gpu("rtx-4090")
    fits = models_that_fit(CAT, gpu)
    assert fits and all(f.per_gpu.n <= 0.9 * gpu.memory_bytes for f in fits)
    # largest first, and the largest is a ~32-34 B model at 4 bits: 34e9 × 4.85 / 8 ≈ 19.2 GiB of weights < 21.6 GiB,
    # while a 70 B model needs 70.6e9 × 4.85 / 8 ≈ 39.9 GiB — not on one card
    params = [f.params for f in fits]
    assert params == sorted(params, reverse=True)
    assert 30e9 < fits[0].params < 40e9 and fits[0].weights == "q4_k_m"
    assert not any(f.model.id == "llama-3.1-70b" for f in fits)


def test_two_cards_hold_a_70b_at_four_bits() -> None:
    # 70.6e9 × 4.85 / 8 / 2 ≈ 20.0 GiB of weights per card, under 0.9 × 24 GiB = 21.6 GiB
    fits = models_that_fit(CAT, CAT.gpu("rtx-3090"), 2)
    seventy = next(f for f in fits if f.model.id == "llama-3.1-70b")
    assert seventy.weights == "q4_k_m" and seventy.per_gpu.n <= 0.9 * 24 * GIB


def test_full_precision_when_it_fits() -> None:
    # an 8 B model in BF16 on an 80 GB H100: 8.03e9 × 2 B ≈ 15 GiB — its own precision, no quantisation
    fit = next(f for f in models_that_fit(CAT, CAT.gpu("h100-sxm")) if f.model.id == "llama-3.1-8b")
    assert fit.weights == "bf16" and fit.full_precision


@pytest.mark.parametrize("lang,text", [
    ("en", "What's the biggest model I can run on my RTX 4090?"),
    ("en", "I have a single 4090 — which LLMs will it handle?"),
    ("zh", "我有一张 4090，最大能跑多大的模型？"),
    ("zh", "一张 4090 能跑什么模型"),
])
def test_which_model_questions_list_models_that_fit(lang: str, text: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    first = turn.answer.split("\n")[0]
    assert turn.extra.get("kind") == "model_fit", first
    assert ("能跑的最大" in first) if lang == "zh" else first.startswith("**The largest models that fit 1× GeForce RTX 4090")
    for gib in re.findall(r"([\d.]+) GiB", first)[1:]:  # each model's memory per GPU (the first is the card's)
        assert float(gib) <= 0.9 * 24


def test_a_coding_question_lists_coding_models_first() -> None:
    turn = Conversation(lang="zh").respond("我只有一张 4060 Ti 16G，想本地跑个模型写代码，推荐哪个")
    first = turn.answer.split("\n")[0]
    assert "编程模型" in first and "Coder" in first.split("：", 1)[1].split("；")[0]


def test_a_named_model_is_still_sized_as_asked() -> None:
    turn = Conversation(lang="en").respond("Can I run Qwen2.5-14B on a 4090?")
    assert turn.extra.get("kind") != "model_fit"
