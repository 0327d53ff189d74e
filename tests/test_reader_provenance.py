"""Provenance of the job's values, from the typed request to the numbers of `ask --json`: a value the person
typed (in this message or an earlier one) is "user input", one implied by what they typed (a concurrency from a
request rate, by Little's law) is "inferred from user input", and only what nobody said is "dialog default"."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.conversation.session import Conversation


def last(turns: list[str], lang: str) -> dict[str, Any]:
    conv = Conversation(driver="deterministic", lang=lang)
    for text in turns:
        turn = conv.respond(text)
    return turn.to_contract()


def sources(d: dict[str, Any], name: str) -> set[str]:
    return {n["source"] for n in d["numbers"] if n["name"] == name}


def provenance(d: dict[str, Any], name: str) -> tuple[str, bool]:
    v = next(v for v in d["request"]["job"] if v["name"] == name)
    return v["provenance"], v["earlier"]


@pytest.mark.parametrize(("lang", "turns", "value"), [
    ("en", ["Size Llama-3.1-8B on one H100 for 12 simultaneous chats with a 16k window"], (12, 16384)),
    ("zh", ["一张 H100 跑 llama-3.1-8b，十二路并发，上下文一万六，行不行"], (12, 16000)),
])
def test_stated_values_are_user_input_not_defaults(lang: str, turns: list[str], value: tuple[int, int]) -> None:
    d = last(turns, lang)
    users, ctx = value
    assert {v["name"]: v["value"] for v in d["request"]["job"]}["concurrency"] == users
    assert {v["name"]: v["value"] for v in d["request"]["job"]}["context"] == ctx
    for name in ("concurrency", "context"):
        assert provenance(d, name) == ("stated", False)
        assert "user input" in sources(d, name) and "dialog default" not in sources(d, name), (name, sources(d, name))


@pytest.mark.parametrize(("lang", "turns"), [
    ("en", ["Serve Qwen2.5-7B for 10 users with 8k context on one H100", "what about FP8 weights?"]),
    ("zh", ["部署 qwen2.5-7b 给 10 个人用，8k 上下文，一张 H100", "权重换成 fp8 呢"]),
])
def test_values_stated_earlier_stay_user_input(lang: str, turns: list[str]) -> None:
    d = last(turns, lang)
    # Dec 5: "给 10 个人用" is the people who use the service (headcount), the concurrency inferred from it
    for name in ("concurrency" if lang == "en" else "headcount", "context"):
        assert provenance(d, name) == ("stated", True)
        assert "dialog default" not in sources(d, name), (name, sources(d, name))


@pytest.mark.parametrize(("lang", "turns"), [
    ("en", ["Serve Llama-3.1-8B on one L40S"]),
    ("zh", ["一张 L40S 部署 llama-3.1-8b"]),
])
def test_what_nobody_said_is_the_default_and_is_said(lang: str, turns: list[str]) -> None:
    d = last(turns, lang)
    for name in ("concurrency", "context"):
        assert provenance(d, name)[0] == "default"
        assert sources(d, name) <= {"dialog default"} and sources(d, name), (name, sources(d, name))


@pytest.mark.parametrize(("lang", "turns", "earlier"), [
    ("en", ["Serve Llama-3.1-8B at 20 requests per second on one L40S"], False),
    ("en", ["Serve Llama-3.1-8B at 20 requests per second on one L40S", "now with a 16k context"], True),
    ("zh", ["llama-3.1-8b 每秒 20 个请求，一张 L40S 够吗", "上下文改成 16k 呢"], True),
])
def test_a_concurrency_from_a_request_rate_is_inferred(lang: str, turns: list[str], earlier: bool) -> None:
    d = last(turns, lang)
    assert provenance(d, "concurrency") == ("inferred", earlier)
    assert sources(d, "concurrency") == {"inferred from user input"}


@pytest.mark.parametrize(("lang", "turns"), [
    ("en", ["Qwen2.5-14B, one H100, prompts of twenty thousand tokens, six people at once — does it fit?"]),
    ("zh", ["qwen2.5-14b 用一张 H100，同时 6 个人，每次输入 2 万 token，放得下吗"]),
])
def test_a_long_prompt_sets_the_context_instead_of_being_cut_to_the_default(lang: str, turns: list[str]) -> None:
    conv = Conversation(driver="deterministic", lang=lang)
    for text in turns:
        turn = conv.respond(text)
    d = turn.to_contract()
    assert provenance(d, "context") == ("inferred", False) and provenance(d, "concurrency") == ("stated", False)
    assert "inferred from user input" in sources(d, "context")
    # KV cache of Qwen2.5-14B (config.json: 48 layers, 8 KV heads of 128) in BF16 for 6 sequences of the 20,000-token
    # prompt plus its answer (none said: a chat turn's 195 tokens, advisor.workload.CHAT_OUTPUT_TOKENS)
    mem = turn.memory or {}
    assert mem.get("count") == 1
    assert mem["kv_cache"] == pytest.approx(2 * 48 * 8 * 128 * 2 * (20000 + 195) * 6, rel=0.001)
