"""Every registered rule is complete: a source that resolves (and refs), a section, a summary, English and
Chinese templates that render from its own firing scenarios without gaps, conditions over real fact fields,
a date on market rules, and scenarios where it fires and where it does not."""

from __future__ import annotations

import re

import pytest

from knowledge.catalog import load_catalog
from knowledge.structs import fields
from rules.facts import ClaimFacts, ConfigFacts, WorkloadFacts
from rules.meta import DERIVED_DISPLAY, all_rules, fact_fields_for, get_rule, template_fields
from rules.render import display_context, render_messages
from rules.request import prepare
from tests.rules_cases import cases

RULES = all_rules()
IDS = [r.id for r in RULES]
MODELS = {"config": ConfigFacts, "workload": WorkloadFacts, "claim": ClaimFacts}
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_registry_is_large_and_unique() -> None:
    assert len(IDS) == len(set(IDS))
    assert len(RULES) >= 80
    topics = {r.topic for r in RULES}
    assert topics == {"substitution", "market", "risk", "capability", "value", "scenario", "practice", "sizing",
                      "claims"}


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_sources_resolve(rule) -> None:
    catalog = load_catalog()
    for sid in rule.sources:
        src = catalog.source(sid)  # CatalogError when the id is not in knowledge/data/sources/*.yaml
        assert src.title and (src.url or src.document)
    assert rule.section.strip()


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_wording_is_complete(rule) -> None:
    assert rule.summary.strip() and len(rule.summary) <= 160, "summary: one line"
    assert rule.en.strip() and rule.zh.strip()
    assert CJK.search(rule.zh), "the Chinese template must be Chinese"
    assert not CJK.search(rule.en.replace("“", "").replace("”", "")) or rule.topic == "claims", \
        "the English template must not be Chinese"
    if rule.topic == "market":
        assert rule.as_of, "market facts carry an as-of date"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_conditions_read_real_fields(rule) -> None:
    """A typo in a condition field would make a rule silently never fire."""
    model_fields = set(fields(MODELS[rule.applies_to]))
    assert set(rule.when.fields()) <= model_fields, set(rule.when.fields()) - model_fields
    for tpl in (rule.en, rule.zh):
        for name in template_fields(tpl):
            assert name in DERIVED_DISPLAY or set(fact_fields_for(name)) <= model_fields, (rule.id, name)


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_every_rule_has_scenarios(rule) -> None:
    body = cases().get(rule.id)
    assert body, f"no scenarios for {rule.id} in tests/rules_scenarios/"
    assert body["fires"], f"{rule.id}: no scenario where it fires"
    assert body["silent"], f"{rule.id}: no scenario where it stays silent"


@pytest.mark.parametrize("rule", RULES, ids=IDS)
def test_templates_render_from_firing_facts(rule) -> None:
    for facts in cases()[rule.id]["fires"]:
        fact = prepare(facts)[0]
        en, zh, missing = render_messages(rule, fact)
        assert not missing, f"{rule.id}: template fields the fact lacks: {missing}"
        assert "{" not in en and "{" not in zh


def test_scenarios_name_only_registered_rules() -> None:
    unknown = set(cases()) - set(IDS)
    assert not unknown, f"scenarios for rules that do not exist: {sorted(unknown)}"


def test_get_rule_unknown_names_close_ids() -> None:
    from knowledge.errors import AdvisorError

    with pytest.raises(AdvisorError, match="unknown rule 'sizing-low-headrom'.*sizing-low-headroom"):
        get_rule("sizing-low-headrom")


def test_display_context_units() -> None:
    ctx = display_context({"per_gpu_bytes": 3 * 2**30, "train_wall_s": 172_800, "params": 7e9})
    assert ctx["per_gpu_gib"] == 3.0 and ctx["train_days"] == 2.0 and ctx["params_b"] == 7.0
