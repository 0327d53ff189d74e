""""Compare the TTFT of vLLM and SGLang …": an engine comparison asked about the first token gives each engine's
median first-token time (the same continuous-batching simulation as the load sentence, at the load asked) beside its
decode speed; a comparison not about it keeps the decode speeds alone."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang", "engines"), [
    ("Compare TTFT of vLLM and SGLang for Qwen2.5-72B on 4x H100 at 32 users", "en", ("vLLM", "SGLang")),
    ("vLLM 和 TensorRT-LLM 的首字延迟对比：Llama-3.1-8B，一张 H100，32 并发", "zh", ("vLLM", "TensorRT-LLM")),
])
def test_each_engines_first_token_is_given(text: str, lang: str, engines: tuple[str, str]) -> None:
    first = answer(text, lang).split("\n")[0]
    word = r"first token after ([\d.]+ m?s)" if lang == "en" else r"首 token 延迟 ([\d.]+ m?s)"
    assert len(re.findall(word, first)) == 2, first
    for engine in engines:
        assert engine in first, first


def test_a_speed_comparison_keeps_the_decode_speeds() -> None:
    first = answer("SGLang vs vLLM for DeepSeek-V3 on 8x H200 at 64 users: which is faster?").split("\n")[0]
    assert "decodes about" in first and "first token after" not in first, first
