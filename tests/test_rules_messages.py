"""The rules' wording lives in the message catalogs (knowledge/messages/rules_{en,zh}.py), keyed by rule id: every
rule has its template in both languages with the same fields (its own words, for a rule that shares a template),
the section holds no entry that no rule reads, and every rule's Chinese finding, rendered from its own firing
scenarios, shows no English label beyond the names its key may keep (`tests/test_chinese_view.py`) and the data the
fact itself carries (names, ids, a guide's own labels, a correction known only in English)."""

from __future__ import annotations

import importlib
import re

import pytest

from knowledge.messages import LANGS, placeholders
from rules.meta import all_rules
from rules.render import ARCH_NAMES, render_messages
from rules.request import prepare
from tests.chinese_view import english_words
from tests.rules_cases import cases
from tests.test_chinese_view import KNOWN_MESSAGES
from tests.test_messages import SAYS_LESS

RULES = all_rules()
IDS = [r.id for r in RULES]
CATALOG = {lang: importlib.import_module(f"knowledge.messages.rules_{lang}").MESSAGES for lang in LANGS}
# the section's entries that are no rule's template: the engine's errors, the notes `rules.render` words and the
# errors of a fact that does not validate (`rules.facts`)
SHARED = {"rules.not_validated", "rules.unknown_rule", "rules.unknown_rule.hint", "rules.note.kv",
          "rules.note.computed", "rules.fact.unknown_kind", "rules.fact.invalid", "rules.fact.not_a_value",
          "rules.fact.required", "rules.fact.wrong_value", "rules.fact.accepted"}
NAMES = {w for name in ARCH_NAMES.values() for w in name.split()}  # "Da Vinci", "Ada Lovelace": names


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_every_rule_has_its_template_in_both_languages_with_the_same_fields(rule) -> None:
    for lang in LANGS:
        assert rule.message_key in CATALOG[lang], (lang, rule.message_key)
        for field, key in rule.words:
            assert key in CATALOG[lang], (lang, key)
            assert "{" + field + "}" in CATALOG[lang][rule.message_key], (lang, field)
    en, zh = (placeholders(rule.template(lang)) for lang in LANGS)
    assert zh == en - SAYS_LESS.get(rule.message_key, set())
    assert not {field for field, _ in rule.words} & en, "a rule's own words are filled in before the fact's"


def test_the_section_holds_only_what_the_rules_read() -> None:
    read = {r.message_key for r in RULES} | {key for r in RULES for _, key in r.words} | SHARED
    assert set(CATALOG["en"]) == read
    assert list(CATALOG["zh"]) == list(CATALOG["en"])


def test_rules_that_share_a_template_differ_only_in_their_words() -> None:
    shared = [r for r in RULES if r.key]
    assert {r.key for r in shared} == {"value-rank"} and len(shared) == 5
    assert len({r.template(lang) for r in shared for lang in LANGS}) == 10
    third = next(r for r in shared if r.id == "value-rank-rtx-3090")
    assert "the {gpu} is third of five. The ranking" in third.en and "{gpu} 排第三。该排名" in third.zh


def _fact_words(fact: dict) -> set[str]:
    """The words of the fact's own text values: data the finding quotes, not the template's labels."""
    return {w.rstrip(".'-/+") for v in fact.values() if isinstance(v, str)
            for w in re.findall(r"[A-Za-z][\w.'+/-]*", v)}


def _left_in_chinese(rule, fact: dict) -> set[str]:
    _, zh, _ = render_messages(rule, fact)
    return english_words(zh, KNOWN_MESSAGES.get(rule.message_key, set()) | _fact_words(fact) | NAMES)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_chinese_findings_have_no_english_label(rule) -> None:
    for facts in cases()[rule.id]["fires"]:
        fact = prepare(facts)[0]
        assert _left_in_chinese(rule, fact) == set(), facts


def test_the_chinese_check_finds_an_english_note() -> None:
    """The derived notes are worded per language: an English one in a Chinese finding would be found."""
    from rules.meta import get_rule
    from rules.render import _notes

    rule = get_rule("sizing-guide-config-short")
    fact = prepare(next(f for f in cases()[rule.id]["fires"] if "kv_cache_bytes" in str(f)))[0]
    assert _notes(fact, "zh")["kv_note"].startswith("（其中 KV 缓存占")
    assert english_words(_notes(fact, "en")["kv_note"]) >= {"of", "which", "is", "cache", "at"}
