"""Numbers read from a chat message that are outside what the advisor can size, and the reply that says so.

The extractor records such a number (`OutOfRange`: which slot, the value as read, the accepted range) instead
of dropping it, and the dialog answers with `reply(items, lang)`: what was understood, why it is out of range,
and the limit — never a silent default in its place. The limits are the Workload's own field bounds, except
the context's lower end (16 tokens), below which a number next to "context" is not read as a context; the
budget's are the Constraints' (a budget is > 0 and at most 10^12 in its currency).
"""

from __future__ import annotations

import math
import sys

from advisor.workload import Constraints, Workload, field_bounds
from knowledge.messages import t
from knowledge.schemas import MAX_CLUSTER_GPUS
from knowledge.structs import Frozen

MIN_CONTEXT = 16  # tokens; a smaller number beside "context" is not a context length
MAX_GPU_COUNT = MAX_CLUSTER_GPUS  # GPUs: the largest training clusters reported (100k–200k) are read; beyond, not a count

# the slots said back with a label of their own (the catalog's "range.label.<slot>") and their unit, the same in both
# languages; another slot is named as it is
_UNITS = {"concurrency": "", "context": " tokens", "train_tokens": " tokens", "prompt_tokens": " tokens",
          "output_tokens": " tokens", "budget": "", "electricity": "/kWh", "gpu_count": ""}


class OutOfRange(Frozen):
    """One number the user gave for `slot` that lies outside [lo, hi]."""

    slot: str
    value: float  # as read; a number past the float range (1e400) is stored as the largest float (JSON-safe)
    lo: float
    hi: float


def limits(slot: str) -> tuple[float, float]:
    """The accepted range of a chat slot: the Workload field's bounds (context: from MIN_CONTEXT)."""
    lo, hi, _, _ = field_bounds(Constraints if slot == "budget" else Workload, slot)
    if slot == "context":
        lo = MIN_CONTEXT
    return (-math.inf if lo is None else float(lo)), (math.inf if hi is None else float(hi))  # no bound: open


def check(slot: str, value: float | None) -> OutOfRange | None:
    """None when `value` is within the slot's range (or absent), else the OutOfRange to report."""
    if value is None:
        return None
    lo, hi = limits(slot)
    if math.isfinite(value) and lo <= value <= hi:
        return None
    return OutOfRange(slot=slot, value=value if math.isfinite(value) else sys.float_info.max, lo=lo, hi=hi)


def _num(x: float) -> str:
    if not math.isfinite(x) or x >= sys.float_info.max:
        return "∞"
    return f"{int(x):,}" if x.is_integer() and abs(x) < 1e16 else f"{x:.3g}"


def reply(items: list[OutOfRange], lang: str) -> str:
    """One sentence per number: what was read, that it is out of range, and the accepted range."""
    lines = []
    for it in items:
        label = t(f"range.label.{it.slot}", lang) if it.slot in _UNITS else it.slot
        side = t("range.above" if it.value > it.hi else "range.below", lang)
        lines.append(t("range.reply", lang, label=label, value=_num(it.value), unit=_UNITS.get(it.slot, ""), side=side,
                       lo=_num(it.lo), hi=_num(it.hi)))
    return "\n\n".join(lines)
