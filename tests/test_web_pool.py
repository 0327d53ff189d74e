"""Deterministic web turns in worker processes (ui/web/pool.py): same answers as in process, state kept in the
session, a dead worker costs no answer, workers end with their server, LLM conversations stay in process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from advisor.conversation.session import Conversation
from ui.web.app import WebSettings, settings_from
from ui.web.pool import RemoteConversation, TurnPool, default_workers, remote_factory

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ["Serve Llama 3 70B in INT4 with 8k context for 50 users", "what about 8-bit weights?", "部署改成 16k 上下文"]


@pytest.fixture(scope="module")
def pool():
    p = TurnPool(1)
    p.start()
    yield p
    p.close()


def _answers(conv, script=SCRIPT):
    out = []
    for text in script:
        items = list(conv.stream(text))
        turn = items[-1]
        out.append((turn.answer, [(n.name, n.value, n.unit) for n in turn.numbers], [s.name for s in items[:-1]]))
    return out


def test_default_workers_leave_a_core_to_the_server():
    assert [default_workers(c) for c in (1, 2, 3, 8, 64)] == [0, 1, 2, 4, 4]


def test_remote_turns_equal_in_process_turns_and_state_stays_here(pool):
    remote = RemoteConversation(pool, Conversation(driver="deterministic"))
    local = Conversation(driver="deterministic")
    assert _answers(remote) == _answers(local)
    # the slot state and history live in the session's conversation, not in the worker
    assert remote.state == local.state and remote.lang == local.lang == "zh"
    assert len(remote.history) == 3 and remote.history[-1][1].answer == local.history[-1][1].answer
    assert remote.respond("and 32 users?").answer == local.respond("and 32 users?").answer


def test_a_dead_worker_costs_no_answer(pool):
    pids = pool.start()
    remote = RemoteConversation(pool, Conversation(driver="deterministic"))
    first = remote.respond(SCRIPT[0])
    for pid in pids:
        os.kill(pid, 9)
    time.sleep(0.2)
    second = remote.respond(SCRIPT[1])  # answered in this process while the pool is replaced
    assert second.note != "error" and "8" in second.answer and first.answer != second.answer
    third = remote.respond(SCRIPT[2])  # a fresh worker again
    assert third.note != "error" and set(pool.start()).isdisjoint(pids)


def test_llm_conversations_stay_in_process(monkeypatch, pool):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ADVISOR_MODEL", "some-model")
    conv = remote_factory(pool)()
    assert not isinstance(conv, RemoteConversation) and conv.driver == "llm"
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("ADVISOR_MODEL")
    assert isinstance(remote_factory(pool)(), RemoteConversation)


def test_workers_end_with_their_server(tmp_path):
    """A server killed without running its exit hooks leaves no worker behind (each watches its parent)."""
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from ui.web.pool import TurnPool
        if __name__ == "__main__":
            print(*TurnPool(2).start(), flush=True)
            os._exit(0)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2, out.stderr[-2000:]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in pids):
        time.sleep(0.2)
    assert not any(os.path.exists(f"/proc/{p}") and "zombie" not in open(f"/proc/{p}/status").read().lower()
                   for p in pids)


def test_workers_still_starting_end_with_their_server(tmp_path):
    """A server that dies while its workers are still importing: each worker was re-parented before it could look
    at its parent, and must still end (it checks the server's id, passed in, not whichever parent it has now)."""
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(ROOT)!r})
        from ui.web.pool import TurnPool, _ready
        if __name__ == "__main__":
            pool = TurnPool(2)._pool()
            pool.submit(_ready)
            pool.submit(_ready)
            print(*pool._processes, flush=True)
            os._exit(0)  # before any worker has finished starting
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    pids = [int(p) for p in out.stdout.split()]
    assert pids, out.stderr[-2000:]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in pids):
        time.sleep(0.2)
    assert not any(os.path.exists(f"/proc/{p}") and "zombie" not in open(f"/proc/{p}/status").read().lower()
                   for p in pids)


def test_worker_setting_from_flag_environment_and_default():
    assert settings_from({}).workers is None and WebSettings().worker_count() == default_workers()
    assert settings_from({"GPU_ADVISOR_WEB_WORKERS": "0"}).worker_count() == 0
    assert settings_from({"GPU_ADVISOR_WEB_WORKERS": "3"}, workers=2).workers == 2
    from knowledge.errors import InputError

    with pytest.raises(InputError, match="workers"):
        settings_from({}, workers=-1)
