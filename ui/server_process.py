"""Settings of a long-running server process (the web app, the combined server, each turn worker)."""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Mapping
from typing import Any

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# Garbage-collector thresholds of the server process (CPython's default is (700, 10, 10)); see settle_process.
GC_THRESHOLDS = (20_000, 20, 20)
# How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms). A stored turn's SQL
# statements release the GIL and each waits up to one interval to take it back behind the threads rendering
# other turns; at 1 ms the store's p95 under the 50-conversation load came within 20 % of memory's in 17 of 20
# rounds (10 of 20 at 5 ms), at the same CPU per turn (docs/store.md, runs 18-21). GPU_ADVISOR_SWITCH_INTERVAL_MS
# overrides it.
SWITCH_INTERVAL_S = 0.001


def settle_process() -> None:
    """Prepare a long-running server process: load what every deterministic turn uses (the dialog, the catalog,
    the compiled rules) before the first user, then take it out of the garbage collector's way — `gc.freeze()`
    moves everything alive now to a generation no collection scans, and `GC_THRESHOLDS` make collections rarer.
    Measured under the 50-conversation burst (docs/performance.md): the collector was ~7 % of the server's CPU
    (perf), and these two cut CPU per turn by ~19 % (26.8 → 21.7 ms, same machine, alternating runs). Memory is
    still freed by reference counting; only cyclic garbage waits longer. Then the GIL's switch interval is
    shortened to `SWITCH_INTERVAL_S`, so a thread back from I/O (a store statement) waits less for it."""
    import gc

    try:
        from advisor.conversation import dialog_turn  # noqa: F401
        from knowledge.catalog import load_catalog
        from rules.engine import engine

        load_catalog()
        engine()
    except Exception:
        log.exception("could not load the catalog or the rules before serving")
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(switch_interval_s(os.environ))


def switch_interval_s(env: Mapping[str, str]) -> float:
    """`SWITCH_INTERVAL_S`, or GPU_ADVISOR_SWITCH_INTERVAL_MS (0.01–100 ms) when set; a bad value is logged and the
    default kept (a server starts either way)."""
    raw = env.get("GPU_ADVISOR_SWITCH_INTERVAL_MS")
    if raw is None:
        return SWITCH_INTERVAL_S
    try:
        ms = float(raw)
    except ValueError:
        ms = math.nan
    if not 0.01 <= ms <= 100:
        log.warning("GPU_ADVISOR_SWITCH_INTERVAL_MS=%r is not a number of milliseconds from 0.01 to 100; using %g ms",
                    raw, SWITCH_INTERVAL_S * 1e3)
        return SWITCH_INTERVAL_S
    return ms / 1e3


# ==============================================================================================================
# HTTP server settings of every server the project starts (`web`, `api`, `mcp --http`, `slack --http`): one place
# ==============================================================================================================

HEADER_TIMEOUT_S = 10.0  # request line + headers must arrive within this (slowloris)
BODY_TIMEOUT_S = 30.0  # and the request body within this after the headers (a body dripped a byte at a time)
KEEP_ALIVE_S = 5.0  # an idle keep-alive connection is closed after this (uvicorn's timeout_keep_alive)
MAX_CONNECTIONS = int(os.environ.get("GPU_ADVISOR_MAX_CONNECTIONS", "2000"))  # open connections, all clients
MAX_CONNECTIONS_PER_CLIENT = int(os.environ.get("GPU_ADVISOR_MAX_CONNECTIONS_PER_CLIENT", "256"))  # one address
MAX_HEADER_BYTES = 64 * 1024  # h11's limit on an incomplete request line + headers (h11's own default: 16 KiB)
# Headers of every JSON response (API, MCP, Slack, health): nothing of it may be framed, sniffed or refer.
JSON_CSP = "default-src 'none'; frame-ancestors 'none'"
SECURITY_HEADERS = [(b"content-security-policy", JSON_CSP.encode()), (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]


class SecurityHeaders:
    """ASGI middleware: `headers` (default SECURITY_HEADERS) on every HTTP response that does not set them
    itself (the web page sets a CSP fitting Gradio, ui/web_security.py)."""

    def __init__(self, app: Any, headers: list[tuple[bytes, bytes]] | None = None) -> None:
        self.app = app
        self.headers = SECURITY_HEADERS if headers is None else headers

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message.get("type") == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message = {**message, "headers": [*message.get("headers", []),
                                                  *[(k, v) for k, v in self.headers if k not in names]]}
            await send(message)

        await self.app(scope, receive, with_headers)


def uvicorn_config(app: Any, host: str, port: int, **extra: Any) -> Any:
    """The uvicorn Config of a server the project starts (api, mcp --http, slack --http): the guarded protocol
    (header and body deadlines, connection caps: ui.web_security.GuardedHttp), keep-alive timeout, h11's header
    limit, security headers. `web` gets the same protocol through `install_protocol` (Gradio makes its Config)."""
    import uvicorn

    from ui.web_security import GuardedHttp

    return uvicorn.Config(SecurityHeaders(app), host=host, port=port, http=GuardedHttp,
                          timeout_keep_alive=int(KEEP_ALIVE_S), h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                          access_log=False, **extra)
