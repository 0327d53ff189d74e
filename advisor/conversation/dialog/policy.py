"""The answer's first sentence for acts whose lead is not "which configuration fits" (issue 26/30 policy).

* rent_vs_buy — the rental cost first: the job's GPU-hours × each provider's dated hourly price from the catalog
  (`GpuSpec.cloud`), cheapest first, then the purchase of the same configuration for comparison.
  A training job's GPU-hours are the estimator's (`throughput.gpu_hours` of the lead option); a serving
  deployment runs around the clock, so a month is count × 730 h (8760 h / 12).
  For a mainland-China question, quotes listed in CNY (`region: cn`) come first; other quotes are converted
  at economics.yaml's exchange rate and say that they are offered outside China.

* market / legality — right after the verdict (status and date): since when, the catalog's sources, and the
  China-market cards offered instead with their own dated status.

`apply(request, turn, catalog, lang)` edits the turn's answer (numbers recorded in the turn).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from advisor.conversation.dialog import compare, rent
from advisor.conversation.dialog.machine import default_weights
from advisor.conversation.reader.intent import asks, asks_time_and_cost
from advisor.conversation.reader.lang import say
from advisor.conversation.reader.rental import read_provider, same_provider
from advisor.conversation.reader.usage import DAYS_PER_MONTH
from advisor.conversation.render.book import Book
from advisor.conversation.render.interconnect import LINK_LEAD, SRC_CARD, card_text
from advisor.conversation.render.labels import provider_label
from advisor.conversation.render.options_table import wall_text
from advisor.conversation.render.power_price import at_your_price
from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import (
    HOURS_PER_MONTH,  # 730 h: a serving deployment rents its cards around the clock
    cloud_price,
)
from advisor.estimator.kv_cache import kv_cache_bytes
from knowledge.messages import known as has_message
from knowledge.messages import t
from knowledge.params import param_counts
from knowledge.quantities import Bytes, Seconds

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn
    from knowledge.catalog import Catalog

SRC_CLOUD = "knowledge catalog: GpuSpec.cloud (dated provider quote)"
SRC_HOURS = "advisor.estimator.training_time (GPU-hours of the lead option)"
SRC_MARKET = "knowledge catalog: GpuSpec.china (dated China-market status and its sources)"


def _quotes(gpu: Any, region: str, cny_per_usd: float) -> list[tuple[str, float, str, str, str]]:
    """(provider, price per GPU-hour in the answer's currency, currency, date, tier) for every dated quote."""
    out = []
    for q in gpu.cloud:
        if region == "cn":
            price, cur = (q.cny_per_hour, "CNY") if q.cny_per_hour is not None else (q.usd_per_hour * cny_per_usd, "CNY")
        else:
            price, cur = q.usd_per_hour, "USD"
        out.append((q.provider + ("" if q.region == "cn" or region != "cn" else "*"), float(price), cur,
                    q.date.isoformat(), q.tier))
    return sorted(out, key=lambda x: (x[0].endswith("*"), x[1]))


def _rented_as(gpu: Any, catalog: Catalog) -> Any | None:
    """The card whose dated cloud quotes price renting `gpu`: its own, else (a China-market version such as the
    RTX 4090 D, which providers do not list) the card it is cut down from; None when neither is rented out."""
    if gpu.cloud:
        return gpu
    base = catalog.find_gpu(gpu.china.china_variant_of) if gpu.china.china_variant_of else None
    return base if base is not None and base.cloud else None


# "cheaper to rent?", "server vs renting", "rent or own": renting weighed against buying, the verdict first
_WHICH_CHEAPER = re.compile(r"cheaper|worth|cost[\s-]*effective|makes? sense|better|(?<![a-z])vs\.?(?![a-z])|versus|"
                            r"compared (?:to|with)|or (?:buy|own|purchase)|划算|便宜|值得|合算|省钱|还是买", re.I)
# "租啥机器划算", "which instance is cheapest to rent": the value asked is among rentals, not against buying, unless
# buying is named beside it
_WHICH_RENTAL = re.compile(r"(?<![a-z])(?:which|what)\s+(?:\w+\s+)?(?:instances?|machines?|boxes|gpus?|cards?|sizes?|"
                           r"servers?)(?![a-z])|(?:啥|哪个|哪种|哪款|什么)\s*(?:样的)?\s*(?:机器|实例|机型|卡|显卡|配置|服务器)", re.I)
_BUY_WORD = re.compile(r"(?<![a-z])(?:buy|buying|own|owning|purchas\w*)(?![a-z])|买|购", re.I)


def compares_with_buying(text: str) -> bool:
    """Whether a question about renting weighs it against buying ("cheaper to rent?", "租还是买划算"), so that the
    rent-or-buy verdict leads; a question of which rental is the better value ("租啥机器划算") does not."""
    if not _WHICH_CHEAPER.search(text):
        return False
    return not _WHICH_RENTAL.search(text) or bool(_BUY_WORD.search(text))


SRC_USAGE_HORIZON = "user input (rental period), reader.usage"
_HOURLY = re.compile(r"每小时|一个?小时|1\s*个?小时|每个小时|按小时|小时价|时租|多少钱一小时|每\s*(?:gpu|卡|张卡)\s*(?:每)?\s*小时|per[\s-]*(?:gpu[\s-]*)?hour|hourly|an hour|/\s*h(?:r|our)?\b", re.I)


def rent_lead(turn: Turn, catalog: Catalog, lang: str, region: str, request: dict[str, Any] | None = None,
              text_asked: str = "") -> str | None:
    """The rental paragraph for the lead option of `turn` (None when it has no option or no dated quote), opened by
    the rent-or-buy verdict (`dialog.rent`) at the usage the request states (around the clock when none). With no
    job sized, the cards the request names with their count stand as the options."""
    options = turn.options or rent.card_options(request or {}, catalog, "CNY" if region == "cn" else "USD")
    rentable = [(o, g, r) for o in options if (g := catalog.find_gpu(str(o.get("gpu", "")))) is not None
                and (r := _rented_as(g, catalog)) is not None]
    stated = rent.stated_of(request or {})
    if not rentable and stated is not None:  # no catalog quote, but the person's own price: it alone prices renting
        rentable = [(o, g, g) for o in options if (g := catalog.find_gpu(str(o.get("gpu", "")))) is not None][:1]
    if not rentable:
        return None
    # the lead when a provider rents it (or the card it is a China-market version of), else the first option that is
    # and has a purchase price (so renting can be weighed against buying), else the first rentable one
    top = [x for x in rentable if x[0] is options[0]]
    priced = [x for x in rentable if (((x[0].get("tco") or {}).get("purchase") or {}).get("total") or {}).get("amount")]
    # "host it on Lambda": the first option that provider rents, when one does (its quote then leads, below)
    asked_at = read_provider(text_asked.lower()) if stated is None else None  # "on Lambda": that provider first
    listed = [x for x in rentable if asked_at and any(same_provider(q.provider, asked_at) for q in x[2].cloud)]
    opt, gpu, rented = (listed[:1] or top or priced or rentable)[0]
    count = int(opt.get("count") or 1)

    rate = float(load_economics().exchange_rate_cny_per_usd.value)
    book = Book()
    use = rent.usage_of(request or {})
    # a training job rents its own GPU-hours once; a stated usage ("6 hours a day for a year") says how the cards would
    # be used beyond it, so that is compared month by month, as for serving
    # a stated rental period ("租一个月", "for 6 months") prices the cards for that long, the job's own hours said beside
    own_hours = (opt.get("throughput") or {}).get("gpu_hours")
    job_hours = None if (use.stated or use.horizon_stated) else own_hours
    training = job_hours is not None
    how = t("rent.how.stated", lang, words=rent.usage_words(use, book, lang)) if use.stated else t("rent.how.always", lang)
    if job_hours is not None:
        hours = float(job_hours)
        h = book.num(f"GPU-hours of the job on {count}× {gpu.name}", hours, "GPU-hours", SRC_HOURS, 1 if hours < 100 else 0,
                     suffix=t("rent.gpu_hours", lang))
    else:
        hours = count * use.hours if use.per_gpu else use.hours
        h = book.num(f"GPU-hours per month on {count}× {gpu.name}", hours, "GPU-hours",
                     "count × hours a month (stated usage)" if use.stated else "count × 8760 h / 12", 0,
                     suffix=t("rent.gpu_hours", lang))
    parts = []
    lay = opt.get("layout") or {}
    group = int(lay.get("tp") or 1) * int(lay.get("pp") or 1)
    # a cloud quoted per instance size: the size that holds this layout, billed by whole instances
    sized = rent.sized_quotes(_quotes(rented, region, rate), gpu.id, count, group)
    quotes, billed_of = [q for q, _ in sized], dict(sized)
    unlisted = ""
    if asked_at is not None:
        theirs = [q for q in quotes if same_provider(q[0], asked_at)]
        quotes = theirs + [q for q in quotes if q not in theirs]
        if not theirs:  # said first: the quotes that follow are other providers'
            unlisted = t("rent.stated.not_listed", lang, provider=provider_label(asked_at, lang), gpu=rented.name).strip() + " "
    for quote in quotes[:4]:
        provider, price, cur, date, tier = quote
        billed = billed_of[quote]
        name = provider.rstrip("*")
        cost = book.money(f"rental cost at {name} for {count}× {gpu.name}", hours * billed / count * price, cur,
                          SRC_CLOUD)
        unit = book.money(f"{name} price per GPU-hour of {gpu.name}", price, cur, SRC_CLOUD)
        abroad = t("rent.abroad", lang) if provider.endswith("*") else ""
        key = f"rent.tier.{tier}"
        tier_txt = t(key, lang) if has_message(key) else tier
        parts.append(t("rent.quote", lang, name=name, cost=cost, unit=unit, tier=tier_txt, date=date, abroad=abroad))
        if billed > count:  # whole instances: the idle cards are billed too
            parts[-1] += t("rent.whole_instance", lang, billed=billed, count=count)
    if not parts and stated is None:
        return None
    what = f"{count}× {gpu.name}"
    text = t("rent.job" if training else "rent.month", lang, what=what, h=h, how=how,
             quotes=t("clause.sep", lang).join(parts)) if parts else ""
    mine = ""
    if stated is not None:
        over = ""
        if not training and use.horizon_stated and use.horizon != 1:  # "for 6 months": the whole period too
            over = t("rent.stated.period", lang, months=_period_words(use, book, lang), total=book.money(
                f"rental over the stated period of {what} at your price", billed_hours(stated, count, hours)
                * use.horizon * stated.per_gpu(count), stated.currency,
                "GPU-hours a month × your price per GPU-hour × months"))
        mine = _stated_lead(stated, book, lang, gpu, count, hours, h, how, what, training, rate, over, bool(parts))
    hourly = not training and stated is None and bool(_HOURLY.search(text_asked)) and len(quotes) > 0
    if hourly:  # "每小时多少钱": the hourly price leads
        low, high = min(q[1] for q in quotes), max(q[1] for q in quotes)
        lo = book.money(f"lowest price per GPU-hour of {gpu.name}", low, quotes[0][2], SRC_CLOUD)
        hi = book.money(f"highest price per GPU-hour of {gpu.name}", high, quotes[0][2], SRC_CLOUD)
        if count > 1:  # "how much per hour to rent enough GPUs": the configuration's hour, its count × the rate
            tlo = book.money(f"lowest price an hour of {what}", low * count, quotes[0][2], SRC_CLOUD + " × count")
            thi = book.money(f"highest price an hour of {what}", high * count, quotes[0][2], SRC_CLOUD + " × count")
            text = t("rent.hourly_total" if high > low else "rent.hourly_total_one", lang, what=what, lo=tlo, hi=thi,
                     each_lo=lo, each_hi=hi, n=len(quotes)) + text
        else:
            text = t("rent.hourly" if high > low else "rent.hourly_one", lang, gpu=gpu.name, lo=lo, hi=hi,
                     n=len(quotes)) + text
    if not training and own_hours and not use.stated:  # a training job rented for a stated period: what the run takes
        job = book.num(f"GPU-hours of the job on {what}", float(own_hours), "GPU-hours", SRC_HOURS,
                       1 if float(own_hours) < 100 else 0, suffix=t("rent.gpu_hours", lang))
        text += t("rent.period_job", lang, h=job)
    period = ""
    if not training and use.horizon_stated and use.horizon != 1 and quotes and stated is None:  # "for 6 months": the whole period
        name, price, cur = quotes[0][0].rstrip("*"), quotes[0][1], quotes[0][2]
        total = book.money(f"rental over the stated period at {name} for {what}", hours * price * use.horizon, cur,
                           "GPU-hours a month × price per GPU-hour × months")
        months = _period_words(use, book, lang)
        rate_h = book.money(f"{name} price per GPU-hour of {gpu.name}", price, cur, SRC_CLOUD)
        period = unlisted + t("rent.period", lang, what=what, months=months, total=total, name=name, unit=rate_h,
                              date=quotes[0][3]) + "\n\n"
        unlisted = ""
    note = t("rent.not_fit", lang, what=what) if opt.get("fits") is False else ""  # said before any price
    first_opt, other = options[0] if options else None, ""
    if first_opt is not None and opt is not first_opt and first_opt.get("gpu_name"):  # never a silent stand-in
        other = t("sentence.gap", lang) + t("rent.other_option", lang, what=what,
                                             lead=f"{int(first_opt.get('count') or 1)}× {first_opt['gpu_name']}")
    if rented is not gpu and text:  # a China-market card no cloud lists: rented as the card it is cut down from
        text += t("rent.variant", lang, card=gpu.name, base=rented.name)
    buy = ((opt.get("tco") or {}).get("purchase") or {}).get("total") or {}
    first = _verdict_quote(quotes, rented, region, asked_at) if quotes else (
        "", 0.0, str(buy.get("currency") or ("CNY" if region == "cn" else "USD")), "", "")
    price, label = first[1] * billed_of.get(first, count) / count, first[0].rstrip("*")
    unit_price = price
    if stated is not None:  # the person's own price decides rent or buy; the catalog's quotes are the comparison
        price = unit_price = _in_currency(stated.per_gpu(count), stated.currency, first[2], rate)
        price *= 1.0 if training else billed_hours(stated, count, hours) / hours  # whole instances are billed
        label = (t("rent.stated.you_at", lang, provider=provider_label(stated.provider, lang)) if stated.provider
                 else t("rent.stated.you", lang))
    lead = rent.verdict(book=book, lang=lang, what=what, cur=first[2], provider=label, rate=rate,
                        monthly_rent=None if training else hours * price,
                        job_rent=hours * price if training else None, tco=opt.get("tco") or {},
                        use=use)
    if lead:  # every price in the verdict dated: the rental quote it uses and the cards' price
        card_date = next((str(p.get("as_of")) for p in (opt.get("tco") or {}).get("prices", [])
                          if "per card" in str(p.get("name", ""))), "")
        if stated is not None:
            unit = book.money(f"your price per GPU-hour of {gpu.name}", unit_price, first[2], SRC_STATED)
            lead += t("sentence.gap", lang) + t("rent.verdict.stated" if card_date else "rent.verdict.stated_rent",
                                                lang, unit=unit, card=card_date)
        else:
            unit = book.money(f"{label} price per GPU-hour of {gpu.name}", first[1], first[2], SRC_CLOUD)
            lead += t("sentence.gap", lang) + t("rent.verdict.dated" if card_date else "rent.verdict.dated_rent",
                                                lang, provider=label, unit=unit, date=first[3], card=card_date,
                                                tier=_tier_words(first[4], rented, lang))
        power = rent.power_of(request or {}, first[2])  # the person's tariff prices owning's power: said so
        lead += at_your_price((opt.get("tco") or {}).get("prices"), book, lang, power.said_in if power else None)
    rent_only = any(v.get("name") == "buy_or_rent" and v.get("value") == "rent" for v in (request or {}).get("limits", [])) \
        and not compares_with_buying(text_asked)  # "cheaper to rent?" compares with buying: the verdict first
    rent_only = rent_only or (hourly and not compares_with_buying(text_asked))  # "the hourly price of a B200"
    if mine:  # the person's own price leads; the verdict at that price, then the catalog's quotes as comparison
        text = (note + mine + other + "\n\n" + (lead + "\n\n" if lead else "") + text).strip()
    elif lead:  # a rent-or-buy question opens with the verdict; a question about renting alone with the rental cost
        # ("time and cost?" of a training job: how long it runs, then the money)
        took = _job_time(opt, what, h, book, lang) if training and asks_time_and_cost(text_asked) else ""
        text = (note + took + period + text + other + "\n\n" + lead if rent_only
                else note + took + lead + other + "\n\n" + text)
    else:
        if buy.get("amount"):
            cost = book.money(f"purchase of {what}", float(buy["amount"]), str(buy.get("currency", "USD")),
                              "advisor.estimator.cost.estimate_tco")
            text += t("rent.buy_instead", lang, cost=cost)
        text = note + period + text + other
    turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
    return unlisted + text  # (empty once the period sentence said it)


SRC_STATED = "user input (rental price stated by the user), reader.rental"


def _job_time(opt: dict[str, Any], what: str, h: str, book: Book, lang: str) -> str:
    """"Time and cost?" of a training job: its wall-clock on the cards (the planner's, `wall_text`) and its
    GPU-hours, said before the money; "" without a wall-clock."""
    wall = float((opt.get("throughput") or {}).get("wall_s") or 0)
    if wall <= 0:
        return ""
    when = wall_text(f"training wall-clock on {what}", Seconds(wall), book, lang)
    return t("rent.job_time", lang, what=what, time=when, h=h) + t("sentence.gap", lang)


def _verdict_quote(quotes: list[tuple[str, float, str, str, str]], rented: Any, region: str,
                   asked_at: str | None) -> tuple[str, float, str, str, str]:
    """The quote the rent-or-buy verdict rents at: the provider asked about ("on Lambda", listed first), else the one
    the TCO compares (advisor.estimator.cost.cloud_price: the region's providers, on-demand before reserved, spot
    and serverless, then the newest), not merely the cheapest (a spot price for a three-year commitment)."""
    if asked_at is not None and quotes[0][0].rstrip("*").lower().startswith(asked_at.lower()):
        return quotes[0]
    q = cloud_price(rented, load_economics(), region=region)
    same = [x for x in quotes if q is not None and q.date is not None and x[0].rstrip("*") == q.provider
            and x[3] == q.date.isoformat() and x[4] == q.tier]
    base = rent.INSTANCE_QUOTE.match(q.provider) if q is not None and not same else None
    if q is not None and base is not None:  # the TCO's quote is another size of that cloud: the size kept here
        same = [x for x in quotes if (m := rent.INSTANCE_QUOTE.match(x[0].rstrip("*"))) is not None
                and m["provider"] == base["provider"] and x[4] == q.tier]
    return same[0] if same else quotes[0]


def _tier_words(tier: str, rented: Any, lang: str) -> str:
    """What the verdict's quote is when it is not an on-demand price ("a spot price: … may be interrupted"), and that
    the catalog has no on-demand quote for the card when it has none; "" for an on-demand quote."""
    key = f"rent.verdict.tier.{tier}"
    if tier == "on_demand" or not has_message(key):
        return ""
    none = not any(q.tier == "on_demand" for q in rented.cloud)
    return t(key, lang) + (t("rent.verdict.no_on_demand", lang, gpu=rented.name) if none else "")


def _period_words(use: rent.Usage, book: Book, lang: str) -> str:
    """The stated rental period in words: weeks or days under a month ("for two weeks", "for 10 days"), else months."""
    days = use.horizon * DAYS_PER_MONTH
    if use.horizon < 1 and abs(days / 7 - round(days / 7)) < 0.01:  # "for a week", "for two weeks"
        return book.num("rental period", round(days / 7), "weeks", SRC_USAGE_HORIZON, 0,
                        suffix=t("rent.week_unit" if round(days / 7) == 1 else "rent.weeks_unit", lang))
    if use.horizon < 1:  # "for 10 days"
        return book.num("rental period", round(days), "days", SRC_USAGE_HORIZON, 0,
                        suffix=t("rent.day_unit" if round(days) == 1 else "rent.days_unit", lang))
    return book.num("rental period", use.horizon, "months", SRC_USAGE_HORIZON,
                    0 if use.horizon == int(use.horizon) else 1, suffix=t("rent.months_unit", lang))


def billed_hours(stated: rent.Stated, count: int, hours: float) -> float:
    """GPU-hours billed at the person's price: an instance is rented whole, so `count` cards on instances of g GPUs
    bill ⌈count / g⌉ × g GPUs (hours × that / count); otherwise the cards' own hours."""
    n = stated.whole(count)
    return hours / count * n * int(stated.gpus or 1) if n else hours


def _in_currency(amount: float, cur: str, to: str, cny_per_usd: float) -> float:
    """`amount` in `cur` converted to `to` at the dated exchange rate (economics.yaml)."""
    if cur == to:
        return amount
    return amount * cny_per_usd if to == "CNY" else amount / cny_per_usd


def _stated_lead(stated: rent.Stated, book: Book, lang: str, rented: Any, count: int, hours: float, h: str, how: str,
                 what: str, training: bool, cny_per_usd: float, over: str = "", quoted: bool = True) -> str:
    """The first sentence when the person states their own price: cost = GPU-hours × their price per GPU-hour (an
    instance's price over its GPUs), in their currency; then the provider's own listed price where the catalog has
    one, or that it is not in the catalog, and that the catalog's quotes follow as comparison."""
    per, cur = stated.per_gpu(count), stated.currency
    unit = book.money(f"your price per GPU-hour of {rented.name}", per, cur, SRC_STATED)
    if stated.amount is None:  # an instance's price, its GPU count not said: taken as the cards sized, said so
        unit += t("rent.stated.instance_assumed", lang, instance=book.money(
            "your price per instance-hour", float(stated.instance or 0), cur, SRC_STATED), n=count)
    elif stated.instance is not None and stated.gpus:
        unit += t("rent.stated.instance", lang, instance=book.money(
            "your price per instance-hour", stated.instance, cur, SRC_STATED), n=stated.gpus)
    if stated.period_hours != 1.0:  # "$1,500 per GPU per month": the hourly price it makes, and how
        hours_of = book.num("hours of the period the stated price covers", stated.period_hours, "hours",
                            "730 h a month (8760 / 12), 168 h a week, 24 h a day", 0, suffix="")
        period = "month" if stated.period_hours > 200 else "week" if stated.period_hours > 100 else "day"
        unit += t("rent.stated.per_period", lang, period=t(f"rent.period.{period}", lang), hours=hours_of)
    if not stated.currency_said:
        unit += t("rent.stated.currency_assumed", lang, cur=cur)
    whole = ""
    if stated.whole(count) and not training and stated.gpus:
        n = stated.whole(count)
        hours = billed_hours(stated, count, hours)
        h = book.num(f"GPU-hours per month billed for {n} instances of {stated.gpus} GPUs", hours, "GPU-hours",
                     "instances × GPUs per instance × hours a month", 0, suffix=t("rent.gpu_hours", lang))
        whole = t("rent.stated.whole", lang, n=n, g=stated.gpus, count=count)
    cost = book.money(f"rental of {what} at your price", hours * per, cur, "GPU-hours × your price per GPU-hour")
    name = provider_label(stated.provider, lang) if stated.provider else ""
    at = t("rent.stated.at", lang, provider=name) if name else ""
    text = t("rent.stated.job" if training else "rent.stated.month", lang, unit=unit, at=at, what=what + whole,
             how=how, h=h, cost=cost) + over
    compare = t("rent.stated.compare", lang) if quoted else t("rent.stated.no_quotes", lang, gpu=rented.name)
    if not stated.provider:
        return text + compare
    listed = rent.listed_quote(rented, stated.provider)
    if listed is None:  # never a silent drop: the provider named is not in the price catalog
        return text + t("rent.stated.not_listed", lang, provider=name, gpu=rented.name) + compare
    amount, listed_cur, date = listed
    theirs = book.money(f"{stated.provider} listed price per GPU-hour of {rented.name}",
                        _in_currency(amount, listed_cur, cur, cny_per_usd), cur, SRC_CLOUD)
    return text + t("rent.stated.listed", lang, provider=name, gpu=rented.name, unit=theirs, date=date) + compare


def market_note(request: dict[str, Any], catalog: Catalog, lang: str) -> str | None:
    """For a market or legality question: since when the card's China status holds, the catalog's sources for it,
    and the China-market cards offered in its place with their own status (said right after the verdict)."""
    lines = []
    for h in request.get("hardware", []):
        gpu = catalog.find_gpu(h["gpu"]) if h.get("gpu") and h.get("role") != "excluded" else None
        if gpu is None or gpu.china is None:
            continue
        china = gpu.china
        titles = []
        for sid in china.source:
            try:
                src = catalog.source(sid)
            except Exception:  # noqa: BLE001 - a missing source id is the catalog test's business, not the chat's
                continue
            titles.append(re.split(r"[:(;]", src.title)[0].strip())  # the title without its summary
        since = china.restricted_since.isoformat() if china.restricted_since else None
        alts = []
        for alt_id in china.substitutes:
            alt = catalog.find_gpu(alt_id)
            if alt is not None and alt.china is not None and alt.china.status not in ("restricted", "not_sold"):
                key = f"market_note.status.{alt.china.status}"
                label = t(key, lang) if has_message(key) else alt.china.status
                alts.append(t("market_note.alternative", lang, name=alt.name, label=label, date=alt.china.as_of))
        text = (t("market_note.restricted_since", lang, gpu=gpu.name, since=since) if since
                else t("market_note.gpu", lang, gpu=gpu.name))
        if titles:
            text += t("market_note.sources", lang, titles=t("clause.sep", lang).join(titles))
        if alts:
            text += t("market_note.alternatives", lang, alts=t("list.sep", lang).join(alts))
        lines.append(text.strip())
    return "\n\n".join(lines) or None


_KV_WORDS = re.compile(r"kv[\s-]*cache|kv 缓存|键值缓存", re.I)
_MOE_WORDS = re.compile(r"moe|mixture[\s-]*of[\s-]*experts|experts?|专家|active param\w*|激活参数", re.I)
_ACTIVE_ONLY = re.compile(r"active|激活|只需|only", re.I)


KV_EXAMPLES = ("llama-3.1-8b", "llama-3.1-70b")  # the common GQA shapes (8 KV heads of 128) at two depths


def _kv_formula(shape: str, c: str, lang: str) -> str:
    """KV bytes per sequence = 2 (K and V) × layers × KV heads × head size × 2 bytes (FP16) × context, in words;
    `shape` is the three factors joined by "|" (a model's figures, or their names when no model is named)."""
    layers, heads, dim = shape.split("|")
    return t("kv_claim.formula", lang, layers=layers, heads=heads, dim=dim, c=c)


def _kv_claim_examples(request: dict[str, Any], job: dict[str, Any], book: Book, catalog: Catalog,
                       lang: str) -> str | None:
    """A KV-cache claim that names no model: the cache per sequence of two common shapes at the context said
    (KV bytes = 2 × layers × KV heads × head size × 2 bytes × context), against the amount said."""
    models = [m for m in (catalog.find_model(i) for i in KV_EXAMPLES) if m is not None]
    if not models:
        return None
    ctx = int(job.get("context") or 4096)
    c = book.tokens("context of the claim", ctx, "user input", lang)
    sizes = [(m, Bytes(kv_cache_bytes(m, ctx))) for m in models]
    shown = [f"{m.name} {book.gib(f'KV cache of {m.name} at {ctx} tokens', kv)}" for m, kv in sizes]
    said = next((c_["value"] for c_ in request.get("claims", [])), None)
    small = said is not None and Bytes.of(said, "GB") < min(kv for _, kv in sizes) * 0.8
    verdict = t("kv_claim.no" if small else "kv_claim.depends", lang)
    return t("kv_claim.examples", lang, verdict=verdict, c=c, shown=t("list.sep", lang).join(shown),
             formula=_kv_formula(t("kv_claim.shape_names", lang), c, lang))


def kv_explain_lead(request: dict[str, Any], turn: Turn, catalog: Catalog, lang: str) -> str | None:
    """"Why is the KV cache so large?": the formula with the model's own shape, per sequence and for the
    concurrency of the job (KV bytes = 2 × layers × KV heads × head size × 2 bytes (FP16) × context × sequences)."""
    job = {v["name"]: v["value"] for v in request.get("job", [])}
    model = catalog.find_model(str(job.get("model") or "")) if job.get("model") else None
    if model is None or not model.num_kv_heads:
        return None
    book = Book()
    ctx, seqs = int(job.get("context") or 4096), int(job.get("concurrency") or 1)
    one = Bytes(kv_cache_bytes(model, ctx))
    per = book.gib(f"KV cache of {model.name} at {ctx} tokens", one)
    layers, heads, dim = _kv_shape(model, book)
    c = book.tokens("context of the job", ctx, "user input", lang)
    n = book.count("concurrent sequences", seqs, "sequences", "user input")
    total = book.gib(f"KV cache of {model.name} at {ctx} tokens × {seqs} sequences", one * seqs)
    saved = ""
    kv = str(job.get("kv") or "")
    if kv in ("fp8", "int8", "int4"):  # "kv cache 用 fp8 能省多少": the smaller cache and the saving lead
        small = Bytes(kv_cache_bytes(model, ctx, kv=kv))
        saved = t("kv_claim.saved", lang, kv=kv.upper(), model=model.name, c=c,
                  small=book.gib(f"KV cache of {model.name} at {ctx} tokens in {kv.upper()}", small), per=per,
                  save=book.gib(f"KV cache saved per sequence in {kv.upper()}", one - small),
                  n=n, total=book.gib(f"KV cache saved for {seqs} sequences", (one - small) * seqs))
    turn.numbers.extend(x for x in book.numbers if x not in turn.numbers)
    return saved + t("kv_claim.explain", lang, model=model.name, layers=layers, heads=heads, dim=dim, c=c, per=per,
                     n=n, total=total)


def _kv_shape(model: Any, book: Book) -> tuple[str, str, str]:
    """The model's layers, KV heads and head size as the KV formula shows them, booked (model config.json)."""
    return (book.count(f"layers of {model.name}", model.num_layers, "layers", "model config.json"),
            book.count(f"KV heads of {model.name}", model.num_kv_heads, "heads", "model config.json"),
            book.count(f"head size of {model.name}", model.head_dim, "dims", "model config.json"))


def claim_lead(request: dict[str, Any], turn: Turn, text: str, catalog: Catalog, lang: str) -> str | None:
    """The verdict of a claim about memory that names no guide (the estimator's figure first):

    * a KV-cache size — KV bytes = Σ_layers 2 × KV heads × head size × 2 bytes (FP16) × context
      (advisor.estimator.memory.kv_cache_bytes) for the model and context of the request, against the amount said;
    * "MoE models only need memory for their active experts" — every expert's weights stay in memory: total
      parameters × bytes per weight, against the active parameters (the router picks experts per token)."""
    book = Book()
    job = {v["name"]: v["value"] for v in request.get("job", [])}
    model = catalog.find_model(str(job.get("model") or "")) if job.get("model") else None
    out = None
    if _KV_WORDS.search(text) and model is not None:
        ctx = int(job.get("context") or 4096)
        kv = Bytes(kv_cache_bytes(model, ctx))
        got = book.gib(f"KV cache of {model.name} at {ctx} tokens", kv)
        layers, heads, dim = _kv_shape(model, book)
        c = book.tokens("context of the claim", ctx, "user input", lang)
        said = next((c_["value"] for c_ in request.get("claims", [])), None)
        small = said is None or Bytes.of(said, "GB") < kv * 0.8
        verdict = t("kv_claim.no" if small else "kv_claim.roughly", lang)
        out = t("kv_claim.model", lang, verdict=verdict, model=model.name, c=c, got=got,
                formula=_kv_formula(t("kv_claim.shape", lang, layers=layers, heads=heads, dim=dim), c, lang))
    elif _KV_WORDS.search(text) and not (_MOE_WORDS.search(text) and _ACTIVE_ONLY.search(text)):
        said_ctx = ((turn.workload or {}).get("slots") or {}).get("context")
        out = _kv_claim_examples(request, {"context": job.get("context") or said_ctx}, book, catalog, lang)
    elif _MOE_WORDS.search(text) and _ACTIVE_ONLY.search(text):
        def is_moe(m: Any) -> bool:
            counts = param_counts(m)
            return bool(counts.active < counts.total)

        moe = model if model is not None and is_moe(model) else next((m for m in catalog.models if is_moe(m)), None)
        if moe is None:
            return None
        counts = param_counts(moe)
        src = "knowledge.params.param_counts"
        total = book.num(f"parameters of {moe.name}", counts.total / 1e9, "B params", src, 1, suffix="B")
        active = book.num(f"active parameters of {moe.name}", counts.active / 1e9, "B params", src, 1, suffix="B")
        fmt = "FP8" if default_weights(moe.id) == "fp8" else "BF16"  # the checkpoint's own precision
        per = 1 if fmt == "FP8" else 2
        weights = book.gb(f"{fmt} weights of all experts of {moe.name}", Bytes.of(counts.total * per),
                          f"{per} bytes × parameters")
        out = t("moe_claim.all_experts", lang, model=moe.name, total=total, active=active, weights=weights, fmt=fmt)
    if out:
        turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
    return out


_CLAIM_SECTION = re.compile(r"<details><summary>(?:Claim check|说法核对)</summary>\s*(?P<body>.*?)\s*</details>\s*", re.S)
_CLAIM_VERDICTS = ("too_low", "weights_only", "plausible")  # the claim check's verdicts (claim.verdict.*)


def claim_first(turn: Turn, lang: str) -> None:
    """Move the claim check (its verdict, the computed figure and the quoted one) from its collapsed section to the
    front of the answer, opened by the verdict word; its numbers are already recorded by the renderer."""
    m = _CLAIM_SECTION.search(turn.answer)
    said = str(turn.extra.get("claim_verdict"))
    if m is None or said not in _CLAIM_VERDICTS:
        return
    verdict = t(f"claim.verdict.{said}", lang)
    if turn.answer.startswith(verdict):
        return
    body = m.group("body").strip()
    rest = (turn.answer[:m.start()] + turn.answer[m.end():]).strip()
    turn.answer = t("claim.first", lang, verdict=verdict, body=body) + "\n\n" + rest


def link_first(request: dict[str, Any], turn: Turn, catalog: Catalog, lang: str) -> None:
    """"Do two 4090s need NVLink?" with no configuration sized to answer it from (no model, or the cards do not
    hold it): the named cards' own link from the catalog first (advisor.conversation.render.interconnect)."""
    named = [h for h in request.get("hardware") or [] if h.get("gpu")]
    top = turn.extra.get("top") or {}
    gpu_id, count = (named[0]["gpu"], named[0].get("count") or 2) if named else (top.get("gpu"), top.get("count") or 1)
    gpu = catalog.find_gpu(str(gpu_id)) if gpu_id else None
    book = Book()
    if gpu is None:  # "does NVLink matter for inference?": when it does, in general, before the question
        first = book.text(t("link.general", lang), "interconnect", SRC_CARD)
    else:
        sized = any(v.get("name") == "model" for v in request.get("job") or [])
        first = card_text(gpu, int(count), book, lang, sized=sized)
    turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
    turn.answer = first + "\n\n" + turn.answer


def apply(request: dict[str, Any], turn: Turn, catalog: Catalog, lang: str, text: str = "") -> None:
    """Put the act's own answer where it belongs in `turn.answer`: the rental cost first for a rent question; the
    dated status, its source and the alternatives right after the verdict of a market or legality question."""
    act = request.get("act")
    if turn.extra.get("kind") == "input_error":  # bad input is answered by its one line alone
        return
    if text and asks("link", text) and turn.extra.get("deciding") != LINK_LEAD:
        link_first(request, turn, catalog, lang)  # "两张 4090 需要 NVLink 吗": the cards' own link first
    if act == "rent_vs_buy":
        region = next((v["value"] for v in request.get("limits", []) if v["name"] == "region"), "global")
        first = rent_lead(turn, catalog, lang, str(region), request, text)
        if not first and turn.options:  # "如果租的话每月多少" about cards no provider lists: said, not the quote again
            name = next((g.name for o in turn.options[:1] if (g := catalog.find_gpu(str(o.get("gpu", "")))) is not None),
                        None)
            first = t("rent.none", lang, gpu=name) if name else None
        if first:
            turn.answer = first + "\n\n" + turn.answer
    elif act == "claim" and turn.extra.get("claim_verdict") and turn.extra.get("kind") != "claim":
        claim_first(turn, lang)  # a claim checked against a sized job: its verdict before the recommendation
    elif act == "claim" and text and turn.extra.get("intent") != "claim" and turn.extra.get("kind") != "claim":
        # the dialog's own claim answers (a quoted guide figure) already lead with their verdict
        first = claim_lead(request, turn, text, catalog, lang)
        if first:
            # a claim with no job in it is answered by its verdict alone, not followed by "no workload found"
            rest = turn.answer.replace(say("nonsense", lang), "").strip()
            turn.answer = first + ("\n\n" + rest if rest else "")
    elif (act == "compare" or (act == "feasibility" and compare.one_card_counts(turn.options, request.get("hardware")))) and turn.options \
            and text and not turn.answer.startswith("**"):  # ("would doubling to 1024 H100s halve it?": the scaling)
        book = Book()  # "which is faster, an L40S or an A100?": the answer to that criterion first
        deadline = any(v.get("name") == "deadline_days" for v in request.get("limits", []))
        lead = compare.cards_verdict(turn.options, text, lang, catalog, book, request.get("hardware"), deadline,
                                     capacity=turn.extra.get("capacity"))
        if lead:
            turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
            turn.answer = lead + "\n\n" + turn.answer
    elif act == "explain" and text and _KV_WORDS.search(text) and not _MOE_WORDS.search(text):
        first = kv_explain_lead(request, turn, catalog, lang)  # "why is the KV cache so large?": its formula first
        if first:
            turn.answer = first + "\n\n" + turn.answer
    elif act in ("market", "legality"):
        note = market_note(request, catalog, lang)
        if note:
            book = Book()
            note = book.text(note, "market status and sources", SRC_MARKET)  # every figure in it recorded
            turn.numbers.extend(n for n in book.numbers if n not in turn.numbers)
            head, sep, rest = turn.answer.partition("\n\n")
            turn.answer = head + "\n\n" + note + (sep + rest if rest else "")


__all__ = ["HOURS_PER_MONTH", "apply", "market_note", "rent_lead"]
