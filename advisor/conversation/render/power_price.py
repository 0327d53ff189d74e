"""The electricity price a cost was computed at, said where the person stated it ("at your $0.12/kWh", "按你给的电价
0.8 元/kWh"): advisor.estimator.cost.estimate_tco records a stated price among its inputs as "electricity" with source
"user input" (the value and currency as said), so every answer that shows power, a TCO or a rent-or-buy verdict can
say that the person's price, not the catalog's dated one, was used."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from advisor.conversation.render.book import SRC_USER, Book
from advisor.estimator.cost import STATED
from knowledge.messages import t


def stated_power(prices: Iterable[Any] | None) -> tuple[float, str] | None:
    """(price per kWh, its currency) of the electricity input the person stated, from a TCO's inputs (DatedValue
    objects or their contract dicts); None when the catalog's dated price was used."""
    for p in prices or ():
        get = p.get if isinstance(p, Mapping) else (lambda key, _p=p: getattr(_p, key, None))
        if get("name") == "electricity" and get("source") == STATED:
            return float(get("value") or 0.0), str(get("unit") or "").split("/")[0]
    return None


def price_words(value: float, currency: str, book: Book, lang: str, said_in: str | None = None) -> str:
    """A price per kWh as the answer writes it ("$0.12/kWh", "0.8 元/kWh"), recorded as the user's input; a price
    said in a currency the catalog lacks ("EUR") says that it was taken as `currency` with no exchange rate."""
    digits = min(4, max(2 if currency == "USD" or said_in else 0, len(f"{value:g}".partition(".")[2])))  # "$0.20"
    v = book.num("your electricity price per kWh", value, currency, SRC_USER, digits, suffix="")
    shown = t(f"power.price.{currency}", lang, v=v)
    return t("power.taken_as", lang, said=said_in, v=v, price=shown) if said_in else shown


def at_your_price(prices: Iterable[Any] | None, book: Book, lang: str, said_in: str | None = None) -> str:
    """" Power is priced at your $0.12/kWh." when the cost used the person's electricity price, else ""."""
    stated = stated_power(prices)
    if stated is None:
        return ""
    return t("power.priced", lang, price=price_words(stated[0], stated[1], book, lang, said_in))


__all__ = ["at_your_price", "price_words", "stated_power"]
