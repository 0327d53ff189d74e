"""The fact vocabulary: derived fields computed before assertion, normalisation, and GPU families."""

from __future__ import annotations

import pytest

from knowledge.errors import InputError
from rules.facts import ClaimFacts, ConfigFacts, WorkloadFacts, precision_of, validate_facts
from rules.gpus import family_of

GiB = 2**30


def test_derived_fields() -> None:
    c = ConfigFacts(gpu_id="rtx-4090", memory_bytes=24 * GiB, per_gpu_bytes=18 * GiB, kv_cache_bytes=9 * GiB,
                    tdp_w=450, count=8, nodes=2, tp=8, cpu_ram_bytes=128 * GiB, offload_cpu_bytes=96 * GiB,
                    train_wall_s=9 * 86400, deadline_s=10 * 86400, price_amount=120_000, budget_amount=100_000,
                    currency="CNY", power_limit_w=2400, tokens_per_s=500, min_tokens_per_s=1000,
                    ms_per_token=30, max_ms_per_token=60, context=8192, max_context=4096)
    assert c.gpu_family == "rtx-4090"
    assert c.gpus_per_node == 4 and c.tp_spans_nodes is True
    assert c.fits is True and c.headroom_ratio == pytest.approx(0.25)
    assert c.kv_share == pytest.approx(0.5)
    assert c.offload_ram_ratio == pytest.approx(0.75)
    assert c.deadline_ratio == pytest.approx(0.9)
    assert c.budget_ratio == pytest.approx(1.2)
    assert c.power_w == 3600 and c.node_gpu_power_w == 1800 and c.power_ratio == pytest.approx(1.5)
    assert c.throughput_ratio == pytest.approx(0.5) and c.latency_ratio == pytest.approx(0.5)
    assert c.context_ratio == pytest.approx(2.0)


def test_does_not_fit_gives_negative_headroom() -> None:
    c = ConfigFacts(gpu_id="rtx-4080", memory_bytes=16 * GiB, per_gpu_bytes=20 * GiB)
    assert c.fits is False and c.headroom_ratio == pytest.approx(-0.25)


def test_explicit_derived_value_wins() -> None:
    c = ConfigFacts(gpu_id="h20", memory_bytes=96 * GiB, per_gpu_bytes=80 * GiB, fits=False, headroom_ratio=-0.01)
    assert c.fits is False and c.headroom_ratio == -0.01


def test_to_facts_is_flat_and_without_none() -> None:
    d = ConfigFacts(gpu_id="a100-80g-sxm", task="inference").to_facts()
    assert d["kind"] == "config" and d["gpu_family"] == "a100"
    assert all(v is not None and not isinstance(v, (dict, list)) for v in d.values())
    assert "per_gpu_bytes" not in d


@pytest.mark.parametrize(("fmt", "family"), [
    ("bf16", "bf16"), ("awq-int4", "int4"), ("nf4", "int4"), ("gptq-int8", "int8"), ("q6_k", "int8"),
    ("q4_k_m", "int4"), ("q2_k", "int2"), ("FP8", "fp8"),
])
def test_precision_families(fmt: str, family: str) -> None:
    assert precision_of(fmt) == family
    assert ConfigFacts(gpu_id="rtx-4090", precision=fmt).precision == family


def test_unknown_precision() -> None:
    with pytest.raises(InputError, match="precision 'fp7'.*accepted:.*awq-int4"):
        precision_of("fp7")


def test_alias_resolves_to_catalog_id() -> None:
    assert ConfigFacts(gpu_id="RTX 4090").gpu_id == "rtx-4090"
    assert ConfigFacts(gpu_id="魔改2080ti").gpu_family == "rtx-2080ti-22g"


def test_from_gpu_takes_hardware_from_catalog() -> None:
    from knowledge.catalog import load_catalog

    spec = load_catalog().gpu("rtx-3090")
    c = ConfigFacts.from_gpu(spec, count=2, task="lora")
    assert (c.gpu_arch, c.segment, c.nvlink, c.memory_bytes, c.tdp_w) == ("ampere", "consumer", True, 24 * GiB, 350)


def test_workload_facts_validate() -> None:
    w = WorkloadFacts(task="qlora", params=1.4e10, concurrency=3, precision="nf4")
    assert w.precision == "int4" and w.to_facts()["kind"] == "workload"
    with pytest.raises(InputError, match="params"):
        validate_facts({"kind": "workload", "task": "inference", "params": -1})


def test_claim_facts_need_a_unit_and_a_known_source() -> None:
    with pytest.raises(InputError, match="stated_value needs its unit"):
        validate_facts({"kind": "claim", "claim_id": "x", "verdict": "wrong", "claim_source": "guide-000",
                        "stated_value": 1})
    c = ClaimFacts(claim_id="x", verdict="wrong", claim_source="guide-003", stated_value=28, unit="GB",
                   computed_value=35)
    assert c.computed_unit == "GB"


@pytest.mark.parametrize(("name", "family"), [
    ("rtx-4090", "rtx-4090"), ("NVIDIA GeForce RTX 4090 D", "rtx-4090d"), ("4090d", "rtx-4090d"),
    ("a100-40g-pcie", "a100"), ("A10", "a10"), ("a800-80g-sxm", "a800"), ("h20-141g", "h20"), ("H200", "h200"),
    ("l40s", "l40s"), ("L40", "l40"), ("l4", "l4"), ("L20", "l20"), ("Tesla T4", "t4"), ("v100-16g-sxm2", "v100"),
    ("rtx-2080ti-22g", "rtx-2080ti-22g"), ("2080 Ti", "rtx-2080ti"), ("2080ti 22g魔改版", "rtx-2080ti-22g"),
    ("rtx-4080-super", "rtx-4080-super"), ("RTX 4080", "rtx-4080"), ("RTX A6000", "rtx-a6000"),
    ("RTX 6000 Ada Generation", "rtx-6000-ada"), ("AMD Instinct MI300X", "mi300x"), ("Ascend 910B", "ascend-910b"),
    ("rtx-5090d", "rtx-5090d"), ("rtx 5090", "rtx-5090"), ("gtx 1080", None),
])
def test_family_of(name: str, family: str | None) -> None:
    assert family_of(name) == family


def test_every_weight_format_has_a_precision_family():
    """The rules reason about precision families; every format the workload accepts (new ones included: MXFP4,
    NVFP4, the GGUF i-quants) must map to one, or a question naming it fails before any rule runs."""
    from typing import get_args

    from advisor.workload import WeightFormat
    from rules.facts import precision_of

    bits = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4, "int3": 3, "int2": 2}
    for fmt in get_args(WeightFormat):
        assert precision_of(fmt) in bits, fmt
    assert precision_of("mxfp4") == "int4" and precision_of("iq2_xs") == "int2" and precision_of("iq4_xs") == "int4"
