"""Two-part price questions answer both parts (issue 26): "what does X cost, and a used Y?" prices X and then Y,
used where "used"/"二手" is said before Y's name, from the catalog's dated prices (or says the catalog has none)."""

from __future__ import annotations

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.session import Conversation


def test_the_second_card_is_priced_used_as_asked() -> None:
    turn = Conversation(lang="en").respond("What does an H100 cost, and a used RTX 3090?")
    first = turn.answer.split("\n\n")[0]
    used = default_catalog().gpu("rtx-3090").price("USD", "used")
    assert used is not None and used.kind == "used"
    assert "H100" in first and f"${used.amount:,.0f}" in first and used.date.isoformat() in first, first
    assert first.index("H100") < first.index("RTX 3090")


def test_a_missing_used_price_is_said_not_replaced_by_a_new_one() -> None:
    turn = Conversation(lang="zh").respond("4090 多少钱，二手 3090 呢？")
    first = turn.answer.split("\n\n")[0]
    assert default_catalog().gpu("rtx-3090").price("CNY", "used") is None
    assert "RTX 3090二手：目录里没有二手报价" in first, first
