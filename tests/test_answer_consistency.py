"""One figure per fact on a serving answer's first screen: the table's "speed per user" is the speed the "At N
users" sentence gives (the simulation at the asked load), and a memory-bound "at most N users" is the number the
"what fits" paragraph gives, also for hybrid-attention models whose sliding-window layers hold only their window
(gpt-oss: 18 of 36 layers with a 128-token window, so a 4,096-token sequence needs about half the KV bytes of an
all-global model of the same shape)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.session import Conversation
from advisor.estimator.kv_cache import kv_cache_bytes
from knowledge.catalog import load_catalog

QUESTIONS = [
    ("en", "serve gpt-oss-120b to 40 users on 2 H100s"),
    ("en", "We want 40 people hitting gpt-oss-120b at once on a pair of H100 80GB cards - how does that look?"),
    ("zh", "gpt-oss-120b 给 40 个人同时用，两张 H100 够吗？"),
    ("en", "Serve Qwen2.5-72B to 50 users with 8k context"),
    ("zh", "Llama-3.1-8B 在一张 L40S 上给 20 个用户同时用，速度如何？"),
]


def _num(s: str) -> float:
    return float(s.replace(",", ""))


@pytest.mark.parametrize(("lang", "text"), QUESTIONS)
def test_table_speed_is_the_speed_at_the_asked_load(lang: str, text: str) -> None:
    screen = fs.split_details(Conversation().respond(text).answer)[0]
    at = re.search(r"(\d[\d,.]*) tokens/s per user|每路 (\d[\d,.]*) tokens/s", screen)
    assert at, screen
    said = _num(at.group(1) or at.group(2))
    rows = [r for r in screen.splitlines() if r.startswith("| ") and ("✓" in r or "⛔" in r)]  # ⛔: fits, ruled out by a rule
    assert rows, screen
    first = re.findall(r"\| (\d[\d,.]*) tokens/s \|", rows[0])
    assert first and _num(first[0]) == said, (rows[0], said)


@pytest.mark.parametrize(("lang", "text"), QUESTIONS[:3])
def test_a_memory_bound_user_limit_is_the_number_that_fits(lang: str, text: str) -> None:
    answer = Conversation().respond(text).answer
    limit = re.search(r"at most (\d[\d,]*) concurrent users, as many requests as the KV cache holds|"
                      r"最多 (\d[\d,]*) 路并发（KV 缓存一次放得下的请求数）", answer)
    fits = re.search(r"at \d[\d,]* tokens it holds (\d[\d,]*) concurrent sequences|"
                     r"上下文 \d[\d,]* tokens 时最多 (\d[\d,]*) 路并发", answer)
    assert limit and fits, answer
    assert _num(limit.group(1) or limit.group(2)) == _num(fits.group(1) or fits.group(2))


def test_hybrid_attention_capacity_counts_sliding_layers_at_their_window() -> None:
    """By hand (2 H100s for 40 users run as one TP 2 group: faster per user than two one-GPU copies at this load):
    gpt-oss-120b keeps K and V of 8 KV heads × 64 dims in BF16 per layer and token = 2,048 bytes; at
    TP 2 a GPU holds 4 heads, 1,024 bytes. A 4,096-token sequence: 18 global layers × 4,096 tokens + 18 sliding
    layers × 128 tokens = 76,032 layer-tokens × 1,024 B = 74.25 MiB per GPU (all-global would be 144 MiB).
    The 2× H100 answer's "what fits" therefore holds about (72.0 GiB usable − 35.6 GiB used + 40 sequences'
    2.9 GiB of KV) / 74.25 MiB ≈ 540 sequences, not the ≈ 280 an all-global count gives."""
    m = load_catalog().model("gpt-oss-120b")
    assert kv_cache_bytes(m, 4096, 1, "bf16", 2) == 76_032 * 1024
    answer = Conversation().respond("serve gpt-oss-120b to 40 users on 2 H100s").answer
    fits = re.search(r"at 4096 tokens it holds (\d[\d,]*) concurrent sequences", answer)
    assert fits and 500 <= _num(fits.group(1)) <= 560, answer
