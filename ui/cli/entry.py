"""`gpu-advisor` command line. Each subcommand lives in `ui/cli/commands/<name>.py` and is imported only when used,
so `gpu-advisor gpus` never imports Gradio, LangChain or Slack.

A command module provides `HELP` (one line), `add_arguments(parser)` and `run(args) -> int`.
User errors (`knowledge.errors.AdvisorError`) print one line on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the start-up path imports as little as it can
    from types import FunctionType, ModuleType
    from typing import NoReturn

COMMANDS: dict[str, str] = {
    "gpus": "ui.cli.commands.catalog",
    "models": "ui.cli.commands.catalog",
    "estimate": "ui.cli.commands.estimate",
    "throughput": "ui.cli.commands.throughput",
    "train-time": "ui.cli.commands.train_time",
    "tco": "ui.cli.commands.tco",
    "recommend": "ui.cli.commands.recommend",
    "ask": "ui.cli.commands.ask",
    "chat": "ui.cli.commands.chat",
    "web": "ui.cli.commands.web",
    "slack": "ui.cli.commands.slack",
    "mcp": "ui.cli.commands.mcp",
    "api": "ui.cli.commands.api",
    "history": "ui.cli.commands.history",
}

SUMMARY = {
    "gpus": "list GPUs (or `gpus show ID`) with specs, prices and sources",
    "models": "list models (or `models show ID`) with architecture and parameter counts",
    "estimate": "memory per GPU for inference, fine-tuning or training",
    "throughput": "decode/prefill speed and time to first token",
    "train-time": "training wall-clock time and GPU-hours for a token budget",
    "tco": "purchase, power and cloud cost over years",
    "recommend": "ranked GPU configurations for a workload and constraints",
    "ask": "one conversational turn (free text, Chinese or English)",
    "chat": "interactive conversation in the terminal",
    "web": "start the browser chat (Gradio)",
    "slack": "start the Slack bot",
    "mcp": "serve the advisor over the Model Context Protocol (stdio, or --http)",
    "api": "serve the JSON API (/api/v1) without the browser chat",
    "history": "stored conversations and quotes: list, show ID, export ID, purge --older-than 30d",
}


# Commands that compute one answer and exit: run as their own process (`gpu-advisor …`, `python -m ui.cli.entry …`),
# they turn the cyclic garbage collector off (`main`). Their imports and search allocate ~10^5 containers that live
# until exit; the collector scanned them ~45 times per `recommend` (one full pass), ≈ 9 ms of ~175 ms CPU (median of
# 15 paired runs), for no memory back: peak RSS 30.3 → 30.8 MiB. Memory is still freed by reference counting; the
# servers and the chat (long-running) keep the collector, tuned in ui/server/process.py.
# Run as the process (`run_process`), they also end it without the interpreter's teardown.
ONE_SHOT = frozenset({"gpus", "models", "estimate", "throughput", "train-time", "tco", "recommend"})


def _one_shot_process() -> bool:
    """Whether this process runs a one-shot command (its own argv names one of `ONE_SHOT`)."""
    return len(sys.argv) > 1 and sys.argv[1] in ONE_SHOT


def _terminal_columns() -> int:
    """What `shutil.get_terminal_size` gives argparse ($COLUMNS, the terminal, else 80) without importing shutil
    (≈ 3 ms with the compression modules it pulls in): argparse builds a help formatter on every add_argument."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Formatter(argparse.HelpFormatter):
    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _terminal_columns() - 2)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:  # one clear line, exit status 2, no usage dump
        sys.stderr.write(f"gpu-advisor: error: {message}\n")
        raise SystemExit(2)


def _top_help() -> str:
    width = max(map(len, SUMMARY))
    lines = ["usage: gpu-advisor COMMAND [options]   (gpu-advisor COMMAND --help for details)", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, text in SUMMARY.items()]
    return "\n".join(lines)


_ID_OPTIONS = ("gpu", "model", "existing_gpu", "gpus", "models", "candidates")


def _refuse_blank(parser: _Parser, argv: list[str]) -> None:
    """An empty or blank catalog id (`--gpu ""`, `--model " "`) is an error naming the option: the commands read an
    empty id as the option left out. Other options refuse a blank value themselves, with what they accept."""
    def refuse(option: str) -> None:
        action = parser._option_string_actions.get(option)
        if action is not None and action.dest in _ID_OPTIONS:
            parser.error(f"argument {option}: an empty value is not accepted (leave the option out instead)")

    for i, token in enumerate(argv):
        option, eq, value = token.partition("=")
        if eq and option.startswith("--") and not value.strip():
            refuse(option)
        if not token.strip() and i and argv[i - 1].startswith("-"):
            refuse(argv[i - 1])


def main(argv: list[str] | None = None) -> int:
    """Run one command; `argv` None means this process runs it (the console script, `python -m`): a one-shot command
    then turns the cyclic garbage collector off (`ONE_SHOT`). Callers in a process that goes on pass `argv`."""
    if argv is None and _one_shot_process():
        gc.disable()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_top_help())
        return 0
    name = argv[0]
    if name not in COMMANDS:
        import difflib

        close = difflib.get_close_matches(name, COMMANDS, n=3)
        hint = f"; did you mean: {', '.join(close)}?" if close else f"; accepted: {', '.join(COMMANDS)}"
        sys.stderr.write(f"gpu-advisor: error: unknown command '{name}'{hint}\n")
        return 2
    module = importlib.import_module(COMMANDS[name])
    parser = _Parser(prog=f"gpu-advisor {name}", description=SUMMARY[name])
    module.add_arguments(parser, name) if _takes_name(module) else module.add_arguments(parser)
    _refuse_blank(parser, argv[1:])
    args = parser.parse_args(argv[1:])
    args.command = name
    # start-up: `gpu-advisor --help` and a mistyped command load nothing of the project
    from knowledge.errors import AdvisorError

    try:
        return int(module.run(args) or 0)
    except AdvisorError as exc:
        sys.stderr.write(f"gpu-advisor: error: {exc}\n")
        return 2
    except ValueError as exc:  # pydantic's ValidationError is one: a value outside a model's range
        sys.stderr.write(f"gpu-advisor: error: {_one_line(exc)}\n")
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


def _one_line(exc: ValueError) -> str:
    """A validation error as one line: the field, what is wrong and the value given."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "input"
        return f"{field}: {first.get('msg', 'invalid value')} (got {first.get('input')!r})"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _takes_name(module: ModuleType) -> bool:
    """Whether `add_arguments` takes the command name too (positional parameters counted from its code object:
    `inspect.signature` would import `inspect`, ≈ 8 ms of a start-up)."""
    add_arguments: FunctionType = module.add_arguments
    return add_arguments.__code__.co_argcount == 2


def run_process() -> NoReturn:
    """The process entry point (the `gpu-advisor` console script, `python -m ui.cli.entry`): `main`, then exit.

    A one-shot command (`ONE_SHOT`) ends the process with `os._exit` once stdout and stderr are flushed, skipping
    the interpreter's teardown: freeing every module and object one by one cost ≈ 12 ms of a ~115 ms `recommend`
    (median of 15 runs each way), for a process whose memory the OS takes back anyway. Instagram ends its workers
    the same way ("Dismissing Python Garbage Collection at Instagram", 2017: `atexit.register(os._exit, 0)`).
    These commands leave no thread, open store or atexit hook behind; the long-running ones exit normally."""
    code = main()
    if _one_shot_process():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (BrokenPipeError, ValueError):  # a reader that went away (`| head`), a closed stream: as main
                pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    run_process()
