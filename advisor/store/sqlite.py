"""The embedded back end: one SQLite file (stdlib `sqlite3`) in WAL mode, so readers never wait for the writer and
several processes on one machine can share the file.

Each thread gets its own connection (sqlite3 connections are not shared between threads). Every transaction starts
with `BEGIN IMMEDIATE`, which takes the write lock up front: a transaction that reads and then writes (as
`commit_turn` does) cannot fail half-way on a snapshot another process moved on; waiting writers retry for
`busy_timeout_ms`. `synchronous=NORMAL` is the WAL setting SQLite recommends: a committed turn survives a crash of
the process; only a power loss can undo the last commits (https://www.sqlite.org/pragma.html#pragma_synchronous).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from advisor.store.errors import StoreUnavailable
from advisor.store.sql import Execute, SqlStore


def _executor(conn: sqlite3.Connection) -> Execute:
    def execute(sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        return conn.execute(sql, params)

    return execute


class SqliteStore(SqlStore):
    kind = "SQLite"
    _unavailable = (sqlite3.OperationalError,)  # locked too long, disk full, unreadable file
    _integrity = (sqlite3.IntegrityError,)

    def __init__(self, path: str | Path, *, busy_timeout_ms: int = 10_000, pragmas: Mapping[str, Any] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(clock)
        self.path = Path(path).expanduser()
        self.url = f"sqlite:///{self.path}"
        self.busy_timeout_ms = busy_timeout_ms
        self.pragmas = dict(pragmas or {})
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create the data directory {self.path.parent}: {exc.strerror}",
                                   field="GPU_ADVISOR_DATA_DIR") from None

    def _connection(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout_ms / 1000, isolation_level=None,
                                   check_same_thread=False)
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_ms)}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            for name, value in self.pragmas.items():
                conn.execute(f"PRAGMA {name} = {int(value)}")
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _transaction(self) -> Iterator[Execute]:
        conn = self._connection()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield _executor(conn)
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    @contextmanager
    def _autocommit(self) -> Iterator[Execute]:
        yield _executor(self._connection())  # (isolation_level=None: each statement is its own transaction)

    def _lock_migrations(self, x: Execute) -> None:
        pass  # BEGIN IMMEDIATE already excludes every other writer

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            try:
                conn.close()
            except sqlite3.Error:
                pass
        self._local = threading.local()
