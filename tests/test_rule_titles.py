"""Every rule has a short people-facing title in English and Chinese (rules/titles.py), shown instead of its id."""

from __future__ import annotations

import re

from rules.meta import all_rules
from rules.titles import TITLES, rule_title

SLUG = re.compile(r"\b[a-z0-9]+(-[a-z0-9]+){2,}\b")  # an id-like token: three or more dashed parts


def test_every_rule_has_a_short_title_in_both_languages():
    ids = {r.id for r in all_rules()}
    assert set(TITLES) <= ids, set(TITLES) - ids  # no title for a rule that does not exist
    for rule_id in ids:
        en, zh = rule_title(rule_id, "en"), rule_title(rule_id, "zh")
        assert en and zh and en != rule_id and zh != rule_id
        assert len(en) <= 60 and len(zh) <= 30, (rule_id, en, zh)
        assert not SLUG.search(en) and not SLUG.search(zh), (rule_id, en, zh)
    assert all(re.search(r"[\u4e00-\u9fff]", zh) for _, zh in TITLES.values())


def test_a_rule_without_a_title_gets_words_not_its_id():
    assert rule_title("no-such-rule-id") == "No such rule id"
    assert rule_title("risk-used-card", "zh") == "二手卡风险" and rule_title("risk-used-card") == "Used card risk"


def test_the_fallback_title_is_the_summary_s_first_clause(monkeypatch):
    import rules.titles as T

    monkeypatch.delitem(T.TITLES, "sizing-layer-offload-slow")
    assert rule_title("sizing-layer-offload-slow") == "llama.cpp layer offload"  # not cut at the dot in "llama.cpp"
