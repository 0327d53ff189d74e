"""Prices and TCO of an option: the dated unit price of a card, the money for the job (purchase, power and
operations against renting: advisor.estimator.cost), the purchase total of a configuration and the cost the
ranking compares.
"""

from __future__ import annotations

import datetime as dt
import math
from functools import cache

from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import CloudQuote, end_of_life, estimate_tco, gpu_unit_price
from advisor.recommend.parts import OptionTco, Purchase, UnitPrice
from advisor.recommend.results import Option
from advisor.recommend.search import Search
from advisor.workload import Constraints
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.quantities import Money
from knowledge.schemas import GpuSpec, Price, source_reliability
from knowledge.structs import replace


def unit_price(gpu: GpuSpec, currency: str, condition: str = "new") -> UnitPrice | None:
    """Price of one card in `currency` with its date, kind, source, `condition` (new / used / street) and the
    source's reliability (advisor.estimator.cost.gpu_unit_price: the newest catalog price of that condition, else
    the other currency's at the dated exchange rate; a card with no new price is end-of-life and priced used,
    `end_of_life` true); None when there is none."""
    try:
        amount, date, kind, source = gpu_unit_price(gpu, currency, load_economics(), condition)
    except InputError:
        return None
    base = kind.split(",")[0]
    cond = Price(amount=1, currency="USD", date=date, kind=base, source=source).condition  # type: ignore[arg-type]
    try:
        reliability = source_reliability(load_catalog().source(source).kind)
    except AdvisorError:
        reliability = "low"
    return UnitPrice(per_card=Money(amount=amount, currency=currency), as_of=date.isoformat(), kind=kind,  # type: ignore[arg-type]
                     source=source, condition=cond, reliability=reliability, end_of_life=end_of_life(gpu))


def lowest_purchase(options: list[Option], *, new_only: bool = False) -> Option | None:
    """The fitting option with the lowest full purchase (cards and servers; not the person's own cards): among
    those that meet the targets and rules where any does, and with `new_only` among the new ones where any is
    left; None when none is priced."""
    priced = [o for o in options if o.fits and o.tco is not None and o.tco.purchase.total and "existing" not in o.labels]
    priced = [o for o in priced if o.meets_targets] or priced
    if new_only:
        priced = [o for o in priced if "used" not in o.labels] or priced
    return min(priced, key=purchase_amount, default=None)


def purchase_amount(o: Option) -> float:
    """The option's full purchase (cards and servers) in its currency; infinity when unpriced."""
    total = o.tco.purchase.total if o.tco is not None else None
    return total.amount if total else math.inf


def option_price(search: Search, gpu: GpuSpec) -> UnitPrice | None:
    """The dated unit price of `gpu` in the request's currency and condition (None when the catalog has none)."""
    return unit_price(gpu, search.constraints.currency, search.constraints.condition)


def stated_quote(c: Constraints, gpu: GpuSpec) -> CloudQuote | None:
    """The person's own rental price as the cloud quote of `gpu` (origin "user"), when it was said for that card or
    for no card in particular; a yuan price keeps its listed figure (`cny_per_hour`), its USD equivalent at the dated
    exchange rate."""
    r = c.rent
    if r is None or (r.gpu is not None and r.gpu != gpu.id):
        return None
    cny_per_usd = float(load_economics().exchange_rate_cny_per_usd.value)
    usd = r.per_gpu_hour if r.currency == "USD" else r.per_gpu_hour / cny_per_usd
    return CloudQuote(usd, r.provider or "user", None, "user input (rental price stated by the user)", "user",
                      region="cn" if r.currency == "CNY" else "global",
                      cny_per_hour=r.per_gpu_hour if r.currency == "CNY" else None)


def option_tco(search: Search, gpu: GpuSpec, opt: Option) -> OptionTco | None:
    """Money for the job (advisor.estimator.cost.estimate_tco, power at the stated electricity price when one was
    said: Constraints.electricity), three cases:

    * owned cards: running cost only (power and operations over the years; nothing is bought, no rent compared);
    * training: purchase and running cost against renting the job's own GPU-hours (count × wall-clock), not
      years of round-the-clock rent;
    * serving: purchase + power + operations over the horizon against renting over the same horizon at the stated
      utilisation (always-on: 100 %)."""
    owned = "existing" in opt.labels
    if opt.price is None and not owned:
        return None
    c = search.constraints
    tps = (opt.throughput.decode_tokens_per_s_total if opt.throughput else None) or (
        opt.training.tokens_per_s if opt.training else None)
    power = c.electricity  # the person's own tariff, else economics.yaml's dated price
    try:
        t = estimate_tco(gpu, opt.count, load_economics(), currency=c.currency, years=c.tco_years,
                         tokens_per_s=tps or None, region=c.region, condition=c.condition,
                         gpu_price=None if opt.price is not None else 1.0, cloud_quote=stated_quote(c, gpu),
                         electricity=power.per_kwh if power else None,
                         electricity_currency=power.currency if power else None)
    except InputError:
        return None
    out = OptionTco.of(t, "owned" if owned else "training_job" if opt.training else "serving_horizon")
    if opt.training and out.cloud is not None:
        out = _rent_the_job(out, opt.training.gpu_hours)
    if owned:
        return _running_cost_only(out, opt.training.wall.hours if opt.training else None)
    return out


def _running_cost_only(t: OptionTco, job_hours: float | None) -> OptionTco:
    """Owned hardware: the running cost only — power plus operations (upkeep, hosting, staff: economics.yaml's
    yearly fraction of the cards' present value) — over the years for serving, over the job's wall-clock hours for
    a training job (per year × hours / 8760); no purchase and no break-even. A training job keeps its rent
    comparison (the job's own GPU-hours)."""
    cur, years = t.currency, t.years
    power, ops = t.power_per_year.amount, t.operations_per_year.amount
    if job_hours is None:
        tco = Money(amount=(power + ops) * years, currency=cur)
        formulas = [f"running cost = {years:g} years × (power {power:,.0f} + operations {ops:,.0f}) {cur}/year "
                    "(cards already owned)"]
    else:
        tco = Money(amount=(power + ops) * job_hours / 8760.0, currency=cur)
        formulas = [f"running cost of the job = (power {power:,.0f} + operations {ops:,.0f}) {cur}/year × "
                    f"{job_hours:,.1f} h / 8760 h (cards already owned)"]
    return replace(t, purchase=Purchase(), depreciation_per_year=None, residual_value=None,
                   tco_per_year=Money(amount=power + ops, currency=cur),
                   cloud=t.cloud if job_hours is not None else None, break_even_utilization=None,
                   cost_per_million_tokens=None, prices=[p for p in t.prices if "per card" not in p.name], tco=tco,
                   job_hours=job_hours, formulas=formulas)


def _rent_the_job(t: OptionTco, gpu_hours: float) -> OptionTco:
    """Training: the rent to compare is the job's own GPU-hours at the quoted hourly rate."""
    cloud = t.cloud
    if cloud is None:
        return t
    cur = cloud.cost.currency
    hourly = cloud.cost.amount / max(t.gpu_hours_used, 1e-9)
    return replace(t, cloud=replace(cloud, cost=Money(amount=hourly * gpu_hours, currency=cur), gpu_hours=gpu_hours),
                   break_even_utilization=None,  # a one-off job has no utilisation to break even at
                   formulas=[*t.formulas,
                             f"renting the job = {gpu_hours:,.0f} GPU-hours × {hourly:,.2f} {cur}/GPU-hour"])


def total_price(opt: Option) -> float | None:
    """Purchase price of the whole configuration: GPUs plus the rest of the server(s) as the guides' tiers price
    it (advisor.estimator.cost), else the GPUs alone when no TCO could be computed."""
    if opt.tco is not None:
        if opt.tco.basis == "owned":
            return 0.0  # nothing to buy
        if opt.tco.purchase.total is not None:
            return opt.tco.purchase.total.amount
    if opt.price is None:
        return None
    return opt.price.per_card.amount * opt.count


def budget_price(opt: Option, covers: str) -> float | None:
    """What the budget is held against: the whole purchase (total_price), or the cards alone when the budget was
    said for the GPUs ("a GPU under $1000"); 0 for hardware already owned."""
    if covers != "gpus" or (opt.tco is not None and opt.tco.basis == "owned"):
        return total_price(opt)
    return None if opt.price is None else opt.price.per_card.amount * opt.count


def hourly_rent(opt: Option) -> float | None:
    """The price per GPU-hour `opt`'s TCO rents its cards at (the stated rate, else the catalog's quote;
    OptionTco.cloud): serving, rent over the hours used ÷ those hours; a training job, the job's rent ÷ its own
    GPU-hours (`_rent_the_job`); None when it has none or the cards are owned."""
    t = opt.tco
    if t is None or t.cloud is None:
        return None
    if t.basis == "training_job":
        return t.cloud.cost.amount / t.cloud.gpu_hours if t.cloud.gpu_hours else None
    if t.basis != "serving_horizon" or t.gpu_hours_used <= 0:
        return None
    return t.cloud.cost.amount / t.gpu_hours_used


def rent_quote(opt: Option) -> tuple[str | None, str | None]:
    """(provider, as-of date) of the quote `hourly_rent` prices at: the provider is None for the person's own
    rate, both None when the option has no rent."""
    cloud = opt.tco.cloud if opt.tco is not None else None
    if cloud is None:
        return None, None
    return (cloud.provider if cloud.stated_rate is None else None), cloud.as_of


def cost_of(o: Option) -> float:
    """Money over the horizon: the TCO when it could be computed, else the purchase price (inf when unpriced)."""
    if o.tco is not None:
        return o.tco.tco.amount
    return total_price(o) or math.inf


# Freshness policy, in two steps (judgments, stated wherever they apply):
# * a price older than PRICE_STALE_DAYS at quote time asks for a fresh supplier quote (ui.quote: the market moves;
#   most of the catalog's new-card prices are launch prices of the last year or two);
# * a card price dated more than PRICE_MAX_AGE_DAYS before the catalog's own date (its newest dated card price or
#   cloud quote, so the rule does not move with the calendar) is stale: about one GPU generation (Ampere 2020,
#   Hopper/Ada 2022, Blackwell 2024), after which a launch price no longer says what the card costs (a 2023 launch
#   MSRP is not a 2026 street price). Stale prices are shown with their date and a warning and rank behind current
#   ones (advisor.recommend.rank).
PRICE_STALE_DAYS = 365
PRICE_MAX_AGE_DAYS = 730


@cache
def catalog_price_date() -> dt.date:
    """The catalog's date: its newest dated card price or cloud quote (knowledge/data/gpus)."""
    gpus = load_catalog().gpus
    dates = [p.date for g in gpus for p in g.prices] + [q.date for g in gpus for q in g.cloud]
    return max(dates) if dates else dt.date.today()


def stale_price(o: Option) -> bool:
    """The option is priced from a card price older than the freshness policy allows (PRICE_MAX_AGE_DAYS before
    `catalog_price_date`); a price the user gave, or none, is not stale."""
    p = o.price
    if p is None or p.source == "user input":
        return False
    try:
        when = dt.date.fromisoformat(p.as_of)
    except ValueError:
        return False
    return (catalog_price_date() - when).days > PRICE_MAX_AGE_DAYS
