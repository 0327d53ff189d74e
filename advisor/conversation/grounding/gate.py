"""The grounding gate: every number in a model's answer must come from this turn's tool results.

`grounding_mentions.extract(text)` finds the quantities a reader would take as claims, each with its readings
in SI units (`Candidate`). `Pool` holds the values of the tool results: numeric fields typed by their key
(`*_bytes` → bytes, `*tokens_per_s` → tokens/s, `amount` + `currency` → money …) and the numbers inside their
strings. `check(answer, pool)` passes when every quantity has a reading that matches a pool value of the same
dimension within the printed precision (half a unit in the last printed digit; 1 % when the answer marks it
as approximate: "≈", "约", "about").
Source of the pattern: OWASP LLM09 "validate key outputs automatically" (reference/reliability.md A6).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec

from advisor.conversation.grounding.mentions import MONTH_S, YEAR_S, Candidate, Mention, extract, normalise
from knowledge.quantities import GIB, UNIT_BYTES, in_unit
from knowledge.structs import Value

# dimensions: bytes, B/s, flop/s, tokens/s, s, W, kWh, ratio, USD, CNY, money (currency unknown),
# gpus, nodes (strict counts), count (anything else dimensionless), any (a bare number)
STRICT_COUNTS = frozenset({"gpus", "nodes"})


class Entry(Value):
    dim: str
    value: float
    ref: Mapping[str, Any] | None = None  # the tool's Number-like dict, when the value came from one


class Report(msgspec.Struct):
    ok: bool
    ungrounded: list[Mention] = msgspec.field(default_factory=list)
    matched: list[tuple[Mention, Entry]] = msgspec.field(default_factory=list)

    @property
    def refs(self) -> list[Mapping[str, Any]]:
        """The tool numbers the answer used, in order of first use, without repeats."""
        seen: set[int] = set()
        out = []
        for _, entry in self.matched:
            if entry.ref is not None and id(entry.ref) not in seen:
                seen.add(id(entry.ref))
                out.append(entry.ref)
        return out


# --------------------------------------------------------------------------------------------------------------
# Tool results → pool
# --------------------------------------------------------------------------------------------------------------

_KEY_RULES: list[tuple[re.Pattern[str], str, float]] = [
    (re.compile(r"bytes_per_s$|bandwidth"), "B/s", 1.0),
    (re.compile(r"tokens_per_s|tok_per_s|tokens_s$"), "tokens/s", 1.0),
    (re.compile(r"(?:^|_)(?:flops|ops)$|_flops|_ops$"), "flop/s", 1.0),
    (re.compile(r"bytes$|(?:^|_)bytes_|memory$|_mem$"), "bytes", 1.0),
    (re.compile(r"kwh"), "kWh", 1.0),
    (re.compile(r"(?:^|_)(?:w|watts|tdp|power)$|_w$"), "W", 1.0),
    (re.compile(r"gpu_hours|(?:^|_)hours$|_h$"), "s", 3600.0),
    (re.compile(r"(?:^|_)days$"), "s", 86400.0),
    (re.compile(r"(?:^|_)(?:years|lifetime_years)$"), "s", YEAR_S),
    (re.compile(r"(?:^|_)months$"), "s", MONTH_S),
    (re.compile(r"_ms$|(?:^|_)ms_"), "s", 1e-3),
    (re.compile(r"(?:^|_)s$|_seconds$|seconds$|_s_|deadline|latency|ttft"), "s", 1.0),
    (re.compile(r"usd"), "USD", 1.0),
    (re.compile(r"cny|rmb"), "CNY", 1.0),
    (re.compile(r"amount|price|cost|budget|capex|opex|tco|spend|savings"), "money", 1.0),
    (re.compile(r"mfu|efficiency|fraction|utili[sz]ation|ratio|share|pue|headroom_pct|_pct$|percent"), "ratio", 1.0),
    (re.compile(r"(?:^|_)(?:count|gpus|gpu_count|n_gpus|num_gpus|world_size|cards|tp|pp|dp|gpus_per_node)$"), "gpus", 1.0),
    (re.compile(r"(?:^|_)(?:nodes|servers|num_nodes)$"), "nodes", 1.0),
]

# display units a bare number in the answer may be printed in, per dimension
_DISPLAY = {
    "bytes": (1.0, 1e3, 1e6, 1e9, 1e12, 2**20, 2**30, 2**40),
    "B/s": (1e9, 1e12, 2**30, 1e6),
    "flop/s": (1e12, 1e15, 1e9, 1.0),
    "tokens/s": (1.0, 1e3),
    "s": (1.0, 1e-3, 60.0, 3600.0, 86400.0, 7 * 86400.0, MONTH_S, YEAR_S),
    "W": (1.0, 1e3),
    "kWh": (1.0, 1e3),
    "ratio": (1.0, 0.01),
    "USD": (1.0, 1e3, 1e6),
    "CNY": (1.0, 1e3, 1e4, 1e6, 1e8),
    "money": (1.0, 1e3, 1e4, 1e6, 1e8),
    "gpus": (1.0,),
    "nodes": (1.0,),
    "count": (1.0, 1e3, 1e6, 1e9, 1e12, 1e4, 1e8, 1024.0),
}

_COMPATIBLE = {
    "USD": ("USD", "money"),
    "CNY": ("CNY", "money"),
    "money": ("USD", "CNY", "money"),
    "ratio": ("ratio", "count"),
    "count": ("count", "gpus", "nodes"),
}

# units the tools write in their Number dicts
UNIT_DIMS: dict[str, tuple[str, float]] = {
    "bytes": ("bytes", 1.0), "b": ("bytes", 1.0), "bytes/s": ("B/s", 1.0), "b/s": ("B/s", 1.0),
    "flop/s": ("flop/s", 1.0), "op/s": ("flop/s", 1.0), "tokens/s": ("tokens/s", 1.0), "s": ("s", 1.0),
    "w": ("W", 1.0), "kwh": ("kWh", 1.0), "usd": ("USD", 1.0), "cny": ("CNY", 1.0), "ratio": ("ratio", 1.0),
    "%": ("ratio", 0.01), "gpu-hours": ("s", 3600.0), "hours": ("s", 3600.0), "params": ("count", 1.0),
    "tokens": ("count", 1.0), "sequences": ("count", 1.0), "flop": ("count", 1.0), "gpus": ("gpus", 1.0),
    "nodes": ("nodes", 1.0), "cny/usd": ("count", 1.0),
}

_RAW_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def dim_of_key(key: str, siblings: Mapping[str, Any] | None = None) -> tuple[str, float]:
    """Dimension and SI factor of a numeric field, from its name (and a sibling `currency`/`unit`)."""
    k = key.lower()
    if siblings:
        unit = str(siblings.get("unit", "")).strip()
        if unit and k in ("value", "amount", "min", "max"):
            if unit.lower() in UNIT_DIMS:
                return UNIT_DIMS[unit.lower()]
            found = extract(f"1 {unit}")
            if found and found[0].candidates and found[0].candidates[0].dim != "any":
                c = found[0].candidates[0]
                return c.dim, c.factor
        currency = siblings.get("currency")
        if currency in ("USD", "CNY") and re.search(r"amount|price|cost|budget|capex|opex|tco|value|total|per_", k):
            return str(currency), 1.0
    for pattern, dim, factor in _KEY_RULES:
        if pattern.search(k):
            return dim, factor
    return "count", 1.0


class Pool:
    """The values this turn's tool results hold, by dimension (SI units)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, dim: str, value: float, ref: Mapping[str, Any] | None = None) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return
        self.entries.append(Entry(dim, float(value), ref))
        if dim == "bytes" and value >= GIB and float(value) % GIB == 0:
            # a capacity of exactly N GiB is sold as "N GB" (H100 80GB = 80 GiB): accept the nominal figure
            self.entries.append(Entry(dim, in_unit(float(value), "GiB") * UNIT_BYTES["GB"], ref))

    def add_text(self, text: str) -> None:
        """Numbers inside a tool's strings: with their units, and every digit run as a bare count."""
        for mention in extract(text):
            for c in mention.candidates:
                self.add("count" if c.dim == "any" else c.dim, c.value)
        for m in _RAW_NUMBER.finditer(normalise(text)):
            self.add("count", float(m.group(0)))

    def add_result(self, data: Any) -> None:
        """Walk a tool result (dicts, lists, numbers, strings)."""
        self._walk(data, "", None, False)

    def _walk(self, node: Any, key: str, parent: Mapping[str, Any] | None, in_bytes: bool) -> None:
        if isinstance(node, Mapping):
            ref = node if {"value", "unit"} <= set(node) and isinstance(node.get("value"), (int, float)) else None
            bytes_ctx = in_bytes or key.lower().endswith("bytes")
            for k, v in node.items():
                if ref is not None and k == "value":
                    dim, factor = dim_of_key("value", node)
                    if dim == "count" and str(node.get("unit", "")).strip().lower() in ("b", "byte", "bytes"):
                        dim = "bytes"
                    self.add(dim, v * factor, ref)
                    continue
                self._walk(v, str(k), node, bytes_ctx)
        elif isinstance(node, (list, tuple)):
            for v in node:
                self._walk(v, key, parent, in_bytes)
        elif isinstance(node, bool) or node is None:
            return
        elif isinstance(node, (int, float)):
            if in_bytes and not key.lower().endswith(("_per_s", "params", "tokens")):
                self.add("bytes", node)
                return
            dim, factor = dim_of_key(key, parent)
            self.add(dim, node * factor)
            if dim in STRICT_COUNTS:
                self.add("count", node)
        elif isinstance(node, str):
            self.add_text(node)

    @classmethod
    def of(cls, results: Iterable[Any] = (), texts: Iterable[str] = ()) -> Pool:
        pool = cls()
        for r in results:
            pool.add_result(r)
        for t in texts:
            pool.add_text(t)
        return pool

    # --- matching --------------------------------------------------------------------------------------------
    def match(self, mention: Mention) -> Entry | None:
        """The pool entry `mention` matches (entries that carry a tool Number first), or None."""
        ordered = [e for e in self.entries if e.ref is not None] + [e for e in self.entries if e.ref is None]
        for c in mention.candidates:
            tol_printed = 0.5 * 10.0 ** (-mention.decimals) * 1.0000001
            if c.dim == "any":
                for e in ordered:
                    for unit in _DISPLAY.get(e.dim, (1.0,)):
                        shown = e.value / unit
                        tol = max(tol_printed, 0.01 * abs(shown) if mention.approx else 0.0)
                        if abs(shown - c.value) <= tol:
                            return e
                continue
            dims = _COMPATIBLE.get(c.dim, (c.dim,))
            for e in ordered:
                if e.dim not in dims:
                    continue
                tol = tol_printed * c.factor
                if mention.approx:
                    tol = max(tol, 0.01 * abs(e.value))
                if abs(e.value - c.value) <= tol + 1e-12 * abs(e.value):
                    return e
        return None


def check(answer: str, pool: Pool) -> Report:
    """Every quantity in `answer` must match the pool (see module docstring)."""
    report = Report(ok=True)
    for mention in extract(answer):
        entry = pool.match(mention)
        if entry is None:
            report.ungrounded.append(mention)
        else:
            report.matched.append((mention, entry))
    report.ok = not report.ungrounded
    return report


__all__ = ["GIB", "MONTH_S", "STRICT_COUNTS", "UNIT_DIMS", "YEAR_S", "Candidate", "Entry", "Mention", "Pool", "Report",
           "check", "dim_of_key", "extract"]
