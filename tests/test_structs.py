"""knowledge.structs: the core's msgspec structs check what they are given and fail in one line naming the field.

The two bugs of issue 25 (full-width digits accepted, a dict with non-string keys escaping as a TypeError) and a
deterministic fuzz of the public constructors and of CLI options: every refusal is an InputError of one line
naming the field, through the constructors, the CLI and the HTTP API alike.
"""

from __future__ import annotations

import contextlib
import io
import math

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from advisor.analysis.request import AnalysisRequest
from advisor.estimator.results import Breakdown
from advisor.workload import DEFAULT_CONTEXT, Constraints, ExistingGpus, Workload, field_bounds
from knowledge.errors import InputError
from knowledge.structs import StructError, dump, fields, replace, validate
from knowledge.structs import given as was_given


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


# --- the two bugs named in the issue ---------------------------------------------------------------------------

def test_full_width_digits_are_refused_like_the_http_api() -> None:
    with pytest.raises(StructError) as info:
        Workload(context="１０２４")  # type: ignore[arg-type]
    assert info.value.field == "context" and "valid integer" in _one_line(info.value)
    with pytest.raises(StructError):
        validate(Workload, {"context": "１０２４"})
    assert Workload(context="1024").context == 1024  # type: ignore[arg-type]  # ASCII text is read, as before


def test_existing_with_non_string_keys_is_one_line_not_a_type_error() -> None:
    with pytest.raises(InputError) as info:
        Constraints(existing={1: 2})  # type: ignore[arg-type]
    assert info.value.field is not None and info.value.field.startswith("existing")
    _one_line(info.value)
    with pytest.raises(InputError):
        validate(Constraints, {"existing": {1: 2}})


def test_cli_and_api_name_the_same_field_for_full_width_digits() -> None:
    from fastapi.testclient import TestClient

    from ui.api.http import build_api

    status, err = _cli(["estimate", "--model", "llama-3-70b", "--context", "１０２４", "--json"])
    assert status == 2 and "--context" in err and err.count("\n") == 1, err
    r = TestClient(build_api()).post("/api/v1/estimate", json={"model": "llama-3-70b", "context": "１０２４"})
    assert r.status_code == 422 and r.json()["field"] == "context"


# --- what the structs do ------------------------------------------------------------------------------------------

def test_lax_input_is_converted_and_stored_in_the_fields_type() -> None:
    w = Workload(context="2048", tp=2, gpus=2)  # type: ignore[arg-type]
    assert w.context == 2048 and type(w.context) is int
    c = Constraints(budget=100, candidates=["h100-sxm"])  # type: ignore[arg-type]
    assert c.budget == 100.0 and type(c.budget) is float and c.candidates == ("h100-sxm",)
    assert Breakdown(weights=10.4, kv_cache=1.6).total.n == 12  # parts rounded to whole bytes, total their sum


def test_errors_name_field_limit_and_accepted_values() -> None:
    with pytest.raises(StructError) as info:
        Workload(context=0)
    err = info.value.errors()[0]
    assert err["loc"] == ("context",) and err["type"] == "greater_than_equal" and err["ctx"] == {"ge": 1}
    assert info.value.accepted == "≥ 1"
    with pytest.raises(StructError) as info:
        Workload(weights="int3")  # type: ignore[arg-type]
    assert info.value.field == "weights" and "nf4" in (info.value.accepted or "")
    with pytest.raises(StructError) as info:
        Constraints(mfu=math.nan)
    assert info.value.field == "mfu" and "finite" in str(info.value)
    with pytest.raises(StructError) as info:
        validate(Constraints, {"bogus": 1})
    assert info.value.errors()[0]["type"] == "extra_forbidden"
    with pytest.raises(StructError) as info:
        Workload(tp=4)  # a cross-field check
    assert "tp × pp" in str(info.value) and info.value.message_zh


def test_nested_struct_error_keeps_its_place() -> None:
    with pytest.raises(StructError) as info:
        validate(Constraints, {"existing": {"gpu": "h100-sxm", "count": 0}})
    assert info.value.errors()[0]["loc"] == ("existing", "count")


def test_replace_dump_fields_bounds_and_provenance() -> None:
    w = Workload(model="llama-3-8b")
    assert not was_given(w, "context") and was_given(Workload(context=DEFAULT_CONTEXT), "context")
    v = replace(w, tp=1, batch=2)
    assert v.batch == 2 and v.model == "llama-3-8b" and not was_given(v, "context")
    assert dump(Constraints(existing=ExistingGpus(gpu="a", count=2)), json=True)["existing"] == {"gpu": "a", "count": 2}
    assert dump(Constraints(), json=True)["candidates"] == [] and dump(Constraints())["candidates"] == ()
    assert list(fields(Workload))[:3] == ["model", "task", "weights"]
    assert field_bounds(Workload, "context") == (1, 10_485_760, False, False)  # Llama 4 Scout's 10M = 10 × 2²⁰ tokens
    assert field_bounds(Constraints, "budget") == (0, 1e12, True, False)


# --- fuzz: constructors and CLI options -------------------------------------------------------------------------

_ODD = st.one_of(
    st.sampled_from(["１０２４", "٣", "1_000", " 12 ", "", "nan", "inf", "-1", "1e400", "0x10", "12abc"]),
    st.sampled_from([math.nan, math.inf, -math.inf, -1, 0, -1.5, 1e300, 10**30, -(10**30), True]),
    st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
    st.lists(st.integers(), max_size=2),
    st.none(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
)

_TARGETS = [(Workload, name) for name in fields(Workload)] + [(Constraints, name) for name in fields(Constraints)] + \
    [(ExistingGpus, "count"), (AnalysisRequest, "workload"), (AnalysisRequest, "constraints")]


@seed(25)
@settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(_TARGETS), value=_ODD)
def test_constructors_take_a_value_or_refuse_it_in_one_line(target: tuple[type, str], value: object) -> None:
    cls, name = target
    extra: dict[str, object] = {"gpu": "h100-sxm", "count": 1} if cls is ExistingGpus else \
        {"workload": Workload(), "constraints": Constraints()} if cls is AnalysisRequest else {}
    for build in (lambda: cls(**{**extra, name: value}), lambda: validate(cls, {**extra, name: value})):
        try:
            built = build()
        except InputError as exc:
            _one_line(exc)
            assert exc.field and exc.field.split(".")[0] in (name, cls.__name__), (exc.field, name)
        else:
            got = getattr(built, name)
            if isinstance(got, float):
                assert math.isfinite(got) or got is value  # NaN/inf only where the field has no limit and says so


def _cli(argv: list[str]) -> tuple[int, str]:
    from ui.cli.entry import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, err.getvalue()


_CLI_OPTIONS = [("estimate", "--context"), ("estimate", "--batch"), ("estimate", "--tp"), ("estimate", "--gpus"),
                ("recommend", "--budget"), ("recommend", "--concurrency"), ("recommend", "--max-gpus-per-node"),
                ("recommend", "--existing"), ("throughput", "--count"), ("train-time", "--tokens")]
_CLI_VALUES = ["１０２４", "٣", "nan", "inf", "-1", "0", "1e400", "99999999999999999999999", "{1: 2}", "0×h100-sxm",
               "-5×h100", "1_0"]


@seed(25)
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(option=st.sampled_from(_CLI_OPTIONS), value=st.sampled_from(_CLI_VALUES))
def test_cli_options_refuse_odd_values_in_one_line(option: tuple[str, str], value: str) -> None:
    command, flag = option
    base = {"estimate": ["--model", "llama-3-8b"], "recommend": ["--model", "llama-3-8b"],
            "throughput": ["--model", "llama-3-8b", "--gpu", "h100-sxm"],
            "train-time": ["--model", "llama-3-8b", "--gpu", "h100-sxm"]}[command]
    if command == "train-time" and flag != "--tokens":
        base = [*base, "--tokens", "1e9"]
    status, err = _cli([command, *base, flag, value, "--json"])
    if status == 0:
        return  # a value the option takes (e.g. 0 for a field whose range includes it)
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert flag in err, (flag, err)


# --- derived results: built in code, not converted a second time --------------------------------------------------

def test_a_derived_result_with_its_declared_kinds_skips_the_conversion_but_not_the_checks() -> None:
    from knowledge.quantities import Money

    assert Breakdown.derived and not Workload.derived  # input is always converted; results the program computes are not
    paid = Money(amount=3, currency="USD")  # an int for a float is stored as a float, as msgspec's conversion does
    assert type(paid.amount) is float and dump(paid, json=True) == {"amount": 3.0, "currency": "USD"}
    with pytest.raises(StructError) as nan:
        Money(amount=math.nan, currency="USD")
    assert "finite" in _one_line(nan.value)
    with pytest.raises(StructError) as currency:
        Money(amount=1.0, currency="EUR")  # type: ignore[arg-type]
    assert "EUR" in _one_line(currency.value)
    with pytest.raises(StructError):
        Breakdown(weights=-4)  # negative bytes: refused by the derived class's own check
    assert Breakdown(weights=10.4, kv_cache=1.6).total.n == 12


def test_a_derived_result_given_another_kind_of_value_is_converted_and_checked_as_before() -> None:
    from knowledge.quantities import Money

    assert Money(amount="12.5", currency="CNY").amount == 12.5  # type: ignore[arg-type]  # text: converted (lax)
    with pytest.raises(StructError) as info:
        Money(amount="lots", currency="USD")  # type: ignore[arg-type]
    assert "amount" in _one_line(info.value)
    with pytest.raises(StructError):
        Money(amount=True, currency="USD")  # a bool is not a number here (msgspec refuses it)
