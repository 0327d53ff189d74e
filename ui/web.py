"""The browser chat: a Gradio app over `advisor.conversation`.

Layout: the chat on the left (streamed tool steps as collapsible messages, then the answer), the latest
recommendation on the right (memory chart against the card's capacity, ranked options, findings with sources,
memory-vs-context and price-vs-throughput plots, Markdown/JSON export), a language toggle for the interface and
a mode indicator (LLM model name, or deterministic).

Each browser session (and each `gradio_client.Client`) has its own `gr.State` holding its `Conversation`, so users
never see each other's turns. The chat endpoint is `api_name="/chat"`: inputs `message` and `ui_lang`; outputs the
chat history, the mode, the panels and the turn's JSON (`ask --json` contract plus options, memory, workload).

Safety: no file inputs, no share links, errors rendered as replies (never a traceback), model text rendered with
raw HTML disarmed (`web_render.safe_markdown`) and Gradio's sanitizer on, messages over
`web_render.MAX_MESSAGE_CHARS` refused with a reply, request bodies over `WebSettings.max_body_bytes` refused
with HTTP 413. Gradio is imported only inside `build_app`/`serve`, so importing this module is cheap.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from knowledge.errors import AdvisorError, InputError
from ui import web_render as R
from ui.server_process import settle_process
from ui.web_page import CHAT_HEIGHT, CSS, SCROLL_TO_ANSWER_JS
from ui.web_pool import TurnPool, default_workers, remote_factory

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7860

# Environment overrides (command-line flags win over them; `GRADIO_SERVER_NAME/PORT` are read as fallbacks).
ENV_HOST = "GPU_ADVISOR_WEB_HOST"
ENV_PORT = "GPU_ADVISOR_WEB_PORT"
ENV_AUTH = "GPU_ADVISOR_WEB_AUTH"  # "user:password"; preferred over --auth, which shows in the process list
ENV_QUEUE = "GPU_ADVISOR_WEB_QUEUE_SIZE"
ENV_CONCURRENCY = "GPU_ADVISOR_WEB_CONCURRENCY"
ENV_MAX_BODY = "GPU_ADVISOR_WEB_MAX_BODY_BYTES"
ENV_WORKERS = "GPU_ADVISOR_WEB_WORKERS"


@dataclass(frozen=True)
class WebSettings:
    """Deployment settings of the web chat. `concurrency` turns run at once, `queue_size` more may wait."""

    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    auth: tuple[str, str] | None = None
    queue_size: int = 100
    concurrency: int = 8
    max_body_bytes: int = 1_000_000  # whole HTTP request; a 100 KB message still gets a clear reply
    export_dir: str | None = None  # where export files are written (default: inside Gradio's file cache)
    workers: int | None = None  # processes answering deterministic turns (None: ui.web_pool.default_workers())

    def validated(self) -> WebSettings:
        """Self, after range checks; InputError names the field and the accepted values."""
        if not self.host or any(c.isspace() for c in self.host):
            raise InputError(f"invalid host {self.host!r}", field="host", accepted="a host name or IP, e.g. 127.0.0.1")
        _check_int("port", self.port, 1, 65535)
        _check_int("queue-size", self.queue_size, 1, 100_000)
        _check_int("concurrency", self.concurrency, 1, 1024)
        _check_int("max-body-bytes", self.max_body_bytes, 64_000, 100_000_000)
        if self.workers is not None:
            _check_int("workers", self.workers, 0, 64)
        if self.auth is not None and (len(self.auth) != 2 or not self.auth[0] or not self.auth[1]):
            raise InputError("auth needs a user and a password", field="auth", accepted="USER:PASSWORD")
        return self

    def public(self) -> dict[str, Any]:
        """For logs: everything but the password."""
        return {"host": self.host, "port": self.port, "auth": bool(self.auth), "queue_size": self.queue_size,
                "concurrency": self.concurrency, "max_body_bytes": self.max_body_bytes, "workers": self.workers}

    def worker_count(self) -> int:
        """Processes for deterministic turns: `workers`, else one per core but one (ui.web_pool)."""
        return default_workers() if self.workers is None else self.workers


def _check_int(name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InputError(f"invalid {name} {value!r}", field=name, accepted=f"an integer from {lo} to {hi}")


def parse_auth(text: str | None) -> tuple[str, str] | None:
    """"user:password" -> (user, password); None or "" -> None."""
    if not text:
        return None
    user, sep, password = text.partition(":")
    if not sep or not user or not password:
        raise InputError("auth must be USER:PASSWORD with both parts non-empty", field="auth",
                         accepted="USER:PASSWORD")
    return user, password


def _env_int(env: Mapping[str, str], *names: str) -> int | None:
    for name in names:
        raw = env.get(name, "").strip()
        if raw:
            try:
                return int(raw)
            except ValueError:
                raise InputError(f"{name}={raw!r} is not an integer", field=name, accepted="an integer") from None
    return None


def settings_from(
    env: Mapping[str, str] | None = None, *, host: str | None = None, port: int | None = None,
    auth: str | None = None, queue_size: int | None = None, concurrency: int | None = None,
    workers: int | None = None,
) -> WebSettings:
    """Defaults < environment (see the ENV_* names) < explicit arguments (the command-line flags)."""
    env = os.environ if env is None else env
    base = WebSettings()
    values: dict[str, Any] = {
        "host": host or env.get(ENV_HOST, "").strip() or env.get("GRADIO_SERVER_NAME", "").strip() or base.host,
        "port": port if port is not None else (_env_int(env, ENV_PORT, "GRADIO_SERVER_PORT") or base.port),
        "auth": parse_auth(auth if auth is not None else env.get(ENV_AUTH)),
        "queue_size": queue_size if queue_size is not None else (_env_int(env, ENV_QUEUE) or base.queue_size),
        "concurrency": concurrency if concurrency is not None else (_env_int(env, ENV_CONCURRENCY) or base.concurrency),
        "max_body_bytes": _env_int(env, ENV_MAX_BODY) or base.max_body_bytes,
        "workers": workers if workers is not None else _env_int(env, ENV_WORKERS),
    }
    return replace(base, **values).validated()


# -------------------------------------------------------------------------------------------------------------
# Export files


class ExportStore:
    """Each recommendation's export files (Markdown and JSON) in their own sub-folder of one folder; folders older
    than `max_age_s` are pruned.

    The download buttons serve the files from Gradio's cache: a file outside it is hashed and copied there on every
    turn, so the app keeps this folder inside it (`_gradio_export_dir`). There the store can also be `lazy`: a turn
    only reserves the two paths (`reserve`) and the files are rendered and written when one of them is first
    requested (`materialize`, called by the `_LazyExports` middleware before Gradio serves the file) — most turns
    are never exported, and rendering and writing them cost ~1 ms of a ~5 ms deterministic turn."""

    MAX_PENDING = 4096  # reserved exports kept (each holds its turn); the oldest are dropped first

    def __init__(self, root: str | None = None, max_age_s: float = 3600.0, *, lazy: bool = False) -> None:
        self.root = Path(root or tempfile.mkdtemp(prefix="gpu-advisor-export-")).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_age_s = max_age_s
        self.lazy = lazy
        self._last_prune = 0.0
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, tuple[float, Callable[[], tuple[str, ...]], str]] = OrderedDict()
        if lazy:
            _LAZY_STORES.add(self)

    def write(self, markdown: str, json_text: str, html_text: str | None = None,
              stem: str = "gpu-advisor-quote") -> tuple[str, str]:
        self._prune()
        return self._write(self.root / uuid.uuid4().hex, stem, markdown, json_text, html_text)

    def reserve(self, render: Callable[[], tuple[str, ...]], stem: str = "gpu-advisor-quote") -> tuple[str, str]:
        """Paths for the export `render()` will produce as (Markdown, JSON[, HTML]) texts: written now unless
        `lazy`, else on the first request for any of its files."""
        if not self.lazy:
            return self.write(*render(), stem=stem)
        self._prune()
        token = uuid.uuid4().hex
        with self._lock:
            self._pending[token] = (time.time(), render, stem)
            while len(self._pending) > self.MAX_PENDING:
                self._pending.popitem(last=False)
        folder = self.root / token
        return str(folder / f"{stem}.md"), str(folder / f"{stem}.json")

    def materialize(self, path: str) -> bool:
        """Write the reserved export that `path` names, if it is still pending; True when it was written now. A
        requested PDF is printed from the export's HTML (`ui.quote_pdf`, seconds) on its first request only."""
        target = Path(path)
        if target.parent.parent != self.root:
            return False
        with self._lock:  # one writer per export; a second request waits here until the files exist
            entry = self._pending.get(target.parent.name)
            written = entry is not None
            if entry is not None:
                _, render, stem = entry
                try:
                    self._write(target.parent, stem, *render())
                finally:
                    self._pending.pop(target.parent.name, None)
            page = target.with_suffix(".html")
            if target.suffix == ".pdf" and not target.exists() and page.exists():
                from ui.quote_pdf import html_to_pdf

                try:
                    html_to_pdf(page.read_text(encoding="utf-8"), target)
                    written = True
                except AdvisorError:  # no Chromium here: Gradio answers 404, the HTML is still there to print
                    log.exception("could not print the quote to PDF")
        return written

    @staticmethod
    def _write(folder: Path, stem: str, markdown: str, json_text: str, html_text: str | None = None) -> tuple[str, str]:
        """Write the export's files; the print-ready HTML (when rendered) beside the Markdown (`extra_paths`)."""
        folder.mkdir(exist_ok=True)
        md = folder / f"{stem}.md"
        js = folder / f"{stem}.json"
        md.write_text(markdown, encoding="utf-8")
        js.write_text(json_text, encoding="utf-8")
        if html_text is not None:
            (folder / f"{stem}.html").write_text(html_text, encoding="utf-8")
        return str(md), str(js)

    def extra_paths(self, md_path: str | None) -> tuple[str | None, str | None]:
        """(print-ready HTML, PDF) of the export whose Markdown is `md_path`; the PDF only from a lazy store (it is
        printed when first requested), so none is offered where files must exist before they are linked."""
        if not md_path:
            return None, None
        md = Path(md_path)
        return str(md.with_suffix(".html")), (str(md.with_suffix(".pdf")) if self.lazy else None)

    def _prune(self) -> None:
        now = time.time()
        with self._lock:
            if now - self._last_prune < 60:
                return
            self._last_prune = now
            for token in [t for t, (made, _, _) in self._pending.items() if now - made > self.max_age_s]:
                del self._pending[token]
        for child in self.root.iterdir():
            try:
                if now - child.stat().st_mtime > self.max_age_s:
                    shutil.rmtree(child, ignore_errors=True)
            except OSError:
                pass


_LAZY_STORES: weakref.WeakSet[ExportStore] = weakref.WeakSet()


def materialize_export(path: str) -> bool:
    """Write the pending lazy export that `path` names (any store of this process); True when written now."""
    return any(store.materialize(path) for store in list(_LAZY_STORES))


def _gradio_export_dir() -> tuple[str, bool]:
    """A folder inside Gradio's file cache ($GRADIO_TEMP_DIR, else <tmp>/gradio, as `gradio.utils` resolves it),
    and whether it is known to be inside it: files returned from there are served as they are, without Gradio
    hashing and copying each one (measured: 8 ms of CPU per turn for the two export files), which is also what lets
    them be written lazily."""
    try:
        from gradio.utils import get_upload_folder

        return str(Path(get_upload_folder()) / "gpu-advisor-exports"), True
    except ImportError:  # the structure of gradio.utils changed: the files are copied, as for any other folder
        base = Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()
        return str(base / "gpu-advisor-exports"), False


# -------------------------------------------------------------------------------------------------------------
# The chat turn, independent of Gradio


def default_conversation_factory() -> Any:
    """A fresh conversation: LLM mode when a model is configured, else deterministic (conversation layer decides)."""
    from advisor.conversation.session import new_conversation

    return new_conversation(lang=None)


def conversation_mode(conv: Any) -> tuple[str, str | None]:
    """("llm", model name) or ("deterministic", None) for a conversation object."""
    driver = getattr(conv, "driver", None) or getattr(conv, "mode", None) or "deterministic"
    if driver != "llm":
        return "deterministic", None
    settings = getattr(conv, "settings", None)
    name = getattr(settings, "model", None) or (settings.get("model") if isinstance(settings, Mapping) else None)
    return "llm", str(name) if name else None


@dataclass
class SessionState:
    """What one browser session keeps between turns."""

    conv: Any = None
    history: list[dict[str, Any]] = field(default_factory=list)
    last_result: Any = None  # the latest Turn that carried a recommendation or memory breakdown
    last_question: str = ""
    questions: list[str] = field(default_factory=list)  # every message of this conversation the advisor read
    result_questions: tuple[str, ...] = ()  # those that led to `last_result` (the quote's whole request)
    exports: tuple[str, str] | None = None
    exports_lang: str | None = None
    last_turn: Any = None  # the latest Turn, whatever it carried
    last_raw: dict[str, Any] | None = None  # its JSON (API output)
    # in the conversation store (ui/web_store.py), when one is configured:
    conversation_id: str | None = None
    revision: int = 0  # turns of it the store had when this session last read or wrote it
    owner: str = ""  # "user:NAME", "browser:ID" or "" (ui.web_store.owner_of)
    quote_id: str | None = None  # permanent link of the latest recommendation


# Intermediate chat updates (tool steps, streamed text) are sent at most this often, in seconds.
STREAM_INTERVAL_S = 0.1
# Gradio's queue keeps timings of its last GRADIO_ANALYTICS_MAX_EVENTS events (default 10,000) for its monitoring
# page and, by default, rebuilds a pandas summary of all of them after every event: measured 2.5 ms per turn on a
# fresh server, and it grows with the history kept. This app has no monitoring page; the summary is refreshed every
# 100 events over the last 1,000 (both can still be set in the environment).
GRADIO_QUEUE_ENV = {"GRADIO_ANALYTICS_CACHE_FREQUENCY": "100", "GRADIO_ANALYTICS_MAX_EVENTS": "1000"}
# A session's state is dropped this long after its last turn (seconds); at most this many sessions are kept,
# and a session shows at most this many chat messages (the conversation itself keeps its own bounded history).
SESSION_TTL_S = 4 * 3600
MAX_SESSIONS = 2000
MAX_SHOWN_MESSAGES = 300
TRIMMED_NOTE = {"en": "_(Older messages of this session are no longer shown, to keep it small; the workload you "
                      "described so far is kept.)_",
                "zh": "_（为控制会话大小，较早的消息已不再显示；你之前描述的工作负载仍然保留。）_"}
MAX_QUOTED_MESSAGES = 50  # the quote's request lists at most this many of the conversation's last messages


class ChatController:
    """Runs one chat turn and says what the page should show; yields dicts keyed like `CHAT_KEYS` (missing keys
    mean "as before"). Never raises: errors become a reply in the user's language."""

    def __init__(self, conversation_factory: Callable[[], Any] | None = None, *,
                 exports: ExportStore | None = None,
                 sweep: Callable[[Any], Callable[[int], Mapping[str, Any] | None] | None] | None = None,
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
        lang = _detect(text, getattr(state.conv, "lang", None) or ui_lang)
        history = state.history
        if len(history) >= MAX_SHOWN_MESSAGES:  # bounded memory per session, and the user is told
            del history[:len(history) - MAX_SHOWN_MESSAGES + 2]
            history[0] = R.assistant_message(TRIMMED_NOTE["zh" if lang == "zh" else "en"])
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
        return {
            "memory": R.memory_chart_rows(turn, lang, capacity_of=self.capacity_of),
            "table": R.options_table(options, lang),
            "findings": R.findings_markdown(turn, lang),
            "context": self.context_rows(turn, lang),
            "cost": R.cost_throughput_rows(options),
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

    def context_rows(self, turn: Any, lang: str) -> list[dict[str, Any]]:
        try:
            estimate = self.sweep(turn)
            if estimate is None:
                return []
            job, _ = R.workload_view(getattr(turn, "workload", None))
            context = int(job.get("context") or 0)
            contexts = R.sweep_contexts(_max_context(job.get("model")), context)
            return R.context_sweep_rows(context, estimate, _first_capacity(turn), lang, contexts)
        except Exception:
            log.debug("memory-vs-context sweep not available", exc_info=True)
            return []

    def mode_text(self, state: SessionState, lang: str, turn: Any = None) -> str:
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


def _is_turn(item: Any) -> bool:
    return hasattr(item, "answer") and hasattr(item, "steps")


def _detect(text: str, default: str) -> str:
    try:
        from advisor.conversation.lang import detect

        return detect(text[:2000]) or (default if default in R.LANGS else "en")
    except ImportError:
        return R.detect_lang(text, default if default in R.LANGS else "en")


def _max_context(model_id: Any) -> int | None:
    """The catalog model's maximum context in tokens (the memory-vs-context plot spans it), None when unknown."""
    try:
        from knowledge.catalog import load_catalog

        return int(load_catalog().model(str(model_id)).max_context) if model_id else None
    except Exception:  # noqa: BLE001 - the plot then spans the default range
        return None


def _first_capacity(turn: Any) -> float | None:
    memory = getattr(turn, "memory", None)
    options = getattr(turn, "options", None) or []
    for source in ([options[0]] if options and isinstance(options[0], Mapping) else []) + [memory]:
        cap = R.capacity_bytes(source) if isinstance(source, Mapping) else None
        if cap:
            return cap
    return None


def turn_json(turn: Any) -> dict[str, Any]:
    """The turn as the /chat API returns it: the `ask --json` contract (answer, questions, numbers, findings,
    mode) plus language, model, note, the options (compact: `web_render.compact_option`), the first option's
    memory breakdown, the workload as understood, and the tool steps (name, arguments, duration, ok)."""
    doc = turn.to_contract() if hasattr(turn, "to_contract") else {"answer": getattr(turn, "answer", "")}
    doc.update({
        "lang": getattr(turn, "lang", None),
        "model_name": getattr(turn, "model_name", None),
        "note": getattr(turn, "note", ""),
        "options": [R.compact_option(o) for o in getattr(turn, "options", []) or [] if isinstance(o, Mapping)],
        "memory": getattr(turn, "memory", None),
        "workload": getattr(turn, "workload", {}) or {},
        "steps": [{k: v for k, v in (s.model_dump() if hasattr(s, "model_dump") else dict(s)).items()
                   if k != "summary"} for s in getattr(turn, "steps", []) or []],
    })
    return doc


def _layout_fields(layout: Any, count: Any, nodes: Any = 1) -> dict[str, Any]:
    """Workload fields of an option's layout: a dict ({"tp": 2}) or the recommender's text ("TP 2 × PP 2",
    "DP 8, ZeRO-3", "1 GPU"); `gpus` is the option's count."""
    import re

    fields: dict[str, Any] = {}
    if isinstance(count, int) and count > 0:
        fields["gpus"] = count
    if isinstance(layout, Mapping):
        from advisor.workload import Workload

        fields.update({k: v for k, v in layout.items() if k in Workload.model_fields and v is not None})
    elif isinstance(layout, str):
        for key, pattern in (("tp", r"\bTP\s*(\d+)"), ("pp", r"\bPP\s*(\d+)"), ("zero", r"ZeRO-?(\d)")):
            m = re.search(pattern, layout, re.I)
            if m:
                fields[key] = int(m.group(1))
    return fields


def estimator_context_sweep(turn: Any) -> Callable[[int], Mapping[str, Any] | None] | None:
    """`ctx -> per-GPU bytes` from the memory estimator for the first option's GPU and layout, or None when the
    turn does not name them. The sweep is trusted only if it reproduces the option's own per-GPU total at the
    turn's context (within 1 %); otherwise no plot is drawn."""
    options = getattr(turn, "options", None) or []
    job, _ = R.workload_view(getattr(turn, "workload", None))
    if not options or not isinstance(options[0], Mapping) or not job.get("model"):
        return None
    first = options[0]
    expected = (first.get("per_gpu_bytes") or {}).get("total")
    if not expected or not first.get("gpu"):
        return None
    from advisor.estimator.memory import estimate_memory  # lazy: only when a recommendation is shown
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    model = catalog.model(str(job["model"]))
    gpu = catalog.gpu(str(first["gpu"]))
    fields = {k: v for k, v in job.items() if k in Workload.model_fields and v is not None}
    fields.update(_layout_fields(first.get("layout"), first.get("count")))
    nodes = first.get("nodes")
    if isinstance(nodes, int) and nodes > 1 and isinstance(first.get("count"), int):
        fields.update(nodes=nodes, gpus=max(1, first["count"] // nodes))
    base = Workload(**fields)

    def per_gpu(ctx: int) -> Mapping[str, Any] | None:
        try:
            update: dict[str, Any] = {"context": int(ctx)}
            if base.prompt_tokens and base.prompt_tokens >= ctx:
                return None
            return estimate_memory(model, base.model_copy(update=update), gpu).per_gpu.to_contract()
        except AdvisorError:
            return None

    got = per_gpu(base.context)
    if not got or abs(got["total"] - expected) > 0.01 * expected:
        log.debug("context sweep does not reproduce the option (%s vs %s); no plot", got and got["total"], expected)
        return None
    return per_gpu


def catalog_capacity(gpu_id: str) -> float | None:
    """Memory of a catalog GPU in bytes (the cited catalog entry), or None when unknown."""
    try:
        from knowledge.catalog import load_catalog

        return float(load_catalog().gpu(gpu_id).memory_bytes)
    except Exception:  # noqa: BLE001 - no capacity means no "free" segment, nothing else
        return None


# -------------------------------------------------------------------------------------------------------------
# The Gradio app

# Outputs of the /chat endpoint (the State is not part of the API) and of the panel refresh that follows it.
CHAT_KEYS = ("chatbot", "state", "mode", "export_md", "export_json", "raw")
PANEL_KEYS = ("memory", "table", "findings", "context", "cost")
MEMORY_COLUMNS = ["option", "part", "GiB", "order"]
CONTEXT_COLUMNS = ["context", "series", "GiB"]
COST_COLUMNS = ["option", "price", "currency", "tokens_per_s"]

AXIS = {
    "gib": {"en": "GiB per GPU", "zh": "单卡 GiB"},
    "part": {"en": "part", "zh": "组成"},
    "series": {"en": "series", "zh": "曲线"},
    "context": {"en": "context length (tokens)", "zh": "上下文长度（tokens）"},
    "price": {"en": "price", "zh": "价格"},
    "option": {"en": "option", "zh": "方案"},
}


def _color_map() -> dict[str, str]:
    colors = {"weights": "#4e79a7", "kv_cache": "#f28e2b", "activations": "#59a14f", "gradients": "#b07aa1",
              "optimizer_states": "#e15759", "overhead": "#9c755f", "free": "#d9d9d9"}
    return {R.PART_LABELS[p][lang]: c for p, c in colors.items() for lang in R.LANGS}


def _skip_json_revalidation(component: Any) -> Any:
    """Make this `gr.JSON` send our turn's JSON without Gradio re-validating every value of it: `gr.JSON.postprocess`
    builds a pydantic `JsonData` whose recursive `JsonValue` check costs ~1.9 ms for a 40 KB turn (py-spy, under
    load), and the value is ours, already JSON-shaped. The orjson round trip (dates and paths to strings) is kept;
    the browser and the API see the same component and data. (An instance override, not a subclass: Gradio's
    component metaclass writes a `.pyi` stub beside the module that defines a subclass.)"""
    import orjson
    from gradio.data_classes import JsonData

    general = component.postprocess

    def postprocess(value: Any) -> Any:
        if not isinstance(value, dict):
            return general(value)
        text = orjson.dumps(value, default=str, option=orjson.OPT_PASSTHROUGH_DATETIME)  # dates as Gradio writes them
        return JsonData.model_construct(root=orjson.loads(text))

    component.postprocess = postprocess
    return component


def build_app(settings: WebSettings | None = None, *, conversation_factory: Callable[[], Any] | None = None,
              controller: ChatController | None = None, store: Any = None) -> Any:
    """The Gradio Blocks of the web chat, with its queue configured from `settings` (not launched).

    Events: Enter/Send shows the user's message at once (outside the queue), then `/chat` (queued; streaming in LLM mode, one update in deterministic mode)
    answers and updates the mode, exports and turn JSON, then a private refresh redraws the chart, table,
    findings and plots from the session's latest recommendation. The language toggle relabels the page.
    """
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    for name, value in GRADIO_QUEUE_ENV.items():  # read when the queue is created, below
        os.environ.setdefault(name, value)
    import gradio as gr
    import pandas as pd

    settings = (settings or WebSettings()).validated()
    pool = None
    if controller is None and conversation_factory is None and settings.worker_count() > 0:
        pool = TurnPool(settings.worker_count())
        conversation_factory = remote_factory(pool)
    if settings.export_dir:
        exports = ExportStore(settings.export_dir)
    else:
        root, in_cache = _gradio_export_dir()
        exports = ExportStore(root, lazy=in_cache)
    keeper = None
    if store is not None and controller is None:  # conversations in the store: ui/web_store.py
        from advisor.store.keeper import Keeper
        from ui.web_store import StoredChatController

        keeper = Keeper(store, source="web")
        controller = StoredChatController(conversation_factory, exports=exports, keeper=keeper,
                                          auth=bool(settings.auth))
    ctl = controller or ChatController(conversation_factory, exports=exports)
    L = R.label

    def frame(rows: list[dict[str, Any]], columns: list[str]) -> Any:
        return pd.DataFrame(rows, columns=columns)

    def session_of(state: Any) -> SessionState:
        return state if isinstance(state, SessionState) else SessionState()

    with gr.Blocks(title="GPU Advisor · GPU 选型顾问", analytics_enabled=False, delete_cache=(1800, 7200),
                   fill_width=True) as demo:
        session = gr.State(None, time_to_live=SESSION_TTL_S)
        with gr.Row(equal_height=True, elem_id="header-row"):
            header = gr.Markdown(f"## {L('title')}\n{L('subtitle')}", elem_id="header")
            lang = gr.Radio([("English", "en"), ("中文", "zh")], value="en", label="Language · 界面语言", scale=0,
                            min_width=220, elem_id="ui-lang")
        mode_md = gr.Markdown(R.mode_badge(*ctl.startup_mode(), "en"), elem_id="mode-badge")
        with gr.Row(elem_id="main-row"):
            with gr.Column(scale=4, min_width=380):
                chatbot = gr.Chatbot(label=L("chat"), height=CHAT_HEIGHT, elem_id="chat", sanitize_html=True,
                                     render_markdown=True, allow_tags=False, latex_delimiters=[],
                                     feedback_options=None, buttons=["copy"], autoscroll=False)
                with gr.Row():
                    box = gr.Textbox(show_label=False, placeholder=L("placeholder"), lines=1, max_lines=6,
                                     scale=8, autofocus=True, elem_id="ask", label=L("input"))
                    send = gr.Button(L("send"), variant="primary", scale=1, min_width=80, elem_id="send")
                pending = gr.Textbox(visible=False, label="message")
                examples = gr.Examples(R.EXAMPLES, inputs=[box], label=L("examples"), examples_per_page=10)
                new = gr.Button(L("new"), size="sm", variant="secondary", elem_id="new-conversation")
            with gr.Column(scale=5, min_width=360, elem_id="result-col"):
                memory = gr.BarPlot(None, x="option", y="GiB", color="part", label=L("memory_chart"),
                                    y_title=AXIS["gib"]["en"], x_title=" ", color_title=AXIS["part"]["en"],
                                    color_map=_color_map(), caption=L("memory_caption"), sort=None, x_label_angle=-20,
                                    elem_id="memory-chart")
                table = gr.Dataframe(R.options_table([], "en"), label=L("options"), interactive=False, wrap=True,
                                     elem_id="options-table", max_height=360)  # widths: ui/web_page.CSS
                findings = gr.Markdown(L("no_result"), label=L("findings"), elem_id="findings",
                                       container=True, show_label=True)
                with gr.Row():
                    export_md = gr.DownloadButton(L("export_md"), value=None, size="sm", elem_id="export-md")
                    export_json = gr.DownloadButton(L("export_json"), value=None, size="sm", elem_id="export-json")
                with gr.Row():
                    export_html = gr.DownloadButton(L("export_html"), value=None, size="sm", elem_id="export-html")
                    export_pdf = gr.DownloadButton(L("export_pdf"), value=None, size="sm", elem_id="export-pdf")
                with gr.Tabs():
                    with gr.Tab(L("context_plot"), id="ctx") as ctx_tab:
                        context = gr.LinePlot(None, x="context", y="GiB", color="series", label=L("context_plot"),
                                              x_title=AXIS["context"]["en"], y_title=AXIS["gib"]["en"],
                                              color_title=AXIS["series"]["en"], elem_id="context-plot")
                    with gr.Tab(L("cost_plot"), id="cost") as cost_tab:
                        cost = gr.ScatterPlot(None, x="price", y="tokens_per_s", color="option",
                                              label=L("cost_plot"), x_title=AXIS["price"]["en"], y_title="tokens/s",
                                              color_title=AXIS["option"]["en"], elem_id="cost-plot")
                with gr.Accordion(L("raw"), open=False) as raw_acc:
                    raw = _skip_json_revalidation(gr.JSON(label="turn", elem_id="raw-json"))

        chat_outputs = [chatbot, session, mode_md, export_md, export_json, raw]
        streaming = ctl.startup_mode()[0] == "llm"  # model turns take seconds: show their steps as they come
        panel_outputs = [memory, table, findings, context, cost, export_html, export_pdf]

        def take(text: str, state: Any, ui_lang: str) -> tuple[Any, ...]:
            """Clear the box and show the question at once, with a "working" line, while the turn waits/runs."""
            st = session_of(state)
            text = text if isinstance(text, str) else ""
            shown = [*st.history, R.user_message(text, _detect(text, ui_lang)), R.pending_message(ui_lang)]
            return "", text, shown

        def chat(message: str, ui_lang: str, state: Any = None, request: Any = None) -> Iterator[tuple[Any, ...]]:
            st = session_of(state)
            if hasattr(ctl, "identify"):
                ctl.identify(st, request)
            current = {"mode": ctl.mode_text(st, ui_lang, st.last_turn), "raw": st.last_raw,
                       "export_md": (st.exports or (None, None))[0], "export_json": (st.exports or (None, None))[1]}
            for update in ctl.turn(message, st, ui_lang):
                current.update(update)
                current.setdefault("state", st)
                yield tuple(current[k] for k in CHAT_KEYS)

        def chat_once(message: str, ui_lang: str, state: Any = None, request: Any = None) -> tuple[Any, ...]:
            """`chat` without streaming: a deterministic turn takes milliseconds and updates the page once, and a
            plain function saves Gradio a second copy of the outputs (its "generating" event, then "complete")."""
            last: tuple[Any, ...] = ()
            for last in chat(message, ui_lang, state, request):  # noqa: B007 (the last update is the answer)
                pass
            return last

        chat.__annotations__["request"] = chat_once.__annotations__["request"] = gr.Request

        def panel_values(st: SessionState, ui_lang: str, *, titled: bool = False) -> tuple[Any, ...]:
            p = ctl.panels(st, ui_lang)
            cost_rows = frame(p["cost"], COST_COLUMNS)
            if titled:  # the price axis names the plotted currency
                cost_rows = gr.update(value=cost_rows, x_title=R.money_axis_title(p["cost"], ui_lang))
            extra = ctl.exports.extra_paths(ctl.export_files(st, ui_lang)[0])  # print-ready HTML, PDF
            return (frame(p["memory"], MEMORY_COLUMNS), p["table"], p["findings"],
                    frame(p["context"], CONTEXT_COLUMNS), cost_rows, *extra)

        def refresh(ui_lang: str, state: Any) -> tuple[Any, ...]:
            return panel_values(session_of(state), ui_lang, titled=True)

        def reset(ui_lang: str) -> tuple[Any, ...]:
            fresh = SessionState()
            return ([], fresh, ctl.mode_text(fresh, ui_lang), None, None, None, *panel_values(fresh, ui_lang))

        def relabel(ui_lang: str, state: Any) -> tuple[Any, ...]:
            ui_lang = ui_lang if ui_lang in R.LANGS else "en"
            st = session_of(state)
            mem, tab, fin, ctx, cst, html_path, pdf_path = panel_values(st, ui_lang)
            md_path, json_path = ctl.export_files(st, ui_lang)
            return (
                ctl.mode_text(st, ui_lang, st.last_turn),
                gr.update(value=mem, label=L("memory_chart", ui_lang), caption=L("memory_caption", ui_lang),
                          y_title=AXIS["gib"][ui_lang], color_title=AXIS["part"][ui_lang]),
                gr.update(value=tab, label=L("options", ui_lang)),
                gr.update(value=fin, label=L("findings", ui_lang)),
                gr.update(value=ctx, label=L("context_plot", ui_lang), x_title=AXIS["context"][ui_lang],
                          y_title=AXIS["gib"][ui_lang], color_title=AXIS["series"][ui_lang]),
                gr.update(value=cst, label=L("cost_plot", ui_lang), x_title=R.money_axis_title(
                    cst.to_dict("records"), ui_lang),
                          color_title=AXIS["option"][ui_lang]),
                gr.update(value=md_path, label=L("export_md", ui_lang)),
                gr.update(value=json_path, label=L("export_json", ui_lang)),
                gr.update(value=html_path, label=L("export_html", ui_lang)),
                gr.update(value=pdf_path, label=L("export_pdf", ui_lang)),
                gr.update(value=f"## {L('title', ui_lang)}\n{L('subtitle', ui_lang)}"),
                gr.update(label=L("chat", ui_lang)),
                gr.update(placeholder=L("placeholder", ui_lang), label=L("input", ui_lang)),
                gr.update(value=L("send", ui_lang)),
                gr.update(value=L("new", ui_lang)),
                gr.update(label=L("examples", ui_lang)),
                gr.update(label=L("context_plot", ui_lang)),
                gr.update(label=L("cost_plot", ui_lang)),
                gr.update(label=L("raw", ui_lang)),
            )

        chat_event = gr.on([box.submit, send.click], take, inputs=[box, session, lang], outputs=[box, pending, chatbot],
              queue=False, api_visibility="private", show_progress="hidden").then(
            None, js=SCROLL_TO_ANSWER_JS, queue=False, api_visibility="private").then(
            chat if streaming else chat_once, inputs=[pending, lang, session], outputs=chat_outputs, api_name="chat",
            show_progress="hidden", concurrency_limit=settings.concurrency, concurrency_id="chat").then(
            None, js=SCROLL_TO_ANSWER_JS, queue=False, api_visibility="private").then(
            refresh, inputs=[lang, session], outputs=panel_outputs, api_visibility="private", queue=False,
            show_progress="hidden")
        new.click(reset, inputs=[lang], outputs=chat_outputs + panel_outputs, api_visibility="private",
                  queue=False, show_progress="hidden")
        lang.change(relabel, inputs=[lang, session],
                    outputs=[mode_md, memory, table, findings, context, cost, export_md, export_json, export_html,
                             export_pdf,
                             header, chatbot, box, send, new, examples.dataset, ctx_tab, cost_tab, raw_acc],
                    api_visibility="private", queue=False, show_progress="hidden")

        def prefill(request: gr.Request) -> tuple[Any, ...]:
            """`/?q=…` (the Slack bot's "open in the web app" link) puts the question in the box, unsent."""
            q = prefill_question(getattr(request, "query_params", None) or {})
            if not q:
                return gr.update(), gr.update()
            return gr.update(value=q), gr.update(value=_detect(q, "en"))

        prefill.__annotations__["request"] = gr.Request  # resolved here: this module postpones annotations
        demo.load(prefill, inputs=None, outputs=[box, lang], api_visibility="private", queue=False,
                  show_progress="hidden")
        if keeper is not None:
            from ui.web_store import attach_history

            attach_history(gr, demo, ctl, session=session, lang=lang, chat_event=chat_event, new=new,
                           chat_outputs=chat_outputs, panel_outputs=panel_outputs, panel_values=panel_values)

    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.concurrency)
    demo._advisor_controller = ctl  # for serve()'s start-up line and for tests
    demo._advisor_pool = pool  # started by serve(); None when turns run in this process
    demo._advisor_keeper = keeper  # the conversation store's keeper (None: conversations in memory only)
    return demo


class _LazyExports:
    """ASGI middleware: before Gradio serves a file (`GET …/file=<path>`), write it if it is a lazy export still
    pending (`ExportStore.materialize`); every other request passes untouched."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") in ("GET", "HEAD") and _LAZY_STORES:
            path = str(scope.get("path", ""))
            if "/file=" in path:
                try:
                    materialize_export(path.split("/file=", 1)[1])
                except OSError:
                    log.exception("could not write an export file")  # Gradio then answers 404
        await self.app(scope, receive, send)


class _BodyLimit:
    """ASGI middleware: refuse HTTP requests whose body exceeds `max_bytes` with 413 (declared or streamed), and
    file uploads altogether with 403 (the app has no file inputs, so nothing legitimate uploads)."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")).rstrip("/").endswith("/upload"):
            await _refuse(send, 403, "file uploads are not accepted")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, 413, f"request body too large (limit {self.max_bytes} bytes)")
            return
        if scope.get("method") in ("GET", "HEAD"):  # no body to count: Gradio's event streams poll receive()
            await self.app(scope, receive, send)
            return
        seen = 0
        refused = False

        async def limited_receive() -> dict[str, Any]:
            nonlocal seen, refused
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    refused = True
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            if refused:
                await _refuse(send, 413, f"request body too large (limit {self.max_bytes} bytes)")


class _TooLarge(Exception):
    pass


async def _refuse(send: Any, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def launch_kwargs(settings: WebSettings, demo: Any = None) -> dict[str, Any]:
    """Arguments for `Blocks.launch`: no share link, no error details, no SSR, uploads refused, body limit (and
    the stored quotes' permanent links when `demo` keeps its conversations in a store)."""
    from starlette.middleware import Middleware

    from ui.metrics import OpsEndpoints
    from ui.web_security import SecurityGuard

    stored: list[Any] = []
    keeper = getattr(demo, "_advisor_keeper", None)
    if keeper is not None:
        from ui.web_store import StoredQuotes

        stored = [Middleware(StoredQuotes, keeper=keeper, auth=bool(settings.auth))]

    return {
        "server_name": settings.host,
        "server_port": settings.port,
        "auth": settings.auth,
        "auth_message": "GPU Advisor — sign in" if settings.auth else None,
        "share": False,
        "show_error": False,
        "ssr_mode": False,
        "pwa": False,
        "mcp_server": False,
        "enable_monitoring": False,
        "max_file_size": 1024,  # bytes: the app has no file inputs, so uploads are refused
        "state_session_capacity": MAX_SESSIONS,
        "footer_links": ["api"],
        "css": CSS,
        "app_kwargs": {"middleware": [Middleware(SecurityGuard),  # headers, login throttle, API login, fn_index
                                      Middleware(OpsEndpoints, web=True),  # /healthz, /readyz, /metrics
                                      Middleware(_BodyLimit, max_bytes=settings.max_body_bytes),
                                      _api_middleware(settings), Middleware(_LazyExports), *stored]},
    }


def _api_middleware(settings: WebSettings) -> Any:
    """The JSON API (/api/v1, ui/api_http.py) in this server, behind the same login."""
    from ui.api_http import web_middleware

    return web_middleware(settings.auth)


def start_turn_workers(demo: Any) -> int:
    """Spawn the app's turn workers now rather than during the first user's turn, when its conversations are
    deterministic (LLM turns stay in process); returns how many run. On failure turns are answered in this process."""
    pool = getattr(demo, "_advisor_pool", None)
    controller = getattr(demo, "_advisor_controller", None)
    if pool is None or (controller is not None and controller.startup_mode()[0] != "deterministic"):
        return 0
    try:
        return len(pool.start())
    except Exception:
        log.exception("could not start the turn workers; answering in the server process")
        return 0


def serve(settings: WebSettings | None = None, *, block: bool = True,
          conversation_factory: Callable[[], Any] | None = None) -> Any:
    """Build and launch the app; with `block=False` return the running Blocks (call `.close()` to stop)."""
    settings = (settings or WebSettings()).validated()
    if settings.host not in ("127.0.0.1", "localhost", "::1") and not settings.auth:
        log.warning("serving on %s without authentication; put it behind a proxy with TLS and auth, or pass --auth",
                    settings.host)
    from ui import metrics

    metrics.prepare()  # before the turn workers spawn: they inherit the multi-process metrics directory
    if block:
        from ui import logs

        logs.configure()  # JSON lines with the conversation id (GPU_ADVISOR_LOG_FORMAT=text for plain)
    from ui.web_store import open_web_store

    demo = build_app(settings, conversation_factory=conversation_factory, store=open_web_store())
    controller = getattr(demo, "_advisor_controller", None)
    mode, model = controller.startup_mode() if controller else ("deterministic", None)
    workers = start_turn_workers(demo)
    if block:
        settle_process()
        if mode == "llm":  # import LangChain now, not during the first user's turn
            from advisor.conversation.agent import prewarm

            prewarm()
        print(f"GPU Advisor web chat: http://{settings.host}:{settings.port}/ — mode: "
              + (f"LLM ({model})" if mode == "llm" else "deterministic (no OPENAI_API_KEY / ADVISOR_MODEL set)")
              + (f", {workers} turn worker process{'es' if workers != 1 else ''}" if workers else "")
              + (", login required" if settings.auth else "")
              + (f", conversations stored in {demo._advisor_keeper.store.url}" if demo._advisor_keeper else
                 ", conversations in memory only"), flush=True)
    from ui.web_security import install_protocol

    install_protocol()  # half-sent requests time out (slowloris)
    try:
        demo.launch(prevent_thread_lock=not block, quiet=not block, **launch_kwargs(settings, demo))
    except OSError as exc:
        raise InputError(f"cannot serve on {settings.host}:{settings.port}: {exc}", field="port",
                         accepted="a free port (see --port)") from None
    return demo
