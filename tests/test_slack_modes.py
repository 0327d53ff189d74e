"""Running the bot: `gpu-advisor slack` configuration errors, Socket Mode dispatch, the HTTP server as a real
subprocess, the bot beside the web app in one process, the store, and the app manifest."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.mock_slack_api import MockSlackApi
from tests.slack_support import FakeConversation, command_body, event_body, fake_factory, mention, post
from ui.cli.entry import main
from ui.slack.app import ConversationStore, SlackSettings, TTLCache, build_slack_app, make_web_client

ROOT = Path(__file__).resolve().parents[1]
SLACK_VARS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL", "ADVISOR_WEB_URL",
              "ADVISOR_SLACK_TABLE", "ADVISOR_SLACK_COMMAND_RESPONSE")


@pytest.fixture
def env(monkeypatch):
    for k in SLACK_VARS:
        monkeypatch.delenv(k, raising=False)
    return monkeypatch


@pytest.fixture(scope="module")
def mock():
    with MockSlackApi() as m:
        yield m


# ------------------------------------------------------------------------------------- configuration errors

@pytest.mark.parametrize("argv, vars_, named", [
    (["slack", "--socket"], {}, "SLACK_BOT_TOKEN"),
    (["slack", "--http"], {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET"),
    (["slack", "--socket"], {"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_APP_TOKEN"),
    (["slack", "--socket"], {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-2"}, "xapp-"),
    (["slack", "--http"], {"SLACK_BOT_TOKEN": "xoxp-user", "SLACK_SIGNING_SECRET": "s"}, "xoxb-"),
    (["slack"], {"ADVISOR_SLACK_TABLE": "grid"}, "ADVISOR_SLACK_TABLE"),
    (["slack", "--socket", "--with-web"], {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xapp-1"}, "--http"),
    (["slack", "--http", "--port", "70000"], {}, "--port"),
])
def test_configuration_errors_are_one_clear_line(env, capsys, argv, vars_, named):
    for k, v in vars_.items():
        env.setenv(k, v)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-advisor: error:") and named in err and err.count("\n") == 1
    assert "xoxb-1" not in err and "xapp-1" not in err  # secrets are never echoed


def test_rejected_token_and_unreachable_api(env, capsys, mock):
    env.setenv("SLACK_BOT_TOKEN", "xoxb-invalid")
    env.setenv("SLACK_SIGNING_SECRET", "s")
    env.setenv("SLACK_API_URL", mock.api_url)
    assert main(["slack", "--http", "--port", "1"]) == 2
    assert "Slack refused SLACK_BOT_TOKEN" in capsys.readouterr().err
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    env.setenv("SLACK_BOT_TOKEN", "xoxb-ok")
    env.setenv("SLACK_API_URL", f"http://127.0.0.1:{dead}/api/")
    assert main(["slack", "--http", "--port", "1"]) == 2
    assert "cannot reach the Slack Web API" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------- Socket Mode

def test_socket_mode_dispatch_answers_and_deduplicates(mock):
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_sdk.socket_mode.request import SocketModeRequest

    mock.reset()
    settings = SlackSettings(bot_token="xoxb-test", app_token="xapp-test", api_url=mock.api_url)
    app = build_slack_app(settings, mode="socket", client=make_web_client("xoxb-test", mock.api_url),
                          conversation_factory=fake_factory, conversation_loader=FakeConversation.from_dict)
    handler = SocketModeHandler(app, "xapp-test")  # constructing it does not connect
    acks = []
    handler.client.send_socket_mode_response = acks.append  # the websocket is the only thing not exercised
    payload = json.loads(event_body(mention("70B via socket", ts="1700000100.000100"), event_id="EvS1"))
    for attempt in (None, 1):  # the original delivery and a redelivery of the same event
        req = SocketModeRequest(type="events_api", envelope_id=f"env-{attempt}", payload=payload,
                                retry_attempt=attempt, retry_reason="timeout" if attempt else None)
        handler.handle(handler.client, req)
    assert [a.envelope_id for a in acks] == ["env-None", "env-1"]  # both acknowledged (unsigned: socket mode)
    [call] = mock.wait_calls("chat.postMessage", 1)
    assert call.body["thread_ts"] == "1700000100.000100"
    assert app.advisor_bot.wait_idle(5)
    assert len(mock.calls_to("chat.postMessage")) == 1  # answered once
    # slash commands arrive as a dict payload in Socket Mode
    cmd = dict(x.split("=", 1) for x in command_body("int4", mock.response_url("s")).split("&"))
    cmd = {k: urllib.parse.unquote_plus(v) for k, v in cmd.items()}
    handler.handle(handler.client, SocketModeRequest(type="slash_commands", envelope_id="env-c", payload=cmd))
    assert "Working on" in acks[-1].payload["text"]
    mock.wait_calls("response_url", 1)
    app.advisor_bot.close()


# ------------------------------------------------------------------------------------ HTTP mode, as a process

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout: float = 30.0) -> bytes:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_gpu_advisor_slack_http_serves_signed_events(mock, tmp_path):
    mock.reset()
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k not in SLACK_VARS and not k.startswith("OPENAI")}
    env.update(SLACK_BOT_TOKEN="xoxb-proc", SLACK_SIGNING_SECRET="proc-secret", SLACK_API_URL=mock.api_url,
               PYTHONPATH=str(ROOT))
    log = open(tmp_path / "slack.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "slack", "--http", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        assert json.loads(_wait_http(base + "/healthz"))["slack"] is True
        assert mock.calls_to("auth.test")[0].headers["authorization"] == "Bearer xoxb-proc"
        body = event_body({"type": "app_mention", "user": "U1", "text": "<@UBOT0001>", "ts": "1700000200.000100",
                           "channel": "C1"}, event_id="EvP1")
        assert post(base + "/slack/events", body, "application/json", secret="wrong").status == 401
        r = post(base + "/slack/events", body, "application/json", secret="proc-secret")
        assert r.status == 200
        [call] = mock.wait_calls("chat.postMessage", 1, timeout=10)  # an empty mention: the help reply
        assert call.body["thread_ts"] == "1700000200.000100" and "/gpu" in call.body["text"]
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


# --------------------------------------------------------------------------------- beside the web app

def test_slack_and_web_app_in_one_server(mock):
    from starlette.testclient import TestClient

    from tests.slack_support import SECRET, sign
    from ui.server.combined import build_server_app

    mock.reset()
    settings = SlackSettings(bot_token="xoxb-test", signing_secret=SECRET, api_url=mock.api_url)
    bolt = build_slack_app(settings, client=make_web_client("xoxb-test", mock.api_url),
                           conversation_factory=fake_factory, conversation_loader=FakeConversation.from_dict)
    from ui.web.app import WebSettings

    api = build_server_app(bolt, with_web=True, web_settings=WebSettings(auth=("sales", "pw")))
    with TestClient(api) as client:
        page = client.get("/")
        assert page.status_code == 200 and "gradio" in page.text.lower()
        assert client.get("/config").status_code == 401  # the web app's login applies to the web app …
        assert client.post("/gradio_api/queue/join", content=b"x" * 2_000_000).status_code == 413  # … its size limit too
        body = event_body(mention("70B beside the web app", ts="1700000300.000100"), event_id="EvW1")
        ts = str(int(time.time()))
        r = client.post("/slack/events", content=body, headers={
            "content-type": "application/json", "x-slack-request-timestamp": ts,
            "x-slack-signature": sign(body, int(ts))})
        assert r.status_code == 200  # … while Slack's signed requests need no login
        mock.wait_calls("chat.postMessage", 1)
        assert client.get("/healthz").json() == {"ok": True, "slack": True, "web": True}
    bolt.advisor_bot.close()


# ------------------------------------------------------------------------------------------------ the stores

def test_ttl_cache_is_bounded_and_expires():
    now = [0.0]
    cache = TTLCache(max_items=3, ttl_s=10, clock=lambda: now[0])
    for k in "abcd":
        cache.set(k, k.upper())
    assert "a" not in cache and len(cache) == 3  # least recently used went first
    assert cache.get("b") == "B"  # touching b makes c the oldest
    cache.set("e", "E")
    assert "c" not in cache and "b" in cache
    now[0] = 9.0
    assert cache.get("b") == "B"  # sliding: b now lives until 19
    now[0] = 15.0
    assert "d" not in cache and "e" not in cache and cache.get("b") == "B"
    assert cache.add("x") and not cache.add("x")
    now[0] = 26.0
    assert cache.add("x")  # expired, so new again


def test_conversation_store_serialises_turns_in_one_thread():
    import threading

    store = ConversationStore(max_items=10, ttl_s=60)
    inside, overlap = [0], []

    def turn():
        with store.thread(("T", "C", "1")) as st:
            inside[0] += 1
            overlap.append(inside[0])
            time.sleep(0.05)
            st.texts.append("x")
            inside[0] -= 1

    threads = [threading.Thread(target=turn) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(overlap) == 1
    assert store.get(("T", "C", "1")).texts == ["x"] * 5
    store.drop(("T", "C", "1"))
    assert store.get(("T", "C", "1")) is None


# ------------------------------------------------------------------------------------------------ manifest

ALLOWED_SCOPES = {"app_mentions:read", "chat:write", "commands", "im:history"}


def test_manifest_is_least_privilege_and_matches_the_bot():
    manifest = yaml.safe_load((ROOT / "docs" / "slack_manifest.yaml").read_text(encoding="utf-8"))
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert scopes <= ALLOWED_SCOPES, scopes - ALLOWED_SCOPES
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {"app_mention", "message.im"}
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == [SlackSettings().command]
    assert manifest["settings"]["socket_mode_enabled"] is True
    assert manifest["features"]["app_home"]["messages_tab_enabled"] is True


def test_no_tokens_in_the_repository():
    import re

    pattern = re.compile(r"xox[abpr]-\d+-\d+|xapp-\d-[A-Z0-9]+-\d+")
    for path in [*ROOT.glob("ui/**/*.py"), *ROOT.glob("docs/**/*"), *ROOT.glob("tests/*slack*.py")]:
        if path.is_file():
            assert not pattern.search(path.read_text(encoding="utf-8", errors="ignore")), path
