"""Self-host or API, with the provider named: "is paying Groq cheaper than our own box?" compares Groq's own quote
(not the cheapest provider's) and then says which is cheapest; a provider that does not list the model is said
first; naming a provider beside one's own cards asks the comparison by itself; a model family's name (DeepSeek) is
not read as a provider."""

from __future__ import annotations

import pytest

from knowledge.api_prices import provider_named
from tests.answer_text import answer


def test_groq_is_compared_and_the_cheapest_named_after() -> None:
    lead = answer("is paying Groq cheaper than running llama 3.3 70b on our own box? we do 50M tokens a day")
    head = lead.split("\n\n")[0]
    assert head.startswith("**The API is cheaper at 50 M tokens a day**: Groq at $0.59 in / $0.79 out"), head
    assert "The cheapest listed is DeepInfra" in head, head


def test_a_provider_alone_asks_the_comparison() -> None:
    head = answer("Groq or our own H100s for Llama 3.3 70B?").split("\n\n")[0]
    assert "Groq at $0.59 in / $0.79 out" in head and "owned" in head, head


def test_a_provider_without_the_model_is_said_first() -> None:
    head = answer("Groq or our own H100s for Qwen2.5-72B?").split("\n\n")[0]
    assert head.startswith("**Groq does not list Qwen2.5-72B**"), head
    zh = answer("DeepSeek-V3 用火山方舟的 API 还是自己买卡部署？每天 5 亿 tokens", "zh").split("\n\n")[0]
    assert zh.startswith("**价格表里火山方舟没有上架 DeepSeek-V3**"), zh


def test_a_chinese_provider_by_its_chinese_name() -> None:
    head = answer("Qwen3-235B-A22B-2507 用硅基流动的 API 还是自己部署划算？每天 2000 万 tokens", "zh").split("\n\n")[0]
    assert "硅基流动" in head or "SiliconFlow" in head, head
    assert "没有上架" not in head, head


@pytest.mark.parametrize("text,provider", [
    ("is paying Groq cheaper than our own box", "Groq"),
    ("together.ai vs self-hosting", "Together AI"),
    ("用硅基流动还是自建", "SiliconFlow"),
    ("DeepSeek API or self-host DeepSeek-V3?", None),
    ("should we rent H100s on Lambda", None),
    ("贵州的公司，在阿里云上部署 Qwen3-8B 要什么卡", None),  # a cloud that rents cards, not its API product
])
def test_provider_named(text: str, provider: str | None) -> None:
    assert provider_named(text) == provider
