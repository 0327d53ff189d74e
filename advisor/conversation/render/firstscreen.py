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
from typing import Any

import msgspec

from advisor.analysis.result import SAME_CARD_REACH, asked_option, top_option
from advisor.conversation.dialog.machine import default_weights
from advisor.conversation.render.book import (
    SRC_DEFAULT,
    SRC_MEMORY,
    SRC_RECOMMEND,
    SRC_THROUGHPUT,
    SRC_TRAINING,
    SRC_USER,
    Book,
    decimals_for,
)
from advisor.conversation.render.labels import format_label, task_label
from advisor.conversation.render.options_table import (
    SRC_LOAD,
    market_only_block,
    miss_words,
    misses,
    need_and_usable,
    opt_days,
    opt_layout,
    opt_memory,
    opt_name,
    opt_price,
    opt_speed,
    ruled_beyond_market,
    shortfall,
    user_speed,
)
from advisor.conversation.render.rate_lead import misses_but_rate, rate_as_turns, rate_kept
from advisor.conversation.render.scale_out import offload_sentence, own_card_smaller
from advisor.conversation.render.turns_lead import asks_pace, turns_held, turns_text
from advisor.estimator.limits import CONTEXT_STEP
from advisor.estimator.results import BREAKDOWN_KEYS
from advisor.recommend.search import default_train_tokens
from advisor.workload import speed_workload
from knowledge.catalog import load_catalog
from knowledge.messages import t
from knowledge.quantities import Bytes, Seconds

DETAILS_OPEN = "<details>"
_DETAILS = re.compile(r"<details><summary>(?P<title>.*?)</summary>\n\n(?P<body>.*?)\n\n</details>", re.S)


class Lead(msgspec.Struct):
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
_OOM_VERDICT = {"yes": "no_oom", "no": "oom", "with_changes": "oom_with_changes"}


def _yes_no(verdict: str | None, lang: str, oom: bool = False) -> str:
    """The verdict's first word; `oom`: the question asked whether it runs out of memory, so a fit is "No, it fits"
    and a shortfall "Yes, it will run out of memory"."""
    if verdict not in _OOM_VERDICT:
        return ""
    return t(f"screen.verdict.{_OOM_VERDICT[verdict] if oom else verdict}", lang)


def memory_lead(ev: Any, cap: Any, top: Any, book: Book, lang: str, device: str = "") -> Lead:
    """A bare capacity ("28GB 显存够吗"): the job's memory need on one device against it. A card sold as "N GB"
    has N GiB (N·2^30 bytes); the need includes KV cache, activations and the engine's runtime. `device`: the
    laptop GPU or Mac the capacity belongs to (advisor.conversation.reader.devices), named in the sentence."""
    need = ev.need
    cap_bytes = Bytes.of(cap.value, "GiB")
    fits = bool(need.fits(cap_bytes))
    model = ev.model.name
    fmt = format_label(need_format(ev), lang)
    total = book.gib("total memory need (unsharded)", need.per_gpu.total)
    weights = book.gib("weights (unsharded)", need.per_gpu.weights)
    usable = book.gib(f"usable memory of a {cap.value:g} GiB card", need.usable_bytes(cap_bytes))
    typed = book.num("capacity you named", cap.value, cap.unit, SRC_USER, decimals_for(cap.value))
    verdict = "yes" if fits else "no"
    w = ev.workload  # a training job's need is weights, optimizer states and activations, not a KV cache
    task = task_label(w.task, lang)
    task = " " + task + " " if lang == "zh" and task[:1].isascii() else task  # "做 LoRA 微调", "做全参微调"
    what = (t("screen.memory.what.training", lang, task=task.rstrip() if lang == "zh" else task) if w.is_training
            else t("screen.memory.what.inference", lang))
    yes = _yes_no(verdict, lang, getattr(ev, "asks_oom", False))
    if device and getattr(ev, "asks_speed", False):  # "how fast on my laptop?": no speed can be claimed for it
        yes = t("screen.memory.device.no_speed", lang, device=device) + t("sentence.gap", lang) + yes
    said = {"yes": yes, "model": model, "fmt": fmt, "total": total, "typed": typed,
            "usable": usable, "weights": weights, "what": what, "device": device}
    key = "screen.memory.device." if device else "screen.memory."
    split = getattr(ev, "need_split", None)
    if split is not None and not device:  # "two 24GB cards": each card holds its share of the split model
        n = ev.split_count
        per = book.gib(f"memory need per card over {n} cards (tensor parallel {n})", split.per_gpu.total)
        ok = bool(split.fits(cap_bytes))
        verdict = "yes" if ok else "no"
        said |= {"yes": _yes_no(verdict, lang, getattr(ev, "asks_oom", False)), "n": n, "per": per}
        text = t("screen.memory.split." + ("fits" if ok else "over"), lang, **said)
        if not ok and top is not None and top.fits:
            text += t("screen.other_fits", lang, name=opt_name(top, book), lay=opt_layout(top, lang, book))
        return Lead(text, verdict, f"memory need per card over {n} cards (tensor parallel {n})")
    if fits:
        text = t(key + "fits", lang, **said)
    elif need.per_gpu.total <= cap_bytes:  # below the card's size but above what the engine may fill
        text = t(key + "over_usable", lang, **said)
    else:
        text = t(key + "over_card", lang, **said)
        if top is not None and top.fits:
            text += t("screen.other_fits", lang, name=opt_name(top, book), lay=opt_layout(top, lang, book))
    return Lead(text, verdict, "total memory need (unsharded)")


def unknown_card_lead(ev: Any, cards: list[str], top: Any, book: Book, lang: str) -> Lead:
    """The card asked about is not in the catalog (issue 27): no verdict, since none can be given about it. What the
    job needs on one device, whatever card runs it (the memory estimate, unsharded), and, labelled as such, catalog
    configurations that hold it; the unknown line before this asks for the card's memory and bandwidth."""
    asked = t("list.sep", lang).join(cards)
    need = ev.need
    fmt = format_label(need_format(ev), lang)
    total = book.gib("total memory need (unsharded)", need.per_gpu.total)
    weights = book.gib("weights (unsharded)", need.per_gpu.weights)
    key = "screen.unknown_card.training" if ev.workload.is_training else "screen.unknown_card"  # no KV cache to name
    text = t(key, lang, asked=asked, model=ev.model.name, fmt=fmt, total=total, weights=weights,
             task=task_label(ev.workload.task, lang))
    pool = ([top] if top is not None else []) + sorted(
        (o for o in (list(ev.recommendation.options) if ev.recommendation else []) + list(ev.alternatives)
         if o.fits), key=lambda o: o.count)
    seen: list[Any] = []
    for o in pool:
        if o.fits and all(o.gpu != x.gpu for x in seen) and len(seen) < 3:
            seen.append(o)
    if seen:
        names = t("list.sep", lang).join(opt_name(o, book) for o in seen)
        text += t("screen.unknown_card.reference", lang, asked=asked, names=names)
    return Lead(text, None, "total memory need (unsharded)")


def planned_precision(ev: Any) -> str | None:
    """The precision the planner trains the answered configuration in (its PlannedLayout), None when unplanned."""
    o = asked_option(ev)
    planned = o.layout.planned if o is not None and o.layout is not None else None
    return planned.precision if planned is not None else None


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
    spare = book.gib("spare memory per GPU at the job as asked", abs(fl.spare), src)
    batch = book.count("micro-batch asked", fl.batch, "sequences", src)
    ctx = book.count("sequence length asked", fl.context, "tokens", src)
    longest = book.count("longest sequence that fits at this micro-batch", fl.largest_context, "tokens", src)
    if fl.fits:
        more = book.count("next micro-batch", fl.batch + 1, "sequences", src)
        # the Chinese text books the largest micro-batch as a Number, the English one prints it as is
        nxt = (t("screen.fit.next_does_not", lang, more=more) if fl.largest_batch == fl.batch
               else t("screen.fit.batch_up_to", lang, most=book.count('largest micro-batch that fits',
                                                                      fl.largest_batch, 'sequences', src)
                                                       if zh else fl.largest_batch))
        return t("screen.fit.close", lang, batch=batch, ctx=ctx, spare=spare, nxt=nxt, longest=longest)
    return ""


def option_lead(o: Any, ev: Any, book: Book, lang: str, one_card: bool) -> Lead:
    """One configuration the user named: yes with the need and speed, or no with the shortfall and what would make
    it work (the recommender's changes checked on it, else the best configuration that fits). A speed question
    ("卡不卡？", "fast enough?") about a configuration that cannot hold the job is told first that there is no speed
    to give, because it does not run as asked."""
    zh = lang == "zh"
    name = opt_name(o, book)
    need, usable = need_and_usable(o, book)
    if o.fits:
        # under a stated load the simulated speed follows on the next line (load_line): not a second figure here
        speed = "—" if ev.load and o is load_option(ev) else opt_speed(o, book, lang, ev.workload)
        job = default_job(ev, book, lang) if ev.workload.is_training else ""
        if lang == "zh" and job and job[:1].isascii():
            job = " " + job  # a space between 按 and a Latin word ("按 LoRA 微调"), none before a Chinese one
        tail = ("" if speed == "—" else t("screen.option.time_job", lang, speed=speed, job=job) if job
                else t("screen.option.time" if ev.workload.is_training else "screen.option.speed", lang, speed=speed))
        missing = misses_but_rate(o, ev, lang)
        warn = t("screen.but", lang, missing=t("list.sep", lang).join(missing)) if missing else ""
        slow = _slow_under_load(o, ev, book, lang)
        warn += slow + rate_kept(o, ev, book, lang, after_but=bool(slow))
        lay = opt_layout(o, lang, book)
        limits = fit_limits_text(ev.fit_limits, book, lang) if ev.fit_limits is not None else ""
        # fits, but an engineering rule forbids running it so ("not enough CPU RAM for the offload it relies on"):
        # not a "yes"; a market rule (can it be bought in China) keeps the yes with its "but"
        if ruled_beyond_market(o):
            return Lead(t("screen.option.fits_blocked", lang, name=name, missing=t("list.sep", lang).join(missing),
                          lay=lay, need=need, usable=usable, tail=tail, limits=limits),
                        "yes", f"memory per GPU on {o.count}× {o.gpu_name}")
        fits_key = "screen.option.fits_oom" if getattr(ev, "asks_oom", False) else "screen.option.fits"
        return Lead(t(fits_key, lang, name=name, warn=warn, lay=lay, need=need, usable=usable, tail=tail,
                      limits=limits),
                    "yes", f"memory per GPU on {o.count}× {o.gpu_name}")
    short = shortfall(o, book)
    off = ev.offload
    if ev.offload_asked and off is not None and off.gpu == o.gpu and o.count == 1:
        return offload_lead(off, ev, book, lang, short)
    alone = one_card and o.count == 1
    machine = alone and getattr(load_catalog().find_gpu(o.gpu), "is_machine", False)  # a Mac is no card
    who = t("screen.one_machine" if machine else "screen.one_card", lang) if alone else name
    turns = turns_held(ev, o)
    rate = rate_as_turns(o, ev, turns, book, lang, who) if turns is not None else None
    if rate is not None:  # "can one H100 do 100 rps?": the rate kept or not, as the chat turns the cache holds
        return Lead(*rate)
    if turns is not None and asks_pace(ev):  # a speed asked: their chat turns fit the paged KV cache, whole contexts not
        return Lead(turns_text(o, ev, turns, book, lang, who, int(turns["whole"])), "yes",
                    f"tokens/s per user at {turns['concurrency']} users on {o.count}× {o.gpu_name}")
    changes = list(ev.named_changes or [])
    if not changes and "existing" in o.labels and ev.recommendation is not None:
        # the user's own cards: a lighter method or format on them (a shorter context changes the job: the details)
        changes = [ch for ch in ev.recommendation.changes if ch.for_existing and ch.kind in ("task", "precision")]
    verdict = "with_changes" if changes else "no"
    changed_speed = _changed_speed(ev, book, lang) if changes else ""  # a speed after the change: not "no speed"
    yes = t("lead.speed.no_run", lang) if getattr(ev, "asks_speed", False) and not changed_speed else _yes_no(
        verdict, lang, getattr(ev, "asks_oom", False))  # "will it OOM?": yes, it will (the verdict the other way round)
    head = t("screen.option.short_one_card" if alone else "screen.option.short", lang, yes=yes,
             who=who, short=short, need=need, gpu=o.gpu_name, usable=usable)
    if changes:
        ch = changes[0]
        msg = book.text(ch.message_zh if zh and ch.message_zh else ch.message, f"change ({ch.kind}) for {name}",
                        SRC_RECOMMEND)
        head += t("screen.option.change", lang, msg=msg)
        head = head.rstrip("。.") + t("sentence.end", lang) + changed_speed + _twin_sentence(ev, book, lang)
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
                head += t("screen.buy_as_asked", lang, fmt=fmt, name=opt_name(alt, book))
            return Lead(head, verdict, f"shortfall per GPU on {o.count}× {o.gpu_name}")
        head += shorter_fits(ev, o, book, lang) + _twin_sentence(ev, book, lang)
        if alt is not None:
            head += t("screen.other_fits", lang, name=opt_name(alt, book), lay=opt_layout(alt, lang, book))
    if off is not None and off.gpu == o.gpu and o.count == 1:  # the card itself, slowly: llama.cpp layer offload
        cut = changes[0].context if changes and changes[0].context else None  # at the context asked, beside the cut
        head += offload_sentence(off, book, lang, full_context=ev.workload.context if cut else None)
    return Lead(head, verdict, f"shortfall per GPU on {o.count}× {o.gpu_name}")



def _changed_speed(ev: Any, book: Book, lang: str) -> str:
    """A speed asked of a configuration that holds the job only in another weight format: its speed in that format
    on the configuration named (Analysis.changed_config, evaluated as named) for one user; under a stated load the
    changed configuration's load line says it instead (load_lead.changed_line). "" otherwise."""
    o = getattr(ev, "changed_config", None)
    if o is None or o.sized_workload is None or not getattr(ev, "asks_speed", False):
        return ""
    w = o.sized_workload
    if w.weights == ev.workload.weights or ev.workload.concurrency != 1:
        return ""
    speed = user_speed(o, book)
    if speed is None:
        return ""
    fmt = book.text(format_label(w.weights or "", lang), f"weight format that makes {o.count}× {o.gpu_name} hold the job",
                    SRC_RECOMMEND)
    if w.context < ev.workload.context:  # the 4-bit file at the shorter context it fits at (recommend.changes)
        return t("screen.option.changed_speed_context", lang, fmt=fmt, context=w.context, name=opt_name(o, book),
                 per=speed[0])
    ttft = ttft_text(o, book, lang) if getattr(ev, "asks_ttft", False) else ""  # "prefill time for a 32k prompt?"
    if ttft:
        return t("screen.option.changed_ttft", lang, fmt=fmt, name=opt_name(o, book), ttft=ttft, per=speed[0])
    return t("screen.option.changed_speed", lang, fmt=fmt, name=opt_name(o, book), per=speed[0])


def ttft_text(o: Any, book: Book, lang: str, first: bool = False) -> str:
    """The time to the first token of one request on the option (the prefill roofline of its prompt), in ms below a
    second, else in seconds; `first`: worded to open the sentence."""
    tput = o.throughput
    if tput is None or not tput.ttft:
        return ""
    ul = tput.under_load  # simulated at the asked load: the median the "At N users" sentence gives
    ttft, src = (ul.ttft, SRC_LOAD) if ul is not None and ul.ttft.s > 0 else (tput.ttft, SRC_THROUGHPUT)
    name = (f"median time to first token at {tput.concurrency} users on {o.count}× {o.gpu_name}" if src == SRC_LOAD
            else f"time to first token on {o.count}× {o.gpu_name}")
    value = book.latency(name, ttft, src)
    sized = o.sized_workload
    prompt = speed_workload(sized).prompt_tokens if sized is not None else None  # the prompt the TTFT is for
    lead = ".first" if first else ""
    if not prompt:
        return t("lead.speed.ttft" + lead, lang, ttft=value)
    return t("lead.speed.ttft_prompt" + lead, lang, ttft=value,
             prompt=book.tokens("prompt tokens of the first-token time", prompt, SRC_THROUGHPUT, lang))


def _twin_sentence(ev: Any, book: Book, lang: str) -> str:
    """The same card with more memory that holds the job as asked (analysis.evaluate._bigger_twin: "the 512 GB Mac
    Studio M3 Ultra", "2× A100 80GB"), with its need and usable memory; "" when there is none."""
    twin = getattr(ev, "bigger_twin", None)
    if twin is None:
        return ""
    need, usable = need_and_usable(twin, book)
    if not twin.fits:  # a Mac that holds it only once the GPU share is raised (recommend.changes.raised_share_mb)
        from advisor.recommend.changes import raised_share_mb  # start-up: only that answer needs it

        mb = raised_share_mb(load_catalog().gpu(twin.gpu), twin.per_gpu.total.n)
        if mb is not None:
            return t("screen.twin_raised", lang, name=opt_name(twin, book), need=need, usable=usable, mb=mb)
    speed = user_speed(twin, book) if getattr(ev, "asks_speed", False) else None
    if speed is not None:  # "Qwen3-235B on a Mac Studio M3 Ultra: tokens per second?": the speed on the one that holds it
        return t("screen.twin_fits_speed", lang, name=opt_name(twin, book), need=need, usable=usable, per=speed[0])
    return t("screen.twin_fits", lang, name=opt_name(twin, book), need=need, usable=usable)


def shorter_fits(ev: Any, o: Any, book: Book, lang: str) -> str:
    """A training job just too long for the configuration named ("QLoRA 70B on two 3090s" at 4,096 tokens): the
    longest sequence that fits on it at the micro-batch asked (ev.limits, the bisection of advisor.estimator.limits),
    said before any other configuration, since shorter sequences keep the user's cards. Empty when none fits."""
    lim = ev.limits
    if lim is None or not lim.training or lim.option is not o:
        return ""
    src = f"{SRC_MEMORY} (bisection in steps of {CONTEXT_STEP} tokens)"
    batch = book.count("micro-batch asked", lim.load, "sequences", SRC_USER)
    kept = accumulation_fits(lim, o, book, lang, batch)
    if not lim.max_context:
        return kept
    longest = book.tokens(f"longest context that fits on {o.count}× {o.gpu_name}", lim.max_context, src, lang)
    return kept + t("screen.fit.shorter_or" if kept else "screen.fit.shorter", lang, longest=longest, batch=batch,
                    name=opt_name(o, book))


def accumulation_fits(lim: Any, o: Any, book: Book, lang: str, batch: str) -> str:
    """The sequence length asked kept: the largest micro-batch that fits at it (lim.max_load, bisection) and divides
    the micro-batch asked, with accumulation steps = asked ÷ that, so each optimizer step sees the same sequences.
    Said before a shorter sequence, which changes the job; "" when none fits or the asked batch is already 1."""
    if not 0 < lim.max_load < lim.load:
        return ""
    mb = max(d for d in range(1, lim.max_load + 1) if lim.load % d == 0)
    where = f"on {o.count}× {o.gpu_name} at the asked sequence length"
    return t("screen.fit.accumulate", lang, name=opt_name(o, book),
             ctx=book.count("sequence length asked", lim.context, "tokens", SRC_USER),
             mb=book.count(f"micro-batch that fits {where}", mb, "sequences", f"{SRC_MEMORY} (largest micro-batch)"),
             acc=book.count(f"gradient accumulation steps {where}", lim.load // mb, "steps", "micro-batch asked ÷ micro-batch"),
             batch=batch)


def offload_lead(off: Any, ev: Any, book: Book, lang: str, short: str) -> Lead:
    """"One card plus RAM offload?": yes, slowly — llama.cpp keeps `-ngl` layers on the card and the rest in system
    RAM; decode is bound by the host's memory bandwidth (advisor.estimator.offload, rule sizing-layer-offload-slow)."""
    lay, tput = off.layout.layer_offload, off.throughput
    where = f"on 1× {off.gpu_name} with layer offload"
    ngl = book.count(f"GPU layers (-ngl) {where}", lay.ngl, "layers", SRC_RECOMMEND)
    rest = book.count(f"layers in system RAM {where}", lay.cpu_layers, "layers", SRC_RECOMMEND)
    ram = book.gib(f"system RAM for the offloaded layers {where}", Bytes(lay.system_ram_bytes))
    tps = tput.decode_tokens_per_s
    speed = book.num(f"decode tokens/s {where}", tps, "tokens/s", SRC_THROUGHPUT, 1 if tps < 10 else 0)
    fmt = format_label(off.layout.weights, lang)
    return Lead(t("screen.offload", lang, fmt=fmt, ngl=ngl, gpu=off.gpu_name, rest=rest, ram=ram, speed=speed,
                  short=short),
                "with_changes", f"decode tokens/s {where}")


SERVER_REACH = 16  # two 8-GPU servers: how far more of a named data-centre card is still "that card"


def _best_other(ev: Any, o: Any) -> Any:
    """The configuration to name after a named one that does not work: another card's (ev.alternatives) first, then
    the recommender's; more of the same card only within SAME_CARD_REACH × the named count (256 RTX 4090s for a
    LoRA that 8 do not hold is no answer when another card holds it)."""
    pool = list(ev.alternatives) + (list(ev.recommendation.options) if ev.recommendation else [])
    ok = [x for x in pool if x.fits and x.meets_targets and (x.gpu, x.count) != (o.gpu, o.count)]
    # a data-centre card is bought by the server: up to two 8-GPU servers of it is "the same card", and comes first
    # ("is H100 enough for Llama-3.1-405B?": 16 H100, before another card)
    gpu = load_catalog().find_gpu(o.gpu)
    if gpu is not None and gpu.server_card:
        same = [x for x in ok if x.gpu == o.gpu and x.count <= max(SERVER_REACH, SAME_CARD_REACH * o.count)]
        if same:
            return same[0]
    near = [x for x in ok if x.gpu != o.gpu or x.count <= SAME_CARD_REACH * o.count]
    return next(iter(near or ok), None)


def count_lead(top: Any, ev: Any, book: Book, lang: str, goal: str = "") -> Lead:
    """"How many?": the count of the configuration, its memory and layout; `goal`: the target the count is for."""
    need, usable = need_and_usable(top, book)
    name = opt_name(top, book)
    missing = misses(top, lang)  # a rule's exclusion stays in the first sentence
    warn = t("screen.but", lang, missing=t("list.sep", lang).join(missing)) if missing else ""
    return Lead(t("screen.count", lang, name=name, warn=warn + goal, need=need, usable=usable,
                  lay=opt_layout(top, lang, book), kv=_kv_share(top, ev, book, lang)),
                None, f"GPUs ({top.gpu_name})")


def _kv_share(o: Any, ev: Any, book: Book, lang: str) -> str:
    """Why a serving count is larger than the weights alone need: the KV cache of every concurrent sequence at the
    whole context (memory is sized for full-context sequences), said when it is over a quarter of the need."""
    w, per = ev.workload, o.per_gpu
    if w.is_training or per is None or per.kv_cache.gib <= 0.25 * per.total.gib or w.concurrency < 2:
        return ""
    where = f"on {o.count}× {o.gpu_name}"
    kv = book.gib(f"KV cache per GPU {where}", per.kv_cache)
    users = book.count(f"concurrent sequences {where}", w.concurrency, "sequences", "user input or default")
    ctx = book.count(f"tokens per sequence {where}", w.context, "tokens", "user input or default")
    return t("screen.count.kv", lang, kv=kv, users=users, ctx=ctx)


def load_option(ev: Any) -> Any:
    """The option `Analysis.load` was simulated for (advisor.analysis.evaluate: the leading option, else the first
    of the user's own that fits)."""
    if getattr(ev, "budget_users", None):  # the copies a budget buys: the load is that configuration's
        return ev.budget_users["option"]
    return top_option(ev) or next((o for o in ev.user_options if o.fits), None)


def time_lead(top: Any, ev: Any, book: Book, lang: str, *, rent: bool = True) -> Lead | None:
    """"How long?" of a training job: its wall-clock and GPU-hours on `top`, with what a rule says against it and the
    makers' published total; with `rent`, the job rented by the GPU-hour when its cost was asked too."""
    tr = top.training
    if not tr or not tr.wall:
        return None
    name = opt_name(top, book)
    days = opt_days(top, book, lang)
    hours = book.num(f"GPU-hours on {top.count}× {top.gpu_name}", tr.gpu_hours, "GPU-hours", SRC_TRAINING, 1 if tr.gpu_hours < 10 else 0,
                     suffix=t("screen.gpu_hours_unit", lang))
    given = bool(ev.workload.train_tokens)
    tokens = train_tokens_text(ev, book, lang)
    published = published_tokens(ev)  # "pre-train DeepSeek-V3": the tokens its makers published
    bound = given and not published and "train_tokens" not in (getattr(ev, "stated", None) or ())  # a sample count
    key = ("screen.time.published_tokens" if published else "screen.time.tokens_bound" if bound
           else "screen.time.tokens" if given else "screen.time.default_tokens")
    what = t(key, lang, tokens=tokens, name=ev.model.name)
    if "task" not in (getattr(ev, "stated", None) or ()):  # the method was not said: the default one, named
        what += t("screen.time.default_task", lang, task=task_label(ev.workload.task, lang))
    if lang == "zh" and what[-1:].isascii():
        what += " "  # "训练 10 亿 tokens 约需", not "tokens约需"
    text = t("screen.time", lang, name=name, what=what, days=days, hours=hours)
    # a time asked on cards named ("千卡 H800 预训练要多久", "一张 4090 … 要多久"): the cards the person runs it on, so a
    # market rule about buying them is a note, not a ruling (misses(running=True)); a host-RAM rule still rules out
    ruled = [m for m in misses(top, lang, running=True) if m != miss_words("deadline", lang)]
    if ruled:  # a time on a configuration a rule rules out (host RAM for its offload): said, with what runs instead
        text = text.rstrip("。.") + t("screen.but", lang, missing=t("list.sep", lang).join(ruled)) + t("sentence.end", lang)
        alt = None if market_only_block(top) else _best_other(ev, top)  # a market note: their cards run it
        if alt is not None and alt.training is not None and alt.training.wall:
            text += t("screen.time.instead", lang, name=opt_name(alt, book), days=opt_days(alt, book, lang),
                      lay=opt_layout(alt, lang, book))
    text += published_run(top, ev, book, lang)  # the makers' own total for those tokens, where published
    if rent and getattr(ev, "asks_cost", False):  # "how long and how much?": the job's GPU-hours rented, after its time
        text += _job_rent(top, book, lang)
    return Lead(text, None, f"training wall-clock on {top.count}× {top.gpu_name}")



def published_run(top: Any, ev: Any, book: Book, lang: str) -> str:
    """The GPU-hours the model's makers published for the pre-training an estimate was made for
    (ModelSpec.pretrain_gpu_hours, cited): a reference to read the estimate against, with the difference where it
    ran on the same card. "" unless the task is pre-training on exactly the published token count."""
    m, w = ev.model, ev.workload
    published = m.pretrain_gpu_hours
    tr = top.training
    if w.task != "pretrain" or not published or not tr or not m.pretrain_tokens or w.train_tokens != m.pretrain_tokens:
        return ""
    gpu = load_catalog().find_gpu(m.pretrain_gpu or "")
    gpu_name = gpu.name if gpu is not None else str(m.pretrain_gpu)
    src = f"catalog: {m.name}'s published pre-training GPU-hours ({', '.join(m.cite.get('pretrain_gpu_hours', []))})"
    hours = book.num(f"published pre-training GPU-hours of {m.name}", published, "GPU-hours", src,
                     suffix=t("screen.gpu_hours_unit", lang))
    cmp = ""
    if top.gpu == m.pretrain_gpu:
        diff = tr.gpu_hours / published - 1
        pct = book.num(f"estimate against {m.name}'s published GPU-hours", abs(diff) * 100, "%",
                       "this estimate ÷ the published GPU-hours − 1")
        key = "below_far" if diff < -0.25 else "below" if diff < 0 else "above"
        cmp = t(f"screen.time.published_run.{key}", lang, pct=pct)
    return t("screen.time.published_run", lang, name=m.name, hours=hours, gpu=gpu_name, cmp=cmp)


def time_against(o: Any, base: Any, book: Book, lang: str) -> str:
    """Another named configuration's training time against `base`'s: its days, the speed ratio and its GPU price."""
    days = opt_days(o, book, lang)
    ratio = book.num(f"training speed {o.count}× {o.gpu_name} / {base.count}× {base.gpu_name}",
                     base.training.wall.ratio(o.training.wall), "ratio", "ratio of the two wall-clock times", 1, suffix="")
    return t("screen.time.other", lang, name=opt_name(o, book), days=days, r=ratio, price=opt_price(o, book, lang))


def default_job(ev: Any, book: Book, lang: str) -> str:
    """A training time rests on the method and the amount of data: the ones the person did not state, each marked
    default, for the first sentence ("LoRA fine-tuning (default), 100 M tokens of training data (default)"); empty
    when both were stated."""
    stated = getattr(ev, "stated", None) or ()
    parts = []
    if "task" not in stated:
        parts.append(t("changes.default", lang, value=task_label(ev.workload.task, lang)))
    if published_tokens(ev):
        parts.append(t("screen.assumed.train_tokens_published", lang, tokens=train_tokens_text(ev, book, lang),
                       name=ev.model.name))
    elif "train_tokens" not in stated:
        parts.append(t("screen.assumed.train_tokens_default", lang, tokens=train_tokens_text(ev, book, lang)))
    return t("list.comma", lang).join(parts)


def published_tokens(ev: Any) -> bool:
    """Whether a pre-training time is for the tokens the named model's makers published (ModelSpec.pretrain_tokens,
    dialog.machine.build_workload's default for "pre-train DeepSeek-V3"), not for tokens the person said."""
    w = ev.workload
    return (w.task == "pretrain" and bool(w.train_tokens) and "train_tokens" not in (getattr(ev, "stated", None) or ())
            and ev.model.pretrain_tokens == w.train_tokens)


def train_tokens_text(ev: Any, book: Book, lang: str) -> str:
    """The training tokens a time was computed for: the user's, else the recommender's default
    (advisor.recommend.search.default_train_tokens: 20 per parameter for pre-training, 100 M for fine-tuning)."""
    w = ev.workload
    if w.train_tokens:
        src = f"catalog: {ev.model.name}'s published pre-training tokens" if published_tokens(ev) else SRC_USER
        return book.tokens("training tokens", w.train_tokens, src, lang)
    return book.tokens("training tokens (default)", default_train_tokens(ev.model, w), SRC_DEFAULT, lang)


def train_tokens_question(ev: Any, book: Book, lang: str) -> str:
    """The data-size question after a training time computed from the default token count: it says the time above
    used the default, not that a time cannot be given."""
    tokens = train_tokens_text(ev, book, lang)
    return t("screen.train_tokens_question", lang, tokens=tokens)


def compare_lead(users: list[Any], ev: Any, book: Book, lang: str) -> Lead:
    parts = []
    for o in users[:4]:
        bits = [t("screen.fits" if o.fits else "screen.does_not_fit", lang)]
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
        parts.append(t("screen.compare.item", lang, name=opt_name(o, book), bits=t("list.comma", lang).join(bits)))
    # "Is an A6000 worth it over a 4090?" when neither holds the job: that first, before the item-by-item figures
    # (when only one does, the dialog's verdict says so: dialog.compare.cards_verdict)
    head = "" if any(o.fits for o in users[:4]) else t("screen.compare.neither", lang)
    text = head + t("clause.sep", lang).join(parts) + t("sentence.end", lang)
    if not head:
        return Lead(text, None, "")
    # none holds it: how many of each named card would (the search's smallest fitting count of each)
    found = list(ev.recommendation.options) if getattr(ev, "recommendation", None) is not None else []
    holds = [t("screen.compare.holds_item", lang, name=opt_name(x, book), lay=opt_layout(x, lang, book))
             for o in users[:4]
             for x in [next((x for x in found if x.gpu == o.gpu and x.fits and x.count > o.count), None)] if x is not None]
    at4 = _compared_at_4bit(ev, book, lang)
    if at4:  # "2× 3090 or one 4090 for 32B?": as people run it, at 4 bits, before more of each card
        return Lead(text + t("sentence.gap", lang) + at4, None, "")
    if holds:
        text += t("sentence.gap", lang) + t("screen.compare.holds", lang, items=t("list.sep", lang).join(holds))
    return Lead(text, None, "")


def _compared_at_4bit(ev: Any, book: Book, lang: str) -> str:
    """The configurations compared at 4 bits (Analysis.compared_4bit), each fitting or not with its per-user speed,
    the faster of those that fit first: "At 4 bits (GGUF Q4_K_M): 2× RTX 3090 is faster …"; "" without them."""
    opts = list(getattr(ev, "compared_4bit", None) or [])
    if not opts:
        return ""
    fmt = format_label(opts[0].layout.weights, lang)
    fit = sorted((o for o in opts if o.fits and o.throughput is not None),
                 key=lambda o: -o.throughput.decode_tokens_per_s)
    items = []
    for o in fit + [o for o in opts if o not in fit]:
        if o.fits:
            need, usable = need_and_usable(o, book)
            speed = opt_speed(o, book, lang, ev.workload)
            items.append(t("screen.compare.at_4bit.fits", lang, name=opt_name(o, book), need=need, usable=usable,
                           speed=speed))
        else:
            items.append(t("screen.compare.at_4bit.short", lang, name=opt_name(o, book), mem=opt_memory(o, book, lang)))
    key = "screen.compare.at_4bit.faster" if len(fit) >= 2 else "screen.compare.at_4bit"
    return t(key, lang, fmt=fmt, a=opt_name(fit[0], book) if fit else "", items=t("clause.sep", lang).join(items))


def need_lead(ev: Any, top: Any, book: Book, lang: str) -> Lead:
    """"How much memory does it need?": the job's total need on one device (unsharded) as the sum of its parts,
    then the configuration that holds it."""
    per = ev.need.per_gpu
    total = book.gib("total memory need (unsharded)", per.total)
    terms = [f"{t(f'part.{k}', lang)} {book.gib(f'{k} (unsharded)', getattr(per, k))}" for k in _PARTS
             if getattr(per, k).n > 0]
    fmt = format_label(need_format(ev), lang)
    fits = ""
    if top is not None and top.fits:  # with the offload or ZeRO sharding that brings it under the card, named
        per_gpu = book.gib(f"memory per GPU on {top.count}× {top.gpu_name}", top.per_gpu.total)
        split = top.layout.offload != "none" or top.layout.zero > 0
        fits = t("screen.need.holds_with" if split else "screen.need.holds", lang, name=opt_name(top, book),
                 per_gpu=per_gpu, lay=opt_layout(top, lang, book))
    return Lead(t("screen.need", lang, model=ev.model.name, fmt=fmt, total=total, terms=" + ".join(terms)) + fits,
                None, "total memory need (unsharded)")


_PARTS = ("weights", "gradients", "optimizer_states", "kv_cache", "activations", "overhead", "reference_model")  # the sum's order


def explain_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead:
    """Where the per-GPU memory comes from: total = weights + KV cache + activations + runtime (+ training states)."""
    per = top.per_gpu if top is not None else ev.need.per_gpu
    keys = BREAKDOWN_KEYS if top is not None else ("weights", "kv_cache", "activations", "overhead")
    where = f" on {top.count}× {top.gpu_name}" if top is not None else " (unsharded)"
    total = book.gib(f"total memory per GPU{where}", per.total)
    on = t("screen.explain.on", lang, name=opt_name(top, book)) if top is not None else ""
    terms = [f"{t(f'part.{k}', lang)} {book.gib(f'{k} per GPU{where}', getattr(per, k))}" for k in keys
             if getattr(per, k).n > 0]
    return Lead(t("screen.explain", lang, on=on, total=total, terms=" + ".join(terms)), None,
                f"total memory per GPU{where}")


def gib_note(book: Book, lang: str, value: float | None) -> str:
    """A "GB or GiB?" question answered: a card's "N GB" is N GiB of memory; files and downloads are GB (10^9)."""
    n = value if value else 24.0
    shown = book.num("card memory as sold", n, "GB", "vendor convention", 0)
    gib = book.num("card memory in GiB", n, "GiB", "vendor convention: memory chips come in powers of two", 0)
    gb = book.num("card memory in GB", Bytes.of(n, "GiB").gb, "GB", "computed: N × 2^30 bytes / 1e9", 1)
    return t("screen.gib_note", lang, shown=shown, gib=gib, gb=gb)


def compact_table(opts: list[Any], book: Book, lang: str, w: Any) -> str:
    """≤ 3 rows, 4 narrow columns (the chat column is ~460 px wide): configuration, memory per GPU / usable with the
    fit mark, decode speed per user (serving) or training time, GPU price. Labels and rule notes are in the full
    table of the details."""
    if not opts:
        return ""
    speed = t("screen.table.training_time" if w.is_training else "screen.table.speed_per_user", lang)
    head = t("screen.table.head", lang, speed=speed) + "\n|---|---|---|---|"
    rows = []
    for o in opts[:3]:
        # ⛔: it fits in memory but a market or engineering rule rules it out (the lead says which); never a bare ✓
        ruled_out = any(f.severity == "block" and f.rule_id != "sizing-does-not-fit" for f in o.findings)
        mark = "✗" if not o.fits else "⛔" if ruled_out else "✓"
        name = opt_name(o, book)
        if "offload" in o.labels:  # the same card again, with llama.cpp layer offload to system RAM
            name += t("screen.table.offload", lang, fmt=format_label(o.layout.weights, lang))
        rows.append(f"| {name} | {mark} {opt_memory(o, book, lang)} | {_short_speed(o, book, lang)} | "
                    f"{opt_price(o, book, lang)} |")
    return head + "\n" + "\n".join(rows)


def _short_speed(o: Any, book: Book, lang: str) -> str:
    """Tokens/s per user (options_table.user_speed), or the training wall-clock in days (the same Numbers as the full table's)."""
    speed = user_speed(o, book)
    if speed is not None:
        return speed[0]
    tr = o.training
    if tr and tr.wall:
        return opt_days(o, book, lang)
    return "—"


def _slow_under_load(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"Is 8× L40S enough for 50 users?": it holds them, but the yes says at once when the load it is asked for runs
    slower per user than the per-token target (stated, else the default interactivity one), from the simulation the
    load line gives; "" otherwise."""
    load = getattr(ev, "load", None) or {}
    target = (load.get("target") or {}).get("tpot_s")
    users = int(load.get("concurrency") or 0)
    if users < 2 or not target or o is not load_option(ev) or float(load.get("tpot_s") or 0) <= target:
        return ""
    where = f"at {users} users on {o.count}× {o.gpu_name}"
    speed = float(load["per_user_tokens_per_s"])
    whole = speed >= 10 and round(speed) < round(1 / target, 1)  # "24.6" below "25", never "25 … below 25"
    per = book.num(f"tokens/s per user {where}", speed, "tokens/s", SRC_LOAD, 0 if whole else 1)
    rate = book.target_rate(target)
    stated = ev.constraints.max_ms_per_token is not None
    why = t("screen.load.your_target" if stated else "screen.load.default_target", lang)
    return t("screen.option.slow_load", lang, users=users, per=per, rate=rate, why=why)


def target_ms(book: Book, name: str, seconds: float, source: str) -> str:
    """A latency target (held in seconds in the analysis' load figures) in ms, with as many decimals as it has."""
    d = Seconds(seconds)
    return book.duration(name, d, "ms", source, decimals_for(d.ms))


def _job_rent(o: Any, book: Book, lang: str) -> str:
    """A training job's cost rented by the GPU-hour (its TCO's training-job basis: GPU-hours × the cheapest dated quote,
    or the rate the person stated), with the rate and its date; "" without a quote."""
    cloud = o.tco.cloud if o.tco is not None and o.tco.basis == "training_job" else None
    if cloud is None or not cloud.gpu_hours or cloud.cost.amount <= 0:
        return ""
    on = f"{o.count}× {o.gpu_name}"
    cost = book.money(f"rental of the training job on {on}", cloud.cost.amount, cloud.cost.currency,
                      "advisor.estimator.cost.estimate_tco (GPU-hours × price per GPU-hour)")
    unit = book.money(f"price per GPU-hour of {o.gpu_name}", cloud.cost.amount / cloud.gpu_hours, cloud.cost.currency,
                      "catalog cloud quote" if cloud.stated_rate is None else SRC_USER)
    if cloud.stated_rate is not None or not cloud.provider:
        return t("sentence.gap", lang) + t("screen.time.rent_yours", lang, cost=cost, unit=unit)
    return t("sentence.gap", lang) + t("screen.time.rent", lang, cost=cost, unit=unit, provider=cloud.provider,
                                       date=cloud.as_of or "")
