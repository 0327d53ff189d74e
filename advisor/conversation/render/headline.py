"""The headline of an answer: the verdict on the user's own configurations or the recommendation, the
user's hardware against the alternatives, and the job line (model, task, format, context, need).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis, ConfigResult
from advisor.conversation.dialog.machine import default_weights
from advisor.conversation.render.book import Book, source_of
from advisor.conversation.render.labels import format_label, task_label
from advisor.conversation.render.options_table import (
    config_name,
    label_words,
    misses,
    need_and_usable,
    opt_layout,
    opt_name,
    opt_price,
    opt_speed,
)
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option


def verdict_of(ev: Analysis) -> str | None:
    """For the user's own configurations: "fits" / "does_not_fit" (one), "some_fit" / "none_fit" (several)."""
    users = [c for c in ev.configs if c.role in ("existing", "candidate")]
    if not users:
        return None
    if len(users) == 1:
        return "fits" if users[0].fits else "does_not_fit"
    return "some_fit" if any(c.fits for c in users) else "none_fit"


def top_config(ev: Analysis) -> ConfigResult | None:
    fitting = [c for c in ev.configs if c.fits]
    if fitting:
        return fitting[0]
    return ev.configs[0] if ev.configs else None


def headline(ev: Analysis, book: Book, lang: str) -> str:
    users = [c for c in ev.configs if c.role in ("existing", "candidate")]
    if users:
        fitting = [c for c in users if c.fits]
        if len(users) == 1:
            c = users[0]
            if c.memory is None:
                return t("headline.not_estimated", lang, name=config_name(c, book, lang), error=c.error)
            need = book.gib(f"memory per GPU on {c.gpu.name}", c.memory.per_gpu.total)
            cap = book.gib(f"usable memory of {c.gpu.name}", c.memory.usable_bytes(c.gpu), f"catalog: {c.gpu.id} memory_bytes × engine usable fraction")
            return t("headline.fits" if c.fits else "headline.does_not_fit", lang, name=config_name(c, book, lang),
                     layout=c.layout, need=need, usable=cap)
        if fitting:
            best = fitting[0]
            names = t("list.sep", lang).join(config_name(c, book, lang) for c in fitting)
            return t("headline.recommend_named", lang, name=config_name(best, book, lang), layout=best.layout, names=names)
        return t("headline.none_fits", lang)
    top = top_config(ev)
    if top is None:
        assert ev.need is not None  # an answer's analysis always sizes the need
        need = book.gib("memory needed on one GPU", ev.need.per_gpu.total)
        return t("headline.no_single_node", lang, need=need)
    assert top.memory is not None  # the search keeps only configurations it could size
    need = book.gib(f"memory per GPU on {top.gpu.name}", top.memory.per_gpu.total)
    return t("headline.recommend", lang, name=config_name(top, book, lang), layout=top.layout, need=need)


def job_line(ev: Analysis, book: Book, lang: str) -> str:
    w = ev.workload
    assert ev.need is not None  # an answer's analysis always sizes the need
    params = book.num(f"parameters of {ev.model.name}", ev.need.params / 1e9, "B params", "knowledge.params.param_counts", 1,
                      suffix=t("job.params_unit", lang))
    bits = [t("job.model", lang, model=ev.model.name, params=params), task_label(w.task, lang)]
    if w.task == "inference" or w.weights:
        bits.append(format_label(w.weights or default_weights(w.model), lang))  # unset: the checkpoint's own precision
    ctx = book.tokens("context", w.context, source_of(ev, "context"), lang)
    if w.task == "inference":
        conc = book.num("concurrency", w.concurrency, "sequences", source_of(ev, "concurrency"), suffix="")
        bits.append(t("job.load", lang, concurrency=conc, context=ctx))
    else:
        bits.append(t("job.sequence", lang, context=ctx))
    if ev.need is not None and ev.need.per_gpu.total:  # "how much memory does it need?": the whole job, unsharded
        need = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
        bits.append(t("job.need", lang, need=need))
    return t("job.head", lang, job=t("list.comma", lang).join(bits))


def rec_headline(ev: Analysis, top: Option | None, book: Book, lang: str) -> str:
    users = ev.user_options
    if users and len(users) == 1:
        o = users[0]
        need, usable = need_and_usable(o, book)
        if o.fits:
            speed = opt_speed(o, book, lang, ev.workload)
            tail = "" if speed == "—" else t("headline.speed_tail", lang, speed=speed)
            # a card the person named, asked whether it runs, how fast or how many users: a market rule is a note
            # there, as in the lead (options_table.misses); asked how many to buy, it stays "ruled out"
            missing = misses(o, lang, running=ev.intent != "how_many" or ev.asks_users)
            warn = t("headline.but", lang, misses=t("list.sep", lang).join(missing)) if missing else ""
            return t("headline.option_fits", lang, name=opt_name(o, book), warn=warn, layout=opt_layout(o, lang, book),
                     need=need, usable=usable, tail=tail)
        return t("headline.does_not_fit", lang, name=opt_name(o, book), layout=opt_layout(o, lang, book), need=need,
                 usable=usable)
    own = next((o for o in users if "existing" in o.labels), None)
    if own is not None and len(users) > 1:
        return own_versus_others(own, [o for o in users if o is not own], ev, book, lang)
    if users:
        alt = next((o for o in (ev.recommendation.options if ev.recommendation else []) if o.meets_targets
                    and not any(u.gpu == o.gpu and u.count == o.count for u in users)), None)
        alt_text = ""
        if alt is not None:
            alt_text = t("headline.nearest", lang, name=opt_name(alt, book), speed=opt_speed(alt, book, lang, ev.workload))
        if top is not None and top.meets_targets:
            return t("headline.best_named", lang, name=opt_name(top, book), layout=opt_layout(top, lang, book))
        if top is not None:
            missing = misses(top, lang)
            return t("headline.closest_named", lang, name=opt_name(top, book), misses=t("list.sep", lang).join(missing),
                     speed=opt_speed(top, book, lang, ev.workload)) + alt_text
        return t("headline.none_named_fits", lang) + alt_text
    if top is not None:
        labels = label_words(top, lang, ev.recommendation.options if ev.recommendation else ())
        why = t("list.sep", lang).join(labels) if labels else ""
        price = opt_price(top, book, lang) if top.price else ""
        speed = opt_speed(top, book, lang, ev.workload)
        extra = [x for x in (why, price, speed if speed != "—" else "") if x]
        return t("headline.recommend_option", lang, name=opt_name(top, book), layout=opt_layout(top, lang, book),
                 facts=t("clause.sep", lang).join(extra))
    return t("lead.nothing_fits", lang)


def speed_value(o: Option) -> tuple[str, float] | None:
    if o.training and o.training.wall:
        return "wall_s", o.training.wall.s
    total = o.throughput.decode_tokens_per_s_total if o.throughput else None
    return ("tokens_per_s", total) if total else None


def own_versus_others(own: Option, others: list[Option], ev: Analysis, book: Book, lang: str) -> str:
    """"We have X; would Y be worth it?": the verdict on X, then each Y against it (speed ratio and price)."""
    w = ev.workload
    if own.fits:
        head = t("headline.own_fits", lang, name=opt_name(own, book), layout=opt_layout(own, lang, book),
                 speed=opt_speed(own, book, lang, w))
    else:
        head = t("headline.own_does_not_fit", lang, name=opt_name(own, book), layout=opt_layout(own, lang, book))
    lines = [head]
    mine = speed_value(own) if own.fits else None
    for o in others:
        if not o.fits:
            lines.append(t("headline.other_does_not_fit", lang, name=opt_name(o, book)))
            continue
        theirs = speed_value(o)
        ratio_text = ""
        if mine and theirs and mine[0] == theirs[0] and mine[1] > 0 and theirs[1] > 0:
            ratio = mine[1] / theirs[1] if mine[0] == "wall_s" else theirs[1] / mine[1]
            r = book.num(f"speed-up of {o.count}× {o.gpu_name} over {own.count}× {own.gpu_name}", ratio, "×",
                         "computed from the two estimates", 1, suffix="").replace(" ", "") + "×"
            ratio_text = t("headline.speed_ratio", lang, ratio=r)
        price = opt_price(o, book, lang)
        lines.append(t("headline.other", lang, name=opt_name(o, book), speed=opt_speed(o, book, lang, w), ratio=ratio_text,
                       price=price))
    return "\n".join(lines)
