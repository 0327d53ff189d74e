"""/metrics (prometheus_client), health and readiness on `gpu-advisor web`, and JSON logs with the conversation id."""

from __future__ import annotations

import io
import json
import logging
import urllib.error
import urllib.request

import pytest

pytest.importorskip("prometheus_client")

from advisor import observe  # noqa: E402
from advisor.conversation.session import Conversation  # noqa: E402
from rules import engine as engine_module  # noqa: E402
from rules.engine import RuleEngineError  # noqa: E402
from ui.server import (
    logs,
    metrics,  # noqa: E402
)


@pytest.fixture
def local_metrics(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    metrics.reset_for_tests()
    assert metrics.prepare(multiprocess=False)
    yield
    metrics.reset_for_tests()


def scrape() -> dict[str, float]:
    """name{labels} -> value of the gpu_advisor_ series."""
    out = {}
    for line in metrics.render()[0].decode().splitlines():
        if line.startswith("gpu_advisor_") and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def test_turns_latency_and_fallbacks_by_cause(local_metrics) -> None:
    Conversation(driver="deterministic").respond("Qwen2.5-7B 推理，10 个用户")
    Conversation(driver="deterministic").respond("serve llama-3-8b to 20 users")
    forced = Conversation(driver="llm")  # no key: the LLM cannot answer
    turn = forced.respond("serve llama-3-8b to 20 users")
    assert turn.fallback is not None and turn.fallback.reason == "not_configured"
    got = scrape()
    assert got['gpu_advisor_turns_total{driver="deterministic",lang="zh",mode="deterministic"}'] == 1
    assert got['gpu_advisor_turns_total{driver="deterministic",lang="en",mode="deterministic"}'] == 1
    assert got['gpu_advisor_turns_total{driver="llm",lang="en",mode="deterministic"}'] == 1
    assert got['gpu_advisor_fallbacks_total{reason="not_configured"}'] == 1
    assert got['gpu_advisor_turn_seconds_count{driver="deterministic",mode="deterministic"}'] == 2
    assert got['gpu_advisor_turn_seconds_bucket{driver="deterministic",le="60.0",mode="deterministic"}'] == 2


def test_rule_engine_rebuilds_and_failures_are_counted(local_metrics, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = engine_module.RuleEngine.hits

    def once_broken(self, facts):  # noqa: ANN001, ANN202
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuleEngineError("rule evaluation failed: MemoryError()")
        return real(self, facts)

    monkeypatch.setattr(engine_module.RuleEngine, "hits", once_broken)
    engine_module.check()  # fails once, rebuilt, answered
    assert scrape()['gpu_advisor_rule_engine_errors_total{kind="rebuild"}'] == 1

    def broken(self, facts):  # noqa: ANN001, ANN202
        raise RuleEngineError("rule evaluation failed: MemoryError()")

    monkeypatch.setattr(engine_module.RuleEngine, "hits", broken)
    with pytest.raises(Exception, match="not validated"):
        engine_module.check()
    assert scrape()['gpu_advisor_rule_engine_errors_total{kind="failure"}'] == 1
    observe.store_error("slack", "save")
    assert scrape()['gpu_advisor_store_errors_total{operation="save",store="slack"}'] == 1


def test_active_sessions_and_the_metrics_token(local_metrics, monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.web.security import SessionCap

    cap = SessionCap(limit=5)
    metrics.watch_sessions("web", cap.live)
    for i in range(3):
        assert cap.admit("10.0.0.1", f"s{i}")
    assert scrape()['gpu_advisor_active_sessions{interface="web"}'] == 3
    monkeypatch.setenv(metrics.TOKEN_ENV, "t0ken-for-scrapers")
    assert metrics.metrics_response({})[0] == 401
    assert metrics.metrics_response({"authorization": "Bearer t0ken-for-scrapers"})[0] == 200


def test_turn_workers_count_into_the_servers_metrics(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ui.web.pool import TurnPool

    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    metrics.reset_for_tests()
    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(tmp_path))
    pool = TurnPool(1)
    try:
        assert metrics.prepare()
        conv = Conversation(driver="deterministic")
        state, lang, items = pool.run(conv.state, "en", None, "serve llama-3-8b to 20 users")
        assert items[-1].answer
        conv.respond("Qwen2.5-7B 推理，10 个用户")  # one in this process too
        got = scrape()
    finally:
        pool.close()
        metrics.reset_for_tests()
    assert got['gpu_advisor_turns_total{driver="deterministic",lang="en",mode="deterministic"}'] == 1  # the worker
    assert got['gpu_advisor_turns_total{driver="deterministic",lang="zh",mode="deterministic"}'] == 1  # this one
    assert any(p.name.startswith("counter_") for p in tmp_path.iterdir())


def test_json_logs_carry_the_conversation_id() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    logger = logging.getLogger("advisor.test_json_logs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        conv = Conversation(driver="deterministic")
        conv.respond("serve llama-3-8b to 20 users")
        logger.info("inside the turn's thread", extra={"turn": 1})
        try:
            raise ValueError("boom")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["conversation_id"] == observe.conversation_id(conv) and len(first["conversation_id"]) == 16
    assert first["message"] == "inside the turn's thread" and first["level"] == "info" and first["turn"] == 1
    assert "ValueError: boom" in second["exc"]


def _get(url: str, **headers: str) -> tuple[int, str, str]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:  # noqa: S310 - 127.0.0.1
            return resp.status, resp.headers.get("content-type", ""), resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("content-type", ""), exc.read().decode()


def test_plain_web_server_has_health_readiness_and_metrics() -> None:
    from tests.web_server import WebServer

    server = WebServer(name="web-metrics", GPU_ADVISOR_WEB_WORKERS="1")
    with server as url:
        assert _get(url + "healthz")[0] == 200 and json.loads(_get(url + "healthz")[2])["ok"] is True
        status, _, body = _get(url + "readyz")
        assert status == 200 and json.loads(body)["ready"] is True
        req = urllib.request.Request(url + "api/v1/ask", data=json.dumps({"text": "serve llama-3-8b to 20 users"}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310
            assert json.loads(resp.read())["fallback"] is None
        status, ctype, text = _get(url + "metrics")
        log_lines = server.log().splitlines()
    assert status == 200 and ctype.startswith("text/plain")
    assert 'gpu_advisor_turns_total{driver="deterministic",lang="en",mode="deterministic"} 1.0' in text
    assert "gpu_advisor_turn_seconds_bucket" in text and "gpu_advisor_active_sessions" in text
    json_lines = [json.loads(line) for line in log_lines if line.startswith("{")]
    assert json_lines and all({"ts", "level", "logger", "message", "conversation_id"} <= set(d) for d in json_lines)


def test_api_server_has_health_readiness_and_metrics() -> None:
    from tests.test_api_http import api_server

    with api_server() as base:
        root = base.removesuffix("/api/v1") + "/"
        assert _get(root + "healthz")[0] == 200 and json.loads(_get(root + "readyz")[2])["ready"] is True
        req = urllib.request.Request(base + "/ask", data=json.dumps({"text": "Qwen2.5-7B 推理，10 个用户"}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:  # noqa: S310
            assert json.loads(resp.read())["conversation_id"]
        status, _, text = _get(root + "metrics")
    assert status == 200
    assert 'gpu_advisor_turns_total{driver="deterministic",lang="zh",mode="deterministic"} 1.0' in text
    assert 'gpu_advisor_active_sessions{interface="api"} 1.0' in text
