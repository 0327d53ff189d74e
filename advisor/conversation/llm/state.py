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

CIRCUIT_FAILURES = 3  # consecutive transport failures that open the breaker
CIRCUIT_OPEN_S = 30.0

_REASONS: dict[str, tuple[str, str]] = {
    "not_configured": ("no language model is configured", "未配置语言模型"),
    "input_too_long": ("the message is too long for the language model", "消息过长，未发送给语言模型"),
    "unreachable": ("the model server could not be reached", "无法连接模型服务"),
    "rate_limited": ("the model server is rate-limiting requests (HTTP 429)", "模型服务限流（HTTP 429）"),
    "server_error": ("the model server returned an error", "模型服务返回错误"),
    "timeout": ("the model did not answer in time", "模型响应超时"),
    "rejected": ("the model server refused the request", "模型服务拒绝了请求"),
    "malformed": ("the model sent malformed tool calls", "模型返回了格式错误的工具调用"),
    "step_limit": ("the model used up its steps for this turn", "模型超出本轮步数上限"),
    "token_limit": ("the model used up its token budget for this turn", "模型超出本轮 token 上限"),
    "truncated": ("the model's answer was cut off", "模型回答被截断"),
    "empty": ("the model returned an empty answer", "模型返回了空回答"),
    "ungrounded": ("its numbers did not match the tools' results", "回答中的数字与工具结果不符"),
    "unanswered": ("its first sentence did not answer the question", "回答的第一句没有直接回答问题"),
    "tools_failed": ("it named hardware without a successful tool result", "没有成功的工具结果却给出了硬件建议"),
    "unsafe_text": ("it asked for a secret or pointed to an outside address", "回答索要密钥或指向外部网址"),
    "circuit_open": ("the model server failed repeatedly; paused for a moment", "模型服务连续失败，暂停调用"),
    "dependency": ("the LLM libraries are not installed (pip install 'gpu-advisor[llm]')",
                   "未安装 LLM 依赖（pip install 'gpu-advisor[llm]'）"),
    "error": ("the agent failed", "智能体运行出错"),
}


class AgentUnavailable(Exception):
    """The agent could not give a checked answer; `reason` is one of the keys of `_REASONS`."""

    def __init__(self, reason: str, detail: str = "", lang: str = "en") -> None:
        self.reason = reason if reason in _REASONS else "error"
        self.detail = detail
        self.lang = lang  # set by AgentDriver.run to the user's language; str() follows it
        super().__init__(_REASONS[self.reason][0])

    def __str__(self) -> str:
        return _REASONS[self.reason][1 if self.lang == "zh" else 0]

    def note(self, lang: str = "en") -> str:
        """One short sentence for the user, in their language."""
        why = _REASONS[self.reason][1 if lang == "zh" else 0]
        if lang == "zh":
            return f"语言模型未能作答（{why}），以下是确定性规则给出的回答。"
        return f"The language model could not answer ({why}); this is the deterministic answer."


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
