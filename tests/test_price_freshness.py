"""Price freshness: a card price dated more than two years before the catalog's own date (its newest dated price)
is stale; a stale price is shown with its date and a warning and ranks behind current prices, so it leads a quote
only when no currently priced configuration meets the request (the RTX 4090 D's 2023-12-28 launch MSRP led Chinese
quotes in front of the RTX 5090 D V2's 2025 price)."""

from __future__ import annotations

import datetime as dt

import pytest

from advisor.conversation.session import Conversation
from advisor.recommend.prices import PRICE_MAX_AGE_DAYS, catalog_price_date, unit_price
from knowledge.catalog import load_catalog


def test_the_policy_on_the_catalogs_dates() -> None:
    cat = load_catalog()
    today = catalog_price_date()
    assert today == max(d for g in cat.gpus for d in [*(p.date for p in g.prices), *(c.date for c in g.cloud)])
    # hand arithmetic: 2023-12-28 is more than 730 days before any catalog date from 2025-12-28 on
    old = unit_price(cat.gpu("rtx-4090d"), "CNY")
    new = unit_price(cat.gpu("rtx-5090d-v2"), "CNY")
    assert old is not None and new is not None
    assert (today - dt.date.fromisoformat(old.as_of)).days > PRICE_MAX_AGE_DAYS
    assert (today - dt.date.fromisoformat(new.as_of)).days <= PRICE_MAX_AGE_DAYS


def _ask(text: str):  # type: ignore[no-untyped-def]
    return Conversation(driver="deterministic").respond(text)


def _lead(turn):  # type: ignore[no-untyped-def]
    return next(o for o in turn.options if "recommended" in (o.get("labels") or []))


# quotes for a 70B server in China with room in the budget for a currently priced configuration
@pytest.mark.parametrize("text", [
    "报价：70B 推理，预算 25 万",
    "国内部署 Llama-3.1-70B 推理，预算 30 万元，给个配置报价",
    "给我报个价：70B 模型在国内推理服务，预算不超过 28 万",
    "Quote for serving Llama-3.1-70B in mainland China, budget 250k CNY",
    "How much for a 70B inference server in China? Budget ¥300,000",
    "Price a box to serve a 70B model in China within 280k yuan",
])
def test_a_stale_price_does_not_lead_a_quote(text: str) -> None:
    turn = _ask(text)
    lead = _lead(turn)
    when = dt.date.fromisoformat(lead["price"]["as_of"])
    assert (catalog_price_date() - when).days <= PRICE_MAX_AGE_DAYS, (lead["gpu"], when)
    assert lead["gpu"] != "rtx-4090d"
    first = turn.answer.split("\n\n", 1)[0]
    assert "2023-12-28" not in first


@pytest.mark.parametrize(("text", "warning"), [
    ("报价：70B 推理，预算 20 万", "请询价"),
    ("Quote for serving a 70B model in China, budget ¥200k", "ask for a quote"),
])
def test_a_stale_price_that_leads_is_dated_and_flagged(text: str, warning: str) -> None:
    """Only cards with stale launch prices (the RTX 4090 D's 2023 MSRP; the Radeon RX 7900 XTX's 2022 one) are new and
    within ¥200k: one leads, its date and the warning with it."""
    turn = _ask(text)
    first = turn.answer.split("\n\n", 1)[0]
    lead = _lead(turn)
    when = dt.date.fromisoformat(lead["price"]["as_of"])
    assert lead["gpu"] in ("rtx-4090d", "rx-7900-xtx") and (catalog_price_date() - when).days > PRICE_MAX_AGE_DAYS
    assert when.isoformat() in first and warning in first
