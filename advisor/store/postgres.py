"""The server back end for several replicas: PostgreSQL through psycopg 3 and a `psycopg_pool.ConnectionPool`.

Statements are the shared ones of `advisor.store.sql` with `?` turned into psycopg's `%s`. Each transaction takes a
pooled connection for its duration only (READ COMMITTED): the compare-and-set UPDATE of `commit_turn` waits on a
concurrent writer's row lock and then sees its new revision, so the later turn gets `Conflict`, never a lost update.
Migrations run under a transaction-level advisory lock, so replicas starting together migrate once.

Round trips: the pooled connections are in autocommit mode, so a one-statement operation (a read, a lease) is one
round trip, and a transaction is BEGIN, its statements, COMMIT. Lending a connection checks it without a round
trip (`_check`): only a connection whose socket has something to read (the server closed it, or sent a notice) is
asked with an empty query, and replaced when that fails — so a restarted server costs no turn its answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from advisor.store.errors import StoreError, StoreUnavailable
from advisor.store.sql import (
    CAS_UPDATE,
    NEW_CONVERSATION,
    TURN_COLUMNS,
    TURN_VALUES,
    Execute,
    SqlStore,
    why_unavailable,
)

MIGRATION_LOCK = 0x6770_7561  # pg_advisory_xact_lock key of the schema migration ("gpua")


_TURN_FROM = (f"INSERT INTO turns ({TURN_COLUMNS}) SELECT c.id, " + TURN_VALUES.split(", ", 1)[1]
              + " FROM c")  # (the turn's row with the conversation id from the WITH)
_FROM_NEW = f"WITH c AS (INSERT INTO conversations {NEW_CONVERSATION} RETURNING id) {_TURN_FROM}"
_FROM_CAS = f"WITH c AS ({CAS_UPDATE} RETURNING id) {_TURN_FROM}"


def _redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(":" + parts.password + "@", ":***@")
        parts = parts._replace(netloc=netloc)
    return urllib.parse.urlunsplit(parts)


def _executor(cur: Any) -> Execute:
    def execute(sql: str, params: tuple[Any, ...] = ()) -> Any:
        cur.execute(sql.replace("?", "%s"), params)
        return cur

    return execute


def _check(conn: Any) -> None:
    """The pool's check of a connection it is about to lend (raise to have it replaced). An idle connection that
    works has nothing to read; one the server closed (shut down, restarted, killed the backend) has its error
    message or end of file waiting, and gets `ConnectionPool.check_connection`'s empty query, which fails."""
    import select

    import psycopg  # optional dependency: psycopg only with the store extra
    from psycopg_pool import ConnectionPool  # optional dependency: psycopg_pool only with the store extra

    if conn.closed or conn.broken:
        raise psycopg.OperationalError("the connection is closed")
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN | select.POLLERR | select.POLLHUP)
        quiet = not poller.poll(0)
    except (AttributeError, OSError, ValueError):  # no poll() on this platform, or no socket
        quiet = False
    if not quiet:
        ConnectionPool.check_connection(conn)


class PostgresStore(SqlStore):
    kind = "PostgreSQL"

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 10, timeout_s: float = 5.0,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        try:
            import psycopg  # optional dependency: psycopg (store extra), ImportError handled
            import psycopg_pool  # optional dependency: psycopg_pool (store extra), ImportError handled
        except ImportError as exc:
            raise StoreError(f"PostgreSQL needs the store extra ({exc.name} is missing): "
                             "pip install 'gpu-advisor[store]'", field="GPU_ADVISOR_DATABASE_URL") from None
        self.url = _redact(url)
        # the pool retries in the background and logs each failed attempt; this store reports outages itself
        logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
        try:  # one direct attempt first: an unreachable server is reported with libpq's reason, at once
            psycopg.connect(url, connect_timeout=max(1, int(timeout_s))).close()
        except psycopg.Error as exc:
            raise StoreUnavailable(why_unavailable(self, exc), field="GPU_ADVISOR_DATABASE_URL") from None
        self._unavailable = (psycopg.OperationalError, psycopg_pool.PoolTimeout, psycopg.InterfaceError)
        self._integrity = (psycopg.errors.UniqueViolation,)
        self.pool = psycopg_pool.ConnectionPool(url, min_size=min_size, max_size=max_size, timeout=timeout_s,
                                                open=False, check=_check,
                                                kwargs={"connect_timeout": max(1, int(timeout_s)), "autocommit": True})
        self.pool.open(wait=False)

    @contextmanager
    def _transaction(self) -> Iterator[Execute]:
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            yield _executor(cur)

    @contextmanager
    def _autocommit(self) -> Iterator[Execute]:
        with self.pool.connection() as conn, conn.cursor() as cur:
            yield _executor(cur)

    def _lock_migrations(self, x: Execute) -> None:
        x("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

    def _write_turn(self, new: tuple[Any, ...] | None, update: tuple[Any, ...], row: tuple[Any, ...]) -> bool:
        """`SqlStore._write_turn` as one statement in autocommit, one round trip instead of four (BEGIN, two
        statements, COMMIT): the conversation's insert or compare-and-set in a data-modifying WITH, and the turn
        inserted from what it returned. The statement is atomic: a turn whose request key is taken (unique
        violation) leaves the conversation as it was. A new conversation whose row exists already (a Slack
        thread's, `conversation_for_key`) takes a second statement, the compare-and-set."""
        with self._tx(single=True) as x:
            if new is not None and x(_FROM_NEW, (*new, *row[1:])).rowcount == 1:
                return True
            return bool(x(_FROM_CAS, (*update, *row[1:])).rowcount == 1)

    def close(self) -> None:
        self.pool.close()
