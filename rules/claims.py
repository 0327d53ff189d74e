"""Quoted guide claims (kind "claim"): flag the wrong and the dated ones with the computed value.

The knowledge base keeps each checkable statement of the guides with a computed check and a verdict
(`knowledge.guides`, data in knowledge/data/guides/claims.yaml; verdicts "right", "wrong", "dated"). When
a user quotes one, the caller asserts `ClaimFacts.from_claim(claim)`; these rules word the finding with
the guide's figure and the computed one, and cite the guide and section the claim comes from
(`claim_source`, `section`), not a generic source.
"""

from __future__ import annotations

from rules.common import CLAIM, GUIDE_000
from rules.conditions import f
from rules.meta import RuleMeta

_SECTION = "claims checked against computed values (knowledge/data/guides/claims.yaml)"

RULES: tuple[RuleMeta, ...] = (
    RuleMeta(
        id="claim-wrong-figure",
        topic="claims",
        applies_to=CLAIM,
        when=(f.verdict == "wrong") & f.stated_value.exists() & f.computed_value.exists(),
        severity="warn",
        source=GUIDE_000,
        section=_SECTION,
        cite_fact=("claim_source", "section"),
        summary="A quoted guide figure is wrong: show the guide's number next to the computed one.",
    ),
    RuleMeta(
        id="claim-wrong-statement",
        topic="claims",
        applies_to=CLAIM,
        when=(f.verdict == "wrong") & (f.stated_value.missing() | f.computed_value.missing()),
        severity="warn",
        source=GUIDE_000,
        section=_SECTION,
        cite_fact=("claim_source", "section"),
        summary="A quoted guide statement is wrong: give the correction.",
    ),
    RuleMeta(
        id="claim-dated",
        topic="claims",
        applies_to=CLAIM,
        when=f.verdict == "dated",
        severity="warn",
        source=GUIDE_000,
        section=_SECTION,
        cite_fact=("claim_source", "section"),
        summary="A quoted guide statement was true once and is out of date.",
    ),
    RuleMeta(
        id="claim-right",
        topic="claims",
        applies_to=CLAIM,
        when=f.verdict == "right",
        severity="info",
        source=GUIDE_000,
        section=_SECTION,
        cite_fact=("claim_source", "section"),
        summary="A quoted guide statement checks out.",
    ),
)
