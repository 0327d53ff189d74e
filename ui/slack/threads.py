"""What the Slack bot remembers in this process: a bounded LRU with a sliding TTL (`TTLCache`, also the delivery
dedupe), and each thread's conversation state with one turn at a time per thread (`ConversationStore`). The
conversation store's versions of both are in `ui/slack/store.py`."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn

ThreadKey = tuple[str, str, str]  # (team, channel, thread) where thread is a ts, "dm" or "cmd:<user>"


class TTLCache:
    """A bounded, thread-safe mapping: least recently used entries go first; entries expire `ttl_s` after last use.
    Values are whatever the caller keeps (threads' states, or True for the dedupe sets), hence `Any`.

    `clock` is injectable for tests (seconds, monotonic).
    """

    def __init__(self, max_items: int, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        if max_items < 1 or ttl_s <= 0:
            raise ValueError("max_items must be >= 1 and ttl_s > 0")
        self.max_items, self.ttl_s, self._clock = max_items, ttl_s, clock
        self._data: OrderedDict[Hashable, tuple[float, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def _purge(self, now: float) -> None:
        while self._data:
            _key, (expires, _) = next(iter(self._data.items()))
            if expires > now and len(self._data) <= self.max_items:
                break
            self._data.popitem(last=False)

    def get(self, key: Hashable, default: Any = None) -> Any:
        with self._lock:
            now = self._clock()
            self._purge(now)
            if key not in self._data:
                return default
            _, value = self._data.pop(key)
            self._data[key] = (now + self.ttl_s, value)
            return value

    def set(self, key: Hashable, value: Any) -> None:
        with self._lock:
            now = self._clock()
            self._data.pop(key, None)
            self._data[key] = (now + self.ttl_s, value)
            self._purge(now)

    def add(self, key: Hashable) -> bool:
        """Remember `key`; True when it was not already there (unexpired). The basis of deduplication."""
        with self._lock:
            now = self._clock()
            self._purge(now)
            if key in self._data:
                return False
            self._data[key] = (now + self.ttl_s, True)
            self._purge(now)
            return True

    def pop(self, key: Hashable) -> Any:
        with self._lock:
            entry = self._data.pop(key, None)
            return None if entry is None else entry[1]

    def __len__(self) -> int:
        with self._lock:
            self._purge(self._clock())
            return len(self._data)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            self._purge(self._clock())
            return key in self._data


class ThreadState(msgspec.Struct):
    """What the bot remembers about one thread: the conversation (as `to_dict()`) and the user's questions."""

    state: dict[str, Any] | None = None
    texts: list[str] = msgspec.field(default_factory=list)
    lock: threading.Lock = msgspec.field(default_factory=threading.Lock)
    dropped: bool = False
    # in the conversation store (ui/slack/store.py): its id and revision, the turn to record, how it went
    conversation_id: str | None = None
    revision: int = 0
    turn: Turn | None = None
    question: str = ""
    error: str | None = None
    saved: bool = True
    corrupt: bool = False


class ConversationStore:
    """Per-thread conversation state: LRU with a sliding TTL; one turn at a time per thread (a lock per thread)."""

    def __init__(self, max_items: int = 2000, ttl_s: float = 24 * 3600,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._cache = TTLCache(max_items, ttl_s, clock)
        self._lock = threading.Lock()

    @contextmanager
    def thread(self, key: ThreadKey) -> Iterator[ThreadState]:
        with self._lock:
            entry = self._cache.get(key)
            if entry is None:
                entry = ThreadState()
                self._cache.set(key, entry)
        with entry.lock:
            yield entry
        if not entry.dropped:
            self._cache.set(key, entry)  # refresh its place in the LRU order and its TTL

    def get(self, key: ThreadKey) -> ThreadState | None:
        entry = self._cache.get(key)
        return entry if isinstance(entry, ThreadState) else None

    def drop(self, key: ThreadKey) -> None:
        with self._lock:
            entry = self._cache.pop(key)
            if entry is not None:
                entry.dropped = True

    def __len__(self) -> int:
        return len(self._cache)

