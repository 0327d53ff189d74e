"""The agent end to end over real HTTP: the real ChatOpenAI client against tests/mock_openai_server.py on 127.0.0.1.

Covers a normal tool-calling turn, 429 with Retry-After, 500, timeouts, unreachable servers, SSE streaming,
malformed tool-call JSON, the circuit breaker, and the session's deterministic fallback with its note.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

pytest.importorskip("langchain_openai")

from advisor.conversation.llm import agent as agent_module  # noqa: E402
from advisor.conversation.llm.agent import AgentDriver, AgentUnavailable  # noqa: E402
from advisor.conversation.llm.settings import Settings  # noqa: E402
from advisor.conversation.tools.registry import ALLOWED, call_tool  # noqa: E402
from advisor.conversation.turn import Step, Turn  # noqa: E402
from tests.mock_openai_server import MockOpenAI, hang, message, status, tool_calls  # noqa: E402

QUESTION = "How much memory does Llama-3-70B need on an H100?"
ARGS = {"model": "llama-3-70b", "gpu": "h100"}


@pytest.fixture(autouse=True)
def _no_leftover_agent_threads():
    """A timed-out turn leaves its worker to finish on its own; wait for it so tests stay independent."""
    yield
    for thread in threading.enumerate():
        if thread.name == "advisor-agent":
            thread.join(timeout=10)
    agent_module.reset_breakers()


def _answer() -> str:
    ref = call_tool("estimate_memory", ARGS)
    shown = {n["name"]: n["display"] for n in ref.numbers}
    return (f"Llama-3-70B needs {shown['total per GPU']} per GPU in BF16, so one H100 "
            f"({shown['NVIDIA H100 SXM5 80GB memory']}) does not fit: {shown['shortfall per GPU']} short.")


def _good() -> list[dict]:
    return [tool_calls(("estimate_memory", ARGS)), message(_answer())]


def model_text(turn: Turn) -> str:
    """The answer without the findings section the application appends."""
    return turn.answer.split("\n\n**Findings**")[0]


def settings(srv: MockOpenAI, **kw) -> Settings:
    base = {"api_key": "sk-test-key", "base_url": srv.base_url, "model": "mock-model", "backoff_initial_s": 0.01,
            "request_timeout_s": 5, "turn_timeout_s": 10, "reader": "agent"}  # the tool loop under test
    return Settings(**{**base, **kw})


def run_turn(srv: MockOpenAI, **kw) -> list[Step | Turn]:
    return list(AgentDriver(settings(srv, **kw)).run(None, QUESTION))


def run_fail(srv: MockOpenAI, **kw) -> tuple[AgentUnavailable, float]:
    start = time.monotonic()
    with pytest.raises(AgentUnavailable) as info:
        run_turn(srv, **kw)
    return info.value, time.monotonic() - start


def test_normal_tool_calling_turn_over_http() -> None:
    with MockOpenAI(_good()) as srv:
        items = run_turn(srv)
    assert [type(i) for i in items] == [Step, Turn]
    turn = items[-1]
    assert turn.mode == "llm" and turn.model_name == "mock-model" and model_text(turn) == _answer()
    first, second = srv.completions
    assert first["headers"]["authorization"] == "Bearer sk-test-key"
    body = first["body"]
    assert body["model"] == "mock-model" and body["max_completion_tokens"] == 1500 and body["temperature"] == 0
    assert {t["function"]["name"] for t in body["tools"]} == ALLOWED
    schema = next(t["function"]["parameters"] for t in body["tools"] if t["function"]["name"] == "estimate_memory")
    assert "q4_k_m" in json.dumps(schema["properties"]["weights"]) and schema["required"] == ["model"]
    assert body["messages"][0]["role"] == "system"
    tool_msg = second["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and json.loads(tool_msg["content"])["ok"] is True
    call_msg = second["body"]["messages"][-2]  # llama-cpp-python's server answers 500 to a null content here
    assert call_msg["role"] == "assistant" and call_msg["tool_calls"] and call_msg["content"] == ""
    assert turn.extra["tokens"] == 140  # usage of the two mock completions (50 + 20 each)


def test_429_with_retry_after_is_honoured_then_succeeds() -> None:
    with MockOpenAI([status(429, headers={"Retry-After": "0.4"}), *_good()]) as srv:
        items = run_turn(srv, max_retries=1)
    assert model_text(items[-1]) == _answer()
    first, retry = srv.completions[0], srv.completions[1]
    assert retry["t"] - first["t"] >= 0.4  # waited what the server asked
    assert first["body"] == retry["body"]  # the same request again


def test_persistent_429_falls_back_after_bounded_attempts() -> None:
    with MockOpenAI([status(429, headers={"retry-after-ms": "10"})] * 5) as srv:
        err, elapsed = run_fail(srv, max_retries=2)
    assert err.reason == "rate_limited" and len(srv.completions) == 3 and elapsed < 3


def test_429_asking_for_a_long_wait_gives_up_at_once() -> None:
    with MockOpenAI([status(429, headers={"Retry-After": "30"}), *_good()]) as srv:
        err, elapsed = run_fail(srv, max_retries=2, max_retry_after_s=10)
    assert err.reason == "rate_limited" and len(srv.completions) == 1 and elapsed < 3


def test_500_is_retried_once_with_backoff() -> None:
    with MockOpenAI([status(500), *_good()]) as srv:
        items = run_turn(srv, max_retries=1, backoff_initial_s=0.2)
    assert model_text(items[-1]) == _answer()
    assert srv.completions[1]["t"] - srv.completions[0]["t"] >= 0.2


def test_persistent_500_falls_back() -> None:
    with MockOpenAI([status(500)] * 5) as srv:
        err, elapsed = run_fail(srv, max_retries=1)
    assert err.reason == "server_error" and len(srv.completions) == 2 and elapsed < 3


def test_401_is_not_retried() -> None:
    with MockOpenAI([status(401), *_good()]) as srv:
        err, _ = run_fail(srv, max_retries=2)
    assert err.reason == "rejected" and len(srv.completions) == 1


def test_request_timeout_falls_back_within_the_bound() -> None:
    # request_timeout_s bounds an unstreamed reply; a timed-out call is not retried (it had its wait)
    with MockOpenAI([hang(5), hang(5)]) as srv:
        err, elapsed = run_fail(srv, stream=False, request_timeout_s=0.5, max_retries=1, turn_timeout_s=10)
    assert err.reason == "timeout" and len(srv.completions) == 1
    assert 0.45 <= elapsed < 2  # one 0.5 s attempt, then the fallback


def test_turn_deadline_caps_a_slow_server_even_with_a_long_request_timeout() -> None:
    with MockOpenAI([hang(5)]) as srv:
        err, elapsed = run_fail(srv, request_timeout_s=60, turn_timeout_s=1, max_retries=3)
    assert err.reason == "timeout" and elapsed < 2.5


def test_unreachable_server_falls_back_fast() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    s = Settings(api_key="sk-test", base_url=f"http://127.0.0.1:{port}/v1", model="m", backoff_initial_s=0.05,
                 max_retries=1, reader="agent")
    start = time.monotonic()
    with pytest.raises(AgentUnavailable) as info:
        list(AgentDriver(s).run(None, QUESTION))
    assert info.value.reason == "unreachable" and time.monotonic() - start < 3


def test_streaming_turn_uses_sse() -> None:
    with MockOpenAI(_good()) as srv:
        items = run_turn(srv, stream=True)
    assert model_text(items[-1]) == _answer() and [s.name for s in items[-1].steps] == ["estimate_memory"]
    for request in srv.completions:
        assert request["body"]["stream"] is True
        assert request["body"]["stream_options"] == {"include_usage": True}
    assert items[-1].extra["tokens"] == 140  # usage arrived in the final SSE chunk


def test_streaming_malformed_tool_arguments_over_http_fall_back() -> None:
    # (LangChain repairs a merely truncated JSON object when streaming, so these are beyond repair)
    script = [tool_calls(("estimate_memory", '{"model": llama-3-70b}')), tool_calls(("lookup_gpu", '{"gpu": h100}'))]
    with MockOpenAI(script) as srv:
        err, _ = run_fail(srv, stream=True)
    assert err.reason == "malformed" and len(srv.completions) == 2


def test_malformed_once_then_valid_over_http() -> None:
    script = [tool_calls(("estimate_memory", "{not json")), *_good()]
    with MockOpenAI(script) as srv:
        items = run_turn(srv, stream=False)  # (streamed, LangChain repairs this one; see the test above)
    assert model_text(items[-1]) == _answer()
    reask = srv.completions[1]["body"]["messages"][-1]
    assert reask["role"] == "user" and "not valid JSON" in reask["content"]


def test_legacy_max_tokens_parameter() -> None:
    with MockOpenAI(_good()) as srv:
        run_turn(srv, legacy_max_tokens=True, max_tokens=321)
    body = srv.completions[0]["body"]
    assert body["max_tokens"] == 321 and "max_completion_tokens" not in body


def test_circuit_breaker_skips_a_failing_server() -> None:
    with MockOpenAI([status(503)] * 20) as srv:
        for _ in range(agent_module.CIRCUIT_FAILURES):
            assert run_fail(srv, max_retries=0)[0].reason == "server_error"
        before = len(srv.completions)
        err, elapsed = run_fail(srv, max_retries=0)
    assert err.reason == "circuit_open" and len(srv.completions) == before and elapsed < 0.5


def test_session_falls_back_to_the_deterministic_answer_with_a_note() -> None:
    session = pytest.importorskip("advisor.conversation.session")
    with MockOpenAI([status(500)] * 10) as srv:
        conv = session.Conversation(settings=settings(srv, max_retries=1))
        assert conv.driver == "llm"
        conv.respond("warm-up")  # the first LLM turn also pays the LangChain imports
        start = time.monotonic()
        turn = conv.respond("Llama-3-70B inference, BF16, 8k context, 10 users, global")
        elapsed = time.monotonic() - start
    assert turn.mode == "deterministic" and turn.note and "model server returned an error" in turn.note
    assert elapsed < 5  # "within a few seconds" (loose: the machine is shared)


def test_session_uses_the_llm_turn_when_the_model_answers() -> None:
    session = pytest.importorskip("advisor.conversation.session")
    with MockOpenAI(_good()) as srv:
        conv = session.Conversation(settings=settings(srv))
        streamed = list(conv.stream(QUESTION))
    assert [type(i) for i in streamed] == [Step, Turn]
    assert streamed[-1].mode == "llm" and model_text(streamed[-1]) == _answer()


def test_cli_ask_json_uses_the_configured_model(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("ui.cli.commands.ask")
    from ui.cli.entry import main

    with MockOpenAI(_good()) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-cli")
        monkeypatch.setenv("ADVISOR_READER", "agent")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("ADVISOR_MODEL", "mock-model")
        assert main(["ask", "--json", QUESTION]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "llm" and out["answer"].startswith(_answer())
    assert out["numbers"] and all({"name", "value", "unit", "source"} <= set(n) for n in out["numbers"])
    assert out["findings"] and out["findings"][0]["rule_id"] == "sizing-does-not-fit"
    assert srv.completions[0]["headers"]["authorization"] == "Bearer sk-cli"
