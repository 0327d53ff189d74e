"""Amounts said as a factor of the last one ("what if we double the tokens?", "并发翻倍呢", "half the context", "and
with 2x the GPUs?", "预算翻倍呢"), turned into the slot's new value: the factor (`Slots.scales`, read by
reader.factors) times the value the last turn used — the one said, else the one the last answer was computed with
(its stated default: 100 M training tokens, one user, the model's context). `dialog.machine.merge` applies them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import Change, DialogState
    from advisor.conversation.reader.slots import Slots

# what a factor applies to → the slots that may hold the last value: the first one said is scaled ("double the users"
# after "a team of 300" doubles the team; after "10 QPS", the rate)
TARGETS: dict[str, tuple[str, ...]] = {
    "users": ("concurrency", "headcount", "qps", "tokens_per_day", "job_requests"),
    "requests": ("qps", "job_requests", "concurrency", "headcount", "tokens_per_day"),
    "tokens": ("train_tokens", "samples", "tokens_per_day"),
    "context": ("context",),
    "budget": ("budget",),
    "epochs": ("epochs",),
}
# none said: the value the last answer was computed with (`DialogState.last_workload`, kept by render.compose)
_USED = {"users": "concurrency", "requests": "concurrency", "tokens": "train_tokens", "context": "context"}
_WHOLE = {"concurrency", "headcount", "context", "epochs", "job_requests"}  # counted in whole units


def resolve(state: DialogState, new: Slots) -> dict[str, tuple[Any, float]]:
    """Set on `new` the value each factor it says gives (an amount said beside it wins: "double the context to 64k");
    returns slot → (the last value, the factor) for the changes the answer reports (`mark`)."""
    old = state.slots
    scaled: dict[str, tuple[Any, float]] = {}
    for what, factor in new.scales.items():
        if what == "gpus":
            _scale_gpus(state, new, factor)
            continue
        slot = next((name for name in TARGETS.get(what, ()) if getattr(old, name)), None)
        base = getattr(old, slot) if slot else None
        if slot is None and what in _USED:
            slot = _USED[what]
            base = state.last_workload.get(slot)
        elif slot is None and what == "epochs" and old.train_tokens:  # "double the epochs" after one pass
            slot, base = "epochs", 1
        if slot is None or not base or getattr(new, slot) is not None:
            continue
        value = base * factor
        setattr(new, slot, max(1, round(value)) if slot in _WHOLE else value)
        scaled[slot] = (base, factor)
        _keep_with(old, new, slot, factor)
    return scaled


def _keep_with(old: Slots, new: Slots, slot: str, factor: float) -> None:
    """What a new value of `slot` would reset in the merge, kept as it was: a budget stays for the cards or the
    machine, once or a month; an average load scales with its peak; the epochs a total was said with stay said."""
    if slot == "budget":
        new.budget_gpus, new.budget_monthly = old.budget_gpus, old.budget_monthly
    elif slot == "concurrency" and old.concurrency_avg:
        new.concurrency_avg = max(1, round(old.concurrency_avg * factor))
    elif slot == "train_tokens" and new.epochs is None:
        new.epochs = old.epochs


def _scale_gpus(state: DialogState, new: Slots, factor: float) -> None:
    """"and with 2x the GPUs?": the last count (the cards named, else the last answer's lead) times the factor."""
    old = state.slots
    if new.gpu_count is not None or new.candidates or new.existing is not None:
        return
    last = ((old.existing.count if old.existing else None)
            or next((c.count for c in old.candidates if c.count), None) or state.last_workload.get("top_count"))
    if last:
        new.gpu_count = max(1, round(int(last) * factor))


def mark(changes: list[Change], scaled: dict[str, tuple[Any, float]]) -> list[Change]:
    """The changes with the factor said beside each value it set, from the last value ("training tokens 300 B → 600 B
    (×2)"), also where that value was the last answer's default rather than one said."""
    return [replace(ch, old=ch.old if ch.old is not None else scaled[ch.slot][0], factor=scaled[ch.slot][1])
            if ch.slot in scaled else ch for ch in changes]
