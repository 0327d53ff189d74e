"""The agent's middleware: every model call and tool call of the LangChain graph passes through `Guard`.

Model calls: the turn's limits are checked first (`TurnState.check`); 429/5xx/connection errors are retried
`max_retries` times with exponential backoff (`backoff_initial_s · 2^attempt`, at most `backoff_max_s`) or the
server's Retry-After when it fits in the time left; tool-call arguments that are not JSON get one re-ask; a reply
cut off (`finish_reason=length`) or empty ends the turn. Tool calls: complete mediation — LangChain never runs a
tool itself; every call goes through `TurnState.call_tool` (validated, timed, never raising), at most
`max_tool_calls` a turn, and the model reads the result scrubbed of instructions (`safety.scrub`).

LangChain's request, response and message objects are typed loosely here (`Any`): the middleware hooks'
generic types do not say which message classes arrive, and the checks below read attributes that every one has.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from advisor.conversation.llm import safety
from advisor.conversation.llm import tracing as agent_tracing
from advisor.conversation.llm.settings import Settings
from advisor.conversation.llm.state import AgentUnavailable, Stop, TurnState
from advisor.conversation.tools.registry import ALLOWED, ToolResult

log = logging.getLogger("advisor.conversation.llm.agent")


def classify(exc: BaseException) -> tuple[str, bool, float | None]:
    """(reason, retryable, retry_after_s) of an exception raised by the model client."""
    try:
        import openai  # optional dependency: openai (llm extra), ImportError handled
    except ImportError:  # pragma: no cover - the llm extra is installed with the agent
        openai = None  # type: ignore[assignment]  # None stands for the optional module when it is missing
    if openai is not None:
        if isinstance(exc, openai.RateLimitError):
            return "rate_limited", True, _retry_after(getattr(exc, "response", None))
        if isinstance(exc, openai.APITimeoutError):  # the wait it had was the wait it gets: no retry
            return "timeout", False, None
        if isinstance(exc, openai.APIConnectionError):
            return "unreachable", True, None
        if isinstance(exc, openai.APIStatusError):
            code = getattr(exc, "status_code", 0) or 0
            if code >= 500 or code in (408, 409):
                return "server_error", True, _retry_after(getattr(exc, "response", None))
            return "rejected", False, None
    if isinstance(exc, TimeoutError):
        return "timeout", False, None
    if isinstance(exc, ConnectionError):
        return "unreachable", True, None
    return "error", False, None


def _retry_after(response: Any) -> float | None:
    """Seconds from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        ms = headers.get("retry-after-ms")
        if ms is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            from email.utils import parsedate_to_datetime

            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def build_middleware() -> Any:
    """The `Guard` middleware instance (LangChain is imported here, not at module import)."""
    from langchain.agents.middleware import AgentMiddleware  # optional dependency: langchain only with the llm extra
    from langchain_core.messages import SystemMessage  # optional dependency: langchain_core only with the llm extra

    class Guard(AgentMiddleware):
        """Every model call and tool call of the agent passes through here."""

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            st: TurnState = request.runtime.context
            st.check()
            request = request.override(system_message=SystemMessage(content=st.system_prompt),
                                       **({"tool_choice": st.settings.tool_choice} if st.settings.tool_choice else {}))
            messages = list(request.messages)
            handler = agent_tracing.traced_chat(handler, st.settings, ai_of)  # a `chat` span per call
            attempt = 0
            while True:
                settings = {**request.model_settings}
                if st.http_timeouts:
                    settings["timeout"] = _timeout(st)
                st.model_calls += 1
                try:
                    response = handler(request.override(messages=messages, model_settings=settings))
                except Stop:
                    raise
                except Exception as exc:  # noqa: BLE001 - retried, or raised as Stop by _wait_to_retry
                    _wait_to_retry(st, exc, attempt)
                    attempt += 1
                    continue
                ai = ai_of(response)
                if ai is None:
                    raise Stop(AgentUnavailable("empty", "no AI message"))
                st.tokens += _tokens_of(ai, messages)
                if ai.invalid_tool_calls:
                    messages = _reask_malformed(st, ai, messages)
                    continue
                if not ai.tool_calls:
                    _check_final(ai)
                return response

        def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            return _mediate_tool_call(request.runtime.context, request.tool_call)

    return Guard()


def _wait_to_retry(st: TurnState, exc: Exception, attempt: int) -> None:
    """Wait before retrying a failed model call, or raise Stop when it may not be retried."""
    reason, retryable, after = classify(exc)
    log.info("model call failed (%s): %s", reason, exc)
    s = st.settings
    if not retryable or attempt >= s.max_retries:
        raise Stop(AgentUnavailable(reason, str(exc)[:200])) from exc
    delay = after if after is not None else min(s.backoff_initial_s * 2**attempt, s.backoff_max_s)
    if after is not None and after > s.max_retry_after_s:
        raise Stop(AgentUnavailable(reason, f"Retry-After {after:g} s")) from exc
    if delay >= st.remaining() - 0.05:
        raise Stop(AgentUnavailable(reason, "no time left to retry")) from exc
    if st.cancel.wait(delay):
        raise Stop(AgentUnavailable("timeout", "cancelled")) from exc
    if st.model_calls >= s.max_steps:
        raise Stop(AgentUnavailable("step_limit", "retries used the steps")) from exc


def _reask_malformed(st: TurnState, ai: Any, messages: list[Any]) -> list[Any]:
    """The messages with one re-ask for tool-call arguments that are not JSON; Stop on the second time."""
    # optional dependency: langchain_core only with the llm extra
    from langchain_core.messages import AIMessage, HumanMessage

    if st.malformed_reasks >= 1 or st.model_calls >= st.settings.max_steps:
        raise Stop(AgentUnavailable("malformed", str(ai.invalid_tool_calls[0].get("error"))[:200]))
    st.malformed_reasks += 1
    bad = "; ".join(f"{c.get('name')}: {str(c.get('args'))[:120]!r}" for c in ai.invalid_tool_calls)
    st.check()
    return [*messages, AIMessage(content=ai.text or "(tool call)"),
            HumanMessage(content=f"[automatic check] Your last tool call had arguments that are not "
                                 f"valid JSON ({bad}). Call the tool again with a valid JSON object.")]


def _check_final(ai: Any) -> None:
    """A final reply (no tool calls) that was cut off or is empty ends the turn."""
    if (ai.response_metadata or {}).get("finish_reason") == "length":
        raise Stop(AgentUnavailable("truncated", "finish_reason=length"))
    if not ai.text.strip():
        raise Stop(AgentUnavailable("empty", "no text and no tool calls"))


def _mediate_tool_call(st: TurnState, call: dict[str, Any]) -> Any:
    """Run one tool call through `st.call_tool` (or refuse it past the limit); the ToolMessage the model reads."""
    from langchain_core.messages import ToolMessage  # optional dependency: langchain_core only with the llm extra

    if st.cancel.is_set():
        raise Stop(AgentUnavailable("timeout", "cancelled"))
    if st.reserve_tool_call():
        result = agent_tracing.traced_tool(st.call_tool, call.get("id"))(call.get("name"), call.get("args"))
    else:
        args = call.get("args") if isinstance(call.get("args"), dict) else {}
        result = ToolResult(str(call.get("name"))[:80], False, dict(args or {}),
                            {"ok": False, "error": "tool-call limit for this turn reached; answer now with "
                                                   "the results you have"},
                            error="tool-call limit reached")
    with st.lock:
        st.results.append(result)
    st.events.put(("step", result.step()))
    content = json.dumps(safety.scrub(result.data), ensure_ascii=False, separators=(",", ":"), default=str)
    return ToolMessage(content=content, name=result.name if result.name in ALLOWED else "unknown",
                       tool_call_id=call.get("id") or f"call_{len(st.results)}",
                       status="success" if result.ok else "error", artifact=result)


def read_timeout_s(settings: Settings) -> float:
    """Longest wait for one read: the first byte (and, streaming, each next chunk) or a whole unstreamed reply."""
    return settings.first_token_timeout_s if settings.stream else settings.request_timeout_s


def _timeout(st: TurnState) -> Any:
    """This call's `openai.Timeout`: the read timeout, cut to the time the turn has left (a float without openai)."""
    left = max(0.05, st.remaining())
    read = min(read_timeout_s(st.settings), left)
    try:
        from openai import Timeout  # optional dependency: openai (llm extra), ImportError handled

        return Timeout(read, connect=min(st.settings.connect_timeout_s, read))
    except ImportError:  # pragma: no cover
        return read


def stream_cancel(cancel: threading.Event) -> Any:
    """A callback that aborts a streamed reply once the turn is over (a dripping model's connection is closed
    at the deadline instead of being read to its end by the abandoned worker)."""
    # optional dependency: langchain_core only with the llm extra
    from langchain_core.callbacks import BaseCallbackHandler

    class StreamCancel(BaseCallbackHandler):
        raise_error = True

        def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
            if cancel.is_set():
                raise Stop(AgentUnavailable("timeout", "turn deadline (stream closed)"))

    return StreamCancel()


def ai_of(response: Any) -> Any:
    """The AIMessage of a model response (a ModelResponse or the message itself), or None."""
    from langchain_core.messages import AIMessage  # optional dependency: langchain_core only with the llm extra

    result = getattr(response, "result", None)
    if result is None and isinstance(response, AIMessage):
        return response
    for m in result or []:
        if isinstance(m, AIMessage):
            return m
    return None


def _tokens_of(ai: Any, messages: list[Any]) -> int:
    """Tokens of one call: the reply's usage when reported, else about 4 characters a token."""
    usage = getattr(ai, "usage_metadata", None) or {}
    total = usage.get("total_tokens")
    if total:
        return int(total)
    chars = sum(len(str(getattr(m, "content", ""))) for m in messages) + len(str(ai.content))
    return chars // 4 + 1
