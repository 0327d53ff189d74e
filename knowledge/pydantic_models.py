"""pydantic models generated from the core's structs (knowledge.structs), for the edges that need pydantic itself:
the LLM tools' and the HTTP API's argument schemas (JSON Schema, FastAPI, the MCP SDK, LangChain). The fields,
limits, defaults and descriptions come from the struct; its `normalize` and `check` run on what pydantic accepted,
so a tool argument and a CLI flag accept the same values. Never a second hand-kept definition.

    WorkloadFields = pydantic_model(Workload, base=_Args)   # Workload's fields as a pydantic model
    class WorkloadArgs(WorkloadFields): ...                 # a tool's arguments
    Part = pydantic_model(Constraints, _Args, only=("budget", "region"),            # some fields, one of them
                          adjust={"region": Adjust(default="cn")})                  # changed for this edge

An edge that needs a field a little different (a required model id, a narrower range, another default, a list
for a tuple) names the change with `Adjust`, with a comment saying why; the model keeps the record
(`generated_fields(model)`) so a test can check every other attribute against the struct.

Imported only by those edges (it imports pydantic); the CLI's scriptable commands never load it.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import msgspec
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, GetCoreSchemaHandler, create_model, model_validator
from pydantic_core import core_schema

from knowledge import structs

_UNION = (typing.Union, types.UnionType)
# limits only: a field's description goes on the field itself (`_build_model`), once, not also inside the anyOf
# member of an optional (where a schema that drops the field's description would still carry it)
_META = ("ge", "gt", "le", "lt", "pattern", "min_length", "max_length")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_RECORD = "__generated_fields__"
class _Keep:
    """An Adjust attribute left as the struct has it (not msgspec.NODEFAULT: as a struct default that means "required")."""

    def __repr__(self) -> str:
        return "KEEP"


_KEEP: Any = _Keep()


class Adjust(structs.Value):
    """One edge's change to a field generated from a struct; every attribute left unset is the struct's. Each use
    says why in a comment (a second hand-kept definition is what this replaces)."""

    name: str | None = None  # the field under another name at this edge (train_time's `tokens`)
    annotation: Any = None  # another type: a looser container, a required value, a subset of the Literal
    default: Any = _KEEP
    required: bool = False  # no default, and None is no value
    optional: bool = False  # None allowed, and the default
    description: str | None = None  # replaces the struct's (or gives one where it has none)
    note: str = ""  # appended to the struct's description
    limits: Mapping[str, Any] = msgspec.field(default_factory=dict)  # Field limits: ge, gt, le, lt, min_length, max_length
    aliases: tuple[str, ...] = ()  # other accepted input names
    extra: Mapping[str, Any] | None = None  # JSON Schema keywords for this edge

    def changes(self) -> set[str]:
        """The field attributes this adjustment changes (what a test skips comparing with the struct)."""
        out = {a for a in ("annotation", "description") if getattr(self, a) is not None}
        out |= {"description"} if self.note else set()
        out |= {"default"} if self.default is not _KEEP or self.required or self.optional else set()
        out |= {"bounds"} if set(self.limits) & {"ge", "gt", "le", "lt"} else set()
        out |= {"length"} if set(self.limits) & {"min_length", "max_length"} else set()
        return out | ({"choices"} if typing.get_origin(self.annotation) is Literal else set())


def _field_kwargs(extras: tuple[object, ...], drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for extra in extras:
        if isinstance(extra, msgspec.Meta):
            out.update({k: getattr(extra, k) for k in _META if getattr(extra, k) is not None and k not in drop})
        elif extra is structs.FINITE:
            out["allow_inf_nan"] = False
    return out


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _translate(annotation: Any, drop: frozenset[str] = frozenset()) -> Any:
    """`annotation` with struct classes replaced by their pydantic models and Meta limits by Field's (but the
    limits named in `drop`: an adjustment states them)."""
    if _is_struct(annotation):
        return pydantic_model(annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return Annotated[_translate(args[0]), Field(**_field_kwargs(tuple(args[1:]), drop))]
    if origin in _UNION:
        return typing.Union[tuple(_translate(a, drop) for a in args)]  # noqa: UP007 - built from a tuple
    if origin in (tuple, list, set, frozenset, dict) and args:
        return origin[tuple(a if a is Ellipsis else _translate(a) for a in args)]
    return annotation


_TWINS: dict[tuple[type, type[BaseModel]], type[BaseModel]] = {}


def pydantic_model(struct: type[msgspec.Struct], base: type[BaseModel] = _Strict, *,
                   only: tuple[str, ...] | None = None, adjust: Mapping[str, Adjust] | None = None) -> type[BaseModel]:
    """A pydantic model named like `struct`, on `base`, with its fields (types, defaults, limits, descriptions)
    and its checks as an "after" validator (the whole struct: built once per pair). `only`: these fields alone
    (the struct's cross-field checks then run where the caller builds the struct); `adjust`: named changes."""
    if only is None and not adjust:
        twin = _TWINS.get((struct, base))
        if twin is None:
            twin = _TWINS.setdefault((struct, base), _build_model(struct, base))
        return twin
    return _build_model(struct, base, only=only, adjust=adjust or {})


def _schema_extra(annotation: Any) -> dict[str, Any] | None:
    """A field's `Meta(extra_json_schema=...)`: JSON Schema keywords it documents (a rule the model must meet)."""
    if typing.get_origin(annotation) is Annotated:
        for extra in typing.get_args(annotation)[1:]:
            if isinstance(extra, msgspec.Meta) and extra.extra_json_schema:
                return dict(extra.extra_json_schema)
    if typing.get_origin(annotation) in _UNION:
        return next((d for a in typing.get_args(annotation) if (d := _schema_extra(a))), None)
    return None


def _description(annotation: Any) -> str | None:
    if typing.get_origin(annotation) is Annotated:
        for extra in typing.get_args(annotation)[1:]:
            if isinstance(extra, msgspec.Meta) and extra.description:
                return extra.description
    if typing.get_origin(annotation) in _UNION:
        return next((d for a in typing.get_args(annotation) if (d := _description(a))), None)
    return None


def _field(info: msgspec.structs.FieldInfo, hint: Any, adj: Adjust) -> tuple[Any, Any]:
    """(annotation, FieldInfo) of one struct field at an edge, with its adjustment applied."""
    kwargs: dict[str, Any] = dict(adj.limits)
    text = adj.description if adj.description is not None else _description(hint)
    if adj.note:
        text = f"{text}{adj.note}" if text else adj.note.lstrip("; ")
    if text:
        kwargs["description"] = text
    if adj.default is not _KEEP:
        kwargs["default"] = adj.default
    elif adj.required:
        pass  # no default: the edge needs the value
    elif adj.optional:
        kwargs["default"] = None
    elif info.default_factory is not msgspec.NODEFAULT:
        kwargs["default_factory"] = info.default_factory
    elif info.default is not msgspec.NODEFAULT:
        kwargs["default"] = info.default
    if adj.aliases:
        kwargs["validation_alias"] = AliasChoices(adj.name or info.name, *adj.aliases)
    extra = {**(_schema_extra(hint) or {}), **(adj.extra or {})}
    if extra:
        kwargs["json_schema_extra"] = extra
    # an adjusted limit replaces the struct's of the same side (ge or gt, le or lt), not adds to it
    sides = {"ge": ("ge", "gt"), "gt": ("ge", "gt"), "le": ("le", "lt"), "lt": ("le", "lt")}
    drop = frozenset(k for limit in adj.limits for k in sides.get(limit, (limit,)))
    annotation = adj.annotation if adj.annotation is not None else _translate(hint, drop)
    if adj.required and typing.get_origin(annotation) in _UNION:
        annotation = typing.Union[tuple(a for a in typing.get_args(annotation) if a is not type(None))]  # noqa: UP007
    elif adj.optional:
        annotation = typing.Union[annotation, None]  # noqa: UP007 - built at run time
    return annotation, Field(**kwargs)


def _build_model(struct: type[msgspec.Struct], base: type[BaseModel], *, only: tuple[str, ...] | None = None,
                 adjust: Mapping[str, Adjust] | None = None) -> type[BaseModel]:
    hints = typing.get_type_hints(struct, include_extras=True)
    adjust = adjust or {}
    unknown = (set(only or ()) | set(adjust)) - set(struct.__struct_fields__)
    if unknown:
        raise TypeError(f"{struct.__name__} has no field {', '.join(sorted(unknown))}")
    fields: dict[str, Any] = {}
    record: dict[str, tuple[type[msgspec.Struct], str, Adjust | None]] = {}
    for info in msgspec.structs.fields(struct):
        if only is not None and info.name not in only:
            continue
        adj = adjust.get(info.name)
        name = adj.name if adj is not None and adj.name else info.name
        fields[name] = _field(info, hints[info.name], adj or Adjust())
        record[name] = (struct, info.name, adj)

    def after(self: BaseModel) -> BaseModel:  # the struct's own normalisation and checks on what pydantic took
        try:
            data = self.model_dump()  # a subclass (a tool's arguments) may add fields of its own
            structs.validate(struct, {name: data[name] for name in struct.__struct_fields__ if name in data})
        except structs.StructError as exc:
            raise ValueError(str(exc).split(": ", 1)[-1].removeprefix("Value error, ")) from None
        return self

    # the whole struct's checks; a part (`only`), a renamed or an optional field: where the caller builds the struct.
    # Named by the struct, so that a model made of two structs' parts keeps both.
    whole = only is None and all(a.name is None and not a.optional for a in adjust.values())
    validators = {f"{struct.__name__}_checks": model_validator(mode="after")(after)} if whole else {}
    # pydantic annotates __validators__ as plain callables, though it documents (and takes) decorated validators
    model = create_model(struct.__name__, __base__=base, __validators__=validators,  # type: ignore[arg-type]
                         __module__=struct.__module__, **fields)
    setattr(model, _RECORD, record)  # read back by generated_fields
    return model


def generated_fields(model: type[BaseModel]) -> dict[str, tuple[type[msgspec.Struct], str, Adjust | None]]:
    """Every field of `model` (through its bases) generated from a struct: name → (struct, field, adjustment);
    a field the model itself declares again is its own (left out)."""
    out: dict[str, tuple[type[msgspec.Struct], str, Adjust | None]] = {}
    for cls in reversed(model.__mro__):
        made = cls.__dict__.get(_RECORD, {})
        out.update(made)
        for name in inspect.get_annotations(cls):
            if name in out and name not in made:
                del out[name]
    return out


def struct_core_schema(struct: type[msgspec.Struct], handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    """How a pydantic model holds a struct field (an API body's workload): an instance is kept as
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


# A struct as a field of a pydantic model (an API body's workload): pydantic asks the field's
# type for `__get_pydantic_core_schema__`. Installed here, on the three bases, so that knowledge.structs never
# imports pydantic or this module (no cycle); every module that declares such a model imports this one.
for _base in (structs.Frozen, structs.Mutable, structs.Value):
    setattr(_base, "__get_pydantic_core_schema__", classmethod(_as_pydantic_field))  # noqa: B010 (a class hook)

