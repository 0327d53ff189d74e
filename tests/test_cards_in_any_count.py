"""Cards in a count whose TP the model's heads cannot take. "Can I run Llama-3.1-70B in 4-bit on 3 RTX 3090s?" had
answered "No, short by 19.4 GiB … 2× RTX 3090 fits": three cards were sized as one card holding the whole model
(TP 3 splits no 64-head model), while two were enough. Three cards are a pipeline of three stages (vLLM
--pipeline-parallel-size 3, llama.cpp's layer split), and four cards of Phi-4 (10 KV heads, no TP 4) are TP 2 × PP 2."""

from __future__ import annotations

import pytest

from advisor.analysis.model_fit import models_that_fit
from advisor.recommend.search import Search, Sizing, _layout_at
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize("model", ["llama-3.1-70b", "qwen2.5-72b", "qwen2.5-32b", "mixtral-8x7b", "gemma-3-27b",
                                   "phi-4"])
@pytest.mark.parametrize("gpu", ["rtx-3090", "l40s", "rtx-5060-ti-16g", "h100-sxm"])
@pytest.mark.parametrize("weights", ["bf16", "int4"])
def test_one_more_card_never_stops_a_fit(model: str, gpu: str, weights: str) -> None:
    """In one server, a model that fits k cards fits k + 1 of them (k = 1 … 7)."""
    search = Search(CAT.model(model), Workload(model=model, weights=weights), Constraints(), CAT)
    fits = [isinstance(_layout_at(search, CAT.gpu(gpu), n, 1), Sizing) for n in range(1, 9)]
    first = fits.index(True) if True in fits else len(fits)
    assert all(fits[first:]), [n + 1 for n, ok in enumerate(fits) if not ok]


def test_three_cards_are_three_stages() -> None:
    search = Search(CAT.model("llama-3.1-70b"), Workload(model="llama-3.1-70b", weights="int4"), Constraints(), CAT)
    found = _layout_at(search, CAT.gpu("rtx-3090"), 3, 1)
    assert isinstance(found, Sizing) and (found.layout.tp, found.layout.pp) == (1, 3)


def test_four_cards_of_phi4_are_two_by_two() -> None:
    search = Search(CAT.model("phi-4"), Workload(model="phi-4"), Constraints(), CAT)
    found = _layout_at(search, CAT.gpu("rtx-5060-ti-16g"), 4, 1)
    assert isinstance(found, Sizing) and (found.layout.tp, found.layout.pp) == (2, 2)


@pytest.mark.parametrize(("text", "lang", "opening"), [
    ("Can I run Llama-3.1-70B in 4-bit on 3 RTX 3090s?", "en", "**Yes: 3× GeForce RTX 3090 fits** (PP 3"),
    ("Would a 70B like Llama 3.1 in 4 bits work across three 3090 cards?", "en", "**Yes: 3× GeForce RTX 3090 fits**"),
    ("Can I run Llama-3.1-70B Q4_K_M with llama.cpp on 3 RTX 3090s?", "en", "**Yes: 3× GeForce RTX 3090 fits** (PP 3"),
    ("我有 3 张 3090，能跑 Qwen2.5-72B 的 4bit 吗？", "zh", "**可以：3× GeForce RTX 3090 放得下**"),
])
def test_the_answer_fits_three_cards(text: str, lang: str, opening: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert first.startswith(opening), first


def test_the_largest_models_on_three_cards_include_a_70b_at_four_bits() -> None:
    fits = models_that_fit(CAT, CAT.gpu("rtx-3090"), 3)
    seventy = next(f for f in fits if f.model.id == "llama-3.1-70b")
    assert seventy.weights == "q4_k_m" and seventy.per_gpu.gib < 21.6
    assert fits[0].params > 70e9  # not a 27B at BF16 first
