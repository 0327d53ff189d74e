"""The LLM driver: a LangChain `create_agent` loop over `ChatOpenAI`, held inside limits enforced in code.

    for item in AgentDriver(settings).run(conversation, "Llama-3-70B on H100s?"):
        ...  # a Step per tool call as it finishes, then one Turn (mode="llm")

What code (not the prompt) guarantees, per turn:
- Tools: only :data:`advisor.conversation.tools.ALLOWED`; every call goes through `tools.call_tool` (validated,
  timed, never raising), whatever name or arguments the model sends.
- Limits: `max_steps` model calls, `max_tool_calls` tool calls, `max_turn_tokens` tokens, `turn_timeout_s`
  seconds (the caller's wait is bounded even if the HTTP call hangs), `max_input_chars` of user text.
- Faults: 429/5xx/timeouts/connection errors are retried `max_retries` times with exponential backoff (or the
  server's Retry-After when it fits in the time left); malformed tool-call JSON gets one re-ask; a truncated or
  empty completion is a failure. A circuit breaker skips a model that keeps failing.
- Grounding: every number in the final text must match this turn's tool results (`grounding.check`), and its
  first sentence must answer the question asked, with the deciding number and its unit for feasibility, how-many,
  how-long and how-much questions (`agent_lead.check_lead`, intent from `intent.classify`); one re-ask, then
  failure. Findings and their citations are appended from rule metadata, never written by the model.
Any failure raises :class:`AgentUnavailable` (with a short note in the user's language); the session then
gives the deterministic answer.
"""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from advisor.conversation import agent_lead, agent_tracing, grounding, prompts, safety
from advisor.conversation.settings import Settings
from advisor.conversation.tool_results import to_number
from advisor.conversation.tools import ALLOWED, TOOLS, ToolResult, call_tool, langchain_tools
from advisor.conversation.turn import Number, Step, Turn
from rules.findings import Finding

log = logging.getLogger(__name__)

HISTORY_TURNS = 6  # earlier turns sent to the model (user text + final answer)
CIRCUIT_FAILURES = 3  # consecutive transport failures that open the breaker
CIRCUIT_OPEN_S = 30.0


# ==============================================================================================================
# Errors
# ==============================================================================================================

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


class _Stop(Exception):
    """Raised inside the graph to end the run; carries the AgentUnavailable to re-raise outside."""

    def __init__(self, error: AgentUnavailable) -> None:
        super().__init__(str(error))
        self.error = error


# ==============================================================================================================
# Circuit breaker (process-wide, per endpoint and model)
# ==============================================================================================================

_breakers: dict[tuple[str, str], tuple[int, float]] = {}
_breaker_lock = threading.Lock()


def _breaker_key(settings: Settings) -> tuple[str, str]:
    return (settings.base_url or "default", settings.model)


def _breaker_open(key: tuple[str, str], now: float) -> bool:
    with _breaker_lock:
        failures, opened = _breakers.get(key, (0, 0.0))
        return failures >= CIRCUIT_FAILURES and now - opened < CIRCUIT_OPEN_S


def _breaker_record(key: tuple[str, str], ok: bool, now: float) -> None:
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
    lang: str
    system_prompt: str
    http_timeouts: bool  # pass per-call timeouts (real OpenAI client only)
    events: queue.Queue = field(default_factory=queue.Queue)
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
            raise _Stop(AgentUnavailable("timeout", "turn deadline"))
        if self.model_calls >= self.settings.max_steps:
            raise _Stop(AgentUnavailable("step_limit", f"{self.model_calls} model calls"))
        if self.tokens >= self.settings.max_turn_tokens:
            raise _Stop(AgentUnavailable("token_limit", f"{self.tokens} tokens"))


# ==============================================================================================================
# Middleware: limits, retries, malformed calls, complete mediation of tools
# ==============================================================================================================

def _classify(exc: BaseException) -> tuple[str, bool, float | None]:
    """(reason, retryable, retry_after_s) of an exception raised by the model client."""
    try:
        import openai
    except ImportError:  # pragma: no cover - the llm extra is installed with the agent
        openai = None  # type: ignore[assignment]
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


def _build_middleware() -> Any:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    class Guard(AgentMiddleware):
        """Every model call and tool call of the agent passes through here."""

        def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            st: TurnState = request.runtime.context
            st.check()
            request = request.override(system_message=SystemMessage(content=st.system_prompt),
                                       **({"tool_choice": st.settings.tool_choice} if st.settings.tool_choice else {}))
            messages = list(request.messages)
            handler = agent_tracing.traced_chat(handler, st.settings, _ai_of)  # a `chat` span per call
            attempt = 0
            while True:
                settings = {**request.model_settings}
                if st.http_timeouts:
                    settings["timeout"] = _timeout(st)
                call = request.override(messages=messages, model_settings=settings)
                st.model_calls += 1
                try:
                    response = handler(call)
                except _Stop:
                    raise
                except Exception as exc:
                    reason, retryable, after = _classify(exc)
                    log.info("model call failed (%s): %s", reason, exc)
                    if not retryable or attempt >= st.settings.max_retries:
                        raise _Stop(AgentUnavailable(reason, str(exc)[:200])) from exc
                    delay = after if after is not None else min(
                        st.settings.backoff_initial_s * 2**attempt, st.settings.backoff_max_s)
                    if after is not None and after > st.settings.max_retry_after_s:
                        raise _Stop(AgentUnavailable(reason, f"Retry-After {after:g} s")) from exc
                    if delay >= st.remaining() - 0.05:
                        raise _Stop(AgentUnavailable(reason, "no time left to retry")) from exc
                    attempt += 1
                    if st.cancel.wait(delay):
                        raise _Stop(AgentUnavailable("timeout", "cancelled")) from exc
                    if st.model_calls >= st.settings.max_steps:
                        raise _Stop(AgentUnavailable("step_limit", "retries used the steps")) from exc
                    continue
                ai = _ai_of(response)
                if ai is None:
                    raise _Stop(AgentUnavailable("empty", "no AI message"))
                st.tokens += _tokens_of(ai, messages)
                if ai.invalid_tool_calls:
                    if st.malformed_reasks >= 1 or st.model_calls >= st.settings.max_steps:
                        raise _Stop(AgentUnavailable("malformed", str(ai.invalid_tool_calls[0].get("error"))[:200]))
                    st.malformed_reasks += 1
                    bad = "; ".join(f"{c.get('name')}: {str(c.get('args'))[:120]!r}" for c in ai.invalid_tool_calls)
                    messages = [*messages, AIMessage(content=ai.text or "(tool call)"),
                                HumanMessage(content=f"[automatic check] Your last tool call had arguments that are not "
                                                     f"valid JSON ({bad}). Call the tool again with a valid JSON object.")]
                    st.check()
                    continue
                finish = (ai.response_metadata or {}).get("finish_reason")
                if not ai.tool_calls:
                    if finish == "length":
                        raise _Stop(AgentUnavailable("truncated", "finish_reason=length"))
                    if not ai.text.strip():
                        raise _Stop(AgentUnavailable("empty", "no text and no tool calls"))
                return response

        def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
            # Complete mediation: LangChain never runs a tool itself; unknown names are refused by call_tool.
            st: TurnState = request.runtime.context
            call = request.tool_call
            if st.cancel.is_set():
                raise _Stop(AgentUnavailable("timeout", "cancelled"))
            if st.reserve_tool_call():
                result = agent_tracing.traced_tool(call_tool, call.get("id"))(call.get("name"), call.get("args"))
            else:
                args = call.get("args") if isinstance(call.get("args"), dict) else {}
                result = ToolResult(str(call.get("name"))[:80], False, dict(args),
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

    return Guard()


def _read_timeout_s(settings: Settings) -> float:
    """Longest wait for one read: the first byte (and, streaming, each next chunk) or a whole unstreamed reply."""
    return settings.first_token_timeout_s if settings.stream else settings.request_timeout_s


def _timeout(st: TurnState) -> Any:
    left = max(0.05, st.remaining())
    read = min(_read_timeout_s(st.settings), left)
    try:
        from openai import Timeout

        return Timeout(read, connect=min(st.settings.connect_timeout_s, read))
    except ImportError:  # pragma: no cover
        return read


def _stream_cancel(cancel: threading.Event) -> Any:
    """A callback that aborts a streamed reply once the turn is over (a dripping model's connection is closed
    at the deadline instead of being read to its end by the abandoned worker)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class StreamCancel(BaseCallbackHandler):
        raise_error = True

        def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
            if cancel.is_set():
                raise _Stop(AgentUnavailable("timeout", "turn deadline (stream closed)"))

    return StreamCancel()


def _ai_of(response: Any) -> Any:
    from langchain_core.messages import AIMessage

    result = getattr(response, "result", None)
    if result is None and isinstance(response, AIMessage):
        return response
    for m in result or []:
        if isinstance(m, AIMessage):
            return m
    return None


def _tokens_of(ai: Any, messages: list[Any]) -> int:
    usage = getattr(ai, "usage_metadata", None) or {}
    total = usage.get("total_tokens")
    if total:
        return int(total)
    chars = sum(len(str(getattr(m, "content", ""))) for m in messages) + len(str(ai.content))
    return chars // 4 + 1


# ==============================================================================================================
# The driver
# ==============================================================================================================

class AgentDriver:
    """LLM driver for one conversation. `chat_model` replaces ChatOpenAI (tests pass scripted fakes)."""

    def __init__(self, settings: Settings | None = None, *, chat_model: Any = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if settings is not None and not isinstance(settings, Settings):
            settings = Settings.build(settings if isinstance(settings, dict) else vars(settings))
        self.settings = settings or Settings.from_env()
        self._chat_model = chat_model
        self._clock = clock
        self._agent: Any = None
        self._lock = threading.Lock()

    @property
    def model_name(self) -> str:
        if self._chat_model is not None:
            return str(getattr(self._chat_model, "model_name", None) or getattr(self._chat_model, "model", None)
                       or type(self._chat_model).__name__)
        return self.settings.model

    @property
    def tool_names(self) -> frozenset[str]:
        """The tools the agent can call (the allow-list; tested to equal it)."""
        return frozenset(t.name for t in self._graph_tools())

    # --- building -----------------------------------------------------------------------------------------
    def _model(self) -> Any:
        if self._chat_model is not None:
            return self._chat_model
        from openai import Timeout

        s = self.settings
        kwargs: dict[str, Any] = {}
        if s.legacy_max_tokens:
            kwargs["extra_body"] = {"max_tokens": s.max_tokens}
        else:
            kwargs["max_tokens"] = s.max_tokens
        return _chat_openai_class()(model=s.model, base_url=s.base_url, api_key=s.api_key.get_secret_value() if s.api_key else None,
                          temperature=s.temperature, max_retries=0, streaming=s.stream, stream_usage=True,
                          timeout=Timeout(_read_timeout_s(s), connect=s.connect_timeout_s), **kwargs)

    def _graph_tools(self) -> list[Any]:
        return langchain_tools()

    def _graph(self) -> Any:
        with self._lock:
            if self._agent is None:
                from langchain.agents import create_agent

                self._agent = create_agent(self._model(), tools=self._graph_tools(),
                                           system_prompt=prompts.SYSTEM_PROMPT, middleware=[_build_middleware()],
                                           context_schema=TurnState)
            return self._agent

    # --- one turn -----------------------------------------------------------------------------------------
    def run(self, conversation: Any, text: str) -> Iterator[Step | Turn]:
        """Yield a Step per tool call as it finishes, then the Turn; raise AgentUnavailable on any failure."""
        text = "" if text is None else str(text)
        lang = _lang_of(conversation, text)
        s = self.settings
        if self._chat_model is None and not s.llm_configured:
            raise AgentUnavailable("not_configured", lang=lang)
        if len(text) > s.max_input_chars:
            raise AgentUnavailable("input_too_long", f"{len(text)} > {s.max_input_chars} characters", lang)
        key = _breaker_key(s)
        if self._chat_model is None and _breaker_open(key, self._clock()):
            raise AgentUnavailable("circuit_open", lang=lang)
        try:
            graph = self._graph()
        except ImportError as exc:
            raise AgentUnavailable("dependency", str(exc), lang) from exc
        except Exception as exc:  # e.g. a client that cannot be built from these settings
            raise AgentUnavailable("rejected", f"{type(exc).__name__}: {exc}"[:200], lang) from exc

        st = TurnState(settings=s, deadline=self._clock() + s.turn_timeout_s, clock=self._clock, lang=lang,
                       system_prompt=_system_prompt(conversation, lang), http_timeouts=self._chat_model is None)
        messages = _history(conversation, s) + [_human(text)]
        st.span = agent_tracing.start_agent_span(s)  # ended in `finally`, with error.type on a fallback
        reading: tuple[str, str | None] | None = None  # (intent, slot to ask first): read when an answer arrives
        report: grounding.Report | None = None
        lead: agent_lead.LeadCheck | None = None
        reasked = False
        try:
            for round_ in (0, 1):
                final_messages = yield from self._run_graph(graph, st, messages)
                final = final_messages[-1] if final_messages else None
                question = _question_of(final, st)
                answer = _text_of(final) if question is None else ""
                asked = question is not None or (not st.results and _is_question(answer))
                if asked and reading is None:
                    reading = _reading(conversation, text, lang)
                if asked and reading is not None and reading[1] is None:
                    # a default exists for everything this question needs: answer first (dialog.missing_blocking)
                    lead = agent_lead.LeadCheck(False, answer or str(question.data.get("question", "")), "asked")
                    report = None
                elif question is not None:
                    yield self._question_turn(question, st, lang)
                    return
                elif asked and grounding.check(answer, grounding.Pool.of((), prompts.slot_texts())).ok:
                    # a question in plain text (no tool): its numbers may only be the slots' defaults and examples
                    yield self._plain_question_turn(answer, st, lang)
                    return
                else:
                    pool = grounding.Pool.of(r.data for r in st.results if r.ok)
                    report = grounding.check(answer, pool)
                    refused = safety.refusal(answer, st.results) if report.ok else None  # number-free text passes
                    if refused:  # grounding, so these checks follow it
                        raise AgentUnavailable(refused, answer[:80])
                    if report.ok and reading is None:
                        reading = _reading(conversation, text, lang)
                    intent = reading[0] if reading is not None else "other"
                    lead = agent_lead.check_lead(answer, intent, pool, yes_no=agent_lead.asks_yes_no(text)) \
                        if report.ok else None
                    if report.ok and lead is not None and lead.ok:
                        yield self._answer_turn(answer, report, st, lang, reasked, intent, lead)
                        _breaker_record(key, True, self._clock())
                        return
                log.info("answer refused (round %d): ungrounded %s; lead %s", round_,
                         [m.text for m in report.ungrounded] if report is not None else [],
                         lead.reason if lead is not None else "-")
                if round_ == 0:
                    reasked = True
                    from langchain_core.messages import HumanMessage

                    reask = (prompts.reask_message([m.text for m in report.ungrounded[:12]], lang)
                             if report is not None and not report.ok
                             else prompts.lead_reask_message(reading[0] if reading else "other", lang))
                    messages = [*final_messages, HumanMessage(content=reask)]
            if lead is not None and not lead.ok:
                raise AgentUnavailable("unanswered", f"{reading[0] if reading else 'other'}: {lead.reason}: "
                                                     f"{lead.sentence[:120]}")
            raise AgentUnavailable("ungrounded", ", ".join(m.text for m in (report.ungrounded if report else [])[:8]))
        except AgentUnavailable as exc:
            exc.lang = lang
            st.error_type = exc.reason
            if exc.reason in ("rate_limited", "server_error", "timeout", "unreachable"):
                _breaker_record(key, False, self._clock())
            raise
        finally:
            st.cancel.set()
            agent_tracing.end(st.span, st.error_type)

    def _run_graph(self, graph: Any, st: TurnState, messages: list[Any]) -> Iterator[Step]:
        """Run the agent in a worker thread; yield Steps as they come; return the final messages."""
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                out = graph.invoke({"messages": messages}, context=st,
                                   config={"recursion_limit": 4 * st.settings.max_steps + 10,
                                           "callbacks": [_stream_cancel(st.cancel)]})
                box["messages"] = out["messages"]
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = exc
            finally:
                st.events.put(("done", None))

        worker = threading.Thread(target=agent_tracing.in_context(st.span, work), name="advisor-agent", daemon=True)
        worker.start()
        while True:
            left = st.remaining()
            if left <= 0:
                st.cancel.set()
                raise AgentUnavailable("timeout", f"turn exceeded {st.settings.turn_timeout_s:g} s")
            try:
                kind, payload = st.events.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if kind == "step":
                yield payload
            elif kind == "done":
                break
        error = box.get("error")
        if error is not None:
            raise _as_unavailable(error)
        return box["messages"]

    # --- turns --------------------------------------------------------------------------------------------
    def _answer_turn(self, answer: str, report: grounding.Report, st: TurnState, lang: str, reasked: bool,
                     intent: str = "other", lead: agent_lead.LeadCheck | None = None) -> Turn:
        ok_results = [r for r in st.results if r.ok]
        findings = _findings(ok_results)
        numbers = [to_number(ref) for ref in report.refs if {"name", "value", "unit"} <= set(ref)]
        if not numbers:
            numbers = _all_numbers(ok_results)
        body = _sanitize(answer)
        if findings:
            body += _render_findings(findings, lang)
        return Turn(answer=body, lang=lang if lang in ("zh", "en") else "en", mode="llm", numbers=numbers,
                    findings=findings, options=_options(ok_results), memory=_memory(ok_results),
                    steps=[r.step() for r in st.results], workload=_workload(ok_results), model_name=self.model_name,
                    extra={"grounding": {"checked": len(report.matched), "reasked": reasked},
                           "model_calls": st.model_calls, "tool_calls": st.tool_calls, "tokens": st.tokens,
                           "intent": intent, "answer_verdict": lead.verdict if lead is not None else None})

    def _question_turn(self, result: ToolResult, st: TurnState, lang: str) -> Turn:
        slot = prompts.SLOTS[result.data["slot"]]
        question = result.data["question"].strip()
        allowed = grounding.Pool.of([r.data for r in st.results if r.ok and r.name != "ask_clarifying_question"],
                                    prompts.slot_texts())
        if not grounding.check(question, allowed).ok or _lang_mismatch(question, lang):
            question = slot.question(lang)  # the model's wording had unchecked numbers: use ours
        elif slot.default_en and not re.search(r"default|默认|預設", question, re.I):
            question = f"{question}（{slot.default_zh}）" if lang == "zh" else f"{question} ({slot.default_en})"
        question = _sanitize(question)
        return Turn(answer=question, lang=lang if lang in ("zh", "en") else "en", mode="llm", questions=[question],
                    steps=[r.step() for r in st.results], workload=_workload([r for r in st.results if r.ok]),
                    model_name=self.model_name,
                    extra={"slot": slot.name, "model_calls": st.model_calls, "tool_calls": st.tool_calls,
                           "tokens": st.tokens})


    def _plain_question_turn(self, text: str, st: TurnState, lang: str) -> Turn:
        question = _sanitize(text)
        return Turn(answer=question, lang=lang if lang in ("zh", "en") else "en", mode="llm", questions=[question],
                    steps=[], model_name=self.model_name,
                    extra={"model_calls": st.model_calls, "tool_calls": 0, "tokens": st.tokens})


# ==============================================================================================================
# Helpers
# ==============================================================================================================

def _is_question(text: str) -> bool:
    return text.rstrip().rstrip("*_） )").endswith(("?", "？"))


def _as_unavailable(exc: BaseException) -> AgentUnavailable:
    if isinstance(exc, AgentUnavailable):
        return exc
    if isinstance(exc, _Stop):
        return exc.error
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, _Stop):
        return cause.error
    try:
        from langgraph.errors import GraphRecursionError

        if isinstance(exc, GraphRecursionError):
            return AgentUnavailable("step_limit", "recursion limit")
    except ImportError:  # pragma: no cover
        pass
    reason, _, _ = _classify(exc)
    log.warning("agent run failed: %s: %s", type(exc).__name__, exc)
    return AgentUnavailable(reason, f"{type(exc).__name__}: {exc}"[:200])


def _reading(conversation: Any, text: str, lang: str) -> tuple[str, str | None]:
    """(intent, the slot to ask before answering or None) of the user's message, read as the deterministic dialog
    reads it: `intent.classify` and the ask-versus-default rule (`dialog.missing_blocking` with
    `intent.implies_inference`). When it cannot be read: ("other", "model"), which requires no deciding number and
    lets the model ask."""
    try:
        from advisor.conversation.dialog import DialogState, default_catalog, merge, missing_blocking
        from advisor.conversation.dialog_turn import read_intent
        from advisor.conversation.extract import extract
        from advisor.conversation.intent import implies_inference

        state = getattr(conversation, "state", None)
        fresh = not isinstance(state, DialogState)  # the session merges this turn's slots before the agent runs
        state = DialogState() if fresh else state.model_copy(deep=True)
        slots = extract(text, default_catalog(), pending=state.pending, lang=lang)
        if fresh and not slots.empty:
            merge(state, slots)
        intent = read_intent(text, slots, state)
        return intent, missing_blocking(state, implies_inference(intent, state.slots, text))
    except Exception:
        log.warning("could not read the question's intent", exc_info=True)
        return "other", "model"


def _lang_of(conversation: Any, text: str) -> str:
    from advisor.conversation.lang import detect

    found = detect(text[:2000]) if text else None
    if found:
        return found
    lang = getattr(conversation, "lang", None)
    return lang if lang in ("zh", "en") else "en"


def _lang_mismatch(text: str, lang: str) -> bool:
    has_cjk = bool(re.search(r"[\u4e00-\u9fff]", text))
    return (lang == "zh") != has_cjk


def _human(text: str) -> Any:
    from langchain_core.messages import HumanMessage

    return HumanMessage(content=text)


def _history(conversation: Any, s: Settings) -> list[Any]:
    """The last turns as (user text, final answer) message pairs; tool messages are not replayed."""
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for item in list(getattr(conversation, "history", None) or [])[-HISTORY_TURNS:]:
        try:
            user, turn = item
        except (TypeError, ValueError):
            continue
        answer = getattr(turn, "answer", None) if not isinstance(turn, str) else turn
        if not user or not answer:
            continue
        answer = _FINDINGS_SECTION.split(str(answer))[0]  # the app's own findings block: not for the model to copy
        out.append(HumanMessage(content=str(user)[: s.max_input_chars]))
        out.append(AIMessage(content=str(answer)[:3000]))
    return out


_FINDINGS_SECTION = re.compile(r"\n\n\*\*(?:Findings|规则提示)\*\*\n")


def _system_prompt(conversation: Any, lang: str) -> str:
    summary = _workload_summary(conversation)
    if not summary:
        return prompts.SYSTEM_PROMPT
    return prompts.SYSTEM_PROMPT + "\n\n" + prompts.workload_note(summary, lang)


def _workload_summary(conversation: Any) -> str:
    parts = []
    try:
        w = getattr(conversation, "workload", None)
        if w is not None:
            parts.append("workload " + ", ".join(f"{k}={v}" for k, v in w.model_dump(exclude_defaults=True).items()))
        c = getattr(conversation, "constraints", None)
        if c is not None:
            dumped = c.model_dump(exclude_defaults=True)
            if dumped:
                parts.append("constraints " + ", ".join(f"{k}={v}" for k, v in dumped.items()))
    except Exception:  # noqa: BLE001 - context only; never fail the turn over it
        return ""
    return "; ".join(parts)[:800]


def _question_of(final: Any, st: TurnState) -> ToolResult | None:
    from langchain_core.messages import ToolMessage

    if isinstance(final, ToolMessage) and final.name == "ask_clarifying_question":
        result = getattr(final, "artifact", None)
        if isinstance(result, ToolResult) and result.ok:
            return result
        raise AgentUnavailable("malformed", "invalid clarifying question")
    return None


def _text_of(message: Any) -> str:
    if message is None:
        raise AgentUnavailable("empty", "no messages")
    text = getattr(message, "text", None)
    if not isinstance(text, str):
        text = str(getattr(message, "content", "") or "")
    if not text.strip():
        raise AgentUnavailable("empty", "empty final message")
    return text


_TAG = re.compile(r"<[^>\n]{0,200}>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]{0,200})\]\((?:[^)]*)\)")
_URL = re.compile(r"(?i)\b(?:https?|ftp|javascript|data|file):[^\s)>\]]+")


def _sanitize(text: str) -> str:
    """Model text without raw HTML, images, links or URLs (citations come from rule metadata only)."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("", text)
    text = _TAG.sub("", text)
    return text.strip()


_SEVERITY_ORDER = {"block": 0, "warn": 1, "info": 2}
FINDINGS_SHOWN = 8  # in the answer text; Turn.findings keeps them all


def _findings(results: list[ToolResult]) -> list[Finding]:
    """This turn's findings, without repeats, most severe first (stable within a severity)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in results:
        for f in r.findings:
            key = (f.rule_id, f.message)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return sorted(out, key=lambda f: _SEVERITY_ORDER.get(f.severity, 3))


def _render_findings(findings: list[Finding], lang: str) -> str:
    head = "\n\n**规则提示**" if lang == "zh" else "\n\n**Findings**"
    lines = [head]
    for f in findings[:FINDINGS_SHOWN]:
        tail = f" — {f.source}" if f.source else ""
        if f.as_of:
            tail += f"（截至 {f.as_of}）" if lang == "zh" else f" (as of {f.as_of})"
        lines.append(f"- [{f.severity}] `{f.rule_id}`: {f.text(lang)}{tail}")
    if len(findings) > FINDINGS_SHOWN:
        more = len(findings) - FINDINGS_SHOWN
        lines.append(f"- （另有 {more} 条提示）" if lang == "zh" else f"- ({more} more findings)")
    return "\n".join(lines)


def _all_numbers(results: list[ToolResult], cap: int = 40) -> list[Number]:
    out: list[Number] = []
    seen: set[tuple[str, float]] = set()
    for r in results:
        for n in r.numbers:
            key = (n["name"], n["value"])
            if key not in seen:
                seen.add(key)
                out.append(to_number(n))
    return out[:cap]


def _options(results: list[ToolResult]) -> list[dict[str, Any]]:
    for r in reversed(results):
        if r.name == "recommend" and r.artifact.get("options"):
            return list(r.artifact["options"])
    return []


def _memory(results: list[ToolResult]) -> dict[str, Any] | None:
    for r in reversed(results):
        if r.name in ("estimate_memory", "recommend") and r.artifact.get("memory"):
            return dict(r.artifact["memory"])
    return None


def _workload(results: list[ToolResult]) -> dict[str, Any]:
    for r in reversed(results):
        if r.name in ("recommend", "estimate_memory", "estimate_throughput", "train_time", "compare_gpus", "tco"):
            inputs = r.data.get("inputs")
            if isinstance(inputs, dict):
                return dict(inputs)
    return {}


def prewarm() -> threading.Thread:
    """Import LangChain and the OpenAI client in the background (a first LLM turn otherwise pays 1–4 s)."""

    def work() -> None:
        try:
            import langchain.agents  # noqa: F401
            import langchain_openai  # noqa: F401
        except ImportError:
            pass

    thread = threading.Thread(target=work, name="advisor-prewarm", daemon=True)
    thread.start()
    return thread


__all__ = ["TOOLS", "AgentDriver", "AgentUnavailable", "prewarm", "reset_breakers"]


_CHAT_OPENAI: Any = None


def _chat_openai_class() -> Any:
    """ChatOpenAI whose assistant tool-call messages carry `content: ""` instead of `null`.

    LangChain sends `null` content beside `tool_calls`; OpenAI accepts both, but llama-cpp-python's server (0.3.x)
    rejects `null` with HTTP 500, so every tool-calling turn against it failed. An empty string means the same."""
    global _CHAT_OPENAI
    if _CHAT_OPENAI is None:
        from langchain_openai import ChatOpenAI

        class _ChatOpenAI(ChatOpenAI):
            def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
                payload = super()._get_request_payload(input_, stop=stop, **kwargs)
                for message in payload.get("messages", []):
                    if message.get("role") == "assistant" and message.get("content") is None:
                        message["content"] = ""
                return payload

        _CHAT_OPENAI = _ChatOpenAI
    return _CHAT_OPENAI
