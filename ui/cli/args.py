"""argparse options from the struct fields they fill, and types for numeric options: a number that is finite and in
its range, or one line naming the range.

    add_field(parser, Workload, "context")            # --context: type, range, default and help from the field
    add_field(parser, Constraints, "deadline_s", "--deadline-days", scale=86400, default=None)
    parser.add_argument("--mfu", type=number(0, 1, lo_open=True))   # an option that is no struct field

argparse reports a refused value as `gpu-advisor: error: argument --mfu: 1e-320 is out of range (accepted:
> 0.001 … 1)`, exit status 2 (ui.cli.entry._Parser.error). NaN, ±Infinity, numbers that overflow (1e400) and integers
of more than `MAX_DIGITS` digits are refused everywhere, and so are numbers written with padding or underscores
("  12  ", "1_000", full-width "１０２４": Python's int() and float() read them); ranges taken from a struct's Meta
bounds keep one place for each limit.
"""

from __future__ import annotations

import argparse
import math
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal

import msgspec

from advisor.workload import field_bounds
from knowledge.structs import field_type, fields

MAX_DIGITS = 18  # no count or size the advisor takes has more digits


def _fmt(x: float) -> str:
    """1000000 → '1,000,000'; 1e15 → '1,000,000,000,000,000'; 0.01 → '0.01'."""
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e16 else f"{x:g}"


def describe(lo: float | None, hi: float | None, *, lo_open: bool = False, hi_open: bool = False,
             integer: bool = False) -> str:
    """The accepted range in words: '1 … 100,000', '> 0', 'an integer ≥ 1'."""
    kind = "an integer" if integer else "a number"
    if lo is not None and hi is not None:
        if not lo_open and not hi_open:
            return f"{kind} {_fmt(lo)} … {_fmt(hi)}"
        return f"{kind} {'>' if lo_open else '≥'} {_fmt(lo)} and {'<' if hi_open else '≤'} {_fmt(hi)}"
    if lo is not None:
        return f"{kind} {'>' if lo_open else '≥'} {_fmt(lo)}"
    if hi is not None:
        return f"{kind} {'<' if hi_open else '≤'} {_fmt(hi)}"
    return "an integer" if integer else "a finite number"


def parse_number(text: str, *, integer: bool = False) -> float | int:
    """`text` as a finite float (or an int when `integer`); ValueError with a short reason otherwise."""
    raw = str(text)
    if raw != raw.strip() or "_" in raw:  # int()/float() would read "  12  " and "1_000"; a typo is not a number
        raise ValueError(f"'{raw[:40]}' is not written as a plain number (no spaces or underscores)")
    if not raw:
        raise ValueError("an empty value is not a number")
    if not raw.isascii():  # int()/float() read full-width and other scripts' digits ("１０２４"); the API does not
        raise ValueError(f"'{raw[:40]}' is not {'an integer' if integer else 'a number'} (ASCII digits only)")
    if integer:
        digits = raw.lstrip("+-")
        if not digits.isdigit():
            raise ValueError(f"'{raw[:40]}' is not an integer")
        if len(digits) > MAX_DIGITS:
            raise ValueError(f"an integer of {len(digits)} digits is out of range")
        return int(raw)
    if len(raw) > 64:
        raise ValueError(f"'{raw[:20]}…' ({len(raw)} characters) is not a number")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"'{raw}' is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{raw} is not a finite number")
    return value


def number(lo: float | None = None, hi: float | None = None, *, integer: bool = False, lo_open: bool = False,
           hi_open: bool = False) -> Callable[[str], float | int]:
    """An argparse `type`: a finite number (int when `integer`) within [lo, hi] (open ends as given)."""
    accepted = describe(lo, hi, lo_open=lo_open, hi_open=hi_open, integer=integer)

    def convert(text: str) -> float | int:
        try:
            value = parse_number(text, integer=integer)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{exc} (accepted: {accepted})") from None
        below = lo is not None and (value <= lo if lo_open else value < lo)
        above = hi is not None and (value >= hi if hi_open else value > hi)
        if below or above:
            raise argparse.ArgumentTypeError(f"{text} is out of range (accepted: {accepted})")
        return value

    convert.__name__ = "integer" if integer else "number"  # argparse names the type in its own messages
    return convert


def field_number(model: Any, name: str, *, integer: bool | None = None, scale: float = 1.0
                 ) -> Callable[[str], float | int]:
    """An argparse `type` with the range of `model.name` (divided by `scale`: a field in seconds read as days
    takes scale=86400). `integer` defaults to the field's annotation being int."""
    lo, hi, lo_open, hi_open = field_bounds(model, name)
    if integer is None:
        annotation = str(field_type(model, name))
        integer = "int" in annotation and "float" not in annotation
    return number(None if lo is None else lo / scale, None if hi is None else hi / scale, integer=integer,
                  lo_open=lo_open, hi_open=hi_open)


def _members(tp: Any) -> list[Any]:
    """`tp`'s alternatives without Annotated and without None: `Literal[...] | None` → [Literal[...]]."""
    if typing.get_origin(tp) is Annotated:
        return _members(typing.get_args(tp)[0])
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return [m for a in typing.get_args(tp) if a is not type(None) for m in _members(a)]
    return [tp]


def field_description(model: Any, name: str) -> str | None:
    """The `Meta(description=...)` of `model.name` (on the field or on the non-None member of an optional)."""
    def find(tp: Any) -> str | None:
        if typing.get_origin(tp) is Annotated:
            own = next((m.description for m in typing.get_args(tp)[1:]
                        if isinstance(m, msgspec.Meta) and m.description), None)
            return own or find(typing.get_args(tp)[0])
        if typing.get_origin(tp) in (typing.Union, types.UnionType):
            return next((d for a in typing.get_args(tp) if (d := find(a))), None)
        return None

    return find(field_type(model, name))


def add_field(parser: argparse.ArgumentParser | argparse._ArgumentGroup, model: Any, name: str, *flags: str,
              scale: float = 1.0, **overrides: Any) -> argparse.Action:
    """An option that fills field `name` of struct `model`, described by the field itself: `choices` from its
    Literal (an optional Literal too), a range-checked `type` from its Meta bounds (divided by `scale`), bool as
    on/off, `default` the field's default and `help` its description. `flags` default to `--name-with-dashes`;
    `overrides` (a command's own default, a subset of choices, a help naming that command's default, dest,
    metavar) go to `add_argument` as given."""
    kind = _members(field_type(model, name))
    kwargs: dict[str, Any] = {}
    if len(kind) == 1 and typing.get_origin(kind[0]) is Literal:
        kwargs["choices"] = typing.get_args(kind[0])
        if all(isinstance(v, int) and not isinstance(v, bool) for v in kwargs["choices"]):
            kwargs["type"] = int  # --ttft-percentile {50,95,99}: the typed word is read as the number it names
    elif kind == [bool]:
        kwargs["choices"] = ("on", "off")
    elif kind and all(k in (int, float) for k in kind):
        kwargs["type"] = field_number(model, name, scale=scale)
        lo, hi, _, _ = field_bounds(model, name)
        if kind == [int] and scale == 1 and lo is not None and hi is not None and hi - lo < 8:
            kwargs["metavar"] = "{" + ",".join(str(v) for v in range(int(lo), int(hi) + 1)) + "}"  # --zero {0,1,2,3}
    info = fields(model)[name]
    default = None if info.default is msgspec.NODEFAULT else info.default
    if kind == [bool] and isinstance(default, bool):
        default = "on" if default else "off"
    kwargs["default"] = default
    if (text := field_description(model, name)) is not None:
        kwargs["help"] = text
    kwargs.update(overrides)
    return parser.add_argument(*(flags or ("--" + name.replace("_", "-"),)), **kwargs)
