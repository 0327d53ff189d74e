"""Memory: the per-GPU breakdown, the memory chart, how far a configuration stretches (longest context,
most sequences) and the capacity at full load. Memory arrives as `Bytes` (an estimate's or an option's
`Breakdown`) and is shown in GiB through `Book.gib`; the chart data of the Turn is integer bytes (the contract).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.analysis.result import Analysis
from advisor.conversation.render.book import (
    SRC_DEFAULT,
    SRC_MEMORY,
    SRC_THROUGHPUT,
    SRC_TRAINING,
    SRC_USER,
    Book,
    money_of,
)
from advisor.conversation.render.headline import top_config
from advisor.conversation.render.labels import PARTS
from advisor.conversation.render.options_table import config_name, opt_name
from advisor.estimator.limits import CONTEXT_STEP
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.analysis.result import Limits
    from advisor.estimator.results import Breakdown
    from advisor.recommend.recommender import Option


def dialog_breakdown(ev: Analysis, book: Book, lang: str) -> str:
    top = top_config(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    assert mem is not None  # an answer's analysis always sizes the need
    where = (f"{config_name(top, book, lang)}" if top is not None and top.memory is not None
             else t("memory.one_gpu", lang))
    return _breakdown(where, mem.per_gpu, mem.cpu, book, lang)


def _breakdown(where: str, per_gpu: Breakdown, cpu: Breakdown, book: Book, lang: str) -> str:
    """The per-GPU parts that are not zero, the total, and the host memory of an offload."""
    lines = [t("memory.head", lang, where=where)]
    colon = t("label.colon", lang)  # "权重：7.1 GiB" in Chinese
    for part in PARTS:
        value = getattr(per_gpu, part)
        if value:
            lines.append(f"- {t(f'part.{part}', lang)}{colon}{book.gib(f'{part} per GPU', value)}")
    lines.append(f"- {t('memory.total', lang)}{colon}{book.gib('total per GPU', per_gpu.total)}")
    if cpu.total:
        lines.append(f"- {t('memory.cpu_offload', lang)}{colon}{book.gib('CPU memory', cpu.total)}")
    return "\n".join(lines)


def memory_chart_of(ev: Analysis) -> dict[str, Any] | None:
    top = top_config(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    if mem is None:
        return None
    chart: dict[str, Any] = mem.per_gpu.to_contract()
    if top is not None and top.memory is not None:
        chart["capacity"] = top.gpu.memory_bytes
        chart["usable"] = mem.usable_bytes(top.gpu).n
        chart["gpu"] = top.gpu.id
        chart["count"] = top.count
    return chart


def limits_block(lim: Limits, book: Book, lang: str) -> str:
    """How far the user's configuration stretches (advisor.analysis.result.Limits): the longest context at the asked micro-batch or
    concurrency, the largest micro-batch or concurrency at the asked context, and the speed."""
    o = lim.option
    name = opt_name(o, book)
    step = book.tokens("context search step", CONTEXT_STEP, "dialog: bisection grain", lang)
    asked_ctx = book.tokens("context", lim.context, SRC_USER, lang)
    src = f"{SRC_MEMORY} (bisection in steps of {CONTEXT_STEP} tokens)"
    if lim.training:
        load = book.count("micro-batch asked", lim.load, "sequences", SRC_USER)
        what = t("limits.micro_batch", lang, load=load)
    else:
        load = book.count("concurrency asked", lim.load, "sequences", SRC_USER)
        what = t("limits.requests", lang, load=load, n=lim.load)
    parts: list[str] = []
    if lim.max_context:
        longest = book.tokens(f"longest context that fits on {o.count}× {o.gpu_name}", lim.max_context, src, lang)
        capped = lim.max_context >= lim.context_cap
        parts.append(t("limits.longest", lang, what=what, longest=longest, asked=asked_ctx,
                       capped=t("limits.capped", lang) if capped else ""))
    else:
        parts.append(t("limits.none_fits", lang, what=what, step=step))
        weights = o.per_gpu.weights
        if weights > o.usable:
            w_gib = book.gib("weights per GPU", weights)
            parts[-1] += t("limits.weights_alone", lang, weights=w_gib)
        if lim.single_context:  # the asked load is the problem: what one sequence (micro-batch 1) can have
            one = book.tokens(f"longest context of one sequence on {o.count}× {o.gpu_name}", lim.single_context, src, lang)
            parts.append(t("limits.one_sequence_training" if lim.training else "limits.one_request", lang, longest=one))
    if lim.training:
        if lim.max_load:
            b = book.count(f"largest micro-batch on {o.count}× {o.gpu_name}", lim.max_load, "sequences", src)
            parts.append(t("limits.largest_micro_batch", lang, asked=asked_ctx, batch=b))
        if lim.tokens_per_s:
            tps = book.num(f"training tokens/s on {o.count}× {o.gpu_name}", lim.tokens_per_s, "tokens/s", SRC_TRAINING,
                           0 if lim.tokens_per_s >= 10 else 1)
            parts.append(t("limits.training_speed", lang, speed=tps))
    elif lim.max_load:
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", lim.max_load, "sequences",
                       f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
        text = t("limits.most_sequences", lang, asked=asked_ctx, count=n)
        at = lim.at_max
        if at:
            tot = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", at["total"], "tokens/s",
                           SRC_THROUGHPUT, 0)
            per = book.num(f"decode tokens/s per sequence at capacity on {o.count}× {o.gpu_name}", at["per_seq"],
                           "tokens/s", SRC_THROUGHPUT, 1 if at["per_seq"] < 10 else 0)
            text += t("limits.at_that_load", lang, total=tot, per=per)
        parts.append(text)
    elif lim.max_context:
        parts.append(t("limits.not_one", lang, asked=asked_ctx))
    return t("limits.head", lang, name=name) + " " + t("clause.sep", lang).join(parts) + t("sentence.end", lang)


def rec_breakdown(top: Option, book: Book, lang: str) -> str:
    return _breakdown(opt_name(top, book), top.per_gpu, top.cpu, book, lang)


def capacity_block(opts: list[Option], ev: Analysis, book: Book, lang: str) -> str:
    """No concurrency given: the tables' speeds are for one user at a time, so for each option shown, its capacity
    (most concurrent sequences at the context) and its total speed and owned cost per million tokens at that load."""
    rows: list[str] = []
    seen: set[tuple[str, int]] = set()
    for o in opts:
        key = (o.gpu, o.count)
        cap = ev.capacity.get(key)
        if cap is None or key in seen:
            continue
        seen.add(key)
        name = opt_name(o, book)
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", cap["max_concurrency"], "sequences",
                       f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
        tot = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", cap["total"], "tokens/s",
                       SRC_THROUGHPUT, 0)
        per = book.num(f"decode tokens/s per sequence at capacity on {o.count}× {o.gpu_name}", cap["per_seq"],
                       "tokens/s", SRC_THROUGHPUT, 1 if cap["per_seq"] < 10 else 0)
        cpm = cap.get("cost_per_million")
        money = money_of(book, f"cost per million tokens at capacity on {o.count}× {o.gpu_name} (owned)", cpm,
                          "advisor.estimator.cost.estimate_tco at the capacity speed") if cpm else ""
        rows.append(t("capacity.row", lang, name=name, count=n, total=tot, per=per,
                      owned=t("capacity.owned", lang, money=money) if money else ""))
    if not rows:
        return ""
    ctx = book.tokens("context", ev.workload.context, SRC_USER, lang)
    one = book.count("default concurrency", 1, "sequences", SRC_DEFAULT)
    return t("capacity.head", lang, one=one, context=ctx) + "\n" + "\n".join(rows)
