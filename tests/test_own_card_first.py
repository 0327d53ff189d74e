""""Can I run X on my <card>?" leads with what runs on the user's own card, then what to buy (issue 27).

Hand arithmetic (Meta's published sizes; GeForce RTX 4090 = 24 GiB, an engine using 90 % = 21.6 GiB):
Llama-3.1-70B in BF16 is 70.6e9 × 2 B = 131.5 GiB of weights alone, far over 21.6 GiB, so "No". Llama-3.1-8B in
BF16 is 8.03e9 × 2 B = 14.96 GiB of weights plus its KV cache at 4096 tokens, 32 layers × 2 × 8 KV heads × 128 ×
2 B × 4096 = 0.5 GiB, so between 15.4 GiB and the 21.6 GiB usable: the smaller model of the family fits as asked.
"""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation

GIB = 2**30
WEIGHTS_8B = 8.03e9 * 2 / GIB
KV_8B = 32 * 2 * 8 * 128 * 2 * 4096 / GIB
USABLE_4090 = 24 * 0.9


def _first_block(text: str) -> str:
    return text.split("\n\n")[0]


@pytest.mark.parametrize(("text", "lang"), [("Can I run Llama-3.1-70B on my 4090?", "en"),
                                            ("我的 4090 能跑 Llama-3.1-70B 吗？", "zh")])
def test_own_card_leads_with_what_runs_on_it_then_the_purchase(text: str, lang: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    head = _first_block(turn.answer)
    assert head.startswith("**No**" if lang == "en" else "**不够**")
    offload = head.find("layer offload" if lang == "en" else "按层卸载")
    smaller = head.find("Llama-3.1-8B")
    buy = head.find("you would buy" if lang == "en" else "得另买")
    assert 0 < offload < smaller < buy, head
    need = re.search(r"Llama-3\.1-8B.*?(\d+\.\d) GiB", head)
    assert need is not None
    assert WEIGHTS_8B + KV_8B - 0.05 <= float(need.group(1)) <= USABLE_4090, head
    # the compact table: the own card, then the same card with offload, then the purchase
    rows = [r for r in turn.answer.split("\n") if r.startswith("| 1×") or r.startswith("| 2×") or r.startswith("| 4×")
            or r.startswith("| 8×")]
    assert rows[0].startswith("| 1× GeForce RTX 4090 |") and ("offload" in rows[1] or "卸载" in rows[1]), rows


def test_a_card_not_owned_keeps_the_purchase_first() -> None:
    head = _first_block(Conversation(lang="en").respond("Can I run Llama-3.1-70B on a 4090?").answer)
    assert "fits it" in head and head.find("fits it") < head.find("layer offload")
    assert "you would buy" not in head and "Llama-3.1-8B" not in head


def test_a_larger_sibling_at_4_bit_is_named_when_it_fits_the_own_card() -> None:
    """RTX 3060 12 GB and Qwen2.5-32B: as asked (BF16) only Qwen2.5-3B fits (7B: 7.6e9 × 2 B = 14.2 GiB > 10.8);
    as a 4-bit GGUF Qwen2.5-14B does: 14.77e9 weights × ≥ 4.5 bits = ≥ 7.7 GiB plus a 4096-token KV cache of
    48 layers × 2 × 8 KV heads × 128 × 2 B × 4096 = 0.75 GiB, under the card's 12 GiB; Qwen2.5-32B at 4.5 bits
    alone is 17 GiB, so 14B is the largest."""
    head = _first_block(Conversation(lang="en").respond("I have one 3060, can it run Qwen2.5-32B?").answer)
    m = re.search(r"Qwen2\.5-14B at GGUF Q4_K_M needs (\d+\.\d) GiB", head)
    assert m is not None, head
    assert 14.77e9 * 4.5 / 8 / GIB + 48 * 2 * 8 * 128 * 2 * 4096 / GIB <= float(m.group(1)) <= 12.0
    assert "Qwen2.5-3B at BF16" in head and "CodeLlama" not in head
