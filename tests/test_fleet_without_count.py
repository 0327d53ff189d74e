"""A card a team says it has, without a count ("we only have L40S", "我们公司只有 L20", "our cluster is all A100"),
is the card to size with: how many of it the job takes. It had been read as one card owned ("one card is short by
470 GiB … buy 8× RTX PRO 6000"). One card said by one person ("I have a 4090", "我有4090") stays one card."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation
from tests.answer_text import answer


def _first(text: str) -> str:
    return text.split("\n\n")[0]


def test_a_follow_up_names_the_card_and_the_load_is_sized_on_it() -> None:
    c = Conversation(driver="deterministic", lang="en")
    c.respond("We need to serve Qwen2.5-72B to 300 users. What hardware?")
    reply = c.respond("we only have L40S").answer
    head = _first(reply)
    assert "one card is short" not in head and re.search(r"\b(\d+)× NVIDIA L40S", head), head
    assert int(re.search(r"\b(\d+)× NVIDIA L40S", head).group(1)) >= 8  # 145 GB of BF16 weights, 48 GB cards


@pytest.mark.parametrize("lang,question,card", [
    ("en", "our cluster is all A100 80GB — how many to fine-tune Llama 3.1 70B with LoRA?", "NVIDIA A100 80GB"),
    ("en", "we have H100s. how many for Llama 3.1 405B at 8k?", "NVIDIA H100"),
    ("en", "Our company only has L40S cards; serving Qwen2.5-32B to 40 users, how many?", "NVIDIA L40S"),
    ("zh", "我们公司只有 L20，部署 Qwen2.5-72B 给 100 人同时用要几张？", "NVIDIA L20"),
])
def test_a_team_card_without_a_count_is_counted(lang: str, question: str, card: str) -> None:
    head = _first(answer(question, lang))
    m = re.search(r"(\d+)× " + re.escape(card), head)
    assert m and int(m.group(1)) >= 2, head
    assert "one card is short" not in head and "一张卡差" not in head, head


@pytest.mark.parametrize("lang,question,short", [
    ("en", "I have a 4090, can it run qwen2.5 14b?", "one card is short"),
    ("zh", "我有4090，能跑 Qwen2.5-14B 吗", "一张卡差"),
])
def test_one_persons_card_stays_one(lang: str, question: str, short: str) -> None:
    assert short in _first(answer(question, lang))


@pytest.mark.parametrize("lang,question,card", [
    ("zh", "咱们公司就几张 A800，想部署 Qwen2.5-72B 给 30 个人用，够吗？", "NVIDIA A800 80GB SXM4"),
    ("zh", "我们实验室只有 H800，LoRA 微调 Llama 3.1 70B 需要几张？", "NVIDIA H800"),
    ("en", "Our lab only has A800s. How many do we need to serve Llama 3.1 70B to 40 users?", "NVIDIA A800 80GB SXM4"),
])
def test_a_team_card_not_sold_new_is_judged_as_owned(lang: str, question: str, card: str) -> None:
    """Cards a team has cannot be "ruled out: export restricted": they are in hand. The answer sizes them, leads
    with them, and says what the market rules say of cards in hand (expansion is the problem), not a block."""
    text = answer(question, lang)
    head = _first(text)
    assert re.search(r"\d+× " + re.escape(card), head), head
    assert "ruled out" not in head and "被规则排除" not in head, head
    assert "⛔" not in text.split("<details>")[0], text.split("<details>")[0]
    in_hand = "已有的受限显卡" if lang == "zh" else "Restricted card already in hand"
    assert (lang == "en" or in_hand in text), text  # the market rule for owned cards (mainland China only)


def test_buying_the_same_card_is_still_ruled_out_in_china() -> None:
    """The owned judgement is for the team's own cards: a quote for buying A800s in China is still blocked."""
    head = _first(answer("报价：买 A800 部署 Qwen2.5-72B 给 30 人用", "zh"))
    assert "被规则排除" in head or "A800" not in head, head
