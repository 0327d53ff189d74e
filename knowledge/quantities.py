"""Value types for numbers that cross layers with their unit: :class:`Money` (an amount in one of the catalog's
currencies). The catalog prices cards in USD and CNY only (knowledge/schemas.py `Price.currency`); another currency
is refused with the one-line :class:`~knowledge.structs.StructError`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from knowledge.structs import FINITE, Frozen

Currency = Literal["USD", "CNY"]
SYMBOLS: dict[str, str] = {"USD": "$", "CNY": "¥"}


class Money(Frozen):
    """An amount of money in `currency` (finite; negative only for a difference, e.g. a saving)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    amount: Annotated[float, FINITE]
    currency: Currency

    def check_invariants(self) -> None:
        if self.currency not in SYMBOLS:
            raise ValueError(f"unknown currency {self.currency!r} (accepted: {', '.join(SYMBOLS)})")

    def __str__(self) -> str:
        return f"{SYMBOLS[self.currency]}{self.amount:,.0f} {self.currency}"

    def to_contract(self) -> dict[str, Any]:
        """`{"amount", "currency"}` as the JSON contract writes money."""
        return {"amount": self.amount, "currency": self.currency}
