"""The LLM reader's request laid over the offline reader's slots: what the model read and the catalog confirms
replaces the offline value, what it left out keeps the offline value; and the dialog's intent for a request's act.
Used by the dialog's turn and by the LLM driver (advisor.conversation.llm.read_then_answer)."""

from __future__ import annotations

from typing import Any, get_args

from advisor.conversation.reader.request import Request
from advisor.conversation.reader.slots import GpuMention, Slots
from advisor.workload import MAX_CONTEXT, Task, WeightFormat

INTENT_OF_ACT = {"legality": "market", "rent_vs_buy": "how_much", "capability": "capabilities"}
_TASKS = frozenset(get_args(Task))
_WEIGHTS = frozenset(get_args(WeightFormat))


def intent_of(act: str) -> str:
    """The dialog's intent for a request's act (the acts the dialog does not name map onto its nearest intent)."""
    return INTENT_OF_ACT.get(act, act)


def overlay(slots: Slots, req: Request) -> list[str]:
    """Lay the model's validated reading over the offline `slots` (mutated); returns the fields where the two
    readers disagreed ("context: model 8000, offline 8192"), the model's value kept."""
    diffs: list[str] = []

    def put(name: str, value: Any) -> None:
        before = getattr(slots, name)
        if before is not None and before != value:
            diffs.append(f"{name}: model {value}, offline {before}")
        setattr(slots, name, value)

    model = next((s for s in req.subjects if s.kind == "model"), None)
    if model is not None and model.known and model.id:
        put("model", model.id)
        slots.model_text, slots.model_assumed, slots.size_params, slots.unknown_model = model.text, "", None, None
    elif model is not None and slots.model is None and slots.size_params is None:
        slots.unknown_model = model.text  # a name neither reader finds in the catalog: said to be unknown
    known = [h for h in req.hardware if h.known and h.gpu]
    if known:
        owned = next((h for h in known if h.role == "owned"), None)
        slots.existing = GpuMention(gpu=owned.gpu or "", count=owned.count, text=owned.text) if owned else None
        slots.candidates = [GpuMention(gpu=h.gpu or "", count=h.count, text=h.text) for h in known
                            if h.role in ("candidate", "compared")]
        slots.excluded = list(dict.fromkeys([*slots.excluded, *(h.gpu or "" for h in known if h.role == "excluded")]))
        slots.candidates = [c for c in slots.candidates if c.gpu not in slots.excluded]
    slots.unknown_gpus = list(dict.fromkeys([*slots.unknown_gpus, *(h.text for h in req.hardware if not h.known)]))
    said_users = any(v.name == "concurrency" for v in req.job)
    for value in req.job:
        v = value.value
        if value.name == "task" and v in _TASKS:
            put("task", v)
            slots.task_generic = None
        elif value.name == "weights" and isinstance(v, str) and v.lower() in _WEIGHTS:
            put("weights", v.lower())
        elif (value.name == "concurrency" and slots.concurrency is None and slots.headcount is not None
              and v == slots.headcount):
            continue  # "给 50 个人用": the offline reader read people who use it, not 50 at once
        elif value.name == "headcount" and isinstance(v, int | float) and 0 < v <= 10_000_000:
            put("headcount", int(v))  # people who use the service: the dialog sizes 10 % of them at once
            if not said_users and slots.concurrency == int(v):
                slots.concurrency = None  # the offline reader took those people for requests at once
        elif value.name in ("context", "concurrency") and isinstance(v, int | float) and 0 < v <= MAX_CONTEXT:
            put(value.name, int(v))
        elif value.name == "train_tokens" and isinstance(v, int | float) and v > 0:
            put("train_tokens", float(v))
    for value in req.limits:
        if value.name == "budget" and isinstance(value.value, int | float) and value.value > 0:
            put("budget", float(value.value))
            if value.unit in ("CNY", "USD"):
                slots.currency = value.unit
        elif value.name == "region" and value.value in ("cn", "global"):
            put("region", value.value)
    return diffs
