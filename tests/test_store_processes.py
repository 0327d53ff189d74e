"""The store across real processes: `gpu-advisor web` and `gpu-advisor slack --http` killed with SIGKILL and
started again, two of each on one PostgreSQL, and a database that is not there at start. Free ports; the Slack
processes talk to the local mock Slack Web API (tests/mock_slack_api.py); no network, no API key."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request

import gradio_client
import pytest

from advisor.store import open_store
from tests.slack_support import SECRET, event_body, mention, post
from tests.web_server import ROOT, WebServer, free_port, offline_env

Q = ["Serve Llama 3 70B in INT4 with 8k context for 50 users", "what about 8-bit weights instead?",
     "and with 16k context?", "and 100 users?"]


def job(raw: dict) -> dict:
    return raw["workload"].get("workload", raw["workload"])


def chat(client, text: str) -> dict:
    out = client.predict(message=text, ui_lang="en", api_name="/chat")
    return out[-1]  # raw


def open_conversation(client, cid: str) -> tuple[list, dict]:
    out = client.predict(cid=cid, ui_lang="en", api_name="/open")
    return out[0], out[4]  # chat, raw


def client_of(url: str):
    return gradio_client.Client(url, verbose=False, download_files=False)


# --- web ----------------------------------------------------------------------------------------------------

def test_web_restart_after_sigkill_continues_the_conversation(tmp_path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.db'}"
    first = WebServer(name="web-store-restart-1", GPU_ADVISOR_DATABASE_URL=db)
    url = first.__enter__()
    try:
        client = client_of(url)
        raws = [chat(client, q) for q in Q[:3]]
        cid = raws[0]["conversation_id"]
        assert all(r["conversation_id"] == cid and r["saved"] for r in raws)
        assert "conversations stored in sqlite:///" in first.log()
    finally:
        first.proc.kill()  # SIGKILL: no shutdown handler runs
        first.proc.wait(10)
    assert first.proc.returncode == -9
    with WebServer(name="web-store-restart-2", GPU_ADVISOR_DATABASE_URL=db) as url2:
        client = client_of(url2)
        history, raw = open_conversation(client, cid)
        assert raw["conversation_id"] == cid and len(history) == 6
        fourth = chat(client, Q[3])
        # the first turn's quote, at its permanent link after the restart, with that turn's numbers
        quote_md = urllib.request.urlopen(url2 + f"quote/{raws[0]['quote_id']}.md", timeout=10).read().decode()
        total = raws[0]["options"][0]["per_gpu_bytes"]["total"]
        assert f"{total / 2**30:,.1f} GiB" in quote_md
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(url2 + "quote/" + "A" * 22 + ".md", timeout=10)
        assert missing.value.code == 404 and missing.value.read() == b"quote not found"
    assert fourth["conversation_id"] == cid and fourth["saved"]
    assert (job(fourth)["model"], job(fourth)["weights"], job(fourth)["context"], job(fourth)["concurrency"]) == \
        ("llama-3-70b", job(raws[1])["weights"], 16384, 100)
    store = open_store(db)
    assert [t.seq for t in store.turns(cid)] == [1, 2, 3, 4]
    store.close()


def test_two_web_replicas_on_postgres_alternate_turns_of_one_conversation(pg_cluster) -> None:
    db = pg_cluster.new_database()
    a, b = (WebServer("--workers", "0", name=f"web-store-replica-{n}", GPU_ADVISOR_DATABASE_URL=db) for n in "ab")
    with a as url_a, b as url_b:
        ca, cb = client_of(url_a), client_of(url_b)
        r1 = chat(ca, Q[0])
        cid = r1["conversation_id"]
        _, opened = open_conversation(cb, cid)
        assert opened["conversation_id"] == cid
        r2 = chat(cb, Q[1])  # on replica b
        r3 = chat(ca, Q[2])  # back on a, whose session last saw turn 1: it reloads turn 2 first
        r4 = chat(cb, Q[3])
    assert {r["conversation_id"] for r in (r1, r2, r3, r4)} == {cid}
    assert job(r3)["weights"] == job(r2)["weights"] != job(r1)["weights"]
    assert (job(r4)["context"], job(r4)["concurrency"], job(r4)["weights"]) == (16384, 100, job(r2)["weights"])
    store = open_store(db)
    assert [(t.seq, t.question) for t in store.turns(cid)] == list(enumerate(Q, 1))
    store.close()


def test_database_away_during_a_turn_of_a_running_web_process(pg_cluster) -> None:
    """PostgreSQL stopped under a running `gpu-advisor web`: the turn is answered and marked not saved; once the
    server is back the process writes it (its retry every 5 s), and the next turn follows it."""
    from tests.pg_cluster import wait_for

    db = pg_cluster.new_database()
    with WebServer("--workers", "0", name="web-store-outage", GPU_ADVISOR_DATABASE_URL=db) as url:
        client = client_of(url)
        cid = chat(client, Q[0])["conversation_id"]
        pg_cluster.stop("fast")
        try:
            out = client.predict(message=Q[1], ui_lang="en", api_name="/chat")
        finally:
            pg_cluster.start()
        raw, last = out[-1], out[0][-1]
        assert raw["saved"] is False and raw["conversation_id"] == cid and raw["options"]
        assert "Not saved yet" in json.dumps(last, ensure_ascii=False)
        store = open_store(db)
        assert wait_for(lambda: len(store.turns(cid)) == 2, timeout_s=30)
        third = chat(client, Q[2])
        assert third["saved"] and [t.question for t in store.turns(cid)] == Q[:3]
        store.close()


def test_behind_a_login_quotes_and_conversations_are_the_users_only(tmp_path) -> None:
    """GPU_ADVISOR_WEB_AUTH set: the logged-in user gets the quote and reopens the conversation; without the
    login the quote is refused (401); an unknown id is "not found" either way."""
    import httpx

    db = f"sqlite:///{tmp_path / 'auth.db'}"
    login = ("ann", "pw-ann-12345")
    with WebServer("--workers", "0", name="web-store-auth", GPU_ADVISOR_DATABASE_URL=db,
                   GPU_ADVISOR_WEB_AUTH=":".join(login)) as url:
        client = gradio_client.Client(url, auth=login, verbose=False, download_files=False)
        raw = chat(client, Q[0])
        quote = f"quote/{raw['quote_id']}.md"
        with httpx.Client(base_url=url, timeout=10) as web:
            assert web.post("login", data={"username": login[0], "password": login[1]}).status_code == 200
            mine = web.get(quote)
            assert mine.status_code == 200 and "GiB" in mine.text
            assert web.get("quote/" + "B" * 22 + ".md").status_code == 404
        anonymous = httpx.get(url + quote, timeout=10)
        assert anonymous.status_code == 401 and raw["quote_id"] not in anonymous.text
        _, reopened = open_conversation(gradio_client.Client(url, auth=login, verbose=False), raw["conversation_id"])
        assert reopened["conversation_id"] == raw["conversation_id"]
        history, missing = open_conversation(client, "C" * 22)
        assert missing == {"error": "not found", "conversation_id": None}
        assert "not found" in json.dumps(history[-1]).lower()


def test_unreachable_database_at_start_is_one_line_and_exit_2() -> None:
    env = offline_env(GPU_ADVISOR_DATABASE_URL="postgresql://advisor:pw@127.0.0.1:1/advisor")
    for argv in (["web", "--port", str(free_port())], ["slack", "--http", "--port", str(free_port())]):
        extra = {"SLACK_BOT_TOKEN": "xoxb-test", "SLACK_SIGNING_SECRET": SECRET} if argv[0] == "slack" else {}
        done = subprocess.run([sys.executable, "-m", "ui.cli.entry", *argv], cwd=ROOT, env={**env, **extra},
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        errors = [line for line in done.stderr.splitlines() if "error" in line.lower()]
        assert len(errors) == 1 and "cannot be used" in errors[0] and "Connection refused" in errors[0]
        assert "Traceback" not in done.stderr and ":pw@" not in done.stderr


# --- Slack --------------------------------------------------------------------------------------------------

class SlackServer:
    """`gpu-advisor slack --http` on a free port, against the mock Slack API, with the given database."""

    def __init__(self, mock, db: str, name: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/slack/events"
        self.env = offline_env(SLACK_BOT_TOKEN="xoxb-test", SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=mock.api_url,
                               ADVISOR_WEB_URL="https://advisor.example.com/", GPU_ADVISOR_DATABASE_URL=db)
        self.log_path = ROOT / "tests" / "artifacts" / f"{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self) -> SlackServer:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "slack", "--http", "--port", str(self.port)],
                                     cwd=ROOT, env=self.env, stdout=open(self.log_path, "wb"),  # noqa: SIM115
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.log_path.read_text()[-2000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("Slack server did not start")

    def stop(self, kill: bool = False) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill() if kill else self.proc.terminate()
            self.proc.wait(10)


def posts_in(calls, thread: str) -> list[dict]:
    """The answers posted in `thread` (`calls`: the mock's calls; inside `wait_for`, the list it passes): messages
    with the "open in the web app" button, posted or edited into a "working on it" placeholder — not the details
    reply that follows each answer, nor the placeholder (each test has one thread)."""
    return [c.body for c in calls if c.ok and button_url(c.body) and (
        c.method == "chat.update" or (c.method == "chat.postMessage" and c.body.get("thread_ts") == thread))]


def button_url(body: dict) -> str:
    for block in json.loads(body["blocks"]) if isinstance(body.get("blocks"), str) else body.get("blocks") or []:
        for el in block.get("elements") or []:
            if el.get("action_id") == "open_web_app":
                return el["url"]
    return ""


def test_slack_restart_after_sigkill_continues_the_thread(tmp_path) -> None:
    from tests.mock_slack_api import MockSlackApi

    db = f"sqlite:///{tmp_path / 'slack.db'}"
    thread = "1700000100.000100"
    with MockSlackApi() as mock:
        bot = SlackServer(mock, db, "slack-store-restart-1").start()
        try:
            for i, q in enumerate(Q[:3]):
                ts = thread if i == 0 else f"1700000100.00020{i}"
                assert post(bot.url, event_body(mention(q, ts=ts, thread_ts=None if i == 0 else thread),
                                                event_id=f"EvR{i}"), "application/json").status == 200
                mock.wait_for(lambda calls, n=i + 1: len(posts_in(calls, thread)) >= n, timeout=30)
        finally:
            bot.stop(kill=True)
        assert bot.proc.returncode == -9
        bot2 = SlackServer(mock, db, "slack-store-restart-2").start()
        try:
            post(bot2.url, event_body(mention(Q[3], ts="1700000100.000300", thread_ts=thread), event_id="EvR3"),
                 "application/json")
            mock.wait_for(lambda calls: len(posts_in(calls, thread)) >= 4, timeout=30)
        finally:
            bot2.stop()
    store = open_store(db)
    record = store.conversation_for_key(f"slack:T0000001:C0000001:{thread}", "slack:T0000001", "slack")
    turns = store.turns(record.id)
    assert [t.question for t in turns] == Q
    last = json.loads(turns[-1].result)
    assert (job(last)["model"], job(last)["context"], job(last)["concurrency"]) == ("llama-3-70b", 16384, 100)
    assert button_url(posts_in(list(mock.calls), thread)[-1]) == f"https://advisor.example.com/?c={record.id}"
    store.close()


def test_two_slack_replicas_answer_a_retried_event_once(pg_cluster) -> None:
    from tests.mock_slack_api import MockSlackApi

    db = pg_cluster.new_database()
    with MockSlackApi() as mock:
        bots = [SlackServer(mock, db, f"slack-store-replica-{n}") for n in "ab"]
        for bot in bots:
            bot.start()
        try:
            thread = "1700000200.000100"
            body = event_body(mention(Q[0], ts=thread), event_id="EvRetried1")
            first = post(bots[0].url, body, "application/json")
            retry = post(bots[1].url, body, "application/json", headers={"X-Slack-Retry-Num": "1",
                                                                          "X-Slack-Retry-Reason": "http_timeout"})
            assert first.status == retry.status == 200
            mock.wait_for(lambda calls: len(posts_in(calls, thread)) >= 1, timeout=30)
            # the follow-up goes to the other replica and continues the thread
            post(bots[1].url, event_body(mention(Q[1], ts="1700000200.000200", thread_ts=thread),
                                         event_id="EvNext"), "application/json")
            mock.wait_for(lambda calls: len(posts_in(calls, thread)) >= 2, timeout=30)
            time.sleep(1.0)  # time for a second answer to the retried event, were one coming
        finally:
            for bot in bots:
                bot.stop()
        assert len(posts_in(list(mock.calls), thread)) == 2
    store = open_store(db)
    record = store.conversation_for_key(f"slack:T0000001:C0000001:{thread}", "slack:T0000001", "slack")
    assert [t.question for t in store.turns(record.id)] == Q[:2]
    store.close()
