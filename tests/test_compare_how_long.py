"""A comparison of training configurations asked "how long each?" answers with the times, the faster first."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("lang", "question", "first"), [
    ("en", "Pretrain a 7B model on 100B tokens: 64x Ascend 910B vs 64x H100, how long each?", "64× NVIDIA H100"),
    ("en", "8x RTX 4090 or 8x A100 80GB for a full fine-tune of Llama 3.1 8B on 1B tokens - how long would each take?",
     "8× NVIDIA A100"),
    ("zh", "8 张 4090 和 8 张 A100 全参微调 Llama 3.1 8B，10 亿 token，各要多久？", "8× NVIDIA A100"),
])
def test_how_long_each_is_answered_with_the_times(lang: str, question: str, first: str) -> None:
    """"How long each?" of two training configurations: the times lead (the faster first), not which costs least."""
    head = Conversation(driver="deterministic", lang=lang).respond(question).answer.split("\n", 1)[0]
    assert first in head.split("，")[0].split(",")[0] and ("day" in head or "hour" in head or "天" in head
                                                            or "小时" in head), head
    assert "costs least" not in head and "最便宜" not in head
