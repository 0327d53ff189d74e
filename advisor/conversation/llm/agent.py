"""The LLM driver: a LangChain `create_agent` loop over `ChatOpenAI`, held inside limits enforced in code.

    for item in AgentDriver(settings).run(conversation, "Llama-3-70B on H100s?"):
        ...  # a Step per tool call as it finishes, then one Turn (mode="llm")

What code (not the prompt) guarantees, per turn:
- Tools: only :data:`advisor.conversation.tools.registry.ALLOWED`; every call goes through `tools.call_tool` (validated,
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

Modules: `agent_state` (reasons, breaker, TurnState), `agent_middleware` (the Guard), `agent_messages` (what the
model is sent), `agent_turns` (the Turn). The conversation is any object with the session's attributes (read by
`getattr`, None in tests); the graph, the chat model and the messages are LangChain objects, typed `Any`.
"""

from __future__ import annotations

import copy
import logging
import queue
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from advisor.conversation.dialog.machine import DialogState, default_catalog, merge, missing_blocking
from advisor.conversation.grounding import gate as grounding
from advisor.conversation.llm import prompts, safety
from advisor.conversation.llm import tracing as agent_tracing
from advisor.conversation.llm.chat_model import chat_openai_class
from advisor.conversation.llm.lead import LeadCheck, asks_yes_no, check_lead
from advisor.conversation.llm.messages import (
    HISTORY_TURNS,
    history,
    human,
    is_question,
    latest,
    question_of,
    system_prompt,
    text_of,
)
from advisor.conversation.llm.middleware import build_middleware, classify, read_timeout_s, stream_cancel
from advisor.conversation.llm.read_then_answer import read_then_answer
from advisor.conversation.llm.settings import Settings
from advisor.conversation.llm.state import (
    CIRCUIT_FAILURES,
    CIRCUIT_OPEN_S,
    AgentUnavailable,
    Stop,
    TurnState,
    breaker_key,
    breaker_open,
    breaker_record,
    reset_breakers,
)
from advisor.conversation.llm.turns import FINDINGS_SHOWN, answer_turn, plain_question_turn, question_turn
from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.intent import implies_inference
from advisor.conversation.reader.lang import Lang, detect
from advisor.conversation.reader.turn import read_intent
from advisor.conversation.tools.registry import TOOLS, call_tool, langchain_tools
from advisor.conversation.turn import Step, Turn

log = logging.getLogger(__name__)

Reading = tuple[str, str | None]  # (intent, the slot to ask before answering or None)
_TRANSPORT = ("rate_limited", "server_error", "timeout", "unreachable")  # failures the circuit breaker counts


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
        self._tools: list[Any] | None = None
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
        from openai import Timeout  # optional dependency: openai only with the llm extra

        s = self.settings
        kwargs: dict[str, Any] = {}
        if s.legacy_max_tokens:
            kwargs["extra_body"] = {"max_tokens": s.max_tokens}
        else:
            kwargs["max_tokens"] = s.max_tokens
        api_key = s.api_key.get_secret_value() if s.api_key else None
        return chat_openai_class()(model=s.model, base_url=s.base_url, api_key=api_key, temperature=s.temperature,
                                    max_retries=0, streaming=s.stream, stream_usage=True,
                                    timeout=Timeout(read_timeout_s(s), connect=s.connect_timeout_s), **kwargs)

    def _graph_tools(self) -> list[Any]:
        if self._tools is None:
            self._tools = langchain_tools(compact=self.settings.tool_surface == "compact")
        return self._tools

    def _graph(self) -> Any:
        with self._lock:
            if self._agent is None:
                from langchain.agents import create_agent  # optional dependency: langchain only with the llm extra

                self._agent = create_agent(self._model(), tools=self._graph_tools(),
                                           system_prompt=system_prompt(self.tool_names), middleware=[build_middleware()],
                                           context_schema=TurnState)
            return self._agent

    # --- one turn -----------------------------------------------------------------------------------------
    def run(self, conversation: object, text: str) -> Iterator[Step | Turn]:
        """Yield a Step per tool call as it finishes, then the Turn; raise AgentUnavailable on any failure."""
        text = "" if text is None else str(text)
        lang = _lang_of(conversation, text)
        graph = self._checked_graph(text, lang)
        s = self.settings
        st = TurnState(settings=s, deadline=self._clock() + s.turn_timeout_s, clock=self._clock, lang=lang,
                       system_prompt=system_prompt(self.tool_names), http_timeouts=self._chat_model is None,
                       call_tool=call_tool)  # looked up per turn: a test may put another in its place
        messages = history(conversation, s) + [latest(conversation, text, lang)]
        st.span = agent_tracing.start_agent_span(s)  # ended in `finally`, with error.type on a fallback
        key = breaker_key(s)
        try:
            turn, answered = yield from self._rounds(graph, st, conversation, text, messages)
            yield turn
            if answered:
                breaker_record(key, True, self._clock())
        except AgentUnavailable as exc:
            exc.lang = lang
            st.error_type = exc.reason
            if exc.reason in _TRANSPORT:
                breaker_record(key, False, self._clock())
            raise
        finally:
            st.cancel.set()
            agent_tracing.end(st.span, st.error_type)

    def read_then_answer(self, conversation: object, text: str) -> Generator[Step | Turn, None, bool]:
        """With `settings.reader == "structured"`: one structured-output call reads the message into the typed
        request and the deterministic dialog answers it (`agent_reader`); False when the agent loop should answer
        (another reader setting, an explain question, small talk, or a message too long for the model)."""
        if self.settings.reader != "structured" or len(text or "") > self.settings.max_input_chars:
            return False
        if self._chat_model is None and not self.settings.llm_configured:
            return False

        answered: bool = yield from read_then_answer(conversation, text, self.settings, chat_model=self._chat_model,
                                                     model_name=self.model_name)
        return answered

    def _checked_graph(self, text: str, lang: Lang) -> Any:
        """The graph, once the model is configured, the message short enough and the breaker closed."""
        s = self.settings
        if self._chat_model is None and not s.llm_configured:
            raise AgentUnavailable("not_configured", lang=lang)
        if len(text) > s.max_input_chars:
            raise AgentUnavailable("input_too_long", f"{len(text)} > {s.max_input_chars} characters", lang)
        if self._chat_model is None and breaker_open(breaker_key(s), self._clock()):
            raise AgentUnavailable("circuit_open", lang=lang)
        try:
            return self._graph()
        except ImportError as exc:
            raise AgentUnavailable("dependency", str(exc), lang) from exc
        except Exception as exc:  # e.g. a client that cannot be built from these settings
            raise AgentUnavailable("rejected", f"{type(exc).__name__}: {exc}"[:200], lang) from exc

    def _rounds(self, graph: Any, st: TurnState, conversation: object, text: str,
                messages: list[Any]) -> Generator[Step, None, tuple[Turn, bool]]:
        """At most two runs of the graph (the second after one re-ask); (the Turn, whether it is a checked answer).
        A question the model asks is shown unless a default exists for all it needs (then the model must answer);
        an answer must be grounded, safe, and lead with the answer to the question asked."""
        reading: Reading | None = None  # read when an answer arrives
        report: grounding.Report | None = None
        lead: LeadCheck | None = None
        for round_ in (0, 1):
            final_messages = yield from self._run_graph(graph, st, messages)
            final = final_messages[-1] if final_messages else None
            question = question_of(final)
            answer = text_of(final) if question is None else ""
            asked = question is not None or (not st.results and is_question(answer))
            if asked and reading is None:
                reading = _reading(conversation, text, st.lang)
            if asked and reading is not None and reading[1] is None:
                # a default exists for everything this question needs: answer first (dialog.missing_blocking)
                lead = LeadCheck(False, answer or (str(question.data.get("question", "")) if question else ""), "asked")
                report = None
            elif question is not None:
                return question_turn(question, st, self.model_name), False
            elif asked and grounding.check(answer, grounding.Pool.of((), prompts.slot_texts())).ok:
                # a question in plain text (no tool): its numbers may only be the slots' defaults and examples
                return plain_question_turn(answer, st, self.model_name), False
            else:
                report, lead, reading = _check_answer(answer, st, conversation, text, reading)
                if report.ok and lead is not None and lead.ok:
                    return answer_turn(answer, report, st, self.model_name, reasked=round_ == 1,
                                       intent=reading[0] if reading else "other", lead=lead), True
            log.info("answer refused (round %d): ungrounded %s; lead %s", round_,
                     [m.text for m in report.ungrounded] if report is not None else [],
                     lead.reason if lead is not None else "-")
            if round_ == 0:
                reask = (prompts.reask_message([m.text for m in report.ungrounded[:12]], st.lang)
                         if report is not None and not report.ok
                         else prompts.lead_reask_message(reading[0] if reading else "other", st.lang))
                messages = [*final_messages, human(reask)]
        intent = reading[0] if reading else "other"
        if lead is not None and not lead.ok:
            raise AgentUnavailable("unanswered", f"{intent}: {lead.reason}: {lead.sentence[:120]}")
        raise AgentUnavailable("ungrounded", ", ".join(m.text for m in (report.ungrounded if report else [])[:8]))

    def _run_graph(self, graph: Any, st: TurnState, messages: list[Any]) -> Generator[Step, None, list[Any]]:
        """Run the agent in a worker thread; yield Steps as they come; return the final messages."""
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                out = graph.invoke({"messages": messages}, context=st,
                                   config={"recursion_limit": 4 * st.settings.max_steps + 10,
                                           "callbacks": [stream_cancel(st.cancel)]})
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
            if kind == "step" and payload is not None:
                yield payload
            elif kind == "done":
                break
        error = box.get("error")
        if error is not None:
            raise _as_unavailable(error)
        messages_out: list[Any] = box["messages"]
        return messages_out


def _check_answer(answer: str, st: TurnState, conversation: object, text: str,
                  reading: Reading | None) -> tuple[grounding.Report, LeadCheck | None, Reading | None]:
    """Grounding first (every number from this turn's tool results), then what the answer may not show, then its
    lead against the question's intent (read now if not yet)."""
    pool = grounding.Pool.of(r.data for r in st.results if r.ok)
    report = grounding.check(answer, pool)
    if not report.ok:
        return report, None, reading
    refused = safety.refusal(answer, st.results)  # number-free text passes grounding, so these checks follow it
    if refused:
        raise AgentUnavailable(refused, answer[:80])
    if reading is None:
        reading = _reading(conversation, text, st.lang)
    return report, check_lead(answer, reading[0], pool, yes_no=asks_yes_no(text)), reading


def _as_unavailable(exc: BaseException) -> AgentUnavailable:
    if isinstance(exc, AgentUnavailable):
        return exc
    if isinstance(exc, Stop):
        return exc.error
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, Stop):
        return cause.error
    try:
        from langgraph.errors import GraphRecursionError

        if isinstance(exc, GraphRecursionError):
            return AgentUnavailable("step_limit", "recursion limit")
    except ImportError:  # pragma: no cover
        pass
    reason, _, _ = classify(exc)
    log.warning("agent run failed: %s: %s", type(exc).__name__, exc)
    return AgentUnavailable(reason, f"{type(exc).__name__}: {exc}"[:200])


def _reading(conversation: object, text: str, lang: str) -> Reading:
    """(intent, the slot to ask before answering or None) of the user's message, read as the deterministic dialog
    reads it: `intent.classify` and the ask-versus-default rule (`dialog.missing_blocking` with
    `intent.implies_inference`). When it cannot be read: ("other", "model"), which requires no deciding number and
    lets the model ask."""
    try:
        state = getattr(conversation, "state", None)
        fresh = not isinstance(state, DialogState)  # the session merges this turn's slots before the agent runs
        state = copy.deepcopy(state) if isinstance(state, DialogState) else DialogState()
        slots = extract(text, default_catalog(), pending=state.pending, lang=lang)
        if fresh and not slots.empty:
            merge(state, slots)
        intent = read_intent(text, slots, state)
        return intent, missing_blocking(state, implies_inference(intent, state.slots, text))
    except Exception:
        log.warning("could not read the question's intent", exc_info=True)
        return "other", "model"


def _lang_of(conversation: object, text: str) -> Lang:
    found = detect(text[:2000]) if text else None
    if found:
        return found
    lang = getattr(conversation, "lang", None)
    return "zh" if lang == "zh" else "en"


def prewarm() -> threading.Thread:
    """Import LangChain and the OpenAI client in the background (a first LLM turn otherwise pays 1–4 s)."""

    def work() -> None:
        try:
            import langchain.agents  # noqa: F401  # optional dependency: langchain (llm extra), ImportError handled

            # optional dependency: langchain_openai (llm extra), ImportError handled
            import langchain_openai  # noqa: F401
        except ImportError:
            pass

    thread = threading.Thread(target=work, name="advisor-prewarm", daemon=True)
    thread.start()
    return thread


__all__ = ["CIRCUIT_FAILURES", "CIRCUIT_OPEN_S", "FINDINGS_SHOWN", "HISTORY_TURNS", "TOOLS", "AgentDriver",
           "AgentUnavailable", "Stop", "TurnState", "classify", "prewarm", "reset_breakers", "stream_cancel"]
