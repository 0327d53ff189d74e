"""How the tools show numbers to the model (the only place they are formatted): a number with its unit, display
string and source (`num`), and bytes, bandwidth, FLOP/s, tokens/s, seconds, money, counts and ratios in words.
Display strings give GiB and GB side by side (1 GiB = 2^30 B, 1 GB = 1e9 B); memory arrives as
`knowledge.quantities.Bytes` (`mem`) and is written in bytes, the tools' unit; durations arrive as `Seconds` (`dur`)
and are written in seconds, shown in ms, s, min, hours or days through the type's conversions."""

from __future__ import annotations

import math
from typing import Any

from knowledge.quantities import Bytes, Seconds, memory_text


def num(name: str, value: float, unit: str, source: str, display: str | None = None) -> dict[str, Any]:
    """A number with its unit, a display string and where it came from."""
    value = float(value)
    return {"name": name, "value": _round_sig(value), "unit": unit, "display": display or _display(value, unit),
            "source": source}


def mem(name: str, amount: Bytes, source: str) -> dict[str, Any]:
    """An amount of memory as a tool number: in bytes, displayed in GiB and GB."""
    return num(name, amount.n, "bytes", source)


def dur(name: str, amount: Seconds, source: str, display: str | None = None) -> dict[str, Any]:
    """A duration as a tool number: in seconds, displayed in the unit that reads best (`fmt_seconds`)."""
    return num(name, amount.s, "s", source, display)


def _round_sig(x: float, digits: int = 10) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    if abs(x) >= 1e6 and float(x).is_integer():
        return x
    return float(f"{x:.{digits}g}")


def fmt_bytes(b: float | Bytes) -> str:
    """"131.4 GiB (141.1 GB)"; MiB/MB below 1 GiB."""
    n = b.n if isinstance(b, Bytes) else b
    if abs(n) < 2**30:
        return f"{memory_text(n, 'MiB', grouped=True)} ({memory_text(n, 'MB', grouped=True)})"
    return f"{memory_text(n, 'GiB', grouped=True)} ({memory_text(n, 'GB', grouped=True)})"


def fmt_bandwidth(bps: float) -> str:
    return f"{bps / 1e12:,.2f} TB/s" if bps >= 1e12 else f"{bps / 1e9:,.0f} GB/s"


def fmt_flops(f: float) -> str:
    return f"{f / 1e15:,.2f} PFLOPS" if f >= 1e16 else f"{f / 1e12:,.1f} TFLOPS"


def fmt_tokens_s(x: float) -> str:
    return f"{x:,.0f} tokens/s" if x >= 100 else f"{x:,.1f} tokens/s"


def fmt_seconds(duration: float | Seconds) -> str:
    """"38 ms", "1.2 s", "3.5 min", "2.4 hours", "16.3 days": the unit that reads best (a number is seconds)."""
    d = duration if isinstance(duration, Seconds) else Seconds(duration)
    if d.s < 1:
        return d.text("ms", 0 if d.s >= 0.01 else 2, grouped=True)
    if d.s < 120:
        return d.text("s", 1, grouped=True)
    if d.s < 7200:
        return d.text("min", 1, grouped=True)
    if d < Seconds.of(3, "days"):
        return f"{d.hours:,.1f} hours"
    return d.text("days", 1, grouped=True)


def fmt_money(amount: float, currency: str) -> str:
    symbol = "¥" if currency == "CNY" else "$"
    digits = 2 if abs(amount) < 100 else 0
    return f"{symbol}{amount:,.{digits}f} {currency}"


def fmt_count(n: float, unit: str = "") -> str:
    tail = f" {unit}" if unit else ""
    if abs(n) >= 1e9:
        return f"{n / 1e9:,.2f}B{tail}"
    if abs(n) >= 1e6:
        return f"{n / 1e6:,.1f}M{tail}"
    return f"{n:,.0f}{tail}" if float(n).is_integer() else f"{n:,.3g}{tail}"


def fmt_pct(ratio: float) -> str:
    return f"{ratio * 100:.1f}%"


def _display(value: float, unit: str) -> str:
    if unit == "bytes":
        return fmt_bytes(value)
    if unit == "bytes/s":
        return fmt_bandwidth(value)
    if unit == "FLOP/s":
        return fmt_flops(value)
    if unit == "tokens/s":
        return fmt_tokens_s(value)
    if unit == "s":
        return fmt_seconds(value)
    if unit in ("USD", "CNY"):
        return fmt_money(value, unit)
    if unit == "ratio":
        return fmt_pct(value)
    if unit == "W":
        return f"{value:,.0f} W"
    if unit == "GPU-hours":
        return f"{value:,.0f} GPU-hours" if value >= 100 else f"{value:,.3g} GPU-hours"
    return fmt_count(value, unit)
