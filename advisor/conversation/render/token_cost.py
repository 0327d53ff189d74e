"""The lead of "what does a million tokens cost on …?": the cost per million generated tokens on the configuration
asked, owned and rented, at the stated load (simulated where the load was simulated) and, with no load stated, also
at the most sequences it holds.

    owned   = TCO over the horizon / (tokens/s × 3600 × hours used) × 10⁶        (hours used = 8760 × years × utilisation)
    rented  = count × price per GPU-hour / (tokens/s × 3600) × 10⁶              (one hour of the cards, rented)

both by advisor.estimator.cost.per_million_tokens over tokens_made; the price per GPU-hour is the one the person stated for
the card, else the catalog's dated cloud quote
(advisor.estimator.cost.cloud_price: the region's, most comparable tier, newest), the purchase the option's TCO. A
card the catalog has no purchase price for is still costed rented; with neither price the answer says so first, and
the GPU-hours a million tokens take, which any price per GPU-hour turns into the cost.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_THROUGHPUT, SRC_USER, Book
from advisor.conversation.render.labels import provider_label
from advisor.conversation.render.options_table import SRC_LOAD, catalog_rent, misses, opt_name
from advisor.conversation.render.power_price import at_your_price
from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import HOURS_PER_MONTH, cloud_hour_price, per_million_tokens, tokens_made
from advisor.recommend.prices import stated_quote
from knowledge.messages import known, t

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.recommend.results import Option

SRC_COST = "advisor.estimator.cost.per_million_tokens"


def _load(o: Option, ev: Analysis, book: Book, lang: str) -> tuple[float, str] | None:
    """(tokens/s in total, the load in words) at the stated load: the serving simulation's output tokens/s where it
    ran, else the decode roofline at the asked concurrency (one user when none was said)."""
    tput = o.throughput
    if tput is None:
        return None
    ul = tput.under_load
    if ul is not None and ul.total_tokens_per_s > 0:
        tps, src, key = ul.total_tokens_per_s, SRC_LOAD, "token_cost.load.simulated"
    elif tput.decode_tokens_per_s_total:
        tps, src, key = tput.decode_tokens_per_s_total, SRC_THROUGHPUT, "token_cost.load.roofline"
    else:
        return None
    if tput.concurrency == 1 and key.endswith("roofline"):
        key = "token_cost.load.one"
    users = book.count("concurrent users of the cost per token", tput.concurrency, "sequences",
                       SRC_USER if ev.workload.concurrency > 1 or "concurrency" in (ev.stated or ()) else
                       "dialog default")
    speed = book.num(f"tokens/s in total for the cost per token on {o.count}× {o.gpu_name}", tps, "tokens/s", src,
                     0 if tps >= 10 else 1)
    return tps, t(key, lang, users=users, speed=speed)


def _rate(o: Option, ev: Analysis, book: Book, lang: str) -> tuple[float, str] | None:
    """(the configuration's rent per hour in the request's currency, the quote in words) at the price the person
    stated for the card (`Constraints.rent`), else the catalog's dated cloud price; None when it has none."""
    gpu = default_catalog().find_gpu(o.gpu)
    if gpu is None:
        return None
    econ = load_economics()
    mine = stated_quote(ev.constraints, gpu)
    if mine is not None:
        hour, listed, unit = cloud_hour_price(mine, econ, ev.constraints.currency)
        rate = book.money(f"your price per GPU-hour of {gpu.name}", listed, "CNY" if unit.startswith("CNY") else "USD",
                          "user input (rental price stated by the user)")
        at = t("rent.stated.at", lang, provider=provider_label(mine.provider, lang)) if mine.provider != "user" else ""
        return hour * o.count, t("token_cost.quote_stated", lang, rate=rate, at=at)
    got = catalog_rent(gpu, book, ev.constraints.currency, ev.constraints.region)
    if got is None:
        return None
    hour, quote, rate = got
    tier = t(f"rent.tier.{quote.tier}", lang) if known(f"rent.tier.{quote.tier}") else quote.tier
    words = t("token_cost.quote", lang, rate=rate, provider=quote.provider, tier=tier, as_of=str(quote.date))
    if quote.region != ev.constraints.region:  # the only quotes are from the other market: said so
        words += t("cost.rent_china_only" if quote.region == "cn" else "cost.rent_overseas_only", lang)
    return hour * o.count, words


def owned_day(o: Option) -> float | None:
    """The option's money a day over its horizon (TCO / days it runs: the cards are paid for whether busy or idle),
    or None when unpriced."""
    owned = _owned(o)
    return owned[0] / (owned[1] / 24) if owned is not None and owned[1] > 0 else None


def _owned(o: Option) -> tuple[float, float] | None:
    """(the option's money over the horizon, the hours it runs) when it is priced (or owned: running cost)."""
    tc = o.tco
    if tc is None or tc.basis == "training_job" or tc.gpu_hours_used <= 0:
        return None
    return tc.tco.amount, tc.gpu_hours_used / o.count


def token_cost_lead(o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """The cost per million output tokens on `o` first (module docstring); None when `o` has no serving speed."""
    if not o.fits or ev.workload.is_training:
        return None
    load = _load(o, ev, book, lang)
    if load is None:
        return None
    tps, at = load
    cur = ev.constraints.currency
    missing = misses(o, lang, running=True)  # a market rule beside a named card: a note, as the speed lead says it
    name = opt_name(o, book) + (t("screen.but", lang, missing=t("list.sep", lang).join(missing)) if missing else "")
    owned, rate = _owned(o), _rate(o, ev, book, lang)
    cap = ev.capacity.get((o.gpu, o.count)) or {}  # with no load stated: the most sequences it holds
    lim = ev.limits
    if not cap and lim is not None and lim.option.gpu == o.gpu and lim.option.count == o.count and lim.at_max:
        cap = {"total": lim.at_max.get("total"), "max_concurrency": lim.max_load}  # the named one's own limits
    asked = o.throughput.concurrency if o.throughput else 1
    full = (float(cap["total"]), int(cap["max_concurrency"])) if cap.get("total") and \
        int(cap.get("max_concurrency") or 0) > asked else None

    def at_capacity() -> tuple[str, str]:  # (the most sequences it holds, its tokens/s there), booked once
        assert full is not None
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", full[1], "sequences",
                       "advisor.estimator.memory (largest concurrency that fits, bisection)")
        speed = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", full[0], "tokens/s",
                         SRC_THROUGHPUT, 0)
        return n, speed

    def figures(speed: float, what: str) -> tuple[str, str]:
        mine = book.money(f"cost per million tokens owned on {o.count}× {o.gpu_name} {what}",
                          per_million_tokens(owned[0], tokens_made(speed, owned[1])), cur, SRC_COST) if owned else ""
        rent = book.money(f"cost per million tokens rented on {o.count}× {o.gpu_name} {what}",
                          per_million_tokens(rate[0], tokens_made(speed, 1.0)), cur, SRC_COST) if rate else ""
        return mine, rent

    if owned is None and rate is None:
        hours = book.num(f"GPU-hours per million tokens on {o.count}× {o.gpu_name}",
                         per_million_tokens(o.count, tokens_made(tps, 1.0)), "GPU-hours",
                         "count GPU-hours / (tokens/s × 3600) × 10⁶", 1,
                         suffix=t("rent.gpu_hours", lang))
        return fs.Lead(t("token_cost.none", lang, name=name, gpu=o.gpu_name, why=_why_unpriced(o, book, lang),
                         at=at, hours=hours), None, "")
    if full is not None and ev.asks_full_load:  # "at full load": the most sequences it holds lead, the asked load after
        n, speed = at_capacity()
        (tps, at), full = (full[0], t("token_cost.load.full", lang, count=n, speed=speed)), None
        mine, rent = figures(tps, "at capacity")
    else:
        mine, rent = figures(tps, "at the stated load")
    if mine and rent:
        head = t("token_cost.both", lang, owned=mine, rented=rent, name=name, at=at)
    elif mine:
        head = t("token_cost.owned_only", lang, owned=mine, name=name, at=at)
    else:
        head = t("token_cost.rented_only", lang, rented=rent, name=name, at=at)
    bits = []
    if owned:
        years = book.num("TCO years", o.tco.years, "years", "advisor.estimator.cost.estimate_tco", 0, suffix="") \
            if o.tco is not None else ""
        bits.append(t("token_cost.owned_basis" if o.tco is not None and o.tco.basis != "owned" else
                      "token_cost.running_basis", lang, years=years))
    if rate:
        bits.append(rate[1])
    text = head + t("token_cost.basis", lang, bits=t("clause.sep", lang).join(bits))
    if full is not None:
        n, speed = at_capacity()
        f_mine, f_rent = figures(full[0], "at capacity")
        money = t("list.comma", lang).join(x for x in (
            t("token_cost.owned_word", lang, money=f_mine) if f_mine else "",
            t("token_cost.rented_word", lang, money=f_rent) if f_rent else "") if x)
        text += t("token_cost.full", lang, count=n, speed=speed, money=money)
    if owned and o.tco is not None:  # owning's power at the person's tariff: said as theirs
        text += at_your_price(o.tco.prices, book, lang)
    if owned is None:
        text += t("sentence.gap", lang) + t("token_cost.no_purchase", lang, gpu=o.gpu_name,
                                               why=_why_unpriced(o, book, lang))
    elif rate is None:
        text += t("sentence.gap", lang) + t("token_cost.no_cloud", lang, gpu=o.gpu_name)
    return fs.Lead(text, None, f"cost per million tokens on {o.count}× {o.gpu_name}")


def _why_unpriced(o: Option, book: Book, lang: str) -> str:
    """The catalog's reason a card has no purchase price (English text; the Chinese answer gives its gist)."""
    card = default_catalog().find_gpu(o.gpu)
    if card is None or not card.unpriced:
        return t("sentence.end", lang)
    if lang == "zh":
        return t("screen.price.why", lang, why=t("screen.price.no_dated_quote", lang))
    why = book.text(card.unpriced, f"why {o.gpu} is unpriced", f"knowledge catalog: {o.gpu}")
    return t("screen.price.why", lang, why=why)


def volume_sentence(o: Option, ev: Analysis, book: Book, lang: str, per_day: float, monthly: bool = False) -> str:
    """"1M tokens a day — what does it cost?": a stated daily volume against what `o` makes at full load. The cards
    are paid for every hour whatever they make, so at that volume a day costs the rent of 24 hours (or a day of
    the TCO) and a million tokens costs that day's money ÷ (tokens a day / 10⁶); `monthly`: the money asked a month
    (a day × HOURS_PER_MONTH / 24), the day's beside it; "" when `o` has no speed."""
    cap = ev.capacity.get((o.gpu, o.count)) or {}
    full = float(cap.get("total") or 0)  # the most it makes (its most sequences at once); 0 when not computed
    where = f"{o.count}× {o.gpu_name}"
    avg = per_day / 86400
    # "1.0 M tokens" (millions, a decimal below 10 M); Chinese counts in 万 and 亿 ("100 万 tokens", Book.tokens)
    vol = (book.tokens("tokens a day you stated", per_day, SRC_USER, lang) if lang == "zh" else
           book.num("tokens a day you stated", per_day / 1e6, "M tokens", SRC_USER, 1 if per_day < 1e7 else 0))
    mean = book.num("average tokens/s of the stated daily volume", avg, "tokens/s", "tokens a day / 86,400 s",
                    1 if avg < 10 else 0)
    if full and avg > full:  # more than it makes at full load: about how many of these configurations it takes
        top = book.num(f"decode tokens/s in total at full load on {where}", full, "tokens/s", SRC_THROUGHPUT, 0)
        more = book.count(f"GPUs ({o.gpu_name}) for the stated daily volume at full load",
                          math.ceil(avg / full) * o.count, "GPUs", "⌈average / full load⌉ × GPUs")
        return t("token_cost.volume.over", lang, vol=vol, mean=mean, name=opt_name(o, book), top=top, more=more,
                 gpu=o.gpu_name)
    cur = ev.constraints.currency
    bits = []
    rate = _rate(o, ev, book, lang)
    def month(day: float, what: str) -> str:  # a day's money × the days of an average month (HOURS_PER_MONTH / 24)
        return book.money(f"{what} a month of {where}", day * HOURS_PER_MONTH / 24, cur, f"{what} a day × 730 h / 24 h")

    if rate is not None:
        day = rate[0] * 24
        fields = {"day": book.money(f"rent of {where} for 24 hours", day, cur, "price per GPU-hour × GPUs × 24 h"),
                  "per": book.money(f"cost per million tokens rented on {where} at the stated volume",
                                    day / (per_day / 1e6), cur, "rent a day / (tokens a day / 10⁶)")}
        bits.append(t("token_cost.volume.rented_month", lang, month=month(day, "rent"), **fields) if monthly
                    else t("token_cost.volume.rented", lang, **fields))
    own = owned_day(o)
    if own is not None:
        fields = {"day": book.money(f"TCO a day of {where}", own, cur, "TCO / days it runs"),
                  "per": book.money(f"cost per million tokens owned on {where} at the stated volume",
                                    own / (per_day / 1e6), cur, "TCO a day / (tokens a day / 10⁶)")}
        bits.append(t("token_cost.volume.owned_month", lang, month=month(own, "TCO"), **fields) if monthly
                    else t("token_cost.volume.owned", lang, **fields))
    if not bits:
        return ""
    if not full:
        return t("token_cost.volume.idle", lang, vol=vol, name=opt_name(o, book), mean=mean,
                 bits=t("list.comma", lang).join(bits))
    share = book.num(f"share of full-load output used on {where}", avg / full * 100, "%", "average / full load",
                     1 if avg / full < 0.1 else 0, suffix="")
    return t("token_cost.volume", lang, vol=vol, name=opt_name(o, book), mean=mean, share=share,
             bits=t("list.comma", lang).join(bits))
