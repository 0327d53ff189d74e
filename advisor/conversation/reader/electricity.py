"""The electricity price a person states for their site ("incl power at $0.12/kWh", "12 cents per kWh",
"电价按0.8元/度", "按 1 块钱一度电", "每度电 0.6 元", "电价七毛", "€0.20/kWh").

    read_electricity(Text("we pay $0.25/kwh, 3yr tco"), slots, "en")
      -> slots.electricity = ElectricityPrice(amount=0.25, currency="USD", other=None, text="$0.25/kWh")

An amount is an electricity price when a per-kWh mark follows it ("/kWh", "per kWh", "a kilowatt-hour", "/度", "一度电",
"每度", "/千瓦时") or an electricity word precedes it in the same clause ("electricity at $0.10", "power costs 10
cents", "电价 1 块", "每度电 0.6 元", "电费一度0.9元", "电价按 0.8"; an amount with no currency only in Chinese after
电价 or 度电: "power at 0.12" may be anything). Units: dollars ($, USD), cents (¢, "c", "cents": ÷ 100), yuan
(元, 块, RMB, ¥), 毛/角 (÷ 10: "七毛" = 0.7 元, "一块二" = 1.2 元); a currency the catalog does not price in (€, £) is
kept in `other` (the answer takes the amount in its own currency with no exchange rate, as a budget in euros is);
no currency: None (the answer's currency). A price above MAX_ELECTRICITY of its currency (ten times the dearest
retail tariffs; another currency against the dollar's) is said back as out of range when marked per kWh ("$5/kWh",
reader.ranges), else left unread; one not above zero is left unread.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.conversation.reader.numbers import CNY_WORDS, USD_WORDS, to_number
from advisor.conversation.reader.ranges import OutOfRange
from advisor.conversation.reader.text import CN_NUM
from advisor.estimator.cost import MAX_ELECTRICITY
from knowledge.structs import Value

if TYPE_CHECKING:
    from advisor.conversation.reader.slots import Slots
    from advisor.conversation.reader.text import Text


class ElectricityPrice(Value):
    """An electricity price per kWh as stated: the amount, its currency ("USD", "CNY"; None when none was said),
    a currency the catalog does not price in ("EUR", "GBP": `currency` None), and the words it was read from."""

    amount: float
    currency: str | None
    other: str | None = None
    text: str = ""


_NUM = rf"(?P<num>\d+(?:\.\d+)?|\.\d+|{CN_NUM})"
_PRE = r"(?P<pre>us\$|\$|¥|€|£|(?<![a-z])(?:usd|rmb|cny|eur|gbp)(?![a-z]))"
# a currency (or a hundredth or tenth of one) after the amount; "c" and "p" only as "12c/kWh", "25p/kWh"
_POST = (rf"(?P<post>cents?|¢|c(?=\s*/)|pence|p(?=\s*/)|毛钱?|角钱?|euros?|eur(?![a-z])|欧元|gbp|pounds?|英镑|{USD_WORDS}|"
         rf"{CNY_WORDS})")
_JIAO = r"(?:\s*(?P<jiao>[一二两三四五六七八九]|\d)(?:\s*(?:毛|角))?(?![\d.]))?"  # "一块二", "1 元 5 角"
_KWH = r"(?:kwh|kw\s*[·.\-]?\s*h|kilowatt[\s-]*hours?|千瓦时|千瓦·时|度电?)(?![a-z])"
_PER_KWH = rf"\s*(?:/|per|an?|each|every|for\s+(?:an?|one|each)|每|一|1)\s*(?:个)?\s*{_KWH}"
_AMOUNT = rf"(?:{_PRE}\s*)?{_NUM}(?:\s*{_POST}{_JIAO})?"
# an amount followed by a per-kWh mark: "$0.12/kwh", "12 cents per kwh", "0.8元/度", "1 块钱一度电", "0.6元每度"
_WITH_UNIT = re.compile(rf"(?<![a-z\d.]){_AMOUNT}{_PER_KWH}")
# an electricity word before the amount, in the same clause: "electricity at $0.10", "电价 1 块", "每度电 0.6 元"
_WORD = (r"(?P<w>电价|电费单价|电费价格|每度电|一度电|每度|一度|(?<![a-z])(?:electricity|power|energy)"
         r"(?:\s+(?:price|rate|cost|tariff)s?)?)")
_LOOSE_WORDS = ("一度",)  # also "once" ("我一度以为 8 张卡…"): only with a currency or a per-kWh mark after it
_LINK = (r"\s*(?:按|是|为|约|大概|大约|只要|要|才|:|：|=|@|(?<![a-z])(?:of|is|at|costs?|runs?|comes\s+to)(?![a-z]))?"
         r"\s*(?:us\s+)?(?:about|around|roughly|~|约)?\s*")
# not a rate: a price per hour, month or year, a scaled amount ("$50k of power"), a share, a power in kW
_NOT_RATE = r"(?!\s*(?:/|per(?![a-z])|an?\s+(?:hour|day|month|year)|每|k(?![a-z])|万|千|%|kw(?!h)|w(?![a-z])|mw|gpu))"
_AFTER_WORD = re.compile(rf"{_WORD}{_LINK}{_AMOUNT}(?![\d.])(?:{_PER_KWH}|{_NOT_RATE})")
_OTHER = {"€": "EUR", "eur": "EUR", "euro": "EUR", "euros": "EUR", "欧元": "EUR", "£": "GBP", "gbp": "GBP",
          "pound": "GBP", "pounds": "GBP", "pence": "GBP", "p": "GBP", "英镑": "GBP"}
_HUNDREDTH = ("cent", "cents", "¢", "c", "pence", "p")
_TENTH = ("毛", "毛钱", "角", "角钱")


def read_electricity(t: Text, slots: Slots, lang: str) -> None:
    """The first electricity price of the message into `slots.electricity` (its words blanked, so no budget or
    rental price reads them); nothing when none is said or the amount is not a plausible price per kWh."""
    for m in [*t.finditer(_WITH_UNIT), *t.finditer(_AFTER_WORD)]:  # a per-kWh mark first: it says the most
        price = _price(m, lang)
        if isinstance(price, OutOfRange):  # "$5/kWh": an electricity price, but none a site pays; said, not replaced
            slots.out_of_range.append(price)
            t.consume(m.start(), m.end())
            return
        if price is not None:
            slots.electricity = ElectricityPrice(price[0], price[1], price[2], t.quote(m.start(), m.end()))
            t.consume(m.start(), m.end())
            return


def _price(m: re.Match[str], lang: str) -> tuple[float, str | None, str | None] | OutOfRange | None:
    """(amount per kWh, currency or None, a currency the catalog lacks or None) of a match; an OutOfRange for an
    implausible amount marked per kWh ("$5/kWh"), None for any other one. A bare amount after an electricity word in
    English must say its currency ("power at 0.12" may be anything)."""
    value = to_number(m.group("num"))
    word = (m.group("pre") or m.group("post") or "").strip()
    bare = not word and not re.search(_KWH, m.string[m.end("num"):m.end()])  # no currency and no "/kWh" after
    if value is None or value <= 0 or (bare and (lang != "zh" or m.groupdict().get("w") in _LOOSE_WORDS)):
        return None
    if m.group("jiao"):  # "一块二": one yuan and two tenths
        value += (to_number(m.group("jiao")) or 0.0) / 10
    if word in _HUNDREDTH:
        value /= 100
    elif word in _TENTH:
        value /= 10
    other = _OTHER.get(word)
    if other is None and word in ("cent", "cents", "¢", "c"):
        currency: str | None = "USD"
    elif other is None and word:
        currency = "USD" if re.fullmatch(rf"us\$|\$|usd|{USD_WORDS}", word) else "CNY"
    else:
        currency = None
    top = MAX_ELECTRICITY.get(currency or "USD", MAX_ELECTRICITY["USD"])
    if currency is None and other is None and lang == "zh":
        top = MAX_ELECTRICITY["CNY"]  # a bare Chinese amount is yuan
    if value <= top:
        return value, currency, other
    marked = re.search(_KWH, m.string[m.end("num"):m.end()]) is not None
    return OutOfRange(slot="electricity", value=value, lo=0.0, hi=top) if marked else None


__all__ = ["ElectricityPrice", "read_electricity"]
