"""Prometheus metrics of the servers (`gpu-advisor web`, the Slack/web server, `gpu-advisor api`).

    metrics.prepare()            # at server start, before turn workers spawn: multi-process mode, listener
    body, ctype = metrics.render()  # the /metrics response (text exposition format)

Series (all prefixed `gpu_advisor_`):
- `turns_total{driver, mode, lang}`: turns answered; `driver` is the configured one (llm, deterministic),
  `mode` what answered (a fallback is driver=llm, mode=deterministic);
- `turn_seconds{driver, mode}`: histogram of the turn's wall time, user message to final answer;
- `fallbacks_total{reason}`: LLM answers replaced by the deterministic one, by cause (Turn.fallback.reason);
- `rule_engine_errors_total{kind}`: `rebuild` (an evaluation failed, the engine was rebuilt) and `failure`
  (it failed again: the user was told the answer is not validated);
- `store_errors_total{store, operation}`: conversation stores that could not read or write;
- `active_sessions{interface}`: live web sessions (the per-address session cap's count), Slack threads and API
  conversations held.

Turn workers (ui/web/pool.py) are separate processes: `prepare()` points `PROMETHEUS_MULTIPROC_DIR` at a fresh
directory (unless the deployment set one) before they spawn, each process writes its counters there, and
`render()` sums them (prometheus_client's multi-process mode). Without prometheus_client installed
(`pip install 'gpu-advisor[ops]'`) nothing is counted and /metrics answers 503.
"""

from __future__ import annotations

import logging
import math
import os
import tempfile
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor import observe
from rules.engine import HEALTH
from rules.engine import check as check_rules
from ui.server.auth_throttle import check as throttle_check

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from advisor.conversation.turn import Turn

log = logging.getLogger(__name__)

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
# seconds; deterministic turns take milliseconds, LLM turns seconds, the agent's total deadline is 15 s
TURN_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 15.0, 30.0, 60.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

_lock = threading.Lock()
_metrics: _Metrics | None = None
_session_sources: dict[str, Callable[[], int]] = {}


class _Metrics:
    """The metric objects, created once per process after the multi-process decision (prometheus_client picks
    its value store when a metric is created)."""

    def __init__(self) -> None:
        from prometheus_client import Counter, Gauge, Histogram

        self.turns = Counter("gpu_advisor_turns", "Turns answered", ["driver", "mode", "lang"])
        self.turn_seconds = Histogram("gpu_advisor_turn_seconds", "Wall time of a turn, message to answer",
                                      ["driver", "mode"], buckets=TURN_BUCKETS)
        self.fallbacks = Counter("gpu_advisor_fallbacks", "LLM answers replaced by the deterministic one",
                                 ["reason"])
        self.rule_errors = Counter("gpu_advisor_rule_engine_errors", "Rule-engine rebuilds and failures", ["kind"])
        self.store_errors = Counter("gpu_advisor_store_errors", "Conversation store errors", ["store", "operation"])
        self.sessions = Gauge("gpu_advisor_active_sessions", "Live sessions / conversations held", ["interface"],
                              multiprocess_mode="livesum")

    # advisor.observe listener -------------------------------------------------------------------------------
    def turn_finished(self, driver: str, turn: Turn, seconds: float) -> None:
        mode = str(getattr(turn, "mode", "") or "deterministic")
        self.turns.labels(driver, mode, str(getattr(turn, "lang", "") or "en")).inc()
        self.turn_seconds.labels(driver, mode).observe(max(0.0, seconds))
        fallback = getattr(turn, "fallback", None)
        if fallback is not None:
            self.fallbacks.labels(str(getattr(fallback, "reason", "error"))).inc()

    def rule_engine_error(self, kind: str) -> None:
        self.rule_errors.labels(kind).inc()

    def store_error(self, store: str, operation: str) -> None:
        self.store_errors.labels(store, operation).inc()


def available() -> bool:
    """prometheus_client is installed (checked without importing it: it picks its value store on import)."""
    import importlib.util

    return importlib.util.find_spec("prometheus_client") is not None


def prepare(multiprocess: bool = True) -> bool:
    """Set up metrics in a server process (idempotent); True when prometheus_client is there. With
    `multiprocess`, use (and create when unset) a `PROMETHEUS_MULTIPROC_DIR` the turn workers inherit."""
    global _metrics
    if not available():
        log.info("prometheus_client is not installed; /metrics is off (pip install 'gpu-advisor[ops]')")
        return False
    with _lock:
        if _metrics is None:
            if multiprocess and not os.environ.get(MULTIPROC_ENV):
                os.environ[MULTIPROC_ENV] = tempfile.mkdtemp(prefix="gpu-advisor-metrics-")
            from prometheus_client import values

            values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]  # prometheus_client leaves it unannotated; in case it was imported before the decision
            _metrics = _Metrics()
            observe.add_listener(_metrics)
    return True


def prepare_worker() -> None:
    """In a turn worker: count into the server's multi-process directory when there is one."""
    if os.environ.get(MULTIPROC_ENV):
        prepare(multiprocess=True)


def watch_sessions(interface: str, count: Callable[[], int]) -> None:
    """Report `count()` as `active_sessions{interface}` at every scrape (web sessions, Slack threads, …)."""
    _session_sources[interface] = count


def render() -> tuple[bytes, str]:
    """The exposition text of every process's metrics; raises RuntimeError when metrics are off."""
    if _metrics is None and not prepare(multiprocess=False):
        raise RuntimeError("metrics are off: prometheus_client is not installed")
    assert _metrics is not None
    for interface, count in list(_session_sources.items()):
        try:
            _metrics.sessions.labels(interface).set(count())
        except Exception:
            log.debug("session count for %s failed", interface, exc_info=True)
    from prometheus_client import REGISTRY, CollectorRegistry, generate_latest

    path = os.environ.get(MULTIPROC_ENV)
    if path and os.path.isdir(path):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]  # unannotated upstream
        return generate_latest(registry), CONTENT_TYPE
    return generate_latest(REGISTRY), CONTENT_TYPE


def reset_for_tests() -> None:
    """Forget this process's metric objects and session sources (tests build several servers in one process)."""
    global _metrics
    with _lock:
        if _metrics is not None:
            observe.remove_listener(_metrics)
            from prometheus_client import REGISTRY

            for collector in (_metrics.turns, _metrics.turn_seconds, _metrics.fallbacks, _metrics.rule_errors,
                              _metrics.store_errors, _metrics.sessions):
                try:
                    REGISTRY.unregister(collector)
                except KeyError:
                    pass
        _metrics = None
        _session_sources.clear()
        try:
            from prometheus_client import values

            values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]  # unannotated upstream; back to this process's environment
        except ImportError:  # pragma: no cover
            pass


# ==============================================================================================================
# HTTP: /metrics, /healthz, /readyz for any ASGI app (the plain web server has no FastAPI routes of its own)
# ==============================================================================================================

TOKEN_ENV = "GPU_ADVISOR_METRICS_TOKEN"  # when set, /metrics needs `Authorization: Bearer <token>`


def readiness() -> tuple[int, dict[str, Any]]:
    """(HTTP status, body): 200 when the rules engine evaluates its self-check request to the known findings,
    else 503 — a server whose answers would not be validated is not ready."""
    body: dict[str, Any] = {"rules": {"rebuilds": HEALTH.rebuilds, "failures": HEALTH.failures}}
    try:
        check_rules()
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        return 503, {"ready": False, "error": str(exc)[:300], **body}
    return 200, {"ready": True, **body}


def metrics_response(headers: dict[str, str], scope: Scope | None = None) -> tuple[int, bytes, str]:
    """(status, body, content type) of GET /metrics given the request's (lower-case) headers; the token is checked
    under the one credential throttle (`ui.server.auth_throttle`, keyed by the client address of `scope`)."""
    import hmac

    token = os.environ.get(TOKEN_ENV, "")
    if token:
        given = headers.get("authorization", "")
        wait = throttle_check(scope or {}, None, lambda: hmac.compare_digest(given.encode(), f"Bearer {token}".encode())) \
            if given else 0.0  # (no credential sent: nothing guessed, nothing counted)
        if wait:
            return 429, f"too many failed sign-ins; try again in {math.ceil(wait)} s\n".encode(), \
                "text/plain; charset=utf-8"
        if wait is not None:
            return 401, b"metrics need the bearer token (GPU_ADVISOR_METRICS_TOKEN)\n", "text/plain; charset=utf-8"
    try:
        body, ctype = render()
    except RuntimeError as exc:
        return 503, f"{exc}\n".encode(), "text/plain; charset=utf-8"
    return 200, body, ctype


def retry_after_header(status: int, body: bytes) -> list[tuple[bytes, bytes]]:
    """Retry-After of a 429 from `metrics_response` (its body ends "… in N s")."""
    words = body.split()
    return [(b"retry-after", words[-2])] if status == 429 and len(words) > 2 and words[-2].isdigit() else []


class OpsEndpoints:
    """ASGI middleware answering GET /healthz (the process serves), /readyz (the rules evaluate) and /metrics
    before the app behind it."""

    PATHS = ("/healthz", "/readyz", "/metrics")

    def __init__(self, app: ASGIApp, /, **health: object) -> None:
        self.app = app
        self.health = health  # extra fields of /healthz (e.g. web=True)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", "")).rstrip("/")
        if scope.get("type") != "http" or path not in self.PATHS or scope.get("method") not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        import json

        from starlette.concurrency import run_in_threadpool  # optional dependency: starlette only with the web extra

        if path == "/healthz":
            status, body, ctype = 200, json.dumps({"ok": True, **self.health}).encode(), "application/json"
        elif path == "/readyz":
            status, doc = await run_in_threadpool(readiness)
            body, ctype = json.dumps(doc).encode(), "application/json"
        else:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
            status, body, ctype = await run_in_threadpool(metrics_response, headers, scope)
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", ctype.encode()), (b"content-length", str(len(body)).encode()),
                                (b"cache-control", b"no-store"), *retry_after_header(status, body)]})
        await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else body})
