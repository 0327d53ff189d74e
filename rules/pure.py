"""A durable-free evaluator of the same rules: the reference the engine is tested against.

`evaluate_pure(facts)` validates and renders exactly like `rules.engine.evaluate`, but decides which
rules fire with `Cond.holds` in plain Python. The tests require both to give identical findings, so the
conditions mean the same thing in both back-ends. Not used by the product.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.findings import Finding
from rules.meta import all_rules
from rules.request import collect, prepare


def hits_pure(facts: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
    return [(r.id, i) for i, fact in enumerate(facts) for r in all_rules()
            if fact.get("kind") == r.applies_to and r.when.holds(fact)]


def evaluate_pure(facts: Any) -> list[Finding]:
    prepared = prepare(facts)
    return collect(hits_pure(prepared), prepared)
