"""Amounts said loosely, said back: the value the answer used and the range the words cover, right after the first
paragraph ("“a few hundred users” read as 300 (200–500); tell me the exact number to change it.")."""

from __future__ import annotations

from typing import Any

from advisor.conversation.reader.loose import Loose, find, phrase
from advisor.conversation.render.book import Book
from knowledge.messages import t

SRC = "user input, read loosely (advisor.conversation.reader.loose)"


def loose_note(request: dict[str, Any], text: str, lang: str) -> str | None:
    """The sentence naming each inferred value read from loose words in `text` (None when there is none)."""
    inferred = [v for v in (*request.get("job", []), *request.get("limits", [])) if v.get("provenance") == "inferred"
                and v.get("low") is not None]
    counts = [h for h in request.get("hardware", []) if h.get("provenance") == "inferred" and h.get("count")]
    if not inferred and not counts:
        return None
    said: list[Loose] = []
    for x in find(text):
        used = any(v.get("text") == x.text for v in inferred) or any(abs(float(h["count"]) - x.value) < 1e-9
                                                                      for h in counts)
        if used and x not in said:
            said.append(x)
    if not said:
        return None
    return t("loose.note", lang, parts=t("loose.sep", lang).join(phrase(x, lang) for x in said))


def add_loose_note(request: dict[str, Any], turn: Any, text: str, lang: str) -> None:
    """Put the loose-amount sentence after the answer's first paragraph; its numbers are recorded."""
    note = loose_note(request, text, lang)
    if not note:
        return
    book = Book()
    book.text(note, "amount read loosely", SRC)
    turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
    head, sep, rest = turn.answer.partition("\n\n")
    turn.answer = head + "\n\n" + note + (sep + rest if rest else "")


__all__ = ["add_loose_note", "loose_note"]
