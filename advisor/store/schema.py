"""The store's schema as a versioned list of migrations; `MIGRATIONS[i]` takes a database from version i to i + 1.

Both back ends run the same statements (portable SQL: TEXT, INTEGER, DOUBLE PRECISION, ON DELETE CASCADE), except
an `Only` statement, which one back end runs and the other skips (its version still counts); times are Unix
seconds. A database whose version is above `len(MIGRATIONS)` was written by a newer program and is refused
(`advisor.store.sql.SqlStore.migrate`)."""

from __future__ import annotations

from knowledge.structs import Value


class Only(Value):
    """A migration statement for one back end (`kind`: `SqlStore.kind`, "PostgreSQL" or "SQLite")."""

    kind: str
    sql: str


# PostgreSQL compresses a text value over ~2 kB (TOAST) with pglz by default: ~3.5 ms of the server's CPU for a
# turn's ~90 kB result, ~1.1 ms with lz4 (measured on PostgreSQL 15, docs/store.md). lz4 needs PostgreSQL 14+ built
# with it (Debian's is); elsewhere the statement fails inside the block and the column keeps pglz.
_LZ4_COLUMNS = (("conversations", "state"), ("turns", "answer"), ("turns", "result"), ("quotes", "markdown"),
                ("quotes", "json"))
_LZ4 = Only("PostgreSQL", "DO $$ BEGIN " + " ".join(
    f"EXECUTE 'ALTER TABLE {table} ALTER COLUMN {column} SET COMPRESSION lz4';" for table, column in _LZ4_COLUMNS)
    + " EXCEPTION WHEN OTHERS THEN NULL; END $$")  # (no lz4 here: nothing changes; nothing else can fail)

MIGRATIONS: list[list[str | Only]] = [
    [  # 1: conversations, turns, quotes, events
        """CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            source TEXT NOT NULL,
            external_key TEXT UNIQUE,
            title TEXT NOT NULL DEFAULT '',
            state TEXT,
            state_version INTEGER NOT NULL DEFAULT 1,
            revision INTEGER NOT NULL DEFAULT 0,
            lease_holder TEXT,
            lease_until DOUBLE PRECISION NOT NULL DEFAULT 0,
            created_at DOUBLE PRECISION NOT NULL,
            updated_at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX conversations_owner ON conversations (owner, updated_at)",
        "CREATE INDEX conversations_updated ON conversations (updated_at)",
        """CREATE TABLE turns (
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            request_id TEXT NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            result TEXT,
            driver TEXT NOT NULL,
            duration_s DOUBLE PRECISION NOT NULL,
            error TEXT,
            quote_id TEXT UNIQUE,
            created_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (conversation_id, seq),
            UNIQUE (conversation_id, request_id))""",
        """CREATE TABLE quotes (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            owner TEXT NOT NULL,
            lang TEXT NOT NULL,
            question TEXT NOT NULL,
            markdown TEXT NOT NULL,
            json TEXT NOT NULL,
            computed_at DOUBLE PRECISION NOT NULL,
            created_at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX quotes_owner ON quotes (owner, created_at)",
        "CREATE TABLE events (id TEXT PRIMARY KEY, expires_at DOUBLE PRECISION NOT NULL)",
        "CREATE INDEX events_expiry ON events (expires_at)",
    ],
    [  # 2: lz4 for the large text columns on PostgreSQL (new values; existing ones stay as they are)
        _LZ4,
    ],
    [  # 3: failed logins per key ("ip:…", "user:…"), shared by every server process (ui/server/auth_throttle.py)
        """CREATE TABLE auth_failures (
            key TEXT PRIMARY KEY,
            failures INTEGER NOT NULL,
            locked_until DOUBLE PRECISION NOT NULL,
            last_at DOUBLE PRECISION NOT NULL)""",
        "CREATE INDEX auth_failures_last ON auth_failures (last_at)",
    ],
]

SCHEMA_VERSION = len(MIGRATIONS)
