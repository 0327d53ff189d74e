"""`gpu-advisor ask "free text"`: one turn through the conversation layer.

Plain output is the answer (markdown) followed by the clarifying question, if any. `--json` prints the
DESIGN.md contract: `answer`, `questions`, `numbers` [{name, value, unit, source}], `findings`, `mode`.
`--state FILE` keeps the conversation between invocations (read if it exists, written after the turn), so a
script can hold a multi-turn conversation: `ask --state s.json "Qwen2.5-32B 推理"` then `ask --state s.json "改成 8bit 呢?"`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge.errors import InputError
from ui.cli import jsonout

if TYPE_CHECKING:
    from advisor.conversation.session import Conversation

MAX_STATE_BYTES = 16 * 2**20  # a conversation state file (a long conversation is a few hundred KB)
HELP = "one conversational turn (free text, Chinese or English)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="+", help="the question; '-' reads it from standard input")
    parser.add_argument("--json", action="store_true", help="print the JSON contract instead of the answer text")
    parser.add_argument("--lang", choices=("zh", "en"), help="answer language (default: the question's)")
    parser.add_argument("--driver", choices=("deterministic", "llm"),
                        help="force a driver (default: llm when a model is configured, else deterministic)")
    parser.add_argument("--state", metavar="FILE", help="conversation state file to continue and update")
    parser.add_argument("--conversation", metavar="new|ID",
                        help="a stored conversation to continue ('new' starts one; see `gpu-advisor history`)")


def _load(path: Path, args: argparse.Namespace) -> Conversation:
    # start-up: the conversation stack loads once the arguments are read (`ask --help`, a refused option)
    from advisor.conversation.session import Conversation, new_conversation

    try:
        exists = path.exists()
    except OSError as exc:  # e.g. a name too long for the file system
        raise InputError(f"--state: cannot use this path ({exc.strerror})", field="state") from None
    if exists:
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_STATE_BYTES + 1)
            if len(raw) > MAX_STATE_BYTES:
                raise ValueError(f"larger than {MAX_STATE_BYTES // 2**20} MiB")
            data = json.loads(raw.decode("utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise InputError(f"--state {path}: not a readable conversation state ({exc})", field="state") from None
        conv = Conversation.from_dict(data)
        if args.driver:
            conv.driver = args.driver
        if args.lang:
            conv.fixed_lang = conv.lang = args.lang
        return conv
    if args.driver:
        return Conversation(driver=args.driver, lang=args.lang)
    return new_conversation(lang=args.lang)


def run(args: argparse.Namespace) -> int:
    text = " ".join(args.text)
    if text.strip() == "-":
        text = sys.stdin.read()
    if args.state and args.conversation:
        raise InputError("--state and --conversation both keep the conversation; give one", field="--conversation")
    if args.conversation:
        return _run_stored(args, text)
    if args.state:
        conv = _load(Path(args.state), args)
    else:
        # start-up: the conversation stack loads once the arguments are read (`ask --help`, a refused option)
        from advisor.conversation.session import Conversation, new_conversation

        conv = Conversation(driver=args.driver, lang=args.lang) if args.driver else new_conversation(lang=args.lang)
    turn = conv.respond(text)
    if args.state:
        try:
            Path(args.state).write_text(json.dumps(conv.to_dict(), ensure_ascii=False), encoding="utf-8")
        except OSError as exc:
            raise InputError(f"--state {args.state}: cannot write ({exc.strerror})", field="state") from None
    if args.json:
        print(jsonout.dumps(turn.to_contract()))
        return 0
    if turn.note and turn.note != "error":
        print(f"({turn.note})\n")
    # start-up: the conversation stack loads once the arguments are read (`ask --help`, a refused option)
    from advisor.conversation.render.firstscreen import plain_details

    print(plain_details(turn.answer))  # the answer's collapsible sections as headed plain sections
    return 0


def _run_stored(args: argparse.Namespace, text: str) -> int:
    # start-up: the conversation stack loads once the arguments are read (`ask --help`, a refused option)
    from advisor.conversation.session import Conversation, new_conversation

    # start-up: only --conversation opens the conversation store
    from ui.cli.commands.ask_store import stored_turn

    def make() -> Conversation:
        return Conversation(driver=args.driver, lang=args.lang) if args.driver else new_conversation(lang=args.lang)

    turn, cid, saved = stored_turn(args.conversation, text, make, Conversation.from_dict)
    if args.json:
        print(jsonout.dumps({**turn.to_contract(), "conversation_id": cid, "saved": saved}))
        return 0
    print(turn.answer)
    sys.stderr.write(f"conversation: {cid}" + ("" if saved else " (not saved: the store is unavailable)") + "\n")
    return 0
