"""What the renderers (web panels, exports, the quote, Slack blocks) take as a turn: an
`advisor.conversation.turn.Turn`, or the same fields as JSON (a turn read back from the conversation store, or a
test's dict). They read it with the getter that takes either (`get_field`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn

TurnLike: TypeAlias = "Turn | Mapping[str, Any]"


def get_field(obj: object, name: str, default: Any = None) -> Any:
    """Attribute or key `name` of a struct (a Turn, a Step) or a dict."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)
