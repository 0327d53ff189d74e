"""`gpu-advisor history list / show / export / purge` on an SQLite store filled with real deterministic turns."""

from __future__ import annotations

import json

import pytest

from advisor.store import NewTurn, open_store
from advisor.store.sql import new_id
from knowledge.structs import dump
from ui.cli.entry import main

QUESTION = "Serve Llama 3 70B in INT4 with 8k context for 50 users"
DAY = 86400.0


@pytest.fixture
def filled(tmp_path, monkeypatch: pytest.MonkeyPatch):
    """A store with two conversations: one of two turns (the first with a recommendation), one 40 days old."""
    from advisor.conversation.session import Conversation
    from ui.web import render as R

    url = f"sqlite:///{tmp_path / 'h.db'}"
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", url)
    store = open_store(url)
    conv = Conversation(driver="deterministic")
    cid, quote_id = new_id(), None
    for rev, text in enumerate([QUESTION, "what about 8-bit weights instead?"]):
        turn = conv.respond(text)
        done = store.commit_turn(cid, rev, conv.to_dict(), NewTurn(new_id(), text, turn.answer,
                                 dump(turn, json=True), "deterministic", 0.05, has_quote=R.has_result(turn)),
                                 owner="user:ann", title=text)
        quote_id = quote_id or done.quote_id
    old = new_id()
    store.commit_turn(old, 0, {}, NewTurn(new_id(), "an old question", "old answer", None, "deterministic", 0.0),
                      owner="user:bob", title="an old question")
    with store._tx() as x:
        x("UPDATE conversations SET updated_at = updated_at - ? WHERE id = ?", (40 * DAY, old))
    store.close()
    assert quote_id
    return {"cid": cid, "old": old, "quote": quote_id, "url": url}


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["history", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_list_and_show(filled, capsys) -> None:
    code, out, _ = cli(capsys, "list")
    assert code == 0 and "conversations: 2" in out and filled["cid"] in out and "2 turns" in out
    code, out, _ = cli(capsys, "list", "--json", "--owner", "user:ann")
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [filled["cid"]] and rows[0]["turns"] == 2 and rows[0]["title"] == QUESTION
    code, out, _ = cli(capsys, "show", filled["cid"])
    assert code == 0 and "  1. Serve Llama 3 70B" in out and "  2. what about 8-bit" in out
    assert f"quote {filled['quote']}" in out
    doc = json.loads(cli(capsys, "show", filled["cid"], "--json")[1])
    assert [t["seq"] for t in doc["turns"]] == [1, 2]
    assert doc["turns"][1]["result"]["workload"]["workload"]["weights"] in ("int8", "fp8")


def test_export_conversation_and_frozen_quote(filled, capsys, tmp_path) -> None:
    code, out, _ = cli(capsys, "export", filled["cid"])
    assert code == 0 and out.startswith(f"# {QUESTION}") and "## 2. what about 8-bit weights instead?" in out
    target = tmp_path / "conv.json"
    code, out, _ = cli(capsys, "export", filled["cid"], "--format", "json", "-o", str(target))
    assert code == 0 and json.loads(target.read_text())["id"] == filled["cid"]
    code, md, _ = cli(capsys, "export", filled["quote"])  # frozen on first export
    assert code == 0 and "GiB" in md and QUESTION in md
    code, js, _ = cli(capsys, "export", filled["quote"], "--format", "json")
    doc = json.loads(js)
    assert doc["quote_id"] == filled["quote"] and doc["conversation_id"] == filled["cid"]
    shown = json.loads(cli(capsys, "show", filled["cid"], "--json")[1])["turns"][0]["result"]
    # the quote carries the numbers of the turn that made it
    assert json.dumps(doc).count(str(shown["options"][0]["per_gpu_bytes"]["total"])) >= 1
    assert cli(capsys, "export", filled["quote"])[1] == md  # the same text ever after
    code, out, _ = cli(capsys, "list", "--quotes")
    assert code == 0 and filled["quote"] in out


@pytest.mark.parametrize("ident", ["nope", "A" * 22, "../../etc/passwd", "' OR 1=1 --"])
def test_unknown_id_is_one_not_found_line(filled, capsys, ident: str) -> None:
    for action in ("show", "export"):
        code, out, err = cli(capsys, action, ident)
        assert code == 2 and out == "" and err.count("\n") == 1 and "not found" in err
        assert filled["cid"] not in err
    code, _, err = cli(capsys, "show", ident, "--lang", "zh")
    assert code == 2 and "未找到" in err and err.count("\n") == 1


@pytest.mark.parametrize("age", ["30x", "-3d", "0", "thirty days", ""])
def test_bad_duration_names_the_accepted_forms(filled, capsys, age: str) -> None:
    code, out, err = cli(capsys, "purge", f"--older-than={age}")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "30d" in err and "12h" in err and "45m" in err
    assert open_store(filled["url"]).get_conversation(filled["old"]) is not None  # nothing deleted


def test_purge_by_age_and_by_the_configured_retention(filled, capsys, monkeypatch) -> None:
    code, out, _ = cli(capsys, "purge", "--older-than", "50d")
    assert code == 0 and "0 conversations" in out
    code, out, _ = cli(capsys, "purge", "--older-than", "30d")
    assert code == 0 and "1 conversations, 1 turns" in out
    store = open_store(filled["url"])
    assert store.get_conversation(filled["old"]) is None and store.get_conversation(filled["cid"]) is not None
    monkeypatch.setenv("GPU_ADVISOR_RETENTION_DAYS", "abc")
    code, _, err = cli(capsys, "purge")
    assert code == 2 and "GPU_ADVISOR_RETENTION_DAYS" in err and err.count("\n") == 1
    monkeypatch.setenv("GPU_ADVISOR_RETENTION_DAYS", "0.0000001")  # about 9 ms: everything is older
    code, out, _ = cli(capsys, "purge", "--json")
    assert code == 0 and json.loads(out)["deleted"]["conversations"] == 1
    assert store.get_conversation(filled["cid"]) is None
    store.close()


def test_default_retention_is_90_days(monkeypatch) -> None:
    from advisor.store import retention_days

    monkeypatch.delenv("GPU_ADVISOR_RETENTION_DAYS", raising=False)
    assert retention_days() == 90.0


def test_ask_in_a_stored_conversation(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("GPU_ADVISOR_DATABASE_URL", f"sqlite:///{tmp_path / 'ask.db'}")
    assert main(["ask", "--conversation", "new", "--json", QUESTION]) == 0
    first = json.loads(capsys.readouterr().out)
    cid = first["conversation_id"]
    assert first["saved"] is True and len(cid) >= 22
    assert main(["ask", "--conversation", cid, "--json", "what about 8-bit weights instead?"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["conversation_id"] == cid and second["numbers"]  # the model and context carried over
    code, out, _ = cli(capsys, "show", cid, "--json")
    doc = json.loads(out)
    assert doc["source"] == "cli" and [t["seq"] for t in doc["turns"]] == [1, 2]
    assert doc["turns"][1]["result"]["workload"]["workload"]["context"] == 8192
    assert main(["ask", "--conversation", "A" * 22, "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not found" in err
