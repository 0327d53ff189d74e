"""The LLM reads, the tools answer (Settings.reader = "structured", the default), against the local OpenAI-compatible mock server
over real HTTP: one structured call fills the typed request, the deterministic dialog answers that request (every
number from the estimator), a malformed or empty reading falls back to the offline reader with a note, and an
explain question goes on to the agent's tool loop."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from advisor.conversation.llm.settings import Settings
from advisor.conversation.session import Conversation
from tests.mock_openai_server import MockOpenAI, hang, message, status


def reading(**over: Any) -> str:
    base: dict[str, Any] = {"act": "which", "model": "Qwen2.5-72B", "gpus": [], "task": "inference", "weights": None,
                            "context_tokens": 8192, "concurrent_users": 50, "headcount": None, "train_tokens": None,
                            "budget": None,
                            "currency": None, "region": None}
    base.update(over)
    return json.dumps(base)


def structured(url: str) -> Settings:
    """A configured model with the default reader (structured)."""
    return Settings(api_key="sk-test", base_url=url, model="mock-model", stream=False, request_timeout_s=5)


def job(turn: Any) -> dict[str, Any]:
    return {v["name"]: v for v in turn.extra["request"]["job"]}


def test_the_models_reading_is_answered_by_the_deterministic_dialog() -> None:
    # Dec 5: "the 50 people of our support team" is a headcount (10 % at once); 50 at once is said as such
    text = "Qwen2.5-72B for 50 concurrent users on our support team, prompts up to 8k tokens"
    with MockOpenAI([message(reading(concurrent_users=50))]) as srv:
        turn = Conversation(settings=structured(srv.base_url)).respond(text)
        assert len(srv.requests) == 1  # one structured call, no tool loop
        body = srv.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema" and "tools" not in body
    assert turn.mode == "llm" and turn.fallback is None and turn.extra["reader"] == "llm"
    req = turn.extra["request"]
    assert req["reader"] == "llm" and req["act"] == "which"
    assert job(turn)["concurrency"]["value"] == 50 and job(turn)["context"]["value"] == 8192
    # grounding by construction: the same workload typed out for the deterministic dialog gives the same numbers (the
    # reading keeps "prompts up to 8k" as 8000-token prompts in the 8k window: the per-token target is judged on them)
    same = Conversation(driver="deterministic").respond("Qwen2.5-72B for 50 concurrent users, 8k context, prompts of 8000 tokens")
    assert [(o["gpu"], o["count"]) for o in turn.options] == [(o["gpu"], o["count"]) for o in same.options]
    assert turn.options and turn.options[0]["per_gpu_bytes"] == same.options[0]["per_gpu_bytes"]
    # hand check of one number: BF16 weights of Qwen2.5-72B (72.7e9 params × 2 bytes) over the tensor-parallel cards
    # (one replica's TP group: the other cards hold copies)
    first = turn.options[0]
    per_gpu_weights = first["per_gpu_bytes"]["weights"]
    assert first["count"] == first["layout"]["tp"] * first["layout"]["pp"] * first["layout"]["dp"]
    assert per_gpu_weights == pytest.approx(72.7e9 * 2 / first["layout"]["tp"], rel=0.03)


def test_what_the_message_does_not_say_is_dropped_from_the_reading() -> None:
    text = "Qwen2.5-72B for our whole support team"  # no count of users, no context, no card
    gpus = [{"name": "febrius", "role": "candidate", "count": 2}]
    with MockOpenAI([message(reading(concurrent_users=50, gpus=gpus, task="lamba-3"))]) as srv:
        turn = Conversation(settings=structured(srv.base_url)).respond(text)
    req = turn.extra["request"]
    assert turn.mode == "llm" and req["reader"] == "llm"
    assert "concurrency 50" in req["note"] and "'febrius'" in req["note"] and "task 'lamba-3'" in req["note"]
    assert job(turn)["concurrency"]["provenance"] == "default" and job(turn)["context"]["value"] != 8192
    assert not req["unknown"] and not req["hardware"]  # an invented card is not named as unknown either


def test_a_card_the_model_reads_as_excluded_is_never_recommended() -> None:
    text = "Serve Llama-3.1-70B to 20 users; we can't buy A100"
    gpus = [{"name": "A100", "role": "excluded", "count": None}]
    with MockOpenAI([message(reading(model="Llama-3.1-70B", gpus=gpus, concurrent_users=20, context_tokens=None))]) as srv:
        turn = Conversation(settings=structured(srv.base_url)).respond(text)
    assert turn.mode == "llm"
    assert turn.options and all(not o["gpu"].startswith("a100") for o in turn.options)
    assert any(h["role"] == "excluded" and (h["gpu"] or "").startswith("a100") for h in turn.extra["request"]["hardware"])


@pytest.mark.parametrize("reply", [message("not json at all"), message(""), message(reading(act="dance")),
                                   message(reading(act=None)), status(500)])
def test_an_unusable_reading_falls_back_to_the_offline_reader_with_a_note(reply: dict[str, Any]) -> None:
    text = "Serve Qwen2.5-72B to 50 users with 8k context"
    with MockOpenAI([reply]) as srv:
        turn = Conversation(settings=structured(srv.base_url)).respond(text)
    offline = Conversation(driver="deterministic").respond(text)
    assert turn.mode == "deterministic" and turn.fallback is not None and turn.fallback.reason == "reading"
    assert "read" in turn.note and "offline" in turn.note  # the note the user sees
    assert turn.extra["request"]["reader"] == "offline" and "read offline" in turn.extra["request"]["note"]
    assert turn.answer == offline.answer  # the offline reader's answer, not a guess


def test_the_fallback_note_is_in_the_users_language() -> None:
    with MockOpenAI([message("{}")]) as srv:
        turn = Conversation(settings=structured(srv.base_url)).respond("Qwen2.5-72B 给 50 个人用，8k 上下文，要几张卡？")
    assert turn.fallback is not None and "离线" in turn.note


def test_an_explain_question_goes_on_to_the_agents_tools() -> None:
    with MockOpenAI([message(reading(act="explain", concurrent_users=None, context_tokens=None)),
                     message("Each user keeps its own KV cache.")]) as srv:
        Conversation(settings=structured(srv.base_url)).respond("why does each extra user cost memory?")
        bodies = [r["body"] for r in srv.requests]
    assert "response_format" in bodies[0]
    assert len(bodies) >= 2 and "tools" in bodies[1]  # the tool-calling agent answered the explanation


def test_a_configured_model_reads_with_one_structured_call_by_default(monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture) -> None:
    """What a user who only configures a model gets (`ask --json`, no ADVISOR_READER): one structured call, then the
    deterministic answer; a malformed reading is one call too, answered offline with the note."""
    from ui.cli.entry import main

    text = "Serve Qwen2.5-72B to 50 users with 8k context"
    offline = Conversation(driver="deterministic").respond(text)
    for reply, mode in ((message(reading()), "llm"), (message('{"act": "which", "model": '), "deterministic")):
        with MockOpenAI([reply]) as srv:  # a second request would get "script exhausted" (500)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-cli")
            monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
            monkeypatch.setenv("ADVISOR_MODEL", "mock-model")
            assert main(["ask", "--json", text]) == 0
            bodies = [r["body"] for r in srv.requests]
        out = json.loads(capsys.readouterr().out)
        assert len(bodies) == 1 and "response_format" in bodies[0] and "tools" not in bodies[0]
        assert out["mode"] == mode
        if mode == "llm":
            assert out["fallback"] is None and out["request"]["reader"] == "llm"
            assert [(o["gpu"], o["count"]) for o in out["options"]] == [(o["gpu"], o["count"]) for o in offline.options]
        else:
            assert out["fallback"]["reason"] == "reading" and "offline" in out["note"]
            assert out["request"]["reader"] == "offline" and out["answer"] == offline.answer


def test_a_hanging_model_is_read_offline_within_the_turn_deadline() -> None:
    """The structured call waits at most the turn's deadline (no streaming: the whole reply is its first byte)."""
    text = "Serve Qwen2.5-72B to 50 users with 8k context"
    with MockOpenAI([hang(10)]) as srv:
        settings = Settings(api_key="sk-test", base_url=srv.base_url, model="mock-model", turn_timeout_s=1.5)
        start = time.monotonic()
        turn = Conversation(settings=settings).respond(text)
        elapsed = time.monotonic() - start
        assert len(srv.requests) == 1
    assert turn.fallback is not None and turn.fallback.reason == "reading" and "Timeout" in turn.fallback.detail
    assert 1.4 <= elapsed < 6  # the 1.5 s deadline, then the deterministic answer (+ a shared machine's load)


def test_the_agent_setting_keeps_the_tool_loop() -> None:
    assert Settings().reader == "structured" and Settings.from_env({"ADVISOR_READER": "agent"}).reader == "agent"
    with MockOpenAI([message("Which model, and for how many users?")]) as srv:
        settings = Settings(api_key="sk-test", base_url=srv.base_url, model="m", stream=False, reader="agent")
        turn = Conversation(settings=settings).respond("Serve Qwen2.5-72B to 50 users with 8k context")
        bodies = [r["body"] for r in srv.requests]
    assert bodies and "tools" in bodies[0] and "response_format" not in bodies[0]  # no structured call first
    assert turn.extra.get("reader") != "llm"
