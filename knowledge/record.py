"""Frozen, validated records: the typed data of the core, without importing pydantic.

Every `gpu-advisor` call is a new process, and importing pydantic (~70 ms) and building the schemas of the
catalog, workload and result classes (~90 ms) was most of a scriptable command's start-up (issue 18). The classes
the estimator and the catalog share therefore subclass :class:`Record`, which gives them

* fields declared as annotations: keyword-only, frozen, compared by value. No code is generated per class
  (a dataclass's generated methods cost about a millisecond a class at import). Constraints with :func:`Field`
  (``ge``/``gt``/``le``/``lt``, ``allow_inf_nan``, ``pattern``, ``min_length``/``max_length``) or the
  ``Annotated`` aliases below (``PositiveInt`` …);
* validation on construction that follows pydantic's lax mode for the types used here (int/float/bool/str,
  ``Literal``, optional and other unions, tuples, lists, sets, dicts, dates, nested records), with pydantic's
  error types and wording (``Input should be greater than or equal to 1``) in :class:`RecordError`, a
  ``ValueError`` with the same ``errors()`` / ``error_count()`` as pydantic's ``ValidationError``;
* the part of pydantic's ``BaseModel`` API the project calls: ``model_validate``, ``model_copy(update=…)``
  (no validation, as in pydantic), ``model_dump(mode=…, include=…, exclude=…, exclude_none=…,
  exclude_unset=…)``, ``model_dump_json``, ``model_fields`` and ``model_fields_set``, ``model_construct``;
* cross-field checks in ``check_invariants(self)`` (raise ``ValueError``; reported as pydantic's ``value_error``)
  and input normalisation in the classmethod ``prepare(values)`` (pydantic's ``mode="before"`` validator).

Conformance with pydantic is tested field type by field type against a pydantic model built from the same
record (:mod:`knowledge.record_pydantic`, which the LLM tools and the HTTP API use for their argument schemas).
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
import math
import re
import sys
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, TypeVar, dataclass_transform

R = TypeVar("R", bound="Record")
_T = TypeVar("_T")
_MISSING: Any = type("_Missing", (), {"__repr__": lambda self: "<required>"})()  # no default
_UNION = (typing.Union, types.UnionType)


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


class _FieldDef:
    """What :func:`Field` returns: replaced by the default (or removed) on the class that declares it."""

    __slots__ = ("constraints", "default", "default_factory", "description")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None, constraints: tuple[object, ...],
                 description: str) -> None:
        self.default, self.default_factory = default, default_factory
        self.constraints, self.description = constraints, description


def Field(default: Any = _MISSING, *, default_factory: Callable[[], Any] | None = None,  # named like pydantic's
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
    return _FieldDef(default, default_factory, tuple(meta), description)


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


class _Bad(Exception):
    """One invalid value: pydantic's error type and message, and the location below the field."""

    def __init__(self, kind: str, msg: str, value: Any, loc: tuple[Any, ...] = (),
                 ctx: dict[str, Any] | None = None) -> None:
        self.kind, self.msg, self.value, self.loc, self.ctx = kind, msg, value, loc, ctx


def _number(x: float) -> str:
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


# ----------------------------------------------------------------------------------------------------------------
# converters: annotation -> function(value) -> value, raising _Bad (pydantic's lax mode for these types)

Converter = Callable[[Any], Any]


def _to_int(v: Any) -> int:
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise _Bad("finite_number", "Input should be a finite number", v)
        if not v.is_integer():
            raise _Bad("int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
        return int(v)
    if isinstance(v, str):
        try:
            return int(v.strip())
        except ValueError:
            raise _Bad("int_parsing", "Input should be a valid integer, unable to parse string as an integer",
                       v) from None
    raise _Bad("int_type", "Input should be a valid integer", v)


def _to_float(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            raise _Bad("float_parsing", "Input should be a valid number, unable to parse string as a number",
                       v) from None
    raise _Bad("float_type", "Input should be a valid number", v)


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
        raise _Bad("bool_parsing", "Input should be a valid boolean, unable to interpret input", v)
    raise _Bad("bool_type", "Input should be a valid boolean", v)


def _to_str(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise _Bad("string_type", "Input should be a valid string", v)


def _to_date(v: Any) -> dt.date:
    if isinstance(v, dt.datetime):
        if v.time() != dt.time(0):
            raise _Bad("date_from_datetime_inexact", "Datetimes provided to dates should have zero time", v)
        return v.date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        try:
            return dt.date.fromisoformat(v.strip())
        except ValueError:
            detail = "input is too short" if len(v.strip()) < 10 else "invalid date"  # pydantic names the flaw
            raise _Bad("date_from_datetime_parsing", f"Input should be a valid date or datetime, {detail}",
                       v) from None
    raise _Bad("date_type", "Input should be a valid date", v)


def _to_datetime(v: Any) -> dt.datetime:
    if isinstance(v, dt.datetime):
        return v
    if isinstance(v, str):
        try:
            return dt.datetime.fromisoformat(v.strip())
        except ValueError:
            raise _Bad("datetime_parsing", "Input should be a valid datetime", v) from None
    raise _Bad("datetime_type", "Input should be a valid datetime", v)


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
        raise _Bad("finite_number", "Input should be a finite number", v)


def _bounds_check(b: Bounds) -> Callable[[Any], None]:
    """pydantic-core's order: le, lt, ge, gt (what a NaN is reported as)."""
    def check(v: Any) -> None:
        if b.le is not None and not v <= b.le:
            raise _Bad("less_than_equal", f"Input should be less than or equal to {_number(b.le)}", v,
                       ctx={"le": b.le})
        if b.lt is not None and not v < b.lt:
            raise _Bad("less_than", f"Input should be less than {_number(b.lt)}", v, ctx={"lt": b.lt})
        if b.ge is not None and not v >= b.ge:
            raise _Bad("greater_than_equal", f"Input should be greater than or equal to {_number(b.ge)}", v,
                       ctx={"ge": b.ge})
        if b.gt is not None and not v > b.gt:
            raise _Bad("greater_than", f"Input should be greater than {_number(b.gt)}", v, ctx={"gt": b.gt})
    return check


def _pattern_check(regex: str) -> Callable[[Any], None]:
    compiled = re.compile(regex)

    def check(v: Any) -> None:
        if not compiled.search(v):
            raise _Bad("string_pattern_mismatch", f"String should match pattern '{regex}'", v)
    return check


def _length_check(c: Length) -> Callable[[Any], None]:
    def check(v: Any) -> None:
        text = isinstance(v, str)
        unit = "character" if text else "item"
        what = "String" if text else type(v).__name__.capitalize()
        tail = "" if text else " after validation"
        if c.min_length is not None and len(v) < c.min_length:
            raise _Bad("string_too_short" if text else "too_short", f"{what} should have at least {c.min_length} "
                       f"{unit}{'s' if c.min_length != 1 else ''}{tail}" + ("" if text else f", not {len(v)}"), v)
        if c.max_length is not None and len(v) > c.max_length:
            raise _Bad("string_too_long" if text else "too_long", f"{what} should have at most {c.max_length} "
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
        raise _Bad("literal_error", msg, v, ctx={"expected": expected})
    return convert


def _union(members: tuple[Any, ...]) -> Converter:
    optional = type(None) in members
    converters = [(m, converter(m)) for m in members if m is not type(None)]

    def convert(v: Any) -> Any:
        if v is None:
            if optional:
                return None
            raise _Bad(*_none_error(converters[0][0]), v)
        for member, _ in converters:  # an exact type match first (pydantic's "smart" unions)
            if isinstance(member, type) and type(v) is member:
                return v
        first: _Bad | None = None
        for _, conv in converters:
            try:
                return conv(v)
            except _Bad as bad:
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
            raise _Bad(f"{name}_type", f"Input should be a valid {name}", v)
        if plain is not None and all(type(x) is plain for x in v):
            return kind(v)
        out = []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except _Bad as bad:
                raise _Bad(bad.kind, bad.msg, bad.value, (i, *bad.loc), bad.ctx) from None
        return kind(out)
    return convert


def _fixed_tuple(items: list[Converter]) -> Converter:
    def convert(v: Any) -> Any:
        if not isinstance(v, (list, tuple)):
            raise _Bad("tuple_type", "Input should be a valid tuple", v)
        if len(v) > len(items):
            raise _Bad("too_long", f"Tuple should have at most {len(items)} items after validation, not {len(v)}",
                       v, ctx={"max_length": len(items)})
        if len(v) < len(items):
            raise _Bad("missing", "Field required", v, (len(v),))
        return tuple(conv(x) for conv, x in zip(items, v, strict=True))
    return convert


def _mapping(key: Converter, value: Converter) -> Converter:
    def convert(v: Any) -> Any:
        if not isinstance(v, dict):
            raise _Bad("dict_type", "Input should be a valid dictionary", v)
        out = {}
        for k, x in v.items():
            try:
                out[key(k)] = value(x)
            except _Bad as bad:
                raise _Bad(bad.kind, bad.msg, bad.value, (k, *bad.loc), bad.ctx) from None
        return out
    return convert


def _nested(cls: type[Record]) -> Converter:
    def convert(v: Any) -> Any:
        if isinstance(v, cls):
            return v
        if isinstance(v, dict):
            try:
                return cls.model_validate(v)
            except RecordError as exc:
                first = exc.errors()[0]
                raise _Bad(first["type"], first["msg"], first["input"], tuple(first["loc"]),
                           first.get("ctx")) from None
        raise _Bad("model_type", f"Input should be a valid dictionary or instance of {cls.__name__}", v)
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
    elif isinstance(annotation, type) and issubclass(annotation, Record):
        base = _nested(annotation)
    elif annotation in _SCALARS:
        base = _SCALARS[annotation]
    elif origin is typing.Literal:
        base = _literal(args)
    elif origin in _UNION:
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


# ----------------------------------------------------------------------------------------------------------------
# per-class plan (built on first use: reading the type hints costs a few µs a field)


class FieldSpec:
    """What pydantic's ``FieldInfo`` told callers: the type, the default, the limits and the description."""

    __slots__ = ("annotation", "default", "default_factory", "description", "metadata", "name")

    def __init__(self, name: str, annotation: Any, default: Any, default_factory: Callable[[], Any] | None,
                 metadata: tuple[object, ...], description: str) -> None:
        self.name, self.annotation, self.default, self.default_factory = name, annotation, default, default_factory
        # the constraint markers (Bounds, Finite, Pattern, Length), typed as pydantic's FieldInfo.metadata (Any):
        # callers read their limits by name, as they did from pydantic's
        self.metadata: tuple[Any, ...] = metadata
        self.description = description

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def get_default(self) -> Any:
        return self.default_factory() if self.default_factory is not None else self.default

    def __repr__(self) -> str:
        return f"FieldSpec({self.name!r}, {self.annotation!r}, default={self.default!r})"


class _Plan:
    """A record class's fields in order, each with its converter; whether it has its own `prepare`/checks."""

    __slots__ = ("check", "fields", "floats", "prepare", "steps")

    def __init__(self, fields: dict[str, FieldSpec],
                 steps: tuple[tuple[str, Converter, FieldSpec, frozenset[type]], ...], prepare: bool,
                 check: bool, floats: frozenset[str]) -> None:
        self.fields, self.steps, self.prepare, self.check = fields, steps, prepare, check
        # fields that hold a float (alone or with None): an int put there unvalidated (a default, model_copy) is
        # stored as a float, as pydantic would serialise it
        self.floats = floats


def _plan(cls: type[Record]) -> _Plan:
    plan = cls.__dict__.get("_record_plan")
    if plan is None:
        hints = _hints(cls)
        fields: dict[str, FieldSpec] = {}
        steps = []
        floats = set()
        for name, fd in cls._record_defs.items():
            hint = hints[name]
            bare, annotated = hint, ()
            if typing.get_origin(hint) is Annotated:
                bare, *rest = typing.get_args(hint)
                annotated = tuple(rest)
            spec = FieldSpec(name, bare, fd.default, fd.default_factory, annotated + fd.constraints, fd.description)
            if _float_field(spec):
                floats.add(name)
                if type(fd.default) is int:  # `x: float = 0` holds 0.0
                    spec.default = float(fd.default)
            fields[name] = spec
            steps.append((name, converter(hint, fd.constraints), spec, _exact_types(hint, fd.constraints)))
        plan = _Plan(fields, tuple(steps), cls.prepare.__func__ is not Record.prepare.__func__,  # type: ignore[attr-defined]
                     cls.check_invariants is not Record.check_invariants, frozenset(floats))
        type.__setattr__(cls, "_record_plan", plan)
    return plan


def _float_field(spec: FieldSpec) -> bool:
    members = typing.get_args(spec.annotation) if typing.get_origin(spec.annotation) in _UNION else (spec.annotation,)
    bare = {typing.get_args(m)[0] if typing.get_origin(m) is Annotated else m for m in members} - {type(None)}
    return bare == {float}


def _exact_types(hint: Any, constraints: tuple[object, ...]) -> frozenset[type]:
    """Types whose values a field takes as they are, with no conversion or check: `str`, `int | None` … without
    limits (the common case; a value of any other type goes through the converter)."""
    if constraints:
        return frozenset()
    members = typing.get_args(hint) if typing.get_origin(hint) in _UNION else (hint,)
    simple = {m for m in members if m in (str, int, float, bool, type(None))}
    return frozenset(simple) if len(simple) == len(members) else frozenset()


_EVALUATED: dict[tuple[str, str], Any] = {}  # (module, annotation text) -> the type it names


def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations of `cls` and its bases, evaluated in each class's own module. What
    ``typing.get_type_hints`` gives, with each distinct annotation text of a module evaluated once per process
    ("str | None" recurs in every schema; compiling each occurrence was most of building the plans)."""
    out: dict[str, Any] = {}
    fields = cls._record_defs  # type: ignore[attr-defined]
    for klass in reversed(cls.__mro__):
        own = inspect.get_annotations(klass)  # its own, not its bases'
        if not own or klass is Record or not issubclass(klass, Record):
            continue
        module = klass.__module__
        namespace = sys.modules[module].__dict__
        for name, annotation in own.items():
            if name not in fields:  # a ClassVar or a private attribute
                continue
            if isinstance(annotation, str):
                key = (module, annotation)
                if key not in _EVALUATED:
                    _EVALUATED[key] = eval(annotation, namespace)  # the class's own annotation
                annotation = _EVALUATED[key]
            out[name] = annotation
    return out


def _is_classvar(annotation: object) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


class _ClassProperty(typing.Generic[_T]):
    """A read-only attribute computed from the class (on the class or an instance)."""

    def __init__(self, fn: Callable[[type[Any]], _T]) -> None:
        self.fn = fn

    def __get__(self, obj: object, owner: type[Any]) -> _T:
        return self.fn(owner)


# ----------------------------------------------------------------------------------------------------------------
# the base class


# No field specifiers for type checkers: mypy reads a specifier's default only when passed as `default=`, and
# records give it first and positionally, as pydantic does (`Field(1, ge=1)`); so every `x: T = Field(...)` is a
# field with a default to the checker (a required field with limits, `Field(gt=0)`, then goes unflagged when left
# out: the runtime still refuses it).
@dataclass_transform(kw_only_default=True, frozen_default=True)
class Record:
    """Base of the core's frozen, validated data classes (see the module docstring).

    A subclass declares fields as annotations with an optional default or :func:`Field`; nothing is generated per
    class (no dataclass code), so defining one costs microseconds. Equality, hashing and ``repr`` go by the
    fields in declaration order (bases first)."""

    _record_plan: ClassVar[_Plan | None] = None
    _record_defs: ClassVar[dict[str, _FieldDef]] = {}

    _record_frozen: ClassVar[bool] = True

    def __init_subclass__(cls, *, frozen: bool | None = None, **kwargs: Any) -> None:
        """`frozen=False`: fields may be assigned after construction (not validated, as pydantic's default)."""
        super().__init_subclass__(**kwargs)
        if frozen is not None:
            cls._record_frozen = frozen
        defs = dict(cls._record_defs)  # the bases' fields first
        for name, annotation in inspect.get_annotations(cls).items():
            if _is_classvar(annotation) or name.startswith("_"):  # `_name`: a private attribute, not a field
                continue
            value = cls.__dict__.get(name, _MISSING)
            if isinstance(value, _FieldDef):
                fd = value
            elif isinstance(value, (list, dict, set)):  # a mutable default: each instance gets its own copy
                fd = _FieldDef(_MISSING, value.copy, (), "")
            else:
                fd = _FieldDef(value, None, (), "")
            defs.pop(name, None)
            defs[name] = fd
            if value is not _MISSING:
                if fd.default is _MISSING:
                    delattr(cls, name)
                else:
                    type.__setattr__(cls, name, fd.default)
        cls._record_defs = defs
        cls._record_plan = None

    def __init__(self, **values: Any) -> None:
        cls = type(self)
        plan = cls._record_plan or _plan(cls)
        if plan.prepare:
            try:
                values = cls.prepare(values)
            except RecordError:
                raise
            except ValueError as exc:
                raise RecordError(cls.__name__, [{"type": "value_error", "loc": (), "input": values,
                                                  "msg": f"Value error, {exc}"}]) from None
        fields = plan.fields
        errors = [] if values.keys() <= fields.keys() else [
            {"type": "extra_forbidden", "loc": (k,), "msg": "Extra inputs are not permitted", "input": values[k]}
            for k in values if k not in fields]
        own = self.__dict__
        for name, convert, spec, exact in plan.steps:
            if name not in values:
                if spec.default_factory is not None:
                    own[name] = spec.default_factory()
                elif spec.default is _MISSING:
                    errors.append({"type": "missing", "loc": (name,), "msg": "Field required", "input": values})
                else:
                    own[name] = spec.default  # defaults are not validated (as in pydantic)
                continue
            value = values[name]
            if type(value) in exact:  # a plain value of the field's own type: nothing to convert or check
                own[name] = value
                continue
            try:
                own[name] = convert(value)
            except _Bad as bad:
                error = {"type": bad.kind, "loc": (name, *bad.loc), "msg": bad.msg, "input": bad.value}
                errors.append(error if bad.ctx is None else {**error, "ctx": bad.ctx})
        if not errors and plan.check:
            try:
                self.check_invariants()
            except RecordError:
                raise
            except ValueError as exc:
                errors.append({"type": "value_error", "loc": (), "msg": f"Value error, {exc}", "input": values})
        if errors:
            raise RecordError(cls.__name__, errors)
        own["_fields_set"] = frozenset(values)

    # --- frozen, compared by value --------------------------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") or (not type(self)._record_frozen and name in type(self)._record_defs):
            self.__dict__[name] = value  # a private attribute, or a field of a mutable record
            return
        if name not in type(self)._record_defs:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r} (use model_copy(update=…))")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__}: cannot delete {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(self.__dict__.get(name) for name in type(self)._record_defs)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        if not type(self)._record_frozen:
            raise TypeError(f"unhashable type: '{type(self).__name__}' (a mutable record)")
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={self.__dict__.get(name)!r}" for name in type(self)._record_defs)
        return f"{type(self).__name__}({inner})"

    # --- hooks -----------------------------------------------------------------------------------------------
    @classmethod
    def prepare(cls, values: dict[str, Any]) -> dict[str, Any]:
        """Normalise the input before validation (pydantic's ``mode="before"``); the default keeps it."""
        return values

    def check_invariants(self) -> None:
        """Raise ValueError when the fields, each valid, do not fit together (pydantic's ``mode="after"``)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """A record as a field of a pydantic model (knowledge.record_pydantic; pydantic is imported already)."""
        from knowledge.record_pydantic import record_core_schema

        return record_core_schema(cls, handler)

    # --- pydantic's BaseModel API, as far as the project uses it -----------------------------------------------
    model_fields: ClassVar[_ClassProperty[dict[str, FieldSpec]]] = _ClassProperty(lambda cls: _plan(cls).fields)

    @property
    def model_fields_set(self) -> frozenset[str]:
        given: frozenset[str] = self.__dict__.get("_fields_set", frozenset(type(self)._record_defs))
        return given

    @classmethod
    def model_validate(cls: type[R], data: Any) -> R:
        if isinstance(data, cls):
            return data
        if not isinstance(data, dict):
            raise RecordError(cls.__name__, [{"type": "model_type", "loc": (), "input": data,
                                              "msg": f"Input should be a valid dictionary or instance of {cls.__name__}"}])
        return cls(**data)

    @classmethod
    def model_construct(cls: type[R], _fields_set: set[str] | frozenset[str] | None = None, **values: Any) -> R:
        """An instance from trusted values, not validated (pydantic's ``model_construct``)."""
        obj = cls.__new__(cls)
        own = obj.__dict__
        for name, spec in _plan(cls).fields.items():
            own[name] = values[name] if name in values else spec.get_default()
        own["_fields_set"] = frozenset(values if _fields_set is None else _fields_set)
        return obj

    def model_copy(self: R, *, update: dict[str, Any] | None = None, deep: bool = False) -> R:
        """A copy with `update` applied, not validated (as pydantic's ``model_copy``)."""
        import copy  # here: a scriptable command never copies a record

        new = copy.deepcopy(self) if deep else copy.copy(self)
        if update:
            defs = type(self)._record_defs
            for name, value in update.items():
                if name not in defs:
                    raise AttributeError(f"{type(self).__name__} has no field {name!r}")
                if type(value) is int and name in _plan(type(self)).floats:
                    value = float(value)
                new.__dict__[name] = value
            new.__dict__["_fields_set"] = self.model_fields_set | set(update)
        return new

    def model_dump(self, *, mode: str = "python", include: set[str] | None = None, exclude: set[str] | None = None,
                   exclude_none: bool = False, exclude_unset: bool = False,
                   exclude_defaults: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {}
        defs = type(self)._record_defs
        chosen = self.model_fields_set if exclude_unset else defs
        as_json = mode == "json"
        for name in defs:
            if name not in chosen or (include is not None and name not in include) or (exclude and name in exclude):
                continue
            value = self.__dict__.get(name)
            if value is None and exclude_none:
                continue
            if exclude_defaults and value == _plan(type(self)).fields[name].get_default():
                continue
            out[name] = _dump(value, as_json, exclude_none, exclude_unset, exclude_defaults)
        return out

    def model_dump_json(self, *, indent: int | None = None, **kwargs: Any) -> str:
        data = self.model_dump(mode="json", **kwargs)
        return json.dumps(data, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))


def _dump(value: Any, as_json: bool, exclude_none: bool, exclude_unset: bool, exclude_defaults: bool) -> Any:
    if isinstance(value, Record):
        return value.model_dump(mode="json" if as_json else "python", exclude_none=exclude_none,
                                exclude_unset=exclude_unset, exclude_defaults=exclude_defaults)
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat() if as_json else value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [_dump(v, as_json, exclude_none, exclude_unset, exclude_defaults) for v in value]
        return items if as_json or isinstance(value, list) else type(value)(items)
    if isinstance(value, dict):
        return {(str(k) if as_json and not isinstance(k, str) else k):
                _dump(v, as_json, exclude_none, exclude_unset, exclude_defaults) for k, v in value.items()}
    if hasattr(value, "model_dump"):  # a pydantic model held in a record
        return value.model_dump(mode="json" if as_json else "python")
    return value


@dataclass_transform(kw_only_default=False, frozen_default=True)
class Struct(Record):
    """A frozen value object the code itself computes (an estimator's intermediate result, a format's table row):
    fields by position or keyword in declaration order, not validated, compared by value — what a frozen dataclass
    gives, without a dataclass's generated methods (≈ 2 ms a class at import on the CLI path)."""

    def __init__(self, *args: Any, **values: Any) -> None:
        cls = type(self)
        defs = cls._record_defs
        names = tuple(defs)
        if len(args) > len(names):
            raise TypeError(f"{cls.__name__} takes {len(names)} fields, got {len(args)} positional values")
        own = self.__dict__
        for name, value in zip(names, args, strict=False):  # the first len(args) fields
            if name in values:
                raise TypeError(f"{cls.__name__} got field {name!r} twice")
            own[name] = value
        for name in names[len(args):]:
            if name in values:
                own[name] = values.pop(name)
                continue
            fd = defs[name]
            if fd.default_factory is not None:
                own[name] = fd.default_factory()
            elif fd.default is _MISSING:
                raise TypeError(f"{cls.__name__} is missing field {name!r}")
            else:
                own[name] = fd.default
        if values:
            raise TypeError(f"{cls.__name__} has no field {', '.join(map(repr, values))}")
