"""The answers' language asked for in the conversation ("answer in Chinese please", "说英文", reader.lang.lang_asked):
the conversation answers in it from then on (`DialogState.answer_lang`, read by the session), and the job stays the
one answered — the region the last language assumed is kept as said (Chinese answers assume mainland China)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.reader.lang import lang_asked

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState


def switch_language(state: DialogState, text: str, current: str) -> str | None:
    """The language the conversation answers this turn in when `text` asks for one or one was asked before (None:
    the session's own choice); a switch from `current` keeps the region that language assumed for the job."""
    asked = lang_asked(text)
    if asked is not None:
        if asked[0] != current and state.slots.region is None and (state.answered or state.slots.model):
            state.slots.region = "cn" if current == "zh" else "global"  # build_constraints' default for `current`
        state.answer_lang = asked[0]
    return state.answer_lang
