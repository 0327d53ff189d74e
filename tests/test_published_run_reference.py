""""How long to pre-train Llama-3-8B on 1,024 H100?": beside the estimate, the GPU-hours the model's makers published
for that very run (ModelSpec.pretrain_gpu_hours, cited), with how far the estimate is from it when it ran on the same
card, so a person reads the estimate against the one measured total there is. Not an input: the estimate is the
planner's either way. Said only for pre-training on exactly the published token count."""

from __future__ import annotations

import pytest

from knowledge.catalog import load_catalog
from tests.answer_text import answer, number


def _first(text: str, lang: str = "en") -> str:
    return answer(text, lang).split("\n")[0]


def test_every_published_total_is_cited_and_names_a_catalog_card() -> None:
    cat = load_catalog()
    with_totals = [m for m in cat.models if m.pretrain_gpu_hours]
    assert len(with_totals) >= 10
    for m in with_totals:
        assert cat.find_gpu(m.pretrain_gpu or "") is not None, (m.id, m.pretrain_gpu)
        assert m.cite.get("pretrain_gpu_hours"), m.id
        assert m.pretrain_tokens, m.id


@pytest.mark.parametrize(("text", "hours", "direction"), [
    # DeepSeek-V3 report Table 1: 2,664K H800 GPU-hours of pre-training (2,788K with context extension and post-training)
    ("How long to pre-train DeepSeek-V3 on 2048 H800s?", "2,664,000", "above"),
    # Llama 3 model card: 1.3M H100-80GB GPU-hours for the 8B, on over 15 T tokens
    ("GPU-hours to train Llama-3-8B from scratch on 15T tokens with 1024 H100?", "1,300,000", "below"),
    ("what would pretraining llama 3.1 405b cost in time on 16384 h100", "30,840,000", ""),
])
def test_the_published_total_follows_the_estimate(text: str, hours: str, direction: str) -> None:
    first = _first(text)
    assert "published total" in first and hours in first, first
    assert first.index("published total") > first.index("GPU-hours)"), first  # after the estimate, not instead
    if direction:
        assert f"% {direction} it" in first, first
    est = number(r"\(([\d,]+) GPU-hours\)", first)
    pub = float(hours.replace(",", ""))
    pct = number(r"estimate is ([\d.]+) %", first)
    assert abs(pct - abs(est / pub - 1) * 100) <= 0.6, (first, est, pub)


def test_far_below_says_what_a_whole_run_also_pays_for() -> None:
    """Llama 3 8B's card total is 2.6× the planner's steady-state estimate: the answer says so and why."""
    first = _first("GPU-hours to train Llama-3-8B from scratch on 15T tokens with 1024 H100?")
    assert "restarts" in first, first


def test_another_card_gets_the_total_without_a_ratio() -> None:
    first = _first("How long to pre-train Llama-3.1-8B on 512 B200?")
    assert "published total" in first and "H100" in first, first
    assert "estimate is" not in first, first


@pytest.mark.parametrize("text", [
    "How long to pre-train Llama-3-8B on 1T tokens with 256 H100?",  # not the published token count
    "How long to LoRA fine-tune Llama-3-8B on 100M tokens with 8 H100?",  # not pre-training
    "How long to pre-train a 7B model on 2T tokens with 256 H100?",  # a stand-in with no published total
])
def test_no_published_total_where_it_is_not_that_run(text: str) -> None:
    first = _first(text)
    assert "published total" not in first, first


def test_the_published_total_is_said_in_chinese() -> None:
    first = _first("用 2048 张 H800 预训练 DeepSeek-V3 要多久？", "zh")
    assert "官方公布的这次预训练总量" in first and "2,664,000" in first and "本估算比它高" in first, first
