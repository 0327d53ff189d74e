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
from typing import TYPE_CHECKING, Any

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.dialog.turn import respond
from advisor.conversation.reader.llm import llm_read
from advisor.conversation.turn import Fallback, Step, Turn
from knowledge.messages import t
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.conversation.llm.settings import Settings

AGENT_ACTS = ("explain", "other")  # left to the agent's tools (explanations, follow-ups, small talk)


def read_then_answer(conversation: Any, text: str, settings: Settings, *, chat_model: Any = None,
                     model_name: str | None = None) -> Generator[Step | Turn, None, bool]:
    """One structured reading, then the deterministic answer of that request (see the module doc). Returns False
    (nothing yielded) when the act is left to the agent's tool loop."""
    lang = conversation.lang if getattr(conversation, "lang", None) in ("zh", "en") else "en"
    catalog = default_catalog()
    req = llm_read(text, settings, catalog, lang, chat_model=chat_model)
    if req.reader == "llm" and req.act in AGENT_ACTS:
        return False
    fallback = None if req.reader == "llm" else Fallback(reason="reading", detail=req.note[:160])
    note = "" if fallback is None else t("llm.read_unusable", lang, why=_why(req.note))
    for item in respond(conversation.state, text, lang, catalog, reading=req if req.reader == "llm" else None):
        if isinstance(item, Turn):
            if fallback is None:
                item = replace(item, mode="llm", model_name=model_name)
                item.extra["reader"] = "llm"
            else:
                item = replace(item, note=(note + " " + item.note).strip(), fallback=fallback)
                item.extra["reader"] = "offline"
                if isinstance(item.extra.get("request"), dict):
                    item.extra["request"]["note"] = req.note
        yield item
    return True


def _why(note: str) -> str:
    """The short reason inside the reader's note ("model reading unusable (ValueError: …); read offline")."""
    inner = note.split("(", 1)[1].rsplit(")", 1)[0] if "(" in note else note
    return inner.split(":", 1)[0] or "error"


__all__ = ["AGENT_ACTS", "read_then_answer"]
