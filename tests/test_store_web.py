"""The web chat and the Slack bot on the store, in process: continuing by id, who may open what, the database away
during a turn, a full disk, a corrupt state row (the web and Slack sides of advisor/store; real deterministic
conversations, real SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from advisor import observe
from advisor.store import NewTurn, QuoteRecord, StoreUnavailable, open_store
from advisor.store.keeper import Keeper, _Pending
from advisor.store.sql import new_id
from advisor.store.sqlite import SqliteStore
from tests.pg_cluster import wait_for

Q1 = "Serve Llama 3 70B in INT4 with 8k context for 50 users"
Q2 = "what about 8-bit weights instead?"
Q3 = "and with 16k context?"


def controller(store, *, auth: bool = False, retry_s: float = 5.0):
    from advisor.conversation.session import Conversation
    from ui.web.app import ExportStore
    from ui.web.store import StoredChatController

    keeper = Keeper(store, source="web", retry_s=retry_s)
    return StoredChatController(lambda: Conversation(driver="deterministic"),
                                exports=ExportStore(tempfile.mkdtemp(prefix="exports-")), keeper=keeper, auth=auth)


def ask(ctl, state, text: str) -> dict:
    final = None
    for update in ctl.turn(text, state, "en"):
        final = update
    assert final is not None and "raw" in final, final
    return final


def job(raw: dict) -> dict:
    return raw["workload"].get("workload", raw["workload"])


def shown(history: list[dict]) -> str:
    return "\n".join(str(m.get("content")) for m in history)


@pytest.fixture
def sqlite_store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'web.db'}")
    yield s
    s.close()


# --- the answer before the write ------------------------------------------------------------------------------

def _until_answer(updates) -> dict:
    """The first update that shows an answer (not a pending "working" line)."""
    for update in updates:
        last = update["chatbot"][-1]
        if last["role"] == "assistant" and (last.get("metadata") or {}).get("status") != "pending":
            return update
    raise AssertionError("no answer shown")


def test_the_answer_is_shown_before_the_write_and_saved_is_the_last_update(sqlite_store) -> None:
    """The turn's answer is yielded as soon as it is computed, with nothing written yet; the write follows and the
    last update states "saved". A page gone after the answer (the generator closed) still has its turn recorded,
    once, and the conversation continues from it."""
    from ui.web.app import SessionState

    ctl = controller(sqlite_store)
    st = SessionState(owner="browser:" + "a" * 32)
    updates = ctl.turn(Q1, st, "en")
    early = _until_answer(updates)
    cid = st.conversation_id
    assert "raw" not in early and "70B" in shown(early["chatbot"][-1:]) and sqlite_store.get_conversation(cid) is None
    rest = list(updates)
    assert len(rest) == 1 and rest[0]["raw"]["saved"] is True and rest[0]["chatbot"] == early["chatbot"]
    assert [t.question for t in sqlite_store.turns(cid)] == [Q1]
    updates = ctl.turn(Q2, st, "en")
    _until_answer(updates)
    updates.close()  # the page went away after seeing the answer
    assert [t.question for t in sqlite_store.turns(cid)] == [Q1, Q2] and st.revision == 2
    out = ask(controller(sqlite_store), ctl.open(cid, st.owner), Q3)["raw"]  # another process continues it
    assert out["saved"] is True and job(out)["context"] == 16384  # Q3 on the state Q2 left (8-bit weights):
    assert job(out)["weights"] != job(rest[0]["raw"])["weights"]
    assert [t.seq for t in sqlite_store.turns(cid)] == [1, 2, 3]


# --- continuing a conversation by its id ---------------------------------------------------------------------

def test_a_conversation_continues_from_its_id_in_a_new_session(sqlite_store) -> None:
    from ui.web.app import SessionState

    ctl = controller(sqlite_store)
    st = SessionState(owner="browser:" + "a" * 32)
    for q in (Q1, Q2, Q3):
        out = ask(ctl, st, q)
    cid = out["raw"]["conversation_id"]
    assert out["raw"]["saved"] is True and len(cid) >= 22
    other_process = controller(sqlite_store)  # a restart or another replica: nothing in memory
    opened = other_process.open(cid, owner="browser:" + "b" * 32)
    assert opened is not None and opened.revision == 3 and len(opened.history) == 6
    nxt = ask(other_process, opened, "and 100 users?")["raw"]
    assert (job(nxt)["model"], job(nxt)["weights"], job(nxt)["context"], job(nxt)["concurrency"]) == \
        ("llama-3-70b", job(out["raw"])["weights"], 16384, 100)
    assert [t.seq for t in sqlite_store.turns(cid)] == [1, 2, 3, 4]
    # the sidebar of the owner lists it; another browser's does not
    assert f"?c={cid}" in ctl.sidebar(st, "en")
    assert f"?c={cid}" not in ctl.sidebar(SessionState(owner="browser:" + "c" * 32), "en")


def test_unknown_or_foreign_ids_are_not_found_alike(sqlite_store) -> None:
    from ui.web.app import SessionState

    ctl = controller(sqlite_store, auth=True)
    st = SessionState(owner="user:ann")
    cid = ask(ctl, st, Q1)["raw"]["conversation_id"]
    assert ctl.open(cid, owner="user:ann") is not None
    for bad in (cid[:-1] + ("A" if cid[-1] != "A" else "B"), "nope", "../../x", "' OR 1=1 --", None, 7):
        assert ctl.open(bad, owner="user:ann") is None
    assert ctl.open(cid, owner="user:bob") is None  # another user's: the same answer as no such id
    assert ctl.open(cid, owner="") is None


def test_quotes_are_frozen_with_the_turns_numbers_and_date(sqlite_store) -> None:
    from ui.web.app import SessionState
    from ui.web.store import quote_for

    ctl = controller(sqlite_store)
    st = SessionState(owner="browser:" + "a" * 32)
    raw = ask(ctl, st, Q1)["raw"]
    assert st.quote_id and f"quote/{st.quote_id}.md" in ctl.sidebar(st, "en")
    # listed under the owner's quotes in another tab of the same browser, not in another browser
    assert f"quote/{st.quote_id}.json" in ctl.sidebar(SessionState(owner=st.owner), "zh")
    assert st.quote_id not in ctl.sidebar(SessionState(owner="browser:" + "z" * 32), "en")
    quote = quote_for(ctl.keeper, st.quote_id)
    total = raw["options"][0]["per_gpu_bytes"]["total"]
    assert str(total) in quote.json and f"{total / 2**30:,.1f} GiB" in quote.markdown
    turn_time = sqlite_store.turns(st.conversation_id)[0].created_at
    assert quote.computed_at == turn_time
    assert time.strftime("%Y-%m-%d", time.gmtime(turn_time)) in quote.markdown
    assert quote_for(ctl.keeper, st.quote_id) == quote  # frozen


# --- faults --------------------------------------------------------------------------------------------------

def test_database_away_during_a_turn_answer_shown_then_saved(pg_cluster, caplog) -> None:
    """PostgreSQL stopped between turns: the answer is shown, marked not saved; when the server is back the
    keeper writes it, in order, before the next turn."""
    from ui.web.app import SessionState

    store = open_store(pg_cluster.new_database())
    ctl = controller(store, retry_s=0.3)
    st = SessionState(owner="browser:" + "d" * 32)
    cid = ask(ctl, st, Q1)["raw"]["conversation_id"]
    errors: list[tuple[str, str]] = []

    class Errors:  # what /metrics counts as gpu_advisor_store_errors_total{store, operation}
        def turn_finished(self, *a: object) -> None: ...
        def rule_engine_error(self, kind: str) -> None: ...
        def store_error(self, store_kind: str, operation: str) -> None:
            errors.append((store_kind, operation))

    listener = Errors()
    observe.add_listener(listener)
    pg_cluster.stop("fast")
    try:
        out = ask(ctl, st, Q2)
        assert out["raw"]["saved"] is False and out["raw"]["options"]
        assert "Not saved yet" in shown(out["chatbot"][-1:])
        assert ctl.keeper.pending(cid) == 1
        assert ("postgresql", "commit_turn") in errors or ("postgresql", "lease") in errors, errors
    finally:
        observe.remove_listener(listener)
        pg_cluster.start()
    assert wait_for(lambda: ctl.keeper.pending(cid) == 0, timeout_s=20)
    assert [t.question for t in store.turns(cid)] == [Q1, Q2]
    out = ask(ctl, st, Q3)
    assert out["raw"]["saved"] is True and [t.seq for t in store.turns(cid)] == [1, 2, 3]
    store.close()


def test_a_turn_that_can_never_be_saved_is_logged_with_its_conversation(sqlite_store, caplog) -> None:
    """Overtaken while unsaved (another replica moved the conversation on): dropped, logged with the id."""
    keeper = Keeper(sqlite_store, source="web", retry_s=60)
    cid = new_id()
    sqlite_store.commit_turn(cid, 0, {}, NewTurn(new_id(), "a", "a", None, "deterministic", 0.0), owner="o")
    # a turn queued while the database was away, on revision 0, which another replica has since moved past
    keeper._pending.append(_Pending(cid, 0, {}, NewTurn(new_id(), "lost", "x", None, "deterministic", 0.0), "o", ""))
    with caplog.at_level(logging.ERROR, logger="gpu_advisor.store"):
        keeper.flush(cid)
    assert keeper.pending(cid) == 0
    assert any(cid in r.getMessage() and "could not be saved" in r.getMessage() for r in caplog.records)


def _tiny_mount(path: Path, size: str = "1m") -> bool:
    """A tmpfs of `size` at `path` (root only); False when this machine does not allow mounting."""
    if os.geteuid() != 0:
        return False
    path.mkdir(parents=True, exist_ok=True)
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True).returncode == 0


def test_full_disk_on_sqlite(tmp_path) -> None:
    """A 1 MiB tmpfs (as root; else SQLite's max_page_count caps the file): once it is full a turn is still
    answered, marked not saved; reads keep working; after space is freed the turn is written."""
    from ui.web.app import SessionState

    mount = tmp_path / "tiny"
    mounted = _tiny_mount(mount)
    pragmas = {} if mounted else {"max_page_count": 256}
    print(f"full disk: {'a 1 MiB tmpfs' if mounted else 'SQLite max_page_count=256'}")
    mount.mkdir(exist_ok=True)
    store = SqliteStore(mount / "full.db", pragmas=pragmas)
    try:
        store.migrate()
        ctl = controller(store, retry_s=0.3)
        st = SessionState(owner="browser:" + "e" * 32)
        cid = ask(ctl, st, Q1)["raw"]["conversation_id"]
        filler = mount / "filler.bin"
        if mounted:  # take what is left of the disk
            with open(filler, "wb", buffering=0) as fh:
                try:
                    while True:
                        fh.write(b"\0" * 65536)
                except OSError:
                    pass
        else:  # take what is left of the page budget
            with pytest.raises(StoreUnavailable):
                for _ in range(1000):
                    store.save_quote(QuoteRecord(new_id(), cid, "o", "en", "q", "x" * 4000, "{}", 0.0, 0.0))
        out = ask(ctl, st, Q2 + " " + "padding " * 2000)
        assert out["raw"]["saved"] is False and out["raw"]["options"]
        assert "Not saved yet" in shown(out["chatbot"][-1:])
        assert store.get_conversation(cid).revision == 1  # reads still work
        if mounted:
            filler.unlink()
        else:
            with store._tx() as x:
                x("DELETE FROM quotes")
            store.close()  # page budget freed: the next connection may grow the file again
        assert wait_for(lambda: ctl.keeper.pending(cid) == 0, timeout_s=20)
        assert store.get_conversation(cid).revision == 2
    finally:
        store.close()
        if mounted:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_corrupt_state_row_starts_that_conversation_fresh(sqlite_store) -> None:
    from ui.web.app import SessionState

    ctl = controller(sqlite_store)
    a, b = SessionState(owner="browser:" + "f" * 32), SessionState(owner="browser:" + "f" * 32)
    ca = ask(ctl, a, Q1)["raw"]["conversation_id"]
    cb = ask(ctl, b, "Fine-tune Qwen2.5-7B with LoRA")["raw"]["conversation_id"]
    with sqlite_store._tx() as x:
        x("UPDATE conversations SET state = ? WHERE id = ?", ('{"version": 1, "state": {broken', ca))
    opened = controller(sqlite_store).open(ca, owner=a.owner)
    assert opened is not None and "could not be read" in shown(opened.history[-1:])
    assert len(opened.history) == 3  # the earlier messages as they were, then the note
    raw = ask(ctl, opened, Q2)["raw"]  # a fresh conversation: 8-bit of what? it asks for the model
    assert raw["saved"] is True and job(raw).get("model") in (None, "")
    other = controller(sqlite_store).open(cb, owner=b.owner)
    assert "could not be read" not in shown(other.history) and len(other.history) == 2
    assert json.loads(sqlite_store.get_conversation(cb).state)["version"] >= 1


# --- Slack on the store --------------------------------------------------------------------------------------

def slack_bot(store):
    from advisor.conversation.session import Conversation
    from ui.slack.app import SlackBot, SlackSettings
    from ui.slack.store import StoredThreads

    return SlackBot(SlackSettings(web_url="https://advisor.example.com/"),
                    conversation_factory=lambda lang=None: Conversation(driver="deterministic", lang=lang),
                    conversation_loader=lambda d: Conversation.from_dict(d),
                    store=StoredThreads(Keeper(store, source="slack")))


def _button_url(reply) -> str:
    for block in reply.blocks:
        for el in block.get("elements") or []:
            if el.get("action_id") == "open_web_app":
                return el["url"]
    return ""


def test_slack_thread_survives_a_new_bot_and_links_to_the_stored_conversation(sqlite_store) -> None:
    key = ("T1", "C1", "1700000000.000100")
    slack_bot(sqlite_store).answer(key, Q1)
    slack_bot(sqlite_store).answer(key, Q2)
    reply = slack_bot(sqlite_store).answer(key, Q3)  # three bots: three restarts
    record = sqlite_store.conversation_for_key("slack:T1:C1:1700000000.000100", "slack:T1", "slack")
    assert record.revision == 3 and record.source == "slack"
    last = json.loads(sqlite_store.turns(record.id)[-1].result)
    assert (job(last)["model"], job(last)["context"]) == ("llama-3-70b", 16384)
    assert _button_url(reply) == f"https://advisor.example.com/?c={record.id}"
    other = slack_bot(sqlite_store).answer(("T1", "C1", "1700000000.000999"), Q3)  # another thread: no model
    assert "Llama 3 70B" not in other.text


def test_slack_corrupt_thread_starts_fresh_with_a_note(sqlite_store) -> None:
    key = ("T1", "C2", "1700000000.000200")
    slack_bot(sqlite_store).answer(key, Q1)
    record = sqlite_store.conversation_for_key("slack:T1:C2:1700000000.000200", "slack:T1", "slack")
    with sqlite_store._tx() as x:
        x("UPDATE conversations SET state = 'not json' WHERE id = ?", (record.id,))
    reply = slack_bot(sqlite_store).answer(key, Q2)
    assert any("could not be read" in json.dumps(b) for b in reply.blocks)
    assert sqlite_store.get_conversation(record.id).revision == 2
    json.loads(sqlite_store.get_conversation(record.id).state)  # written afresh


def test_slack_database_away_answers_marked_not_saved_then_saved(pg_cluster) -> None:
    store = open_store(pg_cluster.new_database())
    bot = slack_bot(store)
    bot.store.keeper.retry_s = 0.3
    key = ("T1", "C3", "1700000000.000300")
    bot.answer(key, Q1)
    cid = store.conversation_for_key("slack:T1:C3:1700000000.000300", "slack:T1", "slack").id
    pg_cluster.stop("fast")
    try:
        reply = bot.answer(key, Q2)  # answered from this process's copy of the thread
        assert "Not saved yet" in json.dumps(reply.blocks) and "8" in reply.text
    finally:
        pg_cluster.start()
    assert wait_for(lambda: bot.store.keeper.pending(cid) == 0, timeout_s=20)
    reply = slack_bot(store).answer(key, Q3)  # a new bot: the turn written late is part of the thread
    assert "Not saved yet" not in json.dumps(reply.blocks)
    last = json.loads(store.turns(cid)[-1].result)
    assert [t.question for t in store.turns(cid)] == [Q1, Q2, Q3]
    assert (job(last)["context"], job(last)["weights"]) == (16384, job(json.loads(store.turns(cid)[1].result))["weights"])
    store.close()


def test_slack_event_claims_are_shared_between_bots(sqlite_store) -> None:
    from ui.slack.app import TTLCache
    from ui.slack.store import StoredClaims

    a = StoredClaims(sqlite_store, 3600, TTLCache(10, 3600))
    b = StoredClaims(sqlite_store, 3600, TTLCache(10, 3600))
    assert a.add("event:Ev1") and not b.add("event:Ev1") and not a.add("event:Ev1")
    assert b.add(("T1", "C1", "1.0")) and not a.add(("T1", "C1", "1.0"))
