"""Events the servers measure, raised by the core without depending on any metrics library.

    observe.add_listener(listener)        # ui.server.metrics registers one in server processes (and turn workers)
    observe.turn_finished(conv, turn, s)  # Conversation.stream, once per turn
    observe.rule_engine_error("failure")  # rules.engine, when an evaluation fails ("rebuild" when rebuilt)
    observe.store_error("slack", "save")  # a conversation store that could not read or write

`CONVERSATION_ID` (a context variable) holds the id of the conversation whose turn runs in this thread or task;
the JSON log formatter (ui.server.logs) writes it on every line. With no listener registered every call is a no-op.
"""

from __future__ import annotations

import logging
import uuid
from contextvars import ContextVar
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn

log = logging.getLogger(__name__)

CONVERSATION_ID: ContextVar[str | None] = ContextVar("conversation_id", default=None)


class Listener(Protocol):
    def turn_finished(self, driver: str, turn: Turn, seconds: float) -> None: ...
    def rule_engine_error(self, kind: str) -> None: ...
    def store_error(self, store: str, operation: str) -> None: ...


_LISTENERS: list[Listener] = []


def add_listener(listener: Listener) -> None:
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _LISTENERS:
        _LISTENERS.remove(listener)


def conversation_id(conv: object) -> str:
    """A stable id for `conv` (any conversation object): its own `conversation_id` when it has one, else one given
    on first use."""
    cid = getattr(conv, "conversation_id", None) or getattr(conv, "_observe_id", None)
    if not cid:
        cid = uuid.uuid4().hex[:16]
        try:
            setattr(conv, "_observe_id", cid)  # noqa: B010 - a private mark on any object, not one of its fields
        except AttributeError:  # pragma: no cover - an object without a __dict__
            pass
    return str(cid)


def turn_started(conv: object) -> None:
    """Mark this thread's turn as belonging to `conv` (its log lines carry the id)."""
    CONVERSATION_ID.set(conversation_id(conv))


def _emit(method: str, *args: object) -> None:
    for listener in _LISTENERS:
        try:
            getattr(listener, method)(*args)
        except Exception:
            log.debug("observe listener failed", exc_info=True)


def turn_finished(conv: object, turn: Turn, seconds: float) -> None:
    _emit("turn_finished", str(getattr(conv, "driver", "") or "deterministic"), turn, seconds)


def rule_engine_error(kind: str) -> None:
    _emit("rule_engine_error", kind)


def store_error(store: str, operation: str) -> None:
    _emit("store_error", store, operation)
