"""Findings of the rule engine and the check of a quoted claim, as people read them: each finding under its rule's
short title (rules.titles, the same words as the web page's side panel), its message with rule ids and guide numbers
in words, and its citation. The ids stay in the JSON (`findings[].rule_id`), never in the answer's text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis
from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render.book import SRC_DEFAULT, SRC_MEMORY, SRC_RECOMMEND, SRC_USER, Book, decimals_for
from advisor.conversation.render.labels import format_label, pick
from knowledge.messages import known, t
from rules.titles import for_people, rule_title

if TYPE_CHECKING:
    from rules.findings import Finding


def claim_block(ev: Analysis, book: Book, lang: str) -> str:
    ck = ev.claim
    assert ck is not None
    zh = lang == "zh"
    quoted = book.num("quoted figure", ck.claim.value, ck.claim.unit, SRC_USER, decimals_for(ck.claim.value))
    weights = book.gb("weights (claim check)", ck.weights_bytes)
    weights_gib = book.gib("weights (claim check)", ck.weights_bytes)
    kv = book.gib("KV cache (claim check)", ck.kv_bytes)
    ctx = book.tokens("claim check context", ck.context, SRC_DEFAULT, lang)
    total = book.gib("total on one GPU (claim check)", ck.total_bytes)
    fmt = format_label(ck.fmt, lang)
    params = float(ev.need.params) if ev.need is not None and ev.need.params else 0.0
    fmt_note = ""
    if params and ck.fmt not in ("bf16", "fp16", "fp32"):
        # which format: its real bits per weight, against the plain figure (params × bits / 8) a guide computes
        bits = book.num("bits per weight (claim check)", ck.weights_bytes * 8 / params, "bits/weight", SRC_MEMORY, 2,
                        suffix="位" if zh else "bit")
        nominal = {"int4": 4, "awq-int4": 4, "gptq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4, "fp8": 8, "int8": 8,
                   "q8_0": 8, "gptq-int8": 8, "bnb-int8": 8}.get(ck.fmt)
        if nominal:
            plain = book.gb("plain weights at nominal bits (claim check)", params * nominal / 8)
            fmt_note = (f"（{fmt} 实际平均每权重 {bits}：分组缩放因子，嵌入层和输出层保持 16 位；按整 {nominal} 位算是 {plain}）"
                        if zh else f" ({fmt} stores {bits} per weight on average: group scales, and the embedding and "
                        f"output layers stay 16-bit; at a flat {nominal} bits it would be {plain})")
    gc = ck.guide_claim
    cited = ""
    if gc is not None:
        cited = (f" 指南原文（{guide_name(gc.guide)}，{gc.section}）：“{book.text(gc.quote, 'guide quote', gc.guide)}”，核对结论：{ {'right': '正确', 'wrong': '有误', 'dated': '已过时'}.get(gc.verdict, gc.verdict)}，"
                 "见规则提示。" if zh else
                 f" The guide ({guide_name(gc.guide)}, section {gc.section}) says: “{book.text(gc.quote, 'guide quote', gc.guide)}”; "
                 f"checked verdict: {gc.verdict} (see the findings).")
    if ck.task != "inference":  # a training claim: weights + gradients + optimizer states + activations on one GPU
        states = book.gib("gradients, optimizer states and activations (claim check)", ck.states_bytes)
        task = {"full": ("全量微调", "full fine-tuning"), "lora": ("LoRA 微调", "LoRA fine-tuning"),
                "qlora": ("QLoRA 微调", "QLoRA fine-tuning"), "pretrain": ("预训练", "pre-training"),
                "freeze": ("冻结微调", "freeze-tuning")}.get(ck.task, (ck.task, ck.task))
        if zh:
            v = {"too_low": "这个说法偏低：仅权重就超过了它", "weights_only": "这个数字只够放权重，没算梯度、优化器状态和激活",
                 "plausible": "这个数字与计算大致相符"}[ck.verdict]
            return (f"**关于引用的说法（“{ck.claim.text}”）：** {v}。{ev.model.name} {task[0]}（单卡、不用 ZeRO 和卸载）：权重 "
                    f"{weights}（{weights_gib}），梯度、优化器状态和激活 {states}，加上运行开销合计 {total}。")
        v = {"too_low": "the figure is too low: the weights alone exceed it",
             "weights_only": "the figure covers at most the weights, not the gradients, optimizer states and activations",
             "plausible": "the figure is consistent with the computation"}[ck.verdict]
        return (f"**On the quoted claim (\"{ck.claim.text}\"):** {v}. {task[1][:1].upper() + task[1][1:]} of {ev.model.name} on one GPU "
                f"(no ZeRO, no offload): weights {weights} ({weights_gib}), gradients, optimizer states and activations "
                f"{states}; with runtime overhead {total}. Quoted: {quoted}.")
    if zh:
        verdict = {"too_low": "这个说法偏低：仅权重就超过了它",
                   "weights_only": "这个数字最多只够放权重，没算 KV 缓存和运行开销",
                   "plausible": "这个数字与计算大致相符"}[ck.verdict]
        return (f"**关于引用的说法（“{ck.claim.text}”）：** {verdict}。按 {fmt} 计算，{ev.model.name} 的权重为 "
                f"{weights}（{weights_gib}）{fmt_note}，再加上 {ctx} 上下文的 KV 缓存 {kv}，单卡合计 {total}（已计入运行开销）。{cited}")
    verdict = {"too_low": "the figure is too low: the weights alone exceed it",
               "weights_only": "the figure covers at most the weights, not the KV cache and runtime overhead",
               "plausible": "the figure is consistent with the computation"}[ck.verdict]
    return (f"**On the quoted claim (\"{ck.claim.text}\"):** {verdict}. In {fmt}, {ev.model.name}'s weights take "
            f"{weights} ({weights_gib}){fmt_note}; with the KV cache for {ctx} of context ({kv}) and runtime overhead, one GPU "
            f"needs {total}. Quoted: {quoted}.{cited}")


def findings_block(findings: list[Finding], lang: str) -> str:
    lines = [t("findings.title", lang)]
    for f in findings:
        src = f" — {f.source}" if getattr(f, "source", "") else ""
        lines.append(t("findings.item", lang, head=finding_head(f, lang), message=for_people(f.text(lang), lang)) + src)
    return "\n".join(lines)


def rec_findings(findings: list[Finding], book: Book, lang: str, limit: int = 8, title: tuple[str, str] | None = None) -> str:
    if not findings:
        return ""
    lines = [pick(title, lang) if title else t("findings.title", lang)]
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
    parts = [p.strip() for p in source.split("; ") if p.strip()]
    if not parts:
        return ""
    first = parts[0] if len(parts[0]) <= width else parts[0][: width - 1].rstrip() + "…"
    if len(parts) > 1:
        first += t("findings.more_sources", lang, more=len(parts) - 1)
    return first
