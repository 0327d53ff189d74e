"""What every evaluation does before and after the rules run, whichever evaluator runs them.

`prepare` validates the facts of one request (one mapping or a list; facts models accepted) into flat
dicts; `collect` turns (rule id, fact index) hits into rendered findings in a stable order: by fact
index, then severity (block, warn, info), then rule id. Same facts, same findings, same order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from knowledge.errors import InputError
from rules.facts import validate_facts
from rules.findings import Finding
from rules.meta import SEVERITY_RANK, get_rule
from rules.render import finding

MAX_FACTS = 1000  # facts per request; a request is one conversation turn or one recommendation


def prepare(facts: Mapping[str, Any] | Sequence[Mapping[str, Any]] | Any) -> list[dict[str, Any]]:
    """Validated flat facts of one request, in the order given."""
    if isinstance(facts, Mapping) or hasattr(facts, "to_facts"):
        items: list[Any] = [facts]
    elif isinstance(facts, (list, tuple)):
        items = list(facts)
    else:
        raise InputError(f"facts must be a mapping or a list of mappings, got {type(facts).__name__}",
                         field="facts", accepted="a fact mapping with 'kind', or a list of them")
    if len(items) > MAX_FACTS:
        raise InputError(f"{len(items)} facts in one request is too many", field="facts",
                         accepted=f"at most {MAX_FACTS}")
    return [{k: _engine_number(v) for k, v in validate_facts(item).items()} for item in items]


def _engine_number(value: Any) -> Any:
    """`value`, unless it is a float whose JSON text durable's parser rejects (error 204): an exponent without a
    decimal point, as Python writes 1e+16, 1e-07 or 5e-324. An integral one becomes the equal int (exact); any
    other moves away from zero by the fewest ulps that give a written decimal point (relative change ~1e-16, more
    only for subnormals). Both evaluators see the prepared value, so they agree."""
    if type(value) is not float or not math.isfinite(value):
        return value
    text = repr(value)
    if "e" not in text or "." in text:
        return value
    if value.is_integer():
        return int(value)
    away = math.copysign(math.inf, value)
    while "e" in text and "." not in text:
        value = math.nextafter(value, away)
        text = repr(value)
    return value


def collect(hits: Iterable[tuple[str, int]], facts: Sequence[Mapping[str, Any]]) -> list[Finding]:
    """Rendered findings for (rule id, fact index) hits, sorted by fact, severity and rule id."""
    out = [finding(get_rule(rule_id), facts[index], index) for rule_id, index in set(hits)]
    out.sort(key=lambda fd: (fd.fact_index, SEVERITY_RANK[fd.severity], fd.rule_id))
    return out
