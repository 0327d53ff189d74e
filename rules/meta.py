"""Rule metadata: what each rule is, where it comes from, and how its finding is worded.

A rule is data (`RuleMeta`): a stable id, the topic, the kind of fact it reads, a condition over that
fact (`rules.conditions`), a severity, a source id in the sources registry (knowledge/data/sources/*.yaml)
with the section it comes from and a one-line summary. Its wording is in the message catalogs
(knowledge/messages/rules_{en,zh}.py), keyed "rules.<rule id>": one template per language, rendered from the
fact with `str.format` (see `rules.render` for the derived display fields such as `{per_gpu_gib:.1f}` or
`{train_days:.1f}`). Rules made from one pattern (the value ranking) share a template (`key`) and fill in their
own catalog words (`words`). Market facts carry an `as_of` date. The engine only decides *whether* a rule fires;
wording and citation always come from here.

Topic modules (`rules.substitution`, `rules.market`, …) each export `RULES`; `all_rules()` collects them.
"""

from __future__ import annotations

import importlib
import re
import string
from functools import lru_cache
from typing import Literal

from knowledge.errors import AdvisorError
from knowledge.messages import LANGS, t
from knowledge.structs import Value
from rules.conditions import Cond
from rules.findings import Severity

Topic = Literal["substitution", "market", "risk", "capability", "value", "scenario", "practice", "sizing", "claims"]
FactKind = Literal["config", "workload", "claim"]

TOPICS: tuple[Topic, ...] = (
    "sizing", "market", "capability", "risk", "substitution", "value", "scenario", "practice", "claims",
)
SEVERITY_RANK: dict[str, int] = {"block": 0, "warn": 1, "info": 2}

_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# display fields `rules.render` derives from the fact: display name -> the fact fields it is made from
DERIVED_DISPLAY: dict[str, tuple[str, ...]] = {
    "gpu": ("gpu_id", "gpu_name", "gpu_family"),
    "arch": ("gpu_arch",),
    "train_days": ("train_wall_s",),
    "deadline_days": ("deadline_s",),
    "params_b": ("params",),
    "active_params_b": ("active_params",),
    "power_kw": ("power_w",),
    "claim_quote": ("claim_en", "claim_text", "claim_id"),
    "correction_note": ("correction", "correction_zh"),
    "computed_note": ("computed_value", "computed_unit", "unit"),
    "alternative": (),
    "kv_note": ("kv_cache_bytes", "context"),
}


def template_fields(template: str) -> tuple[str, ...]:
    """Top-level names a `str.format` template reads ("{per_gpu_gib:.1f}" → "per_gpu_gib")."""
    names = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            names.append(re.split(r"[.\[]", name, maxsplit=1)[0])
    return tuple(dict.fromkeys(names))


def fact_fields_for(display: str) -> tuple[str, ...]:
    """The fact fields behind a template name (`per_gpu_gib` → `per_gpu_bytes`)."""
    if display in DERIVED_DISPLAY:
        return DERIVED_DISPLAY[display]
    if display.endswith("_gib"):
        return (display[: -len("_gib")] + "_bytes",)
    return (display,)


class RuleMeta(Value):
    id: str
    topic: Topic
    applies_to: FactKind
    when: Cond
    severity: Severity
    source: str  # id in the sources registry
    section: str  # where in the source ("part 3, 显卡性价比对比-重要结论")
    summary: str  # one line, English
    refs: tuple[str, ...] = ()  # further source ids behind numbers quoted in the messages
    as_of: str | None = None  # ISO date of the market fact or price the rule states
    alternative: str | None = None  # a GPU family slug (rules.gpus) or a setting change ("precision=fp16")
    shows: tuple[str, ...] = ()  # fact fields worth showing besides those the condition reads
    cite_fact: tuple[str, str] | None = None  # (source-id field, section field): cite the fact's own source
    # when it names one (a quoted claim cites its guide section, not the generic claims source)
    key: str = ""  # its templates' catalog key "rules.<key>" when rules share one; empty: "rules.<id>"
    words: tuple[tuple[str, str], ...] = ()  # (template field, catalog key): the rule's own words in a shared
    # template, filled in before the fact's fields (value-rank's place: "first of five.")

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"rule id '{self.id}' must be a lower-case slug")
        if self.severity not in SEVERITY_RANK:
            raise ValueError(f"{self.id}: severity '{self.severity}' (accepted: block, warn, info)")
        if self.topic not in TOPICS:
            raise ValueError(f"{self.id}: topic '{self.topic}' (accepted: {', '.join(TOPICS)})")
        if self.as_of is not None and not _DATE.match(self.as_of):
            raise ValueError(f"{self.id}: as_of '{self.as_of}' must be an ISO date")
        for name in ("summary", "section", "source"):
            if not getattr(self, name).strip():
                raise ValueError(f"{self.id}: empty {name}")

    @property
    def fact_fields(self) -> tuple[str, ...]:
        """The fact fields a finding of this rule shows: those its condition reads, `shows`, those behind its
        templates' names and its citation's (computed on first use: an answer renders a few of the ~110 rules)."""
        return _fact_fields(self)

    @property
    def sources(self) -> tuple[str, ...]:
        return (self.source, *self.refs)

    @property
    def message_key(self) -> str:
        """The catalog key of the rule's templates."""
        return f"rules.{self.key or self.id}"

    def template(self, lang: str) -> str:
        """The rule's `str.format` template in `lang` ("zh", else English), its own words filled in."""
        text = t(self.message_key, lang)
        for name, key in self.words:
            text = text.replace("{" + name + "}", t(key, lang))
        return text

    @property
    def en(self) -> str:
        """The English template (from the catalog)."""
        return self.template("en")

    @property
    def zh(self) -> str:
        """The Chinese template (from the catalog)."""
        return self.template("zh")


@lru_cache(maxsize=512)
def _fact_fields(rule: RuleMeta) -> tuple[str, ...]:
    shown: list[str] = [*rule.when.fields(), *rule.shows]
    for lang in LANGS:
        for name in template_fields(rule.template(lang)):
            shown.extend(fact_fields_for(name))
    if rule.cite_fact:
        shown.extend(rule.cite_fact)  # the citation is rendered from these
    return tuple(dict.fromkeys(n for n in shown if n != "kind"))


_TOPIC_MODULES: dict[Topic, str] = {t: f"rules.{t}" for t in TOPICS}


@lru_cache(maxsize=1)
def all_rules() -> tuple[RuleMeta, ...]:
    """Every registered rule, in topic order then definition order. Ids are unique."""
    out: list[RuleMeta] = []
    seen: dict[str, str] = {}
    for topic, module_name in _TOPIC_MODULES.items():
        module = importlib.import_module(module_name)
        for r in module.RULES:
            if r.topic != topic:
                raise ValueError(f"rule {r.id} is in {module_name} but says topic '{r.topic}'")
            if r.id in seen:
                raise ValueError(f"rule id '{r.id}' defined twice ({seen[r.id]} and {module_name})")
            seen[r.id] = module_name
            out.append(r)
    return tuple(out)


@lru_cache(maxsize=1)
def _by_id() -> dict[str, RuleMeta]:
    return {r.id: r for r in all_rules()}


def get_rule(rule_id: str) -> RuleMeta:
    """The rule with id `rule_id`; AdvisorError with close ids when there is none."""
    try:
        return _by_id()[rule_id]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(rule_id, list(_by_id()), n=5, cutoff=0.5)
        message, message_zh = (
            t("rules.unknown_rule", lang, rule_id=rule_id,
              hint=t("rules.unknown_rule.hint", lang, close=t("list.sep", lang).join(close)) if close else "")
            for lang in LANGS)
        raise AdvisorError(message, field="rule_id", message_zh=message_zh) from None
