"""One conversation: its state (the workload understood so far), its history, and which driver answers.

Every interface (CLI, web, Slack) holds a :class:`Conversation` per user or thread and calls
:meth:`Conversation.respond` (one finished :class:`Turn`) or :meth:`Conversation.stream` (the tool
steps as they run, then the Turn). Two drivers answer:

- ``"deterministic"`` — :class:`advisor.conversation.dialog.turn.DialogDriver`: slot extraction, clarifying
  questions, answers from the recommender/estimator/rules. Needs no model.
- ``"llm"`` — ``advisor.conversation.llm.agent.AgentDriver`` (imported lazily). When it raises, cannot be
  built, or reports that its answer failed grounding, the user gets the deterministic answer and a short note.

Nothing here raises for user input: any failure becomes a Turn that says what went wrong, and the
conversation state from before the failing turn is kept. State round-trips through
:meth:`Conversation.to_dict` / :meth:`Conversation.from_dict` (JSON-safe) for Slack threads and Gradio state.
"""

from __future__ import annotations

import copy
import logging
import os
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from advisor import observe
from advisor.conversation.dialog.language import switch_language
from advisor.conversation.dialog.machine import (
    DialogState,
    apply_constraints,
    apply_workload,
    build_constraints,
    build_workload,
    workload_summary_dict,
)
from advisor.conversation.dialog.machine import observe as observe_slots
from advisor.conversation.dialog.turn import DialogDriver
from advisor.conversation.reader.lang import detect
from advisor.conversation.turn import Fallback, Step, Turn, fallback_of, load_turn
from advisor.workload import Constraints, Workload
from knowledge.errors import AdvisorError, InputError
from knowledge.messages import t
from knowledge.structs import dump, replace, validate

if TYPE_CHECKING:
    from advisor.conversation.llm.agent import AgentDriver

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())  # the application decides where logs go (no stderr traceback in the CLI)

DRIVERS = ("deterministic", "llm")
HISTORY_KEPT = 50  # turns kept (in memory and in to_dict()); older ones are dropped (the slot state keeps what they said)
STATE_VERSION = 1


def llm_configured(settings: Any = None) -> bool:
    """True when a model is configured: the settings object says so, or OPENAI_API_KEY / ADVISOR_MODEL is set."""
    if settings is not None:
        for attr in ("llm_configured", "configured", "is_configured"):
            value = getattr(settings, attr, None)
            if value is not None:
                return bool(value() if callable(value) else value)
        for attr in ("api_key", "model"):
            if getattr(settings, attr, None):
                return True
        if isinstance(settings, dict):
            return bool(settings.get("api_key") or settings.get("model"))
        return False
    return bool(os.environ.get("OPENAI_API_KEY") or os.environ.get("ADVISOR_MODEL"))


class Conversation:
    """Per-user/thread conversation. Attributes: `driver`, `lang`, `history` [(text, Turn)], `state`;
    properties `workload` (None until a model is known) and `constraints`."""

    def __init__(self, *, driver: str | None = None, settings: Any = None, lang: str | None = None) -> None:
        if driver is not None and driver not in DRIVERS:
            raise InputError(f"unknown driver '{driver}'", field="driver", accepted=", ".join(DRIVERS))
        if lang is not None and lang not in ("zh", "en"):
            raise InputError(f"unknown language '{lang}'", field="lang", accepted="zh, en")
        self.settings = settings
        self.driver: str = driver or ("llm" if llm_configured(settings) else "deterministic")
        self.fixed_lang: str | None = lang
        self.lang: str = lang or "en"
        self.state = DialogState()
        self.history: list[tuple[str, Turn]] = []
        self.conversation_id: str | None = None  # the id its store or API caller holds, for log lines (advisor.observe)
        self._agent: AgentDriver | None = None
        self._dialog: DialogDriver | None = None

    # -- the workload as understood so far -------------------------------------------------------------
    @property
    def workload(self) -> Workload | None:
        try:
            return build_workload(self.state)[0]
        except AdvisorError:
            return None

    @workload.setter
    def workload(self, value: Workload | None) -> None:
        apply_workload(self.state, value)

    @property
    def constraints(self) -> Constraints:
        try:  # the language decides the default region and currency, as in the dialog's own turns
            return build_constraints(self.state, self.lang)[0]
        except AdvisorError:
            return Constraints()

    @constraints.setter
    def constraints(self, value: Constraints) -> None:
        apply_constraints(self.state, value)

    # -- turns -------------------------------------------------------------------------------------------
    def respond(self, text: str) -> Turn:
        """One turn: the final Turn of :meth:`stream`."""
        turn: Turn | None = None
        for item in self.stream(text):
            if isinstance(item, Turn):
                turn = item
        assert turn is not None  # stream always ends with a Turn
        return turn

    def stream(self, text: str) -> Iterator[Step | Turn]:
        """Yield a Step for each tool call as it finishes, then the Turn. Never raises for user input."""
        text = "" if text is None else str(text)
        started = time.monotonic()
        observe.turn_started(self)  # metrics and the conversation id of log lines (advisor/observe.py)
        self._update_lang(text)
        snapshot = copy.deepcopy(self.state)
        turn: Turn | None = None
        try:
            source = self._stream_llm(text, snapshot) if self.driver == "llm" else self._stream_dialog(text)
            for item in source:
                if isinstance(item, Turn):
                    turn = item
                else:
                    yield item
        except Exception as exc:  # a bug in a driver must not lose the conversation
            log.exception("conversation turn failed")
            self.state = snapshot
            turn = self._error_turn(exc)
        if turn is None:
            self.state = snapshot
            turn = self._error_turn(RuntimeError("the driver returned no answer"))
        self.history.append((text, turn))
        del self.history[:-HISTORY_KEPT]  # bounded memory per conversation; the slot state keeps what was said
        observe.turn_finished(self, turn, time.monotonic() - started)
        yield turn

    def _update_lang(self, text: str) -> None:
        asked = switch_language(self.state, text, self.lang)  # "answer in Chinese please": that one from now on
        if asked:
            self.lang = asked
            return
        if self.fixed_lang:
            self.lang = self.fixed_lang
            return
        found = detect(text[:2000])
        if found:
            self.lang = found

    def _dialog_driver(self) -> DialogDriver:
        if self._dialog is None:
            self._dialog = DialogDriver()
        return self._dialog

    def _stream_dialog(self, text: str, note: str = "", fallback: Fallback | None = None) -> Iterator[Step | Turn]:
        for item in self._dialog_driver().run(self, text):
            if isinstance(item, Turn) and note:
                item = replace(item, note=(note + (" " + item.note if item.note else "")).strip(), fallback=fallback)
            yield item

    def _stream_llm(self, text: str, snapshot: DialogState) -> Iterator[Step | Turn]:
        """Delegate to the agent; on any failure restore the state and answer deterministically, with a note."""
        steps: list[Step] = []
        try:
            if self._agent is None:
                # start-up: `gpu-advisor ask` never loads advisor.conversation.llm.agent
                from advisor.conversation.llm.agent import AgentDriver  # lazy: LangChain is heavy

                self._agent = AgentDriver(self.settings)
            read_first = getattr(self._agent, "read_then_answer", None)  # absent on test doubles of the agent
            if read_first is not None and (yield from read_first(self, text)):
                return  # the model read the message, the deterministic dialog answered (Settings.reader)

            observe_slots(self.state, text, self.lang)  # keep slots current for the agent and for follow-ups
            final: Turn | None = None
            for item in self._agent.run(self, text):
                if isinstance(item, Turn):
                    final = item
                else:
                    steps.append(item)
                    yield item
            if final is None:
                raise RuntimeError("the agent returned no answer")
            if final.extra.get("grounding_failed"):
                raise _Ungrounded("its numbers did not match the tools' results")
            yield replace(final, mode="llm") if final.mode != "llm" else final
            return
        except Exception as exc:  # noqa: BLE001 - any agent failure falls back
            why = _short_reason(exc)
            log.warning("LLM driver failed, falling back to the deterministic dialog: %s", why)
            self.state = snapshot
            note_of = getattr(exc, "note", None)  # the agent's AgentUnavailable words its own reason
            note = note_of(self.lang) if callable(note_of) else (
                t("session.fallback", self.lang, why=why))
            fallback = fallback_of(exc, why)
        yield from self._stream_dialog(text, note=note, fallback=fallback)

    def _error_turn(self, exc: BaseException) -> Turn:
        if isinstance(exc, AdvisorError):
            message = exc.localized(self.lang)
        else:
            message = t("session.turn_failed", self.lang, error=type(exc).__name__)
        return Turn(answer=message, lang="zh" if self.lang == "zh" else "en",
                    mode="deterministic", note="error", workload=self._workload_dict())

    def _workload_dict(self) -> dict[str, Any]:
        try:
            return workload_summary_dict(self.state)
        except Exception:  # noqa: BLE001
            return {}

    # -- serialisation -------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe state: driver, language, slots, pending question and the last turns."""
        return {
            "version": STATE_VERSION,
            "driver": self.driver,
            "lang": self.lang,
            "fixed_lang": self.fixed_lang,
            "state": dump(self.state, json=True),
            "history": [[text, dump(turn, json=True)] for text, turn in self.history[-HISTORY_KEPT:]],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any], *, settings: Any = None) -> Conversation:
        """Rebuild a conversation saved by :meth:`to_dict`. A malformed dict raises InputError naming the field."""
        if not isinstance(d, dict):
            raise InputError("conversation state must be a dict from Conversation.to_dict()", field="state")
        if d.get("version", STATE_VERSION) != STATE_VERSION:
            raise InputError(f"conversation state version {d.get('version')!r} is not supported",
                             field="version", accepted=str(STATE_VERSION))
        conv = cls(driver=d.get("driver") or None, settings=settings, lang=d.get("fixed_lang") or None)
        if d.get("lang") in ("zh", "en"):
            conv.lang = d["lang"]
        try:
            conv.state = validate(DialogState, d.get("state") or {})
            conv.history = [(str(text), load_turn(turn)) for text, turn in d.get("history") or []]
        except (TypeError, ValueError) as exc:  # a StructError is a ValueError
            raise InputError(f"conversation state is malformed: {exc}", field="state") from exc
        return conv


class _Ungrounded(RuntimeError):
    reason = "ungrounded"


def _short_reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    name = type(exc).__name__
    reason = f"{name}: {text}" if text else name
    return reason if len(reason) <= 160 else reason[:157] + "..."


def new_conversation(settings: Any = None, lang: str | None = None) -> Conversation:
    """A conversation in LLM mode when a model is configured (settings, or OPENAI_API_KEY / ADVISOR_MODEL), else
    deterministic. With no settings given, the agent engineer's settings loader is used when it exists."""
    if settings is None:
        settings = _load_settings()
    return Conversation(settings=settings, lang=lang)


def _load_settings() -> Any:
    try:
        # optional: the answer degrades when advisor.conversation.llm fails to import
        from advisor.conversation.llm import settings as settings_module
    except ImportError:
        return None
    for name in ("load_settings", "get_settings", "from_env"):
        loader = getattr(settings_module, name, None)
        if callable(loader):
            try:
                return loader()
            except AdvisorError:
                raise
            except Exception:
                log.warning("could not load LLM settings; using the deterministic dialog", exc_info=True)
                return None
    return None
