"""The agent's failure reasons, its process-wide circuit breaker, and the state of one turn.

`AgentUnavailable(reason)` is how every failure leaves the agent (the session then answers deterministically);
`Stop` carries one out of the LangChain graph. The breaker opens after `CIRCUIT_FAILURES` consecutive transport
failures of one endpoint and model, for `CIRCUIT_OPEN_S` seconds. `TurnState` is the graph's runtime context:
the limits' counters, the deadline, the tool results, the queue of finished steps.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from advisor.conversation.llm.settings import Settings
from advisor.conversation.reader.lang import Lang
from advisor.conversation.tools.registry import ToolResult
from advisor.conversation.turn import Step
from knowledge.messages import t

CIRCUIT_FAILURES = 3  # consecutive transport failures that open the breaker
CIRCUIT_OPEN_S = 30.0

# the reasons an agent turn gives up; their words are "llm.reason.<reason>" in knowledge/messages
_REASONS = ("not_configured", "input_too_long", "unreachable", "rate_limited", "server_error", "timeout", "rejected",
            "malformed", "step_limit", "token_limit", "truncated", "empty", "ungrounded", "unanswered", "tools_failed",
            "unsafe_text", "circuit_open", "dependency", "error")


class AgentUnavailable(Exception):
    """The agent could not give a checked answer; `reason` is one of the keys of `_REASONS`."""

    def __init__(self, reason: str, detail: str = "", lang: str = "en") -> None:
        self.reason = reason if reason in _REASONS else "error"
        self.detail = detail
        self.lang = lang  # set by AgentDriver.run to the user's language; str() follows it
        super().__init__(t(f"llm.reason.{self.reason}", "en"))

    def __str__(self) -> str:
        return t(f"llm.reason.{self.reason}", self.lang)

    def note(self, lang: str = "en") -> str:
        """One short sentence for the user, in their language."""
        return t("llm.fallback_note", lang, why=t(f"llm.reason.{self.reason}", lang))


class Stop(Exception):
    """Raised inside the graph to end the run; carries the AgentUnavailable to re-raise outside."""

    def __init__(self, error: AgentUnavailable) -> None:
        super().__init__(str(error))
        self.error = error


# ==============================================================================================================
# Circuit breaker (process-wide, per endpoint and model)
# ==============================================================================================================

_breakers: dict[tuple[str, str], tuple[int, float]] = {}
_breaker_lock = threading.Lock()


def breaker_key(settings: Settings) -> tuple[str, str]:
    return (settings.base_url or "default", settings.model)


def breaker_open(key: tuple[str, str], now: float) -> bool:
    with _breaker_lock:
        failures, opened = _breakers.get(key, (0, 0.0))
        return failures >= CIRCUIT_FAILURES and now - opened < CIRCUIT_OPEN_S


def breaker_record(key: tuple[str, str], ok: bool, now: float) -> None:
    with _breaker_lock:
        if ok:
            _breakers.pop(key, None)
            return
        failures, _ = _breakers.get(key, (0, 0.0))
        _breakers[key] = (failures + 1, now)


def reset_breakers() -> None:
    with _breaker_lock:
        _breakers.clear()


# ==============================================================================================================
# Per-turn state (passed to the middleware as the graph's runtime context)
# ==============================================================================================================

# A dataclass, not a msgspec struct: LangGraph's `context_schema` must be a dataclass, TypedDict or pydantic model.
@dataclass
class TurnState:
    settings: Settings
    deadline: float
    clock: Callable[[], float]
    lang: Lang
    system_prompt: str
    http_timeouts: bool  # pass per-call timeouts (real OpenAI client only)
    call_tool: Callable[[Any, Any], ToolResult]  # tools.call_tool, or what a test puts in its place
    events: queue.Queue[tuple[str, Step | None]] = field(default_factory=queue.Queue)
    cancel: threading.Event = field(default_factory=threading.Event)
    model_calls: int = 0
    tool_calls: int = 0
    tokens: int = 0
    malformed_reasks: int = 0
    results: list[ToolResult] = field(default_factory=list)
    span: Any = None  # the turn's OpenTelemetry span (agent_tracing), None without opentelemetry
    error_type: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)  # tool calls of one step may run in parallel

    def reserve_tool_call(self) -> bool:
        """Count one tool call; False when the turn's limit is already used up."""
        with self.lock:
            self.tool_calls += 1
            return self.tool_calls <= self.settings.max_tool_calls

    def remaining(self) -> float:
        return self.deadline - self.clock()

    def check(self) -> None:
        """Raise when a limit is reached (called before every model call)."""
        if self.cancel.is_set() or self.remaining() <= 0:
            raise Stop(AgentUnavailable("timeout", "turn deadline"))
        if self.model_calls >= self.settings.max_steps:
            raise Stop(AgentUnavailable("step_limit", f"{self.model_calls} model calls"))
        if self.tokens >= self.settings.max_turn_tokens:
            raise Stop(AgentUnavailable("token_limit", f"{self.tokens} tokens"))
