"""`gpu-advisor history`: the stored conversations and quotes (advisor/store), for whoever runs the service.

    gpu-advisor history list [--quotes] [--owner OWNER] [--limit N] [--json]
    gpu-advisor history show ID [--json]              a conversation's turns (or a quote, by its id)
    gpu-advisor history export ID [--format md|json] [-o FILE]
    gpu-advisor history purge [--older-than 30d]      default: the retention, GPU_ADVISOR_RETENTION_DAYS (90)

The store is the one the servers use: GPU_ADVISOR_DATABASE_URL, else the SQLite file in the data directory.
An id that does not exist gets one "not found" line and exit status 2; so does a malformed one.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from knowledge.errors import AdvisorError, InputError
from knowledge.messages import pair, t
from ui.cli.args import number

if TYPE_CHECKING:
    from advisor.store.records import ConversationRecord, QuoteRecord
    from advisor.store.sql import SqlStore as Store

ACTIONS = ("list", "show", "export", "purge")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS, help="list, show ID, export ID or purge")
    parser.add_argument("id", nargs="?", default=None, help="a conversation id (or a quote id) for show/export")
    parser.add_argument("--quotes", action="store_true", help="list: the saved quotes instead of conversations")
    parser.add_argument("--owner", default=None, help="list: only this owner's (user:NAME, browser:ID, slack:TEAM)")
    parser.add_argument("--limit", type=number(1, 10_000, integer=True), default=50, help="list: at most this many (default 50)")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="export: Markdown or JSON")
    parser.add_argument("-o", "--output", default=None, help="export: write to this file instead of stdout")
    parser.add_argument("--older-than", default=None, metavar="AGE",
                        help="purge: delete what is older than AGE (30d, 12h, 45m; default the retention)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--lang", choices=("zh", "en"), default="en", help="language of messages")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except AdvisorError as exc:  # one line in the chosen language, status 2 (as the CLI does for every error)
        sys.stderr.write(f"gpu-advisor: error: {exc.localized(args.lang)}\n")
        return 2


def _run(args: argparse.Namespace) -> int:
    # start-up: only `history purge` parses an age
    from advisor.store.retention import parse_age

    if args.action in ("show", "export") and not args.id:
        usage, usage_zh = pair("history.usage", action=args.action)
        raise InputError(usage, field="ID", message_zh=usage_zh)
    age_s = parse_age(args.older_than) if args.older_than is not None else None  # before opening anything
    store = _open()
    try:
        if args.action == "list":
            _list(store, args)
        elif args.action == "show":
            _show(store, args)
        elif args.action == "export":
            _export(store, args)
        else:
            _purge(store, args, age_s)
    finally:
        store.close()
    return 0


def _open() -> Store:
    # start-up: a usage error answers before any store module loads
    from advisor.store import open_store

    store = open_store()
    if store is None:
        message, message_zh = pair("history.no_store")
        raise InputError(message, field="GPU_ADVISOR_DATABASE_URL", accepted="postgresql://…, sqlite:///path.db or unset",
                         message_zh=message_zh)
    return store


def _not_found(what: str) -> InputError:
    message, message_zh = pair("history.not_found", what=what)
    return InputError(message, field="ID", message_zh=message_zh)


def _when(ts: float) -> str:
    from advisor.store.records import stored_at  # start-up: `history --help` loads no store module

    return stored_at(ts)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _list(store: Store, args: argparse.Namespace) -> None:
    lang = args.lang
    if args.quotes:
        quotes = store.list_quotes(args.owner, args.limit)
        if args.json:
            print(json.dumps([{"id": q.id, "conversation_id": q.conversation_id, "owner": q.owner,
                               "question": q.question, "computed_at": _iso(q.computed_at),
                               "exported_at": _iso(q.created_at)} for q in quotes], ensure_ascii=False, indent=2))
            return
        print(t("history.quotes", lang, n=len(quotes)))
        for q in quotes:
            print(f"{q.id}  {_when(q.computed_at)}  {q.owner or '-'}  {_short(q.question)}")
        return
    convs = store.list_conversations(args.owner, args.limit)
    if args.json:
        print(json.dumps([{"id": c.id, "source": c.source, "owner": c.owner, "title": c.title, "turns": c.revision,
                           "created_at": _iso(c.created_at), "updated_at": _iso(c.updated_at)} for c in convs],
                         ensure_ascii=False, indent=2))
        return
    print(t("history.conversations", lang, n=len(convs)))
    turns = t("history.turns", lang)
    for c in convs:
        print(f"{c.id}  {_when(c.updated_at)}  {c.source:<5}  {c.revision:>3} {turns}  {_short(c.title)}")


def _short(text: str, width: int = 60) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _find(store: Store, ident: str) -> ConversationRecord | QuoteRecord:
    """The conversation or the exported quote `ident` names; "not found" otherwise."""
    record = store.get_conversation(ident)
    if record is not None:
        return record
    quote = store.get_quote(ident)
    if quote is None:
        turn = store.turn_for_quote(ident)  # a quote id not exported yet: show its conversation's turn
        if turn is not None:
            record = store.get_conversation(turn.conversation_id)
            if record is not None:
                return record
        raise _not_found(ident)
    return quote


def _conversation_doc(store: Store, record: ConversationRecord) -> dict[str, Any]:
    turns = []
    for row in store.turns(record.id):
        result = None
        if row.result:
            try:
                result = json.loads(row.result)
            except ValueError:
                result = None
        turns.append({"seq": row.seq, "question": row.question, "answer": row.answer, "driver": row.driver,
                      "duration_s": round(row.duration_s, 3), "error": row.error, "quote_id": row.quote_id,
                      "at": _iso(row.created_at), "result": result})
    return {"id": record.id, "source": record.source, "owner": record.owner, "title": record.title,
            "turns_count": record.revision, "created_at": _iso(record.created_at),
            "updated_at": _iso(record.updated_at), "turns": turns}


def _conversation_markdown(doc: dict[str, Any], lang: str) -> str:
    lines = [f"# {doc['title'] or doc['id']}", "",
             t("history.md_conversation", lang, id=doc["id"], source=doc["source"]),
             t("history.md_updated", lang, when=doc["updated_at"]), ""]
    for turn in doc["turns"]:
        lines += [f"## {turn['seq']}. {turn['question']}", "",
                  f"_{turn['at']} · {turn['driver']} · {turn['duration_s']} s_", ""]
        if turn["quote_id"]:
            lines += [t("history.md_quote", lang, id=turn["quote_id"]), ""]
        lines += [turn["answer"], ""]
    return "\n".join(lines).rstrip() + "\n"


def _show(store: Store, args: argparse.Namespace) -> None:
    # start-up: only showing a quote reads its record type
    from advisor.store.records import QuoteRecord

    record = _find(store, args.id)
    if isinstance(record, QuoteRecord):
        print(record.json if args.json else record.markdown)
        return
    doc = _conversation_doc(store, record)
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    lang = args.lang
    print(f"{doc['id']}  {doc['source']}  {doc['owner'] or '-'}  "
          f"{doc['turns_count']} {t('history.turns', lang)}  {_when(record.updated_at)}")
    for turn in doc["turns"]:
        first = (turn["answer"] or "").strip().splitlines()[0] if (turn["answer"] or "").strip() else ""
        quote_note = f"  [{t('history.quote', lang)} {turn['quote_id']}]" if turn["quote_id"] else ""
        print(f"{turn['seq']:>3}. {_short(turn['question'], 70)}{quote_note}\n     → {_short(first, 90)}")


def _export(store: Store, args: argparse.Namespace) -> None:
    # start-up: only exporting a quote loads the quote renderer
    from advisor.store.records import QuoteRecord

    # start-up: only exporting a quote loads the quote renderer
    from ui.quote.stored import freeze_quote

    record = _find(store, args.id)
    quote = record if isinstance(record, QuoteRecord) else None
    if not isinstance(record, QuoteRecord) and args.id != record.id:  # an unexported quote id: freeze it now
        quote = freeze_quote(store, args.id)
    if quote is not None:
        text = quote.json if args.format == "json" else quote.markdown
    elif not isinstance(record, QuoteRecord):  # (always so here: a found quote is exported above)
        doc = _conversation_doc(store, record)
        text = (json.dumps(doc, ensure_ascii=False, indent=2) if args.format == "json"
                else _conversation_markdown(doc, args.lang))
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text if text.endswith("\n") else text + "\n")
        except OSError as exc:
            message, message_zh = pair("history.cannot_write", path=args.output, why=exc.strerror)
            raise InputError(message, field="--output", message_zh=message_zh) from None
        print(args.output)
    else:
        print(text.rstrip("\n"))


def _purge(store: Store, args: argparse.Namespace, age_s: float | None) -> None:
    # start-up: only `history purge` reads the retention
    from advisor.store import retention_days

    if age_s is None:
        age_s = retention_days() * 86400.0
    counts = store.purge(age_s)
    if args.json:
        print(json.dumps({"older_than_s": age_s, "deleted": counts}))
        return
    print(t("history.purged", args.lang, days=age_s / 86400.0, **counts))
