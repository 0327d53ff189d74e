"""knowledge.record: the core's records validate as pydantic would, field type by field type.

The reference is pydantic itself: `knowledge.record_pydantic.pydantic_model(cls)` builds a pydantic model with the
same fields, limits and checks, and every input below must give the same values (and types) or the same first
error (type, location, message) from both.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import pickle
from typing import Any, Literal

import pytest
from pydantic import ValidationError

from advisor.estimator.results import Breakdown, MemoryEstimate
from advisor.workload import Constraints, Workload, field_bounds
from knowledge.catalog import PACKAGE_DATA, build_catalog
from knowledge.record import Field, NonNegativeInt, PositiveFloat, Record, RecordError
from knowledge.record_pydantic import pydantic_model
from knowledge.schemas import CloudPrice, GpuSpec, ModelSpec, Price
from rules.facts import ConfigFacts


class Sample(Record):
    """Every field type the project's records use."""

    name: str = "x"
    count: int = Field(1, ge=1, le=10)
    share: float = Field(0.5, gt=0, le=1)
    finite: float | None = Field(None, allow_inf_nan=False)
    flag: bool = False
    kind: Literal["a", "b", "c"] = "a"
    when: dt.date | None = None
    names: tuple[str, ...] = ()
    pair: tuple[int, str] | None = None
    items: list[str] = Field(default_factory=list, max_length=3)
    by_key: dict[str, list[str]] = Field(default_factory=dict)
    by_int: dict[int, float] = Field(default_factory=dict)
    size: NonNegativeInt = 0
    rate: PositiveFloat | None = None
    slug: str = Field("ab", pattern=r"^[a-z]+$")
    tags: frozenset[str] = frozenset()
    inner: Breakdown | None = None


def _outcome(cls: type, data: dict[str, Any]) -> tuple[str, Any]:
    try:
        obj = cls(**data)
    except (RecordError, ValidationError) as exc:
        err = exc.errors(include_url=False)[0]
        return "error", (err["type"], tuple(err["loc"]), err["msg"])
    return "ok", {k: (type(v).__name__, v) for k, v in obj.model_dump().items()}


SAMPLE_INPUTS = [
    {}, {"count": 3}, {"count": 3.0}, {"count": "4"}, {"count": 1.5}, {"count": 0}, {"count": 11}, {"count": None},
    {"count": "many"}, {"count": True}, {"share": 1}, {"share": 0}, {"share": 1.0000001}, {"share": "0.25"},
    {"share": "half"}, {"share": math.nan}, {"finite": math.inf}, {"finite": 2}, {"flag": 1}, {"flag": "yes"},
    {"flag": "off"}, {"flag": "maybe"}, {"flag": 2}, {"kind": "b"}, {"kind": "z"}, {"kind": 1}, {"name": 3},
    {"when": "2024-02-03"}, {"when": dt.date(2020, 1, 1)}, {"when": "soon"}, {"names": ["p", "q"]},
    {"names": "pq"}, {"names": ["p", 3]}, {"pair": [1, "x"]}, {"pair": [1, "x", 2]}, {"items": ["a", "b"]},
    {"items": ["a", "b", "c", "d"]}, {"by_key": {"k": ["v"]}}, {"by_key": {"k": "v"}}, {"by_int": {"4": 32}},
    {"size": -1}, {"size": 5}, {"rate": 0}, {"rate": 2}, {"slug": "abc"}, {"slug": "Abc"}, {"tags": ["t", "t"]},
    {"inner": {"weights": 3, "kv_cache": 2}}, {"inner": {"weights": -3}}, {"inner": {"weights": 1, "total": 5}},
    {"unknown": 1}, {"count": 0, "share": 0},
]


@pytest.mark.parametrize("data", SAMPLE_INPUTS, ids=[str(d) for d in SAMPLE_INPUTS])
def test_a_record_validates_as_pydantic_does(data):
    assert _outcome(Sample, data) == _outcome(pydantic_model(Sample), data)


WORKLOAD_INPUTS = [
    {"model": "llama-3-70b"}, {"model": "llama-3-70b", "context": 0}, {"model": "m", "context": 8192.0},
    {"model": "m", "weights": "int3"}, {"model": "m", "tp": 4, "gpus": 2},
    {"model": "m", "tp": 2, "pp": 2, "gpus": 2, "nodes": 2}, {"model": "m", "task": "qlora", "weights": "bf16"},
    {"model": "m", "train_tokens": math.inf}, {"model": "m", "train_tokens": 2e9}, {"model": "m", "zero": 4},
    {"model": "m", "flash_attention": "on"}, {"model": "m", "engine": "ollama"}, {"model": "m", "batch": "8"},
]


@pytest.mark.parametrize("data", WORKLOAD_INPUTS, ids=[str(d) for d in WORKLOAD_INPUTS])
def test_workload_validates_as_pydantic_does(data):
    assert _outcome(Workload, data) == _outcome(pydantic_model(Workload), data)


CONSTRAINT_INPUTS = [{"budget": 300_000, "currency": "CNY"}, {"budget": 0}, {"budget": math.nan},
                     {"existing": {"gpu": "rtx-3090", "count": 2}}, {"existing": {"gpu": "rtx-3090", "count": 0}},
                     {"candidates": ["h20", "l20"]}, {"max_gpus_per_node": 17}, {"region": "eu"}]


@pytest.mark.parametrize("data", CONSTRAINT_INPUTS, ids=[str(d) for d in CONSTRAINT_INPUTS])
def test_constraints_validate_as_pydantic_does(data):
    assert _outcome(Constraints, data) == _outcome(pydantic_model(Constraints), data)


def test_every_catalog_entry_validates_to_the_same_values_under_pydantic():
    """All GPUs and models of the packaged catalog, validated again by pydantic from their own dump: equal
    values and types (the catalog's citations checks included, through check_invariants)."""
    catalog = build_catalog(PACKAGE_DATA)
    for entry in (*catalog.gpus, *catalog.models):
        twin = pydantic_model(type(entry)).model_validate(entry.model_dump())
        assert twin.model_dump() == entry.model_dump()
        assert type(entry).model_validate(entry.model_dump(mode="json")) == entry  # and back from JSON


def test_cross_field_checks_and_before_hooks_report_as_pydantic_value_errors():
    gpu = build_catalog(PACKAGE_DATA).gpu("rtx-4090")
    bad = {**gpu.model_dump(), "cite": {**gpu.cite, "nonsense": ["x"]}}
    for cls in (GpuSpec, pydantic_model(GpuSpec)):
        with pytest.raises((RecordError, ValidationError), match="cite names unknown fields") as err:
            cls.model_validate(bad)
        assert err.value.errors()[0]["type"] == "value_error"
    with pytest.raises(RecordError, match="not the sum of the parts"):
        Breakdown(weights=1, total=5)
    assert Breakdown(weights=1.4, kv_cache=2.6).total == 4  # parts rounded to bytes, total filled in


def test_records_are_frozen_compared_by_value_hashable_copyable_and_picklable():
    w = Workload(model="llama-3-70b", context=8192)
    with pytest.raises(AttributeError):
        w.context = 1  # type: ignore[misc]
    same = Workload(model="llama-3-70b", context=8192)
    assert w == same and hash(w) == hash(same) and w != Workload(model="llama-3-70b")
    assert copy.deepcopy(w) == w and pickle.loads(pickle.dumps(w)) == w
    assert w.model_fields_set == {"model", "context"} and Workload.model_fields["context"].default == 4096
    assert repr(w).startswith("Workload(model='llama-3-70b', task='inference'")


def test_model_copy_does_not_validate_and_model_validate_does():
    w = Workload(model="m")
    odd = w.model_copy(update={"tp": 8})  # pydantic's model_copy does not validate either
    assert odd.tp == 8 and odd.model_fields_set == {"model", "tp"}
    with pytest.raises(RecordError, match="tp × pp = 8 exceeds"):
        Workload.model_validate(odd.model_dump())
    with pytest.raises(AttributeError):
        w.model_copy(update={"no_such_field": 1})


def test_mutable_records_private_attributes_and_mutable_defaults():
    facts = ConfigFacts(gpu_id="rtx 4090", memory_bytes=24 * 2**30, per_gpu_bytes=20 * 2**30)
    assert facts.gpu_id == "rtx-4090" and facts.fits is True and facts.headroom_ratio == pytest.approx(1 / 6)
    facts.count = 2  # a mutable record (frozen=False)
    assert facts.count == 2
    with pytest.raises(TypeError):
        hash(facts)
    a, b = Sample(), Sample()
    a.model_dump()["items"].append("x")
    assert a.items == [] and a.items is not b.items  # each instance its own list
    est = MemoryEstimate(model="m", task="inference", params=1, active_params=1, per_gpu=Breakdown(weights=1))
    assert est.cpu == Breakdown() and est.formulas == [] and est.formulas is not MemoryEstimate(
        model="m", task="inference", params=1, active_params=1, per_gpu=Breakdown()).formulas


def test_dump_modes_match_pydantic():
    given = {"amount": 1999, "currency": "USD", "date": "2024-01-30", "source": "s"}
    price, twin = Price(**given), pydantic_model(Price)(**given)
    for options in ({}, {"mode": "json"}, {"exclude_none": True}, {"exclude_unset": True}, {"exclude": {"note"}},
                    {"include": {"amount", "date"}}):
        assert price.model_dump(**options) == twin.model_dump(**options)
    assert price.model_dump_json() == twin.model_dump_json()
    quote = CloudPrice(usd_per_hour=0.3, provider="AutoDL", region="cn", cny_per_hour=2.1, date=dt.date(2025, 1, 1),
                       source="x")
    assert quote.model_dump(mode="json")["date"] == "2025-01-01"


def test_field_bounds_read_the_limits_the_cli_and_chat_show():
    assert field_bounds(Workload, "context") == (1, 10_000_000, False, False)
    assert field_bounds(Constraints, "budget") == (0, 1e12, True, False)
    assert field_bounds(ModelSpec, "hidden_size") == (0, None, True, False)  # PositiveInt


def test_errors_read_as_pydantic_errors_do():
    with pytest.raises(RecordError) as err:
        Workload(model="m", context=-5, weights="int3")
    assert err.value.error_count() == 2 and isinstance(err.value, ValueError)
    text = str(err.value)
    assert text.startswith("2 validation errors for Workload\nweights\n  Input should be 'fp32', 'bf16'")  # field order
    assert "context\n  Input should be greater than or equal to 1 [type=greater_than_equal" in text
    assert err.value.errors()[1]["ctx"] == {"ge": 1}


def test_an_int_put_in_a_float_field_unvalidated_is_stored_as_pydantic_would_dump_it():
    """model_copy does not validate, but pydantic serialises a float field as a float: `recommend --json` printed
    "deadline_s": 2592000.0 for a default deadline set by model_copy, and still must."""
    c = Constraints().model_copy(update={"deadline_s": 30 * 86400})
    twin = pydantic_model(Constraints)().model_copy(update={"deadline_s": 30 * 86400})
    assert c.model_dump_json() == twin.model_dump_json() and isinstance(c.deadline_s, float)


def test_the_dialog_turns_an_invalid_workload_or_budget_into_one_input_error():
    """The dialog builds Workload/Constraints from its slots: an out-of-range slot is one InputError naming the
    field (in both languages), never a RecordError or a NameError."""
    from advisor.conversation.dialog.machine import DialogState, build_constraints, build_workload
    from advisor.conversation.reader.extract import Slots
    from knowledge.errors import InputError

    state = DialogState(slots=Slots(model="qwen2.5-7b", context=-5))
    with pytest.raises(InputError) as err:
        build_workload(state)
    assert err.value.field == "context" and "greater than or equal to 1" in str(err.value)
    state = DialogState(slots=Slots(model="qwen2.5-7b", budget=-1.0))
    with pytest.raises(InputError) as err:
        build_constraints(state)
    assert err.value.field == "budget" and "参数 budget 无效" in err.value.message_zh


def test_structs_behave_as_frozen_dataclasses():
    from advisor.estimator.formats import FORMATS, FormatInfo
    from knowledge.params import Linear

    a = Linear("q_proj", 4096, 4096, 32, "attention")
    b = Linear(name="q_proj", d_in=4096, d_out=4096, count=32, group="attention")
    assert a == b and hash(a) == hash(b) and a.bias == 0  # positional or keyword, defaults filled in
    with pytest.raises(AttributeError):
        a.count = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        Linear("q_proj", 4096)  # a field without a default is required
    with pytest.raises(TypeError):
        Linear("q_proj", 4096, 4096, 32, "attention", color="red")
    assert FORMATS["bf16"] == FormatInfo("bf16", 16.0, "float", "BF16")
    assert a.model_copy(update={"count": 1}).count == 1 and a.count == 32
