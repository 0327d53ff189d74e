"""The guides as data: tiers, ranking, size and TCO tables, substitutions, and the checked claims, including every
"Known error in the guides" of DESIGN.md with verdict "wrong" and its computed value."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from knowledge.catalog import PACKAGE_DATA, build_catalog
from knowledge.errors import CatalogError, InputError
from knowledge.guides import GUIDE_DATES, ClaimSpec, Result, _verdict, build_guides, load_guides

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def guides():
    return load_guides()


def test_scenario_tiers(guides):
    assert [t.id for t in guides.tiers] == ["individual", "small-team", "large-team"]
    ind, small, large = guides.tiers
    assert (ind.basic.gpus.gpu, ind.basic.gpus.count) == ("rtx-2080ti-22g", 2)
    assert (ind.advanced.gpus.gpu, ind.advanced.gpus.count) == ("rtx-3090", 2)
    assert (small.basic.gpus.gpu, small.basic.gpus.count, small.advanced.price_cny) == ("rtx-2080ti-22g", 4, 47000)
    assert (large.basic.gpus.gpu, large.advanced.gpus.gpu, large.advanced.gpus.count) == ("l20", "a100-40g-pcie", 4)
    assert [t.demand.memory_estimate_gb for t in guides.tiers] == [35, 80, 140]
    assert large.demand.concurrency == (5, 200)
    for t in guides.tiers:
        assert t.ref.guide == "guide-003" and CJK.search(t.ref.quote)
    assert guides.tier("small-team") is small
    with pytest.raises(InputError):
        guides.tier("enterprise")


def test_value_ranking(guides):
    assert guides.value_ranking.order == ("rtx-2080ti-22g", "rtx-4080", "rtx-3090", "rtx-4090", "rtx-2080ti")


def test_size_table(guides):
    rows = guides.size_table.rows
    assert [r.size for r in rows] == ["7B参数", "13B参数", "70B参数", "130B参数", "300B+参数"]
    assert rows[2].training_min.gpus.count == 8 and rows[2].inference_min.precision == "4-bit"
    assert all(r.production for r in rows)
    ids = {c.id for c in guides.claims}
    for r in rows:
        for cell in (r.training_min, r.finetune_min, r.inference_min):
            assert cell.claim_id in ids


def test_tco_table(guides):
    rows = guides.tco.rows
    assert len(rows) == 4
    assert rows[0].initial_cny == 13_600_000 and rows[1].gpus.count == 24


def test_substitutions(guides):
    subs = {(s.original, s.substitute) for s in guides.substitutions}
    assert subs == {("rtx-4090", "rtx-3090"), ("a100-80g-sxm", "a800-80g-sxm"), ("l40", "l20")}
    verdicts = {s.id: guides.claim(s.claim_id).verdict for s in guides.substitutions}
    assert verdicts == {"a100-to-a800": "dated", "l40-to-l20": "right", "rtx4090-to-rtx3090": "wrong"}


def test_every_claim_is_complete(guides):
    assert len(guides.claims) >= 60
    assert len({c.id for c in guides.claims}) == len(guides.claims)
    for c in guides.claims:
        assert c.guide in ("guide-000", "guide-003") and c.section
        assert CJK.search(c.quote), c.id
        assert c.claim and not CJK.search(c.claim), c.id
        assert c.verdict in ("right", "wrong", "dated")
        assert c.computed.unit and c.explanation and "{" not in c.explanation, c.id
    for u in guides.unchecked:
        assert u.reason and CJK.search(u.quote)
    assert {c.verdict for c in guides.claims} == {"right", "wrong", "dated"}


# DESIGN.md "Known errors in the guides": claim id -> expected computed value (independent arithmetic)
DESIGN_ERRORS = {
    "h100-fp16-1513": 756.0,                 # H100 PCIe dense (1513 is 2:4 sparse)
    "rtx4090-fp16-82.6": 165.2,              # tensor FP16 with FP32 accumulate; 82.6 is FP32
    "rtx50-ada-lovelace": "blackwell",
    "a800-price-1.7m": 83_000.0,             # CNY per card, 2023-06-29
    "70b-fp16-inference-70gb": 70e9 * 2 / 1e9,          # 140 GB of weights
    "llama2-70b-4bit-28gb": 68_976_648_192 * 0.5 / 1e9,  # ≈ 34.5 GB of weights
    "training-20x-params": 20 * 70e9 / 1e9,  # 1,400 GB, not 140
    "rtx4090-nvlink-pair": 0.0,
    "nvlink-30-series-dropped": 112.5,       # RTX 3090 bridge, GB/s total
    "h800-compliant-2025": "2023-10-17",
    "a800-compliant-2025": "2023-10-17",
}


@pytest.mark.parametrize("claim_id,expected", sorted(DESIGN_ERRORS.items()))
def test_design_errors_are_wrong_with_computed_value(guides, claim_id, expected):
    c = guides.claim(claim_id)
    assert c.verdict == "wrong"
    assert c.design_error
    if isinstance(expected, str):
        assert c.computed.value == expected
    else:
        assert c.computed.value == pytest.approx(expected, rel=1e-3, abs=1e-9)


def test_design_error_flags_match_the_list(guides):
    flagged = {c.id for c in guides.claims if c.design_error}
    assert set(DESIGN_ERRORS) <= flagged
    assert flagged - set(DESIGN_ERRORS) == {"sub-a100-to-a800", "70b-4bit-one-4090"}
    assert guides.claim("sub-a100-to-a800").verdict == "dated"  # undated guide: right once, dated now


def test_explanations_carry_the_computed_numbers(guides):
    assert "756" in guides.claim("h100-fp16-1513").explanation
    assert "989.4" in guides.claim("h100-fp16-1513").explanation
    assert "165.2" in guides.claim("rtx4090-fp16-82.6").explanation
    assert "1,400 GB" in guides.claim("training-20x-params").explanation
    assert "83,000 CNY" in guides.claim("a800-price-1.7m").explanation


def test_size_table_verdicts(guides):
    training = {r.size: guides.claim(r.training_min.claim_id).verdict for r in guides.size_table.rows}
    assert set(training.values()) == {"wrong"}  # model states alone exceed every training minimum
    for r in guides.size_table.rows:
        assert guides.claim(r.inference_min.claim_id).verdict == "right"


def test_claims_are_computed_from_the_catalog(tmp_path):
    """Change the catalog, and the computed value and verdict follow: nothing is typed into the claims."""
    root = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, root)
    path = root / "gpus" / "rtx-4090.yaml"
    entry = yaml.safe_load(path.read_text())
    entry["bf16_dense_flops"] = 82.6e12
    path.write_text(yaml.safe_dump(entry, allow_unicode=True))
    g = build_guides(root, build_catalog(root))
    c = g.claim("rtx4090-fp16-82.6")
    assert c.computed.value == pytest.approx(82.6) and c.verdict == "right"


def _spec(**kw):
    base = dict(id="t", guide="guide-000", section="s", quote="引", claim="c", claimed={"value": 100, "unit": "x"},
                check="gpu_field", explanation="e")
    return ClaimSpec(**{**base, **kw})


def test_verdict_rules():
    assert _verdict(_spec(), Result(105.0, "x")) == "right"
    assert _verdict(_spec(), Result(150.0, "x")) == "wrong"
    assert _verdict(_spec(compare="at_least", tolerance=0.0), Result(99.0, "x")) == "wrong"
    assert _verdict(_spec(compare="at_least", tolerance=0.02), Result(99.0, "x")) == "right"
    assert _verdict(_spec(compare="at_most", tolerance=0.0), Result(101.0, "x")) == "wrong"
    assert _verdict(_spec(compare="positive", claimed={"value": True, "unit": "x"}), Result(0.0, "x")) == "wrong"
    history = {"history": [["2022-01-01", 100.0, "launch_msrp"], ["2024-01-01", 200.0, "street"]]}
    assert _verdict(_spec(compare="price_history"), Result(200.0, "CNY", history)) == "dated"
    market = {"since": "2023-10-17"}
    assert _verdict(_spec(compare="market", claimed={"value": "available", "unit": "status"}),
                    Result("2023-10-17", "date", market)) == "wrong"
    assert GUIDE_DATES["guide-000"].isoformat() == "2025-06-16"
    assert _verdict(_spec(compare="market", guide="guide-003", claimed={"value": "available", "unit": "status"}),
                    Result("2023-10-17", "date", market)) == "dated"


def test_unknown_check_is_rejected():
    with pytest.raises(ValueError, match="unknown check"):
        _spec(check="vibes")


@pytest.mark.parametrize("edit,expected", [
    (lambda c: c.update(check="vibes"), "unknown check"),
    (lambda c: c.update(explanation="{nonexistent}"), "placeholder"),
    (lambda c: c["args"].update(gpu="rtx-9999"), "unknown gpu"),
])
def test_bad_claims_file_names_file_and_claim(tmp_path, edit, expected):
    root = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, root)
    path = root / "guides" / "claims.yaml"
    data = yaml.safe_load(path.read_text())
    edit(data["claims"][0])
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises((CatalogError, InputError)) as info:
        build_guides(root, build_catalog(root))
    msg = str(info.value)
    assert expected in msg and "\n" not in msg


def test_guide_sources_resolve(guides):
    cat = build_catalog(PACKAGE_DATA)
    assert cat.source("guide-000").document == "seeds/000_40d9afaaa53413f3.txt"
    assert cat.source("guide-003").document == "seeds/003_116b2c47c4d342f5.txt"
    assert Path(__file__).parent.parent.joinpath("knowledge/data/guides/claims.yaml").exists()
