"""Value types for numbers that cross layers with their unit.

* :class:`Bytes`: an amount of memory. Memory is the number users read most and the one most easily misread: the
  estimator and the engines count GiB (2³⁰ B), vendors and disks GB (10⁹ B), and 80 GB is 74.5 GiB while an
  H100's "80 GB" of HBM is 80 GiB (knowledge/schemas.py); the layers above the estimator converted bare ints by hand
  at dozens of sites. The estimator's results carry `Bytes` to the recommender, the analysis,
  the renderers and the tools; the conversion to GiB or GB is done here only (:attr:`Bytes.gib`, :attr:`Bytes.gb`,
  :meth:`Bytes.text`, which always prints the unit's name). A `Bytes` adds to and compares with another `Bytes`
  only: a bare number (which could be GiB or GB) raises ``TypeError`` instead of being added as if it were bytes.
* :class:`Money`: an amount in one of the catalog's currencies (USD, CNY; knowledge/schemas.py `Price.currency`);
  another currency is refused with the one-line :class:`~knowledge.structs.StructError`, and money in two
  currencies does not add (no exchange rate is implied).
* :class:`Seconds`: a duration (time to first token, time per output token, a training run's wall-clock). The
  estimator computes in seconds; answers show milliseconds (a token's latency), hours or days (a run), and the
  renderers used to multiply by 1000 or divide by 3600 and 86400 themselves at ~40 sites, each reading a float
  named by its unit (`ttft_s`, `ms_per_token`, `wall_s`). The results that reach the answers now carry `Seconds`
  and the conversions are made here only:

      ms = s × 1000        min = s / 60        h = s / 3600        days = s / 86400

  (:attr:`Seconds.ms`, :attr:`.hours`, :attr:`.days`, :meth:`.to`, :meth:`.text`, which always prints the unit:
  "38 ms", "2.4 h", "16.3 days"; in Chinese "16.3 天"). A day is 86,400 s (no calendar: a run's wall-clock).
  A `Seconds` adds to and compares with another `Seconds` only; a bare number (seconds? milliseconds?) raises
  ``TypeError`` naming the fix (``Seconds(x)``, ``Seconds.of(x, "ms")``).

Speeds (tokens/s) stay floats: they are shown in one unit only, tokens/s, so no reader converts them and there is
no second unit to confuse them with (docs/architecture.md, "Units", lists what crosses typed and what does not).

`Bytes` and `Seconds` are plain msgspec structs (no checks of their own: ≈ 0.1 µs to build), so results that hold
several stay as cheap as the numbers they replace; the JSON contract still writes the number (`Bytes.n`,
`Seconds.s`, or `Seconds.ms` under a key named `ms_…`) under the same keys. Inside the estimator's loops (the serving
simulation, the step times, the planner) durations stay floats; the results are typed where they are built.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from knowledge.structs import FINITE, Frozen

Currency = Literal["USD", "CNY"]
SYMBOLS: dict[str, str] = {"USD": "$", "CNY": "¥"}

GIB = 2**30  # bytes in a GiB: the estimator's formula lines and thresholds written in GiB use this one definition
GB = 10**9  # bytes in a GB
MemoryUnit = Literal["B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB"]
UNIT_BYTES: dict[str, int] = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": GIB, "TiB": 2**40,
                              "KB": 10**3, "MB": 10**6, "GB": GB, "TB": 10**12}
"""Bytes per unit: binary (IEC: KiB = 2¹⁰ B … TiB = 2⁴⁰ B) and decimal (SI: KB = 10³ B … TB = 10¹² B)."""


def in_unit(n_bytes: float, unit: MemoryUnit) -> float:
    """`n_bytes` bytes in `unit`: the one conversion of memory for display (Bytes.to, Bytes.gib and the estimator's
    formula lines, which format byte counts still being computed as floats)."""
    return n_bytes / UNIT_BYTES[unit]


def memory_text(n_bytes: float, unit: MemoryUnit = "GiB", digits: int = 1, *, grouped: bool = False) -> str:
    """"74.5 GiB": `n_bytes` in `unit` with `digits` decimals and the unit's name (thousands grouped with
    `grouped`)."""
    value = n_bytes / UNIT_BYTES[unit]
    return f"{value:,.{digits}f} {unit}" if grouped else f"{value:.{digits}f} {unit}"


_FIXES = {"Bytes": "Bytes(n), Bytes.of(x, 'GiB'), Bytes.of(x, 'GB')",
          "Seconds": "Seconds(x) for seconds, Seconds.of(x, 'ms'), Seconds.of(x, 'h')"}


def _unitless(op: str, a: object, b: object) -> TypeError:
    """The refusal of a bare number beside a unit type (`a` or `b`), naming the constructors that give it a unit."""
    kind = type(a).__name__ if type(a).__name__ in _FIXES else type(b).__name__
    return TypeError(f"cannot {op} {type(a).__name__} and {type(b).__name__}: give the number a unit ({_FIXES[kind]})")


class Bytes(msgspec.Struct, frozen=True, order=True):
    """An amount of memory in whole bytes (negative for a shortfall: headroom, a difference).

    ``Bytes(n)`` from bytes, ``Bytes.of(x, "GiB")`` from another unit (rounded to whole bytes). Arithmetic keeps the
    unit: Bytes ± Bytes and Bytes × number are Bytes; `.ratio(other)` and Bytes // Bytes are plain numbers. Bytes / x
    is refused: it is the hand conversion `n / 2**30` this type replaces (`.gib`, `.gb`, `.to(unit)`).
    """

    n: int

    @classmethod
    def of(cls, value: float, unit: MemoryUnit = "B") -> Bytes:
        """`value` in `unit` as whole bytes (80 GB → 80·10⁹ B)."""
        return cls(round(value * UNIT_BYTES[unit]))

    # --- the conversions (the only ones in the program) ----------------------------------------------------
    def to(self, unit: MemoryUnit) -> float:
        """The amount in `unit` (74.5 for 80 GB in GiB)."""
        return in_unit(self.n, unit)

    @property
    def gib(self) -> float:
        """In GiB (2³⁰ B): how the estimator and the engines (nvidia-smi, PyTorch) count."""
        return self.n / 2**30

    @property
    def gb(self) -> float:
        """In GB (10⁹ B): how datasheets and vendors count."""
        return self.n / 10**9

    def text(self, unit: MemoryUnit = "GiB", digits: int = 1, *, grouped: bool = False) -> str:
        """"74.5 GiB": the amount in `unit` with `digits` decimals and the unit's name (thousands grouped with
        `grouped`)."""
        return memory_text(self.n, unit, digits, grouped=grouped)

    def __str__(self) -> str:
        return self.text("GiB", 1)

    # --- arithmetic: Bytes with Bytes, scaled by plain numbers ----------------------------------------------
    def __add__(self, other: Bytes) -> Bytes:
        if type(other) is not Bytes:
            raise _unitless("add", self, other)
        return Bytes(self.n + other.n)

    def __sub__(self, other: Bytes) -> Bytes:
        if type(other) is not Bytes:
            raise _unitless("subtract", self, other)
        return Bytes(self.n - other.n)

    def __radd__(self, other: object) -> Bytes:
        raise _unitless("add", other, self)

    def __rsub__(self, other: object) -> Bytes:
        raise _unitless("subtract", other, self)

    def __mul__(self, factor: float) -> Bytes:
        if isinstance(factor, Bytes) or not isinstance(factor, int | float):
            raise TypeError(f"cannot multiply Bytes by {type(factor).__name__}")
        return Bytes(round(self.n * factor))

    __rmul__ = __mul__

    # no `/`: `total / 2**30` is the hand conversion this type replaces (.gib, .gb, .to(unit)); a share of another
    # amount is .ratio(other), a split `amount * (1 / k)`. Left undefined, mypy flags it where it is written.

    def ratio(self, other: Bytes) -> float:
        """self / other as a plain number (utilisation, a share)."""
        if type(other) is not Bytes:
            raise _unitless("divide", self, other)
        return self.n / other.n

    def __floordiv__(self, other: Bytes) -> int:
        """How many whole `other` fit in self (tokens of KV cache in free memory)."""
        if type(other) is not Bytes:
            raise _unitless("divide", self, other)
        return self.n // other.n

    def __neg__(self) -> Bytes:
        return Bytes(-self.n)

    def __abs__(self) -> Bytes:
        return Bytes(abs(self.n))

    def __bool__(self) -> bool:
        return self.n != 0

    @staticmethod
    def total(amounts: Any) -> Bytes:
        """The sum of an iterable of Bytes (`sum` would start from a bare 0)."""
        return Bytes(sum(a.n for a in amounts))


ZERO = Bytes(0)


class Money(Frozen):
    """An amount of money in `currency` (finite; negative only for a difference, e.g. a saving). Adds to and
    compares with money in the same currency only."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    amount: Annotated[float, FINITE]
    currency: Currency

    def check_invariants(self) -> None:
        if self.currency not in SYMBOLS:
            raise ValueError(f"unknown currency {self.currency!r} (accepted: {', '.join(SYMBOLS)})")

    def __str__(self) -> str:
        return f"{SYMBOLS[self.currency]}{self.amount:,.0f} {self.currency}"

    def _same(self, op: str, other: object) -> Money:
        if not isinstance(other, Money):
            raise TypeError(f"cannot {op} Money and {type(other).__name__}: give the number a currency")
        if other.currency != self.currency:
            raise TypeError(f"cannot {op} {self.currency} and {other.currency}: convert one first")
        return other

    def __add__(self, other: Money) -> Money:
        return Money(amount=self.amount + self._same("add", other).amount, currency=self.currency)

    def __sub__(self, other: Money) -> Money:
        return Money(amount=self.amount - self._same("subtract", other).amount, currency=self.currency)

    def __mul__(self, factor: float) -> Money:
        if not isinstance(factor, int | float):
            raise TypeError(f"cannot multiply Money by {type(factor).__name__}")
        return Money(amount=self.amount * factor, currency=self.currency)

    def __lt__(self, other: Money) -> bool:
        return self.amount < self._same("compare", other).amount

    def __le__(self, other: Money) -> bool:
        return self.amount <= self._same("compare", other).amount

    def __gt__(self, other: Money) -> bool:
        return self.amount > self._same("compare", other).amount

    def __ge__(self, other: Money) -> bool:
        return self.amount >= self._same("compare", other).amount

    def to_contract(self) -> dict[str, Any]:
        """`{"amount", "currency"}` as the JSON contract writes money."""
        return {"amount": self.amount, "currency": self.currency}


# ----------------------------------------------------------------------------------------------------------------
# durations

DurationUnit = Literal["ms", "s", "min", "h", "days"]
UNIT_SECONDS: dict[str, float] = {"s": 1.0, "min": 60.0, "h": 3600.0, "days": 86400.0}
"""Seconds per unit (a day is 86,400 s); milliseconds are multiplied by 1000 instead (`Seconds.to`)."""
DURATION_NAMES: dict[str, dict[str, str]] = {
    "en": {"ms": "ms", "s": "s", "min": "min", "h": "h", "days": "days"},
    "zh": {"ms": "ms", "s": "秒", "min": "分钟", "h": "小时", "days": "天"},
}
"""How `Seconds.text` names each unit in each language of the answers."""


class Seconds(msgspec.Struct, frozen=True):
    """A duration in seconds (a float: a token's latency is a fraction of one).

    ``Seconds(x)`` from seconds, ``Seconds.of(x, "ms")`` from another unit. Arithmetic keeps the unit:
    Seconds ± Seconds and Seconds × number are Seconds; `.ratio(other)` is a plain number. Seconds / number is
    refused: it is the hand conversion `wall_s / 86400` this type replaces (`.days`, `.hours`, `.ms`, `.to(unit)`).
    """

    s: float

    @classmethod
    def of(cls, value: float, unit: DurationUnit = "s") -> Seconds:
        """`value` in `unit` as seconds (38 ms → 0.038 s; 2 days → 172,800 s)."""
        return cls(value / 1000 if unit == "ms" else value * UNIT_SECONDS[unit])

    # --- the conversions (the only ones in the program) ----------------------------------------------------
    def to(self, unit: DurationUnit) -> float:
        """The duration in `unit` (0.038 s → 38.0 in ms; 1,411,200 s → 16.33 in days)."""
        return self.s * 1000 if unit == "ms" else self.s / UNIT_SECONDS[unit]

    @property
    def ms(self) -> float:
        """In milliseconds (s × 1000): a token's latency."""
        return self.s * 1000

    @property
    def hours(self) -> float:
        """In hours (s / 3600)."""
        return self.s / 3600

    @property
    def days(self) -> float:
        """In days of 86,400 s (s / 86400): a training run."""
        return self.s / 86400

    def text(self, unit: DurationUnit = "s", digits: int = 1, *, lang: str = "en", grouped: bool = False) -> str:
        """"38 ms", "2.4 h", "16.3 days" ("16.3 天" in Chinese): the duration in `unit` with `digits` decimals and
        the unit's name (thousands grouped with `grouped`)."""
        value = self.to(unit)
        number = f"{value:,.{digits}f}" if grouped else f"{value:.{digits}f}"
        return f"{number} {DURATION_NAMES.get(lang, DURATION_NAMES['en'])[unit]}"

    def __str__(self) -> str:
        return self.text("s", 3)

    # --- arithmetic: Seconds with Seconds, scaled by plain numbers ------------------------------------------
    def __add__(self, other: Seconds) -> Seconds:
        if type(other) is not Seconds:
            raise _unitless("add", self, other)
        return Seconds(self.s + other.s)

    def __sub__(self, other: Seconds) -> Seconds:
        if type(other) is not Seconds:
            raise _unitless("subtract", self, other)
        return Seconds(self.s - other.s)

    def __radd__(self, other: object) -> Seconds:
        raise _unitless("add", other, self)

    def __rsub__(self, other: object) -> Seconds:
        raise _unitless("subtract", other, self)

    def __mul__(self, factor: float) -> Seconds:
        if isinstance(factor, Seconds) or not isinstance(factor, int | float):
            raise TypeError(f"cannot multiply Seconds by {type(factor).__name__}")
        return Seconds(self.s * factor)

    __rmul__ = __mul__

    # no `/`: `wall_s / 86400` is the hand conversion this type replaces (.days, .hours, .ms, .to(unit)); a share of
    # another duration is .ratio(other). Left undefined, mypy flags it where it is written.

    def ratio(self, other: Seconds) -> float:
        """self / other as a plain number (how many times longer; a share of a step)."""
        if type(other) is not Seconds:
            raise _unitless("divide", self, other)
        return self.s / other.s

    def __neg__(self) -> Seconds:
        return Seconds(-self.s)

    # ordered with Seconds only (a bare number is refused with the fix, not compared as if it were seconds)
    def __lt__(self, other: Seconds) -> bool:
        if type(other) is not Seconds:
            raise _unitless("compare", self, other)
        return self.s < other.s

    def __le__(self, other: Seconds) -> bool:
        if type(other) is not Seconds:
            raise _unitless("compare", self, other)
        return self.s <= other.s

    def __gt__(self, other: Seconds) -> bool:
        if type(other) is not Seconds:
            raise _unitless("compare", self, other)
        return self.s > other.s

    def __ge__(self, other: Seconds) -> bool:
        if type(other) is not Seconds:
            raise _unitless("compare", self, other)
        return self.s >= other.s

    def __bool__(self) -> bool:
        return self.s != 0


SECOND, MINUTE, HOUR, DAY = Seconds(1.0), Seconds(60.0), Seconds(3600.0), Seconds(86400.0)
"""The thresholds the answers choose a unit by (under a second in ms, under a day in hours, …)."""
