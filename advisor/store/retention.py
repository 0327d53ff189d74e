"""Retention: conversations idle longer than `GPU_ADVISOR_RETENTION_DAYS` (default 90) are deleted with their turns
and quotes — by servers at start and then daily (`start_retention`), or by `gpu-advisor history purge`."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Mapping

from advisor.store import open_store, retention_days
from advisor.store.errors import StoreUnavailable
from advisor.store.sql import SqlStore
from knowledge.errors import InputError

log = logging.getLogger("gpu_advisor.store")

PURGE_EVERY_S = 24 * 3600.0
_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def parse_age(text: str) -> float:
    """"30d", "12h", "45m", "90s" (or a bare number of days) -> seconds; InputError otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([dhms]?)\s*", text or "", re.IGNORECASE)
    if not m or float(m.group(1)) <= 0:
        raise InputError.from_key("errors.older_than", field="--older-than",
                                  accepted="a positive number with a unit: 30d (days), 12h (hours), 45m (minutes), 90s; "
                                           "a bare number is days", text=text)
    return float(m.group(1)) * _UNITS[(m.group(2) or "d").lower()]


def purge_now(store: SqlStore, days: float) -> dict[str, int]:
    counts = store.purge(days * 86400.0)
    if any(counts.values()):
        log.info("retention (%g days): deleted %s", days, counts)
    return counts


def start_retention(store: SqlStore, env: Mapping[str, str] | None = None) -> threading.Thread:
    """Purge now, then every PURGE_EVERY_S in a daemon thread; a database that is away is retried next time."""
    days = retention_days(env)

    def loop() -> None:
        while True:
            threading.Event().wait(PURGE_EVERY_S)
            try:
                purge_now(store, days)
            except StoreUnavailable as exc:
                log.warning("retention purge skipped: %s", exc)
            except Exception:  # noqa: BLE001 - a closed store at shutdown
                return

    purge_now(store, days)  # at start: a failure here is the start-up's failure
    thread = threading.Thread(target=loop, name="retention", daemon=True)
    thread.start()
    return thread


def open_server_store(env: Mapping[str, str] | None = None) -> SqlStore | None:
    """The configured store for a server (`advisor.store.open_store`), retention started; None for `memory`.
    Raises StoreError / StoreUnavailable (the CLI prints one line and exits 2) when it cannot be used."""
    store = open_store(env=env)
    if store is not None:
        start_retention(store, env=env)
    return store
