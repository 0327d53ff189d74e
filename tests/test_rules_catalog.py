"""The rules agree with the knowledge base: hardware profiles, market status, capabilities, the figures
quoted in rule messages, and the guides' checked claims."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from rules.engine import evaluate
from rules.facts import ClaimFacts, ConfigFacts
from rules.gpus import FAMILY_NAMES, family_of
from rules.meta import get_rule
from rules.render import significant
from tests.rules_cases import bases

CATALOG = load_catalog()
GPUS = CATALOG.gpus
HARDWARE = ("gpu_arch", "segment", "memory_bytes", "tdp_w", "nvlink", "modded")


@pytest.mark.parametrize("name", [n for n, b in bases().items() if b.get("kind") == "config"])
def test_scenario_profiles_match_catalog(name: str) -> None:
    base = bases()[name]
    spec = CATALOG.gpu(base["gpu_id"])
    from_catalog = ConfigFacts.from_gpu(spec).to_facts()
    for field in HARDWARE:
        assert base.get(field, False) == from_catalog.get(field, False), (name, field)


@pytest.mark.parametrize("gpu", GPUS, ids=[g.id for g in GPUS])
def test_every_catalog_gpu_has_a_family(gpu) -> None:
    fam = family_of(gpu.id)
    assert fam in FAMILY_NAMES, gpu.id
    assert family_of(gpu.name) == fam, (gpu.id, gpu.name)


def _market(gpu, **kw):
    found = evaluate(ConfigFacts.from_gpu(gpu, region="cn", **kw))
    return {f.severity for f in found if f.topic == "market"}, [f for f in found if f.topic == "market"]


@pytest.mark.parametrize("gpu", GPUS, ids=[g.id for g in GPUS])
def test_market_rules_agree_with_catalog_status(gpu) -> None:
    """Buying new in China: restricted/not-sold cards are blocked, licence-required ones warned, others not blocked."""
    severities, found = _market(gpu, acquisition="buy")
    status = gpu.china.status
    if status in ("restricted", "not_sold"):
        assert "block" in severities, (gpu.id, status)
        owned, _ = _market(gpu, acquisition="owned")
        assert "block" not in owned
    elif status == "licence_required":
        assert "warn" in severities and "block" not in severities, (gpu.id, status)
    else:
        assert "block" not in severities and "warn" not in severities, (gpu.id, status, [f.rule_id for f in found])
    for f in found:
        assert f.as_of, f.rule_id
    assert not _market_global(gpu)


def _market_global(gpu) -> list[str]:
    return [f.rule_id for f in evaluate(ConfigFacts.from_gpu(gpu, region="global")) if f.topic == "market"]


@pytest.mark.parametrize("gpu", GPUS, ids=[g.id for g in GPUS])
def test_capability_rules_agree_with_catalog_flags(gpu) -> None:
    def fired(rule_id: str, **kw) -> bool:
        return rule_id in [f.rule_id for f in evaluate(ConfigFacts.from_gpu(gpu, **kw))]

    assert fired("cap-bf16-needs-ampere", precision="bf16", task="full") == (not gpu.supports_bf16)
    assert fired("cap-fp8-training", precision="fp8", task="pretrain") == (not gpu.supports_fp8)
    if gpu.vendor == "NVIDIA":
        assert fired("cap-fa2-training", task="lora") == (not gpu.supports_flash_attention_2)
    assert fired("risk-modded-card") == gpu.modded


GB, TFLOPS = 1e9, 1e12
# (rule, text in the message, gpu, catalog field, scale, the figure in that text)
QUOTED = [
    ("sub-4090-3090-inference", "1,008 GB/s", "rtx-4090", "bandwidth_bytes_per_s", GB, 1008),
    ("sub-4090-3090-inference", "936", "rtx-3090", "bandwidth_bytes_per_s", GB, 936),
    ("sub-4090-3090-inference", "350 W", "rtx-3090", "tdp_w", 1, 350),
    ("sub-4090-3090-inference", "450 W", "rtx-4090", "tdp_w", 1, 450),
    ("sub-4090-3090-inference", "71", "rtx-3090", "bf16_dense_flops", TFLOPS, 71),
    ("sub-4090-3090-inference", "165 TFLOPS", "rtx-4090", "bf16_dense_flops", TFLOPS, 165),
    ("sub-4090-3090-training", "112.5 GB/s", "rtx-3090", "nvlink_bytes_per_s", GB, 112.5),
    ("sub-3090-4090d-cn", "147 TFLOPS", "rtx-4090d", "bf16_dense_flops", TFLOPS, 147),
    ("sub-3090-4090d-cn", "425 W", "rtx-4090d", "tdp_w", 1, 425),
    ("sub-a100-a800-cn", "600", "a100-80g-sxm", "nvlink_bytes_per_s", GB, 600),
    ("sub-a100-a800-cn", "400 GB/s", "a800-80g-sxm", "nvlink_bytes_per_s", GB, 400),
    ("sub-l40-l20-cn", "864 GB/s", "l20", "bandwidth_bytes_per_s", GB, 864),
    ("sub-l40-l20-cn", "119.5 TFLOPS", "l20", "bf16_dense_flops", TFLOPS, 119.5),
    ("sub-l40-l20-cn", "181 (L40)", "l40", "bf16_dense_flops", TFLOPS, 181),
    ("sub-l40-l20-cn", "362 (L40S)", "l40s", "bf16_dense_flops", TFLOPS, 362),
    ("sub-h100-h800-cn", "148 TFLOPS", "h20", "bf16_dense_flops", TFLOPS, 148),
    ("sub-h100-h800-cn", "4.0 TB/s", "h20", "bandwidth_bytes_per_s", 1e12, 4.0),
    ("sub-h100-h800-cn", "900 GB/s", "h100-sxm", "nvlink_bytes_per_s", GB, 900),
    ("sub-5090-5090d-cn", "1,792 GB/s", "rtx-5090d", "bandwidth_bytes_per_s", GB, 1792),
    ("sub-5090-5090d-cn", "1,344 GB/s", "rtx-5090d-v2", "bandwidth_bytes_per_s", GB, 1344),  # 384 bit × 28 Gbps / 8
    ("market-cn-4090-restricted", "147 instead of 165", "rtx-4090d", "bf16_dense_flops", TFLOPS, 147),
    ("value-4090-training", "2,039 GB/s", "a100-80g-sxm", "bandwidth_bytes_per_s", GB, 2039),
    ("value-4090-training", "312 TFLOPS", "a100-80g-sxm", "bf16_dense_flops", TFLOPS, 312),
    ("value-4090-inference", "660 dense INT8", "rtx-4090", "int8_dense_ops", TFLOPS, 660),
    ("value-4090-inference", "A100's 624", "a100-80g-sxm", "int8_dense_ops", TFLOPS, 624),
    ("value-4090-inference", "1,555", "a100-40g-pcie", "bandwidth_bytes_per_s", GB, 1555),
    ("value-a6000-memory", "154.8", "rtx-a6000", "bf16_dense_flops", TFLOPS, 154.8),
]


@pytest.mark.parametrize(("rule_id", "quoted", "gpu_id", "field", "scale", "number"), QUOTED,
                         ids=[f"{r}:{q}" for r, q, *_ in QUOTED])
def test_quoted_figures_match_catalog(rule_id: str, quoted: str, gpu_id: str, field: str, scale: float,
                                      number: float) -> None:
    rule = get_rule(rule_id)
    assert quoted in rule.en, f"{rule_id} no longer quotes {quoted!r}"
    actual = getattr(CATALOG.gpu(gpu_id), field) / scale
    assert number == pytest.approx(actual, rel=0.006), (rule_id, quoted, actual)


def test_every_guide_claim_renders_as_one_claim_finding() -> None:
    from knowledge.guides import load_guides

    expected = {"right": {"claim-right"}, "dated": {"claim-dated"},
                "wrong": {"claim-wrong-figure", "claim-wrong-statement"}}
    claims = load_guides().claims
    assert len(claims) >= 20
    facts = [ClaimFacts.from_claim(c) for c in claims]
    found = evaluate(facts)
    by_index: dict[int, list] = {}
    for f in found:
        by_index.setdefault(f.fact_index, []).append(f)
    for i, claim in enumerate(claims):
        hits = by_index.get(i, [])
        assert len(hits) == 1 and hits[0].rule_id in expected[claim.verdict], (claim.id, [h.rule_id for h in hits])
        hit = hits[0]
        # the finding carries the claim's id in its facts (the JSON), never in the words people read (issue 30)
        assert facts[hit.fact_index].claim_id == claim.id  # the finding points at the claim's fact (and so its id)
        assert claim.id not in hit.message and claim.id not in hit.message_zh
        assert hit.sources[0] == claim.guide and claim.section in hit.source
        assert "?" not in hit.message, hit.message
        computed = claim.computed.value
        if isinstance(computed, (int, float)) and not isinstance(computed, bool):
            assert f"{significant(float(computed)):,g}" in hit.message, (claim.id, hit.message)


def test_design_errors_are_flagged_wrong() -> None:
    """Quoting a guide error from DESIGN.md gives a warning with the computed value, e.g. H100 '1513 TFLOPS'."""
    from knowledge.guides import load_guides

    claim = load_guides().claim("h100-fp16-1513")
    [hit] = evaluate(ClaimFacts.from_claim(claim))
    assert hit.rule_id == "claim-wrong-figure" and hit.severity == "warn"
    assert "1,513 TFLOPS" in hit.message and "756 TFLOPS" in hit.message
    assert "1,513 TFLOPS" in hit.message_zh


# --- the guides' tables (knowledge.guides) and the rules that state them -------------------------------------

def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_value_ranking_rules_follow_the_guide_table() -> None:
    from knowledge.guides import load_guides
    from rules.value import _RANKING

    order = load_guides().value_ranking.order
    assert tuple(family_of(g) for g in order) == _RANKING
    for rank, fam in enumerate(_RANKING, start=1):
        ordinal = ("first", "second", "third", "fourth", "fifth")[rank - 1]
        assert f"is {ordinal} of five" in get_rule(f"value-rank-{fam}").en


@pytest.mark.parametrize("tier_id", ["individual", "small-team", "large-team"])
def test_tier_rules_quote_the_guide_tiers(tier_id: str) -> None:
    from knowledge.guides import load_guides

    rule_for = {"individual": "tier-personal", "small-team": "tier-small-team", "large-team": "tier-large-team"}
    tier = load_guides().tier(tier_id)
    rule = get_rule(rule_for[tier_id])
    for cfg in (tier.basic, tier.advanced):
        name = FAMILY_NAMES[family_of(cfg.gpus.gpu)].removesuffix(" (modded)")
        assert f"{cfg.gpus.count}× {name}" in rule.en, (tier_id, cfg.gpus)
        assert f"¥{cfg.price_cny:,.0f}" in rule.en and f"¥{cfg.price_cny:,.0f}" in rule.zh
    assert f"{tier.demand.memory_estimate_gb:g} GB" in rule.en
    lo, hi = tier.demand.concurrency
    assert f"{lo}–{hi} concurrent" in rule.en
    # the guide's own demand profile lands in this tier, for serving and for training from scratch
    top = tier.demand.inference_finetune_params[1]
    for facts in ({"task": "inference", "params": top, "concurrency": hi},
                  {"task": "lora", "params": top, "concurrency": 1},
                  {"task": "pretrain", "params": tier.demand.training_params}):
        tiers = [f.rule_id for f in evaluate({"kind": "workload", **facts}) if f.rule_id.startswith("tier-")]
        assert tiers == [rule.id], (tier_id, facts, tiers)


def test_size_table_rules_quote_every_cell() -> None:
    from knowledge.guides import load_guides

    for row in load_guides().size_table.rows:
        [hit] = [f for f in evaluate({"kind": "workload", "task": "inference", "params": row.params})
                 if f.rule_id.startswith("size-table-")]
        text = _squash(hit.message)
        for cell in (row.training_min, row.finetune_min, row.inference_min):
            cell_text = _squash(cell.text.replace("(8-bit)", "").replace("(4-bit)", "").replace("(量化)", ""))
            assert cell_text in text, (row.size, cell.text, hit.message)
        assert _squash(hit.message_zh).count("×") >= 4


def test_substitution_rules_cover_the_guide_table() -> None:
    from knowledge.guides import load_guides
    from rules.meta import all_rules

    alternatives = {r.alternative for r in all_rules() if r.topic == "substitution"}
    for sub in load_guides().substitutions:
        assert family_of(sub.substitute) in alternatives, sub.id
        fact = ConfigFacts.from_gpu(CATALOG.gpu(sub.original), region="cn", task="inference")
        alts = [f.alternative for f in evaluate(fact) if f.topic == "substitution"]
        assert family_of(sub.substitute) in alts, (sub.id, alts)
