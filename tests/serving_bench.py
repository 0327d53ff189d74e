"""benchmarks/validate_serving.py loaded as a module once, for the tests that check its published rows."""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def validate_serving() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validate_serving", ROOT / "benchmarks" / "validate_serving.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
