"""What a turn's words mean beyond its slots, shared by the dialog (dialog_turn) and the offline reader (request):
the intent read before any injection attempt, an explain follow-up that keeps the job, and references to the
previous answer ("that setup") or to one card."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.reader.constraints import cut_at_injection
from advisor.conversation.reader.extract import INJECTION, GpuMention, Slots
from advisor.conversation.reader.intent import classify

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState


def keep_job(slots: Slots) -> None:
    """An explain follow-up asks about the answer; the amounts in its words ("each extra user", "一个用户") are not a
    new job: they are dropped so the merge keeps the conversation's job."""
    for name in ("concurrency", "concurrency_avg", "context", "gpu_count", "qps", "batch", "prompt_tokens",
                 "output_tokens"):
        setattr(slots, name, None)


def read_intent(text: str, slots: Slots, state: DialogState) -> str:
    """The question's intent, read from what precedes any injection attempt."""
    low = (text or "").lower()
    hit = INJECTION.search(low)
    return classify(cut_at_injection(low, hit.start() if hit else None), slots, follow_up=state.answered > 0)


def read_references(state: DialogState, slots: Slots, intent: str) -> None:
    """What a turn means beyond its slots: "that setup / 这个配置" pins the previous answer's configuration; a
    feasibility question about one card named without a count is about one card ("can the 4060 Ti do 32k?")."""
    named = bool(slots.candidates or slots.existing)
    last = state.last_workload or {}
    if slots.refers_previous and not named and last.get("top_gpu"):
        slots.candidates = [GpuMention(gpu=last["top_gpu"], count=int(last.get("top_count") or 1),
                                       text="previous answer")]
    elif (intent == "feasibility" and len(slots.candidates) == 1 and slots.candidates[0].count is None
          and slots.gpu_count is None and slots.existing is None):
        slots.candidates[0].count = 1
    elif intent == "feasibility" and slots.existing is not None and slots.existing.count is None and slots.gpu_count is None:
        slots.existing.count = 1
