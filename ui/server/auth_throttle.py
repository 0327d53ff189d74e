"""One throttle for every credential the servers check: the web login form, HTTP Basic on /api/v1 (in `web` and
`api`), bearer tokens of the API, the MCP server and /metrics.

Failures are counted per key — the client address ("ip:…") and, when the request names one, the user ("user:…")
— and after `FREE_FAILURES` wrong credentials each further one locks that address and that user for 1, 2, 4 … s,
at most `MAX_LOCK_S` (`lock_for`). A locked request is answered 429 with Retry-After without checking the
credential, so a right password sent during a lock does not get in either, on any path.

Where the counts live: in the conversation store's `auth_failures` table (advisor/store, SQLite by default,
PostgreSQL for replicas), so the web, API, MCP and Slack processes on one database agree; with
`GPU_ADVISOR_DATABASE_URL=memory` (or a database that cannot be opened) in this process only. `shared()` is the
process's one throttle; tests pass their own.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from advisor.store import StoreError, StoreUnavailable, open_store

if TYPE_CHECKING:
    from starlette.types import Scope

    from advisor.store import Store

log = logging.getLogger(__name__)

FREE_FAILURES = 3  # wrong credentials before the back-off starts
MAX_LOCK_S = 300.0  # longest lockout after one more failure
FORGET_S = 900.0  # failures older than this (no new one since) are forgotten
MAX_KEYS = 10_000  # keys remembered in memory (oldest dropped first)


def lock_for(count: int) -> float:
    """Seconds locked after the `count`-th failure in a row: 0 up to FREE_FAILURES, then 1, 2, 4 … ≤ MAX_LOCK_S."""
    return 0.0 if count <= FREE_FAILURES else min(MAX_LOCK_S, 2.0 ** min(count - FREE_FAILURES - 1, 30))


class Throttle(Protocol):
    def retry_after(self, keys: list[str]) -> float: ...

    def failure(self, keys: list[str]) -> float: ...

    def success(self, keys: list[str]) -> None: ...


class MemoryThrottle:
    """The throttle in this process only. Thread-safe; `clock` for tests."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._state: OrderedDict[str, tuple[int, float, float]] = OrderedDict()  # failures, locked until, last

    def retry_after(self, keys: list[str]) -> float:
        """Seconds until every key may try again (0: now)."""
        now = self.clock()
        with self._lock:
            return max([0.0] + [self._state[k][1] - now for k in keys if k in self._state])

    def failure(self, keys: list[str]) -> float:
        """Record a wrong credential; the lockout it starts (s)."""
        now = self.clock()
        lock = 0.0
        with self._lock:
            for key in keys:
                count, _, last = self._state.pop(key, (0, 0.0, now))
                count = 1 if now - last > FORGET_S else count + 1
                wait = lock_for(count)
                self._state[key] = (count, now + wait, now)
                lock = max(lock, wait)
            while len(self._state) > MAX_KEYS:
                self._state.popitem(last=False)
        return lock

    def success(self, keys: list[str]) -> None:
        with self._lock:
            for key in keys:
                self._state.pop(key, None)


class StoreThrottle:
    """The throttle in the store's `auth_failures` table, shared by every process on that database. When the
    database cannot be used, this process's own counts (`fallback`) decide, so a login never waits on it."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.fallback = MemoryThrottle(clock=store.clock)
        self._seen = threading.local()  # whether this thread's last retry_after found failures to forget

    def retry_after(self, keys: list[str]) -> float:
        local = self.fallback.retry_after(keys)
        try:
            rows = self.store.auth_failures(keys)
        except StoreUnavailable as exc:
            log.warning("login throttle: %s", exc)
            return local
        self._seen.keys = set(rows)
        now = self.store.clock()
        return max([local] + [until - now for _, until, _ in rows.values()])

    def failure(self, keys: list[str]) -> float:
        try:
            return self.store.record_auth_failure(keys, lock_for, FORGET_S)
        except StoreUnavailable as exc:
            log.warning("login throttle: %s", exc)
            return self.fallback.failure(keys)

    def success(self, keys: list[str]) -> None:
        self.fallback.success(keys)
        if not set(keys) & getattr(self._seen, "keys", set(keys)):
            return  # nothing stored to forget (a right credential costs one read, no write)
        try:
            self.store.clear_auth_failures(keys)
        except StoreUnavailable as exc:
            log.warning("login throttle: %s", exc)


_shared: Throttle | None = None
_shared_lock = threading.Lock()


def shared() -> Throttle:
    """This process's throttle: on the conversation store when one is configured, else in memory."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = _open()
        return _shared


def use(throttle: Throttle | None) -> None:
    """Replace the process's throttle (tests; None: open it again on next use)."""
    global _shared
    with _shared_lock:
        _shared = throttle


def _open() -> Throttle:
    try:
        store = open_store()
    except StoreError as exc:
        log.warning("login throttle in this process only: %s", exc)
        return MemoryThrottle()
    return MemoryThrottle() if store is None else StoreThrottle(store)


def client_address(scope: Scope) -> str:
    """The address the request came from (the ASGI scope's client host), "unknown" when the server gives none."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def keys_for(scope: Scope, user: str | None) -> list[str]:
    """The throttle keys of a request: its client address and, when it names one, the user."""
    user = (user or "").strip()[:200]
    return [f"ip:{client_address(scope)}"] + ([f"user:{user}"] if user else [])


def locked_response(wait: float) -> tuple[int, dict[str, Any], list[tuple[bytes, bytes]]]:
    """(status, JSON body, headers) of a refused, locked request: 429 with Retry-After in whole seconds."""
    secs = max(1, math.ceil(wait))
    return 429, {"error": f"too many failed sign-ins; try again in {secs} s", "field": "authorization",
                 "accepted": f"the right credentials after {secs} s"}, [(b"retry-after", str(secs).encode())]


def check(scope: Scope, user: str | None, ok: Callable[[], bool], throttle: Throttle | None = None) -> float | None:
    """Check one credential under the throttle: None when it is right (the keys' failures are forgotten), 0.0 when
    it is wrong (one more failure counted), else the seconds the address or user is still locked (the credential
    is then not checked at all). Blocking (the store may be asked): call it from a worker thread in async code."""
    throttle = throttle or shared()
    keys = keys_for(scope, user)
    wait = throttle.retry_after(keys)
    if wait > 0:
        return wait
    if ok():
        throttle.success(keys)
        return None
    throttle.failure(keys)
    return 0.0
