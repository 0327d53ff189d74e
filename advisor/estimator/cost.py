"""Cost of owning GPUs against renting them: purchase, power, operations, depreciation, TCO, break-even.

All money in one currency chosen by the caller (CNY or USD), converted at the dated exchange rate of
knowledge/data/economics.yaml; every price carries its date and source.

    purchase        = count × GPU price + ⌈count / tier.max_gpus⌉ × tier price     (rest of the server, guide tiers)
    IT power (kW)   = (count × TDP + servers × platform W) × utilisation / 1000
    energy / year   = IT power × 8760 h × PUE                                       (kWh at the meter)
    power / year    = energy × electricity price                                   (the user's, at the dated exchange
                                                                                     rate; else economics.yaml's)
    operations/year = operations fraction × purchase
    depreciation    = purchase / depreciation years (straight line); residual = purchase × max(0, 1 − years/dep)
    TCO(N years)    = purchase + N × (power + operations)
    GPU-hours used  = count × 8760 × N × utilisation
    cloud           = GPU-hours used × on-demand price per GPU-hour
    break-even u*   : purchase + N·ops + N·P₁·u = count·8760·N·u·c   →   u* = (purchase + N·ops) / (count·8760·N·c − N·P₁)
                      (P₁ = power cost per year at full utilisation, c = cloud price per GPU-hour)
    cost / 1M tokens= cost / (tokens/s × 3600 × hours used) × 10⁶
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from knowledge.errors import InputError
from knowledge.quantities import Money
from knowledge.schemas import MAX_CLUSTER_GPUS, GpuSpec
from knowledge.structs import Value

from .calibration import Economics, ServerTier
from .speed_results import DatedValue, TcoEstimate

if TYPE_CHECKING:
    from knowledge.guides import TcoRow

HOURS_PER_YEAR = 8760.0
HOURS_PER_MONTH = HOURS_PER_YEAR / 12  # 730 h: a month around the clock (rent per month)
CURRENCIES = ("CNY", "USD")
MAX_ELECTRICITY = {"CNY": 20.0, "USD": 3.0}  # per kWh: ten times the dearest retail tariffs
# The shortest horizon and the lowest busy share a TCO is computed for: below them the yearly figures and the
# break-even are dominated by rounding (years = 5e-324 gave "¥inf per year"); a month and 1 % of the hours.
MIN_YEARS = 1 / 12
MIN_UTILIZATION = 0.01


def _m(amount: float, currency: str) -> Money:
    return Money(amount=float(amount), currency=currency)  # type: ignore[arg-type]


def server_tier(gpu: GpuSpec, count: int, econ: Economics) -> tuple[str, ServerTier]:
    """The guides' server tier that hosts `count` of `gpu`: SXM/OAM modules go into HGX-class baseboards, consumer
    cards into workstations (2, then 4 per box) and beyond that, like PCIe datacenter cards, into 8-slot servers; a
    machine whose accelerator is its system-on-chip (interface "soc") has nothing around it to buy or power."""
    tiers = econ.server_tiers
    if gpu.interface == "soc":  # a Mac, DGX Spark or Ryzen AI Max box: the machine is the whole system
        key = "machine"
    elif gpu.interface in ("sxm", "oam"):
        key = "hgx-8"
    elif gpu.segment in ("consumer", "workstation") and count <= 2:
        key = "workstation-2"
    elif gpu.segment in ("consumer", "workstation") and count <= 4:
        key = "workstation-4"
    else:
        key = "pcie-server-8"
    return key, tiers[key]


class CloudQuote(Value):
    usd_per_hour: float
    provider: str
    date: dt.date | None
    source: str
    origin: str  # "user", "catalog" or "reference" (economics.yaml)
    tier: str = "on_demand"  # the catalog's CloudPrice.tier
    region: str = "global"  # the catalog's CloudPrice.region: "cn" for a mainland-China provider
    cny_per_hour: float | None = None  # the quote as listed, when the provider bills in CNY


# renting the same GPU-hours around the clock compares with an on-demand (or committed) instance; interruptible
# spot capacity comes next, per-second serverless billing (priced for bursts, not 24/7 use) last
CLOUD_TIER_ORDER = ("on_demand", "reserved", "spot", "serverless")
REGIONS = ("global", "cn")


def cloud_price(gpu: GpuSpec, econ: Economics, override_usd: float | None = None,
                region: str = "global") -> CloudQuote | None:
    """Price per GPU-hour: the user's, else the catalog's quotes from providers in `region` ("cn": mainland-China
    clouds billing in CNY; "global": the rest), else the catalog's other quotes, else economics.yaml's reference.
    Among the catalog's, the most comparable tier wins (on-demand, reserved, spot, serverless), then the newest
    quote, then the cheapest."""
    if override_usd is not None:
        return CloudQuote(override_usd, "user", None, "user input", "user")
    if gpu.cloud:
        local = [q for q in gpu.cloud if q.region == region]
        rank = {t: i for i, t in enumerate(CLOUD_TIER_ORDER)}
        c = min(local or gpu.cloud,
                key=lambda q: (rank.get(q.tier, len(rank)), -q.date.toordinal(), q.usd_per_hour))
        return CloudQuote(c.usd_per_hour, c.provider, c.date, c.source, "catalog", c.tier, c.region, c.cny_per_hour)
    refs = econ.cloud_reference.get(gpu.id)
    if refs:
        ref = max(refs, key=lambda q: q.date)
        return CloudQuote(ref.usd_per_hour, ref.provider, ref.date, ref.source, "reference")
    return None


def cloud_hour_price(cloud: CloudQuote, econ: Economics, currency: str) -> tuple[float, float, str]:
    """(price per GPU-hour in `currency`, the price as listed, its unit): a China quote's yuan figure as listed
    (converted only for USD), else the USD one, at the dated exchange rate."""
    if cloud.cny_per_hour is not None:
        return econ.to_currency(cloud.cny_per_hour, "CNY", currency), cloud.cny_per_hour, "CNY per GPU-hour"
    return econ.to_currency(cloud.usd_per_hour, "USD", currency), cloud.usd_per_hour, "USD per GPU-hour"


def tokens_made(tokens_per_s: float, hours: float) -> float:
    """Tokens generated in `hours` at `tokens_per_s` in total: tokens/s × 3600 × hours."""
    return tokens_per_s * 3600.0 * hours


def per_million_tokens(cost: float, tokens: float) -> float:
    """Cost of one million generated tokens: cost / tokens × 10⁶, `tokens` the tokens that money makes
    (`tokens_made`: owning, over the hours used; renting, count × price per GPU-hour over one hour)."""
    return cost / tokens * 1e6


def end_of_life(gpu: GpuSpec) -> bool:
    """A card sold only second-hand now: its newest catalog price (any currency, server shares aside) is a used
    price — no new-card price is as recent (RTX 3090/3060, RTX A6000, V100: review R02, launch MSRPs of 2020–21) —
    or the catalog marks it so (`GpuSpec.availability`: end of life, used only)."""
    if gpu.availability != "sold":
        return True
    cards = [p for p in gpu.prices if p.kind != "server_share"]
    return bool(cards) and max(cards, key=lambda p: (p.date, p.kind == "used")).kind == "used"


def gpu_unit_price(gpu: GpuSpec, currency: str, econ: Economics, condition: str = "new"
                   ) -> tuple[float, dt.date, str, str]:
    """(price per card in `currency`, its date, its kind, its source) for a card in `condition` ("new" or "used"):
    the catalog's newest price of that condition in that currency (GpuSpec.price: street/channel, else launch MSRP
    for new), else the other currency's chosen the same way and converted at the dated exchange rate. A currency
    stands for its market: a CNY price is a China price and is not replaced by a newer USD one. An end-of-life card
    (`end_of_life`) is priced used; a card with no price of the asked condition falls back to the other one; the
    kind says which was taken (server shares are never a card price)."""
    other = "USD" if currency == "CNY" else "CNY"
    if end_of_life(gpu):
        condition = "used"
    fallback = "used" if condition == "new" else "new"
    for cond in (condition, fallback):
        for cur in (currency, other):
            p = gpu.price(cur, cond)  # type: ignore[arg-type]
            if p is None:
                continue
            if cur == currency:
                return p.amount, p.date, p.kind, p.source
            return econ.to_currency(p.amount, cur, currency), p.date, f"{p.kind}, converted from {cur}", p.source
    raise InputError.from_key("errors.no_price", field="gpu_price", accepted="a positive amount per card",
                              gpu=gpu.name, currency=currency)


def check_tco_inputs(count: int, years: float, utilization: float, electricity: float | None, currency: str,
                     gpu_price: float | None, cloud_usd: float | None, pue: float | None,
                     electricity_currency: str | None = None) -> None:
    """Raise InputError naming the first TCO input out of its accepted range (the electricity price against the
    limit of the currency it is given in: `electricity_currency`, else `currency`)."""
    for cur in (currency, electricity_currency or currency):
        if cur not in CURRENCIES:
            raise InputError(f"unknown currency '{cur}'", field="currency", accepted="CNY, USD")
    if not 1 <= count <= MAX_CLUSTER_GPUS:
        raise InputError(f"GPU count must be between 1 and {MAX_CLUSTER_GPUS}, got {count}", field="count",
                         accepted=f"1 … {MAX_CLUSTER_GPUS}")
    if not MIN_YEARS <= years <= 20:
        raise InputError(f"years must be from {MIN_YEARS:.4g} (a month) to 20, got {years:g}", field="years",
                         accepted=f"{MIN_YEARS:.4g} ≤ years ≤ 20")
    if not MIN_UTILIZATION <= utilization <= 1:
        raise InputError(f"utilization must be a fraction from {MIN_UTILIZATION:g} to 1, got {utilization:g}",
                         field="utilization", accepted=f"{MIN_UTILIZATION:g} … 1 (e.g. 0.6 for 60%)")
    if electricity is not None:
        ecur = electricity_currency or currency
        if electricity < 0:
            raise InputError.from_key("errors.electricity", field="electricity", accepted=f"≥ 0 {ecur} per kWh",
                                      price=electricity)
        if electricity > MAX_ELECTRICITY[ecur]:
            raise InputError(f"electricity price {electricity:g} {ecur}/kWh is implausible", field="electricity",
                             accepted=f"0 … {MAX_ELECTRICITY[ecur]:g} {ecur} per kWh")
    if gpu_price is not None and gpu_price <= 0:
        raise InputError(f"GPU price must be positive, got {gpu_price:g}", field="gpu_price", accepted="> 0")
    if cloud_usd is not None and cloud_usd <= 0:
        raise InputError(f"cloud price must be positive, got {cloud_usd:g}", field="cloud_price",
                         accepted="> 0 USD per GPU-hour")
    if pue is not None and not 1.0 <= pue <= 3.0:
        raise InputError(f"PUE must be between 1.0 and 3.0, got {pue:g}", field="pue", accepted="1.0 … 3.0")


class _Purchase(Value):
    """What buying costs: the card price with its provenance, and the servers around the cards (guide tiers)."""

    unit: float  # per card, in the currency
    unit_date: dt.date
    unit_kind: str
    unit_source: str
    tier_key: str
    tier: ServerTier
    servers: int
    tier_price: float  # per server, in the currency
    gpus: float  # count × unit
    rest: float  # servers × tier price

    @property
    def total(self) -> float:
        return self.gpus + self.rest


class _Running(Value):
    """The running-cost inputs: electricity per kWh, PUE, operations as a share of the purchase per year."""

    electricity: float
    pue: float
    ops_frac: float


class _Yearly(Value):
    """Power, operations, depreciation and the TCO over the horizon (module docstring)."""

    it_kw: float
    kwh_year: float
    power_year: float
    power_year_full: float  # at 100 % utilisation (the break-even formula's P₁)
    ops_year: float
    dep_years: float
    dep_year: float
    residual: float
    tco: float
    gpu_hours: float


class _Renting(Value):
    """Renting the same GPU-hours: the quote, its hourly price in the currency, the cost, the break-even."""

    cloud: CloudQuote | None
    cloud_hour: float | None
    cloud_cost: float | None
    break_even: float | None


def _check_tco_request(count: int, years: float, utilization: float, electricity: float | None, currency: str,
                       gpu_price: float | None, cloud_usd: float | None, pue: float | None, region: str,
                       tokens_per_s: float | None, electricity_currency: str | None) -> None:
    """Raise InputError naming the first input of `estimate_tco` out of its accepted range."""
    check_tco_inputs(count, years, utilization, electricity, currency, gpu_price, cloud_usd, pue, electricity_currency)
    if region not in REGIONS:
        raise InputError.from_key("errors.region", field="region", accepted="cn, global", region=region)
    if tokens_per_s is not None and tokens_per_s <= 0:
        raise InputError("tokens/s must be positive", field="tokens_per_s", accepted="> 0")


def _purchase(gpu: GpuSpec, count: int, econ: Economics, currency: str, gpu_price: float | None,
              condition: str) -> tuple[_Purchase, list[DatedValue]]:
    """purchase = count × GPU price + ⌈count / tier.max_gpus⌉ × tier price, with the two dated prices."""
    if gpu_price is not None:
        unit, unit_date, unit_kind, unit_src = gpu_price, dt.date.today(), "user input", "user input"
    else:
        unit, unit_date, unit_kind, unit_src = gpu_unit_price(gpu, currency, econ, condition)
    tier_key, tier = server_tier(gpu, count, econ)
    servers = math.ceil(count / tier.max_gpus)
    tier_price = econ.to_currency(tier.price, tier.currency, currency)
    prices = [DatedValue(name=f"{gpu.name} per card ({unit_kind})", value=unit, unit=currency, as_of=unit_date,
                         source=unit_src)]
    if tier_price:  # a complete machine (tier price 0) has no rest of system to date
        prices.append(DatedValue(name=f"server tier {tier_key} (rest of system)", value=tier_price, unit=currency,
                                 as_of=tier.as_of, source=",".join(tier.source)))
    bought = _Purchase(unit, unit_date, unit_kind, unit_src, tier_key, tier, servers, tier_price,
                       count * unit, servers * tier_price)
    return bought, prices


STATED = "user input"  # the source of a price the user gave (an electricity price's DatedValue has no date)


def _running(econ: Economics, currency: str, electricity: float | None, pue: float | None,
             operations_fraction: float | None, electricity_currency: str | None = None
             ) -> tuple[_Running, list[DatedValue]]:
    """The user's electricity price (in `electricity_currency`, converted to `currency` at the dated exchange rate;
    recorded as said), PUE and operations fraction, else economics.yaml's (dated)."""
    prices: list[DatedValue] = []
    if electricity is None:
        e = econ.electricity_price[currency]  # type: ignore[index]
        electricity = e.value
        prices.append(DatedValue(name="electricity", value=e.value, unit=f"{currency}/kWh", as_of=e.as_of,
                                 source=",".join(e.source)))
    else:
        said = electricity_currency or currency
        prices.append(DatedValue(name="electricity", value=electricity, unit=f"{said}/kWh", source=STATED))
        electricity = econ.to_currency(electricity, said, currency)
    if pue is None:
        pue = econ.pue.value
        prices.append(DatedValue(name="PUE", value=pue, unit="ratio", as_of=econ.pue.as_of,
                                 source=",".join(econ.pue.source)))
    ops_frac = econ.operations_fraction_per_year.value if operations_fraction is None else operations_fraction
    if not 0 <= ops_frac <= 1:
        raise InputError(f"operations fraction must be between 0 and 1 per year, got {ops_frac:g}",
                         field="operations", accepted="0 … 1")
    return _Running(electricity, pue, ops_frac), prices


def _yearly(gpu: GpuSpec, count: int, bought: _Purchase, run: _Running, econ: Economics, years: float,
            utilization: float) -> _Yearly:
    """IT power = (count × TDP + servers × platform W) × utilisation; energy = IT power × 8760 h × PUE;
    operations = fraction × purchase; depreciation straight-line; TCO = purchase + N × (power + operations)."""
    full_kw = (count * gpu.tdp_w + bought.servers * bought.tier.power_w) / 1000.0
    it_kw = full_kw * utilization
    kwh_year = it_kw * HOURS_PER_YEAR * run.pue
    power_year = kwh_year * run.electricity
    power_year_full = full_kw * HOURS_PER_YEAR * run.pue * run.electricity
    purchase = bought.total
    ops_year = run.ops_frac * purchase
    dep_years = econ.depreciation_years.value
    return _Yearly(it_kw=it_kw, kwh_year=kwh_year, power_year=power_year, power_year_full=power_year_full,
                   ops_year=ops_year, dep_years=dep_years, dep_year=purchase / dep_years,
                   residual=purchase * max(0.0, 1.0 - years / dep_years),
                   tco=purchase + years * (power_year + ops_year),
                   gpu_hours=count * HOURS_PER_YEAR * years * utilization)


def _renting(gpu: GpuSpec, count: int, econ: Economics, currency: str, cloud_usd_per_hour: float | None,
             region: str, years: float, purchase: float, yearly: _Yearly, quote: CloudQuote | None = None
             ) -> tuple[_Renting, list[DatedValue]]:
    """cloud = GPU-hours used × price per GPU-hour; break-even u* = (purchase + N·ops) / (count·8760·N·c − N·P₁)."""
    cloud = quote or cloud_price(gpu, econ, cloud_usd_per_hour, region=region)
    if cloud is None:
        return _Renting(None, None, None, None), []
    cloud_hour, listed, listed_unit = cloud_hour_price(cloud, econ, currency)
    cloud_cost = yearly.gpu_hours * cloud_hour
    price = DatedValue(name=f"cloud {cloud.tier.replace('_', ' ')} ({cloud.provider})", value=listed,
                       unit=listed_unit, as_of=cloud.date, source=cloud.source)
    denom = count * HOURS_PER_YEAR * years * cloud_hour - years * yearly.power_year_full
    break_even = (purchase + years * yearly.ops_year) / denom if denom > 0 else None
    return _Renting(cloud, cloud_hour, cloud_cost, break_even), [price]


def _tco_formulas(gpu: GpuSpec, count: int, currency: str, years: float, utilization: float, bought: _Purchase,
                  run: _Running, yearly: _Yearly, rent: _Renting, tokens_per_s: float | None,
                  per_m_owned: Money | None) -> list[str]:
    """The formula lines of a TCO estimate, each with its numbers."""
    sym, tier, purchase = currency, bought.tier, bought.total
    formulas = [
        f"purchase = {count} × {bought.unit:,.0f} + {bought.servers} × {bought.tier_price:,.0f} ({tier.label}) = "
        f"{purchase:,.0f} {sym}",
        f"IT power = ({count} × {gpu.tdp_w:.0f} W + {bought.servers} × {tier.power_w:.0f} W) × {utilization:g} = "
        f"{yearly.it_kw:.2f} kW",
        f"energy = {yearly.it_kw:.2f} kW × 8760 h × PUE {run.pue:g} = {yearly.kwh_year:,.0f} kWh/year; × "
        f"{run.electricity:g} {sym}/kWh = {yearly.power_year:,.0f} {sym}/year",
        f"operations = {run.ops_frac:g} × purchase = {yearly.ops_year:,.0f} {sym}/year",
        f"depreciation = purchase / {yearly.dep_years:g} years = {yearly.dep_year:,.0f} {sym}/year; residual after "
        f"{years:g} years = {yearly.residual:,.0f} {sym}",
        f"TCO = purchase + {years:g} × (power + operations) = {yearly.tco:,.0f} {sym}",
        f"GPU-hours used = {count} × 8760 × {years:g} × {utilization:g} = {yearly.gpu_hours:,.0f}",
    ]
    cloud = rent.cloud
    if cloud is not None and rent.cloud_cost is not None and rent.cloud_hour is not None:
        listed = f"¥{cloud.cny_per_hour:g}" if cloud.cny_per_hour is not None else f"${cloud.usd_per_hour:g}"
        formulas.append(f"cloud = {yearly.gpu_hours:,.0f} GPU-hours × {rent.cloud_hour:,.2f} {sym} ({listed}, "
                        f"{cloud.provider}) = {rent.cloud_cost:,.0f} {sym}")
        if rent.break_even is not None:
            formulas.append(f"break-even utilisation = (purchase + {years:g}·operations) / ({count}·8760·{years:g}·"
                            f"cloud/h − {years:g}·power at 100%) = {rent.break_even:.1%}")
    if per_m_owned is not None:
        formulas.append(f"cost per 1M tokens = TCO / ({tokens_per_s:,.0f} tokens/s × hours used) = "
                        f"{per_m_owned.amount:,.3f} {sym}")
    return formulas


def _tco_assumptions(gpu: GpuSpec, econ: Economics, currency: str, years: float, region: str, bought: _Purchase,
                     rent: _Renting) -> list[str]:
    """What a TCO estimate assumes, and what it could not price."""
    rate = econ.exchange_rate_cny_per_usd
    assumptions = [
        f"money in {currency} at {rate.value:g} CNY/USD (as of {rate.as_of})",
        f"rest of the server priced as the '{bought.tier_key}' tier: {bought.tier.label}",
        "GPUs and platform draw their rated power × utilisation (idle power not modelled)",
        "TCO excludes financing, rack space, networking beyond the server, and resale (shown as residual value)",
    ]
    cloud, break_even = rent.cloud, rent.break_even
    if cloud is not None and cloud.origin == "catalog" and cloud.region != region:
        assumptions.append(f"no {'mainland-China' if region == 'cn' else 'non-China'} cloud quote for {gpu.name} in "
                           f"the catalog: renting is priced at {cloud.provider}'s rate")
    if cloud is None:
        assumptions.append(f"no cloud price for {gpu.name} in the catalog: pass --cloud-price USD_PER_GPU_HOUR")
    elif break_even is None:
        assumptions.append("renting is cheaper at every utilisation: power alone costs more than the cloud rate")
    elif break_even > 1:
        assumptions.append(f"break-even utilisation {break_even:.0%} exceeds 100%: renting is cheaper over "
                           f"{years:g} years")
    return assumptions


def _stated_rate(cloud: CloudQuote | None) -> Money | None:
    """A price per GPU-hour the person stated (origin "user"), in the currency they said it in; None otherwise."""
    if cloud is None or cloud.origin != "user":
        return None
    if cloud.cny_per_hour is not None:
        return _m(cloud.cny_per_hour, "CNY")
    return _m(cloud.usd_per_hour, "USD")


def estimate_tco(gpu: GpuSpec, count: int, econ: Economics, *, years: float | None = None, currency: str = "CNY",
                 electricity: float | None = None, utilization: float = 1.0, pue: float | None = None,
                 gpu_price: float | None = None, cloud_usd_per_hour: float | None = None,
                 tokens_per_s: float | None = None, operations_fraction: float | None = None,
                 region: str = "global", condition: str = "new", cloud_quote: CloudQuote | None = None,
                 electricity_currency: str | None = None) -> TcoEstimate:
    """Owning `count` × `gpu` for `years` at `utilization` against renting the same GPU-hours; see the module
    docstring for every formula. `tokens_per_s` (the whole configuration at full load) adds cost per 1M tokens.
    `region` ("cn" or "global") picks the cloud quote: a mainland-China provider's, in CNY as listed, for "cn";
    `cloud_quote`, a price the person states (origin "user"), replaces the catalog's. `electricity`, a price per kWh
    the person states (in `electricity_currency`, default `currency`: "0.8 元/度" for a cost in USD is converted at the
    dated exchange rate), replaces economics.yaml's dated price in the power, the TCO, the break-even and the cost
    per token; its input is recorded as said ("electricity", source "user input")."""
    years = float(years if years is not None else econ.default_years.value)
    _check_tco_request(count, years, utilization, electricity, currency, gpu_price, cloud_usd_per_hour, pue, region,
                       tokens_per_s, electricity_currency)
    rate = econ.exchange_rate_cny_per_usd
    bought, bought_prices = _purchase(gpu, count, econ, currency, gpu_price, condition)
    run, run_prices = _running(econ, currency, electricity, pue, operations_fraction, electricity_currency)
    yearly = _yearly(gpu, count, bought, run, econ, years, utilization)
    rent, rent_prices = _renting(gpu, count, econ, currency, cloud_usd_per_hour, region, years, bought.total, yearly,
                                 cloud_quote)
    prices = [DatedValue(name="exchange rate", value=rate.value, unit="CNY per USD", as_of=rate.as_of,
                         source=",".join(rate.source)), *bought_prices, *run_prices, *rent_prices]

    per_m_owned = per_m_cloud = None
    if tokens_per_s is not None and yearly.gpu_hours > 0:  # cost / 1M tokens = cost / (tokens/s × 3600 × hours) × 10⁶
        tokens = tokens_per_s * 3600.0 * HOURS_PER_YEAR * years * utilization  # tokens_made over the hours used
        per_m_owned = _m(per_million_tokens(yearly.tco, tokens), currency)
        if rent.cloud_cost is not None:
            per_m_cloud = _m(per_million_tokens(rent.cloud_cost, tokens), currency)

    cloud, tco, gpu_hours = rent.cloud, yearly.tco, yearly.gpu_hours
    return TcoEstimate(
        gpu=gpu.id, count=count, years=years, utilization=utilization, currency=currency,  # type: ignore[arg-type]
        exchange_rate_cny_per_usd=rate.value, exchange_rate_date=rate.as_of, servers=bought.servers,
        server_tier=bought.tier_key, gpu_unit_price=_m(bought.unit, currency), gpu_price_date=bought.unit_date,
        gpu_price_kind=bought.unit_kind, purchase_gpus=_m(bought.gpus, currency),
        purchase_rest=_m(bought.rest, currency), purchase_total=_m(bought.total, currency),
        power_kw_it=yearly.it_kw, energy_kwh_per_year=yearly.kwh_year, electricity_price=run.electricity,
        pue=run.pue, power_per_year=_m(yearly.power_year, currency), operations_per_year=_m(yearly.ops_year, currency),
        depreciation_per_year=_m(yearly.dep_year, currency), residual_value=_m(yearly.residual, currency),
        tco=_m(tco, currency), tco_per_year=_m(tco / years, currency), gpu_hours_used=gpu_hours,
        cost_per_gpu_hour_used=_m(tco / gpu_hours, currency) if gpu_hours > 0 else None,
        cloud_usd_per_gpu_hour=cloud.usd_per_hour if cloud else None, cloud_provider=cloud.provider if cloud else None,
        cloud_price_date=cloud.date if cloud else None,
        cloud_region=cloud.region if cloud else None,
        cloud_other_region=bool(cloud and cloud.origin != "user" and cloud.region != region),
        cloud_cost=_m(rent.cloud_cost, currency) if rent.cloud_cost is not None else None,
        cloud_stated_rate=_stated_rate(cloud),
        break_even_utilization=rent.break_even, tokens_per_s=tokens_per_s, cost_per_million_tokens_owned=per_m_owned,
        cost_per_million_tokens_cloud=per_m_cloud, prices=prices,
        formulas=_tco_formulas(gpu, count, currency, years, utilization, bought, run, yearly, rent, tokens_per_s,
                               per_m_owned),
        assumptions=_tco_assumptions(gpu, econ, currency, years, region, bought, rent),
    )


# ------------------------------------------------------------------------------------------------------------
# the guide's TCO table, recomputed


class GuideTcoCheck(Value):
    option: str
    guide_initial: float | None
    guide_energy: float | None
    guide_operations: float | None
    guide_total: float | None
    ours_initial: float | None
    ours_energy: float | None
    ours_operations: float | None
    ours_total: float | None
    explanation: str


def recompute_guide_tco(rows: Sequence[TcoRow], gpus: dict[str, GpuSpec], econ: Economics, *, years: float = 5.0,
                        cny_per_kwh: float = 1.0, cloud_gpu: GpuSpec | None = None) -> list[GuideTcoCheck]:
    """guide-000's TCO table (rows of knowledge.guides.TcoRow) recomputed in CNY with the guide's own electricity
    price (1 CNY/kWh), at full utilisation over `years` (the guide's horizon is 3–5 years; 5 is the most generous
    to its energy figures). Each row says why the numbers differ."""
    out: list[GuideTcoCheck] = []
    for row in rows:
        if row.gpus is None:  # the cloud row: what hourly rate does the guide's total imply?
            gpu = cloud_gpu
            count = 8
            assert row.total_cny is not None, f"{row.option_en}: the guide's cloud row gives its total"
            implied = row.total_cny / (count * HOURS_PER_YEAR * years)
            implied_usd = implied / econ.exchange_rate_cny_per_usd.value
            quote = cloud_price(gpu, econ) if gpu else None
            ours = quote and count * HOURS_PER_YEAR * years * econ.to_currency(quote.usd_per_hour, "USD", "CNY")
            lows = sorted(r.usd_per_hour for r in econ.cloud_reference.get(gpu.id, [])) if gpu else []
            rng = f" (references: ${lows[0]:g}–${lows[-1]:g}/GPU-hour)" if len(lows) > 1 else ""
            guide_total = f"{row.total_cny / 1e4:,.0f}万 CNY"  # the guide's amount in the guide's own unit
            out.append(GuideTcoCheck(
                option=row.option_en, guide_initial=None, guide_energy=row.energy_cny, guide_operations=None,
                guide_total=row.total_cny, ours_initial=None, ours_energy=None, ours_operations=None,
                ours_total=ours or None,
                explanation=(f"the guide names no GPU count or hours; as 8 H100 around the clock for {years:g} years its "
                             f"{guide_total} implies {implied:,.1f} CNY (${implied_usd:.2f}) per "
                             f"GPU-hour{rng}; our figure uses the {quote.origin}'s newest on-demand price "
                             f"(${quote.usd_per_hour:g}, {quote.provider}, {quote.date})" if quote else
                             "the guide names no GPU count or hours"),
            ))
            continue
        gpu = gpus[row.gpus.gpu]
        est = estimate_tco(gpu, row.gpus.count, econ, years=years, currency="CNY", electricity=cny_per_kwh,
                           utilization=1.0)
        energy = est.power_per_year.amount * years
        ops = est.operations_per_year.amount * years
        if row.initial_cny is None:  # hybrid: owned part only
            assert row.total_cny is not None, f"{row.option_en}: the guide's hybrid row gives its total"
            out.append(GuideTcoCheck(
                option=row.option_en, guide_initial=None, guide_energy=row.energy_cny,
                guide_operations=row.operations_cny, guide_total=row.total_cny,
                ours_initial=est.purchase_total.amount, ours_energy=energy, ours_operations=ops,
                ours_total=est.tco.amount,
                explanation=(f"the guide gives no split between owned and rented capacity; the owned part alone "
                             f"({row.gpus.count} × {gpu.name}) costs {est.tco.amount / 1e4:,.0f}万 CNY over {years:g} "
                             f"years, so ~{(row.total_cny - est.tco.amount) / 1e4:,.0f}万 would be cloud spend"),
            ))
            continue
        per_card = row.initial_cny / row.gpus.count
        match = [p for p in gpu.prices if p.currency == "CNY" and abs(p.amount / per_card - 1) <= 0.15]
        matched = (f" — it matches the {match[0].kind.replace('_', ' ')} of {match[0].date} "
                   f"({match[0].amount:,.0f} CNY)" if match else "")
        assert row.energy_cny is not None, f"{row.option_en}: the guide's row of owned GPUs gives its energy"
        guide_kwh = row.energy_cny / cny_per_kwh
        guide_kw = guide_kwh / (HOURS_PER_YEAR * years * est.pue)
        per_card_guide = row.initial_cny / row.gpus.count
        notes = [
            f"purchase: {row.gpus.count} × {est.gpu_unit_price.amount:,.0f} CNY ({est.gpu_price_kind}, "
            f"{est.gpu_price_date}) + {est.servers} server(s) {est.purchase_rest.amount:,.0f} = "
            f"{est.purchase_total.amount / 1e4:,.1f}万; the guide's {per_card_guide / 1e4:,.1f}万 per card is "
            f"{per_card_guide / est.gpu_unit_price.amount:.1f}× our card price{matched}",
            f"energy: {est.power_kw_it:.1f} kW around the clock for {years:g} years at PUE {est.pue:g} and "
            f"{cny_per_kwh:g} CNY/kWh = {energy / 1e4:,.0f}万; the guide's {row.energy_cny / 1e4:,.0f}万 would need "
            f"{guide_kw:,.0f} kW of IT load, {guide_kw / est.power_kw_it:.0f}× what these GPUs and servers draw",
        ]
        if row.operations_cny:
            notes.append(f"operations: {econ.operations_fraction_per_year.value:g} of purchase per year = "
                         f"{ops / 1e4:,.0f}万 vs the guide's {row.operations_cny / 1e4:,.0f}万")
        out.append(GuideTcoCheck(
            option=row.option_en, guide_initial=row.initial_cny, guide_energy=row.energy_cny,
            guide_operations=row.operations_cny, guide_total=row.total_cny, ours_initial=est.purchase_total.amount,
            ours_energy=energy, ours_operations=ops, ours_total=est.tco.amount, explanation="; ".join(notes),
        ))
    return out
