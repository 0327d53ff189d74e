"""Helpers the answer tests share: one deterministic answer to a question, and a number read out of its text."""

from __future__ import annotations

import re

from advisor.conversation.session import Conversation


def answer(text: str, lang: str = "en") -> str:
    """The deterministic dialog's answer to `text`, asked as the first turn of a conversation in `lang`."""
    return Conversation(driver="deterministic", lang=lang).respond(text).answer


def number(pattern: str, text: str) -> float:
    """The first group of `pattern` in `text` as a number (thousands separators dropped); fails the test when absent."""
    m = re.search(pattern, text)
    assert m, f"{pattern!r} not in {text[:400]!r}"
    return float(m.group(1).replace(",", ""))
