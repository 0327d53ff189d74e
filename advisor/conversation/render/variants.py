"""The lead of a question that compares settings of one job ("LoRA vs QLoRA?", "is an 8-bit KV cache worth it?",
"how much does the context change the memory?"): each setting's memory need on one GPU, the difference, and the
parts of the memory that make it (advisor.analysis.variants)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_MEMORY, Book
from advisor.conversation.render.labels import format_label, task_label
from advisor.conversation.render.options_table import opt_name
from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import default_inference_format
from advisor.estimator.results import BREAKDOWN_KEYS
from knowledge.messages import t
from knowledge.quantities import GIB, Bytes

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.analysis.variants import VariantNeed


def variants_lead(ev: Analysis, book: Book, lang: str, capacity: Bytes | None = None, typed: str = "") -> fs.Lead:
    """Two settings: "X needs a, Y needs b (c less): weights w1 → w2, …"; a context ladder: the need at each context
    and the KV cache one sequence adds per 1,000 tokens; a ladder of weight formats ("what quant fits?"): the most
    precise that fits the card named (or the memory `capacity` typed as `typed`), then each format's need."""
    vs = ev.variants
    if vs[0].field == "context":
        return _context_ladder(ev, vs, book, lang)
    if vs[0].field == "weights" and len(vs) > 2:
        return _format_ladder(ev, vs, book, lang, capacity, typed)
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


def _format_ladder(ev: Analysis, vs: list[VariantNeed], book: Book, lang: str, capacity: Bytes | None,
                   typed: str) -> fs.Lead:
    """"What quant of X fits in 48 GB / on a 3090?": the formats no more precise than the checkpoint, each with its
    memory need (per GPU on the configuration named, else on one device), the most precise that fits said first
    (fits: need ≤ usable memory, the engine's share of the card, as every other fit in the answer)."""
    own = default_inference_format(ev.model)  # the checkpoint's own precision heads the ladder (FP8, MXFP4, …)
    ladder = [v for v in vs if bits_per_weight(str(v.value)) <= bits_per_weight(own)]
    if not ladder:
        ladder = list(vs)
    named = ladder[0].on is not None and ladder[0].usable is not None
    opt = ev.user_options[0] if named and len(ev.user_options) == 1 else None
    where = t("variants.quant.on", lang, where=opt_name(opt, book)) if opt is not None else \
        t("variants.quant.in", lang, where=typed) if typed else ""

    def need(v: VariantNeed) -> Bytes:
        return v.on.per_gpu.total if v.on is not None else v.need.per_gpu.total

    def usable(v: VariantNeed) -> Bytes | None:
        return v.usable if v.usable is not None else v.need.usable_bytes(capacity) if capacity is not None else None

    steps = [t("variants.quant.step", lang, fmt=format_label(str(v.value), lang),
               need=book.gib(f"memory need with {v.value} weights" + (f" per GPU on {where}" if named else ""),
                             need(v), SRC_MEMORY)) for v in ladder]
    if usable(ladder[0]) is None or not where:
        return fs.Lead(t("variants.quant.list", lang, model=ev.model.name, steps=t("list.sep", lang).join(steps)),
                       None, "memory need with each weight format")
    # each format against what its own engine may use (vLLM reserves 90 % of the card, llama.cpp all of it)
    best = next((v for v in ladder if need(v).n <= getattr(usable(v), "n", 0)), None)
    room = book.gib("usable memory per GPU of the configuration asked", usable(best or ladder[-1]) or Bytes(0),
                    SRC_MEMORY)
    if best is None:
        return fs.Lead(t("variants.quant.none", lang, model=ev.model.name, where=where, room=room,
                         fmt=format_label(str(ladder[-1].value), lang), steps=t("list.sep", lang).join(steps)),
                       "no", "memory need with each weight format")
    return fs.Lead(t("variants.quant.best", lang, model=ev.model.name, where=where, room=room,
                     fmt=format_label(str(best.value), lang),
                     need=book.gib(f"memory need with {best.value} weights", need(best), SRC_MEMORY),
                     steps=t("list.sep", lang).join(steps)), "yes", "memory need with each weight format")


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
