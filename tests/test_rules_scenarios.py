"""Every rule fires on its `fires` scenarios and stays silent on its `silent` ones (tests/rules_scenarios/),
through the durable_rules engine and, identically, through the pure-Python reference evaluator."""

from __future__ import annotations

import pytest

from rules.engine import evaluate
from rules.pure import evaluate_pure
from tests.rules_cases import flat_cases

CASES = flat_cases()


@pytest.mark.parametrize(("rule_id", "which", "i", "facts"), CASES,
                         ids=[f"{r}-{w}-{i}" for r, w, i, _ in CASES])
def test_rule_scenario(rule_id: str, which: str, i: int, facts: dict) -> None:
    found = evaluate(facts)
    ids = [f.rule_id for f in found]
    if which == "fires":
        assert rule_id in ids, f"{rule_id} should fire on {facts}; fired: {ids}"
        hit = next(f for f in found if f.rule_id == rule_id)
        assert hit.message and hit.message_zh and hit.source
        assert "?" not in hit.message.replace("？", ""), hit.message  # every template field was rendered
    else:
        assert rule_id not in ids, f"{rule_id} should stay silent on {facts}"
    assert found == evaluate_pure(facts), "durable and the reference evaluator disagree"


def test_guide_configuration_7b_on_4080_explains_itself() -> None:
    """Guide-000's '7B FP16 inference on one RTX 4080': with the KV cache at 4k context it does not fit,
    and the findings say so with the numbers (the recommender compares its options to the guide this way)."""
    from tests.rules_cases import bases

    facts = [
        {"kind": "workload", "task": "inference", "params": 6.74e9, "concurrency": 1},
        {**bases()["rtx-4080"], "task": "inference", "precision": "fp16", "params": 6.74e9,
         "per_gpu_bytes": 17_600_000_000, "kv_cache_bytes": 2_147_483_648, "context": 4096},
    ]
    found = evaluate(facts)
    ids = [(f.fact_index, f.rule_id) for f in found]
    assert (1, "sizing-does-not-fit") in ids
    assert (0, "size-table-7b") in ids and (0, "tier-personal") in ids
    block = next(f for f in found if f.rule_id == "sizing-does-not-fit")
    assert "16.4 GiB" in block.message and "16.0 GiB" in block.message  # 17.6e9 B = 16.39 GiB; 16 GiB card
    assert block.severity == "block" and block.facts["memory_bytes"] == 17179869184
