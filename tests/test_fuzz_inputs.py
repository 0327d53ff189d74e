"""Property-based fuzzing of the CLI (every non-server subcommand) and the chat extractor, with a fixed budget.

Each CLI call: exit status 0 or 2, nothing escapes `ui.cli.entry.main`, no traceback on stderr, a refusal is one line,
and `--json` output is strict JSON (no NaN/Infinity). Each extractor call returns Slots whose numbers are finite
and within the Workload's ranges. Budgets: FUZZ_CLI_EXAMPLES per subcommand, FUZZ_CHAT_EXAMPLES messages
(derandomized: the same cases on every run; raise them with the environment variables for a longer run).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import math
import os
import tempfile
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ui.cli.entry as cli
from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.ranges import limits
from knowledge.structs import dump

CLI_EXAMPLES = int(os.environ.get("FUZZ_CLI_EXAMPLES", "60"))
CHAT_EXAMPLES = int(os.environ.get("FUZZ_CHAT_EXAMPLES", "300"))
SERVERS = {"web", "slack", "chat", "api", "mcp"}  # long-running or interactive: probed by their own tests
COMMANDS = sorted({name for name in cli.COMMANDS if name not in SERVERS})

HOSTILE_NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e-320", "5e-324", "1e308", "1e400", "-1", "0", "-0",
                   "9" * 400, "1e3", "0x10", "1_000", "", " ", "１２", "2B", "1.5T", "abc", "3.7", "1e15", "1e16"]
HOSTILE_TEXT = ["../../etc/passwd", "x" * 5000, "h100-sxm,h100-sxm", "2x3090", "0x4090", "\x00", "１２", "",
                "9999999x4090", "rtx-4090," * 50, "$(reboot)", "nan"]
GOOD = {"--model": ["llama-3-8b", "qwen2.5-7b", "qwen2.5-72b"], "--gpu": ["h100-sxm", "rtx-4090", "a100-80g-sxm"],
        "--tokens": ["2e9", "1B"], "--config": ["/dev/zero", "/nonexistent/config.json"], "--state": ["/dev/null"]}


def _parser(name: str) -> Any:
    module = importlib.import_module(cli.COMMANDS[name])
    parser = cli._Parser(prog=name)  # noqa: SLF001
    module.add_arguments(parser, name) if cli._takes_name(module) else module.add_arguments(parser)  # noqa: SLF001
    return parser


def _options(name: str) -> list[Any]:
    return [a for a in _parser(name)._actions if a.option_strings and a.option_strings[0] != "-h"]  # noqa: SLF001


@st.composite
def argvs(draw: Any, name: str) -> list[str]:
    """A plausible command line for `name` with one or two hostile values (numbers, ids, paths)."""
    options = _options(name)
    hostile = set(draw(st.sets(st.sampled_from([a.dest for a in options]), max_size=2))) if options else set()
    if hostile and draw(st.integers(0, 3)) == 0:
        hostile = set()  # a quarter of the calls are ordinary ones
    argv = [name]
    if name in ("gpus", "models") and draw(st.booleans()):
        argv += ["show", draw(st.sampled_from(["h100-sxm", "llama-3-8b", "zz", "../../etc/passwd"]))]
    if name == "ask":
        argv.append(draw(st.sampled_from(["serve qwen2.5-7b to 1e400 users", "用 4090 跑 70B 吗", "nan",
                                          "serve llama-3-8b with 1e3 context"])))
    for a in options:
        flag = a.option_strings[0]
        if flag in ("--config", "--state") and a.dest not in hostile:
            continue
        if a.dest not in hostile and not a.required and flag != "--model" and not draw(st.booleans()):
            continue
        if flag == "--model" and "config" in hostile:
            continue  # --model and --config exclude each other
        if a.nargs == 0:
            argv.append(flag)
        elif a.choices:
            argv += [flag, str(draw(st.sampled_from(sorted(map(str, a.choices)))))]
        elif a.dest in hostile and a.type is None and flag not in GOOD:
            argv += [flag, draw(st.sampled_from(HOSTILE_TEXT))]
        elif a.dest in hostile:
            argv += [flag, draw(st.one_of(st.sampled_from(HOSTILE_NUMBERS),
                                          st.floats(allow_nan=True, allow_infinity=True).map(repr),
                                          st.integers(-10**30, 10**30).map(str)))]
        elif flag in GOOD:
            argv += [flag, draw(st.sampled_from(GOOD[flag]))]
        elif a.type is not None:
            argv += [flag, draw(st.sampled_from(["1", "2", "8"]))]
    if "--driver" in [a.option_strings[0] for a in options] and "--driver" not in argv:
        argv += ["--driver", "deterministic"]  # never reach out to a model
    if draw(st.booleans()) and "--json" not in argv and any(a.dest == "json" for a in options):
        argv.append("--json")
    return argv


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"non-standard JSON constant {constant}")

    return json.loads(text, parse_constant=refuse)


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    # in a scratch directory: hostile values of path options (--state 1e3) would otherwise create files in the checkout
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse refusals (ui.cli.entry._Parser.error) exit 2
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def check_cli_call(argv: list[str]) -> None:
    code, out, err = run_cli(argv)
    assert code in (0, 2), (argv, code, err[-500:])
    assert "Traceback" not in err, (argv, err[-800:])
    if code == 2:
        assert err.startswith("gpu-advisor: error:") or err.startswith("usage:"), (argv, err)
        assert err.strip().count("\n") == 0 or err.startswith("usage:"), (argv, err)
    elif "--json" in argv:
        _strict(out)
    else:
        assert "nan" not in out.lower().split() and " inf " not in out.lower(), (argv, out[:500])


@pytest.mark.parametrize("name", COMMANDS)
def test_cli_subcommand_fuzz(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("OPENAI_API_KEY", "LLM_API_KEY", "GPU_ADVISOR_LLM_API_KEY"):
        monkeypatch.delenv(key, raising=False)

    @settings(max_examples=CLI_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(argvs(name))
    def probe(argv: list[str]) -> None:
        check_cli_call(argv)

    probe()


# -- the extractor ----------------------------------------------------------------------------------------------
WORDS = ["serve", "llama-3-8b", "qwen2.5-72b", "users", "concurrent", "并发", "上下文", "context", "tokens", "k", "万",
         "预算", "budget", "$", "¥", "4090", "h100", "张", "cards", "pretrain", "on", "days", "天", "fp8e4m3", "QPS",
         "e", "-", ",", ".", "1e3", "1e308", "1e400", "9" * 60, "0", "nan", "inf"]
NUMERIC_SLOTS = ("context", "concurrency", "train_tokens", "prompt_tokens", "output_tokens")


@settings(max_examples=CHAT_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(WORDS), st.integers(0, 10**12).map(str),
                          st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=6)),
                max_size=12).map(" ".join),
       st.sampled_from([None, "context", "concurrency", "budget", "gpu_count", "output_tokens"]))
def test_extractor_fuzz(text: str, pending: str | None) -> None:
    slots = extract(text, pending=pending)
    for slot in NUMERIC_SLOTS:
        value = getattr(slots, slot)
        if value is not None:
            lo, hi = limits(slot)
            assert math.isfinite(value) and lo <= value <= hi, (text, slot, value)
    for wrong in slots.out_of_range:
        assert not (wrong.lo <= wrong.value <= wrong.hi), (text, wrong)
    for name in ("budget", "qps", "deadline_s", "size_params"):
        value = getattr(slots, name)
        assert value is None or math.isfinite(value), (text, name, value)
    json.dumps(dump(slots, json=True), allow_nan=False)  # what the session stores
