"""The first screen of an answer: one or two sentences that answer exactly the question asked (intent), with the
deciding number and its unit, the defaults assumed, a compact table of the recommended configuration(s), and
the question; everything else goes into collapsible details sections.

Numbers come from the evaluation (estimator, recommender, catalog) and are recorded in the `Book` as they are
printed, so the grounding gate and the tests can trace them. Layout rules:

    first screen = lead (≤ 2 sentences) + assumed defaults (1 line) + compact table (≤ 3 rows) + question
    details      = `<details><summary>title</summary> … </details>` blocks (HTML that Gradio's Markdown renders;
                   Slack shows them in a thread reply; the CLI prints them with their titles)

The evaluation (`ev`) and its options stay `Any` here: they are the dialog's and the recommender's objects, read
by attribute, and the dialog's are being reshaped; the `Book` every number goes through is typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from advisor.analysis.result import top_option
from advisor.conversation.dialog.machine import default_catalog, default_weights
from advisor.conversation.render.book import (
    SRC_DEFAULT,
    SRC_MEMORY,
    SRC_RECOMMEND,
    SRC_THROUGHPUT,
    SRC_TRAINING,
    SRC_USER,
    Book,
    decimals_for,
    source_of,
)
from advisor.conversation.render.labels import REGION, format_label, pick, task_label
from advisor.conversation.render.options_table import (
    misses,
    opt_layout,
    opt_memory,
    opt_name,
    opt_price,
    opt_purchase,
    opt_speed,
)
from advisor.conversation.render.scale_out import offload_sentence, own_card_smaller, replicas_for_load
from advisor.recommend.search import default_train_tokens
from knowledge.structs import dump

GIB = 2**30
DETAILS_OPEN = "<details>"
_DETAILS = re.compile(r"<details><summary>(?P<title>.*?)</summary>\n\n(?P<body>.*?)\n\n</details>", re.S)


@dataclass
class Lead:
    """The answer's opening: its text, the verdict for feasibility questions and what the deciding number is."""

    text: str
    verdict: str | None = None  # "yes", "no", "with_changes" (feasibility questions), else None
    deciding: str = ""  # name of the deciding number (a Number.name in the turn)


def details(title: str, body: str) -> str:
    """One collapsible section (blank lines around the body so the Markdown inside renders)."""
    body = body.strip()
    return f"<details><summary>{title}</summary>\n\n{body}\n\n</details>" if body else ""


def split_details(answer: str) -> tuple[str, list[tuple[str, str]]]:
    """(first screen, [(title, body), …]) of an answer built with `details`."""
    at = answer.find(DETAILS_OPEN)
    if at < 0:
        return answer, []
    return answer[:at].rstrip(), [(m.group("title"), m.group("body")) for m in _DETAILS.finditer(answer[at:])]


def plain_details(answer: str) -> str:
    """The answer for a terminal: each details section as a heading line and its body."""
    return _DETAILS.sub(lambda m: f"▸ {m.group('title')}\n\n{m.group('body')}", answer)


def first_screen_lines(answer: str) -> int:
    """Non-empty lines before the first details section (benchmarks/bench_first_screen.py)."""
    head, _ = split_details(answer)
    return sum(1 for line in head.splitlines() if line.strip())


def first_sentences(answer: str, n: int = 2) -> str:
    """The first `n` sentences of the answer (markdown emphasis dropped)."""
    text = re.sub(r"\*\*|__|`", "", split_details(answer)[0])
    parts = re.split(r"(?<=[.!?。！？])\s+|(?<=[。！？])", text.strip())
    return " ".join(p for p in parts[:n] if p)


# -- pieces ----------------------------------------------------------------------------------------------------------
def _yes_no(verdict: str | None, zh: bool) -> str:
    return {"yes": ("**可以**", "**Yes**"), "no": ("**不够**", "**No**"),
            "with_changes": ("**按原样不行**", "**Not as asked**")}.get(verdict or "", ("", ""))[0 if zh else 1]


def memory_lead(ev: Any, cap: Any, top: Any, book: Book, lang: str) -> Lead:
    """A bare capacity ("28GB 显存够吗"): the job's memory need on one device against it. A card sold as "N GB"
    has N GiB (N·2^30 bytes); the need includes KV cache, activations and the engine's runtime."""
    zh = lang == "zh"
    need = ev.need
    cap_bytes = int(cap.value * GIB)
    fits = bool(need.fits(cap_bytes))
    model = ev.model.name
    fmt = format_label(need_format(ev), lang)
    total = book.gib("total memory need (unsharded)", need.per_gpu.total)
    weights = book.gib("weights (unsharded)", need.per_gpu.weights)
    usable = book.gib(f"usable memory of a {cap.value:g} GiB card", need.usable_bytes(cap_bytes))
    typed = book.num("capacity you named", cap.value, cap.unit, SRC_USER, decimals_for(cap.value))
    verdict = "yes" if fits else "no"
    if fits:
        text = (f"{_yes_no(verdict, zh)}：{model}（{fmt}）连同 KV 缓存和运行时约需 {total}，{typed} 的卡可用 {usable}，放得下。" if zh
                else f"{_yes_no(verdict, zh)} — {model} at {fmt} needs about {total} with its KV cache and runtime, which "
                f"fits in a {typed} card ({usable} usable).")
    elif need.per_gpu.total <= cap_bytes:  # below the card's size but above what the engine may fill
        text = (f"{_yes_no(verdict, zh)}：{model}（{fmt}）连同 KV 缓存和运行时约需 {total}，超过 {typed} 显卡的可用 {usable}"
                f"（引擎预留 10%）；光权重就约 {weights}。" if zh else
                f"{_yes_no(verdict, zh)} — {model} at {fmt} needs about {total} with its KV cache and runtime, more than the "
                f"{usable} a {typed} card leaves usable (the engine keeps 10 %); the weights alone are about {weights}.")
    else:
        text = (f"{_yes_no(verdict, zh)}：{model}（{fmt}）连同 KV 缓存和运行时约需 {total}，不是 {typed}：光权重就约 {weights}。" if zh
                else f"{_yes_no(verdict, zh)} — {model} at {fmt} needs about {total} with its KV cache and runtime, not "
                f"{typed}: the weights alone are about {weights}.")
        if top is not None and top.fits:
            text += (f"{opt_name(top, book)} 放得下。" if zh else f" {opt_name(top, book)} fits it.")
    return Lead(text, verdict, "total memory need (unsharded)")


def unknown_card_lead(ev: Any, cards: list[str], top: Any, book: Book, lang: str) -> Lead:
    """The card asked about is not in the catalog (issue 27): no verdict, since none can be given about it. What the
    job needs on one device, whatever card runs it (the memory estimate, unsharded), and, labelled as such, catalog
    configurations that hold it; the unknown line before this asks for the card's memory and bandwidth."""
    zh = lang == "zh"
    asked = "、".join(cards) if zh else ", ".join(cards)
    need = ev.need
    fmt = format_label(need_format(ev), lang)
    total = book.gib("total memory need (unsharded)", need.per_gpu.total)
    weights = book.gib("weights (unsharded)", need.per_gpu.weights)
    text = (f"关于 {asked} 没有结论。能算的是任务本身：{ev.model.name}（{fmt}）连同 KV 缓存和运行时约需 {total}（其中权重 "
            f"{weights}），一张卡的可用显存要比这多才能单卡放下。" if zh else
            f"No verdict on the {asked}. What can be said is what the job needs: {ev.model.name} at {fmt} needs about "
            f"{total} with its KV cache and runtime (weights {weights}), so a single card needs more usable memory "
            "than that.")
    pool = ([top] if top is not None else []) + sorted(
        (o for o in (list(ev.recommendation.options) if ev.recommendation else []) + list(ev.alternatives)
         if o.fits), key=lambda o: o.count)
    seen: list[Any] = []
    for o in pool:
        if o.fits and all(o.gpu != x.gpu for x in seen) and len(seen) < 3:
            seen.append(o)
    if seen:
        names = ("、" if zh else ", ").join(opt_name(o, book) for o in seen)
        text += (f"仅供参考（目录里的卡，不是 {asked}）：{names} 放得下。" if zh else
                 f" For reference only, catalog cards (not the {asked}) that hold it: {names}.")
    return Lead(text, None, "total memory need (unsharded)")


def need_format(ev: Any) -> str:
    return ev.workload.weights or c_default_weights(ev)


def c_default_weights(ev: Any) -> str:
    return default_weights(ev.workload.model) if ev.workload.task == "inference" else "bf16"


def fit_limits_text(fl: Any, book: Book, lang: str) -> str:
    """Near the limit of one card for a training job (issue 28): the spare memory at the micro-batch and sequence
    asked, whether one more sequence per micro-batch fits, and the longest sequence that does (FitLimits: each a
    full estimate). Empty when the job fits with room to double the micro-batch."""
    zh = lang == "zh"
    if fl.fits and fl.largest_batch >= 2 * fl.batch:
        return ""
    src = "estimator: training_fit_limits (a full memory estimate per candidate)"
    spare = book.gib("spare memory per GPU at the job as asked", abs(fl.spare_bytes), src)
    batch = book.count("micro-batch asked", fl.batch, "sequences", src)
    ctx = book.count("sequence length asked", fl.context, "tokens", src)
    longest = book.count("longest sequence that fits at this micro-batch", fl.largest_context, "tokens", src)
    if fl.fits:
        more = book.count("next micro-batch", fl.batch + 1, "sequences", src)
        nxt = ((f"每批 {more} 条放不下" if zh else f"micro-batch {more} does not") if fl.largest_batch == fl.batch
               else (f"每批最多 {book.count('largest micro-batch that fits', fl.largest_batch, 'sequences', src)} 条"
                     if zh else f"micro-batch up to {fl.largest_batch} fits"))
        return (f"余量很小：每批 {batch} 条 × {ctx} tokens 时还剩 {spare}；{nxt}；每批 {batch} 条时最长序列 "
                f"{longest} tokens。" if zh else
                f" Close to the limit: it fits with {spare} to spare at micro-batch {batch} × {ctx} tokens; {nxt}; "
                f"the longest sequence at micro-batch {batch} is {longest} tokens.")
    return ""


def option_lead(o: Any, ev: Any, book: Book, lang: str, one_card: bool) -> Lead:
    """One configuration the user named: yes with the need and speed, or no with the shortfall and what would make
    it work (the recommender's changes checked on it, else the best configuration that fits)."""
    zh = lang == "zh"
    name = opt_name(o, book)
    need = book.gib(f"memory per GPU on {o.count}× {o.gpu_name}", o.per_gpu_bytes.get("total", 0))
    usable = book.gib(f"usable memory of {o.gpu_name}", o.usable_bytes,
                      f"catalog: {o.gpu} memory_bytes × engine usable fraction")
    if o.fits:
        # under a stated load the simulated speed follows on the next line (load_line): not a second figure here
        speed = "—" if ev.load and o is load_option(ev) else opt_speed(o, book, lang, ev.workload)
        label = ("训练时间" if ev.workload.is_training else "速度") if zh else ""
        tail = "" if speed == "—" else (f"；{label} {speed}" if zh else f"; {speed}")
        missing = misses(o, lang)
        warn = (f"（但{'、'.join(missing)}）" if zh else f" (but it {', '.join(missing)})") if missing else ""
        lay = opt_layout(o, lang, book)
        limits = fit_limits_text(ev.fit_limits, book, lang) if ev.fit_limits is not None else ""
        return Lead((f"**可以：{name} 放得下**{warn}（{lay}），每卡需要 {need}，可用 {usable}{tail}。{limits}" if zh else
                     f"**Yes: {name} fits**{warn} ({lay}): {need} needed per GPU of {usable} usable{tail}.{limits}"),
                    "yes", f"memory per GPU on {o.count}× {o.gpu_name}")
    short = book.gib(f"shortfall per GPU on {o.count}× {o.gpu_name}",
                     o.per_gpu_bytes.get("total", 0) - o.usable_bytes, "computed: need − usable")
    off = ev.offload
    if ev.offload_asked and off is not None and off.gpu == o.gpu and o.count == 1:
        return offload_lead(off, ev, book, lang, short)
    who = ("一张卡" if zh else "one card") if one_card and o.count == 1 else name
    changes = list(ev.named_changes or [])
    if not changes and "existing" in o.labels and ev.recommendation is not None:
        # the user's own cards: a lighter method or format on them (a shorter context changes the job: the details)
        changes = [ch for ch in ev.recommendation.changes if ch.for_existing and ch.kind in ("task", "precision")]
    verdict = "with_changes" if changes else "no"
    per = "" if one_card and o.count == 1 else " 每卡"
    head = (f"{_yes_no(verdict, zh)}：{who}{per}差 {short}——需要 {need}，{o.gpu_name} 可用 {usable}。" if zh else
            f"{_yes_no(verdict, zh)} — {who} is short by {short}: it needs {need} per GPU and the {o.gpu_name} has "
            f"{usable} usable.")
    if changes:
        ch = changes[0]
        msg = book.text(ch.message_zh if zh and ch.message_zh else ch.message, f"change ({ch.kind}) for {name}",
                        SRC_RECOMMEND)
        head += (f"可行的改法：{msg}" if zh else f" What would make it work: {msg}")
        head = head.rstrip("。.") + ("。" if zh else ".")
    else:
        alt = _best_other(ev, o)
        own = "existing" in o.labels and o.count == 1
        near = off is not None and off.gpu == o.gpu and o.count == 1
        if own and (near or ev.smaller):
            # the user's own card: first what runs on it (offload, a smaller model), then what to buy (issue 27)
            if near:
                head += offload_sentence(off, book, lang, owned=True)
            head += own_card_smaller(ev, book, lang, need_format(ev) if ev.workload.weights else None)
            if alt is not None:
                fmt = format_label(need_format(ev), lang)
                head += (f"要按 {fmt} 原样跑，得另买：{opt_name(alt, book)} 放得下。" if zh else
                         f" To run it at {fmt} as asked you would buy: {opt_name(alt, book)} fits it.")
            return Lead(head, verdict, f"shortfall per GPU on {o.count}× {o.gpu_name}")
        if alt is not None:
            head += (f"{opt_name(alt, book)} 放得下。" if zh else f" {opt_name(alt, book)} fits it.")
    if off is not None and off.gpu == o.gpu and o.count == 1:  # the card itself, slowly: llama.cpp layer offload
        head += offload_sentence(off, book, lang)
    return Lead(head, verdict, f"shortfall per GPU on {o.count}× {o.gpu_name}")



def offload_lead(off: Any, ev: Any, book: Book, lang: str, short: str) -> Lead:
    """"One card plus RAM offload?": yes, slowly — llama.cpp keeps `-ngl` layers on the card and the rest in system
    RAM; decode is bound by the host's memory bandwidth (advisor.estimator.offload, rule sizing-layer-offload-slow)."""
    zh = lang == "zh"
    lay, t = off.layout.layer_offload, off.throughput
    where = f"on 1× {off.gpu_name} with layer offload"
    ngl = book.count(f"GPU layers (-ngl) {where}", lay.ngl, "layers", SRC_RECOMMEND)
    rest = book.count(f"layers in system RAM {where}", lay.cpu_layers, "layers", SRC_RECOMMEND)
    ram = book.gib(f"system RAM for the offloaded layers {where}", lay.system_ram_bytes)
    tps = t.decode_tokens_per_s
    speed = book.num(f"decode tokens/s {where}", tps, "tokens/s", SRC_THROUGHPUT, 1 if tps < 10 else 0)
    fmt = format_label(off.layout.weights, lang)
    return Lead((f"**可以，但很慢**：用 llama.cpp 按层卸载（{fmt}），`-ngl {ngl}` 层放在 {off.gpu_name} 上，其余 {rest} 层放进"
                 f"系统内存（需 {ram}），生成约 {speed}。不卸载的话一张卡差 {short}。" if zh else
                 f"**Yes, slowly** — with llama.cpp layer offload ({fmt}), `-ngl {ngl}` layers stay on the "
                 f"{off.gpu_name} and the other {rest} go to system RAM ({ram} needed), at about {speed}. Without "
                 f"offload one card is short by {short}."),
                "with_changes", f"decode tokens/s {where}")


def _best_other(ev: Any, o: Any) -> Any:
    pool = list(ev.alternatives) + (list(ev.recommendation.options) if ev.recommendation else [])
    return next((x for x in pool if x.fits and x.meets_targets and (x.gpu, x.count) != (o.gpu, o.count)), None)


def count_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead:
    zh = lang == "zh"
    need = book.gib(f"memory per GPU on {top.count}× {top.gpu_name}", top.per_gpu_bytes.get("total", 0))
    usable = book.gib(f"usable memory of {top.gpu_name}", top.usable_bytes,
                      f"catalog: {top.gpu} memory_bytes × engine usable fraction")
    name = opt_name(top, book)
    missing = misses(top, lang)  # a rule's exclusion stays in the first sentence
    warn = (f"（但{'、'.join(missing)}）" if zh else f" (but it {', '.join(missing)})") if missing else ""
    return Lead((f"需要 {name}{warn}：每卡 {need}，可用 {usable}（{opt_layout(top, lang, book)}）。" if zh else
                 f"You need {name}{warn}: {need} per GPU of {usable} usable ({opt_layout(top, lang, book)})."),
                None, f"GPUs ({top.gpu_name})")


def users_lead(o: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"How many users can it serve?": the most concurrent sequences of the asked context that fit on `o` (the
    configuration's limits when the user named it, else its full-load capacity), with the decode speed there."""
    zh = lang == "zh"
    lim = ev.limits if ev.limits is not None and (ev.limits.option.gpu, ev.limits.option.count) == (o.gpu, o.count) \
        else None
    cap = (ev.capacity or {}).get((o.gpu, o.count)) or {}
    n = (lim.max_load if lim is not None and not lim.training else 0) or cap.get("max_concurrency") or 0
    speed = (lim.at_max if lim is not None and lim.at_max else None) or cap
    if not n:
        return None
    name = opt_name(o, book)
    most = book.count(f"most concurrent sequences on {o.count}× {o.gpu_name}", int(n), "sequences", SRC_MEMORY)
    ctx = book.tokens("context", ev.workload.context, source_of(ev, "context"), lang)
    tail = ""
    if speed and speed.get("total"):
        tot = book.num(f"decode tokens/s total at {int(n)} sequences on {o.count}× {o.gpu_name}", speed["total"],
                       "tokens/s", SRC_THROUGHPUT, 0)
        per = book.num(f"decode tokens/s per sequence at {int(n)} sequences on {o.count}× {o.gpu_name}",
                       speed["per_seq"], "tokens/s", SRC_THROUGHPUT, 1 if speed["per_seq"] < 10 else 0)
        tail = (f"，此时合计 {tot}（每路 {per}）" if zh else f", {tot} in total ({per} per user) at that load")
    return Lead((f"{name} 最多可同时服务 {most} 路 {ctx} 的请求{tail}。" if zh else
                 f"{name} serves at most {most} concurrent requests of {ctx}{tail}."), None,
                f"most concurrent sequences on {o.count}× {o.gpu_name}")


SRC_LOAD = "advisor.estimator.serving.simulate_serving"


def load_option(ev: Any) -> Any:
    """The option `Analysis.load` was simulated for (advisor.analysis.evaluate: the leading option, else the first
    of the user's own that fits)."""
    return top_option(ev) or next((o for o in ev.user_options if o.fits), None)


def load_line(ev: Any, top: Any, book: Book, lang: str) -> str:
    """"Serve X to N users": at the stated concurrency on the leading option, the continuous-batching simulation's
    median time to first token (and p95), per-user decode speed (1 / median TPOT) and total output tokens/s, then
    the largest concurrency whose median TPOT meets the stated target, else the recommender's interactivity target
    (advisor.analysis.limits.serving_load; DEFAULT_TPOT_TARGET_S). "" when no load was simulated."""
    zh = lang == "zh"
    load = ev.load
    o = top
    stated = "concurrency" in (getattr(ev, "stated", None) or ())
    if load is None and top is not None and stated:  # the option's own figures under the stated load (no limit)
        ul = top.throughput.under_load if top.throughput else None
        load = dict(dump(ul), concurrency=ev.workload.concurrency) if ul else None
    if not load or o is None or not load.get("per_user_tokens_per_s"):
        return ""
    on = f"{o.count}× {o.gpu_name}"
    n = book.count("concurrency", load["concurrency"], "sequences", source_of(ev, "concurrency"))
    ttft = book.num(f"median time to first token at {load['concurrency']} users on {on}", load["ttft_s"] * 1e3, "ms",
                    SRC_LOAD, 0)
    bits_en = [f"first token after {ttft} (median"]
    bits_zh = [f"首 token 延迟 {ttft}（中位数"]
    if load.get("ttft_p95_s"):
        p95 = book.num(f"p95 time to first token at {load['concurrency']} users on {on}", load["ttft_p95_s"] * 1e3, "ms",
                       SRC_LOAD, 0)
        bits_en[0] += f", {p95} at p95"
        bits_zh[0] += f"，p95 {p95}"
    bits_en[0] += ")"
    bits_zh[0] += "）"
    per_v = load["per_user_tokens_per_s"]
    per = book.num(f"tokens/s per user at {load['concurrency']} users on {on}", per_v, "tokens/s", SRC_LOAD,
                   1 if per_v < 10 else 0)
    speed_en, speed_zh = f"{per} per user", f"每路 {per}"
    if load.get("tpot_s"):
        tpot = book.num(f"median time per output token at {load['concurrency']} users on {on}", load["tpot_s"] * 1e3,
                        "ms", SRC_LOAD, 0)
        speed_en += f" ({tpot} per token)"
        speed_zh += f"（每 token {tpot}）"
    bits_en.append(speed_en)
    bits_zh.append(speed_zh)
    if load.get("total_tokens_per_s"):
        tot = book.num(f"output tokens/s in total at {load['concurrency']} users on {on}", load["total_tokens_per_s"],
                       "tokens/s", SRC_LOAD, 0)
        bits_en.append(f"{tot} in total")
        bits_zh.append(f"合计 {tot}")
    head_en = f"**At {n} concurrent users** on {on}: " + ", ".join(bits_en)
    head_zh = f"**{n} 路并发时**（{on}）：" + "，".join(bits_zh)
    target = (load.get("target") or {}).get("tpot_s")
    limit = load.get("max_concurrency_for_target")
    if target and limit is not None:
        stated = ev.constraints.max_ms_per_token is not None
        ms = book.num("TPOT target", target * 1e3, "ms", SRC_USER if stated else SRC_RECOMMEND, decimals_for(target * 1e3))
        rate = book.num("per-user speed at the TPOT target", 1 / target, "tokens/s", "computed: 1 / TPOT target",
                        decimals_for(round(1 / target, 1)))
        why_en = "your target" if stated else "the default interactivity target"
        why_zh = "您的目标" if stated else "默认交互目标"
        if limit >= 1:
            most = book.count(f"largest concurrency meeting the TPOT target on {on}", limit, "sequences", SRC_LOAD)
            if load.get("limit_bound") == "memory":  # the KV cache holds fewer requests than the latency allows
                tail_en = (f"; at most {most} concurrent users, as many requests as the KV cache holds at once, each "
                           f"within {ms} per token ({rate}, {why_en})")
                tail_zh = f"；最多 {most} 路并发（KV 缓存一次放得下的请求数），每路都在每 token {ms} 以内（每路 {rate}，{why_zh}）"
            else:
                tail_en = f"; at most {most} concurrent users stay within {ms} per token ({rate} each, {why_en})"
                tail_zh = f"；每 token ≤ {ms}（每路 {rate}，{why_zh}）时最多 {most} 路并发"
            more_en, more_zh = replicas_for_load(o, load["concurrency"], limit, book)
            tail_en, tail_zh = tail_en + more_en, tail_zh + more_zh
        else:
            tail_en = f"; not even one user stays within {ms} per token ({rate}, {why_en})"
            tail_zh = f"；即使只有 1 路也达不到每 token ≤ {ms}（每路 {rate}，{why_zh}）"
        return head_zh + tail_zh + "。" if zh else head_en + tail_en + "."
    return head_zh + "。" if zh else head_en + "."


def time_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    zh = lang == "zh"
    tr = top.training
    if not tr or not tr.wall_s:
        return None
    name = opt_name(top, book)
    days = book.num(f"training wall-clock on {top.count}× {top.gpu_name}", tr.wall_s / 86400, "days", SRC_TRAINING,
                    1 if tr.wall_s < 100 * 86400 else 0, suffix="天" if zh else "days")
    hours = book.num(f"GPU-hours on {top.count}× {top.gpu_name}", tr.gpu_hours, "GPU-hours", SRC_TRAINING, 0,
                     suffix="" if zh else "GPU-hours")
    given = bool(ev.workload.train_tokens)
    tokens = train_tokens_text(ev, book, lang)
    what = ("训练 " + tokens if given else f"按默认的 {tokens} 训练数据") if zh else \
        ((" for " + tokens) if given else f" for the default {tokens} of training data")
    return Lead((f"在 {name} 上{what}约需 {days}（GPU 时数 {hours}）。" if zh else
                 f"About {days} on {name}{what} ({hours})."),
                None, f"training wall-clock on {top.count}× {top.gpu_name}")


def train_tokens_text(ev: Any, book: Book, lang: str) -> str:
    """The training tokens a time was computed for: the user's, else the recommender's default
    (advisor.recommend.search.default_train_tokens: 20 per parameter for pre-training, 100 M for fine-tuning)."""
    w = ev.workload
    if w.train_tokens:
        return book.tokens("training tokens", w.train_tokens, SRC_USER, lang)
    return book.tokens("training tokens (default)", default_train_tokens(ev.model, w), SRC_DEFAULT, lang)


def train_tokens_question(ev: Any, book: Book, lang: str) -> str:
    """The data-size question after a training time computed from the default token count: it says the time above
    used the default, not that a time cannot be given."""
    tokens = train_tokens_text(ev, book, lang)
    return (f"训练数据总共多少 token（数据量 × 轮数）？上面的训练时间按默认 {tokens} 估算，告诉我实际数据量即可按它重算。"
            if lang == "zh" else f"How many training tokens (dataset size × epochs)? The training time above assumes "
            f"the default {tokens}; with your figure I recompute it.")


def price_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"What will it cost?": the full purchase (cards and servers) and the TCO over the horizon, as
    `Recommendation.lead_summary` words it; owned cards by their running cost (power and operation) only."""
    zh = lang == "zh"
    name = opt_name(top, book)
    if not top.price and "existing" not in top.labels:  # a price the catalog does not have: said, not replaced

        card = default_catalog().find_gpu(top.gpu)
        why = book.text(card.unpriced, f"why {top.gpu} is unpriced", f"knowledge catalog: {top.gpu}") \
            if card is not None and card.unpriced else ""
        return Lead((f"目录中没有 {top.gpu_name} 的带日期价格，所以 {name} 无法报价" + ("（未找到厂商公布价或带日期的零售报价）。" if why else "。")
                     if zh else f"The catalog has no dated price for the {top.gpu_name}, so {name} cannot be priced"
                     + (f" ({why})." if why else ".")), None, "")
    text = opt_purchase(top, book, lang)
    if "existing" in top.labels:
        deciding = f"TCO of {top.count}× {top.gpu_name}" if top.tco is not None else ""
    elif top.tco is not None and top.tco.purchase.total:
        deciding = f"full purchase of {top.count}× {top.gpu_name} (GPUs and servers)"
    else:
        deciding = f"purchase price of {top.count}× {top.gpu_name} (GPUs only)"
    return Lead(text + ("。" if zh else "."), None, deciding)


def compare_lead(users: list[Any], ev: Any, book: Book, lang: str) -> Lead:
    zh = lang == "zh"
    parts = []
    for o in users[:4]:
        bits = [("放得下" if zh else "fits") if o.fits else ("放不下" if zh else "does not fit")]
        bits.append(opt_layout(o, lang, book))  # engine and format: a card sized on a quantised path says so
        if o.fits:
            bits += misses(o, lang)
            speed = opt_speed(o, book, lang, ev.workload)
            if speed != "—":
                bits.append(speed)
            if o.price:
                bits.append(opt_price(o, book, lang))
        else:
            bits.append(opt_memory(o, book, lang))
        parts.append(f"{opt_name(o, book)}：{'，'.join(bits)}" if zh else f"{opt_name(o, book)}: {', '.join(bits)}")
    return Lead(("；".join(parts) + "。") if zh else ("; ".join(parts) + "."), None, "")


def which_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead:
    """"Which GPUs?": the full purchase of the leading configuration first (cards, servers, 3-year TCO; issue 30),
    then its memory per GPU against the usable memory and its speed."""
    zh = lang == "zh"
    need = book.gib(f"memory per GPU on {top.count}× {top.gpu_name}", top.per_gpu_bytes.get("total", 0))
    usable = book.gib(f"usable memory of {top.gpu_name}", top.usable_bytes,
                      f"catalog: {top.gpu} memory_bytes × engine usable fraction")
    buy = opt_purchase(top, book, lang) if top.price or "existing" in top.labels else opt_name(top, book)
    # under a stated load the simulated speed follows on the next line (load_line): not a second figure here
    speed = "—" if ev.load and top is load_option(ev) else opt_speed(top, book, lang, ev.workload)
    tail = "" if speed == "—" else (f"；{speed}" if zh else f"; {speed}")
    lay = opt_layout(top, lang, book)  # the engine and format it was sized with (a quantised path says so)
    return Lead((f"建议 {buy}。{lay}：每卡 {need}，可用 {usable}{tail}。" if zh else
                 f"{buy}. {lay[:1].upper() + lay[1:]}: {need} per GPU of {usable} usable{tail}."), None,
                f"memory per GPU on {top.count}× {top.gpu_name}")


def need_lead(ev: Any, top: Any, book: Book, lang: str) -> Lead:
    """"How much memory does it need?": the job's total need on one device (unsharded) as the sum of its parts,
    then the configuration that holds it."""
    zh = lang == "zh"
    per = ev.need.per_gpu
    total = book.gib("total memory need (unsharded)", per.total)
    names = {"weights": ("权重", "weights"), "gradients": ("梯度", "gradients"),
             "optimizer_states": ("优化器状态", "optimizer states"), "kv_cache": ("KV 缓存", "KV cache"),
             "activations": ("激活", "activations"), "overhead": ("运行时开销", "runtime overhead")}
    terms = [f"{names[k][0 if zh else 1]} {book.gib(f'{k} (unsharded)', getattr(per, k))}" for k in names
             if getattr(per, k, 0) > 0]
    fmt = format_label(need_format(ev), lang)
    fits = (f"{opt_name(top, book)} 放得下（每卡 {book.gib(f'memory per GPU on {top.count}× {top.gpu_name}', top.per_gpu_bytes.get('total', 0))}）。"
            if zh else f" {opt_name(top, book)} holds it ("
            f"{book.gib(f'memory per GPU on {top.count}× {top.gpu_name}', top.per_gpu_bytes.get('total', 0))} per GPU).") \
        if top is not None and top.fits else ""
    return Lead((f"{ev.model.name}（{fmt}）约需 {total} 显存 = " + " + ".join(terms) + "。" + fits if zh else
                 f"{ev.model.name} at {fmt} needs about {total} of GPU memory = " + " + ".join(terms) + "." + fits),
                None, "total memory need (unsharded)")


def explain_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead:
    """Where the per-GPU memory comes from: total = weights + KV cache + activations + runtime (+ training states)."""
    zh = lang == "zh"
    parts = top.per_gpu_bytes if top is not None else {k: getattr(ev.need.per_gpu, k) for k in
                                                        ("weights", "kv_cache", "activations", "overhead", "total")}
    where = f" on {top.count}× {top.gpu_name}" if top is not None else " (unsharded)"
    total = book.gib(f"total memory per GPU{where}", parts.get("total", 0))
    on = (f"在 {opt_name(top, book)} 上，" if zh else f"On {opt_name(top, book)}, ") if top is not None else ""
    names = {"weights": ("权重", "weights"), "gradients": ("梯度", "gradients"),
             "optimizer_states": ("优化器状态", "optimizer states"), "kv_cache": ("KV 缓存", "KV cache"),
             "activations": ("激活", "activations"), "overhead": ("运行时开销", "runtime overhead")}
    terms = [f"{names[k][0 if zh else 1]} {book.gib(f'{k} per GPU{where}', v)}" for k, v in parts.items()
             if k in names and v > 0]
    return Lead((f"{on}每卡 {total} = " + " + ".join(terms) + "。" if zh else
                 f"{on}{total} per GPU = " + " + ".join(terms) + "."), None, f"total memory per GPU{where}")


def gib_note(book: Book, lang: str, value: float | None) -> str:
    """A "GB or GiB?" question answered: a card's "N GB" is N GiB of memory; files and downloads are GB (10^9)."""
    n = value if value else 24.0
    shown = book.num("card memory as sold", n, "GB", "vendor convention", 0)
    gib = book.num("card memory in GiB", n, "GiB", "vendor convention: memory chips come in powers of two", 0)
    gb = book.num("card memory in GB", n * GIB / 1e9, "GB", "computed: N × 2^30 bytes / 1e9", 1)
    return (f"GB 还是 GiB：显卡标的“{shown}”其实是 {gib}（即 {gb}）显存；模型文件大小按十进制 GB 标。本回答的显存都用 GiB。"
            if lang == "zh" else f"GB or GiB: a card sold as “{shown}” has {gib} ({gb}) of memory; file sizes are in "
            "decimal GB. Memory here is in GiB.")


def compact_table(opts: list[Any], book: Book, lang: str, w: Any) -> str:
    """≤ 3 rows, 4 narrow columns (the chat column is ~460 px wide): configuration, memory per GPU / usable with the
    fit mark, decode speed per user (serving) or training time, GPU price. Labels and rule notes are in the full
    table of the details."""
    if not opts:
        return ""
    zh = lang == "zh"
    speed = ("训练时间" if zh else "training time") if w.is_training else ("每路速度" if zh else "speed per user")
    head = (f"| 配置 | 每卡显存 / 可用 | {speed} | 显卡价格 |" if zh else
            f"| configuration | memory per GPU / usable | {speed} | GPU price |") + "\n|---|---|---|---|"
    rows = []
    for o in opts[:3]:
        mark = "✓" if o.fits else "✗"
        name = opt_name(o, book)
        if "offload" in o.labels:  # the same card again, with llama.cpp layer offload to system RAM
            name += f" + 内存卸载（{format_label(o.layout.weights, lang)}）" if zh else \
                f" + RAM offload ({format_label(o.layout.weights, lang)})"
        rows.append(f"| {name} | {mark} {opt_memory(o, book, lang)} | {_short_speed(o, book, lang)} | "
                    f"{opt_price(o, book, lang)} |")
    return head + "\n" + "\n".join(rows)


def _short_speed(o: Any, book: Book, lang: str) -> str:
    """Decode tokens/s per user, or the training wall-clock in days (the same Numbers as the full table's)."""
    t = o.throughput
    if t and t.decode_tokens_per_s:
        return book.num(f"decode tokens/s per sequence on {o.count}× {o.gpu_name}", t.decode_tokens_per_s, "tokens/s",
                        SRC_THROUGHPUT, 0 if t.decode_tokens_per_s >= 10 else 1)
    tr = o.training
    if tr and tr.wall_s:
        return book.num(f"training wall-clock on {o.count}× {o.gpu_name}", tr.wall_s / 86400, "days", SRC_TRAINING,
                        1 if tr.wall_s < 100 * 86400 else 0, suffix="天" if lang == "zh" else "days")
    return "—"


def assumed_line(ev: Any, book: Book, lang: str) -> str:
    """The defaults this answer rests on, in one line (all assumptions are in the details)."""
    zh = lang == "zh"
    w = ev.workload
    bits = [task_label(w.task, lang)]
    if w.task == "inference":
        n = book.count("concurrency", w.concurrency, "sequences", source_of(ev, "concurrency"))
        bits.append(f"{n} 路并发" if zh else (f"{n} user" + ("s" if w.concurrency != 1 else "")))
    bits.append(book.tokens("context", w.context, source_of(ev, "context"), lang) + (" 上下文" if zh else " context"))
    if w.is_training:  # the data a training time is computed for; the default said as such
        tokens = train_tokens_text(ev, book, lang)
        bits.append((f"训练数据 {tokens}" + ("" if w.train_tokens else "（默认）")) if zh else
                    (f"{tokens} of training data" + ("" if w.train_tokens else " (default)")))
    bits.append(format_label(need_format(ev), lang))
    if w.task != "inference" and getattr(ev.constraints, "mfu", None):  # a stated MFU replaces the calibrated one
        pct = book.num("training MFU you stated", ev.constraints.mfu * 100, "%", "user input", 0, suffix="").strip()
        bits.append(f"MFU {pct}%（按您给的值）" if zh else f"MFU {pct}% (as you stated)")
    region = ev.constraints.region
    bits.append(pick(REGION.get(region, (region, region)), lang))
    return ("_按以下条件计算：" + "，".join(bits) + "。_") if zh else ("_Assumed: " + ", ".join(bits) + "._")
