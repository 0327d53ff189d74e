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
The constraints, the errors and the converter of each annotation are in :mod:`knowledge.record_convert`; this
module holds the record classes and the per-class plan that applies them.
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
import sys
import typing
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, TypeVar, dataclass_transform

from knowledge.record_convert import (
    MISSING,
    UNION,
    Bounds,
    Converter,
    Field,
    FieldDef,
    Finite,
    Invalid,
    Length,
    NonNegativeFloat,
    NonNegativeInt,
    Pattern,
    PositiveFloat,
    PositiveInt,
    RecordBase,
    RecordError,
    converter,
)

__all__ = ["Bounds", "Field", "FieldSpec", "Finite", "Length", "NonNegativeFloat", "NonNegativeInt", "Pattern",
           "PositiveFloat", "PositiveInt", "Record", "RecordError", "Struct"]

R = TypeVar("R", bound="Record")
_T = TypeVar("_T")

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
        return self.default is MISSING and self.default_factory is None

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
    members = typing.get_args(spec.annotation) if typing.get_origin(spec.annotation) in UNION else (spec.annotation,)
    bare = {typing.get_args(m)[0] if typing.get_origin(m) is Annotated else m for m in members} - {type(None)}
    return bare == {float}


def _exact_types(hint: Any, constraints: tuple[object, ...]) -> frozenset[type]:
    """Types whose values a field takes as they are, with no conversion or check: `str`, `int | None` … without
    limits (the common case; a value of any other type goes through the converter)."""
    if constraints:
        return frozenset()
    members = typing.get_args(hint) if typing.get_origin(hint) in UNION else (hint,)
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
class Record(RecordBase):
    """Base of the core's frozen, validated data classes (see the module docstring).

    A subclass declares fields as annotations with an optional default or :func:`Field`; nothing is generated per
    class (no dataclass code), so defining one costs microseconds. Equality, hashing and ``repr`` go by the
    fields in declaration order (bases first)."""

    _record_plan: ClassVar[_Plan | None] = None
    _record_defs: ClassVar[dict[str, FieldDef]] = {}

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
            value = cls.__dict__.get(name, MISSING)
            if isinstance(value, FieldDef):
                fd = value
            elif isinstance(value, (list, dict, set)):  # a mutable default: each instance gets its own copy
                fd = FieldDef(MISSING, value.copy, (), "")
            else:
                fd = FieldDef(value, None, (), "")
            defs.pop(name, None)
            defs[name] = fd
            if value is not MISSING:
                if fd.default is MISSING:
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
                elif spec.default is MISSING:
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
            except Invalid as bad:
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
            elif fd.default is MISSING:
                raise TypeError(f"{cls.__name__} is missing field {name!r}")
            else:
                own[name] = fd.default
        if values:
            raise TypeError(f"{cls.__name__} has no field {', '.join(map(repr, values))}")
