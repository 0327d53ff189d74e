"""Findings of the rule engine and the check of a quoted claim, as people read them: each finding under its rule's
short title (rules.titles, the same words as the web page's side panel), its message with rule ids and guide numbers
in words, and its citation. The ids stay in the JSON (`findings[].rule_id`), never in the answer's text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis
from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render.book import SRC_DEFAULT, SRC_MEMORY, SRC_RECOMMEND, SRC_USER, Book, decimals_for
from advisor.conversation.render.labels import format_label
from knowledge.messages import known, t
from knowledge.quantities import Bytes
from rules.sources import citation_in
from rules.titles import for_people, rule_title

if TYPE_CHECKING:
    from rules.findings import Finding


def claim_block(ev: Analysis, book: Book, lang: str) -> str:
    ck = ev.claim
    assert ck is not None
    quoted = book.num("quoted figure", ck.claim.value, ck.claim.unit, SRC_USER, decimals_for(ck.claim.value))
    weights = book.gb("weights (claim check)", ck.weights)
    weights_gib = book.gib("weights (claim check)", ck.weights)
    kv = book.gib("KV cache (claim check)", ck.kv)
    ctx = book.tokens("claim check context", ck.context, SRC_DEFAULT, lang)
    total = book.gib("total on one GPU (claim check)", ck.total)
    fmt = format_label(ck.fmt, lang)
    params = float(ev.need.params) if ev.need is not None and ev.need.params else 0.0
    fmt_note = ""
    if params and ck.fmt not in ("bf16", "fp16", "fp32"):
        # which format: its real bits per weight, against the plain figure (params × bits / 8) a guide computes
        bits = book.num("bits per weight (claim check)", ck.weights.n * 8 / params, "bits/weight", SRC_MEMORY, 2,
                        suffix="bit")
        nominal = {"int4": 4, "awq-int4": 4, "gptq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4, "fp8": 8, "int8": 8,
                   "q8_0": 8, "gptq-int8": 8, "bnb-int8": 8}.get(ck.fmt)
        if nominal:
            plain = book.gb("plain weights at nominal bits (claim check)", Bytes.of(params * nominal / 8))
            fmt_note = t("claim.check.bits", lang, fmt=fmt, bits=bits, nominal=nominal, plain=plain)
    gc = ck.guide_claim
    cited = ""
    if gc is not None:
        key = f"claim.checked.{gc.verdict}"
        cited = t("claim.check.guide", lang, guide=guide_name(gc.guide), section=gc.section,
                  quote=book.text(gc.quote, 'guide quote', gc.guide),
                  verdict=t(key, lang) if known(key) else gc.verdict)
    # the Chinese sentence shows the claim's own words, which hold the quoted figure
    quoted_tail = t("claim.check.quoted", lang, quoted=quoted) if lang != "zh" else ""
    if ck.task != "inference":  # a training claim: weights + gradients + optimizer states + activations on one GPU
        states = book.gib("gradients, optimizer states and activations (claim check)", ck.states)
        task = t(f"task.{ck.task}", lang) if known(f"task.{ck.task}") else ck.task
        return t("claim.train", lang, claim=ck.claim.text, verdict=t(f"claim.train.{ck.verdict}", lang),
                 task=task[:1].upper() + task[1:], model=ev.model.name, weights=weights, weights_gib=weights_gib,
                 states=states, total=total) + quoted_tail
    return t("claim.check", lang, claim=ck.claim.text, verdict=t(f"claim.check.{ck.verdict}", lang), fmt=fmt,
             model=ev.model.name, weights=weights, weights_gib=weights_gib, fmt_note=fmt_note, ctx=ctx, kv=kv,
             total=total) + quoted_tail + cited


def findings_block(findings: list[Finding], lang: str) -> str:
    lines = [t("findings.title", lang)]
    for f in findings:
        src = f" — {f.source}" if getattr(f, "source", "") else ""
        lines.append(t("findings.item", lang, head=finding_head(f, lang), message=for_people(f.text(lang), lang)) + src)
    return "\n".join(lines)


def rec_findings(findings: list[Finding], book: Book, lang: str, limit: int = 8, title: str | None = None) -> str:
    if not findings:
        return ""
    lines = [title or t("findings.title", lang)]
    for f in findings[:limit]:
        src = short_source(f.source or "", lang)
        msg = book.text(for_people(f.text(lang), lang), f"finding {f.rule_id}", f"rule {f.rule_id}: {f.source}")
        if src:
            book.text(src, f"source of {f.rule_id}", f"citation of rule {f.rule_id}")
        when = t("findings.as_of", lang, date=f.as_of) if f.as_of else ""
        lines.append(t("findings.item", lang, head=finding_head(f, lang), message=msg)
                     + t("findings.cited", lang, source=src, when=when))
    if len(findings) > limit:
        more = book.count("findings not shown", len(findings) - limit, "findings", SRC_RECOMMEND)
        lines.append(t("findings.more", lang, more=more))
    return "\n".join(lines)


def guide_name(guide_id: str) -> str:
    """A guide by its title from the sources registry (knowledge/data/sources/guides.yaml), never its id."""
    try:
        title = default_catalog().source(guide_id).title
    except Exception:  # noqa: BLE001 - an id the registry lacks: plain words, not the slug
        return "a published guide"
    return title.split(" (")[0].strip() or "a published guide"


def finding_head(f: Finding, lang: str) -> str:
    """"**Used card risk** (warning):" — the rule's title and the severity in words, never the rule id."""
    key = f"findings.severity.{f.severity}"
    words = t(key, lang) if known(key) else f.severity
    return t("findings.head", lang, title=rule_title(f.rule_id, lang), severity=words)


def short_source(source: str, lang: str, width: int = 140) -> str:
    """The first citation of a rule's source, cut at `width` characters, with a count of the others
    (the full text stays in Turn.findings)."""
    parts = [p.strip() for p in citation_in(source, lang).split("; ") if p.strip()]
    if not parts:
        return ""
    first = parts[0] if len(parts[0]) <= width else parts[0][: width - 1].rstrip() + "…"
    if len(parts) > 1:
        first += t("findings.more_sources", lang, more=len(parts) - 1)
    return first
