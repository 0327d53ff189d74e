"""What the renderers (web panels, exports, the quote, Slack blocks) take as a turn: an
`advisor.conversation.turn.Turn`, or the same fields as JSON (a turn read back from the conversation store, or a
test's dict). They read it with a getter that takes either (`web_messages.get_field`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn

TurnLike: TypeAlias = "Turn | Mapping[str, Any]"
