"""The API's and MCP's `ask` on the conversation store, across real processes: `gpu-advisor api` and
`gpu-advisor mcp --http` killed with SIGKILL and started again on SQLite and on PostgreSQL, two API replicas on one
PostgreSQL taking alternate turns, and unknown or foreign conversation ids (404 / an MCP tool error). Free ports,
no network, no API key (deterministic driver)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from advisor.store import open_store
from tests.web_server import ROOT, free_port, offline_env

FIRST = "部署 Llama-3.1-70B，8k 上下文，40 个并发用户，用什么显卡？"
FOLLOW = "那换成 FP8 呢？"  # the follow-up: it names no model, so only the stored job can answer it
THIRD = "and with 16k context?"


class Server:
    """`gpu-advisor api` or `gpu-advisor mcp --http` on a free port with the given database."""

    def __init__(self, kind: str, db: str) -> None:
        self.kind, self.db, self.port = kind, db, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Server:
        argv = ["api"] if self.kind == "api" else ["mcp", "--http"]
        self.proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", *argv, "--port", str(self.port)], cwd=ROOT,
                                     env=offline_env(GPU_ADVISOR_DATABASE_URL=self.db),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited {self.proc.returncode}: {self.proc.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return self
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind} did not start")
            time.sleep(0.1)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()  # SIGKILL: no shutdown handler runs
        self.proc.wait(10)
        assert self.proc.returncode == -9

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def ask(self, text: str, cid: str | None = None) -> tuple[int, dict]:
        args = {"text": text, **({"conversation_id": cid} if cid else {})}
        if self.kind == "api":
            r = httpx.post(f"http://127.0.0.1:{self.port}/api/v1/ask", json=args, timeout=60)
            return r.status_code, r.json()
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": args}}
        r = httpx.post(f"http://127.0.0.1:{self.port}/mcp", json=rpc, timeout=60,
                       headers={"accept": "application/json, text/event-stream"})
        result = r.json()["result"]
        return (422 if result.get("isError") else 200), result["structuredContent"]


@contextmanager
def running(kind: str, db: str) -> Iterator[Server]:
    server = Server(kind, db).start()
    try:
        yield server
    finally:
        server.stop()


def _about_the_first_job(body: dict) -> None:
    """The follow-up was answered about Llama-3.1-70B at FP8, not with a question asking which model: the lead
    option's weights over its tensor-parallel group are 70.6 B parameters × 1 byte ≈ 70.6 GB (hand arithmetic,
    Llama-3.1-70B's 70.55 B parameters)."""
    assert body["options"], body["answer"][:300]
    assert not any("model" in q.lower() or "模型" in q for q in body["questions"]), body["questions"]
    lead = body["options"][0]
    assert lead["layout"]["weights"] == "fp8", lead["layout"]
    assert 65e9 < lead["per_gpu_bytes"]["weights"] * lead["layout"]["tp"] < 76e9, lead["per_gpu_bytes"]


def _kill_and_continue(kind: str, db: str) -> None:
    first = Server(kind, db).start()
    try:
        status, one = first.ask(FIRST)
        assert status == 200 and one["options"], one
        cid = one["conversation_id"]
    finally:
        first.kill()
    with running(kind, db) as second:
        status, two = second.ask(FOLLOW, cid)
        assert status == 200 and two["conversation_id"] == cid, two
        _about_the_first_job(two)
        status, missing = second.ask(FOLLOW, "A" * 22)
        assert status == (404 if kind == "api" else 422) and missing["field"] == "conversation_id", missing
        assert "not found" in missing["error"]
    store = open_store(db)
    assert store is not None
    try:
        record = store.get_conversation(cid)
        assert record is not None and record.source == kind and record.revision == 2
        assert [t.question for t in store.turns(cid)] == [FIRST, FOLLOW]
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["api", "mcp"])
def test_restart_after_sigkill_continues_on_sqlite(kind, tmp_path) -> None:
    _kill_and_continue(kind, f"sqlite:///{tmp_path / 'store.db'}")


@pytest.mark.parametrize("kind", ["api", "mcp"])
def test_restart_after_sigkill_continues_on_postgres(kind, pg_cluster) -> None:
    _kill_and_continue(kind, pg_cluster.new_database())


def test_two_api_replicas_on_postgres_alternate_turns(pg_cluster) -> None:
    db = pg_cluster.new_database()
    with running("api", db) as a, running("api", db) as b:
        _, one = a.ask(FIRST)
        cid = one["conversation_id"]
        _, two = b.ask(FOLLOW, cid)
        _, three = a.ask(THIRD, cid)  # a last saw turn 1: it reads turn 2 from the database
        _about_the_first_job(two)
        _about_the_first_job(three)
        # a conversation of another front end is not the API's to continue
        store = open_store(db)
        assert store is not None
        try:
            web = store.create_conversation("anonymous", "web")
            status, foreign = b.ask(FOLLOW, web.id)
            assert status == 404 and foreign["field"] == "conversation_id"
            assert [t.question for t in store.turns(cid)] == [FIRST, FOLLOW, THIRD]
        finally:
            store.close()


def test_memory_mode_refuses_an_unknown_id_instead_of_starting_afresh() -> None:
    """Before: an unknown id silently started a new conversation, which then asked which model."""
    with running("api", "memory") as server:
        status, body = server.ask(FOLLOW, "x" * 22)
    assert status == 404 and body["field"] == "conversation_id", json.dumps(body)[:300]
