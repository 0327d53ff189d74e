"""The LLM tools' and the HTTP API / MCP argument schemas that describe a job or its limits are generated from the
`Workload` / `Constraints` structs (`knowledge.pydantic_models`), as the CLI's options are (tests/test_cli_fields.py):
each such property says what msgspec's own JSON Schema of the struct says (name, bounds, Literal choices,
description, default), except what a named `Adjust` changes, and no schema declares a struct field by hand."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from pydantic import BaseModel

from advisor.conversation.tools import registry as T
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.pydantic_models import Adjust, generated_fields, pydantic_model
from knowledge.structs import Frozen, Meta
from ui.api.service import OPERATIONS

# every argument model offered to the LLM, the MCP client or the HTTP client
MODELS: dict[str, type[BaseModel]] = {**{f"tool {s.name}": s.args for s in T.TOOLS.values()},
                                      **{f"api {o.name}": o.args for o in OPERATIONS.values()}}
# the models that describe a job or its limits, and the struct fields they must take from the structs
JOB_MODELS = {"EstimateMemoryArgs", "EstimateThroughputArgs", "TrainTimeArgs", "RecommendArgs", "CompareGpusArgs",
              "TcoArgs"}
# a field named like a struct field that means something else at that edge
OWN_MEANING = {("CompareGpusArgs", "gpus"): "the GPU ids compared, not GPUs per node"}
_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "description", "default")
_BOUNDS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
_SIDES = {"ge": ("minimum", "exclusiveMinimum"), "gt": ("minimum", "exclusiveMinimum"),
          "le": ("maximum", "exclusiveMaximum"), "lt": ("maximum", "exclusiveMaximum")}


def _struct_schema(struct: type[msgspec.Struct]) -> dict[str, Any]:
    schema = msgspec.json.schema(struct)
    return dict(schema["$defs"][struct.__name__]["properties"])


def _flat(prop: dict[str, Any]) -> dict[str, Any]:
    """A property's bounds, choices, description and default, wherever the schema puts them (an optional's
    anyOf member or the property itself)."""
    out: dict[str, Any] = {}
    for part in [*prop.get("anyOf", []), prop]:
        out.update({k: part[k] for k in _KEYS if k in part})
    if "const" in prop:
        out["enum"] = [prop["const"]]
    if "enum" in out:  # msgspec lists a Literal's values sorted, pydantic in their order
        out["enum"] = sorted(out["enum"], key=str)
    return out


def _skipped(adj: Adjust | None) -> set[str]:
    changes = adj.changes() if adj is not None else set()
    out = {k for k in _KEYS if k in changes}
    if "bounds" in changes:
        out |= _BOUNDS
    if "choices" in changes:
        out.add("enum")
    return out


def _cases() -> list[tuple[str, type[BaseModel]]]:
    seen: dict[type[BaseModel], str] = {}
    for label, model in MODELS.items():
        seen.setdefault(model, label)
    return [(label, model) for model, label in seen.items()]


@pytest.mark.parametrize(("label", "model"), _cases(), ids=[label for label, _ in _cases()])
def test_each_generated_property_says_what_the_struct_says(label: str, model: type[BaseModel]) -> None:
    schema = model.model_json_schema()["properties"]
    made = generated_fields(model)
    if model.__name__ in JOB_MODELS:
        assert made, f"{label}: a job's arguments with no field from the structs"
    for name, (struct, field, adj) in made.items():
        want = _flat(_struct_schema(struct)[field])
        got = _flat(schema[name])
        skip = _skipped(adj)
        for key in set(want) | set(got):
            if key in skip:
                continue
            assert got.get(key) == want.get(key), f"{label}.{name} ({struct.__name__}.{field}): {key}"
        if adj is not None and adj.note:  # a note extends the struct's description, never replaces it
            assert got["description"] == want["description"] + adj.note
        if adj is not None and "bounds" in adj.changes():  # a side the adjustment names is its; the other, the struct's
            expected = {k: want[k] for k in _BOUNDS & set(want)}
            for limit, value in adj.limits.items():
                if limit in _SIDES:
                    for key in _SIDES[limit]:
                        expected.pop(key, None)
                    expected[_SIDES[limit][limit in ("gt", "lt")]] = value
            assert {k: got[k] for k in _BOUNDS & set(got)} == expected, f"{label}.{name}"
        if adj is not None and "choices" in adj.changes():  # a subset of the struct's choices, never a new one
            assert set(got["enum"]) < set(want["enum"])


_JOBS = [(label, model) for label, model in _cases() if model.__name__ in JOB_MODELS]


@pytest.mark.parametrize(("label", "model"), _JOBS, ids=[label for label, _ in _JOBS])
def test_no_struct_field_is_declared_by_hand(label: str, model: type[BaseModel]) -> None:
    """A job's field named like a Workload/Constraints field is generated from it (or means something else,
    named). The catalog's filters and look-ups (list_gpus' region, lookup_model's model id) are no job."""
    made = generated_fields(model)
    struct_names = set(Workload.__struct_fields__) | set(Constraints.__struct_fields__)
    renamed = {field for (_, field, _) in made.values()}
    for name in model.model_fields:
        if name in struct_names and name not in made and (model.__name__, name) not in OWN_MEANING:
            pytest.fail(f"{label}: {name} is declared by hand; generate it from the struct")
        assert name not in renamed or name in made, f"{label}: {name} is a struct field under another name too"


class _Job(Frozen):
    lo: int = 1
    hi: Annotated[int, Meta(ge=1, le=10)] = 5

    def check_invariants(self) -> None:
        if self.lo > self.hi:
            raise ValueError("lo > hi")


def test_the_generated_model_keeps_the_struct_checks_and_the_adjustments() -> None:
    """The generator on a small struct: a whole model runs the struct's cross-field check; an adjusted default,
    range, name and an optional field are what the adjustment says; an unknown field name is refused."""

    whole = pydantic_model(_Job)
    assert whole(lo=2, hi=3).hi == 3
    with pytest.raises(ValueError, match="lo > hi"):
        whole(lo=4, hi=3)
    part = pydantic_model(_Job, only=("hi",), adjust={"hi": Adjust(name="top", default=7, limits={"le": 8})})
    assert list(part.model_fields) == ["top"] and part().top == 7  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="less than or equal to 8"):
        part(top=9)
    optional = pydantic_model(ExistingGpus, adjust={"count": Adjust(optional=True)})
    assert optional(gpu="h20").count is None  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        optional(gpu="h20", count=0)
    with pytest.raises(TypeError, match="no field nope"):
        pydantic_model(_Job, only=("nope",))

