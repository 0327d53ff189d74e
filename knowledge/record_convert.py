"""The validation under :mod:`knowledge.record`: field constraints (`Field`, `Bounds`, `Finite`, `Pattern`,
`Length`), `RecordError` with pydantic's error types and wording, and the lax-mode converter of each annotation
(`converter`), which nested records reach through `RecordBase`. See knowledge/record.py for what a record is."""

from __future__ import annotations

import datetime as dt
import math
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any

MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "<required>"})()  # no default
UNION = (typing.Union, types.UnionType)


# ----------------------------------------------------------------------------------------------------------------
# constraints (plain classes: a dataclass costs ~1 ms of generated code at import, which is what this module saves)


class _Marker:
    __slots__: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __hash__(self) -> int:
        return hash((type(self), *(getattr(self, k) for k in self.__slots__)))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={getattr(self, k)!r}' for k in self.__slots__)})"


class Bounds(_Marker):
    """Numeric limits of a field (any may be None); read by the CLI's option types through ``metadata``."""

    __slots__ = ("ge", "gt", "le", "lt")

    def __init__(self, ge: float | None = None, gt: float | None = None, le: float | None = None,
                 lt: float | None = None) -> None:
        self.ge, self.gt, self.le, self.lt = ge, gt, le, lt


class Finite(_Marker):
    """The value must be a finite number (pydantic's ``allow_inf_nan=False``)."""

    __slots__ = ()


class Pattern(_Marker):
    """A string field must match `regex` (``re.search``, as pydantic)."""

    __slots__ = ("regex",)

    def __init__(self, regex: str) -> None:
        self.regex = regex


class Length(_Marker):
    """Least and most items of a list or characters of a string."""

    __slots__ = ("min_length", "max_length")  # noqa: RUF023 - the order of repr and equality

    def __init__(self, min_length: int | None = None, max_length: int | None = None) -> None:
        self.min_length, self.max_length = min_length, max_length


PositiveInt = Annotated[int, Bounds(gt=0)]
NonNegativeInt = Annotated[int, Bounds(ge=0)]
PositiveFloat = Annotated[float, Bounds(gt=0)]
NonNegativeFloat = Annotated[float, Bounds(ge=0)]


class FieldDef:
    """What :func:`Field` returns: replaced by the default (or removed) on the class that declares it."""

    __slots__ = ("constraints", "default", "default_factory", "description")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, constraints: tuple[object, ...],
                 description: str) -> None:
        self.default, self.default_factory = default, default_factory
        self.constraints, self.description = constraints, description


def Field(default: Any = MISSING, *, default_factory: Callable[[], Any] | None = None,  # named like pydantic's
          ge: float | None = None, gt: float | None = None, le: float | None = None, lt: float | None = None,
          allow_inf_nan: bool = True, pattern: str | None = None, min_length: int | None = None,
          max_length: int | None = None, description: str = "") -> Any:
    """A record field with a default (or a factory), limits and a description (pydantic's ``Field`` arguments)."""
    meta: list[object] = []
    if (ge, gt, le, lt) != (None, None, None, None):
        meta.append(Bounds(ge=ge, gt=gt, le=le, lt=lt))
    if not allow_inf_nan:
        meta.append(Finite())
    if pattern is not None:
        meta.append(Pattern(pattern))
    if (min_length, max_length) != (None, None):
        meta.append(Length(min_length, max_length))
    return FieldDef(default, default_factory, tuple(meta), description)


# ----------------------------------------------------------------------------------------------------------------
# errors


class RecordError(ValueError):
    """Invalid input for a record: pydantic's ``ValidationError`` interface (``errors()``, ``error_count()``,
    ``title``) and text, so the same handlers format both."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title = title
        self._errors = errors
        super().__init__(title)  # the text is built when shown: the recommender rejects many layouts unseen

    def errors(self, *, include_url: bool = False, include_context: bool = True,
               include_input: bool = True) -> list[dict[str, Any]]:
        return [dict(e) if include_input else {k: v for k, v in e.items() if k != "input"} for e in self._errors]

    def error_count(self) -> int:
        return len(self._errors)

    def _text(self) -> str:
        n = len(self._errors)
        lines = [f"{n} validation error{'s' if n != 1 else ''} for {self.title}"]
        for e in self._errors:
            lines.append(".".join(str(p) for p in e["loc"]) or self.title)
            lines.append(f"  {e['msg']} [type={e['type']}, input_value={e['input']!r}, "
                         f"input_type={type(e['input']).__name__}]")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self._text()


class Invalid(Exception):
    """One invalid value: pydantic's error type and message, and the location below the field."""

    def __init__(self, kind: str, msg: str, value: Any, loc: tuple[Any, ...] = (),
                 ctx: dict[str, Any] | None = None) -> None:
        self.kind, self.msg, self.value, self.loc, self.ctx = kind, msg, value, loc, ctx


def _number(x: float) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


# ----------------------------------------------------------------------------------------------------------------
# converters: annotation -> function(value) -> value, raising Invalid (pydantic's lax mode for these types)

Converter = Callable[[Any], Any]


def _to_int(v: Any) -> int:
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise Invalid("finite_number", "Input should be a finite number", v)
        if not v.is_integer():
            raise Invalid("int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
        return int(v)
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            raise Invalid("int_parsing", "Input should be a valid integer, unable to parse string as an integer",
                       v) from None
    raise Invalid("int_type", "Input should be a valid integer", v)


def _to_float(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            raise Invalid("float_parsing", "Input should be a valid number, unable to parse string as a number",
                       v) from None
    raise Invalid("float_type", "Input should be a valid number", v)


_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})


def _to_bool(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.strip().lower() in _TRUE | _FALSE:
        return v.strip().lower() in _TRUE
    if isinstance(v, (int, str)):
        raise Invalid("bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
    raise Invalid("bool_type", "Input should be a valid boolean", v)


def _to_str(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise Invalid("string_type", "Input should be a valid string", v)


def _to_date(v: Any) -> dt.date:
    if isinstance(v, dt.datetime):
        if v.time() != dt.time(0):
            raise Invalid("date_from_datetime_inexact", "Datetimes provided to dates should have zero time", v)
        return v.date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        try:
            return dt.date.fromisoformat(v.strip())
        except ValueError:
            detail = "input is too short" if len(v.strip()) < 10 else "invalid date"  # pydantic names the flaw
            raise Invalid("date_from_datetime_parsing", f"Input should be a valid date or datetime, {detail}",
                       v) from None
    raise Invalid("date_type", "Input should be a valid date", v)


def _to_datetime(v: Any) -> dt.datetime:
    if isinstance(v, dt.datetime):
        return v
    if isinstance(v, str):
        try:
            return dt.datetime.fromisoformat(v.strip())
        except ValueError:
            raise Invalid("datetime_parsing", "Input should be a valid datetime", v) from None
    raise Invalid("datetime_type", "Input should be a valid datetime", v)


_SCALARS: dict[Any, Converter] = {int: _to_int, float: _to_float, bool: _to_bool, str: _to_str,
                                  dt.date: _to_date, dt.datetime: _to_datetime}
_EXACT: dict[Converter, type] = {_to_int: int, _to_float: float, _to_bool: bool, _to_str: str}  # value kept as is


def _constrained(inner: Converter, constraints: tuple[object, ...]) -> Converter:
    checks: list[Callable[[Any], None]] = []
    for c in sorted(constraints, key=lambda c: not isinstance(c, Finite)):  # finiteness first, as pydantic
        if isinstance(c, Bounds):
            checks.append(_bounds_check(c))
        elif isinstance(c, Finite):
            checks.append(_finite_check)
        elif isinstance(c, Pattern):
            checks.append(_pattern_check(c.regex))
        elif isinstance(c, Length):
            checks.append(_length_check(c))
    if not checks:
        return inner
    plain = _EXACT.get(inner)
    if plain is not None and len(checks) == 1:  # the common case: one limit on a plain number
        check = checks[0]

        def convert_one(v: Any) -> Any:
            out = v if type(v) is plain else inner(v)
            check(out)
            return out
        return convert_one

    def convert(v: Any) -> Any:
        out = v if type(v) is plain else inner(v)
        if out is not None:
            for check in checks:
                check(out)
        return out
    return convert


def _finite_check(v: Any) -> None:
    if isinstance(v, float) and not math.isfinite(v):
        raise Invalid("finite_number", "Input should be a finite number", v)


def _bounds_check(b: Bounds) -> Callable[[Any], None]:
    """pydantic-core's order: le, lt, ge, gt (what a NaN is reported as)."""
    def check(v: Any) -> None:
        if b.le is not None and not v <= b.le:
            raise Invalid("less_than_equal", f"Input should be less than or equal to {_number(b.le)}", v,
                       ctx={"le": b.le})
        if b.lt is not None and not v < b.lt:
            raise Invalid("less_than", f"Input should be less than {_number(b.lt)}", v, ctx={"lt": b.lt})
        if b.ge is not None and not v >= b.ge:
            raise Invalid("greater_than_equal", f"Input should be greater than or equal to {_number(b.ge)}", v,
                       ctx={"ge": b.ge})
        if b.gt is not None and not v > b.gt:
            raise Invalid("greater_than", f"Input should be greater than {_number(b.gt)}", v, ctx={"gt": b.gt})
    return check


def _pattern_check(regex: str) -> Callable[[Any], None]:
    compiled = re.compile(regex)

    def check(v: Any) -> None:
        if not compiled.search(v):
            raise Invalid("string_pattern_mismatch", f"String should match pattern '{regex}'", v)
    return check


def _length_check(c: Length) -> Callable[[Any], None]:
    def check(v: Any) -> None:
        text = isinstance(v, str)
        unit = "character" if text else "item"
        what = "String" if text else type(v).__name__.capitalize()
        tail = "" if text else " after validation"
        if c.min_length is not None and len(v) < c.min_length:
            raise Invalid("string_too_short" if text else "too_short", f"{what} should have at least {c.min_length} "
                       f"{unit}{'s' if c.min_length != 1 else ''}{tail}" + ("" if text else f", not {len(v)}"), v)
        if c.max_length is not None and len(v) > c.max_length:
            raise Invalid("string_too_long" if text else "too_long", f"{what} should have at most {c.max_length} "
                       f"{unit}{'s' if c.max_length != 1 else ''}{tail}" + ("" if text else f", not {len(v)}"), v)
    return check


def _literal(options: tuple[Any, ...]) -> Converter:
    allowed = frozenset(options)
    shown = [repr(o) if isinstance(o, str) else str(o) for o in options]
    expected = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
    msg = f"Input should be {expected}"

    def convert(v: Any) -> Any:
        try:
            known = v in allowed
        except TypeError:  # unhashable
            known = False
        if known and (not isinstance(v, bool) or any(o is v for o in options)):  # True is not the literal 1
            return v
        raise Invalid("literal_error", msg, v, ctx={"expected": expected})
    return convert


def _union(members: tuple[Any, ...]) -> Converter:
    optional = type(None) in members
    converters = [(m, converter(m)) for m in members if m is not type(None)]

    def convert(v: Any) -> Any:
        if v is None:
            if optional:
                return None
            raise Invalid(*_none_error(converters[0][0]), v)
        for member, _ in converters:  # an exact type match first (pydantic's "smart" unions)
            if isinstance(member, type) and type(v) is member:
                return v
        first: Invalid | None = None
        for _, conv in converters:
            try:
                return conv(v)
            except Invalid as bad:
                first = first or bad
        assert first is not None
        raise first
    return convert


def _none_error(annotation: Any) -> tuple[str, str]:
    names = {int: ("int_type", "Input should be a valid integer"), float: ("float_type", "Input should be a valid number"),
             str: ("string_type", "Input should be a valid string"), bool: ("bool_type", "Input should be a valid boolean")}
    return names.get(annotation, ("none_forbidden", "Input should not be None"))


def _sequence(kind: type, item: Converter, name: str) -> Converter:
    plain = _EXACT.get(item)  # items of a plain type: taken as they are when every one has it

    def convert(v: Any) -> Any:
        if isinstance(v, (str, bytes, dict)) or not isinstance(v, (list, tuple, set, frozenset)):
            raise Invalid(f"{name}_type", f"Input should be a valid {name}", v)
        if plain is not None and all(type(x) is plain for x in v):
            return kind(v)
        out = []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except Invalid as bad:
                raise Invalid(bad.kind, bad.msg, bad.value, (i, *bad.loc), bad.ctx) from None
        return kind(out)
    return convert


def _fixed_tuple(items: list[Converter]) -> Converter:
    def convert(v: Any) -> Any:
        if not isinstance(v, (list, tuple)):
            raise Invalid("tuple_type", "Input should be a valid tuple", v)
        if len(v) > len(items):
            raise Invalid("too_long", f"Tuple should have at most {len(items)} items after validation, not {len(v)}",
                       v, ctx={"max_length": len(items)})
        if len(v) < len(items):
            raise Invalid("missing", "Field required", v, (len(v),))
        return tuple(conv(x) for conv, x in zip(items, v, strict=True))
    return convert


def _mapping(key: Converter, value: Converter) -> Converter:
    def convert(v: Any) -> Any:
        if not isinstance(v, dict):
            raise Invalid("dict_type", "Input should be a valid dictionary", v)
        out = {}
        for k, x in v.items():
            try:
                out[key(k)] = value(x)
            except Invalid as bad:
                raise Invalid(bad.kind, bad.msg, bad.value, (k, *bad.loc), bad.ctx) from None
        return out
    return convert


class RecordBase:
    """What the converters need of a record class (knowledge.record.Record derives from it): `model_validate`."""

    @classmethod
    def model_validate(cls, data: Any) -> Any:
        raise NotImplementedError


def _nested(cls: type[RecordBase]) -> Converter:
    def convert(v: Any) -> Any:
        if isinstance(v, cls):
            return v
        if isinstance(v, dict):
            try:
                return cls.model_validate(v)
            except RecordError as exc:
                first = exc.errors()[0]
                raise Invalid(first["type"], first["msg"], first["input"], tuple(first["loc"]),
                           first.get("ctx")) from None
        raise Invalid("model_type", f"Input should be a valid dictionary or instance of {cls.__name__}", v)
    return convert


def _identity(v: Any) -> Any:
    return v


def converter(annotation: Any, constraints: tuple[object, ...] = ()) -> Converter:
    """The lax-mode conversion and check of one annotation (TypeError for a type this module does not handle)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return converter(args[0], constraints + tuple(args[1:]))
    if annotation is Any or annotation is object:
        base: Converter = _identity
    elif isinstance(annotation, type) and issubclass(annotation, RecordBase):
        base = _nested(annotation)
    elif annotation in _SCALARS:
        base = _SCALARS[annotation]
    elif origin is typing.Literal:
        base = _literal(args)
    elif origin in UNION:
        base = _union(args)
    elif origin is tuple:
        base = (_sequence(tuple, converter(args[0]), "tuple") if len(args) == 2 and args[1] is Ellipsis
                else _fixed_tuple([converter(a) for a in args]))
    elif origin in (list, set, frozenset):
        base = _sequence(origin, converter(args[0]) if args else _identity, origin.__name__ if origin is list else "set")
    elif origin is dict:
        base = _mapping(converter(args[0]) if args else _identity, converter(args[1]) if args else _identity)
    else:
        raise TypeError(f"knowledge.record cannot validate fields of type {annotation!r}")
    return _constrained(base, constraints)
