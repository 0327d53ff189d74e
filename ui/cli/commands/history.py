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

if TYPE_CHECKING:
    from advisor.store.records import ConversationRecord, QuoteRecord
    from advisor.store.sql import SqlStore as Store

ACTIONS = ("list", "show", "export", "purge")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ui.cli.args import number

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
    from advisor.store.retention import parse_age

    if args.action in ("show", "export") and not args.id:
        raise InputError(f"usage: gpu-advisor history {args.action} ID", field="ID",
                         message_zh=f"用法：gpu-advisor history {args.action} ID")
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
    from advisor.store import open_store

    store = open_store()
    if store is None:
        raise InputError("no conversation store is configured (GPU_ADVISOR_DATABASE_URL=memory)",
                         field="GPU_ADVISOR_DATABASE_URL", accepted="postgresql://…, sqlite:///path.db or unset",
                         message_zh="未配置对话存储（GPU_ADVISOR_DATABASE_URL=memory）")
    return store


def _not_found(what: str) -> InputError:
    return InputError(f"not found: {what!r} is no stored conversation or quote", field="ID",
                      message_zh=f"未找到：{what!r} 不是已保存的对话或报价")


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _list(store: Store, args: argparse.Namespace) -> None:
    zh = args.lang == "zh"
    if args.quotes:
        quotes = store.list_quotes(args.owner, args.limit)
        if args.json:
            print(json.dumps([{"id": q.id, "conversation_id": q.conversation_id, "owner": q.owner,
                               "question": q.question, "computed_at": _iso(q.computed_at),
                               "exported_at": _iso(q.created_at)} for q in quotes], ensure_ascii=False, indent=2))
            return
        print(("报价" if zh else "quotes") + f": {len(quotes)}")
        for q in quotes:
            print(f"{q.id}  {_when(q.computed_at)}  {q.owner or '-'}  {_short(q.question)}")
        return
    convs = store.list_conversations(args.owner, args.limit)
    if args.json:
        print(json.dumps([{"id": c.id, "source": c.source, "owner": c.owner, "title": c.title, "turns": c.revision,
                           "created_at": _iso(c.created_at), "updated_at": _iso(c.updated_at)} for c in convs],
                         ensure_ascii=False, indent=2))
        return
    print(("对话" if zh else "conversations") + f": {len(convs)}")
    turns = "轮" if zh else "turns"
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
    for t in store.turns(record.id):
        result = None
        if t.result:
            try:
                result = json.loads(t.result)
            except ValueError:
                result = None
        turns.append({"seq": t.seq, "question": t.question, "answer": t.answer, "driver": t.driver,
                      "duration_s": round(t.duration_s, 3), "error": t.error, "quote_id": t.quote_id,
                      "at": _iso(t.created_at), "result": result})
    return {"id": record.id, "source": record.source, "owner": record.owner, "title": record.title,
            "turns_count": record.revision, "created_at": _iso(record.created_at),
            "updated_at": _iso(record.updated_at), "turns": turns}


def _conversation_markdown(doc: dict[str, Any], lang: str) -> str:
    zh = lang == "zh"
    lines = [f"# {doc['title'] or doc['id']}", "",
             f"- {'对话' if zh else 'conversation'}: `{doc['id']}` ({doc['source']})",
             f"- {'更新于' if zh else 'updated'}: {doc['updated_at']}", ""]
    for t in doc["turns"]:
        lines += [f"## {t['seq']}. {t['question']}", "", f"_{t['at']} · {t['driver']} · {t['duration_s']} s_", ""]
        if t["quote_id"]:
            lines += [f"{'报价' if zh else 'quote'}: `{t['quote_id']}`", ""]
        lines += [t["answer"], ""]
    return "\n".join(lines).rstrip() + "\n"


def _show(store: Store, args: argparse.Namespace) -> None:
    from advisor.store.records import QuoteRecord

    record = _find(store, args.id)
    if isinstance(record, QuoteRecord):
        print(record.json if args.json else record.markdown)
        return
    doc = _conversation_doc(store, record)
    if args.json:
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    zh = args.lang == "zh"
    print(f"{doc['id']}  {doc['source']}  {doc['owner'] or '-'}  "
          f"{doc['turns_count']} {'轮' if zh else 'turns'}  {_when(record.updated_at)}")
    for t in doc["turns"]:
        first = (t["answer"] or "").strip().splitlines()[0] if (t["answer"] or "").strip() else ""
        quote_note = f"  [{'报价' if zh else 'quote'} {t['quote_id']}]" if t["quote_id"] else ""
        print(f"{t['seq']:>3}. {_short(t['question'], 70)}{quote_note}\n     → {_short(first, 90)}")


def _export(store: Store, args: argparse.Namespace) -> None:
    from advisor.store.records import QuoteRecord
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
            raise InputError(f"cannot write {args.output}: {exc.strerror}", field="--output",
                             message_zh=f"无法写入 {args.output}：{exc.strerror}") from None
        print(args.output)
    else:
        print(text.rstrip("\n"))


def _purge(store: Store, args: argparse.Namespace, age_s: float | None) -> None:
    from advisor.store import retention_days

    if age_s is None:
        age_s = retention_days() * 86400.0
    counts = store.purge(age_s)
    if args.json:
        print(json.dumps({"older_than_s": age_s, "deleted": counts}))
        return
    days = age_s / 86400.0
    if args.lang == "zh":
        print(f"已删除 {days:g} 天前的记录：对话 {counts['conversations']}，轮次 {counts['turns']}，"
              f"报价 {counts['quotes']}，过期事件 {counts['events']}")
    else:
        print(f"deleted what is older than {days:g} days: {counts['conversations']} conversations, "
              f"{counts['turns']} turns, {counts['quotes']} quotes, {counts['events']} expired event ids")
