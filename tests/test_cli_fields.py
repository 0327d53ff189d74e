"""CLI options generated from the struct fields they fill (`ui.cli.args.add_field`): choices, ranges, defaults and
help come from the field, so an option cannot drift from the Workload/Constraints it feeds."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import typing
from typing import Annotated, Literal

import pytest

import ui.cli.entry as cli
from advisor.workload import Constraints, Workload
from knowledge.structs import Frozen, Meta, bounds, field_type
from ui.cli.args import add_field


class _Job(Frozen):
    mode: Annotated[Literal["a", "b"], Meta(description="the mode")] = "a"
    level: Annotated[Literal["x", "y"], Meta(description="a level")] | None = None
    count: Annotated[int, Meta(ge=1, le=5, description="how many")] = 2
    rate: Annotated[float, Meta(gt=0, le=1)] | None = None
    fast: Annotated[bool, Meta(description="go fast")] | None = None


def _parse(parser: argparse.ArgumentParser, *argv: str) -> tuple[argparse.Namespace | None, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
        return parser.parse_args(list(argv)), ""
    return None, err.getvalue().strip().splitlines()[-1]


def test_add_field_reads_choices_range_default_and_help_from_the_field() -> None:
    parser = argparse.ArgumentParser(prog="p")
    mode, level, count = (add_field(parser, _Job, n) for n in ("mode", "level", "count"))
    rate, fast = add_field(parser, _Job, "rate"), add_field(parser, _Job, "fast")
    assert (mode.option_strings, mode.choices, mode.default, mode.help) == (["--mode"], ("a", "b"), "a", "the mode")
    assert (level.choices, level.default, level.help) == (("x", "y"), None, "a level")  # an optional Literal
    assert (count.default, count.help, count.metavar) == (2, "how many", "{1,2,3,4,5}")
    assert (rate.default, rate.help) == (None, None)
    assert (fast.choices, fast.default) == (("on", "off"), None)
    ns, _ = _parse(parser, "--count", "5", "--rate", "1", "--fast", "off")
    assert ns is not None and (ns.count, ns.rate, ns.fast) == (5, 1.0, "off")
    assert _parse(parser, "--count", "6")[1] == "p: error: argument --count: 6 is out of range (accepted: an integer 1 … 5)"
    assert _parse(parser, "--rate", "0")[1].endswith("0 is out of range (accepted: a number > 0 and ≤ 1)")
    assert _parse(parser, "--count", "１")[1].endswith("'１' is not an integer (ASCII digits only) "
                                                      "(accepted: an integer 1 … 5)")
    assert "invalid choice: 'c'" in _parse(parser, "--mode", "c")[1]


def test_overrides_and_scale() -> None:
    parser = argparse.ArgumentParser(prog="p")
    action = add_field(parser, Constraints, "deadline_s", "--deadline-days", scale=86400, help="days")
    assert (action.dest, action.help, action.default) == ("deadline_days", "days", None)
    hi = bounds(Constraints, "deadline_s")[1]
    assert hi is not None
    assert _parse(parser, "--deadline-days", str(hi / 86400))[0] is not None
    assert "out of range" in _parse(parser, "--deadline-days", str(hi / 86400 * 1.01))[1]


def _literal_values(tp: object) -> set[object]:
    if typing.get_origin(tp) is Literal:
        return set(typing.get_args(tp))
    return set().union(*(_literal_values(a) for a in typing.get_args(tp) if not isinstance(a, Meta)))


_ALIASES = {"tokens": "train_tokens", "deadline_days": "deadline_s", "years": "tco_years", "micro_batch": "batch"}


@pytest.mark.parametrize("command", ["estimate", "throughput", "train-time", "recommend", "tco"])
def test_every_field_option_of_a_command_agrees_with_its_field(command: str) -> None:
    """Each option that fills a Workload/Constraints field offers no value the field refuses, refuses the first
    integer past the field's range with one line, and says what it is."""
    module = importlib.import_module(cli.COMMANDS[command])
    parser = cli._Parser(prog=command)
    module.add_arguments(parser)
    seen = 0
    for action in parser._actions:
        name = _ALIASES.get(action.dest, action.dest)
        model = Workload if name in Workload.__struct_fields__ else (
            Constraints if name in Constraints.__struct_fields__ else None)
        if model is None or action.dest == "model" or not action.option_strings or (command, name) == (
                "train-time", "engine"):  # train-time's --engine is the training framework the planner models
            continue
        seen += 1
        assert action.help, f"{command} {action.option_strings[0]} has no help"
        if action.choices is not None and name != "offload":  # offload adds llama.cpp's "layers" (no field)
            allowed = _literal_values(field_type(model, name)) or {"on", "off"}
            assert set(action.choices) <= allowed, f"{command} {action.option_strings[0]}"
        _, hi, _, _ = bounds(model, name)
        if action.type is not None and hi is not None and name != "deadline_s" and float(hi).is_integer():
            argv = [a for a in ("--model", "llama-3-8b", "--gpu", "h100-sxm", "--tokens", "1e9")
                    if command != "tco" or a not in ("--model", "llama-3-8b", "--tokens", "1e9")]
            if action.dest == "tokens":
                continue
            line = _parse(parser, *argv, action.option_strings[0], str(int(hi) + 1))[1]
            assert "out of range" in line and "\n" not in line
    assert seen >= {"estimate": 20, "throughput": 8, "train-time": 6, "recommend": 20, "tco": 5}[command]
