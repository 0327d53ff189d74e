"""The agent's two deadlines over real HTTP (ChatOpenAI against tests/mock_openai_server.py on 127.0.0.1).

- first byte: a model that sends nothing is given up after `first_token_timeout_s` (default 5 s), not retried;
- total: a model that keeps sending a little (a drip, so no read ever times out) is given up at `turn_timeout_s`
  (default 15 s), and its connection is closed;
then the session answers deterministically and `ask --json` says why (`fallback.reason`).
The real figures at the defaults are printed by benchmarks/bench_agent_deadlines.py.
"""

from __future__ import annotations

import json
import threading
import time

import pytest

pytest.importorskip("langchain_openai")

from advisor.conversation.llm import agent as agent_module  # noqa: E402
from advisor.conversation.llm.agent import AgentDriver, AgentUnavailable  # noqa: E402
from advisor.conversation.llm.settings import Settings  # noqa: E402
from tests.mock_openai_server import MockOpenAI, drip, hang, status  # noqa: E402

QUESTION = "How much memory does Llama-3-70B need on an H100?"


@pytest.fixture(scope="module", autouse=True)
def _imported():
    """Pay LangChain's imports (1-4 s on a loaded machine) before any timing."""
    import langchain.agents  # noqa: F401
    import langchain_openai  # noqa: F401


@pytest.fixture(autouse=True)
def _reset():
    yield
    for thread in threading.enumerate():
        if thread.name == "advisor-agent":
            thread.join(timeout=10)
    agent_module.reset_breakers()


def settings(srv: MockOpenAI, **kw) -> Settings:
    base = {"api_key": "sk-test", "base_url": srv.base_url, "model": "mock-model", "backoff_initial_s": 0.01,
            "reader": "agent"}  # the tool-calling loop under test
    return Settings(**{**base, **kw})


def fail(srv: MockOpenAI, **kw) -> tuple[AgentUnavailable, float, float]:
    """The error, the seconds from the model's first request reaching the server to the fallback (what the
    first-byte timeout bounds; building the agent before it is not timed: seconds on a loaded machine), and the
    turn's whole wall time (what the total deadline bounds)."""
    start = time.monotonic()
    with pytest.raises(AgentUnavailable) as info:
        list(AgentDriver(settings(srv, **kw)).run(None, QUESTION))
    end = time.monotonic()
    return info.value, end - srv.completions[0]["t"], end - start


def test_defaults_are_short_and_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    s = Settings()
    assert s.first_token_timeout_s <= 5 and s.turn_timeout_s <= 15 and s.stream is True
    env = {"ADVISOR_FIRST_TOKEN_TIMEOUT_S": "2.5", "ADVISOR_TURN_TIMEOUT_S": "9"}
    s = Settings.from_env(env)
    assert (s.first_token_timeout_s, s.turn_timeout_s) == (2.5, 9)


def test_a_hanging_model_is_given_up_after_the_first_byte_timeout() -> None:
    with MockOpenAI([hang(8), hang(8)]) as srv:
        err, elapsed, _ = fail(srv, first_token_timeout_s=1.0, turn_timeout_s=10, max_retries=2)
    assert err.reason == "timeout" and len(srv.completions) == 1  # the wait it had is the wait it gets
    assert 0.9 <= elapsed < 2.5  # (loose: a shared machine; a retry would show in the count above)


def test_a_dripping_stream_is_cut_at_the_total_deadline() -> None:
    with MockOpenAI([drip(12, every_s=0.2)]) as srv:
        err, elapsed, total = fail(srv, first_token_timeout_s=1.0, turn_timeout_s=2.0)
        assert err.reason == "timeout" and 1.95 <= total and elapsed < 3.0  # no read timed out: the deadline did
        start = time.monotonic()
        for thread in threading.enumerate():
            if thread.name == "advisor-agent":
                thread.join(timeout=5)
        closed_after = time.monotonic() - start
    assert closed_after < 2.5  # the abandoned worker stopped reading the drip at the next chunk


def test_a_dripping_unstreamed_reply_is_cut_at_the_total_deadline() -> None:
    with MockOpenAI([drip(8, every_s=0.2)]) as srv:
        err, elapsed, total = fail(srv, stream=False, request_timeout_s=60, turn_timeout_s=1.5)
    assert err.reason == "timeout" and 1.45 <= total and elapsed < 2.5


def test_the_session_falls_back_within_the_bound_and_ask_json_says_why(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from ui.cli.entry import main

    with MockOpenAI([hang(8)] * 4) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-cli")
        monkeypatch.setenv("ADVISOR_READER", "agent")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("ADVISOR_MODEL", "mock-model")
        monkeypatch.setenv("ADVISOR_FIRST_TOKEN_TIMEOUT_S", "1")
        start = time.monotonic()
        assert main(["ask", "--json", "Llama-3-70B inference, BF16, 8k context, 10 users"]) == 0
        elapsed = time.monotonic() - start
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "deterministic" and out["fallback"]["reason"] == "timeout"
    assert "did not answer in time" in out["note"] and out["answer"]
    assert elapsed < 6  # 1 s first-byte wait + the deterministic answer (+ imports on a shared machine)


def test_ask_json_names_other_causes(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    from ui.cli.entry import main

    with MockOpenAI([status(500)] * 4) as srv:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-cli")
        monkeypatch.setenv("ADVISOR_READER", "agent")
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("ADVISOR_BACKOFF_INITIAL_S", "0.01")
        assert main(["ask", "--json", "Qwen2.5-7B for 10 users"]) == 0
    assert json.loads(capsys.readouterr().out)["fallback"]["reason"] == "server_error"
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert main(["ask", "--json", "--driver", "llm", "Qwen2.5-7B for 10 users"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fallback"]["reason"] == "not_configured" and out["mode"] == "deterministic"
    assert main(["ask", "--json", "--driver", "deterministic", "Qwen2.5-7B for 10 users"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fallback"] is None and out["note"] == ""  # deterministic by choice: nothing fell back
