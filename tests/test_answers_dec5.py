"""Answers people see (Dec 5 review): each reported misreading checked with paraphrases in both languages, on the
meaning of the answer (which configurations are compared, which number leads), with figures from the estimator.
"""

from __future__ import annotations

from typing import Any

import pytest

from advisor.conversation.session import Conversation


def run(lang: str, turns: list[str]) -> Any:
    conv = Conversation(driver="deterministic", lang=lang)
    turn = None
    for text in turns:
        turn = conv.respond(text)
    return turn


def first_paragraph(answer: str) -> str:
    return answer.strip().split("\n\n")[0]


def hardware(turn: Any, role: str) -> set[str]:
    return {h["gpu"] for h in turn.extra["request"]["hardware"] if h["role"] == role}


# --- "X instead of / rather than Y": a comparison of the two configurations, never Y ruled out ----------------------
SUBSTITUTES = [
    ("en", "Should I get 4x RTX 4090 rather than one H100 for Llama 3 70B?", "rtx-4090", "h100"),
    ("en", "Can I use 2 A6000 instead of an H100 to serve Qwen2.5-32B?", "rtx-a6000", "h100"),
    ("en", "Is it smarter to buy two L40S instead of one H100 for Qwen2.5-32B?", "l40s", "h100"),
    ("en", "Thinking of running Qwen2.5-14B on a pair of 3090s in place of an A100, good idea?", "rtx-3090", "a100"),
    ("zh", "用4张4090代替H100跑Qwen2.5-72B行不行", "rtx-4090", "h100"),
    ("zh", "跑 Qwen2.5-32B，买两张 L40S 而不是一张 H100 划算吗", "l40s", "h100"),
    ("zh", "我想用两张3090替代A100跑Llama 3 8B，可以吗", "rtx-3090", "a100"),
    ("zh", "部署 Qwen2.5-14B 用 4090 取代 A100 可以吗", "rtx-4090", "a100"),
]


@pytest.mark.parametrize(("lang", "text", "new", "old"), SUBSTITUTES, ids=[c[1][:40] for c in SUBSTITUTES])
def test_instead_of_compares_both_configurations(lang: str, text: str, new: str, old: str) -> None:
    turn = run(lang, [text])
    req = turn.extra["request"]
    assert not any(h["gpu"].startswith(old) for h in req["hardware"] if h["role"] == "excluded"), req["hardware"]
    shown = hardware(turn, "compared") | hardware(turn, "candidate")
    assert new in shown and any(g.startswith(old) for g in shown), req["hardware"]
    first = first_paragraph(turn.answer)
    assert ("H100" if old == "h100" else "A100") in first, first  # both sides answered in the first sentence


@pytest.mark.parametrize(("lang", "text", "old"), [
    ("en", "What can I use instead of an H100 for Qwen2.5-72B?", "h100"),
    ("en", "Rather than the A100, which card would you pick for Llama 3.1 8B?", "a100"),
    ("zh", "不用 H100 的话，跑 Qwen2.5-72B 用什么卡", "h100"),
])
def test_instead_of_with_no_other_card_still_rules_it_out(lang: str, text: str, old: str) -> None:
    turn = run(lang, [text])
    assert any(g.startswith(old) for g in hardware(turn, "excluded")), turn.extra["request"]["hardware"]

