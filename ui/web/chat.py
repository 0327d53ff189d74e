"""One chat turn of the web page, independent of Gradio: the session's state, the controller that runs a turn and
says what the page shows (chat, mode, panels, exports), and the turn's JSON."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard

import msgspec

from advisor.conversation.session import new_conversation
from knowledge.errors import AdvisorError
from knowledge.messages import t
from knowledge.structs import dump
from ui.web import render as R
from ui.web.exports import ExportStore
from ui.web.sweep import ContextSweep, catalog_capacity, context_rows, estimator_context_sweep

if TYPE_CHECKING:
    from advisor.conversation.turn import Step, Turn

log = logging.getLogger(__name__)


class ChatConversation(Protocol):
    """What the page needs of a conversation: `advisor.conversation.session.Conversation`,
    `ui.web.pool.RemoteConversation` or a test double. Its language, driver and settings are read with `getattr`
    (`conversation_mode`): not every conversation has them."""

    def stream(self, text: str) -> Iterator[Step | Turn | str]: ...


ConversationFactory = Callable[[], ChatConversation]


def default_conversation_factory() -> ChatConversation:
    """A fresh conversation: LLM mode when a model is configured, else deterministic (conversation layer decides)."""
    return new_conversation(lang=None)


def conversation_mode(conv: object) -> tuple[str, str | None]:
    """("llm", model name) or ("deterministic", None) for a conversation object."""
    driver = getattr(conv, "driver", None) or getattr(conv, "mode", None) or "deterministic"
    if driver != "llm":
        return "deterministic", None
    settings = getattr(conv, "settings", None)
    name = getattr(settings, "model", None) or (settings.get("model") if isinstance(settings, Mapping) else None)
    return "llm", str(name) if name else None


class SessionState(msgspec.Struct):
    """What one browser session keeps between turns."""

    # `conv` and `last_turn` stay Any while the conversation store's controller (ui/web/store.py) reads them
    # through the pool's proxy (`RemoteConversation.local`) without a None check; a ChatConversation | None and a
    # Turn | None.
    conv: Any = None
    history: list[dict[str, Any]] = msgspec.field(default_factory=list)  # Gradio chat messages
    last_result: Turn | None = None  # the latest Turn that carried a recommendation or memory breakdown
    last_question: str = ""
    questions: list[str] = msgspec.field(default_factory=list)  # every message of this conversation the advisor read
    result_questions: tuple[str, ...] = ()  # those that led to `last_result` (the quote's whole request)
    exports: tuple[str, str] | None = None
    exports_lang: str | None = None
    last_turn: Any = None  # the latest Turn, whatever it carried
    last_raw: dict[str, Any] | None = None  # its JSON (API output)
    # in the conversation store (ui/web/store.py), when one is configured:
    conversation_id: str | None = None
    revision: int = 0  # turns of it the store had when this session last read or wrote it
    owner: str = ""  # "user:NAME", "browser:ID" or "" (ui.web.store.owner_of)
    quote_id: str | None = None  # permanent link of the latest recommendation


def session_of(state: object) -> SessionState:
    """The session's state, or a fresh one (a new browser session, or a state Gradio dropped)."""
    return state if isinstance(state, SessionState) else SessionState()


# Intermediate chat updates (tool steps, streamed text) are sent at most this often, in seconds.
STREAM_INTERVAL_S = 0.1
MAX_SHOWN_MESSAGES = 300  # chat messages a session shows (the conversation keeps its own bounded history)
MAX_QUOTED_MESSAGES = 50  # the quote's request lists at most this many of the conversation's last messages


class ChatController:
    """Runs one chat turn and says what the page should show; yields dicts keyed like `CHAT_KEYS` (missing keys
    mean "as before"). Never raises: errors become a reply in the user's language."""

    def __init__(self, conversation_factory: ConversationFactory | None = None, *,
                 exports: ExportStore | None = None,
                 sweep: Callable[[Turn], ContextSweep | None] | None = None,
                 capacity_of: Callable[[str], float | None] | None = None) -> None:
        self.factory = conversation_factory or default_conversation_factory
        self.exports = exports or ExportStore()
        self.sweep = sweep if sweep is not None else estimator_context_sweep
        self.capacity_of = capacity_of if capacity_of is not None else catalog_capacity

    # --- one turn ---------------------------------------------------------------------------------------
    def turn(self, message: Any, state: SessionState | None, ui_lang: str = "en") -> Iterator[dict[str, Any]]:
        """Yield {"chatbot", "state", and on the last update "raw", "mode", "export_md", "export_json"}.

        Intermediate updates (tool steps, streamed text) are sent at most every `STREAM_INTERVAL_S`, so a turn
        that finishes in milliseconds (deterministic mode) costs one update; slow LLM turns show their steps live.
        """
        state = state if isinstance(state, SessionState) else SessionState()
        ui_lang = ui_lang if ui_lang in R.LANGS else "en"
        text = message if isinstance(message, str) else ""
        lang = message_lang(text, getattr(state.conv, "lang", None) or ui_lang)
        history = state.history
        if len(history) >= MAX_SHOWN_MESSAGES:  # bounded memory per session, and the user is told
            del history[:len(history) - MAX_SHOWN_MESSAGES + 2]
            history[0] = R.assistant_message(t("web.chat.trimmed", lang))
        history.append(R.user_message(text, lang))
        problem = R.check_message(text, lang)
        if problem:
            history.append(R.assistant_message(problem))
            yield {"chatbot": list(history), "state": state}
            return
        state.questions.append(text)
        del state.questions[:-MAX_QUOTED_MESSAGES]
        try:
            if state.conv is None:
                state.conv = self.factory()
            last = time.monotonic()
            if conversation_mode(state.conv)[0] == "llm":  # a model turn takes seconds: show it is working
                yield {"chatbot": [*history, R.pending_message(lang)], "state": state}
            final = None
            shown: list[Any] = []  # the tool steps so far
            partial = ""
            for item in state.conv.stream(text):
                if _is_turn(item):
                    final = item
                    continue
                if isinstance(item, str):  # an answer delta, when a driver streams text
                    partial += item
                    tail = R.assistant_message(partial)
                else:
                    shown.append(item)
                    tail = R.pending_message(lang)
                if time.monotonic() - last >= STREAM_INTERVAL_S:
                    last = time.monotonic()
                    steps = R.steps_messages(shown, lang, pending=True, turn_no=len(history))
                    yield {"chatbot": [*history, *steps, tail], "state": state}
            if final is None:
                raise RuntimeError("the conversation returned no answer")
            if getattr(final, "mode", None) != "llm" and conversation_mode(state.conv)[0] == "llm":
                # the model's answer was abandoned (error, failed grounding): show the steps of the deterministic
                # answer given instead, not the model's calls as if they had produced it
                shown = list(getattr(final, "steps", []) or [])
            history.extend(R.steps_messages(shown, lang, turn_no=len(history)))
            history.append(R.assistant_message(R.answer_markdown(final)))
            if R.has_result(final):
                state.last_result, state.last_question, state.exports = final, text, None
                state.result_questions = tuple(state.questions)
            state.last_turn, state.last_raw = final, turn_json(final)
            out: dict[str, Any] = {"chatbot": list(history), "state": state, "raw": state.last_raw,
                                   "mode": self.mode_text(state, ui_lang, final)}
            out["export_md"], out["export_json"] = self.export_files(state, ui_lang)
            yield out
        except Exception as exc:
            log.exception("web chat turn failed")
            reply = exc.localized(lang) if isinstance(exc, AdvisorError) else R.label("error", lang,
                                                                                        kind=type(exc).__name__)
            # drop anything half-shown of this turn, keep the user's message and answer with the error
            history.append(R.assistant_message(reply))
            yield {"chatbot": list(history), "state": state}

    # --- the panels beside the chat ----------------------------------------------------------------------
    def panels(self, state: SessionState, lang: str) -> dict[str, Any]:
        """Chart rows, table, findings and plots for the latest recommendation (empty when there is none)."""
        turn = state.last_result
        if turn is None:
            return {"memory": [], "table": R.options_table([], lang), "findings": R.label("no_result", lang),
                    "context": [], "cost": []}
        options = list(getattr(turn, "options", []) or [])
        # the charts describe the current turn: none after a turn that sized nothing (a market answer)
        current = state.last_turn is None or state.last_turn is turn
        return {
            "memory": R.memory_chart_rows(turn, lang, capacity_of=self.capacity_of) if current else [],
            "table": R.options_table(options, lang),
            "findings": R.findings_markdown(turn, lang),
            "context": self.context_rows(turn, lang) if current else [],
            "cost": R.cost_throughput_rows(options) if current else [],
        }

    def export_files(self, state: SessionState, lang: str) -> tuple[str | None, str | None]:
        """(Markdown, JSON) export files of the latest recommendation in `lang`, reserved once per result (written
        then, or on the first download when the store is lazy)."""
        turn = state.last_result
        if turn is None:
            return None, None
        if state.exports is None or state.exports_lang != lang:
            question, asked = state.last_question, list(state.result_questions) or [state.last_question]

            def render() -> tuple[str, str, str]:
                return (R.export_markdown(turn, questions=asked, lang=lang),
                        R.export_json(turn, question=question, questions=asked, lang=lang),
                        R.export_html(turn, questions=asked, lang=lang))

            try:
                state.exports = self.exports.reserve(render)
                state.exports_lang = lang
            except OSError:
                log.exception("could not write export files")
                state.exports = None
        return state.exports or (None, None)

    def context_rows(self, turn: Turn, lang: str) -> list[dict[str, Any]]:
        """The memory-vs-context plot's rows (`ui.web.sweep.context_rows` with this controller's sweep)."""
        return context_rows(turn, lang, self.sweep)

    def mode_text(self, state: SessionState, lang: str, turn: Turn | None = None) -> str:
        mode, name = conversation_mode(state.conv) if state.conv is not None else self.startup_mode()
        if turn is not None:
            turn_mode = getattr(turn, "mode", None)
            if turn_mode == "llm":
                return R.mode_badge("llm", getattr(turn, "model_name", None) or name, lang)
            if mode == "llm":
                return R.mode_badge("deterministic", name, lang, fallback=True)
        return R.mode_badge(mode, name, lang)

    _startup: tuple[str, str | None] | None = None

    def startup_mode(self) -> tuple[str, str | None]:
        """The mode a new conversation would get (probed once)."""
        if self._startup is None:
            try:
                self._startup = conversation_mode(self.factory())
            except Exception:
                log.exception("could not create a conversation to probe the mode")
                self._startup = ("deterministic", None)
        return self._startup


PREFILL_MAX_CHARS = 2000


def prefill_question(query: Mapping[str, Any]) -> str:
    """The `q` query parameter as plain text for the input box: at most PREFILL_MAX_CHARS characters, control
    characters dropped (it is only ever shown as the box's value, never rendered as HTML)."""
    q = query.get("q") if hasattr(query, "get") else None
    if not isinstance(q, str):
        return ""
    q = "".join(ch for ch in q if ch.isprintable() or ch in "\n\t")
    return q.strip()[:PREFILL_MAX_CHARS]


def _is_turn(item: object) -> TypeGuard[Turn]:
    return hasattr(item, "answer") and hasattr(item, "steps")


def message_lang(text: str, default: str) -> str:
    """The language of a message ("zh" or "en"; the conversation layer's detector), `default` when it cannot tell."""
    try:
        # optional: the answer degrades when advisor.conversation.reader.lang fails to import
        from advisor.conversation.reader.lang import detect

        return detect(text[:2000]) or (default if default in R.LANGS else "en")
    except ImportError:
        return R.detect_lang(text, default if default in R.LANGS else "en")


def turn_json(turn: Turn) -> dict[str, Any]:
    """The turn as the /chat API returns it: the `ask --json` contract (answer, questions, numbers, findings,
    mode) plus language, model, note, the options (compact: `web_render.compact_option`), the first option's
    memory breakdown, the workload as understood, and the tool steps (name, arguments, duration, ok)."""
    doc = turn.to_contract()
    doc.update({
        "lang": turn.lang,
        "model_name": turn.model_name,
        "note": turn.note,
        "options": [R.compact_option(o) for o in turn.options if isinstance(o, Mapping)],
        "memory": turn.memory,
        "workload": turn.workload or {},
        "steps": [dump(s, exclude={"summary"}) for s in turn.steps],
    })
    return doc
