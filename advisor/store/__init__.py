"""Persistence of conversations, turns, exported quotes and Slack event ids — the one package that talks to a
database. The rest of the program uses `open_store()` and the `Store` operations (`advisor.store.sql.SqlStore`).

Where (`GPU_ADVISOR_DATABASE_URL`):
- unset: an SQLite file, `advisor.db`, in the data directory (`GPU_ADVISOR_DATA_DIR`, else
  `$XDG_DATA_HOME/gpu-advisor`, else `~/.local/share/gpu-advisor`), created on first use;
- `sqlite:///relative/path.db` or `sqlite:////absolute/path.db`: that SQLite file;
- `postgresql://user:password@host:port/db` (or `postgres://…`, libpq's key=value form too): PostgreSQL, for
  several replicas;
- `memory`: nothing is stored (conversations live in process memory, as before this package existed).

Retention: `GPU_ADVISOR_RETENTION_DAYS` (default 90) — servers purge older conversations at start and daily;
`gpu-advisor history purge --older-than 30d` does it by hand. API keys and Slack tokens are never stored: what is
written is the conversation state, the questions, the answers and the structured results.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from advisor.store.errors import Conflict, StoreError, StoreUnavailable
from advisor.store.postgres import PostgresStore
from advisor.store.records import Commit, ConversationRecord, NewTurn, QuoteRecord, TurnRecord
from advisor.store.sql import SqlStore as Store
from advisor.store.sql import new_id
from advisor.store.sqlite import SqliteStore

__all__ = ["Commit", "Conflict", "ConversationRecord", "NewTurn", "QuoteRecord", "Store", "StoreError",
           "StoreUnavailable", "TurnRecord", "data_dir", "database_url", "new_id", "open_store", "retention_days"]

ENV_URL = "GPU_ADVISOR_DATABASE_URL"
ENV_DATA_DIR = "GPU_ADVISOR_DATA_DIR"
ENV_RETENTION = "GPU_ADVISOR_RETENTION_DAYS"
DEFAULT_RETENTION_DAYS = 90
DB_FILE = "advisor.db"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get(ENV_DATA_DIR, "").strip():
        return Path(env[ENV_DATA_DIR].strip()).expanduser()
    base = env.get("XDG_DATA_HOME", "").strip() or str(Path.home() / ".local" / "share")
    return Path(base) / "gpu-advisor"


def database_url(env: Mapping[str, str] | None = None) -> str:
    """The configured URL, or the default SQLite file's."""
    env = os.environ if env is None else env
    url = env.get(ENV_URL, "").strip()
    return url or f"sqlite:///{data_dir(env) / DB_FILE}"


def retention_days(env: Mapping[str, str] | None = None) -> float:
    env = os.environ if env is None else env
    raw = env.get(ENV_RETENTION, "").strip()
    if not raw:
        return float(DEFAULT_RETENTION_DAYS)
    try:
        days = float(raw)
    except ValueError:
        days = -1.0
    if not days > 0:
        raise StoreError(f"{ENV_RETENTION}={raw!r} is not a positive number of days", field=ENV_RETENTION,
                         accepted="a number of days, e.g. 90")
    return days


def open_store(url: str | None = None, env: Mapping[str, str] | None = None, *, migrate: bool = True) -> Store | None:
    """The store `url` (default: `database_url(env)`) names, its schema migrated; None for `memory`.

    Raises StoreError for a URL it does not understand or a schema newer than this program, StoreUnavailable when
    the database cannot be reached — each with one line that names the URL (password hidden)."""
    url = (url or database_url(env)).strip()
    lowered = url.lower()
    store: Store
    if lowered in ("memory", "none", "off"):
        return None
    if lowered.startswith(("postgresql://", "postgres://")) or ("dbname=" in lowered and "://" not in lowered):
        store = PostgresStore(url)
    elif lowered.startswith("sqlite:///"):
        store = SqliteStore(url[len("sqlite:///"):])
    else:
        raise StoreError(f"{ENV_URL}={url!r} is not a database URL", field=ENV_URL,
                         accepted="postgresql://user:password@host/db, sqlite:///path/to/file.db or memory")
    if migrate:
        try:
            store.migrate()
        except BaseException:
            store.close()
            raise
    return store
