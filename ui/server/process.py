"""Settings of a long-running server process (the web app, the combined server, each turn worker)."""

from __future__ import annotations

import logging
import math
import os
import sys
from collections.abc import Mapping

from knowledge.catalog import load_catalog
from rules.engine import engine

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

# Garbage-collector thresholds of the server process (CPython's default is (700, 10, 10)); see settle_process.
GC_THRESHOLDS = (20_000, 20, 20)
# How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms). A stored turn's SQL
# statements release the GIL and each waits up to one interval to take it back behind the threads rendering
# other turns; at 1 ms the store's p95 under the 50-conversation load came within 20 % of memory's in 17 of 20
# rounds (10 of 20 at 5 ms), at the same CPU per turn (docs/store.md, runs 18-21). GPU_ADVISOR_SWITCH_INTERVAL_MS
# overrides it.
SWITCH_INTERVAL_S = 0.001


def settle_process() -> None:
    """Prepare a long-running server process: load what every deterministic turn uses (the dialog, the catalog,
    the compiled rules) before the first user, then take it out of the garbage collector's way — `gc.freeze()`
    moves everything alive now to a generation no collection scans, and `GC_THRESHOLDS` make collections rarer.
    Measured under the 50-conversation burst (docs/performance.md): the collector was ~7 % of the server's CPU
    (perf), and these two cut CPU per turn by ~19 % (26.8 → 21.7 ms, same machine, alternating runs). Memory is
    still freed by reference counting; only cyclic garbage waits longer. Then the GIL's switch interval is
    shortened to `SWITCH_INTERVAL_S`, so a thread back from I/O (a store statement) waits less for it."""
    import gc

    try:
        load_catalog()
        engine()
    except Exception:
        log.exception("could not load the catalog or the rules before serving")
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    sys.setswitchinterval(switch_interval_s(os.environ))


def switch_interval_s(env: Mapping[str, str]) -> float:
    """`SWITCH_INTERVAL_S`, or GPU_ADVISOR_SWITCH_INTERVAL_MS (0.01–100 ms) when set; a bad value is logged and the
    default kept (a server starts either way)."""
    raw = env.get("GPU_ADVISOR_SWITCH_INTERVAL_MS")
    if raw is None:
        return SWITCH_INTERVAL_S
    try:
        ms = float(raw)
    except ValueError:
        ms = math.nan
    if not 0.01 <= ms <= 100:
        log.warning("GPU_ADVISOR_SWITCH_INTERVAL_MS=%r is not a number of milliseconds from 0.01 to 100; using %g ms",
                    raw, SWITCH_INTERVAL_S * 1e3)
        return SWITCH_INTERVAL_S
    return ms / 1e3
