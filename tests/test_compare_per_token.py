""""Which is cheaper per token, A or B?" compares the owned cost per million output tokens (the TCO over the tokens
each configuration generates at the asked load), not the purchase price, in both languages.

Loose independent anchor: hosted Llama 3.1 70B was sold at about $0.88 per million tokens (Together AI's 2024 list
price), so an owned 70B deployment at full load costs the same order of magnitude: between $0.1 and $5."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize("text", [
    "Which is cheaper per token, H100 or MI300X, for Llama 3.1 70B at 64 users?",
    "For Llama 3.1 70B at 64 users, H100 or MI300X: which has the lower cost per million tokens?",
    "Llama 3.1 70B 64 并发，H100 和 MI300X 哪个每百万 token 成本更低？",
])
def test_per_token_cost_decides_a_per_token_comparison(text: str) -> None:
    first = Conversation().respond(text).answer.splitlines()[0]
    m = re.search(r"costs less per token\*\*: \$([\d.]+) per million output tokens against \$([\d.]+)|"
                  r"每 token 成本更低\*\*：每百万输出 token ¥([\d.]+)，.+? 为 ¥([\d.]+)", first)
    assert m, first
    x, y = (float(v) for v in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    assert x <= y
    if m.group(1):
        assert 0.1 <= x <= 5.0, first


def test_cheaper_without_per_token_is_still_the_purchase() -> None:
    first = Conversation().respond("H100 or MI300X for Llama 3.1 70B at 64 users, which is cheaper?").answer
    assert "to buy against" in first.splitlines()[0]
