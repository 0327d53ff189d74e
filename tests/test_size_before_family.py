"""A size said before the family: "Would a 70B like Llama 3.1 in 4 bits work across three 3090 cards?" had answered
"unknown model 'Llama 3.1'"."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "model"), [
    ("Would a 70B like Llama 3.1 in 4 bits work across three 3090 cards?", "en", "llama-3.1-70b"),
    ("Can the 8B Llama 3.1 run on a 4060 Ti?", "en", "llama-3.1-8b"),
    ("a 7B model like Mistral on one T4?", "en", "mistral-7b-v0.3"),
    ("72B 的 Qwen2.5 要几张 A100？", "zh", "qwen2.5-72b"),
])
def test_the_family_of_that_size(text: str, lang: str, model: str) -> None:
    assert extract(text, CAT, lang=lang).model == model


def test_tokens_before_a_family_are_no_model_size() -> None:
    slots = extract("pretrain on 70B tokens like Llama 3 did, which GPUs?", CAT, lang="en")
    assert slots.model is None and slots.train_tokens == 70e9


def test_the_usual_order_still_reads_first() -> None:
    assert extract("Llama 3.1 70B or a 8B, which fits a 4090?", CAT, lang="en").model == "llama-3.1-70b"
