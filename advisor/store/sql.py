"""The repository over SQL, shared by both back ends: every query of the store is written once, here.

A back end (`sqlite.SqliteStore`, `postgres.PostgresStore`) supplies connections (`_transaction`), the exceptions
that mean "the database cannot be used now" (`_unavailable`) and a lock for migrations; statements are written
with `?` placeholders and translated by the back end when its driver wants another style.

Concurrency: a conversation row carries `revision` (committed turns). `commit_turn` writes only if the revision is
the one the turn started from (compare-and-set in one UPDATE), so two turns on one conversation can never
interleave or overwrite each other: the later one gets `Conflict` and is rerun on the new state. `acquire` takes a
short lease on the row so that replicas take turns instead of racing (`advisor.store.keeper`). A turn's
`request_id` is unique per conversation: a retried request is recorded once.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from advisor.store.errors import Conflict, StoreError, StoreUnavailable
from advisor.store.privacy import scrub
from advisor.store.records import Commit, ConversationRecord, NewTurn, QuoteRecord, TurnRecord
from advisor.store.schema import MIGRATIONS, Only

STATE_VERSION = 1  # version of the stored `state` JSON layout (Conversation.to_dict's own "version" inside it)

_CONV_COLUMNS = ("id, owner, source, title, state, state_version, revision, created_at, updated_at, external_key")
TURN_COLUMNS = ("conversation_id, seq, request_id, question, answer, result, driver, duration_s, error, quote_id, "
                 "created_at")
TURN_VALUES = ", ".join("?" * len(TURN_COLUMNS.split(",")))
_QUOTE_COLUMNS = "id, conversation_id, owner, lang, question, markdown, json, computed_at, created_at"
# commit_turn's two writes (`SqlStore._write_turn`; PostgreSQL makes one statement of them, `PostgresStore`)
NEW_CONVERSATION = ("(id, owner, source, title, state, state_version, revision, created_at, updated_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (id) DO NOTHING")
CAS_UPDATE = ("UPDATE conversations SET state = ?, state_version = ?, revision = revision + 1, updated_at = ?, "
               "title = CASE WHEN title = '' THEN ? ELSE title END, "
               "lease_holder = CASE WHEN lease_holder = ? THEN NULL ELSE lease_holder END, "
               "lease_until = CASE WHEN lease_holder = ? THEN 0 ELSE lease_until END WHERE id = ? AND revision = ?")


def new_id() -> str:
    """An unguessable id: 128 random bits, URL-safe (22 characters), never starting with "-" (which a command line,
    `gpu-advisor history show ID`, would read as an option: 1 id in 64 did)."""
    while True:
        value = secrets.token_urlsafe(16)
        if not value.startswith("-"):
            return value


class Execute(Protocol):
    def __call__(self, sql: str, params: tuple[Any, ...] = ()) -> Any: ...


class SqlStore:
    """The store's operations; subclasses provide `_transaction`, `_unavailable`, `_lock_migrations`, `url`."""

    url: str = ""
    kind: str = ""
    _unavailable: tuple[type[BaseException], ...] = ()
    _integrity: tuple[type[BaseException], ...] = ()

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock

    # --- back-end hooks ------------------------------------------------------------------------------------
    def _transaction(self) -> AbstractContextManager[Execute]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _autocommit(self) -> AbstractContextManager[Execute]:  # pragma: no cover - abstract
        """A connection whose statements each commit on their own (no BEGIN/COMMIT round trips): for operations
        that are one statement, or whose statements need not be atomic together."""
        raise NotImplementedError

    def _lock_migrations(self, x: Execute) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def close(self) -> None:
        pass

    @contextmanager
    def _tx(self, single: bool = False) -> Iterator[Execute]:
        """A back-end transaction (`single`: an autocommit connection, for one statement) whose "cannot use the
        database now" errors become `StoreUnavailable`."""
        try:
            with self._autocommit() if single else self._transaction() as x:
                yield x
        except self._unavailable as exc:
            raise StoreUnavailable(_why(self, exc)) from exc

    # --- schema ---------------------------------------------------------------------------------------------
    def migrate(self, migrations: list[list[str | Only]] = MIGRATIONS) -> int:
        """Create or upgrade the schema to `len(migrations)` (SCHEMA_VERSION); refuse a newer one. Returns the
        version now in place. Each run is one transaction: a failing migration leaves the previous version."""
        target = len(migrations)
        with self._tx() as x:
            self._lock_migrations(x)
            x("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = x("SELECT MAX(version) FROM schema_version").fetchone()
            current = int(row[0]) if row and row[0] is not None else 0
            if current > target:
                raise StoreError(
                    f"the database at {self.url} has schema version {current}, newer than this program knows "
                    f"({target}); upgrade gpu-advisor or point GPU_ADVISOR_DATABASE_URL at another database",
                    field="GPU_ADVISOR_DATABASE_URL")
            for version in range(current, target):
                for statement in migrations[version]:
                    if isinstance(statement, Only):
                        if statement.kind != self.kind:
                            continue
                        statement = statement.sql
                    x(statement)
                x("INSERT INTO schema_version (version) VALUES (?)", (version + 1,))
        return max(current, target)

    def schema_version(self) -> int:
        with self._tx(single=True) as x:
            row = x("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    # --- conversations --------------------------------------------------------------------------------------
    def create_conversation(self, owner: str, source: str, *, title: str = "",
                            external_key: str | None = None) -> ConversationRecord:
        now = self.clock()
        cid = new_id()
        with self._tx(single=True) as x:
            x("INSERT INTO conversations (id, owner, source, title, external_key, created_at, updated_at) "
              "VALUES (?, ?, ?, ?, ?, ?, ?)", (cid, owner, source, (scrub(title) or "")[:200], external_key, now, now))
        return ConversationRecord(cid, owner, source, title[:200], None, STATE_VERSION, 0, now, now, external_key)

    def conversation_for_key(self, external_key: str, owner: str, source: str) -> ConversationRecord:
        """The conversation stored under `external_key` (a Slack thread), created when there is none; two replicas
        asking at once get the same one."""
        found = self._conversation_where("external_key = ?", (external_key,))
        if found is not None:
            return found
        now = self.clock()
        with self._tx(single=True) as x:
            x("INSERT INTO conversations (id, owner, source, external_key, created_at, updated_at) "
              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (external_key) DO NOTHING",
              (new_id(), owner, source, external_key, now, now))
        found = self._conversation_where("external_key = ?", (external_key,))
        if found is None:  # pragma: no cover - the row was inserted or already there
            raise StoreError(f"conversation for {external_key!r} could not be created")
        return found

    def get_conversation(self, cid: str) -> ConversationRecord | None:
        return self._conversation_where("id = ?", (cid,)) if _plausible_id(cid) else None

    def _conversation_where(self, where: str, params: tuple[Any, ...]) -> ConversationRecord | None:
        with self._tx(single=True) as x:
            row = x(f"SELECT {_CONV_COLUMNS} FROM conversations WHERE {where}", params).fetchone()
        return _conversation(row) if row else None

    def revision(self, cid: str) -> int | None:
        with self._tx(single=True) as x:
            row = x("SELECT revision FROM conversations WHERE id = ?", (cid,)).fetchone()
        return int(row[0]) if row else None

    def list_conversations(self, owner: str | None = None, limit: int = 20) -> list[ConversationRecord]:
        """Most recently updated first; only conversations with at least one turn."""
        where, params = ("owner = ? AND revision > 0", (owner,)) if owner is not None else ("revision > 0", ())
        with self._tx(single=True) as x:
            rows = x(f"SELECT {_CONV_COLUMNS} FROM conversations WHERE {where} ORDER BY updated_at DESC LIMIT ?",
                     (*params, int(limit))).fetchall()
        return [_conversation(r) for r in rows]

    def acquire(self, cid: str, holder: str, ttl_s: float) -> bool:
        """Take (or renew) the conversation's lease for `ttl_s` seconds; False while another holder has it. A
        conversation with no row yet needs no lease (its first commit creates the row, and only one can)."""
        return self.acquire_at(cid, holder, ttl_s)[0]

    def acquire_at(self, cid: str, holder: str, ttl_s: float) -> tuple[bool, int | None]:
        """`acquire`, and the conversation's revision read in the same transaction (None when it has no row)."""
        now = self.clock()
        with self._tx(single=True) as x:  # one statement when the lease is free (the usual case), two when not
            row = x("UPDATE conversations SET lease_holder = ?, lease_until = ? WHERE id = ? AND "
                    "(lease_until < ? OR lease_holder = ?) RETURNING revision",
                    (holder, now + ttl_s, cid, now, holder)).fetchall()  # (all: SQLite ends the statement)
            if row:
                return True, int(row[0][0])
            row = x("SELECT revision FROM conversations WHERE id = ?", (cid,)).fetchone()
        if row is None:
            return True, None
        return False, int(row[0])

    def release(self, cid: str, holder: str) -> None:
        with self._tx(single=True) as x:
            x("UPDATE conversations SET lease_holder = NULL, lease_until = 0 WHERE id = ? AND lease_holder = ?",
              (cid, holder))

    def commit_turn(self, cid: str, expected_revision: int, state: dict[str, Any] | None, turn: NewTurn, *,
                    holder: str | None = None, title: str = "", owner: str | None = None,
                    source: str = "web") -> Commit:
        """Record `turn` and the conversation's new `state` in one transaction, if the conversation is still at
        `expected_revision` (else `Conflict`); a `request_id` recorded before is not recorded again. With `owner`,
        a conversation at revision 0 that has no row yet (ids are made by the caller, `new_id`) gets one.

        Two statements in the usual case (`_write_turn`; one on PostgreSQL): the compare-and-set (or, for a new
        conversation, the row's insert) and the turn's insert. Whether the request was recorded before is asked only when the compare-and-set fails
        (a request key names the revision it was asked at, so a recorded one has moved the conversation past
        it) or the insert hits the (conversation, request) unique key."""
        now = self.clock()
        state_text, result_text = scrub(_json_text(state)), scrub(_json_text(turn.result))
        question, answer, error, title = (scrub(turn.question), scrub(turn.answer), scrub(turn.error),
                                          (scrub(title) or "")[:200])
        quote_id = new_id() if turn.has_quote else None
        row = (cid, expected_revision + 1, turn.request_id, question, answer, result_text, turn.driver,
               float(turn.duration_s), error, quote_id, now)
        try:
            new = ((cid, owner, source, title, state_text, STATE_VERSION, now, now)
                   if expected_revision == 0 and owner is not None else None)
            update = (state_text, STATE_VERSION, now, title, holder, holder, cid, expected_revision)
            if not self._write_turn(new, update, row):
                with self._tx(single=True) as x:
                    seen = self._recorded(x, cid, turn.request_id)
                if seen is not None:
                    return seen
                raise Conflict(f"conversation {cid} moved past revision {expected_revision}")
        except self._integrity:  # the request recorded before, or concurrently by another replica
            with self._tx(single=True) as x:
                seen = self._recorded(x, cid, turn.request_id)
            if seen is not None:
                return seen
            raise Conflict(f"conversation {cid}: request {turn.request_id} was recorded concurrently") from None
        return Commit(expected_revision + 1, expected_revision + 1, quote_id)

    def _write_turn(self, new: tuple[Any, ...] | None, update: tuple[Any, ...], row: tuple[Any, ...]) -> bool:
        """The writes of `commit_turn`, in one transaction: the row of a new conversation (`new`: the parameters
        of `NEW_CONVERSATION`, None unless at revision 0 with an owner) or else the compare-and-set of its revision
        (`update`: `CAS_UPDATE`'s), then the turn (`row`: `TURN_COLUMNS`). False when the compare-and-set found
        another revision (nothing written)."""
        with self._tx() as x:
            created = new is not None and x(f"INSERT INTO conversations {NEW_CONVERSATION}", new).rowcount == 1
            if not created and x(CAS_UPDATE, update).rowcount != 1:
                return False
            x(f"INSERT INTO turns ({TURN_COLUMNS}) VALUES ({TURN_VALUES})", row)
        return True

    @staticmethod
    def _recorded(x: Execute, cid: str, request_id: str) -> Commit | None:
        """The `duplicate` Commit of a request recorded before (the conversation's revision now), else None."""
        row = x("SELECT t.seq, t.quote_id, c.revision FROM turns t JOIN conversations c ON c.id = t.conversation_id "
                "WHERE t.conversation_id = ? AND t.request_id = ?", (cid, request_id)).fetchone()
        return None if row is None else Commit(int(row[2]), int(row[0]), row[1], duplicate=True)

    def turns(self, cid: str, limit: int = 1000) -> list[TurnRecord]:
        """The conversation's turns, oldest first (the last `limit`)."""
        with self._tx(single=True) as x:
            rows = x(f"SELECT {TURN_COLUMNS} FROM turns WHERE conversation_id = ? ORDER BY seq DESC LIMIT ?",
                     (cid, int(limit))).fetchall()
        return [TurnRecord(*r) for r in reversed(rows)]

    def turn_for_quote(self, quote_id: str) -> TurnRecord | None:
        if not _plausible_id(quote_id):
            return None
        with self._tx(single=True) as x:
            row = x(f"SELECT {TURN_COLUMNS} FROM turns WHERE quote_id = ?", (quote_id,)).fetchone()
        return TurnRecord(*row) if row else None

    def list_recommendations(self, owner: str, limit: int = 20) -> list[TurnRecord]:
        """The owner's turns that have a quote id (a recommendation), newest first; without answer and result
        (for lists: the quote id, question and time)."""
        with self._tx(single=True) as x:
            rows = x("SELECT t.conversation_id, t.seq, t.request_id, t.question, '', NULL, t.driver, t.duration_s, "
                     "t.error, t.quote_id, t.created_at FROM turns t JOIN conversations c ON c.id = t.conversation_id "
                     "WHERE c.owner = ? AND t.quote_id IS NOT NULL ORDER BY t.created_at DESC LIMIT ?",
                     (owner, int(limit))).fetchall()
        return [TurnRecord(*r) for r in rows]

    # --- quotes ---------------------------------------------------------------------------------------------
    def save_quote(self, quote: QuoteRecord) -> QuoteRecord:
        """Store `quote` unless one with its id exists; returns the stored one (the first export wins)."""
        with self._tx(single=True) as x:
            x(f"INSERT INTO quotes ({_QUOTE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
              (quote.id, quote.conversation_id, quote.owner, quote.lang, scrub(quote.question),
               scrub(quote.markdown), scrub(quote.json), quote.computed_at, quote.created_at))
        return self.get_quote(quote.id) or quote

    def get_quote(self, quote_id: str) -> QuoteRecord | None:
        if not _plausible_id(quote_id):
            return None
        with self._tx(single=True) as x:
            row = x(f"SELECT {_QUOTE_COLUMNS} FROM quotes WHERE id = ?", (quote_id,)).fetchone()
        return QuoteRecord(*row) if row else None

    def list_quotes(self, owner: str | None = None, limit: int = 20) -> list[QuoteRecord]:
        where, params = ("WHERE owner = ?", (owner,)) if owner is not None else ("", ())
        with self._tx(single=True) as x:
            rows = x(f"SELECT {_QUOTE_COLUMNS} FROM quotes {where} ORDER BY created_at DESC LIMIT ?",
                     (*params, int(limit))).fetchall()
        return [QuoteRecord(*r) for r in rows]

    # --- events ---------------------------------------------------------------------------------------------
    def claim_event(self, event_id: str, ttl_s: float) -> bool:
        """True for the first caller (any process) to claim `event_id` within `ttl_s`; False for repeats."""
        now = self.clock()
        with self._tx(single=True) as x:
            cur = x("INSERT INTO events (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                    "SET expires_at = excluded.expires_at WHERE events.expires_at < ?", (event_id, now + ttl_s, now))
            return bool(cur.rowcount == 1)

    # --- failed logins (ui/server/auth_throttle.py) --------------------------------------------------------------
    def auth_failures(self, keys: list[str]) -> dict[str, tuple[int, float, float]]:
        """{key: (failures, locked_until, last_at)} of the keys that have failed recently."""
        if not keys:
            return {}
        marks = ", ".join("?" for _ in keys)
        with self._tx(single=True) as x:
            rows = x(f"SELECT key, failures, locked_until, last_at FROM auth_failures WHERE key IN ({marks})",
                     tuple(keys)).fetchall()
        return {str(r[0]): (int(r[1]), float(r[2]), float(r[3])) for r in rows}

    def record_auth_failure(self, keys: list[str], lock_for: Callable[[int], float], forget_s: float) -> float:
        """Count one more failure for each key (a count older than `forget_s` starts again at 1) and lock it for
        `lock_for(count)` seconds; returns the longest lock started. One transaction: concurrent failures from
        several processes each count."""
        now = self.clock()
        longest = 0.0
        with self._tx() as x:
            for key in keys:
                row = x("SELECT failures, last_at FROM auth_failures WHERE key = ?", (key,)).fetchone()
                count = 1 if row is None or now - float(row[1]) > forget_s else int(row[0]) + 1
                wait = lock_for(count)
                x("INSERT INTO auth_failures (key, failures, locked_until, last_at) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, "
                  "locked_until = excluded.locked_until, last_at = excluded.last_at", (key, count, now + wait, now))
                longest = max(longest, wait)
            x("DELETE FROM auth_failures WHERE last_at < ?", (now - forget_s,))
        return longest

    def clear_auth_failures(self, keys: list[str]) -> None:
        if not keys:
            return
        marks = ", ".join("?" for _ in keys)
        with self._tx(single=True) as x:
            x(f"DELETE FROM auth_failures WHERE key IN ({marks})", tuple(keys))

    # --- retention ------------------------------------------------------------------------------------------
    def purge(self, older_than_s: float) -> dict[str, int]:
        """Delete conversations (with their turns and quotes) not updated for `older_than_s` seconds, quotes
        exported that long ago, and expired event ids; returns how many of each went."""
        cutoff = self.clock() - older_than_s
        with self._tx() as x:
            old = "SELECT id FROM conversations WHERE updated_at < ?"
            turns = x(f"DELETE FROM turns WHERE conversation_id IN ({old})", (cutoff,)).rowcount
            quotes = x(f"DELETE FROM quotes WHERE created_at < ? OR conversation_id IN ({old})",
                       (cutoff, cutoff)).rowcount
            convs = x("DELETE FROM conversations WHERE updated_at < ?", (cutoff,)).rowcount
            events = x("DELETE FROM events WHERE expires_at < ?", (self.clock(),)).rowcount
        return {"conversations": convs, "turns": turns, "quotes": quotes, "events": events}


def _json_text(value: str | dict[str, Any] | None) -> str | None:
    """What is stored for a JSON value: a str is taken as JSON text already, anything else is serialised compactly."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _why(store: SqlStore, exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return f"the {store.kind} database at {store.url} cannot be used: {text}"


def _plausible_id(value: Any) -> bool:
    """Ids are `new_id()` strings; anything else cannot name a row (and is never sent to the database)."""
    return isinstance(value, str) and 16 <= len(value) <= 64 and all(c.isalnum() or c in "-_" for c in value)


def _conversation(row: Any) -> ConversationRecord:
    return ConversationRecord(*row)
