""""What would it cost to pre-train a 1B model on 100B tokens on 8× H100?" asks for the job's cost: its GPU-hours
priced by the hour, against buying the cards (the rent-or-buy answer), not the purchase price of the cards alone.
A purchase said in so many words, or cards the person already has, keep their own answers."""

from __future__ import annotations

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang"), [
    ("What would it cost to pretrain a 1B model on 100B tokens on 8x H100?", "en"),
    ("How much would it cost to fine-tune Llama-3-8B with LoRA on 8 A100 for 1B tokens?", "en"),
    ("what's the cost of training a 3B model from scratch on 300B tokens with 16 H100s", "en"),
    ("预训练一个 1B 模型 1000 亿 tokens，用 8 张 H100，要花多少钱？", "zh"),
])
def test_a_training_jobs_cost_is_its_gpu_hours_priced(text: str, lang: str) -> None:
    a = answer(text, lang)
    head = "\n".join(a.split("\n")[:3])
    assert ("GPU-hour" in head and "rented" in head) or ("GPU 小时" in head and "租" in head), head


@pytest.mark.parametrize("text", [
    "How much do 8 H100 cost to buy for pretraining a 1B model?",  # a purchase, said
    "We have 8 H100. What would it cost to pretrain a 1B model on 100B tokens?",  # cards already owned
])
def test_a_purchase_or_owned_cards_keep_their_answer(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert "Renting" not in first and "rented by the hour" not in first, first


def test_owned_cards_cost_the_job_not_three_years() -> None:
    """Cards already owned: the running cost is for the job's own wall-clock hours (prices.py _running_cost_only),
    so the sentence says so, not 'over 3 years'."""
    first = answer("We have 8 H100. What would it cost to pretrain a 1B model on 100B tokens?").split("\n")[0]
    assert "this job's running cost" in first and "years" not in first, first
    zh = answer("我们有 8 张 H100，预训练 1B 模型 1000 亿 tokens 要花多少钱？", "zh").split("\n")[0]
    assert "这次训练的运行成本" in zh and "年" not in zh, zh


@pytest.mark.parametrize(("text", "lang", "card"), [
    # "A100 80G" is the catalog's "A100 80GB" said with the short unit: the same SXM4 card the alias names
    ("pretrain Llama-2-70B on 2T tokens with 2048 A100 80G, how many days", "en", "A100 80GB SXM4"),
    ("从头训练 Llama-2-70B，2T tokens，2048 张 A100 80G 要多少天", "zh", "A100 80GB SXM4"),
    ("pretrain Llama-2-70B on 2T tokens with 2048 A100 80G PCIe, how many days", "en", "A100 80GB PCIe"),
])
def test_a100_80g_is_the_card_its_alias_names(text: str, lang: str, card: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert card in first.split("GPU")[0], first
