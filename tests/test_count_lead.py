"""The "you need N×" lead of a serving question says how much of the need is the KV cache when it drives the count."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


def test_a_serving_count_says_how_much_of_it_is_the_kv_cache() -> None:
    """GLM-4.5 (92 layers, 8 KV heads of 128, config.json) for 100 users at 16k: 2 × 92 × 8 × 128 × 2 B = 376,832 B
    per token, × 100 × 16,384 tokens = 575.0 GiB over the 32 GPUs (TP 8 splits the heads, PP 4 the layers)."""
    first = Conversation(lang="en").respond(
        "how many H100s to serve GLM-4.5 to 100 concurrent users at 16k context?").answer.split("\n")[0]
    m = re.search(r"You need (\d+)× .*?; ([\d.]+) GiB of it is the KV cache of 100 sequences", first)
    assert m, first
    hand = 2 * 92 * 8 * 128 * 2 * 100 * 16384 / 2**30 / int(m.group(1))
    assert float(m.group(2)) == pytest.approx(hand, rel=0.02)
