"""The fuzz corpus of issue 31 (tests/fuzz_corpus.py, seeded): 3,200 HTTP API requests through Starlette's
TestClient and 1,100 MCP tool calls through the SDK's in-memory client. Every answer: no 5xx, no inf or nan
anywhere in the body (as a number or as text), and every error in the one format {error, field, accepted}."""

from __future__ import annotations

import json
import os
import threading
import time

import anyio
import pytest

from tests.fuzz_corpus import api_cases, check_body, mcp_cases
from ui.api import conversations as api_conversations
from ui.api.http import build_api

API_REQUESTS = int(os.environ.get("FUZZ_API_REQUESTS", "3200"))
MCP_CALLS = int(os.environ.get("FUZZ_MCP_CALLS", "1100"))


@pytest.fixture(autouse=True)
def memory_conversations():
    api_conversations.use(api_conversations.MemoryConversations())
    yield
    api_conversations.use(None)


def _in_own_thread(run: Any) -> None:
    """anyio.run in a thread of its own: an earlier test in the same process (a Gradio or MCP client) can leave an
    event loop running in the main thread, where anyio.run refuses to start a second one."""
    errors: list[BaseException] = []

    def target() -> None:
        try:
            anyio.run(run)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread below
            errors.append(exc)

    worker = threading.Thread(target=target, name="fuzz-corpus")
    worker.start()
    worker.join()
    if errors:
        raise errors[0]


def test_api_corpus_no_5xx_no_inf_one_error_format(monkeypatch) -> None:
    import httpx

    monkeypatch.setattr(api_conversations, "ADMISSION", api_conversations.AdmissionLimit(limit=10**6))
    cases = api_cases(API_REQUESTS)
    broken: list[tuple] = []
    statuses: dict[int, int] = {}

    async def run() -> None:  # one event loop for all requests (a TestClient starts a portal per request)
        transport = httpx.ASGITransport(app=build_api(), raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://fuzz") as client:
            for case in cases:
                url = "/api/v1" + case.path + (f"?{case.query}" if case.query else "")
                if case.raw is not None or case.method == "POST":
                    content = case.raw if case.raw is not None else json.dumps(case.args, allow_nan=True)
                    r = await client.request(case.method, url, content=content,
                                             headers={"content-type": "application/json"})
                else:
                    r = await client.request(case.method, url)
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                try:
                    body = r.json()
                except ValueError:
                    broken.append((case, r.status_code, r.text[:200]))
                    continue
                why = check_body(r.status_code, body)
                if why:
                    broken.append((case, why))

    start = time.monotonic()
    _in_own_thread(run)
    elapsed = time.monotonic() - start
    assert len(cases) >= 3000
    assert not broken, broken[:10]
    assert statuses.get(200, 0) > 300 and statuses.get(422, 0) > 1000, statuses  # both sides are exercised
    assert elapsed < 180, elapsed  # (CPU ~12 s; the rest is waiting on a shared machine)


def test_mcp_corpus_no_exception_no_inf_one_error_format() -> None:
    from mcp import Client

    from ui.api.mcp_server import build_server

    calls = mcp_cases(MCP_CALLS)
    broken: list[tuple] = []
    counts = {"ok": 0, "error": 0}

    async def run() -> None:
        async with Client(build_server()) as client:
            for name, args in calls:
                result = await client.call_tool(name, args)
                body = result.structured_content
                counts["error" if result.is_error else "ok"] += 1
                why = check_body(422 if result.is_error else 200, body)
                if why:
                    broken.append((name, args, why))
                elif not result.is_error and result.content[0].text.split("\n", 1)[0] != body.get("summary", ""):
                    broken.append((name, args, "text content is not the summary line"))

    start = time.monotonic()
    _in_own_thread(run)
    assert len(calls) >= 1000
    assert not broken, broken[:10]
    assert counts["ok"] > 200 and counts["error"] > 300, counts
    assert time.monotonic() - start < 180
