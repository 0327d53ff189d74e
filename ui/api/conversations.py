"""The conversations of `ask` in the HTTP API and the MCP server: in the conversation store (advisor/store: SQLite
by default, PostgreSQL for replicas), as the web app, Slack and `ask --conversation` keep theirs — so a turn
continues after a restart and on any replica — or, with `GPU_ADVISOR_DATABASE_URL=memory`, in this process.

- A conversation belongs to the front end that started it (`source`: "api" or "mcp") and to its caller (`owner`:
  the HTTP Basic user, "token" for the bearer token, "anonymous" without a login). An id that is unknown, purged,
  or another front end's or caller's is `ConversationNotFound` (HTTP 404, an MCP tool error) — never silently a
  new conversation.
- One turn at a time per conversation, across replicas: `Keeper.turn_lock` (a lease on the row).
- `AdmissionLimit`: at most `NEW_PER_CLIENT` new conversations per client address per `ADMISSION_WINDOW_S`
  (429 past it), so one client's flood cannot push another's conversations out of the in-process cache, nor
  fill the store.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.conversation.session import Conversation, new_conversation
from advisor.store import new_id, open_store
from advisor.store.keeper import CorruptState, Keeper, request_key, result_json, slim_history
from advisor.store.records import NewTurn
from knowledge.errors import AdvisorError
from knowledge.messages import pair

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn
    from advisor.store import Store

MAX_CONVERSATIONS = 1000  # in-process conversations kept (memory mode; least recently used dropped)
NEW_PER_CLIENT = 100  # new conversations one client address may start per window
ADMISSION_WINDOW_S = 3600.0

# Who asks: set by the front end around `api_service.run("ask", …)` (same thread).
CALLER: contextvars.ContextVar[tuple[str, str, str]] = contextvars.ContextVar(
    "api_caller", default=("api", "anonymous", "unknown"))  # (source, owner, client address)


class ConversationNotFound(AdvisorError):
    """A conversation id this caller cannot continue (HTTP 404)."""

    def __init__(self, cid: str) -> None:
        message, message_zh = pair("api.conversation_not_found", cid=cid)
        super().__init__(message, field="conversation_id", accepted="an id returned by an earlier ask, or no id to start one",
                         message_zh=message_zh)


class TooManyConversations(AdvisorError):
    """A client past its admission limit for new conversations (HTTP 429 with Retry-After)."""

    def __init__(self, retry_after_s: float) -> None:
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        super().__init__(f"too many new conversations from this client; continue an existing one (conversation_id) "
                         f"or try again in {self.retry_after_s} s", field="conversation_id",
                         accepted=f"at most {NEW_PER_CLIENT} new conversations per client per "
                                  f"{ADMISSION_WINDOW_S / 3600:g} h")


class AdmissionLimit:
    """New conversations per client within a sliding window."""

    def __init__(self, limit: int = NEW_PER_CLIENT, window_s: float = ADMISSION_WINDOW_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._lock = threading.Lock()
        self._starts: OrderedDict[str, deque[float]] = OrderedDict()

    def admit(self, client: str) -> None:
        """Count one new conversation for `client`; TooManyConversations past the limit."""
        now = self.clock()
        with self._lock:
            starts = self._starts.pop(client, deque())
            while starts and now - starts[0] > self.window_s:
                starts.popleft()
            self._starts[client] = starts
            if len(starts) >= self.limit:
                raise TooManyConversations(starts[0] + self.window_s - now)
            starts.append(now)
            while len(self._starts) > 10_000:
                self._starts.popitem(last=False)


def _new(lang: str | None) -> Conversation:
    return new_conversation(lang=lang)


class MemoryConversations:
    """Conversations in this process, keyed by id; the least recently used beyond `capacity` are dropped."""

    def __init__(self, capacity: int = MAX_CONVERSATIONS) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, tuple[str, Conversation, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def turn(self, cid: str | None, text: str, lang: str | None, source: str, owner: str) -> tuple[str, Turn]:
        with self._lock:
            if cid is None:
                cid = new_id()
                conv = _new(lang)
                conv.conversation_id = cid
                self._items[cid] = (f"{source}\0{owner}", conv, threading.Lock())
                while len(self._items) > self.capacity:
                    self._items.popitem(last=False)
            item = self._items.get(cid)
            if item is None or item[0] != f"{source}\0{owner}":
                raise ConversationNotFound(cid)
            self._items.move_to_end(cid)
        _, conv, lock = item
        with lock:
            if lang:
                conv.fixed_lang = conv.lang = lang
            return cid, conv.respond(text)

    def __len__(self) -> int:
        return len(self._items)


class StoredConversations:
    """Conversations in the store (see the module doc); `keeper` serialises turns across replicas."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.keepers: dict[str, Keeper] = {}
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, float] = OrderedDict()  # conversations this process served lately

    def _keeper(self, source: str) -> Any:
        with self._lock:
            if source not in self.keepers:
                self.keepers[source] = Keeper(self.store, source=source)
            return self.keepers[source]

    def turn(self, cid: str | None, text: str, lang: str | None, source: str, owner: str) -> tuple[str, Turn]:
        keeper = self._keeper(source)
        new = cid is None
        if cid is not None:
            record = self.store.get_conversation(cid)
            if record is None or record.source != source or record.owner != owner:
                raise ConversationNotFound(cid)
        cid = cid or new_id()
        with keeper.turn_lock(cid, new=new) as lease:
            record = None if new else self.store.get_conversation(cid)
            conv, revision = _new(lang), 0
            if record is not None:
                revision = record.revision
                try:
                    state = keeper.read_state(record)
                    conv = Conversation.from_dict(state) if state is not None else conv
                except (CorruptState, AdvisorError):
                    conv = _new(lang)  # an unreadable state: this conversation starts afresh
            if lang:
                conv.fixed_lang = conv.lang = lang
            conv.conversation_id = cid
            started = time.monotonic()
            turn = conv.respond(text)
            slim_history(conv.history)
            keeper.commit(lease, revision, conv.to_dict(), NewTurn(
                request_id=request_key(cid, revision, text), question=text, answer=turn.answer,
                result=result_json(turn), driver=conv.driver, duration_s=time.monotonic() - started,
                has_quote=bool(turn.options)), owner=owner, title=text[:120])
        with self._lock:
            self._recent.pop(cid, None)
            self._recent[cid] = time.monotonic()
        return cid, turn

    def __len__(self) -> int:
        """Conversations this process answered a turn of within the admission window (the store holds them all)."""
        cutoff = time.monotonic() - ADMISSION_WINDOW_S
        with self._lock:
            while self._recent and next(iter(self._recent.values())) < cutoff:
                self._recent.popitem(last=False)
            return len(self._recent)


Backend = MemoryConversations | StoredConversations
_backend: Backend | None = None
_backend_lock = threading.Lock()
ADMISSION = AdmissionLimit()


def backend() -> Backend:
    """This process's conversations: the store when one is configured, else memory."""
    global _backend
    with _backend_lock:
        if _backend is None:
            store = open_store()
            _backend = MemoryConversations() if store is None else StoredConversations(store)
        return _backend


def use(conversations: Backend | None) -> None:
    """Replace the process's conversations (tests; None: open the configured ones again on next use)."""
    global _backend
    with _backend_lock:
        _backend = conversations


def ask_turn(cid: str | None, text: str, lang: str | None) -> tuple[str, Turn]:
    """One turn for the current CALLER: continue `cid` (ConversationNotFound if not theirs) or start one (subject to
    the admission limit)."""
    source, owner, client = CALLER.get()
    if cid is None:
        ADMISSION.admit(f"{source}:{client}")
    return backend().turn(cid, text, lang, source, owner)
