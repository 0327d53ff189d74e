"""A card named in the plural without a number ("on H100s", "with A100s") asks how many of it; a card whose own name
ends in S (L40S), a count, or "a/one card" keeps the question about the cards as named."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize("text", [
    "Serve Llama 3.1 70B to 300 users on H100s",
    "We want Qwen2.5-72B on A100s for 20 users with 8k context",
    "Llama-3.3-70B for our team of 40 on RTX 4090s",
])
def test_plural_card_is_a_how_many_question(text: str) -> None:
    turn = Conversation(lang="en").respond(text)
    assert turn.extra.get("intent") == "how_many", turn.extra.get("intent")
    assert turn.answer.startswith("You need "), turn.answer.split("\n")[0]


@pytest.mark.parametrize("text", [
    "Can I run Qwen2.5-14B on a 4090?",
    "Does Llama 3.1 8B fit on one H100?",
    "serve qwen2.5-72b on an l40s for 10 users",  # (bare, "on l40s for 10 users" asks how many: test_answers_dec6)
    "Can Qwen2.5-14B run on L40S?",
])
def test_singular_or_own_name_stays_about_the_card(text: str) -> None:
    turn = Conversation(lang="en").respond(text)
    assert turn.extra.get("intent") != "how_many"
