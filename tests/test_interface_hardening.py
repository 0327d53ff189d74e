"""The program interfaces probed as a hostile client would (issue 31): each finding of the probe has a test here
that failed before the fix. In process (Starlette's TestClient), plus two uvicorn servers in threads for the
deadlines and connection caps."""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from advisor.store import open_store
from ui.api import conversations as api_conversations
from ui.api.http import build_api
from ui.server import auth_throttle
from ui.server.auth_throttle import FREE_FAILURES, StoreThrottle

USER, PASSWORD, TOKEN = "alice", "right-password", "t" * 24


def basic(user: str, password: str) -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


@pytest.fixture
def throttle(tmp_path) -> Iterator[StoreThrottle]:
    """The one throttle, on a store of its own (as every process on that database would share it)."""
    store = open_store(f"sqlite:///{tmp_path / 'throttle.db'}")
    assert store is not None
    shared = StoreThrottle(store)
    auth_throttle.use(shared)
    try:
        yield shared
    finally:
        auth_throttle.use(None)
        store.close()


def _login_app() -> Starlette:
    """A stand-in for Gradio's /login behind the web's SecurityGuard (400 for a wrong password, as Gradio)."""
    from ui.web.security import SecurityGuard

    async def login(request: Request) -> PlainTextResponse:
        form = dict(p.split("=", 1) for p in (await request.body()).decode().split("&") if "=" in p)
        ok = form.get("username") == USER and form.get("password") == PASSWORD
        return PlainTextResponse("ok" if ok else "wrong", 200 if ok else 400)

    app = Starlette(routes=[Route("/login", login, methods=["POST"])], middleware=[Middleware(SecurityGuard)])
    app.auth = [(USER, PASSWORD)]  # type: ignore[attr-defined]  # what SecurityGuard reads of Gradio's app
    return app


# --- 1. one throttle for every credential path ----------------------------------------------------------------

def test_a_user_locked_on_the_api_stays_locked_on_every_path(throttle, monkeypatch, tmp_path) -> None:
    """Before: 300 wrong HTTP Basic passwords on /api/v1 were all answered 401 and the right one then got 200 while
    /login answered 429; MCP and metrics tokens were unthrottled."""
    from ui.api.mcp_server import http_app
    from ui.server.metrics import OpsEndpoints

    api = TestClient(build_api((USER, PASSWORD), token=TOKEN))
    codes = [api.get("/api/v1/gpus/h20", headers=basic(USER, f"wrong{i}")).status_code
             for i in range(FREE_FAILURES + 3)]
    assert codes[:FREE_FAILURES + 1] == [401] * (FREE_FAILURES + 1) and set(codes[FREE_FAILURES + 1:]) == {429}
    right = api.get("/api/v1/gpus/h20", headers=basic(USER, PASSWORD))
    assert right.status_code == 429 and int(right.headers["retry-after"]) >= 1
    assert set(right.json()) == {"error", "field", "accepted"}
    assert api.get("/api/v1/gpus/h20", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 429
    # /api/v1 inside the web process (mounted in front of Gradio), from another address: the user is locked there
    from ui.api.http import web_middleware

    web_api = TestClient(Starlette(middleware=[web_middleware((USER, PASSWORD))]), client=("192.0.2.8", 4000))
    mounted = web_api.get("/api/v1/gpus/h20", headers=basic(USER, PASSWORD))
    assert mounted.status_code == 429 and mounted.json()["field"] == "authorization"
    # the web login form, for that user, from another address too
    web = TestClient(_login_app(), client=("192.0.2.7", 4000))
    form = {"content-type": "application/x-www-form-urlencoded"}
    locked = web.post("/login", content=f"username={USER}&password={PASSWORD}", headers=form)
    assert locked.status_code == 429 and int(locked.headers["retry-after"]) >= 1
    # the address is locked on MCP and /metrics as well, with their right tokens
    mcp = TestClient(http_app(token=TOKEN))
    assert mcp.post("/mcp", json={}, headers={"authorization": f"Bearer {TOKEN}"}).status_code == 429
    monkeypatch.setenv("GPU_ADVISOR_METRICS_TOKEN", TOKEN)
    ops = TestClient(OpsEndpoints(PlainTextResponse("app")))
    metrics = ops.get("/metrics", headers={"authorization": f"Bearer {TOKEN}"})
    assert metrics.status_code == 429 and metrics.headers["retry-after"]
    # another process on the same database sees the lock (its own connection, its own memory)
    other = open_store(f"sqlite:///{tmp_path / 'throttle.db'}")
    assert other is not None
    try:
        assert StoreThrottle(other).retry_after([f"user:{USER}"]) > 0
    finally:
        other.close()


def test_wrong_tokens_on_mcp_and_metrics_lock_the_address(throttle, monkeypatch) -> None:
    from ui.api.mcp_server import http_app
    from ui.server.metrics import OpsEndpoints

    mcp = TestClient(http_app(token=TOKEN), client=("198.51.100.1", 1))
    codes = [mcp.post("/mcp", json={}, headers={"authorization": f"Bearer wrong{i}"}).status_code
             for i in range(FREE_FAILURES + 2)]
    assert codes == [401] * (FREE_FAILURES + 1) + [429]
    monkeypatch.setenv("GPU_ADVISOR_METRICS_TOKEN", TOKEN)
    ops = TestClient(OpsEndpoints(PlainTextResponse("app")), client=("198.51.100.2", 1))
    codes = [ops.get("/metrics", headers={"authorization": f"Bearer wrong{i}"}).status_code
             for i in range(FREE_FAILURES + 2)]
    assert codes == [401] * (FREE_FAILURES + 1) + [429]
    api = TestClient(build_api((USER, PASSWORD)), client=("198.51.100.2", 1))
    assert api.get("/api/v1/gpus/h20", headers=basic(USER, PASSWORD)).status_code == 429


def test_a_right_login_costs_no_write_and_forgets_earlier_failures(throttle) -> None:
    api = TestClient(build_api((USER, PASSWORD)), client=("203.0.113.9", 1))
    # requests without credentials guess nothing: 401, not counted (a client's first, unauthenticated try)
    assert {api.get("/api/v1/gpus/h20").status_code for _ in range(FREE_FAILURES + 3)} == {401}
    assert throttle.store.auth_failures(["ip:203.0.113.9"]) == {}
    assert api.get("/api/v1/gpus/h20", headers=basic(USER, "wrong")).status_code == 401
    assert throttle.store.auth_failures(["ip:203.0.113.9"])["ip:203.0.113.9"][0] == 1
    assert api.get("/api/v1/gpus/h20", headers=basic(USER, PASSWORD)).status_code == 200
    assert throttle.store.auth_failures(["ip:203.0.113.9", f"user:{USER}"]) == {}


# --- 2. deadlines, connection caps and headers on every server ------------------------------------------------

@contextmanager
def served(app: Any) -> Iterator[int]:
    """`app` under uvicorn with the project's settings (ui.server.http.uvicorn_config) in a thread."""
    import uvicorn

    from tests.web_server import free_port
    from ui.server.http import uvicorn_config

    port = free_port()
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def _closed_after(sock: socket.socket, limit_s: float) -> float | None:
    """Seconds until the server closed `sock` (None: still open after limit_s)."""
    sock.settimeout(limit_s)
    start = time.monotonic()
    try:
        while sock.recv(1024):
            pass
    except TimeoutError:
        return None
    except OSError:
        pass
    return time.monotonic() - start


@pytest.mark.parametrize("which", ["api", "mcp"])
def test_half_sent_headers_are_closed_on_the_api_and_mcp_servers(which, monkeypatch) -> None:
    """Before: headers sent a line at a time kept 30 of 30 connections to `api` and `mcp --http` open past 26 s."""
    from ui.api.mcp_server import http_app
    from ui.web.security import GuardedHttp

    monkeypatch.setattr(GuardedHttp, "header_timeout_s", 1.0)
    with served(build_api() if which == "api" else http_app()) as port:
        socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]
        for s in socks:
            s.sendall(b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        waits = [_closed_after(s, 5.0) for s in socks]
        for s in socks:
            s.close()
        assert all(w is not None and w < 3.0 for w in waits), waits
        # the server still serves
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall(b"GET /api/v1/gpus/h20 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.1 ")


def test_connections_past_the_cap_per_address_are_closed(monkeypatch) -> None:
    from ui.web.security import GuardedHttp

    monkeypatch.setattr(GuardedHttp, "max_per_client", 3)
    with served(build_api()) as port:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", port))
        assert _closed_after(extra, 2.0) is not None  # refused at once
        extra.close()
        for s in held:
            s.close()
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", port)) as s:  # the count went down again
            s.sendall(b"GET /api/v1/gpus/h20 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert s.recv(100).startswith(b"HTTP/1.1 200")


def test_security_headers_and_no_idle_event_stream_on_the_api_and_mcp_servers() -> None:
    """Before: `gpu-advisor api` sent no security headers; GET /mcp opened an event stream that never sent."""
    import httpx

    from ui.api.mcp_server import http_app

    with served(build_api()) as port:
        r = httpx.get(f"http://127.0.0.1:{port}/api/v1/gpus/h20", timeout=10)
        assert r.status_code == 200 and r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in r.headers["content-security-policy"]
    with served(http_app()) as port:
        start = time.monotonic()
        r = httpx.get(f"http://127.0.0.1:{port}/mcp", headers={"accept": "text/event-stream"}, timeout=10)
        assert r.status_code == 405 and r.headers["allow"] == "POST" and time.monotonic() - start < 2
        assert r.headers["referrer-policy"] == "no-referrer" and r.json()["field"] == "method"


# --- 3. one client cannot evict another's conversations --------------------------------------------------------

def test_a_flood_of_new_conversations_is_refused_and_the_real_client_keeps_its_own(monkeypatch) -> None:
    """Before: 1,001 anonymous asks pushed every API conversation out of its 1,000-slot cache."""
    monkeypatch.setattr(api_conversations, "ADMISSION", api_conversations.AdmissionLimit(limit=4))
    api_conversations.use(api_conversations.MemoryConversations(capacity=8))
    try:
        app = build_api()
        real = TestClient(app, client=("192.0.2.1", 1))
        first = real.post("/api/v1/ask", json={"text": "Llama-3.1-8B inference, 10 users"}).json()
        flood = TestClient(app, client=("192.0.2.66", 1))
        codes = [flood.post("/api/v1/ask", json={"text": "hi"}).status_code for _ in range(12)]
        assert codes == [200] * 4 + [429] * 8
        refused = flood.post("/api/v1/ask", json={"text": "hi"})
        assert int(refused.headers["retry-after"]) > 0 and refused.json()["field"] == "conversation_id"
        again = real.post("/api/v1/ask", json={"text": "and with 16k context?",
                                               "conversation_id": first["conversation_id"]})
        assert again.status_code == 200 and again.json()["conversation_id"] == first["conversation_id"]
    finally:
        api_conversations.use(None)


# --- 4. no inf or nan reaches people -------------------------------------------------------------------------

def test_the_tco_of_a_vanishing_period_and_utilisation_is_refused_not_inf() -> None:
    """Before: 200 with "¥inf CNY" per year, a break-even of "inf%" and "4.94066e-324 years"."""
    api = TestClient(build_api())
    r = api.post("/api/v1/tco", json={"gpu": "h100-sxm", "years": 5e-324, "utilization": 5e-324})
    assert r.status_code == 422 and r.json()["field"] == "years" and "inf" not in r.text.lower().replace("info", "")
    r = api.post("/api/v1/tco", json={"gpu": "h100-sxm", "years": 1 / 12, "utilization": 0.01})
    assert r.status_code == 200 and r.json()["years"] == pytest.approx(1 / 12)


def test_the_rendering_guard_refuses_what_is_not_finite() -> None:
    from ui.api.service import showable, unshowable

    for bad in ({"a": float("inf")}, {"a": [1.0, float("nan")]}, {"s": "¥inf CNY per year"}, {"s": "inf%"},
                {"s": "NaN GiB"}, {"s": "-Infinity"}, {"n": [{"display": "nan tokens/s"}]}):
        assert unshowable(bad) is not None, bad
        with pytest.raises(Exception, match="not a finite number"):
            showable("tco", bad)
    for good in ({"s": "information, infiniband, Nanjing, INF-34B, 12.5 GiB"}, {"x": 1e308, "y": [0, -1.5]}):
        assert unshowable(good) is None, good


# --- 5. one error format --------------------------------------------------------------------------------------

@pytest.mark.parametrize("body", [b'{"model": "\xff\xfe"}', b"[" * 5000 + b"]" * 5000, b'{"a":' * 3000 + b"1"
                                  + b"}" * 3000, b"\xc3\x28", b'{"model": "llama-3.1-8b"'])
def test_bodies_that_cannot_be_parsed_get_the_documented_422(body) -> None:
    """Before: 400 {"detail": "There was an error parsing the body"} for invalid UTF-8 and deep nesting."""
    r = TestClient(build_api()).post("/api/v1/estimate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and set(r.json()) == {"error", "field", "accepted"} and r.json()["field"] == "body"


def test_unknown_paths_and_methods_use_the_same_error_body() -> None:
    api = TestClient(build_api())
    for r, field in ((api.get("/api/v1/nope"), "path"), (api.get("/api/v1/estimate"), "method"),
                     (api.post("/api/v1/gpus/h20", json={}), "method")):
        assert r.status_code in (404, 405) and r.json()["field"] == field and set(r.json()) == {"error", "field", "accepted"}


# --- 7. strict types at the edge ------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "body", "field"), [
    ("/estimate", {"model": "llama-3.1-8b", "gpus": True}, "gpus"),
    ("/estimate", {"model": "llama-3.1-8b", "concurrency": "1_000"}, "concurrency"),
    ("/estimate", {"model": "llama-3.1-8b", "context": "  12  "}, "context"),
    ("/estimate", {"model": "llama-3.1-8b", "context": 8192.0, "batch": False}, "batch"),
    ("/tco", {"gpu": "h100-sxm", "years": "3"}, "years"),
    ("/estimate", {"model": ""}, "model"),
    ("/estimate", {"model": "llama-3.1-8b", "gpu": ""}, "gpu"),
    ("/estimate", {"model": "llama-3.1-8b", "gpu": "   "}, "gpu"),
    ("/recommend", {"model": "llama-3.1-8b", "candidates": ["h20", ""]}, "candidates"),
    ("/ask", {"text": "   "}, "text"),
])
def test_no_loose_coercion_at_the_api(path, body, field) -> None:
    """Before: true was 1, "1_000" and "  12  " were numbers, an empty gpu or model was treated as absent."""
    r = TestClient(build_api()).post("/api/v1" + path, json=body)
    assert r.status_code == 422 and r.json()["field"] == field, r.text


def test_no_loose_numbers_in_query_strings_or_on_the_command_line(capsys) -> None:
    api = TestClient(build_api())
    for q in ("limit=%20%2012%20", "limit=1_0", "min_memory_gib=8_0"):
        r = api.get("/api/v1/gpus?" + q)
        assert r.status_code == 422 and r.json()["field"] in ("limit", "min_memory_gib"), r.text
    assert api.get("/api/v1/gpus?limit=12&min_memory_gib=80").status_code == 200
    from ui.cli.entry import main

    for argv in (["estimate", "--model", "llama-3.1-8b", "--context", "8_192"],
                 ["estimate", "--model", "llama-3.1-8b", "--context", " 8192 "],
                 ["train-time", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--tokens", "1e9", "--tp", "1_0"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
        assert "plain number" in capsys.readouterr().err
    # an empty value was the option left out: `estimate --gpu ""` answered without the fit, exit 0
    for argv in (["estimate", "--model", "llama-3.1-8b", "--gpu", ""], ["estimate", "--model", "llama-3.1-8b", "--gpu="],
                 ["tco", "--gpu", "  "]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and "--gpu: an empty value is not accepted" in capsys.readouterr().err


def test_mcp_refuses_the_same_loose_input() -> None:
    from knowledge.errors import InputError
    from ui.api.service import parse

    for args, field in (({"model": "llama-3.1-8b", "gpus": True}, "gpus"), ({"model": ""}, "model"),
                        ({"model": "llama-3.1-8b", "context": "4096"}, "context")):
        with pytest.raises(InputError) as err:
            parse("estimate_memory", args)
        assert err.value.field == field


def test_errors_are_json_with_one_shape() -> None:
    r = TestClient(build_api()).post("/api/v1/estimate", json={"model": "llama-3.1-8b", "gpus": 1024, "nodes": 1024,
                                                               "gpu": "h100-sxm"})
    assert r.status_code == 422 and json.loads(r.text)["field"] == "nodes" and "count" not in r.json()["error"]


def test_mcp_new_conversations_are_counted_per_http_client() -> None:
    """MCP over HTTP admits new conversations per client address, as the API does (stdio: one client)."""
    from types import SimpleNamespace

    from ui.api.mcp_server import _client_of

    http = SimpleNamespace(request_context=SimpleNamespace(request=SimpleNamespace(client=SimpleNamespace(host="192.0.2.5"))))
    assert _client_of(http) == "192.0.2.5"
    assert _client_of(None) == "mcp" and _client_of(SimpleNamespace()) == "mcp"
