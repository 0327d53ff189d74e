""""How does TTFT change with prompt length?": the configuration at the load asked, simulated at prompts of 1k, 4k, 16k
and 32k tokens (within the model's context), median and p95 first token at each, with the requests the KV cache holds
at once where fewer than the load (the rest queue) — advisor.analysis.load_answers.ttft_ladder."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang"), [
    ("How does TTFT change with prompt length for Llama-3.1-70B on 4x H100 at 10 users?", "en"),
    ("How much longer is the first token with bigger prompts for Llama-3.1-8B on one L40S?", "en"),
    ("prompt length vs time to first token for Qwen2.5-7B on one A100 80GB?", "en"),
    ("首字延迟随输入长度怎么变？Qwen2.5-32B，2 张 H100，20 并发", "zh"),
    ("提示词越长首 token 会慢多少？Llama-3.1-8B 单卡 4090", "zh"),
    ("咱们 8 张 4090 跑 Qwen3-32B，提示词从短到长，首字要等多久？", "zh"),
])
def test_the_first_token_is_given_at_each_prompt_length(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert ("by prompt length" in first) if lang == "en" else ("首 token 延迟随提示词长度" in first), first
    for prompt in ("1024 tokens", "4096 tokens"):
        assert prompt in first, first
    medians = [float(v) / (1000 if u == "ms" else 1)
               for v, u in re.findall(r"([\d.]+) (ms|s) at \d+ tokens" if lang == "en" else r"tokens 时 ([\d.]+) (ms|s)",
                                      first)]
    assert len(medians) >= 2, first
    # a longer prompt is never first sooner: more prefill FLOPs and, past the KV cache, a queue
    assert medians == sorted(medians), first


def test_a_queue_is_said_where_the_kv_cache_holds_fewer_than_the_load() -> None:
    first = answer("首字延迟随输入长度怎么变？Qwen2.5-32B，2 张 H100，20 并发", "zh").split("\n")[0]
    assert "其余排队" in first, first
