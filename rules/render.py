"""Findings from fired rules: wording and citation rendered from rule metadata, never written by a model.

Templates are `str.format` strings over the fact plus a few display fields derived here:

* `{gpu}`: the GPU's catalog name (else the family name, else the id); `{arch}`: the architecture's name;
* `{<name>_gib}` for every `<name>_bytes` field: bytes / 2**30 (GiB; write the unit in the template);
* `{train_days}`, `{deadline_days}`: seconds / 86,400; `{params_b}`, `{active_params_b}`: parameters / 1e9;
* `{power_kw}`: power_w / 1000;
* `{alternative}`: the rule's alternative, as a display name when it is a GPU family;
* `{kv_note}`: " (of which X GiB is KV cache at N tokens)" when the fact has both, else "";
* claims: `{claim_quote}` (in English claim_en, else claim_text, else claim_id; in Chinese claim_text first),
  `{correction_note}` (correction; in Chinese correction_zh first) and `{computed_note}` (empty when the fact has
  no correction or computed value).

The templates are the rule's (`RuleMeta.template`, from the message catalogs); the notes are worded in the
template's language, so both languages format the same field names from the same fact.

A name the fact lacks renders as "?" (and `render_messages` reports it; the meta-test requires none for
every rule's firing scenarios).
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from knowledge.catalog import data_dir
from knowledge.messages import LANGS, t
from knowledge.quantities import in_unit
from knowledge.structs import replace
from rules.findings import Finding
from rules.gpus import FAMILY_NAMES, family_name
from rules.meta import RuleMeta, get_rule
from rules.sources import citation

MISSING = "?"
ARCH_NAMES = {"volta": "Volta", "turing": "Turing", "ampere": "Ampere", "ada": "Ada Lovelace", "hopper": "Hopper",
              "blackwell": "Blackwell", "cdna2": "CDNA 2", "cdna3": "CDNA 3", "cdna4": "CDNA 4", "rdna3": "RDNA 3", "rdna3.5": "RDNA 3.5",
              "davinci": "Da Vinci", "apple-m1": "Apple M1", "apple-m2": "Apple M2", "apple-m3": "Apple M3",
              "apple-m4": "Apple M4", "apple-m5": "Apple M5", "gaudi3": "Gaudi 3"}


def significant(value: float, digits: int = 4) -> float:
    """`value` rounded to `digits` significant digits for display (34.4883 GB → 34.49 GB; 1978.9 → 1979)."""
    if not value or not math.isfinite(value) or float(value).is_integer():
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


class Figure(float):
    """A displayed figure: the "g" format without exponents for large values (1,700,000 CNY, not 1.7e+06 CNY)."""

    def __format__(self, spec: str) -> str:
        if spec.endswith("g") and abs(self) >= 1e5:
            return float.__format__(self, ",.0f" if "," in spec else ".0f")
        return float.__format__(self, spec)


def display_context(fact: Mapping[str, Any], rule: RuleMeta | None = None, lang: str = "en") -> dict[str, Any]:
    """The fact plus the derived display fields listed in the module docstring, notes worded in `lang`."""
    return {**_base_context(fact, rule), **_notes(fact, lang)}


def _base_context(fact: Mapping[str, Any], rule: RuleMeta | None) -> dict[str, Any]:
    """The fact plus the display fields that read the same in every language."""
    ctx: dict[str, Any] = dict(fact)
    for key, value in fact.items():
        if key.endswith("_bytes") and isinstance(value, (int, float)) and not isinstance(value, bool):
            ctx[key[: -len("_bytes")] + "_gib"] = in_unit(value, "GiB")
    if isinstance(fact.get("gpu_arch"), str):
        ctx["arch"] = ARCH_NAMES.get(fact["gpu_arch"], fact["gpu_arch"])
    family = fact.get("gpu_family")
    ctx["gpu"] = fact.get("gpu_name") or (family_name(family) if family else None) or fact.get("gpu_id")
    for src, dst, scale in (("train_wall_s", "train_days", 86_400), ("deadline_s", "deadline_days", 86_400),
                            ("params", "params_b", 1e9), ("active_params", "active_params_b", 1e9),
                            ("power_w", "power_kw", 1000)):
        if isinstance(fact.get(src), (int, float)):
            ctx[dst] = fact[src] / scale
    for key in ("computed_value", "stated_value"):
        if isinstance(fact.get(key), (int, float)) and not isinstance(fact.get(key), bool):
            ctx[key] = Figure(significant(fact[key]))
    ctx.setdefault("computed_unit", fact.get("computed_unit") or fact.get("unit"))
    if rule is not None and rule.alternative:
        ctx["alternative"] = FAMILY_NAMES.get(rule.alternative, rule.alternative)
    return ctx


def _notes(fact: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """The display fields worded in `lang`: the quoted claim, the correction, the computed value, the KV cache."""
    zh = lang == "zh"
    first, second = ("claim_text", "claim_en") if zh else ("claim_en", "claim_text")
    notes: dict[str, Any] = {"claim_quote": fact.get(first) or fact.get(second) or fact.get("claim_id")}
    if zh:  # the English correction beats none
        notes["correction_note"] = fact.get("correction_zh") or fact.get("correction") or ""
    else:
        notes["correction_note"] = f" {fact['correction']}" if fact.get("correction") else ""
    value, unit = fact.get("computed_value"), fact.get("computed_unit") or fact.get("unit")
    notes["computed_note"] = ""
    if isinstance(value, (int, float)) and unit:
        notes["computed_note"] = t("rules.note.computed", lang, value=Figure(significant(value)), unit=unit)
    kv, context = fact.get("kv_cache_bytes"), fact.get("context")
    notes["kv_note"] = ""
    if isinstance(kv, (int, float)) and kv > 0 and isinstance(context, int):
        notes["kv_note"] = t("rules.note.kv", lang, kv_gib=kv / 2**30, context=context)
    return notes


class _Formatter(string.Formatter):
    def __init__(self) -> None:
        super().__init__()
        self.missing: list[str] = []

    def get_value(self, key: Any, args: Any, kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, str) and (key not in kwargs or kwargs[key] is None):
            self.missing.append(key)
            return _Missing()
        return super().get_value(key, args, kwargs)


class _Missing:
    def __format__(self, spec: str) -> str:
        return MISSING


def render_messages(rule: RuleMeta, fact: Mapping[str, Any]) -> tuple[str, str, list[str]]:
    """(English message, Chinese message, names the fact lacked)."""
    ctx = _base_context(fact, rule)
    fmt = _Formatter()
    en, zh = (fmt.vformat(rule.template(lang), (), {**ctx, **_notes(fact, lang)}) for lang in LANGS)
    return en, zh, sorted(set(fmt.missing))


def render_source(rule: RuleMeta, fact: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """(citation line, source ids): the rule's source and section, then its refs."""
    primary, section = rule.source, rule.section
    if rule.cite_fact and fact.get(rule.cite_fact[0]):
        primary = fact[rule.cite_fact[0]]
        section = fact.get(rule.cite_fact[1]) or ""
    ids = tuple(dict.fromkeys((primary, *rule.refs)))
    lines = [citation(primary, section)] + [citation(r) for r in ids[1:]]
    return "; ".join(lines), ids


def finding(rule: RuleMeta, fact: Mapping[str, Any], fact_index: int = 0) -> Finding:
    """The structured finding of `rule` firing on `fact` (the fact's position in the request: `fact_index`)."""
    used = tuple((k, fact[k]) for k in rule.fact_fields if k in fact)
    rendered = _rendered(rule.id, used, str(data_dir()))
    # a fresh `facts` dict per finding: callers may not share the cached one
    return replace(rendered, facts=dict(used), fact_index=fact_index)


@lru_cache(maxsize=4096)
def _rendered(rule_id: str, used: tuple[tuple[str, Any], ...], root: str) -> Finding:
    """Rendering depends only on the rule, the fact fields it uses and the sources registry: cached."""
    rule = get_rule(rule_id)
    fact = dict(used)
    en, zh, _ = render_messages(rule, fact)
    source_text, ids = render_source(rule, fact)
    return Finding(
        rule_id=rule.id,
        severity=rule.severity,
        facts=fact,
        alternative=rule.alternative,
        message=en,
        message_zh=zh,
        source=source_text,
        as_of=rule.as_of,
        topic=rule.topic,
        sources=ids,
    )
