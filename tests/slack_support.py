"""Helpers for the Slack tests: a real HTTP server around the bolt app, signed requests, a scripted conversation.

`FakeConversation` stands in for `advisor.conversation.session.Conversation` where a test needs control over
timing or failures (slow answers, exceptions); tests of the real dialog use the real class.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from advisor.conversation.turn import Turn
from knowledge.errors import InputError
from rules.findings import Finding

SECRET = "test-signing-secret"


# ----------------------------------------------------------------------------------------- signed requests

def sign(body: str, timestamp: int, secret: str = SECRET) -> str:
    """Slack's request signature, computed independently of slack_sdk: v0=HMAC-SHA256(secret, "v0:ts:body")."""
    base = f"v0:{timestamp}:{body}".encode()
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


@dataclass
class HttpResult:
    status: int
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body or b"null")


def post(url: str, body: str, content_type: str, *, secret: str = SECRET, timestamp: int | None = None,
         signature: str | None = None, headers: dict[str, str] | None = None) -> HttpResult:
    """POST `body` to `url` over real HTTP with Slack's signature headers."""
    ts = int(time.time()) if timestamp is None else timestamp
    h = {"Content-Type": content_type, "X-Slack-Request-Timestamp": str(ts),
         "X-Slack-Signature": signature if signature is not None else sign(body, ts, secret)}
    h.update(headers or {})
    req = urllib.request.Request(url, data=body.encode(), headers=h, method="POST")
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            data = resp.read()
            return HttpResult(resp.status, data, time.monotonic() - start)
    except urllib.error.HTTPError as err:
        return HttpResult(err.code, err.read(), time.monotonic() - start)


def event_body(event: dict[str, Any], *, event_id: str, team: str = "T0000001") -> str:
    return json.dumps({
        "token": "legacy", "team_id": team, "api_app_id": "A0000001", "type": "event_callback",
        "event_id": event_id, "event_time": int(time.time()), "event": event,
        "authorizations": [{"team_id": team, "user_id": "UBOT0001", "is_bot": True}],
    })


def mention(text: str, *, ts: str, channel: str = "C0000001", thread_ts: str | None = None,
            user: str = "U0000001") -> dict[str, Any]:
    ev = {"type": "app_mention", "user": user, "text": f"<@UBOT0001> {text}", "ts": ts, "channel": channel,
          "event_ts": ts}
    if thread_ts:
        ev["thread_ts"] = thread_ts
    return ev


def dm(text: str, *, ts: str, channel: str = "D0000001", user: str = "U0000001",
       thread_ts: str | None = None) -> dict[str, Any]:
    ev = {"type": "message", "channel_type": "im", "user": user, "text": text, "ts": ts, "channel": channel,
          "event_ts": ts}
    if thread_ts:
        ev["thread_ts"] = thread_ts
    return ev


def command_body(text: str, response_url: str, *, command: str = "/gpu", channel: str = "C0000001",
                 user: str = "U0000001", team: str = "T0000001") -> str:
    return urllib.parse.urlencode({
        "token": "legacy", "team_id": team, "team_domain": "example", "channel_id": channel,
        "channel_name": "general", "user_id": user, "user_name": "alice", "command": command, "text": text,
        "api_app_id": "A0000001", "response_url": response_url, "trigger_id": "1.2.3",
    })


# --------------------------------------------------------------------------------------- a server in a thread

class AppProxy:
    """Lets one HTTP server serve a fresh bolt app per test."""

    app: Any = None

    def dispatch(self, req: Any) -> Any:
        return self.app.dispatch(req)


class ServerThread:
    """uvicorn serving a FastAPI app on 127.0.0.1 on a free port, in a daemon thread."""

    def __init__(self, api: Any) -> None:
        import uvicorn

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(api, log_level="warning", lifespan="off", access_log=False))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
        self.sock.close()


# ------------------------------------------------------------------------------------ a scripted conversation

class FakeConversation:
    """Remembers every text of its thread; answers with one option naming them. `delay_s` and `fail` script it."""

    delay_s = 0.0
    fail: str | None = None  # "user" → InputError, "bug" → RuntimeError
    answer_md = ""

    def __init__(self, texts: list[str] | None = None, lang: str | None = None) -> None:
        self.texts = list(texts or [])
        self.lang = lang

    def respond(self, text: str) -> Turn:
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.fail == "user":
            raise InputError("context must be at most 10,000,000 tokens", field="context",
                             message_zh="上下文最多 10,000,000 个 token")
        if self.fail == "bug":
            raise RuntimeError("boom")
        if text.strip().lower() == "reset":  # as the real dialog does for "start over"/"reset"
            self.texts = []
            return Turn(answer="Starting over: the earlier workload is cleared.")
        self.texts.append(text)
        lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
        finding = Finding(rule_id="fake-rule", severity="warn", message="A warning <!channel>",
                          message_zh="一个提示", source="Guide 000 §3", as_of="2025-01-01")
        answer = self.answer_md or ("**Seen:** " + " | ".join(self.texts))
        return Turn(answer=answer, lang=lang, mode="deterministic", findings=[finding],
                    options=[{"gpu": "h100-sxm-80gb", "count": len(self.texts), "layout": {"tp": len(self.texts)},
                              "per_gpu_bytes": {"total": 40 * 2**30}, "fits": True,
                              "throughput": {"decode_tokens_per_s": 30.0, "decode_tokens_per_s_total": 900.0},
                              "price": {"amount": 30000, "currency": "USD", "as_of": "2025-06-01"},
                              "findings": []}],
                    workload={"texts": list(self.texts)})

    def to_dict(self) -> dict[str, Any]:
        return {"texts": list(self.texts), "lang": self.lang}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FakeConversation:
        return cls(data["texts"], data.get("lang"))


def fake_factory(lang: str | None = None) -> FakeConversation:
    return FakeConversation(lang=lang)


# ------------------------------------------------------------------------------------------------ a harness

def message_text(body: dict[str, Any]) -> str:
    """All visible text of a message body: fallback text, block texts, fields, context elements, table cells."""
    out = [body.get("text", "")]
    for b in body.get("blocks") or []:
        out.append((b.get("text") or {}).get("text", ""))
        out += [f.get("text", "") for f in b.get("fields") or []]
        out += [e.get("text", "") for e in b.get("elements") or [] if isinstance(e.get("text"), str)]
        out += [c.get("text", "") for r in b.get("rows") or [] for c in r]
    return "\n".join(out)


class Harness:
    """A mock Slack Web API plus the bot served over HTTP; `bot(...)` installs a fresh bolt app for a test."""

    def __init__(self) -> None:
        from tests.mock_slack_api import MockSlackApi
        from ui.server.combined import build_server_app

        self.mock = MockSlackApi().start()
        self.proxy = AppProxy()
        self.server = ServerThread(build_server_app(self.proxy)).start()
        self.apps: list[Any] = []

    @property
    def events_url(self) -> str:
        return self.server.url + "/slack/events"

    def bot(self, *, conversation_factory: Any = fake_factory, conversation_loader: Any = None,
            **settings: Any) -> Any:
        from ui.slack.app import SlackSettings, build_slack_app, make_web_client

        self.mock.reset()
        settings.setdefault("placeholder_after_s", 5.0)
        cfg = SlackSettings(bot_token="xoxb-test", signing_secret=SECRET, api_url=self.mock.api_url, **settings)
        if conversation_factory is fake_factory and conversation_loader is None:
            conversation_loader = FakeConversation.from_dict
        app = build_slack_app(cfg, client=make_web_client("xoxb-test", self.mock.api_url),
                              conversation_factory=conversation_factory, conversation_loader=conversation_loader)
        self.proxy.app = app
        self.apps.append(app)
        return app

    def send(self, event: dict[str, Any], event_id: str, **kw: Any) -> HttpResult:
        return post(self.events_url, event_body(event, event_id=event_id), "application/json", **kw)

    def finish_apps(self) -> None:
        for app in self.apps:
            app.advisor_bot.wait_idle(10)
            app.advisor_bot.close()
        self.apps.clear()

    def stop(self) -> None:
        self.finish_apps()
        self.server.stop()
        self.mock.stop()
