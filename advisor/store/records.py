"""What the store keeps, as typed records (timestamps are Unix seconds, UTC)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from knowledge.structs import Value


def stored_at(ts: float) -> str:
    """A record's time (`updated_at`, `created_at`, `computed_at`: seconds since the epoch) as the history lists show
    it, to the minute in UTC: "2026-12-05 12:40 UTC"."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


class ConversationRecord(Value):
    """One conversation: who owns it, where it came from and its latest state (`Conversation.to_dict()` JSON text).

    `revision` counts committed turns; a write names the revision it started from (optimistic concurrency).
    `state` is the raw stored text: reading it may fail (a corrupt row), which the caller handles."""

    id: str
    owner: str
    source: str  # "web", "slack" or "cli"
    title: str
    state: str | None
    state_version: int
    revision: int
    created_at: float
    updated_at: float
    external_key: str | None = None


class TurnRecord(Value):
    """One answered question. `result` is the structured Turn (JSON text); `error` is set when the turn failed."""

    conversation_id: str
    seq: int
    request_id: str
    question: str
    answer: str
    result: str | None
    driver: str
    duration_s: float
    error: str | None
    quote_id: str | None
    created_at: float


class QuoteRecord(Value):
    """An exported recommendation, frozen when first exported: the Markdown and JSON shown for it, ever after."""

    id: str
    conversation_id: str
    owner: str
    lang: str
    question: str
    markdown: str
    json: str
    computed_at: float  # when the turn that produced it ran
    created_at: float  # when it was first exported


class NewTurn(Value):
    """A turn to record (`TurnRecord` minus what the store assigns: seq, quote id, time). `result` is the structured
    Turn: its JSON text as serialised once by the caller (`keeper.result_json(turn)`, ~100 kB: serialising it again
    from a dict costs ~1.5 ms a turn), or a JSON-ready dict."""

    request_id: str
    question: str
    answer: str
    result: str | dict[str, Any] | None
    driver: str
    duration_s: float
    error: str | None = None
    has_quote: bool = False


class Commit(Value):
    """Outcome of `commit_turn`: the conversation's new revision and the turn's sequence number and quote id;
    `duplicate` when the same request had been recorded before (nothing was written)."""

    revision: int
    seq: int
    quote_id: str | None
    duplicate: bool = False
