"""Turns of stored conversations, for one server process (web or Slack): take the conversation, read its state,
record the turn — and keep answering when the database is away.

- `turn_lock(cid)` serialises turns on one conversation: a lock in this process, then a lease on the row
  (`Store.acquire`) so another replica waits its turn (polling every `LEASE_POLL_S`, at most `lease_wait_s`). The
  commit itself is a compare-and-set on the revision, so even an expired lease cannot lose a turn.
- `read_state(record)` parses the stored `Conversation.to_dict()`; an unreadable row raises `CorruptState` for
  that conversation only.
- `commit(...)` records a turn; when the database cannot be written (down, disk full) the turn goes to an outbox
  retried every `retry_s` seconds (and before the conversation's next turn), and the caller tells the user the
  answer is not saved yet. A turn still unsaved after `MAX_PENDING_AGE_S`, or overtaken by another replica's turn,
  is dropped with an error in the log naming the conversation.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec

from advisor import observe
from advisor.store.errors import Conflict, StoreUnavailable
from advisor.store.records import Commit, ConversationRecord, NewTurn
from advisor.store.sql import STATE_VERSION, SqlStore, new_id
from knowledge.structs import dump, fields, replace

log = logging.getLogger("gpu_advisor.store")

LEASE_TTL_S = 120.0  # longer than any turn (LLM turns time out sooner); a crashed holder's lease lapses after this
LEASE_POLL_S = 0.05
MAX_PENDING_AGE_S = 24 * 3600.0
STATE_HISTORY_KEPT = 6  # turns kept inside the stored state: the LLM agent sends the last 6 (agent.HISTORY_TURNS);
#                         the full record of every turn is the `turns` table
# What a history turn keeps inside the stored state: what the agent replays (the answer) and the turn's own
# context; the options, numbers, findings and steps (~100 kB a turn) are in the turn's `result` row already.
HISTORY_TURN_KEYS = ("answer", "lang", "mode", "questions", "workload", "note", "model_name")


class CorruptState(Exception):
    """A stored conversation state that cannot be read back."""


class Lease(msgspec.Struct):
    cid: str
    held: bool = False
    released: bool = False
    revision: int | None = None  # the conversation's revision when the lease was taken (None: no row, or unknown)


class _Pending(msgspec.Struct):
    cid: str
    revision: int
    state: dict[str, Any] | None
    turn: NewTurn
    owner: str
    title: str
    made: float = msgspec.field(default_factory=time.time)


def request_key(cid: str, revision: int, text: str) -> str:
    """Idempotency key of a turn: the same question asked of the same revision of a conversation is one turn,
    however often the request is delivered."""
    return hashlib.sha256(f"{cid}\x00{revision}\x00{text}".encode()).hexdigest()[:32]


def result_json(turn: Any) -> str | None:
    """The turn's structured result as stored: msgspec's JSON of the Turn struct (a fraction of a millisecond for a
    ~100 kB turn, against ~2 ms for `json.dumps(dump(turn, json=True))`, and the same data). msgspec writes a
    non-finite float as null, which would not read back as a number (`Number.value`, `Step.duration_s`); such a turn
    takes the slow path, which writes `Infinity`/`NaN` as Python's json does. None for an object that is no struct,
    or that cannot be serialised (the turn is then recorded by its text)."""
    if not isinstance(turn, msgspec.Struct):
        return None
    try:
        floats = [getattr(n, "value", 0.0) for n in getattr(turn, "numbers", ())]
        floats += [getattr(s, "duration_s", 0.0) for s in getattr(turn, "steps", ())]
        if all(math.isfinite(x) for x in floats if isinstance(x, float)):
            return msgspec.json.encode(turn).decode()
        return json.dumps(dump(turn, json=True), ensure_ascii=False, separators=(",", ":"))
    except Exception:  # noqa: BLE001 - a turn that cannot be serialised is recorded by its text only
        return None


def slim_history(history: list[Any]) -> None:
    """Reduce a live `Conversation.history` in place to what `compact_state` keeps of it, so that `to_dict()`
    does not serialise ~100 kB a turn only for it to be dropped (the Turn objects themselves are not changed)."""
    del history[:-STATE_HISTORY_KEPT]
    empties: dict[type, dict[str, Any]] = {}
    for i, (text, turn) in enumerate(history):
        if not isinstance(turn, msgspec.Struct):
            continue
        empty = empties.get(type(turn))
        if empty is None:
            empty = empties[type(turn)] = {
                name: f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default
                for name, f in fields(turn).items() if name not in HISTORY_TURN_KEYS and not f.required}
        if any(getattr(turn, name) != value for name, value in empty.items()):  # (else slimmed on an earlier turn)
            history[i] = (text, replace(turn, **empty))


def compact_state(state: dict[str, Any]) -> dict[str, Any]:
    """`Conversation.to_dict()` as stored: its last STATE_HISTORY_KEPT history turns, each reduced to
    HISTORY_TURN_KEYS (still a valid Turn for `Conversation.from_dict`)."""
    history = state.get("history")
    if not isinstance(history, list):
        return state
    slim = []
    for item in history[-STATE_HISTORY_KEPT:]:
        if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[1], dict):
            item = [item[0], {k: item[1][k] for k in HISTORY_TURN_KEYS if k in item[1]}]
        slim.append(item)
    return {**state, "history": slim}


class Keeper:
    """The store as one server process uses it (`source`: "web" or "slack")."""

    def _store_error(self, operation: str) -> None:
        """Count a failed store operation (gpu_advisor_store_errors_total{store, operation} on /metrics)."""
        observe.store_error((getattr(self.store, "kind", "") or type(self.store).__name__).lower(), operation)

    def __init__(self, store: SqlStore, *, source: str, lease_ttl_s: float = LEASE_TTL_S,
                 lease_wait_s: float = 30.0, retry_s: float = 5.0) -> None:
        self.store = store
        self.source = source
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{new_id()[:8]}"
        self.lease_ttl_s, self.lease_wait_s, self.retry_s = lease_ttl_s, lease_wait_s, retry_s
        self._locks: weakref.WeakValueDictionary[str, threading.Lock] = weakref.WeakValueDictionary()
        self._locks_guard = threading.Lock()
        self._pending: list[_Pending] = []
        self._pending_lock = threading.Lock()
        self._retrier: threading.Thread | None = None
        self._stop = threading.Event()

    # --- one turn at a time -------------------------------------------------------------------------------
    def _local_lock(self, cid: str) -> threading.Lock:
        with self._locks_guard:
            lock = self._locks.get(cid)
            if lock is None:
                lock = threading.Lock()
                self._locks[cid] = lock
            return lock

    @contextmanager
    def turn_lock(self, cid: str, *, new: bool = False) -> Iterator[Lease]:
        """Hold the conversation for one turn. `lease.held` is False when the database could not be asked (the
        turn then runs on what this process has, and its commit is retried later). `new`: the id was just made
        for this turn (`new_id`), so no row and no other holder can exist yet and the database is not asked (its
        first commit creates the row, at revision 0 only: a second process could not commit it twice)."""
        lock = self._local_lock(cid)
        with lock:
            lease = Lease(cid, held=new, released=new)  # (nothing to release either)
            try:
                deadline = time.monotonic() + self.lease_wait_s
                while not new:
                    lease.held, lease.revision = self.store.acquire_at(cid, self.holder, self.lease_ttl_s)
                    if lease.held:
                        break
                    if time.monotonic() > deadline:
                        log.warning("conversation %s: another replica held it for %.0f s; going ahead",
                                    cid, self.lease_wait_s)
                        break
                    time.sleep(LEASE_POLL_S)
            except StoreUnavailable as exc:
                log.warning("conversation %s: %s", cid, exc)
                self._store_error("lease")
            try:
                yield lease
            finally:
                if lease.held and not lease.released:
                    try:
                        self.store.release(cid, self.holder)
                    except StoreUnavailable:
                        pass  # it lapses after lease_ttl_s

    # --- reading ------------------------------------------------------------------------------------------
    def get(self, cid: str) -> ConversationRecord | None:
        return self.store.get_conversation(cid)

    @staticmethod
    def read_state(record: ConversationRecord) -> dict[str, Any] | None:
        """The stored `Conversation.to_dict()`, None for a conversation without a turn yet."""
        if record.state is None:
            return None
        if record.state_version > STATE_VERSION:
            raise CorruptState(f"conversation {record.id}: stored state version {record.state_version} is newer than "
                               f"this program reads ({STATE_VERSION})")
        try:
            state = json.loads(record.state)
        except ValueError as exc:
            raise CorruptState(f"conversation {record.id}: stored state is not JSON ({exc})") from None
        if not isinstance(state, dict):
            raise CorruptState(f"conversation {record.id}: stored state is not an object")
        return state

    # --- writing ------------------------------------------------------------------------------------------
    def commit(self, lease: Lease, revision: int, state: dict[str, Any] | None, turn: NewTurn, *, owner: str,
               title: str = "") -> Commit | None:
        """Record the turn; None when it could not be written now (queued; see the module doc). `Conflict`
        (another turn came first) is the caller's to handle by rerunning on the stored state."""
        state = compact_state(state) if state is not None else None
        try:
            self.flush(lease.cid)
            done = self.store.commit_turn(lease.cid, revision, state, turn, holder=self.holder, title=title,
                                          owner=owner, source=self.source)
            lease.released = True
            return done
        except StoreUnavailable as exc:
            self._store_error("commit_turn")
            log.warning("conversation %s: turn %d not saved yet (%s); retrying every %.0f s",
                        lease.cid, revision + 1, exc, self.retry_s)
            with self._pending_lock:
                self._pending.append(_Pending(lease.cid, revision, state, turn, owner, title))
            self._start_retrier()
            return None

    def pending(self, cid: str | None = None) -> int:
        with self._pending_lock:
            return sum(1 for p in self._pending if cid is None or p.cid == cid)

    def flush(self, cid: str | None = None) -> int:
        """Write queued turns (of `cid`, or all) in order; returns how many were written. Raises
        StoreUnavailable when the database is still away."""
        written = 0
        while True:
            with self._pending_lock:
                item = next((p for p in self._pending if cid is None or p.cid == cid), None)
            if item is None:
                return written
            try:
                self.store.commit_turn(item.cid, item.revision, item.state, item.turn, holder=self.holder,
                                       title=item.title, owner=item.owner, source=self.source)
                written += 1
                log.info("conversation %s: turn %d saved after the database came back", item.cid, item.revision + 1)
            except Conflict:
                log.error("conversation %s: turn %d (%r) could not be saved: the conversation changed meanwhile",
                          item.cid, item.revision + 1, item.turn.question[:80])
            except StoreUnavailable:
                if time.time() - item.made < MAX_PENDING_AGE_S:
                    raise
                log.error("conversation %s: turn %d (%r) dropped unsaved after %.0f h", item.cid, item.revision + 1,
                          item.turn.question[:80], MAX_PENDING_AGE_S / 3600)
            with self._pending_lock:
                if item in self._pending:  # the retry thread and a turn may flush the same item at once
                    self._pending.remove(item)

    def _start_retrier(self) -> None:
        with self._pending_lock:
            if self._retrier is not None:
                return
            self._retrier = threading.Thread(target=self._retry_loop, name="store-retry", daemon=True)
            self._retrier.start()

    def _retry_loop(self) -> None:
        while not self._stop.wait(self.retry_s):
            try:
                self.flush()
            except StoreUnavailable:
                continue
            with self._pending_lock:
                if not self._pending:
                    self._retrier = None
                    return

    def close(self) -> None:
        self._stop.set()
        try:
            self.flush()
        except StoreUnavailable:
            for item in self._pending:
                log.error("conversation %s: turn %d (%r) not saved: the database is unavailable at shutdown",
                          item.cid, item.revision + 1, item.turn.question[:80])
