""""最低配置" / "minimum hardware requirements" asks for the smallest purchase of NEW hardware that runs the job: the
cheapest answer with second-hand rigs aside (Kimi K2's cheapest fit is 56 used RTX 3090s in seven servers, which no one
means by a minimum configuration); "minimum number of GPUs" still asks for a count."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from advisor.conversation.session import Conversation


def _first(lang: str, question: str) -> str:
    return Conversation(driver="deterministic", lang=lang).respond(question).answer.split("\n", 1)[0]


@pytest.mark.parametrize("text", [
    "Kimi K2 最低配置是什么？", "跑 DeepSeek-R1 的最低要求", "Qwen3-235B 最小配置要多少钱", "入门配置推荐一下，跑 32B",
    "What are the minimum hardware requirements to run Kimi K2?", "bare minimum to run llama 70b",
    "min specs for serving mixtral?", "what's the minimal setup for Qwen3-32B", "entry-level rig for a 70B model",
    "whats the bare-bones rig for phi-4 14b",
])
def test_minimum_configuration_is_read(text: str) -> None:
    assert asks("minimum", text)


@pytest.mark.parametrize("text", ["minimum number of GPUs for Llama 3.1 70B?", "最少几张卡", "at minimum 20 tokens/s",
                                  "minimum context of 8k", "fastest config for 70B",
                                  "每路最低要求 20 tokens/s", "最低要求：每路 30 token/s", "首字延迟最低要求 500ms 以内",
                                  "成本最低的配置？", "价格最低的配置是哪个", "功耗最低的配置"])
def test_other_minimums_are_not(text: str) -> None:
    assert not asks("minimum", text)


def test_minimum_leads_with_new_hardware_where_the_cheapest_is_used() -> None:
    cheapest = _first("en", "cheapest way to run Kimi K2?")
    assert "(used)" in cheapest  # the cheapest fit is a second-hand rig
    for lang, question in (("en", "What are the minimum hardware requirements to run Kimi K2?"),
                           ("en", "Kimi K2 - bare minimum setup?")):
        head = _first(lang, question)
        assert head.startswith("The minimum configuration") and "used" not in head, head
        assert "RTX 3090" not in head
    zh = _first("zh", "Kimi K2 最低配置是什么？")
    assert zh.startswith("最低配置") and "二手" not in zh


def test_minimum_number_stays_a_count() -> None:
    head = _first("en", "minimum number of GPUs for Llama 3.1 70B?")
    assert re.match(r"You need \d+×", head), head


@pytest.mark.parametrize(("lang", "question", "word"), [
    ("en", "min config to run GLM-4.5 Air", "With 4-bit weights"),
    ("en", "bare minimum setup to run Llama 3.1 70B?", "With 4-bit weights"),
    ("zh", "Qwen2.5-72B 推理最低配置", "若用 4 比特权重"),
])
def test_minimum_also_gives_the_4bit_minimum_when_it_costs_less(lang: str, question: str, word: str) -> None:
    """A minimum asked with no format: the answer's own format's minimum, then the cheaper one at 4-bit weights
    (what a minimum setup usually runs), each a new purchase that fits."""
    head = _first(lang, question)
    assert word in head, head
    money = [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+) (?:to buy|（)", head)]
    if lang == "en":
        assert len(money) >= 2 and money[1] < money[0], head


def test_no_4bit_sentence_when_a_format_was_said() -> None:
    head = _first("en", "minimum hardware for Llama 3.1 70B in FP8?")
    assert "With 4-bit weights" not in head
