"""Rebuild validated records (knowledge.record) from their own JSON dump without validating again (a start-up saving).

    data = [spec.model_dump(mode="json", exclude_unset=True) for spec in validated]   # when the YAML was validated
    specs = [construct(GpuSpec, d) for d in data]                                     # a later start

`construct` follows each field's annotation: nested models are constructed the same way, JSON arrays become the
field's tuple or list, ISO strings become `datetime.date`, string keys of a `dict[int, …]` become ints, the rest
is taken as it is; the fields set are those of
the dump, so `model_fields_set` and `==` match the validated object. It is only for data this program dumped from
objects it validated itself (the snapshot of :mod:`knowledge.catalog`, whose key is the hash of the data files and
whose payload carries its own digest): it never checks a value, which is what makes it fast.
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from pathlib import Path
from typing import Any, TypeVar

from knowledge.record import Record

R = TypeVar("R", bound=Record)

# how a snapshot is read back: part of every snapshot's key, with the data files and the module validating them
READER_FILES = (Path(__file__).resolve(), Path(__file__).resolve().parent / "record.py")

_UNION = (typing.Union, types.UnionType)


def construct(schema: type[R], data: dict[str, Any]) -> R:
    """`schema` from `data` (a `model_dump(mode="json", exclude_unset=True)` of a validated instance)."""
    convert = _plan(schema)
    values = {name: (raw if (fn := convert[name]) is None or raw is None else fn(raw)) for name, raw in data.items()}
    return schema.model_construct(_fields_set=set(values), **values)


def dump(record: Record) -> dict[str, Any]:
    """What :func:`construct` takes back: the fields set on `record`, as JSON data."""
    return record.model_dump(mode="json", exclude_unset=True)


_PLANS: dict[type, dict[str, Any]] = {}


def _plan(schema: type[Record]) -> dict[str, Any]:
    """field -> a converter of its JSON value, or None where the JSON value is the field's value (cached)."""
    plan = _PLANS.get(schema)
    if plan is None:
        plan = _PLANS[schema] = {name: _converter(info.annotation)
                                 for name, info in schema.model_fields.items()}
    return plan


def _converter(annotation: Any) -> Any:
    return None if _is_plain(annotation) else (lambda raw: _value(annotation, raw))


_PLAIN = (str, int, float, bool, type(None))


def _is_plain(annotation: Any) -> bool:
    """True when the JSON value is already the field's value: str, int, float, bool, Literal and Any, and lists,
    string-keyed dicts, unions and Annotated of those."""
    if isinstance(annotation, type):
        return annotation in _PLAIN
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal or annotation is Any:
        return True
    if origin is dict:
        return args[:1] in ((), (str,)) and all(map(_is_plain, args[1:]))
    if origin in (*_UNION, list):
        return all(map(_is_plain, args))
    if origin is typing.Annotated:
        return _is_plain(args[0])
    return False


def _value(annotation: Any, raw: Any) -> Any:
    """The field value of JSON `raw` for `annotation`; TypeError for a type this module does not handle (the
    caller then loads the data the validating way)."""
    if raw is None or _is_plain(annotation):
        return raw
    if isinstance(annotation, type):
        if issubclass(annotation, Record):
            return construct(annotation, raw)
        if annotation in (dt.date, dt.datetime):
            return annotation.fromisoformat(raw)
        raise TypeError(f"no JSON reading for {annotation}")
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in _UNION:
        options = [a for a in args if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"cannot tell which member of {annotation} a JSON value is")
        return _value(options[0], raw)
    if origin is typing.Annotated:
        return _value(args[0], raw)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_value(args[0], v) for v in raw)
        return tuple(_value(a, v) for a, v in zip(args, raw, strict=True))
    if origin in (list, set, frozenset):
        return origin(_value(args[0] if args else Any, v) for v in raw)
    if origin is dict:
        key = args[0] if args else str
        keys = key if key in (int, float) else (lambda k: k)  # JSON keys are strings
        if not (key in (int, float, str, Any) or typing.get_origin(key) is typing.Literal):
            raise TypeError(f"no JSON reading for keys of {annotation}")
        return {keys(k): _value(args[1] if args else Any, v) for k, v in raw.items()}
    raise TypeError(f"no JSON reading for {annotation}")
