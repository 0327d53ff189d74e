"""Rebuild validated pydantic models from their own JSON dump without validating again (a start-up saving).

    data = [spec.model_dump(mode="json", exclude_unset=True) for spec in validated]   # when the YAML was validated
    specs = [construct(GpuSpec, d) for d in data]                                     # a later start

`construct` follows each field's annotation: nested models are constructed the same way, JSON arrays become the
field's tuple or list, ISO strings become `datetime.date`, the rest is taken as it is; the fields set are those of
the dump, so `model_fields_set` and `==` match the validated object. It is only for data this program dumped from
objects it validated itself (the snapshot of :mod:`knowledge.catalog`, whose key is the hash of the data files and
whose payload carries its own digest): it never checks a value, and no schema is built (``defer_build``), which
is what makes it fast.
"""

from __future__ import annotations

import datetime as dt
import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)

_UNION = (typing.Union, types.UnionType)


def construct(schema: type[T], data: dict[str, Any]) -> T:
    """`schema` from `data` (a `model_dump(mode="json", exclude_unset=True)` of a validated instance)."""
    convert = _plan(schema)
    values = {name: (raw if (fn := convert[name]) is None or raw is None else fn(raw)) for name, raw in data.items()}
    return schema.model_construct(_fields_set=set(values), **values)


_PLANS: dict[type, dict[str, Any]] = {}


def _plan(schema: type[BaseModel]) -> dict[str, Any]:
    """field -> a converter of its JSON value, or None where the JSON value is the field's value (cached)."""
    plan = _PLANS.get(schema)
    if plan is None:
        plan = _PLANS[schema] = {name: _converter(info.annotation)
                                 for name, info in schema.__pydantic_fields__.items()}
    return plan


def _converter(annotation: Any) -> Any:
    if _is_plain(annotation):
        return None
    return lambda raw: _value(annotation, raw)


def _is_plain(annotation: Any) -> bool:
    """True when no part of `annotation` is a model, a date or a tuple (the JSON value is already right)."""
    if isinstance(annotation, type):
        return not (issubclass(annotation, BaseModel) or issubclass(annotation, (dt.date, tuple)))
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return False
    if origin in (*_UNION, list, dict, typing.Annotated):
        return all(_is_plain(a) for a in typing.get_args(annotation)[:1 if origin is typing.Annotated else None])
    return True  # Literal, Any


def _value(annotation: Any, raw: Any) -> Any:
    if raw is None:
        return None
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return construct(annotation, raw)
        if annotation is dt.date:
            return dt.date.fromisoformat(raw)
        if annotation is dt.datetime:
            return dt.datetime.fromisoformat(raw)
        return raw
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in _UNION:
        options = [a for a in args if a is not type(None)]
        return _value(options[0], raw) if len(options) == 1 else raw  # no model or date among the catalog's unions
    if origin is tuple:
        item = args[0] if args else Any
        return tuple(_value(item, v) for v in raw)
    if origin is list:
        return [_value(args[0] if args else Any, v) for v in raw]
    if origin is dict:
        return {k: _value(args[1] if args else Any, v) for k, v in raw.items()}
    return raw  # Literal, Any, an Annotated str or number
