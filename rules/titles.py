"""Short, people-facing titles of the rules, in English and Chinese, for tables, legends and finding headers.

A finding shows its title where space is short (a table cell, a chart legend, the side panel's finding list); the
rule id stays in the details for whoever wants to look the rule up (`gpu-advisor rules show <id>`). A rule without
an entry here gets the first clause of its English summary (`rule_title`), never its id.
"""

from __future__ import annotations

import re

from knowledge.messages import pair, table
from rules.meta import get_rule

# Each titled rule's (English, Chinese) title, from the message catalogs ("rule.title.RULE-ID").
TITLES: dict[str, tuple[str, str]] = {key.removeprefix("rule.title."): pair(key) for key in table("en")
                                      if key.startswith("rule.title.")}


def rule_title(rule_id: str, lang: str = "en") -> str:
    """The rule's short title in `lang` ("en"/"zh"); for a rule without one, the first clause of its English
    summary; for an id no rule has, a humanised id (dashes to spaces) — never the bare slug."""
    entry = TITLES.get(rule_id)
    if entry:
        return entry[1] if lang == "zh" else entry[0]
    try:
        summary = get_rule(rule_id).summary
    except Exception:  # noqa: BLE001 - an unknown id (e.g. a test's) still gets words, not a slug
        return re.sub(r"[-_.]+", " ", str(rule_id)).strip().capitalize() or "?"
    head = re.split(r":\s|;\s|\.\s|\.$|\s\(", summary, maxsplit=1)[0].strip()
    return head[:60] or summary[:60]


_GUIDE_EN = re.compile(r"\b[Gg]uide[- ]?\d{3}(?:'s)?")
_GUIDE_ZH = re.compile(r"指南\s*[（(]\s*\d{3}\s*[)）]|指南\s?\d{3}")
_RULE_REF = re.compile(r"(?:\brule\s+|规则\s*)?`([a-z0-9]+(?:-[a-z0-9]+)+)`")


def plain_words(text: str) -> str:
    """Text for people without the catalog's internal guide numbers ("guide-000's" → "a published guide's")."""
    text = _GUIDE_ZH.sub("某份公开指南", text)
    return _GUIDE_EN.sub(lambda m: "a published guide's" if m.group(0).endswith("'s") else "a published guide", text)


def rule_ids_to_titles(text: str, lang: str) -> str:
    """A rule named by its id in `backticks` ("rule `risk-used-card`") shown by its title in `lang` instead."""
    def title(m: re.Match[str]) -> str:
        try:
            get_rule(m.group(1))
        except Exception:  # noqa: BLE001 - not a rule id (a format name, a command): kept as written
            return m.group(0)
        return f"“{rule_title(m.group(1), lang)}”"

    return _RULE_REF.sub(title, text)


def for_people(text: str, lang: str) -> str:
    """A finding's message as people read it: rule ids by their titles, guide numbers in words."""
    return plain_words(rule_ids_to_titles(text, lang))
