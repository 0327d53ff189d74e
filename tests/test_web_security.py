"""The web server's guards (ui/web/security.py): headers, login throttling, the login on every API route,
malformed events, sessions per client address, and half-sent requests timing out."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from tests.web_server import WebServer
from ui.web.security import (
    FREE_FAILURES,
    HEADER_TIMEOUT_S,
    MAX_LOCK_S,
    LoginThrottle,
    SessionCap,
    valid_event,
)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_throttle_backs_off_exponentially_and_forgives_a_success() -> None:
    clock = Clock()
    th = LoginThrottle(clock)
    keys = ["ip:10.0.0.1", "user:sales"]
    locks = [th.failure(keys) for _ in range(FREE_FAILURES + 6)]
    assert locks == [0.0] * FREE_FAILURES + [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    assert th.retry_after(keys) == 32.0
    assert th.retry_after(["user:sales"]) == 32.0  # the user is locked from any address …
    assert th.retry_after(["ip:10.0.0.2", "user:other"]) == 0.0  # … others are not
    for _ in range(20):
        th.failure(keys)
    assert th.retry_after(keys) == MAX_LOCK_S
    clock.t += MAX_LOCK_S + 1
    assert th.retry_after(keys) == 0.0
    th.success(keys)
    assert th.failure(keys) == 0.0  # counting starts again


def test_session_cap_per_address_keeps_known_sessions() -> None:
    clock = Clock()
    cap = SessionCap(limit=3, clock=clock)
    assert all(cap.admit("1.2.3.4", f"s{i}") for i in range(3))
    assert not cap.admit("1.2.3.4", "s-new")  # a fourth new session from the same address
    assert cap.admit("1.2.3.4", "s0")  # an existing conversation is never refused
    assert cap.admit("5.6.7.8", "s-other")
    clock.t += 3601
    assert cap.admit("1.2.3.4", "s-later")  # idle sessions stop counting


@pytest.mark.parametrize(("body", "ok"), [
    (b'{"fn_index": 1, "session_hash": "abc", "data": []}', True),
    (b'{"fn_index": "x"}', False), (b'{"fn_index": -1}', False), (b'{"fn_index": 10**30}', False),
    (b'{"fn_index": true}', False), (b'{"fn_index": 99}', False), (b"[1]", False), (b"not json", False),
    (b'{"session_hash": 5}', False), (b'{"data": "x"}', False),
])
def test_malformed_events_are_named(body: bytes, ok: bool) -> None:
    assert (valid_event(body, fn_count=10) is None) is ok


@pytest.fixture(scope="module")
def server():
    with WebServer(name="web-server-security", GPU_ADVISOR_WEB_AUTH="sales:quote-2025") as url:
        yield url


def test_security_headers_on_page_api_and_errors(server: str) -> None:
    for path in ("", "gradio_api/info", "gradio_api/file=/etc/passwd", "no-such-page"):
        r = httpx.get(server + path, timeout=10)
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
        assert r.headers["x-frame-options"] == "DENY" and r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"


def test_every_api_route_needs_the_login(server: str) -> None:
    for method, path in [("GET", "gradio_api/user"), ("GET", "gradio_api/token"), ("GET", "gradio_api/runs"),
                         ("GET", "gradio_api/heartbeat/abc"), ("POST", "gradio_api/cancel"),
                         ("POST", "gradio_api/reset"), ("GET", "gradio_api/info"), ("POST", "gradio_api/queue/join")]:
        r = httpx.request(method, server + path, json={"session_hash": "x", "fn_index": 0, "event_id": "e"},
                          timeout=10)
        assert r.status_code == 401, (path, r.status_code)  # cancel, reset, heartbeat, token, user, runs were open


def test_login_throttle_and_then_the_api_opens(server: str) -> None:
    client = httpx.Client(timeout=10)
    codes = [client.post(server + "login", data={"username": "sales", "password": f"no{i}"}).status_code
             for i in range(FREE_FAILURES + 4)]
    assert codes[:FREE_FAILURES + 1] == [400] * (FREE_FAILURES + 1) and set(codes[FREE_FAILURES + 1:]) == {429}
    locked = client.post(server + "login", data={"username": "sales", "password": "quote-2025"})
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1  # not even checked
    time.sleep(int(locked.headers["retry-after"]) + 0.2)
    ok = client.post(server + "login", data={"username": "sales", "password": "quote-2025"})
    assert ok.status_code == 200
    assert client.get(server + "gradio_api/info").status_code == 200
    bad = client.post(server + "gradio_api/queue/join", json={"fn_index": "x", "session_hash": "s", "data": []})
    assert bad.status_code == 400 and "fn_index" in bad.text  # was 500


def test_half_sent_requests_time_out(server: str) -> None:
    host, port = server.split("//")[1].rstrip("/").split(":")
    socks = []
    for _ in range(20):
        s = socket.create_connection((host, int(port)), timeout=HEADER_TIMEOUT_S + 10)
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finishes its headers
        socks.append(s)
    start = time.monotonic()
    for s in socks:
        assert s.recv(1) == b""  # the server closed it
        s.close()
    assert time.monotonic() - start < HEADER_TIMEOUT_S + 5  # was held for over 33 s (no limit at all)
    assert httpx.get(server, timeout=10).status_code == 200  # and still serves others
