"""The web server's guards, as one ASGI middleware (`SecurityGuard`) and one HTTP protocol (`GuardedHttp`).

SecurityGuard, outermost around the Gradio app:
* security headers on every HTTP response (page, API, files): a Content-Security-Policy that fits Gradio's
  page (inline scripts/styles and eval are Gradio's own; everything from this origin, no framing),
  X-Frame-Options DENY, X-Content-Type-Options nosniff, Referrer-Policy no-referrer;
* login throttling on POST /login with the one throttle of every credential path (`ui.server.auth_throttle`: per
  client address and per user name, shared with the API and MCP processes through the store): after
  `FREE_FAILURES` wrong passwords, each further one locks that address and that user for 1, 2, 4 … s,
  at most `MAX_LOCK_S`; a locked request is answered 429 with Retry-After, without checking the password;
* with a login configured, every /gradio_api/* route needs the login cookie (Gradio leaves cancel, reset,
  heartbeat, token, user, runs … open), else 401;
* only public functions (the /chat endpoint) are callable by name (`/gradio_api/call/NAME`, `/run/NAME`), and
  the page's own handlers (private or undocumented) through queue/join or run/predict only with the page's
  trigger (`page_event`); else 403. Gradio itself let a raw client start `take`, `reset`, `relabel` … by name;
* a queue/join or run/predict body with a malformed `fn_index` or `session_hash` is answered 400 (Gradio: 500),
  and one client address may hold at most `MAX_SESSIONS_PER_CLIENT` live sessions (new ones: 429), so a flood
  of anonymous sessions from one address cannot push real users' conversations out of Gradio's session store;
  nor can many addresses: past `MAX_LIVE_SESSIONS` live sessions in all, new ones are refused, never old ones
  evicted.

GuardedHttp: uvicorn's httptools protocol with a deadline for the request line and headers
(`HEADER_TIMEOUT_S`) and for the body: a half-sent request (slowloris) is closed instead of held forever (uvicorn
has no header timeout of its own; `timeout_keep_alive` only covers idle time between requests); and caps on open
connections. Every server the project starts uses it (settings: `ui.server.http`).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ui.server.auth_throttle import (
    FORGET_S,
    FREE_FAILURES,
    MAX_LOCK_S,
    MemoryThrottle,
    Throttle,
    client_address,
    keys_for,
    shared,
)
from ui.server.http import HEADER_TIMEOUT_S, GuardedHttp
from ui.server.metrics import watch_sessions

__all__ = ["FORGET_S", "FREE_FAILURES", "HEADER_TIMEOUT_S", "MAX_LOCK_S", "GuardedHttp", "LoginThrottle", "SecurityGuard", "SessionCap"]

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Gradio's Blocks, its functions and its app are read with getattr and typed Any here: what this module reads of
# them (fns, api_visibility, tokens, cookie_id) is internal to gradio, outside its typed API.

CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self' ws: wss:; media-src 'self' blob:; "
       "worker-src 'self' blob:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-frame-options", b"DENY"),
           (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]

LoginThrottle = MemoryThrottle  # (its name before the throttle covered every credential path)
MAX_KEYS = 10_000  # addresses and user names remembered (oldest dropped first)
# live Gradio sessions one client address may hold (the 50-conversation load test runs from one address)
MAX_SESSIONS_PER_CLIENT = int(os.environ.get("GPU_ADVISOR_WEB_SESSIONS_PER_CLIENT", "100"))
SESSION_IDLE_S = 3600.0  # a session unseen this long no longer counts against its address
# live sessions of all addresses together: below Gradio's session store (ui.web.app.MAX_SESSIONS = 2000), so the
# store's least-recently-used eviction never reaches a session active in the last SESSION_IDLE_S; new sessions
# past it are refused (429) instead
MAX_LIVE_SESSIONS = int(os.environ.get("GPU_ADVISOR_WEB_LIVE_SESSIONS", "1900"))
# Gradio routes under /gradio_api that are needed before anyone has logged in
OPEN_API_PATHS = ("/gradio_api/login_check", "/gradio_api/theme.css", "/gradio_api/app_id",
                  "/gradio_api/startup-events")  # startup-events: Gradio calls it itself at launch


class SessionCap:
    """Live Gradio session hashes per client address; refuses a new one past `MAX_SESSIONS_PER_CLIENT`."""

    def __init__(self, limit: int = MAX_SESSIONS_PER_CLIENT, clock: Callable[[], float] = time.monotonic,
                 total_limit: int = MAX_LIVE_SESSIONS) -> None:
        self.limit = limit
        self.total_limit = total_limit
        self.clock = clock
        self._lock = threading.Lock()
        self._seen: dict[str, OrderedDict[str, float]] = {}
        self._total = 0  # sessions held in _seen (some may have gone idle since: _prune_all recounts)

    def live(self) -> int:
        """Sessions seen within SESSION_IDLE_S, all addresses together."""
        now = self.clock()
        with self._lock:
            return sum(1 for sessions in self._seen.values() for seen in sessions.values()
                       if now - seen <= SESSION_IDLE_S)

    def admit(self, client: str, session: str) -> bool:
        now = self.clock()
        with self._lock:
            sessions = self._seen.setdefault(client, OrderedDict())
            while sessions and now - next(iter(sessions.values())) > SESSION_IDLE_S:
                sessions.popitem(last=False)
                self._total -= 1
            if session in sessions:
                sessions.move_to_end(session)
                sessions[session] = now
                return True
            if len(sessions) >= self.limit:
                return False
            if self._total >= self.total_limit:
                if self._prune_all(now) >= self.total_limit:
                    return False
                sessions = self._seen.setdefault(client, sessions)  # (the prune drops empty addresses)
            sessions[session] = now
            self._total += 1
            if len(self._seen) > MAX_KEYS:
                self._total -= len(self._seen.pop(next(iter(self._seen))))
            return True

    def _prune_all(self, now: float) -> int:
        """Drop idle sessions of every address; the live total (called with the lock held)."""
        for client in list(self._seen):
            sessions = self._seen[client]
            while sessions and now - next(iter(sessions.values())) > SESSION_IDLE_S:
                sessions.popitem(last=False)
            if not sessions:
                del self._seen[client]
        self._total = sum(len(s) for s in self._seen.values())
        return self._total


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message.get("type") == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            message = {**message, "headers": [*message.get("headers", []),
                                              *[(k, v) for k, v in HEADERS if k not in names]]}
        await send(message)

    return wrapped


async def _answer(send: Send, status: int, text: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": text}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *(extra or [])]})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive, limit: int = 1 << 20) -> tuple[bytes | None, Receive]:
    """The whole request body (None when it is longer than `limit`) and a `receive` that replays what was read
    to the app, then reads on (a longer body reaches the body-size limit behind this middleware)."""
    chunks, size, more = [], 0, True
    while more and size <= limit:
        message = await receive()
        if message.get("type") != "http.request":
            break
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        more = bool(message.get("more_body", False))
    body = b"".join(chunks)
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return (None if more or size > limit else body), replay


def valid_event(body: bytes, fn_count: int) -> str | None:
    """Why a queue/join or run/predict body is malformed (None: well-formed enough for Gradio)."""
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return "the body is not JSON"
    if not isinstance(data, dict):
        return "the body must be a JSON object"
    fn = data.get("fn_index")
    if fn is not None and (not isinstance(fn, int) or isinstance(fn, bool) or not 0 <= fn < max(fn_count, 1)):
        return f"fn_index must be an integer 0 … {max(fn_count - 1, 0)}"
    session = data.get("session_hash")
    if session is not None and (not isinstance(session, str) or not 0 < len(session) <= 64):
        return "session_hash must be a string of 1 … 64 characters"
    if "data" in data and not isinstance(data["data"], list):
        return "data must be a list"
    return None


_NAMED_CALL = re.compile(r"^/gradio_api/(?:call|run|api)/([^/]+)/?$")


def public_names(blocks: Any) -> set[str]:
    """api_name of every public function (what /gradio_api/call/NAME and /run/NAME may start)."""
    fns = getattr(blocks, "fns", None) or {}
    return {str(fn.api_name) for fn in fns.values() if getattr(fn, "api_visibility", "public") == "public"
            and getattr(fn, "api_name", None)}


def page_event(fns: Any, event: dict[str, Any]) -> bool:
    """False when `event` calls a function that is not public (api_visibility "private" or "undocumented": the
    page's own handlers) other than as the page does: the page names, as `trigger_id`, a component whose event starts that function's
    chain (Gradio resolves `.then` steps the same way, `gradio.route_utils._is_automatic_run`). Public
    functions (the /chat endpoint) are always callable."""
    fn = fns.get(event.get("fn_index")) if isinstance(fns, dict) else None
    if fn is None or getattr(fn, "api_visibility", "public") == "public":
        return True
    original = fn
    for _ in range(100):  # walk `.then` steps back to the event that started them
        after = getattr(original, "trigger_after", None)
        if after is None or after not in fns:
            break
        original = fns[after]
    trigger = event.get("trigger_id")
    return isinstance(trigger, int) and not isinstance(trigger, bool) and \
        any(block_id == trigger for block_id, _ in getattr(original, "targets", []) or [])


class SecurityGuard:
    """ASGI middleware; see the module docstring. `throttle`/`sessions` are injectable for tests."""

    def __init__(self, app: ASGIApp, throttle: Throttle | None = None, sessions: SessionCap | None = None) -> None:
        self.app = app
        self.throttle = throttle or shared()
        self.sessions = sessions or SessionCap()

        watch_sessions("web", self.sessions.live)  # gpu_advisor_active_sessions{interface="web"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        send = _with_headers(send)
        path = str(scope.get("path", ""))
        gradio = scope.get("app")
        auth_on = getattr(gradio, "auth", None) is not None
        if path.rstrip("/") == "/login" and scope.get("method") == "POST" and auth_on:
            await self._login(scope, receive, send)
            return
        if auth_on and path.startswith("/gradio_api/") and not path.startswith(OPEN_API_PATHS) \
                and not _logged_in(scope, gradio):
            await _answer(send, 401, "Not authenticated")
            return
        named = _NAMED_CALL.match(path) if scope.get("method") == "POST" else None
        if named and named.group(1) != "predict" and gradio is not None \
                and named.group(1) not in public_names(getattr(gradio, "get_blocks", lambda: None)()):
            await _answer(send, 403, "this function is not part of the API; the public endpoint is /chat")
            return
        if scope.get("method") == "POST" and (path.endswith("/queue/join") or "/run/predict" in path):
            body, receive = await _read_body(receive)
            if body is None:  # too long to check here: the body-size limit answers 413
                await self.app(scope, receive, send)
                return
            fns = getattr(getattr(gradio, "get_blocks", lambda: None)(), "fns", {}) if gradio else {}
            why = valid_event(body, len(fns) if fns else 1 << 30)
            if why:
                await _answer(send, 400, why)
                return
            if fns and not page_event(fns, json.loads(body or b"{}")):
                await _answer(send, 403, "this function is not part of the API; the public endpoint is /chat")
                return
            session = json.loads(body or b"{}").get("session_hash")
            if isinstance(session, str) and not self.sessions.admit(client_address(scope), session):
                await _answer(send, 429, "too many sessions from this address; close some tabs or wait",
                              [(b"retry-after", b"60")])
                return
        await self.app(scope, receive, send)

    async def _login(self, scope: Scope, receive: Receive, send: Send) -> None:
        body, replay = await _read_body(receive, limit=16 << 10)
        body = body or b""
        user = (urllib.parse.parse_qs(body.decode("utf-8", "replace")).get("username") or [""])[0].strip()
        keys = keys_for(scope, user)
        wait = self.throttle.retry_after(keys)
        if wait > 0:
            await _answer(send, 429, f"too many failed logins; try again in {math.ceil(wait)} s",
                          [(b"retry-after", str(math.ceil(wait)).encode())])
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message.get("type") == "http.response.start":
                status = int(message.get("status", 0))
            await send(message)

        await self.app(scope, replay, watch)
        if status == 200:
            self.throttle.success(keys)
        elif 400 <= status < 500:
            self.throttle.failure(keys)


def _logged_in(scope: Scope, gradio: Any) -> bool:
    cookie_id = getattr(gradio, "cookie_id", "")
    tokens = getattr(gradio, "tokens", {}) or {}
    cookies: dict[str, str] = {}
    for name, value in scope.get("headers") or []:
        if name == b"cookie":
            for part in value.decode("latin-1").split(";"):
                key, _, val = part.strip().partition("=")
                cookies[key] = val
    for key in (f"access-token-{cookie_id}", f"access-token-unsecure-{cookie_id}"):
        if cookies.get(key) in tokens:
            return True
    return False


def install_protocol() -> None:
    """Make uvicorn's default HTTP protocol `GuardedHttp` in this process (Gradio builds the uvicorn Config
    itself and passes no protocol; the server process is ours, so the default is ours to set)."""
    from uvicorn import config  # optional dependency: uvicorn only with the web extra

    config.HTTP_PROTOCOLS["auto"] = "ui.server.http:GuardedHttp"
    config.HTTP_PROTOCOLS["httptools"] = "ui.server.http:GuardedHttp"
