"""Rebuild checked structs (knowledge.structs) from their own JSON dump without running their checks again (a
start-up saving).

    data = [dump(spec) for spec in validated]          # when the YAML was validated
    specs = [construct(GpuSpec, d) for d in data]      # a later start

msgspec converts the JSON types back (arrays to tuples, ISO strings to dates, string keys to ints); the
cross-field checks and the lax re-conversion of a hand-built struct are skipped. Only for data this program dumped
from objects it validated itself (the snapshot of :mod:`knowledge.catalog`, whose key is the hash of the data files
and whose payload carries its own digest).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import msgspec

from knowledge import structs

S = TypeVar("S", bound=msgspec.Struct)

# how a snapshot is read back: part of every snapshot's key, with the data files and the module validating them
READER_FILES = (Path(__file__).resolve(), Path(structs.__file__).resolve())


def construct(schema: type[S], data: dict[str, Any]) -> S:
    """`schema` from `data` (a :func:`dump` of a checked instance)."""
    return structs.construct_trusted(schema, data)


def dump(record: msgspec.Struct) -> dict[str, Any]:
    """What :func:`construct` takes back: the fields as JSON data."""
    out: dict[str, Any] = structs.dump(record, json=True)
    return out
