"""The durable_rules wrapper: deterministic results, thread safety, clean sessions, clear errors."""

from __future__ import annotations

import random
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from knowledge.errors import AdvisorError, InputError, UnknownGpu
from knowledge.structs import validate
from rules import engine as engine_module
from rules.conditions import f
from rules.engine import RULESET, RuleEngineError, compile_condition, engine, evaluate
from rules.meta import SEVERITY_RANK, get_rule
from rules.pure import evaluate_pure
from tests.rules_cases import BIG, bases, flat_cases

GiB = 2**30

# one request per firing scenario: a realistic mix of kinds and sizes
REQUESTS = [facts for _, which, _, facts in flat_cases() if which == "fires"]


def test_many_rules_fire_on_one_fact() -> None:
    """Facts that satisfy many rules at once stay under durable's 64-entry alpha stack (ERR 303); the findings
    come sorted by fact, then severity (block, warn, info), then rule id."""
    found = evaluate(BIG)
    per_fact = {i: [x.rule_id for x in found if x.fact_index == i] for i in range(len(BIG))}
    assert per_fact[0] == ["size-table-70b", "tier-large-team"]
    assert per_fact[1] == [
        "cap-no-nvlink", "market-cn-4090-restricted", "sizing-over-budget", "sizing-over-power",
        "sizing-throughput-short", "sizing-tp-heads",
        "risk-used-card", "risk-workstation-power", "sizing-context-over-model", "sizing-low-headroom",
        "sizing-pcie-tensor-parallel", "sub-4090-3090-fp8",
        "practice-cloud-fluctuating", "practice-energy-always-on", "practice-hardware-lifecycle", "risk-consumer-24x7",
        "sizing-kv-dominates", "value-4090-inference", "value-rank-rtx-4090", "value-scope-4090",
    ]
    assert per_fact[2] == [
        "sizing-deadline-missed", "sizing-does-not-fit", "sizing-offload-ram-short",
        "cap-bf16-needs-ampere", "cap-fa2-training", "practice-interconnect-multi-node", "practice-memory-first",
        "risk-consumer-multi-node", "risk-modded-card", "sizing-tp-spans-nodes",
        "cap-old-arch-software", "risk-consumer-24x7", "risk-geforce-datacenter-licence", "value-rank-rtx-2080ti-22g",
    ]
    assert per_fact[3] == ["claim-wrong-statement"]
    assert found == evaluate_pure(BIG)


def test_deterministic_and_sorted() -> None:
    first = evaluate(BIG)
    for _ in range(5):
        assert evaluate(BIG) == first
    keys = [(x.fact_index, SEVERITY_RANK[x.severity], x.rule_id) for x in first]
    assert keys == sorted(keys)


def test_order_of_facts_only_moves_fact_index() -> None:
    forward = evaluate(BIG)
    backward = evaluate(list(reversed(BIG)))
    n = len(BIG) - 1
    moved = sorted(((n - x.fact_index, x.rule_id, x.message) for x in backward))
    assert moved == sorted((x.fact_index, x.rule_id, x.message) for x in forward)


def test_accepts_one_mapping_models_and_empty() -> None:
    from rules.facts import WorkloadFacts

    one = {"kind": "workload", "task": "inference", "params": 7e9}
    assert evaluate(one) == evaluate([one]) == evaluate(WorkloadFacts(task="inference", params=7e9))
    assert evaluate([]) == []


def test_fact_no_rule_reads_gives_nothing() -> None:
    assert evaluate({"kind": "config", "gpu_id": "h100-sxm"}) == []
    assert evaluate({"kind": "workload", "task": "inference", "params": 1e8, "concurrency": 1}) != []  # tier 1
    assert [x.rule_id for x in evaluate({"kind": "workload", "task": "pretrain", "params": 1.2e11})] == \
        ["size-table-130b", "tier-beyond"]


def test_session_state_is_deleted() -> None:
    eng = engine()
    evaluate(BIG)
    last = f"r{next(eng._sids) - 1}"  # peek: the id the last request used  # noqa: SLF001
    with pytest.raises(Exception, match="309|not found|Could not get"):
        eng._host.get_facts(RULESET, last)  # noqa: SLF001


def test_action_failure_becomes_rule_engine_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """durable swallows an exception raised in an action into the session state; the wrapper surfaces it."""

    def failing(rule_id: str):  # noqa: ANN202
        def action(c) -> None:  # noqa: ANN001
            raise ValueError(f"boom in {rule_id}")

        return action

    monkeypatch.setattr(engine_module, "_emit", failing)
    broken = engine_module.RuleEngine([get_rule("sizing-does-not-fit")])  # its own host: the shared one is untouched
    fact = {**bases()["rtx-4090"], "per_gpu_bytes": 30 * GiB}
    with pytest.raises(RuleEngineError, match="a rule action failed: boom in sizing-does-not-fit"):
        broken.evaluate(fact)
    assert [x.rule_id for x in evaluate(fact)][:1] == ["sizing-does-not-fit"]  # the process engine is fine


@pytest.mark.parametrize(("fact", "error", "pattern"), [
    ({"kind": "config", "gpu_id": "rtx-9090"}, UnknownGpu, "unknown gpu 'rtx-9090'"),
    ({"kind": "config", "gpu_id": "rtx-4090", "region": "eu"}, InputError, "region.*accepted: cn, global"),
    ({"kind": "config", "gpu_id": "rtx-4090", "budget_amount": -5, "currency": "CNY"}, InputError,
     "budget_amount.*accepted: a number > 0"),
    ({"kind": "workload", "task": "inference", "params": 7e9, "budget_amount": -1}, InputError, "budget_amount"),
    ({"kind": "config", "gpu_id": "rtx-4090", "count": "many"}, InputError, "count"),
    ({"kind": "config", "gpu_id": "rtx-4090", "colour": "red"}, InputError, "unknown field 'colour'"),
    ({"kind": "gpu", "gpu_id": "rtx-4090"}, InputError, "kind 'gpu' is not known.*config, workload, claim"),
    ({"kind": "config", "gpu_id": "rtx-4090", "precision": "fp7"}, InputError, "precision 'fp7'"),
    ({"kind": "config", "gpu_id": "rtx-4090", "count": 2, "nodes": 3}, InputError, "nodes \\(3\\) exceeds count"),
    ({"kind": "config", "gpu_id": "rtx-4090", "price_amount": 10}, InputError, "currency"),
    ({"kind": "config", "gpu_id": "rtx-4090", "fits": False}, InputError, "fits needs per_gpu_bytes"),
    ({"kind": "workload", "task": "train", "params": 7e9}, InputError, "task"),
    ({"kind": "claim", "claim_id": "x", "verdict": "wrong", "claim_source": "guide-999"}, AdvisorError,
     "unknown source 'guide-999'"),
    ("not a fact", InputError, "facts must be a mapping"),
])
def test_bad_facts_give_clear_errors(fact, error, pattern) -> None:
    with pytest.raises(error, match=pattern):
        evaluate(fact)


def test_error_names_field_and_has_chinese() -> None:
    with pytest.raises(InputError) as info:
        evaluate({"kind": "config", "gpu_id": "rtx-4090", "region": "eu"})
    assert info.value.field == "region"
    assert info.value.localized("zh") != str(info.value)


def test_unknown_gpu_suggests_close_ids() -> None:
    with pytest.raises(UnknownGpu) as info:
        evaluate({"kind": "config", "gpu_id": "rtx-4900"})
    assert "rtx-4090" in info.value.suggestions


def test_compile_condition_shapes() -> None:
    cond = (f.gpu_family.one_of("a100", "h100")) & (f.tp > 2) & f.x.missing() & (f.y != 1)
    assert compile_condition(cond) == {"$and": [
        {"$or": [{"gpu_family": "a100"}, {"gpu_family": "h100"}]},
        {"$gt": {"tp": 2}}, {"$nex": {"x": 1}}, {"$neq": {"y": 1}},
    ]}


def test_threads_match_single_threaded() -> None:
    """16 threads × 250 requests (4,000 evaluations) give exactly the single-threaded findings, no crash."""
    requests = REQUESTS + [BIG]
    expected = [evaluate(r) for r in requests]
    errors: list[BaseException] = []
    mismatches: list[int] = []
    barrier = threading.Barrier(16)

    def worker(seed: int) -> None:
        rnd = random.Random(seed)
        try:
            barrier.wait()
            for _ in range(250):
                k = rnd.randrange(len(requests))
                if evaluate(requests[k]) != expected[k]:
                    mismatches.append(k)
        except BaseException as exc:  # noqa: BLE001 - collected and reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors[:3]
    assert not mismatches


_config = st.fixed_dictionaries(
    {"kind": st.just("config"),
     "gpu_id": st.sampled_from(["rtx-4090", "rtx-3090", "rtx-2080ti-22g", "a100-80g-sxm", "h20", "l20", "t4",
                                "rtx-5090", "a800-80g-sxm", "h100-sxm", "mi300x", "v100-32g-sxm2"])},
    optional={
        "gpu_arch": st.sampled_from(["volta", "turing", "ampere", "ada", "hopper", "blackwell", "cdna3"]),
        "segment": st.sampled_from(["consumer", "workstation", "datacenter"]),
        "memory_bytes": st.integers(8 * GiB, 192 * GiB),
        "per_gpu_bytes": st.integers(0, 200 * GiB),
        "kv_cache_bytes": st.integers(0, 100 * GiB),
        "tdp_w": st.sampled_from([70.0, 250.0, 350.0, 450.0, 575.0, 700.0]),
        "nvlink": st.booleans(), "modded": st.booleans(), "used": st.booleans(),
        "count": st.sampled_from([1, 2, 3, 4, 8, 16]),
        "tp": st.sampled_from([1, 2, 4, 8]),
        "region": st.sampled_from(["cn", "global"]),
        "acquisition": st.sampled_from(["buy", "rent", "owned"]),
        "task": st.sampled_from(["inference", "full", "lora", "qlora", "pretrain"]),
        "precision": st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8", "int4"]),
        "flash_attention": st.booleans(), "always_on": st.booleans(),
        "params": st.floats(1e8, 1e12), "train_wall_s": st.floats(0, 1e7),
        "load_pattern": st.sampled_from(["steady", "fluctuating"]),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_config)
def test_engine_agrees_with_reference_evaluator(fact: dict) -> None:
    if fact.get("kv_cache_bytes") is not None and fact.get("per_gpu_bytes") is None:
        fact.pop("kv_cache_bytes")
    assert evaluate(fact) == evaluate_pure(fact)


@pytest.mark.parametrize("extreme", ["low", "high"])
def test_extreme_facts_stay_within_engine_limits(extreme: str) -> None:
    """Every numeric field at one end of its range makes as many ordering tests pass at once as the rules allow
    (durable fails with ERR 303 beyond 64 on one fact); the engine must still agree with the reference."""
    from rules.facts import ConfigFacts

    big = extreme == "high"
    fact = {**bases()["rtx-5090"], "region": "cn", "task": "pretrain", "precision": "fp32", "used": True,
            "count": 4096 if big else 1, "nodes": 512 if big else 1, "tp": 1024 if big else 1,
            "params": 9e13 if big else 1.0, "per_gpu_bytes": 10**15 if big else 0, "kv_cache_bytes": 0,
            "cpu_ram_bytes": 1, "offload_cpu_bytes": 10**15 if big else 0,
            "train_wall_s": 1e9 if big else 0.0, "deadline_s": 1.0 if big else 1e9,
            "price_amount": 1e12 if big else 0.0, "budget_amount": 1.0 if big else 1e12, "currency": "USD",
            "power_limit_w": 1.0 if big else 1e9, "tokens_per_s": 0.0 if big else 1e9, "min_tokens_per_s": 1.0,
            "ms_per_token": 1e6 if big else 0.001, "max_ms_per_token": 1.0, "context": 10**7 if big else 1,
            "max_context": 1, "tco_years": 30 if big else 0.1, "always_on": True, "network": "ethernet",
            "load_pattern": "fluctuating", "fits_sharded": True, "tp_divides_heads": False, "wants_nvlink": True}
    assert validate(ConfigFacts, fact)
    found = evaluate(fact)
    assert found == evaluate_pure(fact)
    assert len(found) >= (25 if big else 8)


@pytest.mark.parametrize("value", [1e16, 1e-07, 1e-300, 5e-324, 1e22, 2.5e-05])
def test_numbers_durable_cannot_parse_are_prepared(value: float) -> None:
    """durable's JSON parser rejects an exponent without a decimal point (1e+16, 1e-07; error 204), which is how
    Python writes such floats. `prepare` rewrites them (integral → equal int, else a neighbouring float) and the
    engine then agrees with the reference evaluator."""
    import math

    from rules.request import prepare

    fact = {**bases()["rtx-4090"], "train_wall_s": value}
    prepared = prepare(fact)[0]["train_wall_s"]
    assert prepared == value or math.isclose(prepared, value, rel_tol=1e-15) or abs(prepared - value) < 1e-320
    assert evaluate(fact) == evaluate_pure(fact)
