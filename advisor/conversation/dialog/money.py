"""The money a conversation has stated, as constraints: a purchase budget (for the machine or the cards alone), a
rental budget a month or a ceiling an hour (its month at 730 h), the currency, buy or rent, the TCO years, new or used,
the person's own rental price and electricity price (advisor.conversation.dialog.machine.build_constraints)."""

from __future__ import annotations

from typing import Any

from advisor.analysis.result import Assumption
from advisor.conversation.reader.electricity import ElectricityPrice
from advisor.conversation.reader.slots import Slots
from advisor.estimator.cost import HOURS_PER_MONTH
from advisor.workload import StatedElectricity, StatedRent
from knowledge.messages import pair


def money_constraints(s: Slots, lang: str) -> tuple[dict[str, Any], list[Assumption]]:
    """(Constraints fields, assumptions said) for the money in `s`; the currency defaults to the user's (yuan in
    Chinese or for mainland China, else dollars)."""
    notes: list[Assumption] = []
    kwargs: dict[str, Any] = {}
    if (s.budget and s.budget_monthly) or s.rent_cap_hour:  # "$40k a month", "$2/hr max": rented, not bought
        # (analysis.load_answers.budget_users); an hour's ceiling is that much for each of a month's 730 hours
        kwargs["monthly_rent_budget"] = s.rent_cap_hour * HOURS_PER_MONTH if s.rent_cap_hour else s.budget
        kwargs["rent_budget_hourly"] = bool(s.rent_cap_hour)
        kwargs["currency"] = s.currency or ("CNY" if lang == "zh" else "USD")
        kwargs["buy_or_rent"] = "rent"
    elif s.budget:
        kwargs["budget"] = s.budget
        if s.budget_gpus:
            kwargs["budget_covers"] = "gpus"
        kwargs["currency"] = s.currency or ("CNY" if lang == "zh" else "USD")
        if s.other_currency:  # "€600k": the catalog prices in USD and CNY only; said how the amount was taken
            notes.append(Assumption(*pair("assumption.other_currency"), {
                "amount": (s.budget, kwargs["currency"], "user input")}))
    elif s.currency:
        kwargs["currency"] = s.currency
    else:
        kwargs["currency"] = "CNY" if lang == "zh" or s.region == "cn" else "USD"  # prices in the user's currency
    if s.buy_or_rent:
        kwargs["buy_or_rent"] = s.buy_or_rent
    if s.tco_years:
        kwargs["tco_years"] = s.tco_years
    if s.condition:
        kwargs["condition"] = s.condition
    if s.rent_rate is not None and s.rent_rate.amount:  # the person's own rental price, for the card it was said for
        named = [c.gpu for c in s.candidates]
        kwargs["rent"] = StatedRent(per_gpu_hour=s.rent_rate.amount, currency=s.rent_rate.currency,  # type: ignore[arg-type]
                                    provider=s.rent_rate.provider, gpu=named[0] if len(named) == 1 else None)
    if s.electricity is not None:  # the person's own tariff prices the power of every cost (estimate_tco)
        power = kwargs["electricity"] = stated_electricity(s.electricity, kwargs["currency"])
        notes.append(Assumption(*pair("assumption.electricity_stated" if power.said_in is None else
                                      "assumption.electricity_other_currency"),
                                {"price": (power.per_kwh, power.currency, "user input")}))
    return kwargs, notes


def stated_electricity(p: ElectricityPrice, currency: str) -> StatedElectricity:
    """The electricity price `p` as said, for a cost in `currency`: in its own currency when said in dollars or yuan
    (the cost converts it at the dated exchange rate), else (no currency said, or one the catalog does not price in,
    "€0.20/kWh") the amount taken in `currency`, with no exchange rate (`said_in` keeps the currency said)."""
    return StatedElectricity(per_kwh=p.amount, currency=p.currency or currency,  # type: ignore[arg-type]
                             said_in=p.other)
