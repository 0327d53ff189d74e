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

This module builds, configures and serves the app; its parts are `web_settings` (deployment settings),
`web_chat` (one turn, independent of Gradio), `web_sweep` (the memory-vs-context plot's estimate),
`web_exports` (export files), `web_layout` and `web_events` (the page and its handlers) and `web_limits`
(request-size middleware). Their public names are importable from here too.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.conversation.llm.agent import prewarm
from advisor.store.keeper import Keeper
from knowledge.errors import InputError
from ui.api.http import web_middleware
from ui.server import logs, metrics
from ui.server.metrics import OpsEndpoints
from ui.server.process import settle_process
from ui.web import render as R
from ui.web.chat import (
    MAX_QUOTED_MESSAGES,
    MAX_SHOWN_MESSAGES,
    PREFILL_MAX_CHARS,
    STREAM_INTERVAL_S,
    ChatController,
    ChatConversation,
    ConversationFactory,
    SessionState,
    conversation_mode,
    default_conversation_factory,
    prefill_question,
    turn_json,
)
from ui.web.events import PageEvents
from ui.web.exports import ExportStore, LazyExports, gradio_export_dir, materialize_export
from ui.web.layout import (
    CHAT_KEYS,
    CONTEXT_COLUMNS,
    COST_COLUMNS,
    MEMORY_COLUMNS,
    PANEL_KEYS,
    build_page,
)
from ui.web.limits import BodyLimit
from ui.web.page import CSS, PAGE_HEAD
from ui.web.pool import TurnPool, remote_factory
from ui.web.security import SecurityGuard, install_protocol
from ui.web.settings import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    ENV_AUTH,
    ENV_CONCURRENCY,
    ENV_HOST,
    ENV_MAX_BODY,
    ENV_PORT,
    ENV_QUEUE,
    ENV_WORKERS,
    WebSettings,
    parse_auth,
    settings_from,
)
from ui.web.store import StoredChatController, StoredQuotes, attach_history, open_web_store
from ui.web.sweep import catalog_capacity, estimator_context_sweep, sized_workload

if TYPE_CHECKING:
    from advisor.store.sql import SqlStore

__all__ = [
    "CHAT_KEYS", "CONTEXT_COLUMNS", "COST_COLUMNS", "DEFAULT_HOST", "DEFAULT_PORT", "ENV_AUTH",
    "ENV_CONCURRENCY", "ENV_HOST", "ENV_MAX_BODY", "ENV_PORT", "ENV_QUEUE", "ENV_WORKERS", "GRADIO_QUEUE_ENV",
    "MAX_QUOTED_MESSAGES", "MAX_SESSIONS", "MAX_SHOWN_MESSAGES", "MEMORY_COLUMNS", "PANEL_KEYS", "PREFILL_MAX_CHARS",
    "SESSION_TTL_S", "STREAM_INTERVAL_S", "BodyLimit", "ChatController", "ChatConversation",
    "ConversationFactory", "ExportStore", "SessionState", "WebSettings", "build_app", "catalog_capacity",
    "conversation_mode", "default_conversation_factory", "estimator_context_sweep", "launch_kwargs",
    "materialize_export", "parse_auth", "prefill_question", "serve", "settings_from", "sized_workload",
    "start_turn_workers", "turn_json",
]

log = logging.getLogger(__name__)

_BodyLimit = BodyLimit

# Gradio's queue keeps timings of its last GRADIO_ANALYTICS_MAX_EVENTS events (default 10,000) for its monitoring
# page and, by default, rebuilds a pandas summary of all of them after every event: measured 2.5 ms per turn on a
# fresh server, and it grows with the history kept. This app has no monitoring page; the summary is refreshed every
# 100 events over the last 1,000 (both can still be set in the environment).
GRADIO_QUEUE_ENV = {"GRADIO_ANALYTICS_CACHE_FREQUENCY": "100", "GRADIO_ANALYTICS_MAX_EVENTS": "1000"}
# A session's state is dropped this long after its last turn (seconds); at most this many sessions are kept (a
# session shows at most `web_chat.MAX_SHOWN_MESSAGES` chat messages).
SESSION_TTL_S = 4 * 3600
MAX_SESSIONS = 2000


def build_app(settings: WebSettings | None = None, *, conversation_factory: ConversationFactory | None = None,
              controller: ChatController | None = None, store: SqlStore | None = None) -> Any:
    """The Gradio Blocks of the web chat, with its queue configured from `settings` (not launched); its events
    are `ui.web.events`, its components `ui.web.layout`. With a `store`, conversations are kept there
    (`ui.web.store`). (Typed Any: the Blocks carries this app's `_advisor_*` attributes for `serve` and tests.)"""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    for name, value in GRADIO_QUEUE_ENV.items():  # read when the queue is created, below
        os.environ.setdefault(name, value)
    import gradio as gr  # optional dependency: gradio only with the web extra

    settings = (settings or WebSettings()).validated()
    pool = None
    if controller is None and conversation_factory is None and settings.worker_count() > 0:
        pool = TurnPool(settings.worker_count())
        conversation_factory = remote_factory(pool)
    ctl, keeper = _controller(settings, conversation_factory, controller, store)
    events = PageEvents(ctl)
    with gr.Blocks(title="GPU Advisor · GPU 选型顾问", analytics_enabled=False, delete_cache=(1800, 7200),
                   fill_width=True) as demo:
        page = build_page(R.mode_badge(*ctl.startup_mode(), "en"), SESSION_TTL_S)
        chat_event = events.wire(demo, page, concurrency=settings.concurrency)
        if keeper is not None:
            assert isinstance(ctl, StoredChatController)
            attach_history(gr, demo, ctl, session=page.session, lang=page.lang, chat_event=chat_event,
                           new=page.new, chat_outputs=page.chat_outputs, panel_outputs=page.panel_outputs,
                           panel_values=events.panel_values)
    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.concurrency)
    demo._advisor_controller = ctl  # for serve()'s start-up line and for tests
    demo._advisor_pool = pool  # started by serve(); None when turns run in this process
    demo._advisor_keeper = keeper  # the conversation store's keeper (None: conversations in memory only)
    return demo


def _controller(settings: WebSettings, factory: ConversationFactory | None, controller: ChatController | None,
                store: SqlStore | None) -> tuple[ChatController, Keeper | None]:
    """The app's controller (the given one, else one over `factory`, keeping its conversations in `store` when
    there is one) with its export store, and the store's keeper."""
    if settings.export_dir:
        exports = ExportStore(settings.export_dir)
    else:
        root, in_cache = gradio_export_dir()
        exports = ExportStore(root, lazy=in_cache)
    if controller is not None:
        return controller, None
    if store is None:
        return ChatController(factory, exports=exports), None

    keeper = Keeper(store, source="web")
    return StoredChatController(factory, exports=exports, keeper=keeper, auth=bool(settings.auth)), keeper


def launch_kwargs(settings: WebSettings, demo: Any = None) -> dict[str, Any]:
    """Arguments for `Blocks.launch`: no share link, no error details, no SSR, uploads refused, body limit (and
    the stored quotes' permanent links when `demo` keeps its conversations in a store)."""
    from starlette.middleware import Middleware  # optional dependency: starlette only with the web extra

    stored: list[Any] = []
    keeper = getattr(demo, "_advisor_keeper", None)
    if keeper is not None:
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
        "head": PAGE_HEAD,
        "app_kwargs": {"middleware": [Middleware(SecurityGuard),  # headers, login throttle, API login, fn_index
                                      Middleware(OpsEndpoints, web=True),  # /healthz, /readyz, /metrics
                                      Middleware(BodyLimit, max_bytes=settings.max_body_bytes),
                                      _api_middleware(settings), Middleware(LazyExports), *stored]},
    }


def _api_middleware(settings: WebSettings) -> Any:
    """The JSON API (/api/v1, ui/api/http.py) in this server, behind the same login."""
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

    metrics.prepare()  # before the turn workers spawn: they inherit the multi-process metrics directory
    if block:
        logs.configure()  # JSON lines with the conversation id (GPU_ADVISOR_LOG_FORMAT=text for plain)

    demo = build_app(settings, conversation_factory=conversation_factory, store=open_web_store())
    controller = getattr(demo, "_advisor_controller", None)
    mode, model = controller.startup_mode() if controller else ("deterministic", None)
    workers = start_turn_workers(demo)
    if block:
        settle_process()
        if mode == "llm":  # import LangChain now, not during the first user's turn

            prewarm()
        print(f"GPU Advisor web chat: http://{settings.host}:{settings.port}/ — mode: "
              + (f"LLM ({model})" if mode == "llm" else "deterministic (no OPENAI_API_KEY / ADVISOR_MODEL set)")
              + (f", {workers} turn worker process{'es' if workers != 1 else ''}" if workers else "")
              + (", login required" if settings.auth else "")
              + (f", conversations stored in {demo._advisor_keeper.store.url}" if demo._advisor_keeper else
                 ", conversations in memory only"), flush=True)

    install_protocol()  # half-sent requests time out (slowloris)
    try:
        demo.launch(prevent_thread_lock=not block, quiet=not block, **launch_kwargs(settings, demo))
    except OSError as exc:
        raise InputError(f"cannot serve on {settings.host}:{settings.port}: {exc}", field="port",
                         accepted="a free port (see --port)") from None
    return demo
