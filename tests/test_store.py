"""The conversation store (advisor/store): the same tests on SQLite and on a real PostgreSQL server.

PostgreSQL runs as one throwaway cluster per test session (tests/pg_cluster.py, the `pg_cluster` fixture in
conftest.py); each test gets a fresh database on it, and a fresh SQLite file in its tmp dir."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest

from advisor.store import Conflict, NewTurn, QuoteRecord, StoreError, open_store
from advisor.store.keeper import Keeper, request_key
from advisor.store.schema import MIGRATIONS
from advisor.store.sql import new_id
from knowledge.structs import dump as dump_struct

DAY = 86400.0


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'advisor.db'}"
    return request.getfixturevalue("pg_cluster").new_database()


@pytest.fixture
def store(url: str):
    s = open_store(url)
    yield s
    s.close()


class Clock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def turn(question: str, *, request_id: str | None = None, quote: bool = False, result: dict | None = None) -> NewTurn:
    return NewTurn(request_id=request_id or new_id(), question=question, answer=f"answer to {question}",
                   result=result, driver="deterministic", duration_s=0.01, has_quote=quote)


def all_rows(store) -> list[tuple]:
    """Every row of every table, for the privacy test."""
    rows: list[tuple] = []
    with store._tx() as x:
        for table in ("schema_version", "conversations", "turns", "quotes", "events"):
            rows += [tuple(r) for r in x(f"SELECT * FROM {table}").fetchall()]
    return rows


# --- schema ----------------------------------------------------------------------------------------------------

def test_migrations_create_the_schema_once_and_reopen(url: str) -> None:
    first = open_store(url)
    assert first.schema_version() == len(MIGRATIONS)
    cid = new_id()
    first.commit_turn(cid, 0, {"n": 1}, turn("q1"), owner="browser:a")
    first.close()
    again = open_store(url)  # migrating an up-to-date database changes nothing
    assert again.schema_version() == len(MIGRATIONS)
    assert again.get_conversation(cid).revision == 1
    again.close()


def test_a_later_migration_upgrades_in_place_keeping_the_rows(store) -> None:
    cid = new_id()
    store.commit_turn(cid, 0, {"n": 1}, turn("before"), owner="browser:a")
    extra = [*MIGRATIONS, ["ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0"]]
    assert store.migrate(extra) == len(MIGRATIONS) + 1
    assert store.schema_version() == len(MIGRATIONS) + 1
    with store._tx() as x:
        assert x("SELECT pinned FROM conversations WHERE id = ?", (cid,)).fetchone()[0] == 0
    assert [t.question for t in store.turns(cid)] == ["before"]


def test_a_newer_schema_is_refused_with_a_clear_message(url: str) -> None:
    s = open_store(url)
    with s._tx() as x:
        x("INSERT INTO schema_version (version) VALUES (?)", (len(MIGRATIONS) + 5,))
    s.close()
    with pytest.raises(StoreError) as err:
        open_store(url)
    text = str(err.value)
    assert f"schema version {len(MIGRATIONS) + 5}, newer than this program knows ({len(MIGRATIONS)})" in text
    assert "upgrade gpu-advisor" in text and "\n" not in text


def test_unknown_url_is_one_line_naming_the_accepted_forms() -> None:
    with pytest.raises(StoreError) as err:
        open_store("mysql://x/y")
    assert "postgresql://" in err.value.accepted and "sqlite:///" in err.value.accepted


# --- conversation state ----------------------------------------------------------------------------------------

def test_conversation_state_round_trips_through_to_dict(store) -> None:
    from advisor.conversation.session import Conversation

    conv = Conversation(driver="deterministic")
    conv.respond("serve Llama 3 70B for 20 concurrent users, 4k context")
    conv.respond("on H100s, budget $20k per month")
    state = conv.to_dict()
    assert state["version"] >= 1
    cid = new_id()
    done = store.commit_turn(cid, 0, state, turn("q"), owner="user:ann", title="Llama 70B")
    record = store.get_conversation(cid)
    assert (record.revision, record.owner, record.title, record.state_version) == (1, "user:ann", "Llama 70B", 1)
    assert done.revision == 1 and done.seq == 1
    back = Conversation.from_dict(json.loads(record.state))
    assert back.to_dict() == state
    assert back.workload == conv.workload and back.workload is not None
    back.respond("and with 8k context?")  # continues with the same workload
    assert back.workload.model == conv.workload.model == "llama-3-70b"
    assert (back.workload.context, back.workload.concurrency) == (8192, 20)


def test_unknown_and_malformed_ids_read_as_absent(store) -> None:
    assert store.get_conversation(new_id()) is None
    for bad in ("", "x", "../../etc/passwd", "' OR 1=1 --", None, 42, "a" * 500):
        assert store.get_conversation(bad) is None
        assert store.get_quote(bad) is None


# --- turns: once under retry, serialised under concurrency -----------------------------------------------------

def test_a_retried_turn_is_recorded_once(store) -> None:
    cid = new_id()
    key = request_key(cid, 0, "same question")
    first = store.commit_turn(cid, 0, {"n": 1}, turn("same question", request_id=key, quote=True), owner="o")
    again = store.commit_turn(cid, 0, {"n": 1}, turn("same question", request_id=key, quote=True), owner="o")
    assert not first.duplicate and again.duplicate
    assert (again.seq, again.quote_id, again.revision) == (first.seq, first.quote_id, 1)
    assert [t.seq for t in store.turns(cid)] == [1]
    assert store.get_conversation(cid).revision == 1


def test_a_request_recorded_at_an_earlier_revision_is_not_recorded_again(store) -> None:
    """A request id that does not name its revision (the compare-and-set succeeds, the turn's unique key does
    not): the duplicate is reported, and nothing of the second commit is written."""
    cid = new_id()
    first = store.commit_turn(cid, 0, {"n": 1}, turn("q", request_id="delivery-1", quote=True), owner="o")
    again = store.commit_turn(cid, 1, {"n": 2}, turn("q", request_id="delivery-1", quote=True))
    assert again.duplicate and (again.seq, again.quote_id, again.revision) == (1, first.quote_id, 1)
    record = store.get_conversation(cid)
    assert record.revision == 1 and json.loads(record.state) == {"n": 1}
    assert [t.seq for t in store.turns(cid)] == [1]


def test_a_new_conversations_first_turn_creates_its_row_at_revision_one(store) -> None:
    cid = new_id()
    assert store.acquire_at(cid, "replica-1", 30) == (True, None)  # no row: nothing to hold
    done = store.commit_turn(cid, 0, {"n": 1}, turn("first"), owner="browser:a", title="first question")
    record = store.get_conversation(cid)
    assert (done.revision, record.revision, record.owner, record.title) == (1, 1, "browser:a", "first question")
    assert json.loads(record.state) == {"n": 1}
    assert store.acquire_at(cid, "replica-1", 30) == (True, 1)
    assert store.acquire_at(cid, "replica-2", 30) == (False, 1)  # held by replica-1 until it commits or lapses
    store.commit_turn(cid, 1, {"n": 2}, turn("second"), holder="replica-1")
    assert store.acquire_at(cid, "replica-2", 30) == (True, 2)  # the commit released replica-1's lease


def test_a_turn_started_on_an_old_revision_conflicts(store) -> None:
    cid = new_id()
    store.commit_turn(cid, 0, {"n": 1}, turn("a"), owner="o")
    store.commit_turn(cid, 1, {"n": 2}, turn("b"))
    with pytest.raises(Conflict):
        store.commit_turn(cid, 1, {"n": 2}, turn("c"))
    assert [t.question for t in store.turns(cid)] == ["a", "b"]
    assert json.loads(store.get_conversation(cid).state) == {"n": 2}


def test_concurrent_writers_on_one_conversation_lose_and_interleave_nothing(store) -> None:
    """Eight threads each append five turns to one conversation by read-modify-write of a counter in its state;
    a lost update would leave the counter short, an interleaving would break the sequence."""
    cid = new_id()
    store.commit_turn(cid, 0, {"count": 0, "log": []}, turn("start"), owner="o")
    writers, each = 8, 5
    conflicts = [0]
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            for i in range(each):
                while True:
                    record = store.get_conversation(cid)
                    state = json.loads(record.state)
                    state = {"count": state["count"] + 1, "log": [*state["log"], f"{w}.{i}"]}
                    try:
                        store.commit_turn(cid, record.revision, state, turn(f"{w}.{i}"))
                        break
                    except Conflict:
                        conflicts[0] += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors
    final = json.loads(store.get_conversation(cid).state)
    rows = store.turns(cid)
    assert final["count"] == writers * each
    assert [r.seq for r in rows] == list(range(1, writers * each + 2))
    assert [r.question for r in rows[1:]] == final["log"]  # turns in the order their states were built
    assert store.get_conversation(cid).revision == writers * each + 1


def test_leases_make_two_replicas_take_turns(url: str) -> None:
    """Two Keepers (two processes' worth) on one conversation: their turn sections never overlap."""
    stores = [open_store(url), open_store(url)]
    keepers = [Keeper(s, source="web", lease_wait_s=60) for s in stores]
    cid = new_id()
    stores[0].commit_turn(cid, 0, {"count": 0}, turn("start"), owner="o")
    inside, overlaps, done = [0], [0], []
    guard = threading.Lock()

    def replica(k: Keeper, n: int) -> None:
        for i in range(n):
            with k.turn_lock(cid) as lease:
                assert lease.held
                with guard:
                    inside[0] += 1
                    overlaps[0] += inside[0] > 1
                record = k.get(cid)
                time.sleep(0.01)
                state = {"count": json.loads(record.state)["count"] + 1}
                with guard:
                    inside[0] -= 1
                k.commit(lease, record.revision, state, turn(f"{id(k)}-{i}"), owner="o")
        done.append(k)

    threads = [threading.Thread(target=replica, args=(k, 6)) for k in keepers]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert len(done) == 2 and overlaps[0] == 0
    assert json.loads(stores[0].get_conversation(cid).state)["count"] == 12
    for s in stores:
        s.close()


def test_a_crashed_holders_lease_lapses(store) -> None:
    clock = Clock()
    store.clock = clock
    cid = new_id()
    store.commit_turn(cid, 0, {}, turn("a"), owner="o")
    assert store.acquire(cid, "replica-1", ttl_s=30)
    assert not store.acquire(cid, "replica-2", ttl_s=30)
    clock.now += 31  # replica-1 died without releasing
    assert store.acquire(cid, "replica-2", ttl_s=30)


# --- quotes ----------------------------------------------------------------------------------------------------

def test_quote_ids_are_stable_and_unguessable(store) -> None:
    cid = new_id()
    done = store.commit_turn(cid, 0, {}, turn("q", quote=True, result={"x": 1}), owner="user:ann")
    qid = done.quote_id
    assert re.fullmatch(r"[A-Za-z0-9_-]{22,}", qid)  # secrets.token_urlsafe(16): 128 random bits
    assert store.turn_for_quote(qid).question == "q"
    first = QuoteRecord(qid, cid, "user:ann", "en", "q", "# quote v1", '{"v": 1}', 100.0, 200.0)
    assert store.save_quote(first) == first
    later = QuoteRecord(qid, cid, "user:ann", "en", "q", "# quote v2", '{"v": 2}', 300.0, 400.0)
    assert store.save_quote(later) == first  # frozen: the first export wins
    assert store.get_quote(qid).markdown == "# quote v1"
    assert [q.id for q in store.list_quotes("user:ann")] == [qid]
    assert store.list_quotes("user:bob") == []
    assert [t.quote_id for t in store.list_recommendations("user:ann")] == [qid]
    assert store.list_recommendations("user:bob") == []
    ids = {new_id() for _ in range(5000)}
    assert len(ids) == 5000 and all(len(i) == 22 for i in ids)


# --- events ----------------------------------------------------------------------------------------------------

def test_event_ids_are_claimed_once_until_they_expire(store) -> None:
    clock = Clock()
    store.clock = clock
    assert store.claim_event("Ev1", ttl_s=3600)
    assert not store.claim_event("Ev1", ttl_s=3600)
    assert store.claim_event("Ev2", ttl_s=3600)
    clock.now += 3601
    assert store.claim_event("Ev1", ttl_s=3600)  # expired: a new delivery of an old id counts again


def test_concurrent_claims_of_one_event_have_one_winner(url: str) -> None:
    stores = [open_store(url) for _ in range(2)]
    wins: list[bool] = []
    barrier = threading.Barrier(8)

    def claim(s) -> None:
        barrier.wait()
        wins.append(s.claim_event("Ev-retried", ttl_s=600))

    threads = [threading.Thread(target=claim, args=(stores[i % 2],)) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert sorted(wins) == [False] * 7 + [True]
    for s in stores:
        s.close()


# --- retention -------------------------------------------------------------------------------------------------

def test_purge_deletes_by_age_with_turns_and_quotes(store) -> None:
    clock = Clock()
    store.clock = clock
    old, new = new_id(), new_id()
    q_old = store.commit_turn(old, 0, {}, turn("old", quote=True), owner="o").quote_id
    store.save_quote(QuoteRecord(q_old, old, "o", "en", "old", "md", "{}", clock.now, clock.now))
    store.claim_event("Ev-old", ttl_s=DAY)
    clock.now += 40 * DAY
    store.commit_turn(new, 0, {}, turn("new"), owner="o")
    counts = store.purge(30 * DAY)
    assert counts == {"conversations": 1, "turns": 1, "quotes": 1, "events": 1}
    assert store.get_conversation(old) is None and store.get_quote(q_old) is None
    assert store.turn_for_quote(q_old) is None
    assert store.get_conversation(new) is not None and len(store.turns(new)) == 1
    assert store.purge(30 * DAY) == {"conversations": 0, "turns": 0, "quotes": 0, "events": 0}


# --- privacy ---------------------------------------------------------------------------------------------------

def test_no_api_key_or_slack_token_is_ever_stored(store, monkeypatch: pytest.MonkeyPatch) -> None:
    from advisor.conversation.session import Conversation

    key, bot, secret = "sk-test-" + "k" * 40, "xoxb-1111-2222-" + "t" * 24, "signing" + "s" * 25
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("SLACK_BOT_TOKEN", bot)
    monkeypatch.setenv("SLACK_SIGNING_SECRET", secret)
    conv = Conversation(driver="deterministic", settings={"api_key": key})
    question = f"my key is {key} and the bot token {bot}; secret {secret}; 7B inference for 5 users"
    result = conv.respond(question)
    cid = new_id()
    done = store.commit_turn(cid, 0, conv.to_dict(), NewTurn(new_id(), question, result.answer + key,
                             dump_struct(result, json=True), "deterministic", 0.1, has_quote=True),
                             owner="slack:T1", title=question)
    store.save_quote(QuoteRecord(done.quote_id, cid, "slack:T1", "en", question, f"# {bot}", json.dumps({"k": key}),
                                 1.0, 1.0))
    other = "xoxp-9999-" + "p" * 30  # token-shaped text that is no configured credential
    store.commit_turn(cid, 1, {"note": other}, turn(f"pasted {other}"))
    dump = repr(all_rows(store))
    for credential in (key, bot, secret, other):
        assert credential not in dump
    assert "[redacted]" in dump and "7B inference" in dump


def test_postgres_messages_hide_the_password() -> None:
    from advisor.store.errors import StoreUnavailable

    url = "postgresql://advisor:hunter2secret@127.0.0.1:1/advisor?connect_timeout=1"
    with pytest.raises(StoreUnavailable) as err:
        open_store(url)
    assert "hunter2secret" not in str(err.value) and "***" in str(err.value)


def test_postgres_large_texts_are_compressed_with_lz4(pg_cluster) -> None:
    """Migration 2: lz4 instead of pglz for the turn's result (~90 kB) and the other large texts (server CPU)."""
    store = open_store(pg_cluster.new_database())
    big = {"text": "GPU advisor " * 4000}
    store.commit_turn(new_id(), 0, big, turn("q", result=big), owner="o")
    with store._tx() as x:
        methods = x("SELECT pg_column_compression(result), pg_column_compression(answer) FROM turns").fetchone()
        state = x("SELECT pg_column_compression(state) FROM conversations").fetchone()
    store.close()
    assert (methods[0], state[0]) == ("lz4", "lz4")


def test_postgres_a_connection_the_server_closed_is_replaced_unseen(pg_cluster) -> None:
    """The pool lends a connection without a round trip unless its socket has something to read; one whose
    backend the server ended (a restart, pg_terminate_backend) is replaced, and the caller sees no error."""
    import psycopg

    url = pg_cluster.new_database()
    store = open_store(url)
    cid = new_id()
    store.commit_turn(cid, 0, {"n": 1}, turn("q"), owner="o")
    with psycopg.connect(url, autocommit=True) as admin:
        ended = admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                              "current_database() AND pid <> pg_backend_pid()").fetchall()
    assert ended and all(row[0] for row in ended)
    time.sleep(0.2)
    for _ in range(3):
        assert store.revision(cid) == 1
    store.close()


def test_ids_never_start_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """`gpu-advisor history show ID` would read a leading "-" as an option (it made 1 CLI test in 64 fail)."""
    import secrets

    made = iter(["-" + "a" * 21, "-" + "b" * 21, "c" * 22])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(made))
    assert new_id() == "c" * 22
