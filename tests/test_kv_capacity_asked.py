""""What's the KV cache capacity in tokens on 2× H100?": the pool one copy of the model holds on the configuration
(as vLLM and SGLang reserve it at start-up, else the memory estimate's headroom), first, with the requests of the
context it holds at once; and "where does throughput stop growing?" is the full-load answer."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer, number


@pytest.mark.parametrize("text", [
    "What's the KV cache capacity in tokens for Llama-3.1-70B FP8 on 2x H100?",
    "How many tokens fit in the KV cache on one H100 for Llama-3.1-8B?",
    "Llama-3.1-8B 在 4090 上 KV 缓存能放多少 token？",
    "Qwen2.5-72B 四张 L40S 的 KV 缓存容量",
])
def test_the_pool_is_asked(text: str) -> None:
    assert asks("kv_capacity", text) and not asks("kv_token", text)


@pytest.mark.parametrize("text", ["How much KV cache per token does Llama-3.1-8B use?", "KV cache for 32k context?"])
def test_a_per_token_or_context_question_is_not_the_pool(text: str) -> None:
    assert not asks("kv_capacity", text)


def test_the_pool_is_the_tokens_per_gpu_times_the_bytes() -> None:
    """Llama-3.1-70B FP8 on 2× H100 under vLLM: its 80 layers × 8 KV heads × 128 × K and V × 2 bytes = 320 KiB a
    token, 160 KiB on each GPU of TP 2; the pool in GiB over that is the token count (as vLLM logs it)."""
    first = answer("What's the KV cache capacity in tokens for Llama-3.1-70B FP8 on 2x H100?").split("\n")[0]
    tokens = number(r"holds about ([\d,]+) tokens of KV cache", first)
    gib = number(r"([\d.]+) GiB per GPU for it", first)
    assert number(r"([\d.]+) KiB per token on each GPU", first) == 160
    assert tokens == pytest.approx(gib * 2**30 / (160 * 2**10), rel=0.01)
    assert number(r"that is (\d+) requests of 4096 tokens", first) == tokens // 4096
    assert "vLLM" in first


def test_a_smaller_card_holds_fewer_tokens() -> None:
    big = number(r"holds about ([\d,]+) tokens", answer("How many tokens fit in the KV cache on one H100 for "
                                                         "Llama-3.1-8B?").split("\n")[0])
    small = number(r"约能放 (\d+) tokens", answer("Llama-3.1-8B 在 4090 上 KV 缓存能放多少 token？", "zh").split("\n")[0])
    assert 0 < small < big


@pytest.mark.parametrize(("text", "lang"), [
    ("At what point does adding users stop increasing total throughput for Llama-3.1-8B on an H100?", "en"),
    ("Where does throughput plateau for Qwen2.5-7B on an L4?", "en"),
    ("Llama-3.1-8B 在一张 H100 上，并发加到多少吞吐就不再增加了？", "zh"),
])
def test_where_throughput_stops_growing_is_the_full_load(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert re.search(r"serves at most \d+ concurrent requests" if lang == "en" else r"最多可同时服务 \d+ 路", first), first
