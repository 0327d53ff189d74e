"""The LLM reads, the tools answer: one structured-output call reads the message into the typed request, and the
deterministic dialog answers that request (so every number comes from the estimator, the catalog and the renderer).

    answered = yield from read_then_answer(conversation, text, settings, chat_model=None)

Used by the LLM driver when `Settings.reader == "structured"`:

1. `request_llm.llm_read` makes one structured call (JSON-schema constrained where the server supports it) and
   validates the reading like the offline one (catalog ids that exist; an unknown name stays unknown).
2. The reading is laid over the offline reader's slots (`overlay`): what the model read and the catalog confirms
   replaces the offline value; what the model left null keeps the offline value (the schema covers the common
   fields only: claims, exclusions of a vendor, request rates … come from the offline reader). The model's act
   decides the dialog's intent. Disagreements are kept in the request's note.
3. The dialog answers it (`dialog_turn.respond(reading=…)`): same policy, same defaults, same analysis.

An explain question or anything that is not a sizing question (act explain / other) is left to the agent's tool
loop (returns False). A reading that fails (malformed or empty JSON, an HTTP error, a timeout, an invalid act)
is answered from the offline reading with a note saying so (`Turn.fallback.reason == "reading"`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, get_args

from advisor.conversation.reader.request import Request
from advisor.conversation.turn import Fallback, Step, Turn
from advisor.workload import Task, WeightFormat

if TYPE_CHECKING:
    from advisor.conversation.llm.settings import Settings
    from advisor.conversation.reader.slots import Slots

AGENT_ACTS = ("explain", "other")  # left to the agent's tools (explanations, follow-ups, small talk)
INTENT_OF_ACT = {"legality": "market", "rent_vs_buy": "how_much", "capability": "capabilities"}
_TASKS = frozenset(get_args(Task))
_WEIGHTS = frozenset(get_args(WeightFormat))
_NOTE = {
    "en": "The model's reading of the question was unusable ({why}); this answer reads it offline.",
    "zh": "语言模型对问题的解读不可用（{why}），以下按离线解析作答。",
}


def intent_of(act: str) -> str:
    """The dialog's intent for a request's act (the acts the dialog does not name map onto its nearest intent)."""
    return INTENT_OF_ACT.get(act, act)


def overlay(slots: Slots, req: Request) -> list[str]:
    """Lay the model's validated reading over the offline `slots` (mutated); returns the fields where the two
    readers disagreed ("context: model 8000, offline 8192"), the model's value kept."""
    from advisor.conversation.reader.slots import GpuMention

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
    for value in req.job:
        v = value.value
        if value.name == "task" and v in _TASKS:
            put("task", v)
            slots.task_generic = None
        elif value.name == "weights" and isinstance(v, str) and v.lower() in _WEIGHTS:
            put("weights", v.lower())
        elif value.name in ("context", "concurrency") and isinstance(v, int | float) and 0 < v <= 10_000_000:
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


def read_then_answer(conversation: Any, text: str, settings: Settings, *, chat_model: Any = None,
                     model_name: str | None = None) -> Generator[Step | Turn, None, bool]:
    """One structured reading, then the deterministic answer of that request (see the module doc). Returns False
    (nothing yielded) when the act is left to the agent's tool loop."""
    from advisor.conversation.dialog.machine import default_catalog
    from advisor.conversation.dialog.turn import respond
    from advisor.conversation.reader.llm import llm_read

    lang = conversation.lang if getattr(conversation, "lang", None) in ("zh", "en") else "en"
    catalog = default_catalog()
    req = llm_read(text, settings, catalog, lang, chat_model=chat_model)
    if req.reader == "llm" and req.act in AGENT_ACTS:
        return False
    fallback = None if req.reader == "llm" else Fallback(reason="reading", detail=req.note[:160])
    note = "" if fallback is None else _NOTE[lang].format(why=_why(req.note))
    for item in respond(conversation.state, text, lang, catalog, reading=req if req.reader == "llm" else None):
        if isinstance(item, Turn):
            if fallback is None:
                item = item.model_copy(update={"mode": "llm", "model_name": model_name})
                item.extra["reader"] = "llm"
            else:
                item = item.model_copy(update={"note": (note + " " + item.note).strip(), "fallback": fallback})
                item.extra["reader"] = "offline"
                if isinstance(item.extra.get("request"), dict):
                    item.extra["request"]["note"] = req.note
        yield item
    return True


def _why(note: str) -> str:
    """The short reason inside the reader's note ("model reading unusable (ValueError: …); read offline")."""
    inner = note.split("(", 1)[1].rsplit(")", 1)[0] if "(" in note else note
    return inner.split(":", 1)[0] or "error"


__all__ = ["AGENT_ACTS", "INTENT_OF_ACT", "intent_of", "overlay", "read_then_answer"]
