"""The explanation tools: a rule or a guide claim (the guide's figure, the computed one, the verdict, the claims
rules' findings), and the one clarifying question."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, TypeVar

from advisor.conversation.llm.prompts import SLOTS
from advisor.conversation.tools.args import AskArgs, ExplainArgs
from advisor.conversation.tools.format import num
from advisor.conversation.tools.results import ToolOutput, dedupe_findings, evaluate_rules, finding_dict
from knowledge.errors import AdvisorError
from rules.findings import Finding
from rules.sources import citation

if TYPE_CHECKING:
    from knowledge.guides import Claim
    from rules.meta import RuleMeta

log = logging.getLogger(__name__)
T = TypeVar("T")


def explain_rule_or_claim_tool(args: ExplainArgs) -> ToolOutput:
    """A rule (id, summary, source) or a guide claim with the guide's figure, the computed one and the verdict."""
    query = args.query.strip()
    rule = _rule_or_none(query)
    if rule is not None:
        about = _rule_data(rule)
        return ToolOutput(f"rule {rule.id}: {rule.summary}", about, [], [], {"rule": about})
    claims = _claims()
    exact = [c for c in claims if c.id == query]
    matches = exact or _best(claims, query, lambda c: f"{c.id} {c.quote} {c.claim} {c.explanation}", 3)
    rules = [] if exact else _best(_all_rules(), query, lambda r: f"{r.id} {r.topic} {r.summary} {r.en} {r.zh}", 3)
    if not matches and not rules:
        raise AdvisorError(f"no rule or guide claim matches '{query[:80]}'", field="query",
                           accepted="a rule id, a claim id, or words of the claim as quoted")
    numbers: list[dict[str, Any]] = []
    findings: list[Finding] = []
    rows = []
    for c in matches:
        row, nums, fnd = _claim_row(c)
        rows.append(row)
        numbers += nums
        findings += fnd
    data: dict[str, Any] = {}
    if rows:
        data.update(claims=rows, numbers=numbers, findings=[finding_dict(f) for f in findings])
    if rules:
        data["rules"] = [_rule_data(r) for r in rules]
    summary = (f"claim {matches[0].id}: {matches[0].verdict}" if matches
               else f"rules matching '{query[:40]}': {', '.join(r.id for r in rules)}")
    return ToolOutput(summary, data, numbers, dedupe_findings(findings), {"explanation": data})


def _all_rules() -> tuple[RuleMeta, ...]:
    try:
        from rules.meta import all_rules  # optional: the answer degrades when rules.meta fails to import
    except ImportError:
        return ()
    return all_rules()


def _rule_or_none(query: str) -> RuleMeta | None:
    for r in _all_rules():
        if r.id == query.lower():
            return r
    return None


def _rule_data(rule: Any) -> dict[str, Any]:
    return {"rule_id": rule.id, "topic": rule.topic, "severity": rule.severity, "summary": rule.summary,
            "source": citation(rule.source, rule.section), "as_of": rule.as_of, "alternative": rule.alternative}


def _claims() -> tuple[Claim, ...]:
    try:
        from knowledge.guides import load_guides  # optional: the answer degrades when knowledge.guides fails to import

        return load_guides().claims
    except (ImportError, AdvisorError, OSError):
        log.warning("guide claims are not available", exc_info=True)
        return ()


_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[\u4e00-\u9fff]")


def _tokens(text: str) -> set[str]:
    words = _WORD.findall(text.lower())
    cjk = [w for w in words if "\u4e00" <= w <= "\u9fff"]
    return {w for w in words if len(w) > 1 or w.isdigit()} | {a + b for a, b in pairwise(cjk)}


def _best(items: Iterable[T], query: str, text_of: Callable[[T], str], n: int) -> list[T]:
    """Items sharing the most words, numbers and Chinese bigrams with `query` (at least two)."""
    q = _tokens(query)
    scored = []
    for item in items:
        overlap = len(q & _tokens(text_of(item)))
        if overlap >= 2:
            scored.append((overlap, item))
    scored.sort(key=lambda t: -t[0])
    return [item for _, item in scored[:n]]


def _claim_row(c: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[Finding]]:
    src = f"guide claim {c.id} ({c.guide}, {c.section})"
    row: dict[str, Any] = {"claim_id": c.id, "guide": c.guide, "section": c.section, "quote": c.quote,
                           "claim": c.claim, "verdict": c.verdict, "explanation": c.explanation,
                           "guide_says": f"{c.claimed.value} {c.claimed.unit}".strip(),
                           "computed": f"{c.computed.value} {c.computed.unit}".strip(),
                           "source": citation(c.guide, c.section)}
    numbers = []
    if isinstance(c.computed.value, (int, float)) and not isinstance(c.computed.value, bool):
        numbers.append(num(f"claim {c.id}: computed value", c.computed.value, c.computed.unit, src,
                           f"{c.computed.value:,g} {c.computed.unit}"))
    stated = c.claimed.value if isinstance(c.claimed.value, (int, float)) and not isinstance(c.claimed.value, bool) \
        else None
    if stated is not None:
        numbers.append(num(f"claim {c.id}: the guide's figure", stated, c.claimed.unit, src,
                           f"{stated:,g} {c.claimed.unit}"))
    fact: dict[str, Any] = {"kind": "claim", "claim_id": c.id, "verdict": c.verdict, "claim_text": c.quote,
                            "unit": c.computed.unit or c.claimed.unit, "claim_source": c.guide,
                            "correction": c.explanation}
    if stated is not None:
        fact["stated_value"] = float(stated)
    if numbers and numbers[0]["name"].endswith("computed value"):
        fact["computed_value"] = float(c.computed.value)
    return row, numbers, evaluate_rules([fact])


def ask_clarifying_question_tool(args: AskArgs) -> ToolOutput:
    """Ask the user ONE question about the most important missing item (ends the turn)."""
    slot = SLOTS[args.slot]
    data = {"question": args.question, "slot": args.slot, "default_en": slot.default_en,
            "default_zh": slot.default_zh, "examples": slot.options}
    return ToolOutput(f"asked about {args.slot}", data, [], [], {"question": args.question, "slot": args.slot})
