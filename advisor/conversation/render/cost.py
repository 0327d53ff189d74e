"""Cost of one option: purchase, power, TCO over the years, renting the same GPU-hours, break-even utilisation,
cost per million tokens, and the dated inputs (in Chinese where asked).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from advisor.conversation.render.book import SRC_MEMORY, SRC_USER, Book, money_of
from advisor.conversation.render.labels import provider_label
from advisor.conversation.render.options_table import low_reliability, opt_name
from advisor.conversation.render.power_price import price_words, stated_power
from knowledge.messages import known
from knowledge.messages import t as message

if TYPE_CHECKING:
    from advisor.recommend.parts import OptionTco
    from advisor.recommend.recommender import Option


def rec_cost(o: Option, book: Book, lang: str, buy_or_rent: str | None, asked_years: int | None = None,
              capacity: dict[str, Any] | None = None) -> str:
    """Purchase, power, TCO over the years, renting the same GPU-hours, break-even utilisation and cost per
    million tokens of one option (advisor.estimator.cost via the recommender), with the dated inputs."""
    t = o.tco
    if t is None:
        return ""
    src = "advisor.estimator.cost.estimate_tco"
    years = book.num("TCO years", t.years, "years", src, 0, suffix=message("cost.years_unit", lang))
    p = t.purchase
    lines = [message("cost.head", lang, name=opt_name(o, book), years=years)]
    if p.total:
        total = money_of(book, "purchase (GPUs and servers)", p.total, src)
        gpus = money_of(book, "purchase: GPUs", p.gpus, src) if p.gpus else ""
        rest = (money_of(book, "purchase: rest of the servers", p.rest_of_system, src)
                if p.rest_of_system and p.rest_of_system.amount else "")  # a complete machine has no rest
        lines.append(message("cost.purchase", lang, total=total,
                             parts=message("cost.purchase_parts", lang, gpus=gpus, rest=rest) if gpus and rest else ""))
    if t.power_per_year:
        power = money_of(book, "power per year", t.power_per_year, src)
        kwh = book.num("energy per year", t.energy_kwh_per_year, "kWh", src, 0)
        yours = stated_power(t.prices)  # the person's tariff: said as theirs
        lines.append(message("cost.power_stated", lang, power=power, energy=kwh, price=price_words(*yours, book, lang))
                     if yours else message("cost.power", lang, power=power, energy=kwh))
    tco = money_of(book, "total cost of ownership", t.tco, src)
    shaky = o.price is not None and low_reliability(o.price.source)  # the card price it rests on (review R40)
    if shaky:
        tco += message("cost.low_reliability", lang)
    lines.append(f"- TCO{message('label.colon', lang)}{tco}")
    asked = asked_years
    if asked and abs(float(asked) - t.years) > 1e-9:
        lines.append(message("cost.other_years", lang, asked=book.count("TCO years asked", asked, "years", SRC_USER),
                             years=years))
    lines += _rent_lines(o, t, book, lang, src)
    be = t.break_even_utilization
    if be:
        pct = book.num("break-even utilisation", be * 100, "%", src, 0, suffix="").replace(" ", "") + "%"
        if be <= 1:
            verdict = message("cost.break_even", lang, utilisation=pct)
        else:
            verdict = message("cost.rent_always", lang)
        lines.append(verdict)
    cpm = t.cost_per_million_tokens
    if cpm is not None:
        owned = money_of(book, "cost per million tokens (owned)", cpm.owned, src)
        cl = money_of(book, "cost per million tokens (cloud)", cpm.cloud, src) if cpm.cloud else ""
        full = ""
        if capacity and capacity.get("cost_per_million"):
            # the figure above is at the asked load; with no concurrency given that is one user on the whole server
            n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", capacity["max_concurrency"],
                           "sequences", f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
            at = money_of(book, f"cost per million tokens at capacity on {o.count}× {o.gpu_name} (owned)",
                           capacity["cost_per_million"], "advisor.estimator.cost.estimate_tco at the capacity speed")
            full = message("cost.per_million_full_load", lang, count=n, owned=at)
        lines.append(message("cost.per_million", lang, owned=owned,
                             rented=message("cost.per_million_rented", lang, cloud=cl) if cl else "", full=full))
    lines += _dated_inputs(t, book, lang)
    return "\n".join(lines)


def _rent_lines(o: Any, t: OptionTco, book: Book, lang: str, src: str) -> list[str]:
    """Renting the same GPU-hours: the dated cloud price (from the other market, said so), or why it cannot be
    compared."""
    lines: list[str] = []
    cloud = t.cloud
    if cloud is not None and cloud.stated_rate is not None:  # the person's own price (reader.rental), said as theirs
        rent = money_of(book, "renting the same GPU-hours", cloud.cost, f"{src} (your price per GPU-hour)")
        rate = money_of(book, "your price per GPU-hour", cloud.stated_rate, "user input (rental price stated by the user)")
        at = (message("rent.stated.at", lang, provider=provider_label(cloud.provider, lang))
              if cloud.provider not in (None, "user") else "")
        lines.append(message("cost.rent_stated", lang, rent=rent, rate=rate, at=at))
    elif cloud is not None:
        rent = money_of(book, "renting the same GPU-hours", cloud.cost, f"{src} (cloud {cloud.provider})")
        rate = book.num("cloud price per GPU-hour", float(cloud.usd_per_gpu_hour or 0), "USD/GPU-hour",
                        f"{cloud.provider} as of {cloud.as_of}", 2, suffix="")
        lines.append(message("cost.rent", lang, rent=rent, provider=cloud.provider, rate=rate, as_of=cloud.as_of))
        if cloud.other_region:  # review R38/R45: the only quote is from the other market
            china = cloud.region == "cn"
            lines[-1] += message("cost.rent_china_only" if china else "cost.rent_overseas_only", lang)
    elif t.basis != "owned":  # say so rather than leave the buy-or-rent question unanswered (owned: nothing to buy)
        gpu_name = o.gpu_name
        lines.append(message("cost.no_cloud_price", lang, gpu=gpu_name))
    return lines


def _dated_inputs(t: OptionTco, book: Book, lang: str) -> list[str]:
    """The dated inputs of the cost (at most six), each with its date and a low-reliability mark where it applies."""
    zh = lang == "zh"  # the Chinese names of the cost inputs (dated_zh)
    lines: list[str] = []
    dated = [x for x in t.prices if x.as_of]
    if dated:
        bits = []
        for x in dated[:6]:
            name, unit = (dated_zh(x.name, x.unit) if zh else (dated_en(x.name), x.unit))
            v = book.num(f"input: {x.name}", x.value, x.unit, x.source, input_decimals(x.value), suffix=unit)
            when = str(x.as_of)
            if low_reliability(x.source):
                when += message("list.comma", lang) + message("price.low_reliability", lang)
            bits.append(message("cost.dated_input", lang, name=name, value=v, when=when))
        lines.append(message("cost.dated_inputs", lang, inputs=message("clause.sep", lang).join(bits)))
    return lines


def input_decimals(x: float) -> int:
    return 0 if abs(x) >= 100 else (2 if abs(x) < 10 else 1)


# Chinese names of the cost model's dated inputs (advisor.estimator.cost DatedValue names and units)
_PRICE_KIND_ZH = {"street": "市场价", "channel": "渠道价", "used": "二手价", "launch_msrp": "首发建议零售价",
                  "user input": "用户输入",
                  "quote": "报价"}


_DATED_ZH: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^exchange rate$"), "汇率"),
    (re.compile(r"^(?P<g>.+) per card \((?P<k>[^,)]+)(?:, converted from (?P<c>CNY|USD))?\)$"), "{g} 单卡{k}{conv}"),
    (re.compile(r"^server tier (?P<t>\S+) \(rest of system\)$"), "服务器档位 {t}（整机其余部分）"),
    (re.compile(r"^electricity$"), "电价"),
    (re.compile(r"^cloud (?P<tier>[\w ]+?) \((?P<p>.+)\)$"), "云租用价（{p}，{tier}）"),  # "RunPod (B200)"
]


_UNIT_ZH = {"CNY per USD": "元/美元", "CNY/kWh": "元/kWh", "USD/kWh": "美元/kWh", "USD per GPU-hour": "美元/GPU·时",
            "CNY per GPU-hour": "元/GPU·时",
            "ratio": "", "CNY": "元", "USD": "美元"}


_PRICE_KIND_EN = {"launch_msrp": "launch MSRP", "server_share": "share of a server's price"}


def dated_en(name: str) -> str:
    """A dated cost input's name in words: the catalog's price kind ids ("launch_msrp") spelled out."""
    return re.sub(r"\((launch_msrp|server_share)", lambda m: "(" + _PRICE_KIND_EN[m.group(1)], name)


def dated_zh(name: str, unit: str) -> tuple[str, str]:
    """(name, unit) of a dated cost input in Chinese; unknown names stay as written."""
    for rx, template in _DATED_ZH:
        m = rx.match(name)
        if m:
            d = {k: v or "" for k, v in m.groupdict().items()}
            if "k" in d:
                d["k"] = _PRICE_KIND_ZH.get(d["k"], d["k"])
                d["conv"] = f"（由{'美元' if d['c'] == 'USD' else '人民币'}换算）" if d["c"] else ""
            if "tier" in d:
                tier = d["tier"].replace(" ", "_")  # "on demand" as the English name writes it
                d["tier"] = message(f"rent.tier.{tier}", "zh") if known(f"rent.tier.{tier}") else d["tier"]
            name = template.format(**d)
            break
    return name, _UNIT_ZH.get(unit, unit)
