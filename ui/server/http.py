"""HTTP settings of every server the project starts (`web`, `api`, `mcp --http`, `slack --http`), in one place:
deadlines for a request's headers and body, caps on open connections (`GuardedHttp`, uvicorn's httptools protocol),
the keep-alive timeout, and security headers on JSON responses (`SecurityHeaders`); `uvicorn_config` puts them
together for the servers this project configures itself, `ui.web.security.install_protocol` for Gradio's."""

from __future__ import annotations

import asyncio
import os
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

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
    itself (the web page sets a CSP fitting Gradio, ui/web/security.py)."""

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
    (header and body deadlines, connection caps: GuardedHttp), keep-alive timeout, h11's header
    limit, security headers. `web` gets the same protocol through `ui.web.security.install_protocol` (Gradio makes its Config)."""
    import uvicorn  # optional dependency: uvicorn only with the web extra

    return uvicorn.Config(SecurityHeaders(app), host=host, port=port, http=GuardedHttp,
                          timeout_keep_alive=int(KEEP_ALIVE_S), h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                          access_log=False, **extra)


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with deadlines and connection caps (the settings of `ui.server.process`): the
    request line and headers must arrive within `header_timeout_s`, the body within `body_timeout_s` after them;
    past `max_connections` open connections, or `max_per_client` from one address, a new one is closed at once."""

    header_timeout_s = HEADER_TIMEOUT_S
    body_timeout_s = BODY_TIMEOUT_S
    max_connections = MAX_CONNECTIONS
    max_per_client = MAX_CONNECTIONS_PER_CLIENT
    _open: ClassVar[dict[str, int]] = {}  # open connections per client address (this process; one event loop thread)

    def connection_made(self, transport: Any) -> None:  # Any: uvicorn narrows asyncio's BaseTransport to Transport
        super().connection_made(transport)
        self._header_deadline: asyncio.TimerHandle | None = None
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "unknown"
        open_ = GuardedHttp._open
        if sum(open_.values()) >= self.max_connections or open_.get(self._peer, 0) >= self.max_per_client:
            self._peer = ""  # not counted
            transport.close()
            return
        open_[self._peer] = open_.get(self._peer, 0) + 1
        self._arm(self.header_timeout_s)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        handle = getattr(self, "_header_deadline", None)
        if handle is not None:
            handle.cancel()
            self._header_deadline = None

    def _too_slow(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if getattr(self, "_header_deadline", None) is None:
            self._arm(self.header_timeout_s)

    def on_headers_complete(self) -> None:
        self._arm(self.body_timeout_s)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        peer = getattr(self, "_peer", "")
        if peer:
            left = GuardedHttp._open.get(peer, 1) - 1
            if left > 0:
                GuardedHttp._open[peer] = left
            else:
                GuardedHttp._open.pop(peer, None)
            self._peer = ""
        super().connection_lost(exc)
