"""Each tool call of an analysis recorded as a `Step` (name, arguments, duration, a one-line summary); a Turn
carries them (advisor.conversation.turn), and the web chat shows them as collapsible steps."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from knowledge.errors import AdvisorError
from knowledge.structs import Frozen

T = TypeVar("T")


class Step(Frozen):
    """One tool call made during the turn (shown as a collapsible step in the web chat)."""

    name: str
    arguments: dict[str, Any] = msgspec.field(default_factory=dict)
    duration_s: float = 0.0
    ok: bool = True
    summary: str = ""


def timed(steps: list[Step], name: str, arguments: dict[str, Any], fn: Callable[[], T],
          summary: Callable[[T], str] = lambda r: "") -> T:
    """`fn()`, with a Step appended to `steps` (failed when it raises an AdvisorError, which propagates)."""
    start = time.perf_counter()
    try:
        result = fn()
    except AdvisorError as exc:
        steps.append(Step(name=name, arguments=arguments, duration_s=time.perf_counter() - start, ok=False,
                          summary=str(exc)))
        raise
    steps.append(Step(name=name, arguments=arguments, duration_s=time.perf_counter() - start, ok=True,
                      summary=summary(result)))
    return result
