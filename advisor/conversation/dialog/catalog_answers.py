"""Questions the catalog, the rules and the claims data answer without a model: can I still buy this card in
China and what does a server cost (market, how_much), how do these cards compare (compare), is what the guide says
about them right (claim). Every figure comes from the GPU catalog (dated prices, China-market status with its date)
or from advisor.estimator.cost (server purchase = cards + the guides' rest-of-system tier); the conversation's
workload is left unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from advisor.conversation.dialog.money import stated_electricity
from advisor.conversation.reader.intent import asks
from advisor.conversation.reader.numbers import to_number
from advisor.conversation.render import compose
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import Book
from advisor.conversation.render.cost import dated_en, dated_zh
from advisor.conversation.render.options_table import china_status
from advisor.conversation.render.power_price import at_your_price, price_words, stated_power
from advisor.conversation.render.value import pair_value_lead, value_lead
from advisor.conversation.turn import Step, Turn
from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import HOURS_PER_MONTH, STATED, cloud_hour_price, cloud_price, estimate_tco, gpu_unit_price
from advisor.recommend.rank import BASEBOARD_SIZES
from knowledge.errors import AdvisorError
from knowledge.messages import known as has_message
from knowledge.messages import t
from knowledge.messages.catalog_words_zh import LINK_WORDS_ZH

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState
    from advisor.conversation.reader.extract import Claim, Slots
    from advisor.workload import StatedElectricity
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec

SRC_CATALOG = "knowledge catalog"
SRC_COST = "advisor.estimator.cost.estimate_tco"


def respond(intent: str, text: str, slots: Slots, state: DialogState, lang: str, catalog: Catalog) -> Iterator[Step | Turn]:
    book = Book()
    mentions = ([slots.existing] if slots.existing else []) + list(slots.candidates)
    low = (text or "").lower()  # in the order the user named them ("H20 … H100 的六分之一": H20 / H100)
    mentions.sort(key=lambda m: low.find((m.text or "").lower()) if (m.text or "").lower() in low else len(low))
    gpus = [catalog.gpu(m.gpu) for m in mentions]
    count = next((m.count for m in mentions if m.count), None) or slots.gpu_count or 1
    region = slots.region or ("cn" if lang == "zh" else "global")
    currency = slots.currency or ("CNY" if region == "cn" or lang == "zh" else "USD")
    power = stated_electricity(slots.electricity, currency) if slots.electricity else None  # "电价 0.8 元/度"
    deciding = ""  # the Number the lead turns on (benchmarks/bench_first_screen.py)
    if intent == "claim" and len(gpus) == 1 and slots.claim is not None:
        lead, rest = _spec_claim(gpus[0], slots.claim, text, book, lang)
        what = "bandwidth" if _BANDWIDTH.search(text.lower()) else "memory"
        deciding = f"{what} of {gpus[0].name}"
    elif intent in ("claim", "compare") and len(gpus) >= 2:
        lead, rest = _compare(gpus, book, lang, claim=intent == "claim", text=text)
        stated = ratio_claim(text) if intent == "claim" else None
        deciding = f"{'compute' if stated and stated[0] == 'compute' else 'bandwidth'} ratio {gpus[0].name}/{gpus[1].name}"
        per_dollar = pair_value_lead(gpus[0], gpus[1], book, lang) \
            if intent == "compare" and _VALUE_COMPARED.search(low) else None
        costs = per_dollar or (_cost_compare(gpus[:2], [m.count or slots.gpu_count or 1 for m in mentions[:2]], currency,
                                             book, lang, _years_asked(low), power)
                               if intent == "compare" and _COST_COMPARED.search(low) else "")
        if costs:  # "3 年 TCO 对比：8 卡 H20 和 8 卡 A800", "哪个性价比高": the money first, the specs after
            lead = costs + "\n\n" + lead
            deciding = f"memory per $1,000 of {gpus[0].name}" if per_dollar else \
                f"TCO of {mentions[0].count or slots.gpu_count or 1}× {gpus[0].name}"
    elif intent == "market" and len(gpus) == 1 and asks("value", text) and (
            valued := value_lead(gpus[0], catalog, book, lang)) is not None:
        lead, rest = valued  # "is the A100 still worth buying?": value per dollar against the newest of its kind
        deciding = f"memory per $1,000 of {gpus[0].name}"
    else:
        lead, rest = _market(gpus[0], count, currency, region, book, lang, with_price=intent in ("how_much", "market"),
                             price_first=intent == "how_much", cost_first=_cost_asked(low) if intent == "how_much" else "",
                             years=_years_asked(low), power=power)
        if intent in ("how_much", "market"):  # "what does X cost, and a used Y?": every card named is priced
            lead += "".join(_card_price(g, m.text or g.name, low, currency, book, lang)
                            for g, m in zip(gpus[1:], mentions[1:], strict=True))
        if intent == "how_much" and _FABRIC_ASKED.search(low):  # "4-node H100 cluster with InfiniBand": not priced
            lead += t("sentence.gap", lang) + t("market.fabric_unpriced", lang)
    if intent == "how_much" and slots.buy_or_rent == "rent" and len(gpus) == 1 and (
            cloud_price(gpus[0], load_economics(), region=region) is None):  # "910B 租一张一个月多少钱": no quote, first
        lead = t("rent.none", lang, gpu=gpus[0].name) + t("sentence.gap", lang) + lead
    elif intent == "how_much" and slots.buy_or_rent == "rent" and len(gpus) == 1:  # its dated rent, before the price
        rent = _rental_line(gpus[0], region, book, lang)
        lead = (rent + t("sentence.gap", lang) + lead) if rent else lead
    if intent in ("how_much", "market") and _LEAD_TIME.search(low):  # "H200 多久能到货": not in the catalog, said first
        lead = t("market.lead_time_unknown", lang, gpu=gpus[0].name) + t("sentence.gap", lang) + lead
    if intent in ("how_much", "market"):  # "二手 A100 多少钱", "is a used A100 worth it": the used price, or none, first
        lead = _used_first(gpus[0], mentions[0].text or gpus[0].name, low, currency, book, lang, lead,
                           said=slots.condition == "used")
    if intent == "how_much" and not deciding:
        priced = f"purchase price of {count}× {gpus[0].name} (GPUs only)"
        deciding = priced if any(n.name == priced for n in book.numbers) else ""
    question = t("claim.to_size", lang)
    body = "\n\n".join(x for x in [lead, question, fs.details(t("market.details", lang), rest)] if x)
    step = Step(name="lookup_gpu", arguments={"gpus": [g.id for g in gpus]}, summary=", ".join(g.name for g in gpus))
    yield step
    yield compose.finish_turn(body, lang, state, book, questions=[question], steps=[step],
                        extra={"kind": "catalog", "intent": intent, "pending": state.pending, "answer_verdict": None,
                               "deciding": deciding})


_TCO_ASKED = re.compile(r"折旧|总拥有成本|运维|总成本|总花费|年下来|年总共|年一共|年要花|年花多少|(?:含|连|加上?|包括)电费|tco|total cost|running cost|"
                        r"(?:including|incl\.?|with|plus) (?:the )?(?:power|electricity)|years? of (?:power|electricity|running)|"
                        r"(?:power|electricity) (?:for|over) (?:\d+|one|two|three|four|five) years?|\d\s*年(?:的)?电费")
_POWER_ASKED = re.compile(r"电费|耗电|用电|电力成本|power bill|power cost|energy cost|electricity")
# the network between servers (switches, cables): economics.yaml prices each server with its own NICs, not the fabric
_FABRIC_ASKED = re.compile(r"infiniband|(?<![a-z])ib(?![a-z])|roce|spectrum[\s-]*x|交换机|组网|网络|fabric|switch(?:es)?")
_YEAR_RATE = re.compile(r"per year|a year|annual\w*|yearly|each year|every year|每年|一年")
_MONTH_ASKED = re.compile(r"每月|每个月|一个月|月电费|monthly|per month|a month|each month")


_YEARS = re.compile(r"(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|ten|[一二两三四五六七八九十]{1,2})\s*-?\s*"
                    r"(?:years?|yrs?|个?年)")


def _years_asked(low: str) -> float | None:
    """"5 year TCO", "五年总拥有成本": the horizon said for the total cost (1 to 10 years), else None (the default)."""
    m = _YEARS.search(low)
    words = {"one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0, "seven": 7.0, "eight": 8.0,
             "ten": 10.0}
    n = (words.get(m.group(1)) or to_number(m.group(1))) if m else None
    return float(n) if n is not None and 1 <= n <= 10 else None


def _cost_asked(low: str) -> str:
    """"tco" for a running-cost question ("三年电费加折旧", "3-year TCO"), "power" for the electricity alone
    ("一年电费多少"), else "": the sentence that leads the price answer."""
    if _TCO_ASKED.search(low):
        return "tco_year" if _YEAR_RATE.search(low) and not _YEARS.search(low) else "tco"
    if _POWER_ASKED.search(low):
        return "power_month" if _MONTH_ASKED.search(low) else "power"
    return ""


def _market(gpu: GpuSpec, count: int, currency: str, region: str, book: Book, lang: str, with_price: bool,
            price_first: bool = False, cost_first: str = "", years: float | None = None,
            power: StatedElectricity | None = None) -> tuple[str, str]:
    """China-market status with its date, then (asked or not) the dated card price and the server purchase."""
    zh = lang == "zh"
    ch = gpu.china
    status = china_status(ch.status, lang)
    when = ch.as_of.isoformat()
    buyable = ch.status in ("available", "china_variant")
    if not zh and region != "cn":  # the catalog's market status is mainland China's export-control status
        lead = t("market.outside_china", lang, gpu=gpu.name, status=status, when=when)
    else:
        verdict = t("market.verdict.yes" if buyable else "market.verdict.licence" if ch.status == "licence_required"
                    else "market.verdict.no", lang)
        lead = t("market.status", lang, verdict=verdict, gpu=gpu.name, status=status, when=when)
    # the catalog's note is English: the Chinese view says it quotes the note as written
    note = t("market.note_quoted", lang, note=ch.note) if zh else ch.note
    rest = [book.text(note, f"china note {gpu.id}", f"{SRC_CATALOG}: {gpu.id} china ({', '.join(ch.source)})")] if ch.note else []
    if with_price:
        price_line = _server_price(gpu, count, currency, book, lang, first=cost_first, years=years, power=power)
        if price_line and price_first:  # "what does a server with 8 H20 cost?": the price is the answer
            status_line = lead if zh or region == "cn" else t("market.in_china", lang, status=status, when=when)
            lead = price_line[0] + t("sentence.gap", lang) + status_line.replace("**", "")
            rest.append(price_line[1])
        elif price_line:
            lead += t("sentence.gap", lang) + price_line[0]
            rest.append(price_line[1])
        elif price_first:  # the price was the question and the catalog has none: said first, with why
            why = book.text(gpu.unpriced, f"why {gpu.id} is unpriced", f"{SRC_CATALOG}: {gpu.id}") if gpu.unpriced else ""
            # the catalog's reason is English text: the Chinese sentence gives its gist
            reason = t("screen.price.why", lang, why=why if not zh else t("screen.price.no_dated_quote", lang))
            none = t("market.no_price", lang, gpu=gpu.name) + (reason if why else t("sentence.end", lang))
            status_line = lead if zh or region == "cn" else t("market.in_china", lang, status=status, when=when)
            rent = _rental_line(gpu, region, book, lang)
            lead = none + t("sentence.gap", lang) + (rent + t("sentence.gap", lang) if rent else "") + \
                status_line.replace("**", "")
    return lead, "\n\n".join(rest)


def _rental_line(gpu: GpuSpec, region: str, book: Book, lang: str) -> str:
    """The catalog's dated hourly rental quote for a card it cannot price for purchase (cost.cloud_price picks it:
    the region's providers first, on-demand before reserved/spot/serverless, then the newest); "" when it has none."""
    q = cloud_price(gpu, load_economics(), region=region)
    if q is None or q.origin != "catalog" or q.date is None:
        return ""
    cny = region == "cn" and q.cny_per_hour is not None
    amount = book.money(f"rental per GPU-hour of {gpu.name} ({q.provider})", q.cny_per_hour if cny and q.cny_per_hour
                        else q.usd_per_hour, "CNY" if cny else "USD",
                        f"{SRC_CATALOG}: {gpu.id} cloud {q.source} as of {q.date}")
    tier = t(f"rent.tier.{q.tier}", lang) if q.tier and has_message(f"rent.tier.{q.tier}") else (q.tier or "")
    abroad = t("rent.quote_abroad", lang) if q.region != region else ""  # no quote from the asker's region: said so
    return t("rent.quote_line", lang, amount=amount, provider=q.provider, tier=tier, date=q.date.isoformat(),
             abroad=abroad)


_USED = re.compile(r"used|second[\s-]?hand|refurb\w*|二手|拆机|翻新")


def _card_price(gpu: GpuSpec, said: str, low: str, currency: str, book: Book, lang: str) -> str:
    """One more card's dated price, used when "used"/"二手" is said just before its name, else the newest price."""
    at = low.find(said.lower())
    used = at >= 0 and bool(_USED.search(low[max(0, at - 16):at + len(said)]))
    p = gpu.price(currency, "used" if used else "any")
    if p is None:
        return t("market.card.no_used_price" if used else "market.card.no_price", lang, gpu=gpu.name)
    money = book.money(f"price per card of {gpu.name} ({p.kind})", p.amount, currency,
                       f"{SRC_CATALOG}: {gpu.id} price {p.source} as of {p.date}")
    return t("market.card.used_price" if used else "market.card.price", lang, gpu=gpu.name, money=money,
             kind=_kind_label(p.kind, lang), date=p.date.isoformat())


def _used_first(gpu: GpuSpec, name: str, low: str, currency: str, book: Book, lang: str, lead: str,
                said: bool = False) -> str:
    """"二手 A100 多少钱", "a used A100?": the catalog's used price first, or that it has none (never the new price in
    its place unsaid); `lead` unchanged when "used" is not said next to the card or the lead already gives the used
    price."""
    at = low.find(name.lower())
    near = at >= 0 and bool(_USED.search(low[max(0, at - 16):at + len(name) + 8]))
    if not (near or said):  # `said`: used cards asked for in the message ("and if we buy used")
        return lead
    try:  # the catalog's used price, in the other currency converted at the dated rate when only that one is listed
        amount, date, kind, source = gpu_unit_price(gpu, currency, load_economics(), "used")
    except AdvisorError:
        amount, kind = None, ""
    if amount is None or not kind.startswith("used"):
        return t("market.card.no_used_price", lang, gpu=gpu.name).strip() + t("sentence.gap", lang) + lead
    money = book.money(f"price per card of {gpu.name} ({kind})", amount, currency,
                       f"{SRC_CATALOG}: {gpu.id} price {source} as of {date}")
    if money in lead:  # the lead already prices it used
        return lead
    first = t("market.card.used_price", lang, gpu=gpu.name, money=money, kind=_kind_label(kind, lang),
              date=date.isoformat()).strip()
    return first + t("sentence.gap", lang) + lead


def _kind_label(kind: str, lang: str) -> str:
    """A catalog price kind ("street", "channel", "used", ...) in the answer's language; one converted from the
    other currency ("launch_msrp, converted from USD") says so in that language too."""
    kind, _, converted = kind.partition(", converted from ")
    key = f"market.price_kind.{kind}"
    said = t(key, lang) if has_message(key) else kind
    cur = {"USD": "美元", "CNY": "人民币"}.get(converted, converted) if lang == "zh" else converted
    return t("market.price_converted", lang, kind=said, cur=cur) if converted in ("USD", "CNY") else said


def _server_price(gpu: GpuSpec, count: int, currency: str, book: Book, lang: str,
                  first: str = "", years: float | None = None,
                  power: StatedElectricity | None = None) -> tuple[str, str] | None:
    """The dated card price and the server purchase, then its TCO; `first` ("tco" or "power") puts the total cost
    of ownership or the yearly electricity (the server's energy at full load × PUE × the dated price, or `power`,
    the price the person stated, said as theirs) first."""
    econ = load_economics()
    try:
        unit, date, kind, source = gpu_unit_price(gpu, currency, econ)
        c = estimate_tco(gpu, count, econ, currency=currency, years=years, **_tariff(power)).to_contract()
    except AdvisorError:
        return None
    n = book.count(f"GPUs ({gpu.name})", count, "GPUs", "user input")
    per = book.money(f"price per card of {gpu.name}", unit, currency, f"{SRC_CATALOG}: {gpu.id} price {source} as of {date}")
    gpus = book.money(f"purchase price of {count}× {gpu.name} (GPUs only)", unit * count, currency,
                      f"{SRC_CATALOG}: {gpu.id} price × count")
    total = book.money(f"server purchase of {count}× {gpu.name}", c["purchase"]["total"]["amount"], currency, SRC_COST)
    rest = book.money(f"rest of the server for {count}× {gpu.name}", c["purchase"]["rest_of_system"]["amount"], currency,
                      SRC_COST)
    tco = book.money(f"TCO of {count}× {gpu.name}", c["tco"]["amount"], currency, SRC_COST)
    said_years = book.num("TCO years", float(c["years"]), "years", SRC_COST, 0, suffix="")
    servers = int(c["servers"])
    if servers > 1:  # "4 servers of B200", "16 H100": the cards fill several servers of the card's tier
        head = t("market.servers", lang, servers=book.count("servers", servers, "servers", SRC_COST), n=n,
                 per_server=book.count("GPUs per server", -(-count // servers), "GPUs", SRC_COST), gpu=gpu.name,
                 total=total, gpus=gpus, per=per, kind=_kind_label(kind, lang), date=date, rest=rest)
    else:  # one card: the card's price first (what "一张 H100 多少钱" asks), then the server around it
        head = t("market.card" if count == 1 else "market.server", lang, n=n, gpu=gpu.name, total=total, gpus=gpus, per=per,
                 kind=_kind_label(kind, lang), date=date, rest=rest)
    more = t("market.server_tco", lang, years=said_years, tco=tco)
    if first in ("power", "power_month"):  # "一个月电费多少": the year's figures over 12 months
        div = 12 if first == "power_month" else 1
        span = "month" if div == 12 else "year"
        bill = book.money(f"electricity per {span} of {count}× {gpu.name}", c["power_per_year"]["amount"] / div,
                           currency, SRC_COST if div == 1 else f"{SRC_COST}: power per year / 12")
        kwh = book.num(f"energy per {span} of {count}× {gpu.name} (with PUE)", c["energy_kwh_per_year"] / div, "kWh",
                       SRC_COST, 0)
        yours = stated_power(c.get("prices"))
        head = t(f"market.server_power{'_month' if div == 12 else ''}{'_stated' if yours else ''}", lang, power=bill,
                 kwh=kwh, price=price_words(*yours, book, lang, power.said_in if power else None) if yours else "") \
            + t("sentence.gap", lang) + head
    elif first == "tco_year":  # "how much per year to run it, power included": the TCO a year over the horizon
        run = float(c["power_per_year"]["amount"]) + float(c["operations_per_year"]["amount"])
        head = t("market.server_tco_year", lang, years=said_years, tco=tco, purchase=total,
                 year=book.money(f"TCO a year of {count}× {gpu.name}", c["tco_per_year"]["amount"], currency, SRC_COST),
                 run=book.money(f"power and operations a year of {count}× {gpu.name}", run, currency, SRC_COST)) \
            + t("sentence.gap", lang) + head
        more = ""
    elif first == "tco":
        head, more = f"**{more.strip()}**" + t("sentence.gap", lang) + head, ""
    if first not in ("power", "power_month"):  # the TCO's power at the person's tariff: said as theirs
        priced = at_your_price(c.get("prices"), book, lang, power.said_in if power else None)
        head, more = (head + priced, more) if first else (head, more.rstrip() + priced)
    dated = t("clause.sep", lang).join(_dated_input(p, lang) for p in c.get("prices", []))
    return head, (more + "\n\n" if more else "") + book.text(t("market.dated_inputs", lang) + dated, "dated inputs",
                                                              SRC_COST)


_LEAD_TIME = re.compile(r"lead[\s-]?times?|delivery (?:time|date)|how (?:long|soon)|到货|交期|交货|货期|多久")
_VALUE_COMPARED = re.compile(r"性价比|划算|值得|value|bang for|worth|per dollar|for the money")
_COST_COMPARED = re.compile(r"tco|总拥有成本|成本|价格|价钱|多少钱|报价|便宜|贵|花费|cost|price|cheaper|expensive|quote")


def _cost_compare(gpus: list[GpuSpec], counts: list[int], currency: str, book: Book, lang: str,
                  years: float | None = None, power: StatedElectricity | None = None) -> str:
    """"3-year TCO, 8× H20 vs 8× A800": each configuration's server purchase (cards at their dated price + the rest
    of the server) and its TCO over the horizon (advisor.estimator.cost.estimate_tco), the lower first named; "" when
    either cannot be priced (the spec comparison then answers alone)."""
    econ = load_economics()
    rows = []
    for gpu, count in zip(gpus, counts, strict=True):
        try:
            _, date, _, _ = gpu_unit_price(gpu, currency, econ)
            c = estimate_tco(gpu, count, econ, currency=currency, years=years, **_tariff(power)).to_contract()
        except AdvisorError:
            return ""
        rows.append((gpu, count, float(c["tco"]["amount"]), float(c["purchase"]["total"]["amount"]), date,
                     float(c["years"])))
    items = []
    for gpu, count, tco, buy, date, _ in sorted(rows, key=lambda r: r[2]):
        what = f"{count}× {gpu.name}"
        items.append(t("market.cost_item", lang, what=what, date=date.isoformat(),
                       tco=book.money(f"TCO of {what}", tco, currency, SRC_COST),
                       buy=book.money(f"server purchase of {what}", buy, currency, SRC_COST)))
    low = min(rows, key=lambda r: r[2])
    horizon = book.num("TCO years", rows[0][5], "years", SRC_COST, 0, suffix="")
    return t("market.cost_compare", lang, what=f"{low[1]}× {low[0].name}", years=horizon,
             items=t("clause.sep", lang).join(items)) + (t("power.priced", lang, price=price_words(
                 power.per_kwh, power.currency, book, lang, power.said_in)) if power else "")


def _tariff(power: StatedElectricity | None) -> dict[str, Any]:
    """estimate_tco's electricity arguments for the price the person stated (none: the dated price)."""
    return {"electricity": power.per_kwh, "electricity_currency": power.currency} if power else {}


def budget_cards_turn(gpu: GpuSpec, budget: float, currency: str, region: str, state: DialogState,
                      lang: str) -> Turn:
    """"30w预算能配几张4090", "how many H100s can $500k buy?": the most cards of the named kind whose full purchase
    (cards at the dated catalog price + the servers they need, advisor.estimator.cost.estimate_tco) stays within the
    budget, then the card's China status; the model is asked after, to size a job on them."""
    book, econ = Book(), load_economics()
    money = book.money("budget", budget, currency, "user input")
    best: tuple[int, float, int] | None = None
    try:
        unit, date, kind, source = gpu_unit_price(gpu, currency, econ)
        whole = gpu.interface in ("sxm", "oam") and not gpu.is_machine  # modules come on 4- or 8-GPU baseboards
        for n in range(1, 4097):
            if whole and n not in BASEBOARD_SIZES and n % 8:
                continue
            c = estimate_tco(gpu, n, econ, currency=currency).to_contract()
            total = float(c["purchase"]["total"]["amount"])
            if total > budget:
                break
            best = (n, total, int(c["servers"]))
        one = float(estimate_tco(gpu, 1, econ, currency=currency).to_contract()["purchase"]["total"]["amount"])
    except AdvisorError:
        lead = t("market.budget.no_price", lang, budget=money, gpu=gpu.name)
    else:
        per = book.money(f"price per card of {gpu.name}", unit, currency, f"{SRC_CATALOG}: {gpu.id} price {source} as of {date}")
        if best is None:
            lead = t("market.budget.none", lang, budget=money, gpu=gpu.name, per=per, kind=_kind_label(kind, lang),
                     date=date.isoformat(), one=book.money(f"server purchase of 1× {gpu.name}", one, currency, SRC_COST))
        else:
            n, total, servers = best
            lead = t("market.budget.most", lang, budget=money, gpu=gpu.name, per=per, kind=_kind_label(kind, lang),
                     date=date.isoformat(), n=book.count(f"GPUs within the budget ({gpu.name})", n, "GPUs", SRC_COST),
                     servers=book.count("servers", servers, "servers", SRC_COST),
                     total=book.money(f"server purchase of {n}× {gpu.name}", total, currency, SRC_COST))
    if gpu.china is not None:
        lead += t("sentence.gap", lang) + t("market.in_china", lang, status=china_status(gpu.china.status, lang),
                                            when=gpu.china.as_of.isoformat()).replace("**", "")
    question = t("claim.to_size", lang)
    step = Step(name="lookup_gpu", arguments={"gpus": [gpu.id]}, summary=gpu.name)
    return compose.finish_turn(lead + "\n\n" + question, lang, state, book, questions=[question], steps=[step],
                               extra={"kind": "catalog", "intent": "how_many", "pending": state.pending,
                                      "answer_verdict": None, "deciding": f"GPUs within the budget ({gpu.name})"})


def _dated_input(p: dict[str, object], lang: str) -> str:
    """One dated cost input ("exchange rate 7.1287 CNY per USD (2025-08-21)"), named in Chinese where asked; one the
    person gave ("electricity 0.8 CNY/kWh (yours)") has no date."""
    name, unit = (dated_zh(str(p["name"]), str(p["unit"])) if lang == "zh" else (dated_en(str(p["name"])), str(p["unit"])))
    value = f"{float(p['value']):,g}" + (f" {unit}" if unit else "")  # type: ignore[arg-type]
    if p.get("source") == STATED:
        return t("cost.stated_input", lang, name=name, value=value)
    return t("cost.dated_input", lang, name=name, value=value, when=p["as_of"])


def _compare(gpus: list[GpuSpec], book: Book, lang: str, claim: bool, text: str = "") -> tuple[str, str]:
    """Two or more cards side by side: memory, bandwidth (decode speed follows it), dense BF16 tensor compute
    (prefill and training follow it), TDP; the lead says how far apart the first two are on each."""
    a, b = gpus[0], gpus[1]
    bw = a.bandwidth_bytes_per_s / b.bandwidth_bytes_per_s
    fl = a.bf16_dense_flops / b.bf16_dense_flops
    bw_a = book.num(f"bandwidth of {a.name}", a.bandwidth_bytes_per_s / 1e9, "GB/s", f"{SRC_CATALOG}: {a.id}", 0)
    bw_b = book.num(f"bandwidth of {b.name}", b.bandwidth_bytes_per_s / 1e9, "GB/s", f"{SRC_CATALOG}: {b.id}", 0)
    fl_a = book.num(f"dense BF16 of {a.name}", a.bf16_dense_flops / 1e12, "TFLOPS", f"{SRC_CATALOG}: {a.id}", 0)
    fl_b = book.num(f"dense BF16 of {b.name}", b.bf16_dense_flops / 1e12, "TFLOPS", f"{SRC_CATALOG}: {b.id}", 0)
    r_bw = book.num(f"bandwidth ratio {a.name}/{b.name}", bw, "×", "computed from the catalog", 2, suffix="×")
    r_fl = book.num(f"compute ratio {a.name}/{b.name}", fl, "×", "computed from the catalog", 2 if fl < 1 else 1, suffix="×")
    close_bw, close_fl = abs(bw - 1) <= 0.15, abs(fl - 1) <= 0.15
    stated = ratio_claim(text) if claim else None
    if stated is not None:  # "H20 的算力只有 H100 的六分之一": the stated ratio against the catalog's, within 20 %
        metric, said = stated
        real = fl if metric == "compute" else bw
        right = abs(math.log(said / real)) <= math.log(1.2)
        verdict = t("compare.verdict.roughly_right" if right else "compare.verdict.not_right", lang)
    elif claim:
        verdict = t(("compare.verdict.right" if close_fl else "compare.verdict.half_right") if close_bw
                    else "compare.verdict.not_right", lang)
    else:
        verdict = ""
    pick = "" if verdict else _pick(a, b, bw, fl, lang)
    lead = pick + (t("compare.verdict_head", lang, verdict=verdict) if verdict else "") + t(
        "compare.lead", lang, a=a.name, bw_a=bw_a, b=b.name, bw_b=bw_b, r_bw=r_bw, fl_a=fl_a, fl_b=fl_b, r_fl=r_fl)
    head = t("compare.table_head", lang) + "\n|---|---|---|---|---|---|"
    rows = []
    for g in gpus:
        mem = book.gib(f"memory of {g.name}", g.memory, f"{SRC_CATALOG}: {g.id}", 0)
        bw_g = book.num(f"bandwidth of {g.name}", g.bandwidth_bytes_per_s / 1e9, "GB/s", f"{SRC_CATALOG}: {g.id}", 0)
        fl_g = book.num(f"dense BF16 of {g.name}", g.bf16_dense_flops / 1e12, "TFLOPS", f"{SRC_CATALOG}: {g.id}", 0)
        tdp = book.num(f"TDP of {g.name}", g.tdp_w, "W", f"{SRC_CATALOG}: {g.id}", 0)
        rows.append(f"| {g.name} | {mem} | {bw_g} | {fl_g} | {tdp} | {_link_words(str(g.nvlink), lang)} |")
    return lead, head + "\n" + "\n".join(rows)


def _link_words(link: str, lang: str) -> str:
    """A card's interconnect as the catalog words it ("none (no NVLink connector …)"), in Chinese for Chinese."""
    if lang != "zh":
        return link
    if link.startswith("none"):
        return "无"
    for en, zh in LINK_WORDS_ZH:
        link = link.replace(en, zh)
    return re.sub(r"\s*[(（][^()（）]*[A-Za-z]{3,}[^()（）]*[)）]|;.*$", "", link).strip() or link


def _pick(a: GpuSpec, b: GpuSpec, bw: float, fl: float, lang: str) -> str:
    """The answer to "which is better" before the figures: the card ahead on both bandwidth (decode) and dense
    compute (prefill, training), the one with more memory too when it has; split strengths named as such; within
    15 % on both, close."""
    if abs(bw - 1) <= 0.15 and abs(fl - 1) <= 0.15:
        return t("compare.pick.close", lang, a=a.name, b=b.name)
    if (bw > 1) == (fl > 1) or abs(bw - 1) <= 0.15 or abs(fl - 1) <= 0.15:
        ahead = bw * fl > 1
        win, lose = (a, b) if ahead else (b, a)
        # where one of the two is within 15 %, only the other is said to lead (RTX 5090 and RTX PRO 6000: the same
        # 1792 GB/s, so not "faster decode")
        lead = "compute" if abs(bw - 1) <= 0.15 else "decode" if abs(fl - 1) <= 0.15 else ""
        key = "all" if win.memory_bytes > lose.memory_bytes else "faster"
        return t(f"compare.pick.{lead}_{key}" if lead else f"compare.pick.{key}", lang, w=win.name, l=lose.name)
    return t("compare.pick.split", lang, bw=(a if bw > 1 else b).name, fl=(a if fl > 1 else b).name)


_BANDWIDTH = re.compile(r"带宽|bandwidth")
_FRACTION_ZH = re.compile(r"(?P<den>[一二两三四五六七八九十\d]+)\s*分之\s*(?P<num>[一二两三四五六七八九十\d]+)")
_FRACTION = re.compile(r"(?<![\d.])(?P<num>\d+)\s*/\s*(?P<den>\d+)(?![\d.])")
_FRACTION_EN = re.compile(r"(?<![a-z])(?:a|one)\s+(?P<den>half|third|quarter|fourth|fifth|sixth|seventh|eighth|tenth)(?![a-z])")
_TIMES = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?:倍|x(?![a-z\d])|×|times)")
_EN_FRACTIONS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
                 "tenth": 10}


def ratio_claim(text: str) -> tuple[str, float] | None:
    """("compute" or "bandwidth", first card / second card) of a stated ratio ("H20 的算力只有 H100 的六分之一",
    "the H100 is 3x faster than the A100 at training"); None when no ratio or no metric is named."""
    s = (text or "").lower()
    metric = ("bandwidth" if re.search(r"带宽|bandwidth|decode|生成速度|推理速度", s) else
              "compute" if re.search(r"算力|tflops|flops|compute|训练|training|prefill", s) else None)
    if metric is None:
        return None
    m = _FRACTION_ZH.search(s) or _FRACTION.search(s)
    if m:
        num, den = to_number(m.group("num")), to_number(m.group("den"))
        return (metric, num / den) if num and den else None
    m = _FRACTION_EN.search(s)
    if m:
        return metric, 1.0 / _EN_FRACTIONS[m.group("den")]
    if re.search(r"(?<![a-z])half(?![a-z])|一半", s):
        return metric, 0.5
    m = _TIMES.search(s)
    return (metric, float(m.group("n"))) if m and float(m.group("n")) > 0 else None


def _spec_claim(gpu: GpuSpec, claim: Claim, text: str, book: Book, lang: str) -> tuple[str, str]:
    """A stated memory size or bandwidth of one card against the catalog. A card sold as "N GB" has N GiB
    (N·2^30 bytes), so "24 GB" for a 24 GiB card is right; bandwidth is decimal (TB/s = 1000 GB/s), within 10 %."""
    src = f"{SRC_CATALOG}: {gpu.id}"
    bandwidth = bool(_BANDWIDTH.search(text.lower()))
    unit = claim.unit + ("/s" if bandwidth and claim.unit.upper() in ("TB", "GB") else "")
    said = book.num("value in the claim", claim.value, unit, "user input", 0 if claim.value >= 10 else 1)
    if bandwidth:
        stated = claim.value * (1000.0 if claim.unit.upper().startswith("T") else 1.0)  # GB/s
        real = gpu.bandwidth_bytes_per_s / 1e9
        right = abs(stated - real) <= 0.10 * real
        shown = book.num(f"bandwidth of {gpu.name}", real, "GB/s", src, 0)
        what = t("spec.bandwidth", lang)
    else:
        stated = claim.value * (1024.0 if claim.unit.upper().startswith("T") else 1.0)  # GiB, as cards are sold
        real = gpu.memory.gib
        right = abs(stated - real) <= 0.5
        shown = book.num(f"memory of {gpu.name}", real, "GiB", src, 0)
        what = t("spec.memory", lang)
    lead = t("spec.right" if right else "spec.wrong", lang, gpu=gpu.name, what=what, shown=shown, said=said)
    sources = ", ".join(getattr(gpu, "sources", []) or [])
    rest = t("spec.sources", lang, sources=sources) if sources else ""
    return lead, book.text(rest, f"sources {gpu.id}", src) if rest else ""


def capabilities_turn(state: DialogState, lang: str) -> Turn:
    """"What can you do?": what the advisor does and three example questions, in the user's language."""
    body = t("capabilities.body", lang)
    book = Book()
    book.text(body, "example question", "fixed example questions (advisor.conversation.dialog.catalog_answers)")
    return compose.finish_turn(body, lang, state, book, extra={"kind": "capabilities", "intent": "capabilities",
                                                         "pending": state.pending, "answer_verdict": None,
                                                         "deciding": ""})


def rented_cards_turn(gpu: GpuSpec, budget: float, hourly: bool, currency: str, region: str, slots: Slots,
                      state: DialogState, lang: str) -> Turn:
    """"$30k a month for cloud GPUs: how many H100s 24/7?", "每小时预算 20 元能租几张 4090": the cards the budget
    keeps running around the clock, ⌊budget a month ÷ (price per GPU-hour × 730 h)⌋ (an hour's budget ÷ the price),
    at the person's own rate for the card, else the catalog's dated quote (advisor.estimator.cost.cloud_price); the
    model is asked after, to size a job on them."""
    book, econ = Book(), load_economics()
    stated = slots.rent_rate if slots.rent_rate is not None and slots.rent_rate.amount else None
    quote = cloud_price(gpu, econ, region=region) if stated is None else None
    per_month = 1.0 if hourly else HOURS_PER_MONTH
    money = book.money("rental budget", budget, currency, "user input")
    if stated is None and quote is None:
        lead = t("market.rent_budget.no_price", lang, budget=money, gpu=gpu.name)
    else:
        if stated is not None:
            rate = econ.to_currency(float(stated.amount or 0), stated.currency, currency)
            whose = t("screen.rent_budget.yours", lang)
        else:
            assert quote is not None
            rate = cloud_hour_price(quote, econ, currency)[0]
            whose = t("screen.rent_budget.quote", lang, provider=quote.provider,
                      date=quote.date.isoformat() if quote.date else "")
        n = int(budget // (rate * per_month)) if rate > 0 else 0
        key = "market.rent_budget.hour" if hourly else "market.rent_budget.month"
        lead = t(key, lang, budget=money, gpu=gpu.name, whose=whose,
                 rate=book.money(f"rent per GPU-hour of {gpu.name}", rate, currency,
                                 "user input" if stated is not None else SRC_CATALOG + ": cloud quote"),
                 n=book.count(f"{gpu.name} rented around the clock within the budget", n, "GPUs",
                              "computed: ⌊budget ÷ (price per GPU-hour × hours)⌋"),
                 cost=book.money(f"rent of {n}× {gpu.name}", n * rate * per_month, currency,
                                 "computed: GPUs × price per GPU-hour × hours"))
    question = t("claim.to_size", lang)
    step = Step(name="lookup_gpu", arguments={"gpus": [gpu.id]}, summary=gpu.name)
    return compose.finish_turn(lead + "\n\n" + question, lang, state, book, questions=[question], steps=[step],
                               extra={"kind": "catalog", "intent": "how_many", "pending": state.pending,
                                      "answer_verdict": None, "deciding": f"GPUs rented within the budget ({gpu.name})"})
