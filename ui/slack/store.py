"""The Slack bot's threads and delivery dedupe in the conversation store (advisor/store), so that a restarted bot
continues a thread and two replicas answer a retried event once.

- `StoredThreads` has the interface of `ui.slack.app.ConversationStore`: `thread(key)` yields the thread's
  `ThreadState` with one turn at a time per thread (a lock in this process, a lease on the row across replicas;
  `advisor.store.keeper`). A thread is the stored conversation under the external key
  `slack:<team>:<channel>:<thread>`; its state is `Conversation.to_dict()`, its questions the turns' questions.
  The turn the bot answered (`ThreadState.turn`) is recorded when the block ends, once (idempotency key of the
  question on that revision). A corrupt stored state starts the thread afresh (`ThreadState.corrupt`).
- When the database cannot be used, the bot keeps answering from a bounded in-memory copy of each thread it has
  seen (`ThreadState.saved` False; the keeper retries the write), as it did before the store existed.
- `StoredClaims` replaces the in-memory dedupe sets (`TTLCache.add`): a claim is a row in `events` with an expiry;
  the first process to claim a delivery answers it. With the database away it falls back to this process's set.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from advisor.store import Conflict, StoreUnavailable
from advisor.store.keeper import CorruptState, Keeper, Lease, request_key, result_json
from advisor.store.records import NewTurn
from advisor.store.sql import SqlStore
from ui.slack.app import _RESET, ConversationStore, ThreadKey, ThreadState, TTLCache

log = logging.getLogger("gpu_advisor.slack")

TEXTS_KEPT = 20  # questions of the thread kept for the web link's pre-filled question (as in ThreadState.texts)


def external_key(key: ThreadKey) -> str:
    return "slack:" + ":".join(str(part) for part in key)


class StoredThreads:
    """Per-thread conversations in the store, with an in-memory copy for when the database is away."""

    def __init__(self, keeper: Keeper, *, memory: ConversationStore | None = None) -> None:
        self.keeper = keeper
        self.memory = memory or ConversationStore()

    @contextmanager
    def thread(self, key: ThreadKey) -> Iterator[ThreadState]:
        try:
            record = self.keeper.store.conversation_for_key(external_key(key), owner=f"slack:{key[0]}",
                                                            source="slack")
        except StoreUnavailable as exc:
            log.warning("Slack thread %s: %s; answering from memory", key[2], exc)
            yield from self._from_memory(key)
            return
        with self.keeper.turn_lock(record.id) as lease:
            try:
                self.keeper.flush(record.id)  # a turn this process could not save before goes first
            except StoreUnavailable:
                pass
            thread = self._load(key, record.id)
            revision = thread.revision
            started = time.monotonic()
            yield thread
            self._mirror(key, thread)
            if thread.turn is not None:
                self._record(key, lease, revision, thread, time.monotonic() - started)

    def _from_memory(self, key: ThreadKey) -> Iterator[ThreadState]:
        """The thread from this process's copy while the database is away; its turn is queued for later when the
        thread is known to the store, else lost (logged with the thread)."""
        with self.memory.thread(key) as thread:
            thread.turn, thread.corrupt, thread.saved = None, False, True
            revision, started = thread.revision, time.monotonic()
            yield thread
            if thread.turn is None:
                return
            if thread.conversation_id:
                self._record(key, Lease(thread.conversation_id), revision, thread, time.monotonic() - started)
                thread.revision += 1
            else:
                log.error("Slack thread %s: turn not saved: the database is unavailable and the thread is new",
                          external_key(key))
            thread.saved = False
            thread.turn = None

    def _load(self, key: ThreadKey, cid: str) -> ThreadState:
        """The thread as stored now (after taking its lock: another replica may have just answered in it)."""
        thread = ThreadState(conversation_id=cid)
        try:
            record = self.keeper.get(cid)
            turns = self.keeper.store.turns(cid, limit=TEXTS_KEPT)
        except StoreUnavailable:
            cached = self.memory.get(key)
            if cached is not None:
                thread.state, thread.texts, thread.revision = cached.state, list(cached.texts), cached.revision
            return thread
        if record is None:  # purged meanwhile
            return thread
        thread.revision = record.revision
        try:
            thread.state = self.keeper.read_state(record)
        except CorruptState as exc:
            log.warning("%s; the thread starts fresh", exc)
            thread.corrupt = True
        texts: list[str] = []
        for t in turns:
            texts = [] if _RESET.match(t.question) else [*texts, t.question]
        thread.texts = texts[-TEXTS_KEPT:]
        return thread

    def _mirror(self, key: ThreadKey, thread: ThreadState) -> None:
        with self.memory.thread(key) as copy:
            copy.state, copy.texts = thread.state, list(thread.texts)
            copy.revision = thread.revision + (1 if thread.turn is not None else 0)
            copy.conversation_id = thread.conversation_id

    def _record(self, key: ThreadKey, lease: Any, revision: int, thread: ThreadState, duration_s: float) -> None:
        turn, cid = thread.turn, thread.conversation_id or ""
        record = NewTurn(request_id=request_key(cid, revision, thread.question), question=thread.question,
                         answer=str(getattr(turn, "answer", "") or ""), result=result_json(turn),
                         driver=str(getattr(turn, "mode", "deterministic") or "deterministic"),
                         duration_s=duration_s, error=thread.error, has_quote=bool(getattr(turn, "options", None)))
        try:
            done = self.keeper.commit(lease, revision, thread.state, record, owner=f"slack:{key[0]}",
                                      title=thread.question[:120])
        except Conflict:
            log.error("conversation %s: turn %d not recorded: another replica answered in the thread meanwhile",
                      cid, revision + 1)
            thread.saved = False
            return
        thread.saved = done is not None

    def get(self, key: ThreadKey) -> ThreadState | None:
        return self.memory.get(key)

    def drop(self, key: ThreadKey) -> None:
        self.memory.drop(key)

    def __len__(self) -> int:
        return len(self.memory)

    def __bool__(self) -> bool:  # an empty store is still a store (`store or default` must keep it)
        return True


class StoredClaims:
    """`add(key) -> bool` over the store's event claims: True for the first claim (any process) of `key`."""

    def __init__(self, store: SqlStore, ttl_s: float, fallback: TTLCache) -> None:
        self.store, self.ttl_s, self.fallback = store, ttl_s, fallback

    def add(self, key: Any) -> bool:
        name = key if isinstance(key, str) else "msg:" + ":".join(str(part) for part in key)
        try:
            return self.store.claim_event("slack:" + name, self.ttl_s)
        except StoreUnavailable as exc:
            log.warning("delivery dedupe in this process only: %s", exc)
            return self.fallback.add(key)

    def __contains__(self, key: Any) -> bool:  # pragma: no cover - the interface of TTLCache, unused
        return key in self.fallback
