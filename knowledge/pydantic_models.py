"""pydantic models generated from the core's structs (knowledge.structs), for the edges that need pydantic itself:
the LLM tools' and the HTTP API's argument schemas (JSON Schema, FastAPI, the MCP SDK, LangChain). The fields,
limits, defaults and descriptions come from the struct; its `normalize` and `check` run on what pydantic accepted,
so a tool argument and a CLI flag accept the same values. Never a second hand-kept definition.

    WorkloadFields = pydantic_model(Workload, base=_Args)   # Workload's fields as a pydantic model
    class WorkloadArgs(WorkloadFields): ...                 # a tool's arguments

Imported only by those edges (it imports pydantic); the CLI's scriptable commands never load it.
"""

from __future__ import annotations

import types
import typing
from typing import Annotated, Any

import msgspec
from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, create_model, model_validator
from pydantic_core import core_schema

from knowledge import structs

_UNION = (typing.Union, types.UnionType)
# limits only: a field's description goes on the field itself (`_build_model`), once, not also inside the anyOf
# member of an optional (where a schema that drops the field's description would still carry it)
_META = ("ge", "gt", "le", "lt", "pattern", "min_length", "max_length")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _field_kwargs(extras: tuple[object, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for extra in extras:
        if isinstance(extra, msgspec.Meta):
            out.update({k: getattr(extra, k) for k in _META if getattr(extra, k) is not None})
        elif extra is structs.FINITE:
            out["allow_inf_nan"] = False
    return out


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _translate(annotation: Any) -> Any:
    """`annotation` with struct classes replaced by their pydantic models and Meta limits by Field's."""
    if _is_struct(annotation):
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


_TWINS: dict[tuple[type, type[BaseModel]], type[BaseModel]] = {}


def pydantic_model(struct: type[msgspec.Struct], base: type[BaseModel] = _Strict) -> type[BaseModel]:
    """A pydantic model named like `struct`, on `base`, with its fields (types, defaults, limits, descriptions)
    and its checks as an "after" validator (built once per pair)."""
    twin = _TWINS.get((struct, base))
    if twin is None:
        twin = _TWINS.setdefault((struct, base), _build_model(struct, base))
    return twin


def _description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is Annotated:
        for extra in typing.get_args(annotation)[1:]:
            if isinstance(extra, msgspec.Meta) and extra.description:
                return extra.description
    if typing.get_origin(annotation) in _UNION:
        return next((d for a in typing.get_args(annotation) if (d := _description(a))), None)
    return None


def _build_model(struct: type[msgspec.Struct], base: type[BaseModel]) -> type[BaseModel]:
    hints = typing.get_type_hints(struct, include_extras=True)
    fields: dict[str, Any] = {}
    for info in msgspec.structs.fields(struct):
        kwargs: dict[str, Any] = {}
        if (text := _description(hints[info.name])):
            kwargs["description"] = text
        if info.default_factory is not msgspec.NODEFAULT:
            kwargs["default_factory"] = info.default_factory
        elif info.default is not msgspec.NODEFAULT:
            kwargs["default"] = info.default
        fields[info.name] = (_translate(hints[info.name]), Field(**kwargs))

    def after(self: BaseModel) -> BaseModel:  # the struct's own normalisation and checks on what pydantic took
        try:
            data = self.model_dump()  # a subclass (a tool's arguments) may add fields of its own
            structs.validate(struct, {name: data[name] for name in struct.__struct_fields__ if name in data})
        except structs.StructError as exc:
            raise ValueError(str(exc).split(": ", 1)[-1].removeprefix("Value error, ")) from None
        return self

    validators = {"struct_checks": model_validator(mode="after")(after)}
    # pydantic annotates __validators__ as plain callables, though it documents (and takes) decorated validators
    return create_model(struct.__name__, __base__=base, __validators__=validators,  # type: ignore[arg-type]
                        __module__=struct.__module__, **fields)


def struct_core_schema(struct: type[msgspec.Struct], handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    """How a pydantic model holds a struct field (a Turn's findings, an API body's workload): an instance is kept as
    it is; other input is validated by the struct's pydantic twin and made a struct; dumped as the struct dumps
    itself; its JSON Schema is the twin's."""
    twin = handler.generate_schema(pydantic_model(struct))
    from_input = core_schema.no_info_after_validator_function(
        lambda m: structs.validate(struct, m.model_dump()), twin)
    return core_schema.json_or_python_schema(
        json_schema=from_input,
        python_schema=core_schema.union_schema([core_schema.is_instance_schema(struct), from_input]),
        serialization=core_schema.plain_serializer_function_ser_schema(
            lambda value, info: structs.dump(value, json=info.mode == "json")
            if isinstance(value, msgspec.Struct) else value, info_arg=True))


def _as_pydantic_field(cls: type[msgspec.Struct], source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    return struct_core_schema(cls, handler)


# A struct as a field of a pydantic model (a Turn's findings, an API body's workload): pydantic asks the field's
# type for `__get_pydantic_core_schema__`. Installed here, on the three bases, so that knowledge.structs never
# imports pydantic or this module (no cycle); every module that declares such a model imports this one.
for _base in (structs.Frozen, structs.Mutable, structs.Value):
    setattr(_base, "__get_pydantic_core_schema__", classmethod(_as_pydantic_field))  # noqa: B010 (a class hook)

