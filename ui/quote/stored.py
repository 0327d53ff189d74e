"""Stored quotes: a turn's recommendation frozen, the first time it is exported, as the Markdown and JSON shown
for it ever after (the web app's `/quote/ID.md|json` and `gpu-advisor history export`). Imports no Gradio."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from advisor.conversation.turn import load_turn
from advisor.store.records import QuoteRecord
from advisor.store.sql import SqlStore
from ui.web import render as R


def freeze_quote(store: SqlStore, quote_id: str) -> QuoteRecord | None:
    """The frozen quote `quote_id`, frozen now from its turn when it is exported the first time."""
    found = store.get_quote(quote_id)
    if found is not None:
        return found
    row = store.turn_for_quote(quote_id)
    if row is None or not row.result:
        return None
    record = store.get_conversation(row.conversation_id)
    turn = load_turn(row.result)
    when = datetime.fromtimestamp(row.created_at, UTC)
    doc = json.loads(R.export_json(turn, question=row.question, generated_at=when))
    doc.update({"quote_id": quote_id, "conversation_id": row.conversation_id})
    quote = QuoteRecord(id=quote_id, conversation_id=row.conversation_id, owner=record.owner if record else "",
                        lang=turn.lang, question=row.question,
                        markdown=R.export_markdown(turn, question=row.question, lang=turn.lang, generated_at=when),
                        json=R.pretty_json(doc), computed_at=row.created_at, created_at=store.clock())
    return store.save_quote(quote)
