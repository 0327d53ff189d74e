"""A budget said for the cards alone ("the best GPU under $1000", "显卡预算 5000 元") is held against the cards' price,
not the whole server, and proposes cards for a PC or workstation; a budget for the machine stays the whole purchase."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(("text", "cards"), [
    ("Best GPU under $1000 for running 7B models?", True),
    ("What's the best graphics card I can get for $800 to fine-tune 7B with QLoRA?", True),
    ("显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡", True),
    ("想买一张 6000 元以内的显卡跑 14B 模型", True),
    ("I have $3000 for a whole PC build to run 13B models, what GPU?", False),
    ("预算 20 万，70B 推理，怎么配", False),
    ("budget $50k for a server to serve Llama 3.1 70B", False),
])
def test_what_the_budget_pays_for_is_read(text: str, cards: bool) -> None:
    s = extract(text, load_catalog())
    assert s.budget is not None and bool(s.budget_gpus) is cards, (s.budget, s.budget_gpus)


@pytest.mark.parametrize(("text", "lang"), [
    ("Best GPU under $1000 for running 7B models?", "en"),
    ("I can spend 900 dollars on a graphics card to run Llama 3.1 8B, which one?", "en"),
    ("显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡", "zh"),
])
def test_the_cards_price_is_within_the_budget_and_leads(text: str, lang: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    first = turn.answer.split("\n")[0]
    money = [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+)", first)]
    cards, budget = money[0], money[1]
    assert cards <= budget, first
    name = re.search(r"\d+× (.+?)[:：]", first).group(1)  # type: ignore[union-attr]
    gpu = next(g for g in load_catalog().gpus if g.name == name)
    assert gpu.segment != "datacenter", gpu.id
