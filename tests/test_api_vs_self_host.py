""""Self-host or use an API?": the cheapest hosted API for the model (dated, cited quotes) against the configuration
the answer sizes, owned, at the daily volume stated, and the volume at which owning breaks even. The expected
provider and arithmetic are worked here from the price file itself, not from the renderer's code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from advisor.conversation.reader.intent import asks
from advisor.conversation.session import Conversation

PRICES = yaml.safe_load((Path(__file__).parents[1] / "knowledge/data/api_prices.yaml").read_text(encoding="utf-8"))
CHAT_MIX = 215 / 195  # a chat turn's input tokens per output token (advisor.workload CHAT_PROMPT/OUTPUT_TOKENS)


def _quotes(model: str) -> list[dict]:
    rows = PRICES["quotes"] if isinstance(PRICES, dict) and "quotes" in PRICES else PRICES
    return [q for q in rows if q.get("model") == model and "input_usd_per_m" in q]


def _cheapest_usd(model: str, mix: float) -> tuple[str, float]:
    blended = [((mix * q["input_usd_per_m"] + q["output_usd_per_m"]) / (mix + 1), q["provider"]) for q in _quotes(model)]
    price, provider = min(blended)
    return provider, price


def _head(question: str, lang: str = "en") -> str:
    return Conversation(driver="deterministic", lang=lang).respond(question).answer.split("\n", 1)[0]


@pytest.mark.parametrize("text", [
    "Should we self-host Llama 3.3 70B or just use an API?", "self-host qwen3 32b vs api, which is cheaper?",
    "run it ourselves or pay for the DeepSeek API?", "is that cheaper than the together api?",
    "groq api or buy our own gpus?", "自建还是调 API 划算？", "用 API 还是自己部署 Qwen3-32B", "按 token 付费和自己买卡哪个便宜",
    "honestly is paying groq cheaper than running mixtral 8x7b on our own box?", "自己搭划不划算，还是直接买 API？",
])
def test_the_question_is_read(text: str) -> None:
    assert asks("api", text)


@pytest.mark.parametrize("text", ["serve it with an OpenAI compatible API", "what api does vllm expose",
                                  "openai-compatible api server for vllm on 2 GPUs", "together with 4 users"])
def test_an_api_server_is_not_the_question(text: str) -> None:
    assert not asks("api", text)


@pytest.mark.parametrize("question", [
    "Should we self-host Llama 3.3 70B or just use an API? About 50M tokens a day.",
    "Llama 3.3 70B: is running it on our own GPUs cheaper than using an API, at 50 million tokens per day?",
])
def test_with_a_volume_the_cheaper_side_leads_with_both_prices(question: str) -> None:
    head = _head(question)
    provider, blended = _cheapest_usd("llama-3.3-70b", CHAT_MIX)
    assert head.startswith("**The API is cheaper at 50 M tokens a day**") or head.startswith("**Self-hosting"), head
    assert provider in head, (provider, head)
    api_day = float(re.search(r"costs \$([\d,.]+) a day;", head).group(1).replace(",", ""))
    assert api_day == pytest.approx(50 * blended, rel=0.01)  # 50 million tokens × the blended price per million
    own_day = float(re.search(r"costs \$([\d,.]+) a day owned", head).group(1).replace(",", ""))
    even = float(re.search(r"breaks even at ([\d.]+) M tokens a day", head).group(1))
    assert even == pytest.approx(own_day / blended, rel=0.01)  # the day's ownership ÷ the price of a million


def test_without_a_volume_it_gives_the_break_even_and_asks_for_it() -> None:
    head = _head("self-host qwen3 32b vs api, which is cheaper?")
    provider, _ = _cheapest_usd("qwen3-32b", CHAT_MIX)
    assert head.startswith("**The cheapest API for Qwen3-32B is " + provider), head
    assert "self-hosting is cheaper only above" in head and "tokens a day" in head


def test_in_china_a_mainland_provider_is_quoted_in_yuan() -> None:
    head = _head("Qwen3-32B 自建还是调 API 划算？每天 1 亿 token", "zh")
    assert "¥" in head and "OpenRouter" not in head and "DeepInfra" not in head, head
    assert "自建" in head and "API" in head
