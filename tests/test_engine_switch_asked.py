""""If I switch from vLLM to SGLang, how much do I gain?": moving a deployment from one engine to another is the
engine comparison, under load with each engine's total beside its per-user speed, on the layout the recommender
chose (an MLA model's attention data-parallel where that is how it fits); and a tail asked of the per-token time
("p95 TPOT?") is answered at that percentile."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import engines_compared
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "engines"), [
    ("If I switch from vLLM to SGLang for Llama-3.1-8B on one H100, what do I gain?", ("vllm", "sglang")),
    ("Moving our service from Ollama to vLLM on an L4: what changes?", ("llama.cpp", "vllm")),
    ("What do we gain by replacing vLLM with TensorRT-LLM?", ("vllm", "trtllm")),
    ("Would migrating from transformers to vLLM speed up Qwen2.5-7B?", ("transformers", "vllm")),
    ("Qwen2.5-32B 从 vLLM 换成 SGLang，吞吐提升多少？", ("vllm", "sglang")),
    ("我们用 vLLM，改用 TensorRT-LLM 能快多少？", ("vllm", "trtllm")),
])
def test_a_move_between_engines_compares_them(text: str, engines: tuple[str, ...]) -> None:
    assert engines_compared(text) == engines


@pytest.mark.parametrize("text", [
    "Should I run vLLM on 2 H100 for Llama-3.3-70B with 40 users?",  # one engine: nothing to compare
    "If I switch to FP8 on vLLM, how much faster is Qwen2.5-72B?",
    "换成 H200 之后 vLLM 能快多少？",
])
def test_one_engine_named_is_no_comparison(text: str) -> None:
    assert engines_compared(text) == ()


def test_a_switch_under_load_gives_each_engines_total() -> None:
    first = answer("If I switch from vLLM to SGLang for Qwen2.5-32B on 2x H100, how much throughput do I gain at "
                   "50 users?").split("\n")[0]
    totals = re.findall(r"([\d,]+) tokens/s in total", first)
    assert len(totals) == 2 and "vLLM" in first and "SGLang" in first, first


def test_deepseek_on_eight_h200_is_compared_at_its_fp8_checkpoint() -> None:
    """DeepSeek-R1 FP8 fits 8 × H200 only with its attention data-parallel (plain TP 8 repeats the MLA cache on
    every GPU): the comparison runs that layout, the recommender's, not a 4-bit stand-in."""
    first = answer("If I switch from vLLM to SGLang for DeepSeek-R1 on 8x H200, how much throughput do I gain at "
                   "32 users?").split("\n")[0]
    assert first.count("FP8 weights") == 2 and "INT4" not in first, first


@pytest.mark.parametrize(("text", "lang"), [
    ("What's the p95 time per output token for Llama-3.1-70B on 4x H100 at 64 concurrent users?", "en"),
    ("Llama-3.1-8B 在一张 H100 上 64 并发，p95 每 token 延迟是多少？", "zh"),
])
def test_a_per_token_tail_is_given_at_the_percentile_asked(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    per_token = (re.search(r"\(([\d.]+) ms per token, ([\d.]+) ms at p95, ([\d.]+) ms at p99\)", first) if lang == "en"
                 else re.search(r"（每 token ([\d.]+) ms，p95 ([\d.]+) ms，p99 ([\d.]+) ms）", first))
    assert per_token, first
    median, p95, p99 = (float(x) for x in per_token.groups())
    assert median <= p95 <= p99


@pytest.mark.parametrize("text", [
    "What's the largest concurrency Llama-3.1-70B on 8x H100 can serve while keeping TTFT under 300 ms?",
    "What is the highest number of users Qwen2.5-32B on 2 H100 can handle at 30 ms per token?",
    "Give me the concurrency limit for Qwen2.5-32B on 2 A100 if each user needs 30 tokens/s",
    "What's the user cap for Llama-3.1-8B on an L40S at 40 ms per token?",
])
def test_the_largest_concurrency_for_a_target_is_the_limit(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert re.search(r"serves at most \d+ concurrent users", first), first


@pytest.mark.parametrize("text", ["Most users expect fast replies; which GPU for Llama-3.1-8B?",
                                  "the largest model that fits one 4090"])
def test_most_and_largest_elsewhere_ask_no_user_count(text: str) -> None:
    from advisor.conversation.reader.intent import asks

    assert not asks("users", text)


@pytest.mark.parametrize(("text", "lang"), [
    ("Compare SGLang and vLLM throughput for Llama-3.1-8B on one H100 at 128 concurrent requests", "en"),
    ("vLLM 和 SGLang 跑 Llama-3.1-8B，一张 H100，128 并发，谁吞吐高？", "zh"),
])
def test_engines_keep_their_weights_with_an_fp8_kv_cache_under_load(text: str, lang: str) -> None:
    """128 users of 4k tokens do not fit one H100 with a 16-bit KV cache next to BF16 weights; an FP8 KV cache
    holds them (the recommender's own change), so each engine is compared at BF16 weights with it, not at 4 bits."""
    first = answer(text, lang).split("\n")[0]
    kv = "BF16 weights, FP8 KV cache" if lang == "en" else "BF16 权重、FP8 KV 缓存"
    assert first.count(kv) == 2 and "INT4" not in first, first
