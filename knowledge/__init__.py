"""Cited knowledge: GPU and model catalogs, the guides' tables and claims, and the sources they cite.

Load with :func:`knowledge.catalog.load_catalog` (validated once, cached). Nothing is read at import time.
"""

import sys as _sys

if "msgspec" not in _sys.modules and "typing_extensions" not in _sys.modules:
    # msgspec reads typing_extensions when it is installed (pydantic brings it) though Python 3.11's typing has all
    # the core needs: loading it without saves ~10 ms of each CLI start (benchmarks/bench_startup.py). A later
    # import of typing_extensions (pydantic at the edges) works as usual.
    _sys.modules["typing_extensions"] = None  # type: ignore[assignment]
    try:
        import msgspec as _msgspec  # noqa: F401
    finally:
        del _sys.modules["typing_extensions"]
