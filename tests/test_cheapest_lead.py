""""The cheapest hardware for X?" leads with the fitting configuration of the lowest full purchase (cards and
servers), worded as the cheapest, then the one recommended when that differs and what the cheapest lacks. The
reference is the options' own purchase totals in the turn's JSON: no fitting option may cost less to buy than the
one the answer leads with. Paraphrases in both languages; a question that does not ask for the cheapest keeps the
recommendation first."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation


def _turn(text: str, lang: str):
    return Conversation(lang=lang).respond(text)


def _purchase(o: dict) -> float:
    return float(o["tco"]["purchase"]["total"]["amount"] if isinstance(o["tco"]["purchase"]["total"], dict)
                 else o["tco"]["purchase"]["total"])


@pytest.mark.parametrize(("text", "lang", "opening"), [
    ("cheapest hardware to run deepseek r1 671b", "en", "The cheapest configuration that fits is"),
    ("What's the least expensive way to serve Llama 3.1 70B to 20 users?", "en", "The cheapest configuration"),
    ("most affordable GPUs for running Qwen2.5-32B in production?", "en", "The cheapest configuration"),
    ("跑 Qwen2.5-72B 推理最便宜的方案是什么", "zh", "能装下的最便宜配置是"),
    ("部署 Llama 3.1 8B，成本最低的配置？", "zh", "能装下的最便宜配置是"),
])
def test_the_cheapest_fitting_configuration_leads(text: str, lang: str, opening: str) -> None:
    turn = _turn(text, lang)
    assert turn.answer.startswith(opening), turn.answer[:300]
    contract = turn.to_contract()
    fitting = [o for o in contract["options"] if o["fits"] and o.get("tco") and o["meets_targets"]]
    assert fitting
    lowest = min(fitting, key=_purchase)
    first = turn.answer.split("\n")[0]
    named = f"{lowest['count']}× {lowest['gpu_name']}"
    assert first.index(named) < 80, (named, first[:200])  # the lowest purchase is the one named first


def test_a_plain_which_question_keeps_the_recommendation_first() -> None:
    turn = _turn("which GPUs to run deepseek r1 671b?", "en")
    assert turn.answer.startswith("I recommend"), turn.answer[:200]
