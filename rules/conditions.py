"""Rule conditions as data: a tiny expression language over one flat fact.

Topic modules write conditions with the field proxy `f`::

    (f.gpu_family.one_of("rtx-4090", "rtx-4090d")) & (f.precision == "fp8")

A condition is a tree of `Cmp` (one field against a constant), `Exists` (field present or absent),
`All` and `AnyOf`. Two back-ends read the same tree: `rules.engine` compiles it into a durable_rules
definition, and `Cond.holds(fact)` evaluates it in plain Python (the reference the engine is tested
against). Both follow durable's semantics: a comparison on a missing field is false, `!=` included, and an
ordering comparison between incomparable types (text against a number) is false rather than an error.
Conditions compare fields with constants only; derived quantities are computed before the fact is built.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from knowledge.structs import Value

Op = Literal["==", "!=", "<", "<=", ">", ">="]
Scalar = bool | int | float | str

_PY_OPS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


class Cond:
    """Base of all conditions: combine with `&` and `|`. The conditions below are frozen structs compared and hashed
    by identity (eq=False)."""

    __slots__ = ()  # a mixin of the structs below

    def __and__(self, other: Cond) -> Cond:
        return All(_flatten(All, self, other))

    def __or__(self, other: Cond) -> Cond:
        return AnyOf(_flatten(AnyOf, self, other))

    def holds(self, fact: Mapping[str, Any]) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def fields(self) -> tuple[str, ...]:
        """Fact fields the condition reads, in first-use order."""
        return tuple(dict.fromkeys(self._walk_fields()))

    def _walk_fields(self) -> Iterator[str]:  # pragma: no cover - abstract
        raise NotImplementedError


def _flatten(kind: type, *parts: Cond) -> tuple[Cond, ...]:
    out: list[Cond] = []
    for p in parts:
        if not isinstance(p, Cond):
            raise TypeError(f"not a condition: {p!r}")
        out.extend(p.parts if isinstance(p, kind) else (p,))  # type: ignore[attr-defined]
    return tuple(out)


class Cmp(Value, Cond, eq=False):
    field: str
    op: Op
    value: Scalar

    def holds(self, fact: Mapping[str, Any]) -> bool:
        if self.field not in fact or fact[self.field] is None:
            return False
        try:
            return bool(_PY_OPS[self.op](fact[self.field], self.value))
        except TypeError:
            return False

    def _walk_fields(self) -> Iterator[str]:
        yield self.field

    def __repr__(self) -> str:
        return f"{self.field} {self.op} {self.value!r}"


class Exists(Value, Cond, eq=False):
    field: str
    present: bool = True

    def holds(self, fact: Mapping[str, Any]) -> bool:
        there = self.field in fact and fact[self.field] is not None
        return there if self.present else not there

    def _walk_fields(self) -> Iterator[str]:
        yield self.field

    def __repr__(self) -> str:
        return f"{'+' if self.present else '-'}{self.field}"


class All(Value, Cond, eq=False):
    parts: tuple[Cond, ...]

    def holds(self, fact: Mapping[str, Any]) -> bool:
        return all(p.holds(fact) for p in self.parts)

    def _walk_fields(self) -> Iterator[str]:
        for p in self.parts:
            yield from p._walk_fields()

    def __repr__(self) -> str:
        return "(" + " & ".join(map(repr, self.parts)) + ")"


class AnyOf(Value, Cond, eq=False):
    parts: tuple[Cond, ...]

    def holds(self, fact: Mapping[str, Any]) -> bool:
        return any(p.holds(fact) for p in self.parts)

    def _walk_fields(self) -> Iterator[str]:
        for p in self.parts:
            yield from p._walk_fields()

    def __repr__(self) -> str:
        return "(" + " | ".join(map(repr, self.parts)) + ")"


class Field:
    """A reference to one fact field; comparison operators build conditions."""

    __slots__ = ("name",)
    __hash__ = None  # type: ignore[assignment]  # == builds a condition, so fields are not hashable

    def __init__(self, name: str) -> None:
        self.name = name

    def _cmp(self, op: Op, value: Any) -> Cmp:
        if not isinstance(value, (bool, int, float, str)):
            raise TypeError(f"{self.name} {op} {value!r}: compare with a constant (bool, number or text)")
        return Cmp(self.name, op, value)

    def __eq__(self, value: Any) -> Cmp:  # type: ignore[override]
        return self._cmp("==", value)

    def __ne__(self, value: Any) -> Cmp:  # type: ignore[override]
        return self._cmp("!=", value)

    def __lt__(self, value: Any) -> Cmp:
        return self._cmp("<", value)

    def __le__(self, value: Any) -> Cmp:
        return self._cmp("<=", value)

    def __gt__(self, value: Any) -> Cmp:
        return self._cmp(">", value)

    def __ge__(self, value: Any) -> Cmp:
        return self._cmp(">=", value)

    def one_of(self, *values: Scalar) -> Cond:
        """Equal to any of `values` (an OR of equalities; durable hashes equality tests)."""
        if not values:
            raise ValueError(f"{self.name}.one_of() needs at least one value")
        if len(values) == 1:
            return self == values[0]
        return AnyOf(tuple(self == v for v in values))

    def between(self, low: float, high: float) -> Cond:
        """low < value <= high."""
        return (self > low) & (self <= high)

    def exists(self) -> Exists:
        return Exists(self.name, True)

    def missing(self) -> Exists:
        return Exists(self.name, False)

    def is_not_false(self) -> Cond:
        """True, or not stated (a missing field reads as "unknown, assume yes")."""
        return (self == True) | self.missing()  # noqa: E712 - builds a condition


class _Facts:
    """`f.name` is `Field("name")`: the condition-building proxy used by the topic modules."""

    def __getattr__(self, name: str) -> Field:
        if name.startswith("__"):
            raise AttributeError(name)
        return Field(name)


f = _Facts()
