"""The core's typed data on msgspec: frozen, keyword-only structs whose fields are checked on construction.

* :class:`Frozen` (and :class:`Mutable`, for the few results a caller fills in afterwards): keyword-only, unknown
  fields refused, limits as ``Annotated[int, Meta(ge=1)]``; every construction (``Workload(...)``,
  :func:`replace`, :func:`validate`, a decode) checks the types and limits, converts lax input the way msgspec's
  ``strict=False`` does ("1024" → 1024, never full-width digits) and then runs the class's :meth:`Frozen.check_invariants`
  (cross-field rules: raise ``ValueError``).
* :class:`Value`: a frozen value object the code itself computes (positional or keyword, not checked).
* :class:`StructError`: the one adapter from msgspec's ``ValidationError`` (and a ``check_invariants`` ``ValueError``) to the
  project's :class:`~knowledge.errors.InputError`: the field, the accepted values, one line in English and Chinese;
  ``errors()`` lists them as ``{"type", "loc", "msg", "input", "ctx"}`` for the callers that name a CLI flag.
* plain functions instead of methods: :func:`validate`, :func:`replace`, :func:`dump`, :func:`fields`,
  :func:`bounds`, :func:`given`.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import sys
import threading
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, TypeVar, dataclass_transform, overload

import msgspec
from msgspec import Meta

from knowledge.errors import InputError

__all__ = [
    "FINITE",
    "Frozen",
    "Meta",
    "Mutable",
    "NonNegativeFloat",
    "NonNegativeInt",
    "PositiveFloat",
    "PositiveInt",
    "StructError",
    "Value",
    "bounds",
    "dump",
    "fields",
    "given",
    "replace",
    "set_field",
    "validate",
]

S = TypeVar("S", bound=msgspec.Struct)


class _Finite:
    """``Annotated`` marker: the float must be finite (msgspec lets NaN and inf through a field without limits)."""

    def __repr__(self) -> str:
        return "FINITE"


FINITE = _Finite()
PositiveInt = Annotated[int, Meta(gt=0)]
NonNegativeInt = Annotated[int, Meta(ge=0)]
PositiveFloat = Annotated[float, Meta(gt=0), FINITE]
NonNegativeFloat = Annotated[float, Meta(ge=0), FINITE]


# ----------------------------------------------------------------------------------------------------------------
# errors


class StructError(InputError, ValueError):
    """Invalid values for a struct: one line naming the field, what was wrong and what is accepted."""

    def __init__(self, title: str, errors: list[dict[str, Any]]) -> None:
        self.title = title
        self._errors = errors
        first = errors[0]
        where = ".".join(str(p) for p in first["loc"]) or title
        msg = str(first["msg"]).removeprefix("Value error, ")
        got = first.get("input")
        shown = f" (got {got!r})" if first["type"] not in ("missing", "value_error") and not isinstance(
            got, (dict, list)) and got is not None else ""
        ctx = first.get("ctx") or {}
        accepted = ctx.get("expected") or " and ".join(
            f"{sign} {ctx[key]}" for key, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")) if key in ctx) or None
        super().__init__(f"{where}: {msg}{shown}", field=where, accepted=accepted,
                         message_zh=f"参数 {where} 无效：{msg}{shown}")

    def errors(self, include_url: bool = False) -> list[dict[str, Any]]:
        return list(self._errors)

    def error_count(self) -> int:
        return len(self._errors)


_AT = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>[^`]*)`(?: in `(?P<outer>[^`]*)`)?)?$", re.S)
_BOUND = re.compile(r"^Expected `[^`]+` (?P<op>>=|>|<=|<) (?P<n>\S+)$")
_TYPE = re.compile(r"^Expected `(?P<want>[^`]+)`(?:, got `(?P<got>[^`]+)`)?$")
_OPS = {">=": ("greater_than_equal", "ge", "greater than or equal to"), ">": ("greater_than", "gt", "greater than"),
        "<=": ("less_than_equal", "le", "less than or equal to"), "<": ("less_than", "lt", "less than")}
_KINDS = {"int": ("int_type", "a valid integer"), "float": ("float_type", "a valid number"),
          "str": ("string_type", "a valid string"), "bool": ("bool_type", "a valid boolean"),
          "object": ("dict_type", "a valid dictionary"), "array": ("list_type", "a valid list"),
          "null": ("none_type", "None")}


def _loc(path: str | None) -> tuple[str | int, ...]:
    if not path or path == "$":
        return ()
    return tuple(int(p[1:-1]) if p.startswith("[") else p.lstrip(".")
                 for p in re.findall(r"\.[^.\[]+|\[\d+\]", path.removeprefix("$")))


def _at(data: Any, loc: tuple[str | int, ...]) -> Any:
    for part in loc:
        if isinstance(data, Mapping) and part in data:
            data = data[part]
        elif isinstance(data, (list, tuple)) and isinstance(part, int) and part < len(data):
            data = data[part]
        elif isinstance(data, msgspec.Struct) and isinstance(part, str):
            data = getattr(data, part, None)
        else:
            return None
    return data


def _type_at(cls: Any, loc: tuple[str | int, ...]) -> Any:
    """The annotation of the value at `loc` inside `cls` (None when it cannot be told)."""
    tp = cls
    for part in loc:
        tp = _bare(tp)
        if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and isinstance(part, str):
            tp = _hints(tp).get(part)
        elif typing.get_origin(tp) in (list, tuple, set, frozenset) and typing.get_args(tp):
            tp = typing.get_args(tp)[0]
        elif typing.get_origin(tp) is dict and len(typing.get_args(tp)) == 2:
            tp = typing.get_args(tp)[1]
        else:
            return None
    return tp


def _bare(tp: Any) -> Any:
    """`tp` without Annotated and without None in an optional (the first struct or literal of a union)."""
    while True:
        if typing.get_origin(tp) is Annotated:
            tp = typing.get_args(tp)[0]
        elif typing.get_origin(tp) in (typing.Union, __import__("types").UnionType):
            members = [m for m in typing.get_args(tp) if m is not type(None)]
            tp = members[0] if len(members) == 1 else next(
                (m for m in members if typing.get_origin(_strip(m)) is typing.Literal or (
                    isinstance(_strip(m), type) and issubclass(_strip(m), msgspec.Struct))), members[0])
        else:
            return tp


def _strip(tp: Any) -> Any:
    return typing.get_args(tp)[0] if typing.get_origin(tp) is Annotated else tp


def _error(cls: type, data: Any, text: str) -> dict[str, Any]:
    """One msgspec message as {"type", "loc", "msg", "input", "ctx"}."""
    m = _AT.match(text)
    msg, path, outer = (m["msg"], m["path"], m["outer"]) if m else (text, None, None)
    if outer is not None:  # "Expected `str` - at `key` in `$.existing`": a dict key
        loc = (*_loc(outer), "[key]")
        return {"type": "string_type", "loc": loc, "msg": "Input should be a valid string (a key)",
                "input": _first_bad_key(_at(data, loc[:-1]))}
    loc = _loc(path)
    value = _at(data, loc)
    if (found := re.match(r"^Object (missing required|contains unknown) field `([^`]+)`$", msg)):
        loc = (*loc, found[2])
        if found[1].startswith("missing"):
            return {"type": "missing", "loc": loc, "msg": "Field required", "input": value}
        return {"type": "extra_forbidden", "loc": loc, "msg": "Extra inputs are not permitted",
                "input": _at(data, loc), "ctx": {"expected": ", ".join(fields(cls)) if not loc[:-1] else None}}
    if (bound := _BOUND.match(msg)):
        kind, key, words = _OPS[bound["op"]]
        n = float(bound["n"])
        limit: float | int = int(n) if n.is_integer() and abs(n) < 1e15 else n
        return {"type": kind, "loc": loc, "msg": f"Input should be {words} {limit}", "input": value,
                "ctx": {key: limit}}
    if msg.startswith("Invalid enum value") or (msg.startswith("Expected `str`") and _literal(cls, loc)):
        options = _literal(cls, loc)
        listed = " or ".join([", ".join(map(repr, options[:-1])), repr(options[-1])]) if len(options) > 1 else \
            ", ".join(map(repr, options))
        return {"type": "literal_error", "loc": loc, "msg": f"Input should be {listed}", "input": value,
                "ctx": {"expected": ", ".join(map(str, options))}}
    if (want := _TYPE.match(msg)):
        first = want["want"].split(" | ")[0]
        kind, words = _KINDS.get(first, ("type_error", f"a valid {first}"))
        if isinstance(value, float) and first == "int":
            kind, words = "int_from_float", "a valid integer, got a number with a fractional part"
        elif isinstance(value, str) and first in ("int", "float"):
            kind = "int_parsing" if first == "int" else "float_parsing"
            words += ", unable to parse string as " + ("an integer" if first == "int" else "a number")
        return {"type": kind, "loc": loc, "msg": f"Input should be {words}", "input": value}
    return {"type": "value_error", "loc": loc, "msg": f"Value error, {msg}", "input": value}


def _first_bad_key(data: Any) -> Any:
    if isinstance(data, Mapping):
        return next((k for k in data if not isinstance(k, str)), None)
    return None


def _literal(cls: type, loc: tuple[str | int, ...]) -> list[Any]:
    tp = _bare(_type_at(cls, loc))
    return list(typing.get_args(tp)) if typing.get_origin(tp) is typing.Literal else []


def struct_error(cls: type, data: Any, exc: Exception) -> StructError:
    """The adapter: msgspec's ValidationError (or a ValueError of a `check_invariants`) as a StructError."""
    if isinstance(exc, StructError):
        return exc
    inner = exc.__cause__
    if isinstance(inner, StructError):  # a nested struct's own check, raised inside msgspec: where it sits
        m = _AT.match(str(exc))
        where = _loc(m["path"]) if m else ()
        return StructError(cls.__name__, [{**e, "loc": (*where, *e["loc"])} for e in inner.errors()])
    return StructError(cls.__name__, [_error(cls, data, str(exc))])


# ----------------------------------------------------------------------------------------------------------------
# construction and checks

class _BuildState(threading.local):
    """How the structs being built in this thread came to be: `depth` > 0 while msgspec builds them from data it
    has just checked, `unchecked` inside `replace`, `trusted` inside `construct_trusted`. Class-level defaults, so a
    thread that never set a flag reads it without the AttributeError a `getattr(local, name, default)` raises and
    catches inside (≈ 0.4 µs, three per construction, thousands per recommendation)."""

    depth = 0
    unchecked = False
    trusted = False


_STATE = _BuildState()


_EVALUATED: dict[tuple[str, str], Any] = {}  # (module, annotation text) -> the type it names


def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations, evaluated in each defining class's module; each distinct text of a module once per
    process ("str | None" recurs in every schema: typing.get_type_hints compiled each occurrence, most of the
    first construction's cost on the CLI path)."""
    hints = cls.__dict__.get("_struct_hints")
    if hints is None:
        names = cls.__struct_fields__  # type: ignore[attr-defined]
        found: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            own = klass.__dict__.get("__annotations__") or {}  # noqa: RUF063 - inspect costs ~10 ms to import
            namespace = sys.modules[klass.__module__].__dict__
            for name, annotation in own.items():
                if name not in names:
                    continue
                if isinstance(annotation, str):
                    key = (klass.__module__, annotation)
                    if key not in _EVALUATED:
                        _EVALUATED[key] = eval(annotation, namespace)  # the class's own annotation
                    annotation = _EVALUATED[key]
                found[name] = annotation
        hints = {name: found[name] for name in names}
        type.__setattr__(cls, "_struct_hints", hints)
    return typing.cast(dict[str, Any], hints)


def field_type(cls: type[msgspec.Struct], name: str) -> Any:
    """The annotation of field `name` of `cls` (with its Annotated limits)."""
    return _hints(cls)[name]


class _Checker:
    """A class's field types as a struct without checks of its own, and its fields that must be finite."""

    __slots__ = ("_shape", "checks", "cls_name", "finite", "floats", "hints", "kinds", "normalizes")

    def __init__(self, cls: type) -> None:
        self.cls_name = cls.__name__
        hints = self.hints = _hints(cls)
        self._shape: type[msgspec.Struct] | None = None
        self.finite = tuple(name for name, tp in hints.items() if _is_finite(tp))
        # fields that hold a float (alone or with None): an int put there by `replace` is stored as a float
        self.floats = tuple(name for name, tp in hints.items() if _float_only(tp))
        # per field whose value is looked at: the Python types it may have without conversion, and its Literal
        # values (fields of any value, `accepted` None, are left out)
        self.kinds = tuple((name, accepted, literals) for name, tp in hints.items()
                           for accepted, literals in [_kinds(tp)] if accepted is not None)
        # whether the class has hooks of its own: the base's no-op hooks are not called (each construction)
        self.normalizes = getattr(cls, "normalize", None) is not _Checked.normalize
        self.checks = getattr(cls, "check_invariants", None) is not _Checked.check_invariants

    def plain(self, obj: Any) -> bool:
        """Whether every field of `obj` holds a value of a type its annotation names (a struct of the exact class,
        an int for a float, a Literal's own value): nothing for msgspec to convert. Containers are not looked into."""
        for name, accepted, literals in self.kinds:
            value = getattr(obj, name)
            if type(value) not in accepted or (literals is not None and value not in literals):
                return False
        return True

    def store_floats(self, obj: Any) -> None:
        """An int given for a float field stored as a float (as msgspec's conversion does)."""
        for name in self.floats:
            if type(value := getattr(obj, name)) is int:
                msgspec.structs.force_setattr(obj, name, float(value))

    @property
    def shape(self) -> type[msgspec.Struct]:
        """A struct of the same fields without the class's hooks: what a hand-built instance is converted through
        (made on first use: a computed class never needs it)."""
        if self._shape is None:
            self._shape = msgspec.defstruct(f"{self.cls_name}Fields", list(self.hints.items()), kw_only=True)
        return self._shape


def _kinds(tp: Any) -> tuple[frozenset[type] | None, frozenset[Any] | None]:
    """(the Python types a value of annotation `tp` has as it is, the Literal values allowed or None); (None, None)
    when any value is (Any, or a type this fast path does not know)."""
    tp = _strip(tp)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        parts = [_kinds(m) for m in typing.get_args(tp)]
        found: frozenset[type] = frozenset()
        values: frozenset[Any] = frozenset()
        plain = literal = False
        for kinds, lits in parts:
            if kinds is None:
                return None, None
            found |= kinds
            if kinds == frozenset({type(None)}):
                continue
            if lits is None:
                plain = True
            else:
                literal, values = True, values | lits
        if plain and literal:
            return None, None  # a Literal beside another type: left to msgspec
        return found, (values | {None} if type(None) in found else values) if literal else None
    if origin is typing.Literal:
        values = frozenset(typing.get_args(tp))
        return frozenset(type(v) for v in values), values
    if tp is float:
        return frozenset({float, int}), None
    if tp is type(None) or tp is None:
        return frozenset({type(None)}), None
    if origin in (list, tuple, dict, set, frozenset):
        return frozenset({origin}), None
    if isinstance(tp, type) and (tp in (int, str, bool, bytes, dt.date, dt.datetime) or issubclass(tp, msgspec.Struct)):
        return frozenset({tp}), None
    return None, None


def _float_only(tp: Any) -> bool:
    members = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    return {_strip(m) for m in members} - {type(None)} == {float}


def _is_finite(tp: Any) -> bool:
    if typing.get_origin(tp) is Annotated:
        return any(m is FINITE for m in typing.get_args(tp)[1:]) or _is_finite(typing.get_args(tp)[0])
    if typing.get_origin(tp) in (typing.Union, __import__("types").UnionType):
        return any(_is_finite(m) for m in typing.get_args(tp))
    return False


def _checker(cls: type) -> _Checker:
    found = cls.__dict__.get("_struct_checker")
    if found is None:
        found = _Checker(cls)
        type.__setattr__(cls, "_struct_checker", found)
    return typing.cast(_Checker, found)


def _post_init(self: Any) -> None:
    if _STATE.trusted:  # construct_trusted: our own dump of checked values, read back
        return
    cls = type(self)
    checker = cls.__dict__.get("_struct_checker") or _checker(cls)
    if _STATE.unchecked:  # `replace`: a copy of checked values with the caller's changes
        checker.store_floats(self)
        return
    if checker.normalizes:
        self.normalize()
    for name in checker.finite:  # first: NaN is "not finite", not "not ≥ 0"
        value = getattr(self, name)
        if isinstance(value, float) and not math.isfinite(value):
            raise StructError(cls.__name__, [{"type": "finite_number", "loc": (name,), "input": value,
                                              "msg": "Input should be a finite number"}])
    if _STATE.depth:  # built by msgspec from data it has just checked
        pass
    elif self.derived and checker.plain(self):  # a derived result whose fields have their declared kinds
        checker.store_floats(self)
    else:  # built by hand: check and convert each field as msgspec would
        names = cls.__struct_fields__
        values = {name: getattr(self, name) for name in names}
        try:
            shape = msgspec.convert(values, checker.shape, strict=False)
        except msgspec.ValidationError as exc:
            raise struct_error(cls, values, exc) from None
        for name in names:
            new = getattr(shape, name)
            if new is not values[name]:
                msgspec.structs.force_setattr(self, name, new)
    if not checker.checks:
        return
    try:
        self.check_invariants()
    except StructError:
        raise
    except ValueError as exc:
        raise StructError(cls.__name__, [{"type": "value_error", "loc": (), "msg": f"Value error, {exc}",
                                          "input": None}]) from None


class _KeywordOnly(msgspec.StructMeta):
    """Keyword-only fields in every subclass too (msgspec's `kw_only` covers only the class that states it)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any], **kw: Any) -> Any:
        kw.setdefault("kw_only", True)
        cls = super().__new__(mcls, name, bases, ns, **kw)
        _resolve_annotations(cls)
        return cls


def _resolve_annotations(cls: type) -> None:
    """Evaluate the class's string annotations (``from __future__ import annotations``) once, where they can be
    (a name defined later in the module stays a string): msgspec then reads types rather than compiling each text
    again on the first conversion of every run."""
    own = cls.__dict__.get("__annotations__")  # noqa: RUF063 - the dict itself is updated; inspect costs ~10 ms to import
    if not own:
        return
    namespace = sys.modules[cls.__module__].__dict__
    for name, annotation in own.items():
        if isinstance(annotation, str):
            key = (cls.__module__, annotation)
            found = _EVALUATED.get(key)
            if found is None:
                try:
                    found = _EVALUATED[key] = eval(annotation, namespace)  # the class's own annotation
                except NameError:
                    continue
            own[name] = found


class _Checked:
    """The hooks of the checked bases (Frozen, Mutable): checked after msgspec builds a struct (`_post_init`), with
    the two a struct overrides. A mixin with no slots of its own, as msgspec allows."""

    __slots__ = ()
    _struct_hints: ClassVar[dict[str, Any] | None] = None
    _struct_checker: ClassVar[_Checker | None] = None
    derived: ClassVar[bool] = False
    """True for a result the program computes from checked input (an estimate, an option, a price): built in
    code, its fields' types are the type checker's (mypy --strict) and are not converted again at run time (that
    second pass was a third of `recommend`'s start-up); its finite-number and cross-field checks still run. Data
    from outside (a request, a catalog file, a decode) is always checked."""

    def __post_init__(self) -> None:
        _post_init(self)

    def normalize(self) -> None:
        """Rewrite input into the fields' form before they are checked (`set_field`); the default keeps it."""

    def check_invariants(self) -> None:
        """Raise ValueError when the fields, each valid, do not fit together."""


# the mixin is no struct (its metaclass is not _KeywordOnly): its ClassVar texts are evaluated here once, or msgspec
# compiles all three again for every struct class it first converts (~100 compiles, ≈ 4 ms of `recommend`)
_resolve_annotations(_Checked)


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(msgspec.field,))
class Frozen(msgspec.Struct, _Checked, metaclass=_KeywordOnly, frozen=True, forbid_unknown_fields=True):
    """Base of the core's frozen, checked data (see the module docstring)."""


@dataclass_transform(kw_only_default=True, field_specifiers=(msgspec.field,))
class Mutable(msgspec.Struct, _Checked, metaclass=_KeywordOnly, forbid_unknown_fields=True):
    """A checked result whose fields a caller may set afterwards (not checked again)."""


@dataclass_transform(frozen_default=True, field_specifiers=(msgspec.field,))
class Value(msgspec.Struct, frozen=True):
    """A frozen value object the code computes itself: positional or keyword fields, not checked."""


# ----------------------------------------------------------------------------------------------------------------
# helpers


def set_field(obj: msgspec.Struct, name: str, value: Any) -> None:
    """Set a field of a frozen struct while it is being built (in `normalize` or `check_invariants`)."""
    msgspec.structs.force_setattr(obj, name, value)


def validate(cls: type[S], data: Any, *, strict: bool = False) -> S:
    """`cls` from `data` (a mapping, or an instance returned as it is); StructError when invalid. Lax by default:
    "1024" → 1024 and [..] → (..) as on construction; never full-width digits, NaN where limits refuse it."""
    if isinstance(data, cls):
        return data
    if not isinstance(data, Mapping):
        raise StructError(cls.__name__, [{"type": "model_type", "loc": (), "input": data,
                                          "msg": f"Input should be a valid dictionary or instance of {cls.__name__}"}])
    _STATE.depth += 1
    try:
        return msgspec.convert(data, cls, strict=strict)
    except msgspec.ValidationError as exc:
        raise struct_error(cls, data, exc) from None
    finally:
        _STATE.depth -= 1


def replace(obj: S, /, **changes: Any) -> S:
    """A copy of `obj` with `changes`, not checked again (the code's own what-if variants: another precision, a
    hypothetical card); ints given for float fields are stored as floats. Input from outside goes through the
    constructor or :func:`validate`."""
    _STATE.unchecked = True
    try:
        return msgspec.structs.replace(obj, **changes)
    finally:
        _STATE.unchecked = False


_FIELDS: dict[type, dict[str, msgspec.structs.FieldInfo]] = {}


def fields(cls: type[msgspec.Struct] | msgspec.Struct) -> dict[str, msgspec.structs.FieldInfo]:
    """name -> msgspec's FieldInfo (type, default, required), in declaration order (read once per class: msgspec
    evaluates the annotations on each call)."""
    kind = cls if isinstance(cls, type) else type(cls)
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = {f.name: f for f in msgspec.structs.fields(kind)}
    return found


def bounds(cls: type[msgspec.Struct], name: str) -> tuple[float | None, float | None, bool, bool]:
    """(lo, hi, lo_open, hi_open) of a field's Meta limits."""
    lo = hi = None
    lo_open = hi_open = False
    tp = _hints(cls)[name]
    metas: list[Any] = []

    def collect(t: Any) -> None:
        if typing.get_origin(t) is Annotated:
            metas.extend(m for m in typing.get_args(t)[1:] if isinstance(m, Meta))
            collect(typing.get_args(t)[0])
        elif typing.get_origin(t) in (typing.Union, __import__("types").UnionType):
            for m in typing.get_args(t):
                collect(m)

    collect(tp)
    for meta in metas:
        if meta.ge is not None:
            lo, lo_open = meta.ge, False
        if meta.gt is not None:
            lo, lo_open = meta.gt, True
        if meta.le is not None:
            hi, hi_open = meta.le, False
        if meta.lt is not None:
            hi, hi_open = meta.lt, True
    return lo, hi, lo_open, hi_open


def given(obj: msgspec.Struct, name: str) -> bool:
    """Whether `obj.name` was given rather than left at the class default (the default object itself: a value
    copied through :func:`replace` keeps its provenance)."""
    info = fields(type(obj))[name]
    if info.required:
        return True
    default = info.default_factory() if info.default is msgspec.NODEFAULT else info.default
    return getattr(obj, name) is not default


@overload
def dump(obj: msgspec.Struct, *, json: bool = False, exclude_none: bool = False, include: set[str] | None = None,
         exclude: set[str] | None = None, exclude_defaults: bool = False) -> dict[str, Any]: ...


@overload
def dump(obj: Any, *, json: bool = False, exclude_none: bool = False, include: set[str] | None = None,
         exclude: set[str] | None = None, exclude_defaults: bool = False) -> Any: ...


def dump(obj: Any, *, json: bool = False, exclude_none: bool = False, include: set[str] | None = None,
         exclude: set[str] | None = None, exclude_defaults: bool = False) -> Any:
    """`obj`'s fields as plain data (nested structs as dicts); `json=True`: JSON types only (tuples and sets as
    lists, dates as ISO strings, dict keys as strings)."""
    if isinstance(obj, msgspec.Struct):
        out: dict[str, Any] = {}
        for name in obj.__struct_fields__:
            if (include is not None and name not in include) or (exclude and name in exclude):
                continue
            value = getattr(obj, name)
            if value is None and exclude_none:
                continue
            if exclude_defaults and value == _default(type(obj), name):
                continue
            out[name] = dump(value, json=json, exclude_none=exclude_none, exclude_defaults=exclude_defaults)
        return out
    if obj is None or isinstance(obj, (str, int, float)):
        return obj
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat() if json else obj
    if isinstance(obj, (list, tuple, set, frozenset)):  # the structs inside with the same exclusions
        items = [dump(v, json=json, exclude_none=exclude_none, exclude_defaults=exclude_defaults) for v in obj]
        return items if json or isinstance(obj, list) else type(obj)(items)
    if isinstance(obj, dict):
        return {(str(k) if json and not isinstance(k, str) else k): dump(
            v, json=json, exclude_none=exclude_none, exclude_defaults=exclude_defaults) for k, v in obj.items()}
    if hasattr(obj, "model_dump"):  # a pydantic model held in a struct
        return obj.model_dump(mode="json" if json else "python")
    return obj


def _default(cls: type, name: str) -> Any:
    info = fields(cls)[name]
    if info.default_factory is not msgspec.NODEFAULT:
        return info.default_factory()
    return None if info.default is msgspec.NODEFAULT else info.default


def dump_json(obj: Any) -> str:
    """Compact JSON of :func:`dump` (a cache key, a log line)."""
    import json as _json

    return _json.dumps(dump(obj, json=True), ensure_ascii=False, separators=(",", ":"))


def construct_trusted(cls: type[S], data: Mapping[str, Any]) -> S:
    """`cls` from JSON data this program dumped from a checked instance: types converted, checks not run again."""
    _STATE.trusted = True
    try:
        return msgspec.convert(data, cls, strict=False)
    finally:
        _STATE.trusted = False

