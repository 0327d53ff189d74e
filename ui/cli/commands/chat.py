"""`gpu-advisor chat`: an interactive conversation in the terminal (LLM or deterministic mode).

Tool steps are printed as they run; the answer follows. Commands: /reset (start over), /json (the last
turn's JSON contract), /quit. End of input (Ctrl-D) or Ctrl-C ends the session cleanly.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from knowledge.quantities import Seconds
from ui.cli import jsonout

HELP = "interactive conversation in the terminal"

BANNER = {
    "deterministic": "GPU Advisor — deterministic mode (no language model configured). Chinese or English. "
                     "/reset starts over, /json shows the last turn as JSON, /quit or Ctrl-D exits.",
    "llm": "GPU Advisor — LLM mode ({model}); falls back to the deterministic dialog if the model fails. "
           "/reset starts over, /json shows the last turn as JSON, /quit or Ctrl-D exits.",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lang", choices=("zh", "en"), help="answer language (default: follow the user)")
    parser.add_argument("--driver", choices=("deterministic", "llm"),
                        help="force a driver (default: llm when a model is configured, else deterministic)")
    parser.add_argument("--quiet", action="store_true", help="do not print tool steps or the banner")


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    # start-up: the conversation stack loads once the arguments are read (`chat --help`, a refused option)
    from advisor.conversation.render.firstscreen import plain_details

    # start-up: the conversation stack loads once the arguments are read (`chat --help`, a refused option)
    from advisor.conversation.session import Conversation, new_conversation

    # start-up: the conversation stack loads once the arguments are read (`chat --help`, a refused option)
    from advisor.conversation.turn import Turn

    stdin = stdin or sys.stdin
    out = stdout or sys.stdout
    conv = Conversation(driver=args.driver, lang=args.lang) if args.driver else new_conversation(lang=args.lang)
    interactive = stdin.isatty() and out.isatty()
    if not args.quiet:
        model = getattr(conv.settings, "model", "") if conv.settings is not None else ""
        out.write(BANNER[conv.driver].format(model=model or "configured model") + "\n")
    last: Turn | None = None
    try:
        while True:
            if interactive:
                out.write("\n> ")
                out.flush()
            line = stdin.readline()
            if not line:  # EOF
                break
            text = line.strip()
            if not text:
                continue
            if text in ("/quit", "/exit", "/q"):
                break
            if text == "/reset":
                conv = Conversation(driver=conv.driver, settings=conv.settings, lang=args.lang)
                out.write("(conversation reset)\n")
                continue
            if text == "/json":
                out.write(jsonout.dumps(last.to_contract() if last else {}) + "\n")
                continue
            if not interactive:
                out.write(f"\n> {text}\n")
            for item in conv.stream(text):
                if isinstance(item, Turn):
                    last = item
                elif not args.quiet:
                    mark = "✓" if item.ok else "✗"
                    out.write(f"  {mark} {item.name} ({Seconds(item.duration_s).text('ms', 0)}) {item.summary}\n")
            assert last is not None
            if last.note and last.note != "error":
                out.write(f"({last.note})\n")
            out.write(plain_details(last.answer) + "\n")  # collapsible sections as headed plain sections
            out.flush()
    except KeyboardInterrupt:
        pass
    if interactive:
        out.write("\n")
    return 0
