"""A local mock of the Slack Web API over real HTTP, for offline tests and manual runs.

It answers `POST /api/<method>` for auth.test, chat.postMessage, chat.update, chat.postEphemeral and reactions.add,
and `POST /response/<anything>` as a slash command's `response_url` (Slack answers those with the text "ok").
Every request is recorded (`calls`) with its arrival time, headers and parsed body. Scripting:

- `fail_next(method, status=429, retry_after=1)` answers the next call(s) of a method with an HTTP error and a
  `Retry-After` header (seconds), as Slack does when rate limiting;
- `fail_next(method, error="invalid_blocks")` answers `200 {"ok": false, "error": ...}` (a Slack API error);
- the block payload of every message is checked against Slack's documented limits, and a message that breaks
  them is refused with `invalid_blocks`, as Slack would.

Run it alone for manual testing:  python -m tests.mock_slack_api --port 8999
then point the bot at it:  SLACK_API_URL=http://127.0.0.1:8999/api/
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT_USER_ID = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM_ID = "T0000001"


@dataclass
class Call:
    path: str  # "/api/chat.postMessage", "/response/1"
    body: dict[str, Any]
    headers: dict[str, str]
    status: int
    ok: bool = True  # False for HTTP errors and for {"ok": false} answers
    at: float = field(default_factory=time.monotonic)

    @property
    def method(self) -> str:
        return self.path.rsplit("/", 1)[-1] if self.path.startswith("/api/") else "response_url"


@dataclass
class _Failure:
    status: int
    retry_after: int | None
    error: str | None
    times: int


class MockSlackApi:
    """The mock server. Use as a context manager, or call `start()`/`stop()`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.calls: list[Call] = []
        self._failures: dict[str, list[_Failure]] = {}
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._ts = 0
        self._server = ThreadingHTTPServer((host, port), self._handler_class())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def api_url(self) -> str:
        """The Web API base URL (what SLACK_API_URL / WebClient(base_url=...) takes)."""
        return self.url + "/api/"

    def response_url(self, name: str = "1") -> str:
        return f"{self.url}/response/{name}"

    def start(self) -> MockSlackApi:
        self._thread = threading.Thread(target=self._server.serve_forever, name="mock-slack-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockSlackApi:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ scripting and inspection
    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self._failures.clear()

    def fail_next(self, method: str, *, status: int = 429, retry_after: int | None = 1, error: str | None = None,
                  times: int = 1) -> None:
        """Answer the next `times` calls of `method` ("chat.postMessage", "response_url", …) with a failure."""
        with self._lock:
            self._failures.setdefault(method, []).append(
                _Failure(200 if error else status, None if error else retry_after, error, times))

    def calls_to(self, method: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, predicate: Callable[[list[Call]], bool], timeout: float = 5.0) -> list[Call]:
        """Block until `predicate(calls)` is true; raise AssertionError with the calls seen after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not predicate(list(self.calls)):
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(c.method, c.status) for c in self.calls]
                    raise AssertionError(f"mock Slack API: condition not met in {timeout} s; calls: {seen}")
                self._changed.wait(left)
            return list(self.calls)

    def wait_calls(self, method: str, n: int = 1, timeout: float = 5.0, ok_only: bool = True) -> list[Call]:
        def enough(calls: list[Call]) -> bool:
            return len([c for c in calls if c.method == method and (c.ok or not ok_only)]) >= n

        self.wait_for(enough, timeout)
        return [c for c in self.calls_to(method) if c.ok or not ok_only]

    # ------------------------------------------------------------------ the HTTP side
    def _answer(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        method = path.rsplit("/", 1)[-1] if path.startswith("/api/") else "response_url"
        with self._lock:
            queue = self._failures.get(method) or []
            failure = queue[0] if queue else None
            if failure:
                failure.times -= 1
                if failure.times <= 0:
                    queue.pop(0)
            self._ts += 1
            ts = f"1700000{self._ts:03d}.{self._ts:06d}"
        if failure and failure.error is None:
            extra = {"Retry-After": str(failure.retry_after)} if failure.retry_after is not None else {}
            return failure.status, extra, json.dumps({"ok": False, "error": "ratelimited"}).encode()
        if failure:
            return 200, {}, json.dumps({"ok": False, "error": failure.error}).encode()
        if method == "response_url":
            problems = _block_problems(body.get("blocks"))
            if problems:
                return 400, {}, b"invalid_blocks"
            return 200, {"Content-Type": "text/plain"}, b"ok"
        auth = headers.get("authorization", "")
        if not auth.startswith("Bearer xoxb-"):
            return 200, {}, json.dumps({"ok": False, "error": "not_authed"}).encode()
        if auth == "Bearer xoxb-invalid":
            return 200, {}, json.dumps({"ok": False, "error": "invalid_auth"}).encode()
        if method == "auth.test":
            return 200, {}, json.dumps({"ok": True, "url": "https://example.slack.com/", "team": "Example",
                                        "user": "gpu-advisor", "team_id": TEAM_ID, "user_id": BOT_USER_ID,
                                        "bot_id": BOT_ID, "is_enterprise_install": False}).encode()
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral"):
            if not body.get("channel"):
                return 200, {}, json.dumps({"ok": False, "error": "channel_not_found"}).encode()
            if not (body.get("text") or body.get("blocks")):
                return 200, {}, json.dumps({"ok": False, "error": "no_text"}).encode()
            problems = _block_problems(body.get("blocks"))
            if problems:
                return 200, {}, json.dumps({"ok": False, "error": "invalid_blocks", "errors": problems}).encode()
            out_ts = body.get("ts") if method == "chat.update" else ts
            message = {"type": "message", "text": body.get("text", ""), "user": BOT_USER_ID, "bot_id": BOT_ID,
                       "ts": out_ts}
            if body.get("thread_ts"):
                message["thread_ts"] = body["thread_ts"]
            answer = {"ok": True, "channel": body["channel"], "ts": out_ts, "message": message}
            if method == "chat.postEphemeral":
                answer = {"ok": True, "message_ts": ts}
            return 200, {}, json.dumps(answer).encode()
        if method == "reactions.add":
            return 200, {}, json.dumps({"ok": True}).encode()
        return 200, {}, json.dumps({"ok": False, "error": "unknown_method"}).encode()

    def _record(self, call: Call) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode("utf-8") if length else ""
                ctype = self.headers.get("Content-Type", "")
                if "json" in ctype:
                    body = json.loads(raw or "{}")
                else:
                    body = {k: v[-1] for k, v in urllib.parse.parse_qs(raw).items()}
                    for k in ("blocks", "attachments"):
                        if isinstance(body.get(k), str):
                            body[k] = json.loads(body[k])
                headers = {k.lower(): v for k, v in self.headers.items()}
                path = urllib.parse.urlsplit(self.path).path
                status, extra, payload = mock._answer(path, body, headers)
                self.send_response(status)
                self.send_header("Content-Type", extra.pop("Content-Type", "application/json; charset=utf-8"))
                for k, v in extra.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                ok = status == 200 and b'"ok": false' not in payload
                mock._record(Call(path, body, headers, status, ok))

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        return Handler


def _block_problems(blocks: Any) -> list[str]:
    """What Slack would refuse in `blocks` (the documented limits; see ui/slack_render.check_limits)."""
    if blocks is None:
        return []
    if not isinstance(blocks, list):
        return ["blocks is not a list"]
    from ui.slack.render import check_limits

    problems = check_limits(blocks)
    for i, b in enumerate(blocks):
        if b.get("type") not in {"section", "context", "actions", "divider", "header", "table", "rich_text"}:
            problems.append(f"block {i}: unknown type {b.get('type')!r}")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8999)
    args = parser.parse_args()
    mock = MockSlackApi(port=args.port).start()
    print(f"mock Slack Web API at {mock.api_url} (response_url base {mock.url}/response/); Ctrl-C to stop")
    seen = 0
    try:
        while True:
            time.sleep(0.5)
            for c in mock.calls[seen:]:
                print(c.status, c.path, json.dumps(c.body, ensure_ascii=False)[:300], flush=True)
            seen = len(mock.calls)
    except KeyboardInterrupt:
        mock.stop()


if __name__ == "__main__":
    main()
