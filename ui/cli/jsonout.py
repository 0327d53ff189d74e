"""Strict JSON for `--json` output: never NaN or Infinity (which `json.dumps` writes by default and JSON forbids)."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import msgspec

from knowledge.errors import AdvisorError


def dumps(data: Any, *, indent: int | None = 2) -> str:
    """`data` as strict JSON text; an AdvisorError (exit 2) when a value is not a finite number.

    Indented text is `json`'s compact text laid out by `msgspec.json.format`, which moves whitespace only (numbers
    and strings stay as `json` wrote them): the same bytes as `json.dumps(indent=...)`, whose indenting encoder is
    pure Python (≈ 1.7 → 0.8 ms for `recommend --json`'s 97 KB)."""
    try:
        if indent is None:
            return json.dumps(data, ensure_ascii=False, allow_nan=False)
        compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:  # "Out of range float values are not JSON compliant"
        raise AdvisorError.from_key("errors.not_finite", detail=exc) from None
    return msgspec.json.format(compact, indent=indent)


def write(data: Any, out: IO[str] | None = None) -> None:
    """Write `data` as strict, indented JSON to `out` (stdout)."""
    (out or sys.stdout).write(dumps(data))
