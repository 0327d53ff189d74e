"""Book: prints each number of an answer and records it (name, value, unit, source) as a Turn's Number.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from advisor.conversation.grounding.gate import extract as find_numbers
from advisor.conversation.turn import Number
from knowledge.quantities import SECOND, Bytes, DurationUnit, Money, Seconds

SRC_MEMORY = "advisor.estimator.memory.estimate_memory"


SRC_USER = "user input"


SRC_DEFAULT = "dialog default"


SRC_INFERRED = "inferred from user input"


def source_of(ev: Any, name: str) -> str:
    """Where a job value shown in an answer came from: "user input" when the person stated it (the analysis's
    `stated` fields), "inferred from user input" when implied by it (a concurrency from a request rate), else the
    dialog's default."""
    if name in (getattr(ev, "stated", None) or ()):
        return SRC_USER
    return SRC_INFERRED if name in (getattr(ev, "inferred", None) or ()) else SRC_DEFAULT


BOOK_UNITS: dict[str, str] = {"ms": "ms", "s": "s", "min": "minutes", "h": "hours", "days": "days"}
"""The unit a duration is recorded in (`Book.duration`), by the `Seconds` unit it is shown in."""


# a token count's scale per language: (from, divisor, unit). English counts in thousands (M, B, T); Chinese in
# ten-thousands (万, 亿 = 10⁸, 万亿 = 10¹²), so 2e8 is "2 亿 tokens" and 5e7 "5000 万 tokens"
TOKEN_SCALES: dict[str, tuple[tuple[float, float, str], ...]] = {
    "en": ((1e12, 1e12, "T tokens"), (1e9, 1e9, "B tokens"), (1e6, 1e6, "M tokens")),
    "zh": ((1e12, 1e12, "万亿 tokens"), (1e8, 1e8, "亿 tokens"), (1e6, 1e4, "万 tokens")),
}


class Book:
    """Formats numbers for the answer and records each one as a Number (deduplicated by name, value and unit)."""

    def __init__(self) -> None:
        self.numbers: list[Number] = []
        self._seen: set[tuple[str, float, str]] = set()

    def add(self, name: str, value: float, unit: str, source: str) -> None:
        unit = unit or "count"  # a dimensionless number (a ZeRO stage, a model number in a citation)
        key = (name, round(float(value), 9), unit)
        if key not in self._seen:
            self._seen.add(key)
            # a Number is a Value: typed, not checked (an answer records ~130 numbers)
            self.numbers.append(Number(name=str(name), value=float(value), unit=str(unit), source=str(source)))

    def num(self, name: str, value: float, unit: str, source: str, digits: int = 0, suffix: str | None = None) -> str:
        """`value` in `unit`, printed with `digits` decimals, followed by the unit (or `suffix`)."""
        self.add(name, value, unit, source)
        text = f"{value:,.{digits}f}" if abs(value) >= 100_000 else f"{value:.{digits}f}"
        label = unit if suffix is None else suffix
        return f"{text} {label}".rstrip() if label else text

    def gib(self, name: str, amount: Bytes, source: str = SRC_MEMORY, digits: int = 1) -> str:
        """Memory in GiB ("74.5 GiB"), recorded in GiB."""
        return self.num(name, amount.gib, "GiB", source, digits)

    def gb(self, name: str, amount: Bytes, source: str = SRC_MEMORY, digits: int = 1) -> str:
        """Memory in GB ("80.0 GB"), recorded in GB."""
        return self.num(name, amount.gb, "GB", source, digits)

    def duration(self, name: str, amount: Seconds, unit: DurationUnit, source: str, digits: int = 1,
                 suffix: str | None = None) -> str:
        """A duration in `unit` ("38 ms", "16.3 days", or the language's `suffix`), recorded in that unit as the
        grounding gate reads it (ms, s, minutes, hours, days)."""
        return self.num(name, amount.to(unit), BOOK_UNITS[unit], source, digits, suffix)

    def latency(self, name: str, amount: Seconds, source: str) -> str:
        """A latency as people read it: whole milliseconds below a second ("67 ms"), else seconds to one decimal
        ("1.7 s")."""
        return self.duration(name, amount, "ms", source, 0) if amount < SECOND else \
            self.duration(name, amount, "s", source, 1)

    def target_rate(self, tpot_s: float) -> str:
        """The per-user speed a time-per-token target means, 1 / TPOT tokens/s ("25 tokens/s" for 40 ms), with as
        many decimals as it has."""
        return self.num("per-user speed at the TPOT target", 1 / tpot_s, "tokens/s", "computed: 1 / TPOT target",
                        decimals_for(round(1 / tpot_s, 1)))

    def count(self, name: str, value: float, unit: str, source: str) -> str:
        self.add(name, value, unit, source)
        return str(int(value))

    def money(self, name: str, amount: float, currency: str, source: str) -> str:
        self.add(name, amount, currency, source)
        symbol = "¥" if currency == "CNY" else "$"
        return f"{symbol}{amount:,.2f}" if abs(amount) < 100 else f"{symbol}{amount:,.0f}"

    def text(self, text: str, name: str, source: str) -> str:
        """Tool-provided text (a rule's message, its citation, a launch hint): every number in it is recorded
        with the unit printed after it, so the text can be shown unchanged."""
        for shown, number, unit in numbers_in(text):
            self.add(f"{name}: {shown}", number, unit, source)
        return text

    def tokens(self, name: str, value: float, source: str, lang: str) -> str:
        """Token counts: 8192 -> "8192 tokens"; 2e9 -> "2 B tokens" / "20 亿 tokens"; 5e7 -> "50 M tokens" /
        "5000 万 tokens"; 1.5e13 -> "15 T tokens" / "15 万亿 tokens" (TOKEN_SCALES)."""
        for above, divisor, unit in TOKEN_SCALES["zh" if lang == "zh" else "en"]:
            if value >= above:
                scaled = value / divisor  # four digits need no decimals: "1606 亿 tokens", not "1606.05 亿"
                return self.num(name, scaled, unit, source, 0 if scaled >= 1000 else decimals_for(scaled))
        return self.num(name, value, "tokens", source)


@lru_cache(maxsize=4096)
def numbers_in(text: str) -> tuple[tuple[str, float, str], ...]:
    """(as printed, value, unit) of each number in `text`, read by the grounding gate's own parser (memoised:
    rule messages and citations repeat from turn to turn)."""
    out = []
    for m in find_numbers(text):
        unit = text[m.start:m.end]
        digits = re.match(r"^[^\d]*[\d.,]+", unit)
        unit = unit[digits.end():].strip() if digits else ""
        dim = m.candidates[0].dim if m.candidates else ""
        if dim in ("CNY", "USD") and not unit:
            unit = dim
        elif dim == "gpus":
            unit = "GPUs"  # "4× L20": a GPU count
        out.append((m.text, float(m.number), unit))
    return tuple(out)


def decimals_for(x: float) -> int:
    return 0 if abs(x - round(x)) < 1e-9 else (1 if abs(x * 10 - round(x * 10)) < 1e-9 else 2)


SRC_RECOMMEND = "advisor.recommend.recommender"


SRC_THROUGHPUT = "advisor.estimator.throughput.estimate_throughput"


SRC_TRAINING = "advisor.estimator.training.estimate_train_time"


def money_of(book: Book, name: str, m: Money | Mapping[str, Any], source: str) -> str:
    if isinstance(m, Money):
        return book.money(name, m.amount, m.currency, source)
    return book.money(name, float(m["amount"]), m["currency"], source)
