"""Catalog prices (review R02, R38, R40, R43): every price and cloud quote is dated and cited; the card price the cost
model uses is the newest market price (street, channel or used) before any launch MSRP; a mainland-China deployment
rents at a China cloud quote, in the yuan figure the provider listed, when the catalog has one."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import HOURS_PER_YEAR, cloud_price, estimate_tco, gpu_unit_price
from advisor.recommend.recommender import evaluate_configs
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.schemas import CloudPrice
from knowledge.structs import StructError

CAT = load_catalog()
ECON = load_economics()
RATE = ECON.exchange_rate_cny_per_usd.value
MARKET = ("street", "channel", "used")

# the cards this change priced, with the price (amount, currency, date, kind) the cost model must use for each
# currency; written out by hand from the sources so that a data edit that changes the choice fails here
TOUCHED = {
    "rtx-3090": ("USD", 700.0, dt.date(2026, 6, 29), "used"),
    "rtx-3090ti": ("USD", 850.0, dt.date(2026, 5, 1), "used"),
    "rtx-3060": ("USD", 200.0, dt.date(2026, 2, 1), "used"),
    "rtx-a6000": ("USD", 2800.0, dt.date(2026, 1, 1), "used"),
    "v100-16g-sxm2": ("USD", 78.0, dt.date(2026, 1, 1), "used"),
    "v100-32g-sxm2": ("USD", 325.0, dt.date(2026, 1, 1), "used"),
    "b200": ("USD", 40000.0, dt.date(2026, 6, 1), "street"),
    "rtx-4090": ("USD", 1900.0, dt.date(2026, 5, 1), "street"),
    # 2025–26 market prices replacing 2023 figures (H100 SXM was $36,500 of 2023-06-29, A100 80GB $15,000) or none
    "h100-sxm": ("USD", 27500.0, dt.date(2026, 5, 25), "street"),  # ($25,000 + $30,000) / 2
    "mi300x": ("USD", 17500.0, dt.date(2026, 5, 25), "street"),  # ($15,000 + $20,000) / 2
    "h20": ("USD", 11000.0, dt.date(2025, 5, 25), "street"),  # ($10,000 + $12,000) / 2
    "a100-80g-sxm": ("USD", 11500.0, dt.date(2026, 3, 20), "street"),  # ($8,000 + $15,000) / 2
    "a100-80g-pcie": ("USD", 11500.0, dt.date(2026, 3, 20), "street"),
}
CHINA_CLOUD = {"rtx-3090": ("AutoDL", 2.4), "rtx-4090": ("AutoDL", 3.0), "a100-40g-pcie": ("AutoDL", 7.0),
               "a100-80g-pcie": ("AutoDL", 11.0)}


def test_every_price_and_cloud_quote_is_dated_and_cites_a_locatable_source():
    for g in CAT.gpus:
        for p in g.prices:
            src = CAT.source(p.source)
            assert isinstance(p.date, dt.date) and (src.url or src.document), (g.id, p.source)
        for c in g.cloud:
            src = CAT.source(c.source)
            assert isinstance(c.date, dt.date) and (src.url or src.document), (g.id, c.source)


def test_the_new_price_sources_record_when_they_were_read():
    ids = {p.source for gid in TOUCHED for p in CAT.gpu(gid).prices if p.date >= dt.date(2024, 10, 1)}
    ids |= {c.source for g in CAT.gpus for c in g.cloud if c.region == "cn"}
    assert len(ids) >= 8
    for i in ids:
        src = CAT.source(i)
        assert src.url and src.url.startswith("https://"), i
        assert src.retrieved is not None and src.retrieved >= dt.date(2026, 1, 1), i


@pytest.mark.parametrize("gid", sorted(TOUCHED))
def test_touched_cards_are_priced_at_their_newest_market_price(gid):
    cur, amount, date, kind = TOUCHED[gid]
    g = CAT.gpu(gid)
    got = gpu_unit_price(g, cur, ECON)
    assert got[:3] == (amount, date, kind)
    # independent check: no market price in that currency is newer, and no launch MSRP is used while one exists
    market = [p for p in g.prices if p.currency == cur and p.kind in MARKET]
    assert market and max(p.date for p in market) == date
    launch = [p for p in g.prices if p.kind == "launch_msrp"]
    assert all(got[0] != p.amount or p.kind != "launch_msrp" for p in launch)


def test_end_of_life_cards_no_longer_cost_their_launch_msrp():
    # R02: the RTX 3090 was priced at its 2021 launch MSRP ($1,499 -> ¥10,686) and so ranked "lowest cost"
    g = CAT.gpu("rtx-3090")
    cny, date, kind, src = gpu_unit_price(g, "CNY", ECON)
    assert cny == pytest.approx(700.0 * RATE) and kind == "used, converted from USD" and date.year == 2026
    assert cny < 1499.0 * RATE / 2
    for gid in ("rtx-3090", "rtx-3090ti", "rtx-3060", "rtx-a6000"):
        assert "launch_msrp" not in gpu_unit_price(CAT.gpu(gid), "CNY", ECON)[2], gid


def test_a_china_price_is_not_replaced_by_a_newer_usd_one_but_v100_has_a_2026_yuan_price():
    # CNY stands for the China market: the RTX 4090's 2024 channel price stays, though a 2026 US street price exists
    assert gpu_unit_price(CAT.gpu("rtx-4090"), "CNY", ECON)[:3] == (20000.0, dt.date(2024, 3, 25), "channel")
    # the V100 was ¥69,000 (a 2023 conversion of a ≥$10k quote); its 2026 yuan figure is the eBay/Taobao midpoint
    amount, date, kind, _ = gpu_unit_price(CAT.gpu("v100-16g-sxm2"), "CNY", ECON)
    assert (date, kind) == (dt.date(2026, 1, 1), "used") and amount == pytest.approx(78 * RATE, rel=0.001)


def test_market_prices_always_beat_launch_msrps_in_the_same_currency():
    for g in CAT.gpus:
        for cur in ("USD", "CNY"):
            if any(p.currency == cur and p.kind in MARKET for p in g.prices):
                assert gpu_unit_price(g, cur, ECON)[2] in MARKET, (g.id, cur)


def test_b200_has_a_card_price_and_its_server_share_is_never_used_as_one():
    # R43: B200 was "best performance" with "no price"
    g = CAT.gpu("b200")
    share = [p for p in g.prices if p.kind == "server_share"]
    assert share and share[0].amount == pytest.approx(515_000 / 8)
    for cur in ("USD", "CNY"):
        amount = gpu_unit_price(g, cur, ECON)[0]
        assert amount != share[0].amount and amount != pytest.approx(share[0].amount * RATE)
    est = estimate_tco(g, 8, ECON, currency="USD")
    assert est.purchase_gpus.amount == pytest.approx(8 * 40_000) and est.server_tier == "hgx-8"


def test_china_quotes_keep_their_yuan_figure_and_agree_with_the_exchange_rate():
    n = 0
    for g in CAT.gpus:
        for c in g.cloud:
            if c.region == "cn":
                n += 1
                assert c.cny_per_hour is not None
                assert c.usd_per_hour == pytest.approx(c.cny_per_hour / RATE, rel=0.005), (g.id, c.provider)
    assert n >= 6


@pytest.mark.parametrize("gid", sorted(CHINA_CLOUD))
def test_region_cn_rents_at_a_china_quote_when_one_exists(gid):
    provider, cny = CHINA_CLOUD[gid]
    q = cloud_price(CAT.gpu(gid), ECON, region="cn")
    assert (q.provider, q.region, q.cny_per_hour, q.tier) == (provider, "cn", cny, "on_demand")


def test_region_global_keeps_the_global_quote_and_cn_falls_back_to_it_with_a_note():
    q = cloud_price(CAT.gpu("rtx-3090"), ECON)
    assert q.region == "global" and q.provider == "RunPod"
    h100 = CAT.gpu("h100-sxm")
    assert not any(c.region == "cn" for c in h100.cloud)
    assert cloud_price(h100, ECON, region="cn") == cloud_price(h100, ECON, region="global")
    est = estimate_tco(h100, 8, ECON, currency="CNY", region="cn")
    assert any("no mainland-China cloud quote" in a and "RunPod" in a for a in est.assumptions)


def test_china_rent_is_hand_computed_from_the_listed_yuan_figure():
    g = CAT.gpu("rtx-3090")
    est = estimate_tco(g, 4, ECON, currency="CNY", years=3, utilization=0.5, region="cn")
    hours = 4 * HOURS_PER_YEAR * 3 * 0.5
    assert est.cloud_cost.amount == pytest.approx(hours * 2.4)  # ¥2.4 per GPU-hour, no USD round trip
    assert est.cloud_provider == "AutoDL" and est.cloud_price_date == dt.date(2025, 10, 23)
    rent = [p for p in est.prices if p.name.startswith("cloud")]
    assert len(rent) == 1 and rent[0].value == 2.4 and rent[0].unit == "CNY per GPU-hour"
    usd = estimate_tco(g, 4, ECON, currency="USD", years=3, utilization=0.5, region="cn")
    assert usd.cloud_cost.amount == pytest.approx(hours * 2.4 / RATE)
    glob = estimate_tco(g, 4, ECON, currency="CNY", years=3, utilization=0.5)
    assert glob.cloud_provider == "RunPod" and glob.cloud_cost.amount == pytest.approx(hours * 0.22 * RATE)


def test_recommendations_for_china_compare_buying_with_a_china_cloud():
    # R38: a China deployment was compared with RunPod (US) rates
    w = Workload(model="qwen2.5-14b", concurrency=4, context=4096)
    cn = evaluate_configs(w, [("rtx-3090", 4), ("rtx-4090", 2)], Constraints(region="cn", currency="CNY"))
    assert [o.tco.cloud.provider for o in cn] == ["AutoDL", "AutoDL"]
    glob = evaluate_configs(w, [("rtx-3090", 4)], Constraints(currency="CNY"))
    assert glob[0].tco.cloud.provider == "RunPod"


def test_a_china_quote_without_its_yuan_figure_is_rejected():
    with pytest.raises(StructError, match="cny_per_hour"):
        CloudPrice(usd_per_hour=0.3, provider="AutoDL", region="cn", date=dt.date(2025, 10, 23), source="x")


def test_an_unknown_region_names_the_field():
    with pytest.raises(InputError) as err:
        estimate_tco(CAT.gpu("rtx-3090"), 1, ECON, region="eu")
    assert err.value.field == "region"
