"""A pydantic model with the fields, limits and checks of a record (knowledge.record), for the edges that need
pydantic itself: the LLM tools' and the HTTP API's argument schemas (JSON Schema, FastAPI) build on the same
field definitions as the core, so a tool argument and a CLI flag accept exactly the same values.

    WorkloadFields = pydantic_model(Workload, base=_Args)   # Workload's fields as a pydantic model
    class WorkloadArgs(WorkloadFields): ...                 # a tool's arguments

Imported only by those edges (it imports pydantic); the tests use it as the independent reference that a record
validates as pydantic would.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, create_model, model_validator
from pydantic_core import core_schema

from knowledge.record import Bounds, Finite, Length, Pattern, Record

_UNION = (typing.Union, types.UnionType)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _field_kwargs(constraints: tuple[object, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in constraints:
        if isinstance(c, Bounds):
            out.update({k: v for k, v in (("ge", c.ge), ("gt", c.gt), ("le", c.le), ("lt", c.lt)) if v is not None})
        elif isinstance(c, Finite):
            out["allow_inf_nan"] = False
        elif isinstance(c, Pattern):
            out["pattern"] = c.regex
        elif isinstance(c, Length):
            out.update({k: v for k, v in (("min_length", c.min_length), ("max_length", c.max_length))
                        if v is not None})
    return out


def _translate(annotation: Any) -> Any:
    """`annotation` with record classes replaced by their pydantic models and record constraints by Field's."""
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return pydantic_model(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return Annotated[_translate(args[0]), Field(**_field_kwargs(tuple(args[1:])))]
    if origin in _UNION:
        return typing.Union[tuple(_translate(a) for a in args)]  # noqa: UP007 - built from a tuple
    if origin in (tuple, list, set, frozenset, dict) and args:
        return origin[tuple(a if a is Ellipsis else _translate(a) for a in args)]
    return annotation


# one twin per (record, base), so that a record field and a subclass of its twin share one model. A dict rather
# than functools.cache: mypy reads a record class's instance `__hash__` as the class's and refuses it as Hashable
_TWINS: dict[tuple[type[Record], type[BaseModel]], type[BaseModel]] = {}


def pydantic_model(record: type[Record], base: type[BaseModel] = _Strict) -> type[BaseModel]:
    """A pydantic model named like `record`, on `base`, with its fields (types, defaults, limits, descriptions),
    its `prepare` as a "before" and its `check_invariants` as an "after" validator (built once per pair)."""
    twin = _TWINS.get((record, base))
    if twin is None:
        twin = _TWINS.setdefault((record, base), _build_model(record, base))
    return twin


def _build_model(record: type[Record], base: type[BaseModel]) -> type[BaseModel]:
    fields: dict[str, Any] = {}
    for name, spec in record.model_fields.items():
        kwargs = _field_kwargs(spec.metadata)
        if spec.description:
            kwargs["description"] = spec.description
        if spec.default_factory is not None:
            kwargs["default_factory"] = spec.default_factory
        elif not spec.is_required():
            kwargs["default"] = spec.default
        fields[name] = (_translate(spec.annotation), Field(**kwargs))

    def before(cls: type[BaseModel], data: Any) -> Any:
        return record.prepare(dict(data)) if isinstance(data, dict) else data

    def after(self: BaseModel) -> BaseModel:  # the record's own check, on the values pydantic validated
        record.model_construct(**{name: getattr(self, name) for name in record.model_fields}).check_invariants()
        return self

    validators = {"record_prepare": model_validator(mode="before")(classmethod(before)),  # type: ignore[arg-type]
                  "record_invariants": model_validator(mode="after")(after)}
    # pydantic annotates __validators__ as plain callables, though it documents (and takes) decorated validators
    return create_model(record.__name__, __base__=base, __validators__=validators,  # type: ignore[arg-type]
                        __module__=record.__module__, **fields)


def record_core_schema(record: type[Record], handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    """How a pydantic model holds a record field (a Turn's findings, an API body's workload): an instance is kept as
    it is; other input is validated by the record's pydantic twin and made a record; dumped as the record dumps
    itself; its JSON Schema is the twin's."""
    twin = handler.generate_schema(pydantic_model(record))
    from_input = core_schema.no_info_after_validator_function(lambda m: record(**m.model_dump()), twin)
    return core_schema.json_or_python_schema(
        json_schema=from_input,
        python_schema=core_schema.union_schema([core_schema.is_instance_schema(record), from_input]),
        serialization=core_schema.plain_serializer_function_ser_schema(
            lambda value, info: value.model_dump(mode=info.mode) if isinstance(value, Record) else value,
            info_arg=True))
