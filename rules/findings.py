"""The one thing a rule produces: a structured finding. Wording and citation are rendered from rule metadata."""

# No `from __future__ import annotations` here: the structs' field annotations are then evaluated by this
# module's byte-code when the classes are made, not compiled from text on every start
# (knowledge.structs._resolve_annotations: ≈ 40 µs per annotation); names defined later are quoted.

from typing import Any, Literal

import msgspec

from knowledge.structs import Frozen

Severity = Literal["info", "warn", "block"]


class Finding(Frozen):
    """A rule's verdict on one fact, with the wording and citation rendered from the rule's metadata."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    rule_id: str
    severity: Severity
    facts: dict[str, Any] = msgspec.field(default_factory=dict)  # the facts the rule used, as asserted
    alternative: str | None = None  # a suggested substitute (gpu id) or change, when the rule has one
    message: str = ""  # English, rendered from the rule's template and facts
    message_zh: str = ""  # Chinese, likewise
    source: str = ""  # rendered citation: title, section/url, date
    as_of: str | None = None  # ISO date for market facts and prices
    topic: str = ""  # the rule's topic: substitution, market, risk, capability, value, scenario, practice, sizing, claims
    sources: tuple[str, ...] = ()  # ids in the sources registry behind `source` (the rule's source first, then refs)
    fact_index: int = 0  # position of the fact that triggered the rule in the list passed to `rules.engine.evaluate`

    def text(self, lang: str = "en") -> str:
        return self.message_zh if lang == "zh" and self.message_zh else self.message
