"""The verdict of a rent-or-buy question: which is cheaper over the horizon, and the month buying breaks even.

    rent a month   R = GPU-hours a month × cheapest dated price per GPU-hour (the catalog's `GpuSpec.cloud`)
    own a month    O = (power a year × hours a month / 730 + operations a year) / 12   (the TCO's own figures,
                       advisor.estimator.cost: power at full load around the clock, operations = 3 % of purchase)
    buy            P = the TCO's purchase (cards + rest of the server)
    break-even     m* = P / (R − O) months (never when R ≤ O); over H months renting costs R·H, buying P + O·H

GPU-hours a month = cards × hours each card runs (the stated usage: "8 hours a day" = 8 × 365/12 = 243 h; a share
of the time, "60% of the time" = 0.6 × 730 h = 438 h, so renting costs that share and owning that share of the power;
not stated: around the clock, 730 h). A training job rents its own GPU-hours once: the verdict compares that one run
with the purchase. The resale value of owned cards is not counted (said in the answer). A cloud quoted per instance
size rents whole instances of the size that holds the layout (`sized_quotes`): R = GPU-hours × billed / used cards.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from advisor.conversation.dialog.money import stated_electricity
from advisor.conversation.reader.electricity import ElectricityPrice
from advisor.conversation.reader.usage import HOURS_PER_MONTH
from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import estimate_tco
from knowledge.errors import AdvisorError
from knowledge.messages import t
from knowledge.structs import Value

if TYPE_CHECKING:
    from advisor.workload import StatedElectricity
    from knowledge.catalog import Catalog
from advisor.conversation.render.book import Book

SRC_TCO = "advisor.estimator.cost.estimate_tco"
SRC_USAGE = "user input (usage), reader.usage"


class Usage(Value):
    """Hours a month each card runs (or the whole job's GPU-hours a month), the horizon, and whether each was said."""

    hours: float
    per_gpu: bool
    stated: bool
    words: str
    horizon: float
    horizon_stated: bool
    share: float | None = None  # the usage said as a share of the time (0–1), None when said in hours or not said


def usage_of(request: dict[str, Any]) -> Usage:
    """The usage and horizon the typed request carries (the reader's defaults when the person said none)."""
    limits = {v["name"]: v for v in request.get("limits", [])}
    u = limits.get("usage_hours_month") or {"value": HOURS_PER_MONTH, "provenance": "default"}
    h = limits.get("horizon_months") or {"value": 36, "provenance": "default"}
    share = limits.get("usage_share")
    return Usage(hours=float(u["value"]), per_gpu=u.get("unit") != "GPU-hours", stated=u.get("provenance") == "stated",
                 words=str(u.get("text") or ""), horizon=float(h["value"]), horizon_stated=h.get("provenance") == "stated",
                 share=float(share["value"]) if share else None)


def usage_words(use: Usage, book: Book, lang: str) -> str:
    """The stated usage as the answer says it: a share of the time in the answer's language ("60% of the time",
    "60% 的时间在用"), else the person's words ("8 hours a day")."""
    if use.share is None:
        return use.words
    pct = book.num("share of the time the cards are used", use.share * 100, "%", SRC_USAGE, 0, suffix="").strip()
    return t("rent.how.share", lang, pct=pct + "%")


class Stated(Value):
    """A rental price the person states (reader.rental, carried in the request's limits with provenance "stated"):
    per GPU-hour in `currency` (None: an instance's price whose GPU count was not said), the instance's price and
    GPU count where it was one, the provider named (None when none), and whether the currency was said."""

    amount: float | None
    currency: str
    currency_said: bool
    instance: float | None
    gpus: int | None
    provider: str | None
    period_hours: float = 1.0  # the hours the price as said covers (730 for one per month), divided out above

    def per_gpu(self, count: int) -> float:
        """The price per GPU-hour: as said, else the instance's price over its GPUs (the `count` sized when the
        instance's GPU count was not said; the answer says so)."""
        return self.amount if self.amount is not None else float(self.instance or 0.0) / max(1, count)


    def whole(self, count: int) -> int:
        """Whole instances rented for `count` cards when an instance's price and GPU count were said and the
        count does not fill them (⌈count / GPUs⌉); 0 otherwise (the cards' own hours are billed)."""
        if self.instance is None or not self.gpus or count % self.gpus == 0:
            return 0
        return -(-count // self.gpus)


def stated_of(request: dict[str, Any]) -> Stated | None:
    """The rental price the typed request carries as said by the person, None when none was said."""
    limits = {v["name"]: v for v in request.get("limits", [])}
    rate, inst = limits.get("rent_rate"), limits.get("rent_rate_instance")
    if rate is None and inst is None:
        return None
    unit = str((rate or inst or {}).get("unit") or "USD")
    gpus = limits.get("rent_rate_gpus")
    provider = limits.get("rent_provider")
    period = limits.get("rent_rate_period_hours")
    return Stated(amount=float(rate["value"]) if rate else None, currency=unit.split()[0],
                  currency_said=(rate or inst or {}).get("provenance") == "stated",
                  instance=float(inst["value"]) if inst else None, gpus=int(gpus["value"]) if gpus else None,
                  provider=str(provider["value"]) if provider else None,
                  period_hours=float(period["value"]) if period else 1.0)


def listed_quote(gpu: Any, provider: str) -> tuple[float, str, str] | None:
    """The catalog's own dated price of `provider` for `gpu` per GPU-hour (amount, its currency: a China quote's
    yuan as listed, else USD; date), from the card's quotes (`GpuSpec.cloud`) or economics.yaml's dated references;
    None when the catalog has none."""
    key = provider.lower()
    refs = load_economics().cloud_reference.get(gpu.id) or []
    for q in [*gpu.cloud, *refs]:
        if str(q.provider).lower().startswith(key):
            cny = getattr(q, "cny_per_hour", None)
            return (float(cny), "CNY", q.date.isoformat()) if cny else (float(q.usd_per_hour), "USD", q.date.isoformat())
    return None


def verdict(*, book: Book, lang: str, what: str, monthly_rent: float | None, job_rent: float | None, cur: str,
            provider: str, tco: dict[str, Any], use: Usage, rate: float) -> str | None:
    """The first sentence of a rent-or-buy answer (see the module doc); None without a purchase price."""
    buy = ((tco.get("purchase") or {}).get("total") or {})
    if not buy.get("amount"):
        return None

    def conv(m: dict[str, Any] | None) -> float:
        if not m:
            return 0.0
        amount, c = float(m.get("amount") or 0.0), str(m.get("currency") or cur)
        if c == cur:
            return amount
        return amount * rate if cur == "CNY" else amount / rate

    purchase = conv(buy)
    p = book.money(f"purchase of {what}", purchase, cur, SRC_TCO)
    if job_rent is not None:  # a training run rents its GPU-hours once
        r = book.money(f"rental of the job on {what} at {provider}", job_rent, cur, SRC_TCO)
        runs = purchase / job_rent if job_rent > 0 else None
        n = book.num(f"runs of this job that cost as much as buying {what}", runs or 0, "runs", "purchase / rental",
                     0 if (runs or 0) >= 10 else 1, suffix=t("rent.verdict.runs", lang))
        return t("rent.verdict.job", lang, r=r, provider=provider, p=p, what=what, n=n)
    assert monthly_rent is not None
    fraction = min(1.0, use.hours / HOURS_PER_MONTH) if use.per_gpu else 1.0
    own = (conv(tco.get("power_per_year")) * fraction + conv(tco.get("operations_per_year"))) / 12
    horizon = use.horizon
    rent_total, buy_total = monthly_rent * horizon, purchase + own * horizon
    hz = book.num("horizon of the comparison", horizon, "months", SRC_USAGE if use.horizon_stated else
                  "economics default TCO years × 12", 0 if horizon == int(horizon) else 1,
                  suffix=t("rent.verdict.horizon", lang, n=horizon))
    rt = book.money(f"rental of {what} over the horizon at {provider}", rent_total, cur, "monthly rent × months")
    bt = book.money(f"purchase and running of {what} over the horizon", buy_total, cur, "purchase + running × months")
    rm = book.money(f"rental a month of {what} at {provider}", monthly_rent, cur, "GPU-hours × price per GPU-hour")
    om = book.money(f"power and operations a month of {what} owned", own, cur, SRC_TCO)
    assumed = "" if use.horizon_stated else t("rent.verdict.assumed", lang)
    used = t("rent.verdict.used", lang, words=usage_words(use, book, lang)) if use.stated else ""
    said = {"hz": hz, "assumed": assumed, "what": what, "bt": bt, "p": p, "om": om, "rt": rt, "rm": rm, "provider": provider,
            "used": used}
    if monthly_rent > own:
        months = purchase / (monthly_rent - own)
        be = book.num(f"break-even month of buying {what}", months, "months", "purchase / (rent − running a month)",
                      0 if months >= 10 else 1, suffix=t("rent.months_unit", lang))
        return t("rent.verdict.buy" if months <= horizon else "rent.verdict.rent", lang, **said, be=be)
    return t("rent.verdict.never", lang, **said)


def power_of(request: dict[str, Any], currency: str) -> StatedElectricity | None:
    """The electricity price the typed request carries as stated ("electricity_price", its unit the currency said:
    "USD per kWh", "EUR per kWh", or none), for a cost in `currency` (dialog.money.stated_electricity); None when
    none was said."""
    limits = {v["name"]: v for v in request.get("limits", [])}
    said = limits.get("electricity_price")
    if said is None:
        return None
    cur = str(said.get("unit") or "").partition(" per ")[0].strip()
    return stated_electricity(ElectricityPrice(float(said["value"]), cur if cur in ("USD", "CNY") else None,
                                               cur if cur not in ("USD", "CNY", "per kWh", "") else None), currency)


def card_options(request: dict[str, Any], catalog: Catalog, currency: str) -> list[dict[str, Any]]:
    """The named cards (candidate, compared or owned, with a count; one when none is said) as options carrying the
    TCO of buying them (advisor.estimator.cost.estimate_tco, power at the stated electricity price when one was
    said), for a rent-or-buy question with no job to size."""
    out = []
    power = power_of(request, currency)
    for h in request.get("hardware", []):
        gpu = catalog.find_gpu(h["gpu"]) if h.get("gpu") and h.get("role") != "excluded" else None
        if gpu is None:
            continue
        try:
            tco = estimate_tco(gpu, int(h.get("count") or 1), load_economics(), currency=currency,
                               electricity=power.per_kwh if power else None,
                               electricity_currency=power.currency if power else None).to_contract()
        except AdvisorError:
            continue
        out.append({"gpu": gpu.id, "count": int(h.get("count") or 1), "tco": tco})
    return out


INSTANCE_QUOTE = re.compile(r"^(?P<provider>[^(]+?)\s*\((?P<instance>[a-z0-9-]+\.[a-z0-9-]+)")


def sized_quotes(quotes: list[tuple[str, float, str, str, str]], gpu: str, count: int,
                 group: int) -> list[tuple[tuple[str, float, str, str, str], int]]:
    """The quotes with, for a cloud quoted per instance size ("AWS (g6e.12xlarge, us-east-1)"), only the size that
    holds `count` cards with each model copy of `group` cards inside one instance (CloudOffers.instances_for), each
    with the cards billed: whole instances, n·k ≥ count (2 L40S in TP 2 rent one 4-card g6e.12xlarge at its own
    per-GPU price, not two 1-card g6e.xlarge). Other quotes bill `count`."""
    # start-up: the offers table is read only for a rental answer
    from knowledge.cloud_offers import load_cloud_offers

    offers = load_cloud_offers()
    sizes: dict[str, set[str]] = {}
    for q in quotes:
        m = INSTANCE_QUOTE.match(q[0])
        if m and any(o.instance == m["instance"] and o.gpu == gpu for o in offers.offers):
            sizes.setdefault(m["provider"], set()).add(m["instance"])
    out = []
    for q in quotes:
        m = INSTANCE_QUOTE.match(q[0])
        picked = offers.instances_for(m["provider"], gpu, count, group) if m and m["provider"] in sizes else None
        if m is None or picked is None:
            out.append((q, count))
        elif m["instance"] == picked[0].instance:  # the size kept: its whole instances billed
            out.append((q, max(count, picked[1] * picked[0].gpus)))
        elif picked[0].instance not in sizes[m["provider"]]:  # the size that holds it is not quoted: each as it is
            out.append((q, count))
    return out


__all__ = ["INSTANCE_QUOTE", "Stated", "Usage", "card_options", "listed_quote", "power_of", "sized_quotes", "stated_of",
           "usage_of", "usage_words", "verdict"]
