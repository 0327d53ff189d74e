"""Strict JSON for `--json` output: never NaN or Infinity (which `json.dumps` writes by default and JSON forbids)."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

from knowledge.errors import AdvisorError


def dumps(data: Any, *, indent: int | None = 2) -> str:
    """`data` as strict JSON text; an AdvisorError (exit 2) when a value is not a finite number."""
    try:
        return json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError as exc:  # "Out of range float values are not JSON compliant"
        raise AdvisorError.from_key("errors.not_finite", detail=exc) from None


def write(data: Any, out: IO[str] | None = None) -> None:
    """Write `data` as strict, indented JSON to `out` (stdout)."""
    (out or sys.stdout).write(dumps(data))
