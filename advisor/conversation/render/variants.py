"""The lead of a question that compares settings of one job ("LoRA vs QLoRA?", "is an 8-bit KV cache worth it?",
"how much does the context change the memory?"): each setting's memory need on one GPU, the difference, and the
parts of the memory that make it (advisor.analysis.variants)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_MEMORY, Book
from advisor.conversation.render.labels import format_label, task_label
from advisor.estimator.results import BREAKDOWN_KEYS
from knowledge.messages import t
from knowledge.quantities import GIB

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.analysis.variants import VariantNeed


def variants_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """Two settings: "X needs a, Y needs b (c less): weights w1 → w2, …"; a context ladder: the need at each context
    and the KV cache one sequence adds per 1,000 tokens."""
    vs = ev.variants
    if vs[0].field == "context":
        return _context_ladder(ev, vs, book, lang)
    a, b = vs[0], vs[1]
    na, nb = _need(a, book, lang), _need(b, book, lang)
    diff = b.need.per_gpu.total - a.need.per_gpu.total if b.need.per_gpu.total >= a.need.per_gpu.total \
        else a.need.per_gpu.total - b.need.per_gpu.total
    gap = book.gib(f"difference {_name(a, 'en')} vs {_name(b, 'en')}", diff, "computed: difference of the two needs")
    parts = []
    for k in BREAKDOWN_KEYS:
        x, y = getattr(a.need.per_gpu, k), getattr(b.need.per_gpu, k)
        if k != "total" and abs(x.gib - y.gib) >= 0.05:
            xs = book.gib(f"{k} with {_name(a, 'en')}", x, SRC_MEMORY)
            ys = book.gib(f"{k} with {_name(b, 'en')}", y, SRC_MEMORY)
            parts.append(t("variants.part", lang, part=t(f"part.{k}", lang), a=xs, b=ys))
    key = "variants.two.less" if b.need.per_gpu.total < a.need.per_gpu.total else "variants.two.more"
    text = t(key, lang, model=ev.model.name, a=_name(a, lang), need_a=na, b=_name(b, lang), need_b=nb,
             gap=gap, parts=t("list.sep", lang).join(parts))
    if a.field == "recompute":  # what turning it off costs and saves, after the two needs
        text += t("sentence.gap", lang) + t("variants.recompute.advice", lang)
    return fs.Lead(text, None, f"memory need with {_name(b, 'en')}")


def _context_ladder(ev: Analysis, vs: list[VariantNeed], book: Book, lang: str) -> fs.Lead:
    steps = [t("variants.context.step", lang, ctx=book.tokens(f"context {v.value}", float(v.value), SRC_MEMORY, lang),
               need=_need(v, book, lang)) for v in vs]
    first, last = vs[0], vs[-1]
    per_seq = last.workload.concurrency * max(1, last.workload.batch if last.workload.is_training else 1)
    kv_gain = (last.need.per_gpu.kv_cache - first.need.per_gpu.kv_cache).n
    span = int(last.value) - int(first.value)
    per_1k = book.num("KV cache per 1,000 tokens of one sequence", kv_gain / span * 1000 / per_seq / GIB * 1024, "MiB",
                      "computed: KV cache difference / context difference", 0)
    weights = book.gib("weights", first.need.per_gpu.weights, SRC_MEMORY)
    return fs.Lead(t("variants.context", lang, model=ev.model.name, steps=t("list.sep", lang).join(steps),
                     per_1k=per_1k, weights=weights), None, "KV cache per 1,000 tokens of one sequence")


def _need(v: VariantNeed, book: Book, lang: str) -> str:
    return book.gib(f"memory need with {_name(v, 'en')}", v.need.per_gpu.total, SRC_MEMORY)


def _name(v: VariantNeed, lang: str) -> str:
    if v.field == "task":
        return task_label(str(v.value), lang)
    if v.field == "kv":
        return t("variants.kv", lang, fmt=format_label(str(v.value), lang))
    if v.field == "weights":
        return t("variants.weights", lang, fmt=format_label(str(v.value), lang))
    if v.field == "recompute":  # "gradient checkpointing on or off?": full recomputation against none
        return t(f"variants.recompute.{v.value}", lang)
    return str(v.value)
