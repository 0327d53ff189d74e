""""How long to pre-train DeepSeek-V3 on 2,048 H800s?" is asked about the run its makers published: with no token
count said, the time is for the tokens they published (ModelSpec.pretrain_tokens, cited), not Chinchilla's 20 per
parameter (13.4 T for DeepSeek-V3's 671 B total parameters); a size stood in by a catalog model ("a 70B model") keeps
Chinchilla's, and a count said is the count used."""

from __future__ import annotations

import msgspec
import pytest

from knowledge.catalog import load_catalog
from knowledge.schemas import ModelSpec
from tests.answer_text import answer, number


@pytest.mark.parametrize(("text", "published_gpu_hours", "tokens"), [
    # DeepSeek-V3 report: 2,788K H800 GPU-hours in all (2,664K of pre-training) for 14.8 T tokens
    ("How long to pretrain DeepSeek-V3 on 2048 H800s?", 2.788e6, "14.8 T tokens"),
    # Llama 3.1 model card: 30.84M H100 GPU-hours for the 405B (the Llama 3 paper: 15.6 T tokens)
    ("How long would pretraining Llama 3.1 405B take on 16384 H100s?", 30.84e6, "15.6 T tokens"),
])
def test_a_named_model_is_pretrained_on_its_published_tokens(text: str, published_gpu_hours: float,
                                                             tokens: str) -> None:
    """Against the published totals (not fitted here): within the ±25 % the run totals are held to. With Chinchilla's
    default the DeepSeek-V3 answer had been for 13.42 T tokens, 9 % less data than the run it names."""
    a = answer(text)
    first = a.split("\n")[0]
    assert tokens in first and "published" in first, first
    assert abs(number(r"\(([\d,]+) GPU-hours\)", first) / published_gpu_hours - 1) <= 0.25, (first, published_gpu_hours)


def test_the_published_count_is_said_in_chinese() -> None:
    first = answer("在 1024 张 H100 上预训练 Llama-3.1-8B 要多久？", "zh").split("\n")[0]
    assert "公开的预训练数据量 15 万亿 tokens" in first, first


def test_a_size_stood_in_keeps_chinchilla() -> None:
    """"A 70B model" is the person's own new model: Llama-3.1-70B only stands in for its size, so its 15 T tokens are
    not the person's; the default stays 20 tokens per parameter (1.41 T)."""
    first = answer("How long to pretrain a 70B model on 2048 H100?").split("\n")[0]
    assert "default 1.41 T tokens" in first and "published" not in first, first


def test_tokens_said_are_the_tokens_used() -> None:
    first = answer("How long to pretrain DeepSeek-V3 on 2048 H800s with 2T tokens?").split("\n")[0]
    assert "2 T tokens" in first and "published" not in first, first


def test_the_published_count_needs_a_citation() -> None:
    raw = msgspec.json.decode(msgspec.json.encode(load_catalog().model("deepseek-v3")))
    raw["cite"].pop("pretrain_tokens")
    with pytest.raises(ValueError, match="pretrain_tokens"):
        msgspec.convert(raw, ModelSpec).check_invariants()


def test_the_published_tokens_are_not_asked_back() -> None:
    """The run's tokens are the published ones, said in the assumed line: the next question is another slot; a size's
    stand-in still asks for the person's own token count."""
    named = answer("What TP/PP/EP would you use for DeepSeek-V3 pretraining on 1024 H800?")
    assert "How many training tokens" not in named, named[-400:]
    stood_in = answer("How long to pretrain a 70B model on 2048 H100?")
    assert "How many training tokens" in stood_in, stood_in[-400:]
