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
    opt_layout,
    opt_name,
    opt_price,
    opt_speed,
)

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
    zh = lang == "zh"
    users = [c for c in ev.configs if c.role in ("existing", "candidate")]
    if users:
        fitting = [c for c in users if c.fits]
        if len(users) == 1:
            c = users[0]
            if c.memory is None:
                return (f"**{config_name(c, book, lang)}：无法估算**（{c.error}）" if zh else
                        f"**{config_name(c, book, lang)}: could not be estimated** ({c.error})")
            need = book.gib(f"memory per GPU on {c.gpu.name}", c.memory.per_gpu.total)
            cap = book.gib(f"usable memory of {c.gpu.name}", c.memory.usable_bytes(c.gpu), f"catalog: {c.gpu.id} memory_bytes × engine usable fraction")
            if c.fits:
                return (f"**可以：{config_name(c, book, lang)} 放得下**（{c.layout}），每卡需要 {need}，可用 {cap}。" if zh else
                        f"**Yes: {config_name(c, book, lang)} fits** ({c.layout}): {need} needed per GPU of {cap} usable.")
            return (f"**不够：{config_name(c, book, lang)} 放不下**（{c.layout}），每卡需要 {need}，可用只有 {cap}。" if zh else
                    f"**No: {config_name(c, book, lang)} does not fit** ({c.layout}): {need} needed per GPU, only {cap} usable.")
        if fitting:
            best = fitting[0]
            names = "、".join(config_name(c, book, lang) for c in fitting) if zh else ", ".join(config_name(c, book, lang) for c in fitting)
            return (f"**建议：{config_name(best, book, lang)}**（{best.layout}）。放得下的配置：{names}。" if zh else
                    f"**Recommendation: {config_name(best, book, lang)}** ({best.layout}). Configurations that fit: {names}.")
        return ("**所列配置都放不下**，见下表每卡显存需求。" if zh else
                "**None of these configurations fits**; see the memory per GPU below.")
    top = top_config(ev)
    if top is None:
        assert ev.need is not None  # an answer's analysis always sizes the need
        need = book.gib("memory needed on one GPU", ev.need.per_gpu.total)
        return (f"**目录中没有 8 卡以内能放下的单机配置**；单卡需要 {need}。" if zh else
                f"**No single-node configuration in the catalog fits**; the job needs {need} on one GPU.")
    assert top.memory is not None  # the search keeps only configurations it could size
    need = book.gib(f"memory per GPU on {top.gpu.name}", top.memory.per_gpu.total)
    return (f"**建议：{config_name(top, book, lang)}**（{top.layout}），每卡需要 {need}。" if zh else
            f"**Recommendation: {config_name(top, book, lang)}** ({top.layout}), {need} needed per GPU.")


def job_line(ev: Analysis, book: Book, lang: str) -> str:
    w = ev.workload
    zh = lang == "zh"
    assert ev.need is not None  # an answer's analysis always sizes the need
    params = book.num(f"parameters of {ev.model.name}", ev.need.params / 1e9, "B params", "knowledge.params.param_counts", 1,
                      suffix="B 参数" if zh else "B parameters")
    bits = [f"{ev.model.name}（{params}）" if zh else f"{ev.model.name} ({params})", task_label(w.task, lang)]
    if w.task == "inference" or w.weights:
        bits.append(format_label(w.weights or default_weights(w.model), lang))  # unset: the checkpoint's own precision
    ctx = book.tokens("context", w.context, source_of(ev, "context"), lang)
    if w.task == "inference":
        conc = book.num("concurrency", w.concurrency, "sequences", source_of(ev, "concurrency"), suffix="")
        bits.append(f"{conc} 路 × {ctx}" if zh else f"{conc} × {ctx}")
    else:
        bits.append(("序列长度 " if zh else "sequence ") + ctx)
    if ev.need is not None and ev.need.per_gpu.total:  # "how much memory does it need?": the whole job, unsharded
        need = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
        bits.append(f"总显存需求（不分片）{need}" if zh else f"total memory need (unsharded) {need}")
    return ("**任务：** " if zh else "**Job:** ") + ("，".join(bits) if zh else ", ".join(bits))


def rec_headline(ev: Analysis, top: Option | None, book: Book, lang: str) -> str:

    zh = lang == "zh"
    users = ev.user_options
    if users and len(users) == 1:
        o = users[0]
        need = book.gib(f"memory per GPU on {o.count}× {o.gpu_name}", o.per_gpu_bytes.get("total", 0))
        usable = book.gib(f"usable memory of {o.gpu_name}", o.usable_bytes, f"catalog: {o.gpu} memory_bytes × engine usable fraction")
        if o.fits:
            speed = opt_speed(o, book, lang, ev.workload)
            tail = "" if speed == "—" else (f"；速度：{speed}" if zh else f"; speed: {speed}")
            missing = misses(o, lang)
            warn = (f"（但{'、'.join(missing)}）" if zh else f" (but it {', '.join(missing)})") if missing else ""
            return (f"**可以：{opt_name(o, book)} 放得下**{warn}（{opt_layout(o, lang, book)}），每卡需要 {need}，可用 {usable}{tail}。"
                    if zh else f"**Yes: {opt_name(o, book)} fits**{warn} ({opt_layout(o, lang, book)}): {need} needed per GPU "
                    f"of {usable} usable{tail}.")
        return (f"**不够：{opt_name(o, book)} 放不下**（{opt_layout(o, lang, book)}），每卡需要 {need}，可用只有 {usable}。"
                if zh else f"**No: {opt_name(o, book)} does not fit** ({opt_layout(o, lang, book)}): {need} needed per GPU, "
                f"only {usable} usable.")
    own = next((o for o in users if "existing" in o.labels), None)
    if own is not None and len(users) > 1:
        return own_versus_others(own, [o for o in users if o is not own], ev, book, lang)
    if users:
        alt = next((o for o in (ev.recommendation.options if ev.recommendation else []) if o.meets_targets
                    and not any(u.gpu == o.gpu and u.count == o.count for u in users)), None)
        alt_text = ""
        if alt is not None:
            alt_text = (f"满足全部要求的最近方案：{opt_name(alt, book)}（{opt_speed(alt, book, lang, ev.workload)}）。" if zh else
                        f" The nearest configuration that meets every target: {opt_name(alt, book)} "
                        f"({opt_speed(alt, book, lang, ev.workload)}).")
        if top is not None and top.meets_targets:
            return (f"**建议：{opt_name(top, book)}**（{opt_layout(top, lang, book)}）——在您列出的配置中最合适；对比见下表。"
                    if zh else f"**Recommendation: {opt_name(top, book)}** ({opt_layout(top, lang, book)}), the best fit among the "
                    "configurations you named; the comparison is below.")
        if top is not None:
            missing = misses(top, lang)
            return ((f"**您列出的配置都达不到全部要求。** 最接近的是 {opt_name(top, book)}：放得下，但{'、'.join(missing)}"
                     f"（{opt_speed(top, book, lang, ev.workload)}）。" + alt_text) if zh else
                    (f"**None of the configurations you named meets every target.** The closest is {opt_name(top, book)}: it "
                     f"fits but {', '.join(missing)} ({opt_speed(top, book, lang, ev.workload)}).{alt_text}"))
        return (("**您列出的配置都放不下**，见下表与可行的改动。" + alt_text) if zh else
                "**None of the configurations you named fits**; see the table and what would have to change." + alt_text)
    if top is not None:
        labels = label_words(top, lang, ev.recommendation.options if ev.recommendation else ())
        why = ("、".join(labels) if zh else ", ".join(labels)) if labels else ""
        price = opt_price(top, book, lang) if top.price else ""
        speed = opt_speed(top, book, lang, ev.workload)
        extra = [x for x in (why, price, speed if speed != "—" else "") if x]
        return (f"**建议：{opt_name(top, book)}**（{opt_layout(top, lang, book)}）：{'；'.join(extra)}。" if zh else
                f"**Recommendation: {opt_name(top, book)}** ({opt_layout(top, lang, book)}): {'; '.join(extra)}.")
    return ("**在当前约束下没有能放下的配置。**" if zh else "**Nothing in the catalog fits under these constraints.**")


def speed_value(o: Option) -> tuple[str, float] | None:
    if o.training and o.training.get("wall_s"):
        return "wall_s", float(o.training["wall_s"])
    total = (o.throughput or {}).get("decode_tokens_per_s_total")
    return ("tokens_per_s", float(total)) if total else None


def own_versus_others(own: Option, others: list[Option], ev: Analysis, book: Book, lang: str) -> str:
    """"We have X; would Y be worth it?": the verdict on X, then each Y against it (speed ratio and price)."""
    zh = lang == "zh"
    w = ev.workload
    if own.fits:
        head = (f"**您现有的 {opt_name(own, book)} 放得下**（{opt_layout(own, lang, book)}）：{opt_speed(own, book, lang, w)}。"
                if zh else f"**Your {opt_name(own, book)} fits** ({opt_layout(own, lang, book)}): "
                f"{opt_speed(own, book, lang, w)}.")
    else:
        head = (f"**您现有的 {opt_name(own, book)} 放不下**（{opt_layout(own, lang, book)}）。" if zh else
                f"**Your {opt_name(own, book)} does not fit** ({opt_layout(own, lang, book)}).")
    lines = [head]
    mine = speed_value(own) if own.fits else None
    for o in others:
        if not o.fits:
            lines.append(f"- {opt_name(o, book)}：放不下。" if zh else f"- {opt_name(o, book)}: does not fit.")
            continue
        theirs = speed_value(o)
        ratio_text = ""
        if mine and theirs and mine[0] == theirs[0] and mine[1] > 0 and theirs[1] > 0:
            ratio = mine[1] / theirs[1] if mine[0] == "wall_s" else theirs[1] / mine[1]
            r = book.num(f"speed-up of {o.count}× {o.gpu_name} over {own.count}× {own.gpu_name}", ratio, "×",
                         "computed from the two estimates", 1, suffix="").replace(" ", "") + "×"
            ratio_text = (f"，是现有配置的 {r} 速度" if zh else f", {r} the speed of yours")
        price = opt_price(o, book, lang)
        lines.append(f"- {opt_name(o, book)}：{opt_speed(o, book, lang, w)}{ratio_text}；显卡价格 {price}。" if zh else
                      f"- {opt_name(o, book)}: {opt_speed(o, book, lang, w)}{ratio_text}; GPUs {price}.")
    return "\n".join(lines)
