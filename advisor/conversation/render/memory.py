"""Memory: the per-GPU breakdown, the memory chart, how far a configuration stretches (longest context,
most sequences) and the capacity at full load.
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
from advisor.conversation.render.labels import PART, pick
from advisor.conversation.render.options_table import config_name, opt_name
from advisor.estimator.limits import CONTEXT_STEP

if TYPE_CHECKING:
    from advisor.analysis.result import Limits
    from advisor.recommend.recommender import Option


def dialog_breakdown(ev: Analysis, book: Book, lang: str) -> str:
    top = top_config(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    assert mem is not None  # an answer's analysis always sizes the need
    where = f"{config_name(top, book, lang)}" if top is not None and top.memory is not None else ("单卡" if lang == "zh" else "one GPU")
    zh = lang == "zh"
    lines = [(f"**每卡显存明细**（{where}）：" if zh else f"**Memory per GPU** ({where}):")]
    for part, label in PART.items():
        value = getattr(mem.per_gpu, part)
        if value:
            lines.append(f"- {pick(label, lang)}: {book.gib(f'{part} per GPU', value)}")
    lines.append(f"- {'合计' if zh else 'total'}: {book.gib('total per GPU', mem.per_gpu.total)}")
    if mem.cpu.total:
        lines.append(f"- {'CPU 内存（卸载）' if zh else 'CPU RAM (offload)'}: {book.gib('CPU memory', mem.cpu.total)}")
    return "\n".join(lines)


def memory_chart_of(ev: Analysis) -> dict[str, Any] | None:
    top = top_config(ev)
    mem = top.memory if top is not None and top.memory is not None else ev.need
    if mem is None:
        return None
    chart: dict[str, Any] = {k: int(v) for k, v in mem.per_gpu.parts().items()}
    chart["total"] = int(mem.per_gpu.total)
    if top is not None and top.memory is not None:
        chart["capacity"] = int(top.gpu.memory_bytes)
        chart["usable"] = int(mem.usable_bytes(top.gpu))
        chart["gpu"] = top.gpu.id
        chart["count"] = top.count
    return chart


def limits_block(lim: Limits, book: Book, lang: str) -> str:
    """How far the user's configuration stretches (advisor.analysis.result.Limits): the longest context at the asked micro-batch or
    concurrency, the largest micro-batch or concurrency at the asked context, and the speed."""
    zh = lang == "zh"
    o = lim.option
    name = opt_name(o, book)
    step = book.tokens("context search step", CONTEXT_STEP, "dialog: bisection grain", lang)
    asked_ctx = book.tokens("context", lim.context, SRC_USER, lang)
    src = f"{SRC_MEMORY} (bisection in steps of {CONTEXT_STEP} tokens)"
    if lim.training:
        load = book.count("micro-batch asked", lim.load, "sequences", SRC_USER)
        what, what_zh = f"micro-batch {load}", f"微批 {load} 时"
    else:
        load = book.count("concurrency asked", lim.load, "sequences", SRC_USER)
        what, what_zh = f"{load} concurrent request{'s' if lim.load != 1 else ''}", f"{load} 路并发时"
    parts: list[str] = []
    if lim.max_context:
        longest = book.tokens(f"longest context that fits on {o.count}× {o.gpu_name}", lim.max_context, src, lang)
        capped = lim.max_context >= lim.context_cap
        if zh:
            parts.append(f"{what_zh}最长可放下 {longest} 的序列" + ("，即模型的最大上下文" if capped else "")
                         + f"（您要的是 {asked_ctx}）")
        else:
            parts.append(f"at {what} the longest sequence that fits is {longest}"
                         + (", the model's maximum context" if capped else "") + f" (you asked for {asked_ctx})")
    else:
        parts.append(f"{what_zh}任何序列长度都放不下（{step} 也不行）" if zh else
                     f"at {what} no sequence length fits (not even {step})")
        weights = o.per_gpu_bytes.get("weights", 0)
        if weights > o.usable_bytes:
            w_gib = book.gib("weights per GPU", weights)
            parts[-1] += f"：每卡仅权重就要 {w_gib}" if zh else f": the weights alone take {w_gib} per GPU"
        if lim.single_context:  # the asked load is the problem: what one sequence (micro-batch 1) can have
            one = book.tokens(f"longest context of one sequence on {o.count}× {o.gpu_name}", lim.single_context, src, lang)
            parts.append((f"微批 1 时最长 {one}" if lim.training else f"单路请求时最长 {one}") if zh else
                         (f"at micro-batch 1 up to {one}" if lim.training else f"one request at a time can have up to {one}"))
    if lim.training:
        if lim.max_load:
            b = book.count(f"largest micro-batch on {o.count}× {o.gpu_name}", lim.max_load, "sequences", src)
            parts.append(f"序列长度 {asked_ctx} 时最大微批为 {b}" if zh else f"at {asked_ctx} the largest micro-batch is {b}")
        if lim.tokens_per_s:
            tps = book.num(f"training tokens/s on {o.count}× {o.gpu_name}", lim.tokens_per_s, "tokens/s", SRC_TRAINING,
                           0 if lim.tokens_per_s >= 10 else 1)
            parts.append(f"训练速度约 {tps}" if zh else f"training speed about {tps}")
    elif lim.max_load:
        n = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", lim.max_load, "sequences",
                       f"{SRC_MEMORY} (largest concurrency that fits, bisection)")
        text = f"上下文 {asked_ctx} 时最多 {n} 路并发" if zh else f"at {asked_ctx} it holds {n} concurrent sequences"
        at = lim.at_max
        if at:
            tot = book.num(f"decode tokens/s total at capacity on {o.count}× {o.gpu_name}", at["total"], "tokens/s",
                           SRC_THROUGHPUT, 0)
            per = book.num(f"decode tokens/s per sequence at capacity on {o.count}× {o.gpu_name}", at["per_seq"],
                           "tokens/s", SRC_THROUGHPUT, 1 if at["per_seq"] < 10 else 0)
            text += f"，此时合计 {tot}（每路 {per}）" if zh else f", {tot} in total at that load ({per} per sequence)"
        parts.append(text)
    elif lim.max_context:
        parts.append(f"上下文 {asked_ctx} 时连 1 路都放不下" if zh else f"at {asked_ctx} not even one sequence fits")
    head = f"**{name} 上能放下多少：**" if zh else f"**What fits on {name}:**"
    return head + " " + ("；".join(parts) + "。" if zh else "; ".join(parts) + ".")


def rec_breakdown(top: Option, book: Book, lang: str) -> str:
    zh = lang == "zh"
    lines = [(f"**每卡显存明细**（{opt_name(top, book)}）：" if zh else f"**Memory per GPU** ({opt_name(top, book)}):")]
    for part, label in PART.items():
        value = top.per_gpu_bytes.get(part, 0)
        if value:
            lines.append(f"- {pick(label, lang)}: {book.gib(f'{part} per GPU', value)}")
    lines.append(f"- {'合计' if zh else 'total'}: {book.gib('total per GPU', top.per_gpu_bytes.get('total', 0))}")
    cpu = (top.cpu_bytes or {}).get("total", 0)
    if cpu:
        lines.append(f"- {'CPU 内存（卸载）' if zh else 'CPU RAM (offload)'}: {book.gib('CPU memory', cpu)}")
    return "\n".join(lines)


def capacity_block(opts: list[Option], ev: Analysis, book: Book, lang: str) -> str:
    """No concurrency given: the tables' speeds are for one user at a time, so for each option shown, its capacity
    (most concurrent sequences at the context) and its total speed and owned cost per million tokens at that load."""
    zh = lang == "zh"
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
        if zh:
            rows.append(f"- {name}：最多 {n} 路，合计 {tot}（每路 {per}）" + (f"；自有每百万 token {money}" if money else ""))
        else:
            rows.append(f"- {name}: {n} sequences, {tot} in total ({per} per sequence)"
                        + (f"; {money} per million tokens owned" if money else ""))
    if not rows:
        return ""
    ctx = book.tokens("context", ev.workload.context, SRC_USER, lang)
    one = book.count("default concurrency", 1, "sequences", SRC_DEFAULT)
    head = (f"**满载容量**（未给出并发数，上表速度按 {one} 路请求计算；下面是每种配置在 {ctx} 上下文下最多能同时服务的序列数，"
            "以及此时的速度和成本）：" if zh else
            f"**Capacity** (no concurrency was given, so the speeds above are for {one} user at a time; here is the most "
            f"sequences of {ctx} each configuration holds at once, and its speed and cost at that load):")
    return head + "\n" + "\n".join(rows)
