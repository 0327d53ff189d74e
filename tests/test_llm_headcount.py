"""The LLM reader's schema carries the headcount the offline reader has ("50 employees will use it": people who use
the service, of whom the dialog sizes 10 % at once, NVIDIA's RAG sizing rule), against the local OpenAI-compatible
mock server: the field is in the schema sent, decoded, held to the message and mapped onto the request."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from advisor.conversation.llm.settings import Settings
from advisor.conversation.session import Conversation
from tests.mock_openai_server import MockOpenAI, message


def reading(**over: Any) -> str:
    base: dict[str, Any] = {"act": "which", "model": "Qwen2.5-72B", "gpus": [], "task": "inference", "weights": None,
                            "context_tokens": None, "concurrent_users": None, "headcount": None,
                            "train_tokens": None, "budget": None, "currency": None, "region": None}
    base.update(over)
    return json.dumps(base)


def settings(url: str) -> Settings:
    return Settings(api_key="sk-test", base_url=url, model="mock-model", stream=False, request_timeout_s=5)


def job(turn: Any) -> dict[str, Any]:
    return {v["name"]: v for v in turn.extra["request"]["job"]}


# (message, people): phrasings the offline reader reads as requests at once or not at all, and plain ones
@pytest.mark.parametrize(("text", "people"), [
    ("Qwen2.5-72B as a helpdesk bot, 120 agents have accounts", 120),
    ("Our Qwen2.5-72B assistant: 50 employees will use it", 50),
    ("Qwen2.5-72B for a user base of 400 subscribers", 400),
    ("Qwen2.5-72B 做客服，120 个坐席账号", 120),
    ("部署 Qwen2.5-72B，公司 50 名员工会用", 50),
    ("Qwen2.5-72B 小程序，注册用户 400 人", 400),
])
def test_the_models_headcount_is_sized_at_a_tenth_at_once(text: str, people: int) -> None:
    with MockOpenAI([message(reading(headcount=people))]) as srv:
        turn = Conversation(settings=settings(srv.base_url)).respond(text)
        schema = srv.requests[0]["body"]["response_format"]["json_schema"]["schema"]
    assert "headcount" in schema["properties"] and "headcount" in schema["required"]
    assert turn.mode == "llm" and turn.extra["request"]["reader"] == "llm"
    assert "headcount" not in (turn.extra["request"]["note"] or "")  # not dropped: the message says it
    got = job(turn)
    assert got["headcount"]["value"] == people and got["headcount"]["unit"] == "people"
    # 10 % of the people at once, rounded up (hand arithmetic: 120 → 12, 50 → 5, 400 → 40)
    assert got["concurrency"]["value"] == math.ceil(people / 10) and got["concurrency"]["provenance"] != "stated"
    assert turn.options and turn.options[0]["throughput"]["concurrency"] == math.ceil(people / 10)


def test_a_headcount_the_message_does_not_say_is_dropped() -> None:
    text = "Qwen2.5-72B for our support team, 8k context"
    with MockOpenAI([message(reading(headcount=300))]) as srv:
        turn = Conversation(settings=settings(srv.base_url)).respond(text)
    req = turn.extra["request"]
    assert req["reader"] == "llm" and "headcount 300" in req["note"]
    assert job(turn)["concurrency"]["value"] == 1  # nothing said: the dialog's default of one user
