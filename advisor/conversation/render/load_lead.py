"""The answer under a load: "how many users at 30 ms per token?" (users_lead) and the line with the first token,
per-user speed and the users limit at the load asked (load_line; advisor.estimator.serving_ladder figures)."""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.book import (
    SRC_MEMORY,
    SRC_RECOMMEND,
    SRC_THROUGHPUT,
    SRC_TRAINING,
    SRC_USER,
    Book,
    source_of,
)
from advisor.conversation.render.firstscreen import Lead, target_ms
from advisor.conversation.render.labels import format_label
from advisor.conversation.render.load_runs import load_change_lead, load_ladder_lead
from advisor.conversation.render.options_table import (
    SRC_LOAD,
    opt_layout,
    opt_name,
    user_speed,
)
from advisor.conversation.render.scale_out import at_target_clause, replicas_for_load
from advisor.conversation.render.turns_lead import engine_label
from advisor.estimator.calibration import load_calibration
from advisor.estimator.cost import HOURS_PER_MONTH
from advisor.estimator.throughput import time_to_first_token
from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN
from advisor.workload import CHAT_OUTPUT_TOKENS, speed_workload, spread_for_tail
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.messages import t
from knowledge.quantities import Seconds
from knowledge.structs import replace


def budget_users_lead(ev: Any, book: Book, lang: str) -> Lead | None:
    """"With a ¥2M budget, how many users at most?": the copies of one configuration the budget buys and the users
    they serve within the per-token target (advisor.analysis.load_answers.budget_users); None without them."""
    got = getattr(ev, "budget_users", None)
    if not got:
        return None
    o, copies, per = got["option"], int(got["copies"]), int(got["per_copy"])
    on = f"{o.count}× {o.gpu_name}"
    c = ev.constraints
    budget = book.money("budget", c.budget or c.monthly_rent_budget, c.currency, SRC_USER)
    users = book.count(f"users served by {copies} copies of {on} within the target", copies * per, "sequences",
                       f"computed: {copies} copies × {per} users each")
    k = book.count(f"copies of {on} within the budget", copies, "copies", "computed: ⌊budget ÷ full purchase of one copy⌋")
    cards = book.count(f"GPUs in {copies} copies of {on}", copies * o.count, "GPUs", f"computed: {copies} × {o.count}")
    spent = book.money(f"full purchase of {copies} copies of {on}", float(got["spent"]), c.currency,
                       f"computed: {copies} × full purchase of one copy")
    each = book.count(f"largest concurrency meeting the target on {on}", per, "sequences", SRC_LOAD)
    target = ((ev.load or {}).get("target") or {}).get("tpot_s") or INTERACTIVE_MS_PER_TOKEN / 1000
    stated = c.max_ms_per_token is not None
    ms = target_ms(book, "TPOT target", target, SRC_USER if stated else SRC_RECOMMEND)
    why = t("screen.load.your_target" if stated else "screen.load.default_target", lang)
    fields = {"budget": budget, "users": users, "k": k, "name": opt_name(o, book), "lay": opt_layout(o, lang, book),
              "cards": cards, "gpu": o.gpu_name, "spent": spent, "each": each, "ms": ms, "why": why}
    if got.get("monthly"):  # "$40k a month": the cards it rents around the clock, and the copies they make
        rate = float(got["rate"])
        quoted = got.get("provider") and got.get("as_of")
        fields.update(
            whose=t("screen.rent_budget.quote", lang, provider=got["provider"], date=got["as_of"]) if quoted
            else t("screen.rent_budget.yours", lang),
            rate=book.money(f"rent per GPU-hour of {o.gpu_name}", rate, c.currency,
                            "stated rent per GPU-hour" if c.rent is not None else "catalog cloud quote (OptionTco.cloud)"),
            rentable=book.count(f"{o.gpu_name} rented around the clock within the month's budget", int(got["rentable"]),
                                "GPUs", "computed: ⌊budget a month ÷ (price per GPU-hour × 730 h)⌋"),
            spent=book.money(f"rent a month of {copies} copies of {on}", float(got["spent"]), c.currency,
                             f"computed: {copies} × {o.count} GPUs × price per GPU-hour × 730 h"))
        if c.rent_budget_hourly:  # "$2/hr max": the same month said per hour (÷ 730 h)
            fields.update(budget=book.money("budget an hour", float(c.monthly_rent_budget) / HOURS_PER_MONTH, c.currency,
                                            SRC_USER),
                          spent=book.money(f"rent an hour of {copies} copies of {on}",
                                           float(got["spent"]) / HOURS_PER_MONTH, c.currency,
                                           f"computed: {copies} × {o.count} GPUs × price per GPU-hour"))
            return Lead(t("screen.rent_hour_users", lang, **fields), None, f"users served by copies of {on} rented")
        return Lead(t("screen.rent_budget_users", lang, **fields), None, f"users served by copies of {on} rented a month")
    return Lead(t("screen.budget_users", lang, **fields), None, f"users served by copies of {on} within the budget")


def rent_within_sentence(o: Any, ev: Any, book: Book, lang: str) -> str:
    """A rental budget ("under $3 an hour", "$40k a month") with the load stated: what the configuration answered
    rents for, against the budget (prices.hourly_rent: the stated or the catalog's rate); "" without one."""
    c = ev.constraints
    if not c.monthly_rent_budget or o is None or getattr(ev, "budget_users", None):
        return ""
    from advisor.recommend.prices import hourly_rent  # start-up: only a rental budget prices the answer's rent

    rate = hourly_rent(o)
    if rate is None:
        return ""
    if o.training is not None and o.training.gpu_hours:  # a training run rents its own GPU-hours once
        gh = float(o.training.gpu_hours)
        return t("screen.rent_within.run", lang, n=o.count, gpu=o.gpu_name,
                 gh=book.num(f"GPU-hours of the run on {o.count}× {o.gpu_name}", gh, "GPU-hours", SRC_TRAINING, 0,
                             suffix=t("rent.gpu_hours", lang)),
                 each=book.money(f"rent per GPU-hour of {o.gpu_name}", rate, c.currency, "OptionTco.cloud"),
                 cost=book.money(f"rent of the run on {o.count}× {o.gpu_name}", gh * rate, c.currency,
                                 "computed: GPU-hours × price per GPU-hour"),
                 budget=book.money("rental budget a month", float(c.monthly_rent_budget), c.currency, SRC_USER))
    hourly = c.rent_budget_hourly
    period = 1.0 if hourly else HOURS_PER_MONTH
    cost = book.money(f"rent of {o.count}× {o.gpu_name} " + ("an hour" if hourly else "a month"),
                      o.count * rate * period, c.currency, "computed: GPUs × price per GPU-hour" + ("" if hourly else " × 730 h"))
    budget = book.money("rental budget", float(c.monthly_rent_budget) / (HOURS_PER_MONTH if hourly else 1.0),
                        c.currency, SRC_USER)
    each = book.money(f"rent per GPU-hour of {o.gpu_name}", rate, c.currency, "OptionTco.cloud (stated or catalog quote)")
    key = "screen.rent_within.hour" if hourly else "screen.rent_within.month"
    within = o.count * rate * HOURS_PER_MONTH <= float(c.monthly_rent_budget) * (1 + 1e-9)
    per = t("screen.rent_within.per_hour" if hourly else "screen.rent_within.per_month", lang, budget=budget)
    return t(key, lang, n=o.count, gpu=o.gpu_name, each=each, cost=cost,
             fit=t("screen.rent_within.ok" if within else "screen.rent_within.over", lang, budget=per))


def rent_cap_sentence(ev: Any, book: Book, lang: str) -> str:
    """A training job's budget a month: the cards it rents around the clock and the whole servers the plan keeps
    within (advisor.analysis.rent_budget); "" without one."""
    got = getattr(ev, "rent_cap", None)
    if not got:
        return ""
    c, gpu = ev.constraints, got["gpu_name"]
    budget = book.money("budget", c.monthly_rent_budget, c.currency, SRC_USER)
    if got.get("no_quote"):
        return t("screen.rent_budget_no_quote", lang, budget=budget, gpu=gpu)
    quoted = got.get("provider") and got.get("as_of")
    return t("screen.rent_budget_cap", lang, budget=budget,
             rentable=book.count(f"{gpu} rented around the clock within the month's budget", int(got["rented"]), "GPUs",
                                 "computed: ⌊budget a month ÷ (price per GPU-hour × 730 h)⌋"),
             gpu=gpu,
             rate=book.money(f"rent per GPU-hour of {gpu}", float(got["rate"]), c.currency,
                             "catalog cloud quote" if quoted else "stated rent per GPU-hour"),
             whose=t("screen.rent_budget.quote", lang, provider=got["provider"], date=got["as_of"]) if quoted
             else t("screen.rent_budget.yours", lang),
             within=book.count(f"{gpu} the plan may use within the month's budget", int(got["within"]), "GPUs",
                               "computed: whole 8-GPU servers within the cards rented"))


def users_lead(o: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"How many users can it serve?": the most concurrent sequences of the asked context that fit on `o` (the
    configuration's limits when the user named it, else its full-load capacity), with the decode speed there."""
    load = ev.load
    target = (load or {}).get("target") or {}
    if load is not None and target and load.get("max_concurrency_for_target") is not None:
        # a stated latency target ("how many users at 30 ms per token?"): the most users meeting it, first
        on = f"{o.count}× {o.gpu_name}"
        limit = int(load["max_concurrency_for_target"])
        most = book.count(f"largest concurrency meeting the target on {on}", limit, "sequences", SRC_LOAD)
        stated = ev.constraints.max_ms_per_token is not None
        bits = []
        if target.get("tpot_s"):
            ms = target_ms(book, "TPOT target", target["tpot_s"], SRC_USER if stated else SRC_RECOMMEND)
            bits.append(t("screen.users.tpot", lang, ms=ms))
        if target.get("ttft_s"):
            bits.append(t("screen.users.ttft", lang, ms=target_ms(book, "TTFT target", target["ttft_s"], SRC_USER)))
        memory = load.get("limit_bound") == "memory"
        note = "" if stated or target.get("ttft_s") else t("screen.users.default", lang)
        if limit == 0:  # "serves at most 0" says nothing: what the memory holds and its speed lead instead
            led = _none_meets(o, ev, book, lang, t("list.and", lang).join(bits), default=not (stated or target.get("ttft_s")))
            if led is not None:
                return led
        text = t("screen.users.target_memory" if memory else "screen.users.target", lang, name=opt_name(o, book),
                 most=most, target=t("list.and", lang).join(bits), note=note)
        text += turns_users_sentence(o, ev, book, lang) if memory else ""  # as chat turns on a paged KV cache
        held, _ = _memory_load(o, ev)
        if not memory and not stated and held > limit:  # no target said: what the memory holds, slower, beside it
            text += t("sentence.gap", lang) + t("screen.users.memory_more", lang, n=book.count(
                f"most concurrent sequences on {on}", held, "sequences", SRC_MEMORY), ctx=book.tokens(
                "context", ev.workload.context, source_of(ev, "context"), lang))
        return Lead(text, None, f"largest concurrency meeting the target on {on}")
    n, speed = _memory_load(o, ev)
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
        tail = t("screen.users.at_that_load", lang, tot=tot, per=per)
    return Lead(t("screen.users", lang, name=name, most=most, ctx=ctx, tail=tail), None,
                f"most concurrent sequences on {o.count}× {o.gpu_name}")


def turns_users_sentence(o: Any, ev: Any, book: Book, lang: str) -> str:
    """After "serves at most 8 concurrent users: the memory holds no more at once" (whole default contexts): the
    chat turns the engine's paged KV cache holds and the most of them within the per-token target
    (Analysis.turns_users); "" without them."""
    tu = getattr(ev, "turns_users", None)
    if not tu or tu.get("gpu") != o.gpu or tu.get("count") != o.count or not (tu.get("target") or {}).get("tpot_s"):
        return ""
    on = f"{o.count}× {o.gpu_name}"
    stated = ev.constraints.max_ms_per_token is not None
    ms = target_ms(book, "TPOT target", tu["target"]["tpot_s"], SRC_USER if stated else SRC_RECOMMEND)
    book.add("tokens of one chat turn (prompt + output)", tu["turn_tokens"], "tokens", SRC_RECOMMEND)
    held = book.count(f"chat turns the KV cache holds at once on {on}", tu["held"], "sequences", SRC_LOAD)
    most = book.count(f"chat turns within the TPOT target on {on}", tu["limit"], "sequences", SRC_LOAD)
    key = "turns.users_slots" if tu["held"] >= tu.get("slots", tu["held"] + 1) else "turns.users"  # the engine's cap
    return t("sentence.gap", lang) + t(key, lang, turn=f"{int(tu['turn_tokens'])} tokens",
                                       engine=engine_label(tu), held=held, most=most,
                                       ms=ms, ctx=ev.workload.context)


def _none_meets(o: Any, ev: Any, book: Book, lang: str, target: str, default: bool) -> Lead | None:
    """No concurrency meets the per-token target: the most requests of the asked context the memory holds and the
    decode speed each gets there (the limits or capacity figures, `_memory_load`), against the default target
    (1000 / INTERACTIVE_MS_PER_TOKEN tokens/s) or the one stated, and the speed at one user when the option was sized
    for one. None when the memory figures were not made."""
    n, speed = _memory_load(o, ev)
    load = ev.load or {}
    if load.get("concurrency") == n and load.get("per_user_tokens_per_s"):  # simulated there: the load line's figure
        per_v, src, what = float(load["per_user_tokens_per_s"]), SRC_LOAD, f"tokens/s per user at {n} users"
    elif n and speed and speed.get("per_seq"):
        per_v, src, what = float(speed["per_seq"]), SRC_THROUGHPUT, f"decode tokens/s per sequence at {n} sequences"
    else:
        return None
    on = f"{o.count}× {o.gpu_name}"
    held = book.count(f"most concurrent sequences on {on}", n, "sequences", SRC_MEMORY)
    ctx = book.tokens("context", ev.workload.context, source_of(ev, "context"), lang)
    per = book.num(f"{what} on {on}", per_v, "tokens/s", src, 1 if per_v < 10 else 0)
    one = ""
    tput = o.throughput
    if tput is not None and tput.concurrency == 1 and n > 1 and (single := user_speed(o, book)) is not None:
        one = t("screen.users.one", lang, per=single[0])  # the option as sized: one user's speed
    if default:
        rate = book.num("per-user speed at the default TPOT target", 1000 / INTERACTIVE_MS_PER_TOKEN, "tokens/s",
                        "computed: 1000 / INTERACTIVE_MS_PER_TOKEN", 0)
        text = t("screen.users.none_default", lang, name=opt_name(o, book), n=held, ctx=ctx, per=per, rate=rate,
                 ms=target, one=one)
    else:
        text = t("screen.users.none_stated", lang, name=opt_name(o, book), n=held, ctx=ctx, per=per, target=target,
                 one=one)
    return Lead(text, None, f"largest concurrency meeting the target on {on}")  # the load line follows


def _memory_load(o: Any, ev: Any) -> tuple[int, dict[str, Any]]:
    """(the most concurrent sequences of the asked context `o` holds, the decode speed there): its limits when the
    user named it, else its capacity row; (0, {}) when neither was made."""
    lim = ev.limits if ev.limits is not None and (ev.limits.option.gpu, ev.limits.option.count) == (o.gpu, o.count) \
        else None
    cap = (ev.capacity or {}).get((o.gpu, o.count)) or {}
    n = (lim.max_load if lim is not None and not lim.training else 0) or cap.get("max_concurrency") or 0
    return int(n), (lim.at_max if lim is not None and lim.at_max else None) or cap


def rps_lead(o: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"How many requests per second can it handle?": the closed-loop rate (Little's law, X = C / R) at the most
    concurrent requests meeting the per-token target (advisor.analysis.load_answers.requests_per_s), with that load,
    the target and the request lengths it holds for; None without a simulated rate."""
    load = ev.load
    if not load or not load.get("requests_per_s") or o is None:
        return None
    on = f"{o.count}× {o.gpu_name}"
    rps = float(load["requests_per_s"])
    rate = book.num(f"requests per second on {on} at {load['concurrency']} concurrent requests", rps, "requests/s",
                    SRC_LOAD, 1 if rps < 100 else 0, suffix="")
    most = book.count(f"concurrent requests meeting the target on {on}", int(load["concurrency"]), "sequences", SRC_LOAD)
    tot = book.num(f"output tokens/s in total at {load['concurrency']} requests on {on}", load["total_tokens_per_s"],
                   "tokens/s", SRC_LOAD, 0)
    goal = load.get("target") or {}
    target = goal.get("tpot_s") or INTERACTIVE_MS_PER_TOKEN / 1000
    stated = ev.constraints.max_ms_per_token is not None
    ms = target_ms(book, "TPOT target", target, SRC_USER if stated else SRC_RECOMMEND)
    why = t("screen.load.your_target" if stated else "screen.load.default_target", lang)
    key = "screen.rps"
    if goal.get("ttft_s") and not goal.get("tpot_s"):  # a first-token target alone ("p95 TTFT under 500 ms"): that one
        key, ms = "screen.rps.ttft", target_ms(book, "TTFT target", float(goal["ttft_s"]), SRC_USER)
        why = t("screen.load.your_target", lang)
    w = speed_workload(ev.workload)
    pin = book.tokens("prompt tokens per request", w.prompt_tokens or 0, source_of(ev, "prompt_tokens"), lang)
    pout = book.tokens("output tokens per request", w.output_tokens or 0, source_of(ev, "output_tokens"), lang)
    period = getattr(ev, "rate_period_s", 1)
    per = ""
    if period > 1:  # "how many requests per minute?": that count too, from the same rate
        unit = {60: "minute", 3600: "hour", 86400: "day"}.get(period, "minute")
        n = book.num(f"requests per {unit} on {on}", rps * period, f"requests/{unit}",
                     f"computed: requests per second × {period} s", 0, suffix="")
        per = t(f"screen.rps.per_{unit}", lang, n=n)
    return Lead(t(key, lang, name=opt_name(o, book), lay=opt_layout(o, lang, book), rps=rate, per=per,
                  most=most, ms=ms, why=why, tot=tot, pin=pin, pout=pout), None, f"requests per second on {on}")


def e2e_lead(o: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"How long does a 2000-token answer take?": the whole answer, first token + (output − 1) × time per output
    token, at the stated load (the simulation's medians, `Analysis.load`), else for one user (the option's roofline
    figures); None without them."""
    if o is None or not o.fits or o.throughput is None:
        return None
    w = speed_workload(ev.workload)
    out = int(w.output_tokens or 0)
    load = ev.load if ev.load and ev.load.get("tpot_s") and (ev.load.get("concurrency") or 0) > 1 else None
    on = f"{o.count}× {o.gpu_name}"
    if load is not None:
        ttft_s, tpot_s, src, users = float(load["ttft_s"]), float(load["tpot_s"]), SRC_LOAD, int(load["concurrency"])
    else:
        ul = o.throughput.under_load
        ttft_s = (ul.ttft if ul is not None and ul.ttft.s > 0 else o.throughput.ttft).s
        tpot_s = (ul.tpot if ul is not None and ul.tpot.s > 0 else o.throughput.tpot).s
        src, users = (SRC_LOAD if ul is not None else SRC_THROUGHPUT), 1
    if out < 1 or tpot_s <= 0:
        return None
    total = Seconds(ttft_s + (out - 1) * tpot_s)
    e2e = book.latency(f"time of a whole answer at {users} users on {on}", total, "computed: TTFT + (output − 1) × TPOT")
    n_out = book.tokens("output tokens per request", out, source_of(ev, "output_tokens"), lang)
    if "output_tokens" not in (getattr(ev, "stated", None) or ()):  # no length said: a chat turn's, and said so
        n_out += t("screen.e2e.assumed_len", lang)
    ttft = book.latency(f"median time to first token at {users} users on {on}", Seconds(ttft_s), src)
    tpot = book.duration(f"median time per output token at {users} users on {on}", Seconds(tpot_s), "ms", src, 0)
    who = t("screen.e2e.users", lang, n=book.count("concurrency", users, "sequences", source_of(ev, "concurrency"))) \
        if users > 1 else t("screen.e2e.one", lang)
    text = t("screen.e2e", lang, out=n_out, e2e=e2e, who=who, name=opt_name(o, book), ttft=ttft, tpot=tpot)
    return Lead(text.replace("） 的", "）的"), None, f"time of a whole answer at {users} users on {on}")


def batch_lead(o: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"Summarise 1 million documents: how long?": the batch job's time at the most requests the cards hold at once
    (advisor.analysis.load_answers.batch_job: requests ÷ the closed-loop rate), with that load, the rate and the request
    lengths; None without a simulated rate."""
    job, load = ev.batch, ev.load
    o = job.get("option") or o if job else o  # the layout the job runs fastest in (replicas, for a batch)
    if not job or not load or o is None:
        return None
    on = f"{o.count}× {o.gpu_name}"
    n = book.num("requests in the batch job", float(job["requests"]), "requests", source_of(ev, "job_requests"), 0,
                 suffix="")
    secs = float(job["seconds"])
    if secs < 60:  # a job of a few requests: seconds ("0.3 min" said nothing)
        took = book.latency(f"batch job time on {on}", Seconds(secs), "computed: requests ÷ requests per second")
    else:
        unit, scale = (("minutes", 60) if secs < 3600 else ("hours", 3600) if secs < 3 * 86400 else ("days", 86400))
        took = book.num(f"batch job time on {on}", secs / scale, unit, "computed: requests ÷ requests per second",
                        1 if secs / scale < 100 else 0, suffix=t(f"slot.{unit}", lang))
    rps = float(job["requests_per_s"])
    rate = book.num(f"requests per second on {on} at {load['concurrency']} concurrent requests", rps, "requests/s",
                    SRC_LOAD, 1 if rps < 100 else 0, suffix="")
    most = book.count(f"concurrent requests of the batch job on {on}", int(load["concurrency"]), "sequences",
                      SRC_MEMORY)
    tot = book.num(f"output tokens/s in total at {load['concurrency']} requests on {on}", load["total_tokens_per_s"],
                   "tokens/s", SRC_LOAD, 0)
    w = speed_workload(ev.workload)
    pin = book.tokens("prompt tokens per request", w.prompt_tokens or 0, source_of(ev, "prompt_tokens"), lang)
    pout = book.tokens("output tokens per request", w.output_tokens or 0, source_of(ev, "output_tokens"), lang)
    text = t("screen.batch_job", lang, n=n, took=took, name=opt_name(o, book), lay=opt_layout(o, lang, book),
             most=most, rps=rate, tot=tot, pin=pin, pout=pout)
    if job.get("copies"):  # "… in 10 hours": the copies of the configuration that put out the most per GPU
        in_time = _in_time(job, book, lang, default="deadline" in (getattr(ev, "inferred", None) or ()))  # "how many … in 10 hours?": that, first
        if ev.intent == "how_many" or job.get("sized"):  # asked, or the hardware sized for it (no card named)
            text = "**" + in_time.rstrip("。.") + "**" + t("sentence.end", lang) + t("sentence.gap", lang) \
                + text.replace("**", "")
        else:
            text += t("sentence.gap", lang) + in_time
    rent = job.get("rent")
    if rent:  # the job rented by the GPU-hour: its cards × its time × the price per GPU-hour
        text += t("sentence.gap", lang) + _job_rent(rent, ev, book, lang)
    elif ev.intent == "how_much" or ev.constraints.buy_or_rent == "rent":  # its cost asked, and nothing prices it
        text += t("sentence.gap", lang) + t("screen.batch_job.no_rent", lang, gpu=o.gpu_name)
    return Lead(text, None, f"batch job time on {on}")


def _job_rent(rent: dict[str, Any], ev: Any, book: Book, lang: str) -> str:
    """"Rented at $2.49 per GPU-hour (your rate), the job costs about $1,234: 12 GPUs × 41.3 hours = 496 GPU-hours"
    (advisor.analysis.load_answers.job_rent)."""
    cur = ev.constraints.currency
    quoted = rent.get("provider") and rent.get("as_of")
    gh = float(rent["gpu_hours"])
    return t("screen.batch_job.rent", lang,
             rate=book.money("rent per GPU-hour for the batch job", float(rent["rate"]), cur,
                             "catalog cloud quote" if quoted else "stated rent per GPU-hour"),
             whose=t("screen.rent_budget.quote", lang, provider=rent["provider"], date=rent["as_of"]) if quoted
             else t("screen.rent_budget.yours", lang),
             cost=book.money("rental cost of the batch job", float(rent["cost"]), cur,
                             "computed: GPUs × job hours × price per GPU-hour"),
             gpus=book.count("GPUs the batch job runs on", int(rent["gpus"]), "GPUs", "the configuration answered"),
             n=int(rent["gpus"]),
             hours=book.num("hours the batch job runs", float(rent["hours"]), "hours", "computed: requests ÷ requests per second",
                            1, suffix=t("slot.hours", lang)),
             gh=book.num("GPU-hours of the batch job", gh, "GPU-hours", "computed: GPUs × hours", 0 if gh >= 100 else 1,
                         suffix=t("rent.gpu_hours", lang)))


def _in_time(job: dict[str, Any], book: Book, lang: str, default: bool = False) -> str:
    """The copies a batch job's deadline takes: ⌈requests ÷ (rate of one copy × deadline)⌉ of the configuration
    with the highest rate per GPU (advisor.analysis.load_answers.batch_job), its cards and its purchase."""
    o, copies = job["copy_option"], int(job["copies"])
    on = f"{o.count}× {o.gpu_name}"
    hours = float(job["deadline_s"]) / 3600
    within = book.num("the batch job's deadline", hours, "hours", "dialog.load.JOB_DEFAULT_DEADLINE_S" if default
                      else SRC_USER, 1 if hours < 10 else 0, suffix=t("slot.hours", lang))
    k = book.count(f"copies of {on} for the deadline", copies, "copies",
                   "computed: ⌈requests ÷ (requests per second of one copy × deadline)⌉")
    rate = book.num(f"requests per second of one copy of {on}", float(job["copy_rate"]), "requests/s", SRC_LOAD,
                    1 if float(job["copy_rate"]) < 100 else 0, suffix="")
    cards = book.count(f"GPUs for the deadline of {on}", copies * o.count, "GPUs", f"computed: {copies} × {o.count}")
    return t("screen.batch_job.in_time_default" if default else "screen.batch_job.in_time", lang, within=within, k=k, name=opt_name(o, book),
             lay=opt_layout(o, lang, book), rate=rate, cards=cards, gpu=o.gpu_name)


def changed_line(ev: Any, book: Book, lang: str) -> str:
    """The configuration the person named, which does not hold the job as asked, with the weight format that makes
    it hold it (Analysis.changed_config): its load line at the stated concurrency, led by the format ("With FP8
    weights: at 50 concurrent users on 2× H100 …"); "" without one."""
    o, load = ev.changed_config, ev.changed_load
    if o is None or not load:
        return ""
    ladder = load_ladder_lead(ev, book, lang, changed=True)  # "1, 8, 32, 128 users" on the cards as changed
    if ladder is not None:
        return format_changed(ev, book, lang) + ladder.text
    change = load_change_lead(ev, book, lang, changed=True)  # "from 20 to 80 users" on the cards as changed
    if change is not None:
        return format_changed(ev, book, lang) + change.text
    line = load_line(ev, o, book, lang, load=load)
    if not line:
        return ""
    return format_changed(ev, book, lang) + line


def format_changed(ev: Any, book: Book, lang: str) -> str:
    """What Analysis.changed_config changed, as the opening of its figures: "With FP8 weights: ", "With an FP8 KV
    cache: "; "" when the change is the load itself (its figures say so)."""
    o = ev.changed_config
    if o.sized_workload is not None and o.sized_workload.kv != ev.workload.kv:  # "With an FP8 KV cache: at 32 …"
        return t("screen.load.changed_kv", lang)
    if o.sized_workload is not None and o.sized_workload.weights == ev.workload.weights:
        return ""  # the change is the load itself ("at most 62 users"): its line says so
    fmt = book.text(format_label(o.sized_workload.weights if o.sized_workload else "", lang),
                    f"weight format that makes {o.count}× {o.gpu_name} hold the job", SRC_RECOMMEND)
    return t("screen.load.changed", lang, fmt=fmt)


LONG_CONTEXT = 16_384  # a context this long is for long prompts (documents, RAG), not only chat turns


def long_prompt_sentence(ev: Any, o: Any, book: Book, lang: str) -> str:
    """A long context with no prompt length said ("500 users with 128k context"): the load above is a chat turn's,
    so the time to first token of one prompt that fills the context is said beside it, on one copy of the model
    with nothing else running (advisor.estimator.throughput.time_to_first_token); "" otherwise."""
    w = ev.workload
    stated = getattr(ev, "stated", None) or ()
    if w.is_training or w.context < LONG_CONTEXT or "prompt_tokens" in stated or o is None or not o.fits:
        return ""
    lay = o.layout
    per_copy = lay.tp * lay.pp
    out = min(CHAT_OUTPUT_TOKENS, w.context // 8)
    one = replace(w, prompt_tokens=w.context - out, output_tokens=out, concurrency=1, gpus=per_copy, tp=lay.tp,
                  pp=lay.pp, nodes=o.nodes if lay.pp > 1 else 1, weights=lay.weights, kv=lay.kv,
                  attention_dp=lay.attention_dp)
    try:
        s = time_to_first_token(ev.model, load_catalog().gpu(o.gpu), per_copy, one, load_calibration())
    except (InputError, ValueError):
        return ""
    ctx = book.tokens(f"prompt filling the context on {o.count}× {o.gpu_name}", w.context - out, SRC_USER, lang)
    ttft = book.latency(f"time to first token of a context-filling prompt on {o.count}× {o.gpu_name}", Seconds(s),
                        "advisor.estimator.throughput.time_to_first_token")
    return t("screen.load.long_prompt", lang, ctx=ctx, ttft=ttft)


def load_line(ev: Any, top: Any, book: Book, lang: str, *, load: dict[str, Any] | None = None) -> str:
    """"Serve X to N users": at the stated concurrency on the leading option, the continuous-batching simulation's
    median time to first token (and p95), per-user decode speed (1 / median TPOT) and total output tokens/s, then
    the largest concurrency whose median TPOT meets the stated target, else the recommender's interactivity target
    (advisor.analysis.limits.serving_load; DEFAULT_TPOT_TARGET_S). "" when no load was simulated. `load`: another
    option's simulated load than the analysis's own (changed_line)."""
    load = load if load is not None else ev.load
    o = top
    stated = "concurrency" in (getattr(ev, "stated", None) or ())
    if load is None and top is not None and stated:  # the option's own figures under the stated load (no limit)
        ul = top.throughput.under_load if top.throughput else None
        load = dict(ul.to_contract(), concurrency=ev.workload.concurrency) if ul else None
    if not load or o is None or not load.get("per_user_tokens_per_s"):
        return ""
    on = f"{o.count}× {o.gpu_name}"
    n = book.count("concurrency", load["concurrency"], "sequences", source_of(ev, "concurrency"))
    ttft = book.duration(f"median time to first token at {load['concurrency']} users on {on}", Seconds(load["ttft_s"]),
                         "ms", SRC_LOAD, 0)
    p95 = ""
    if load.get("ttft_p95_s"):
        p95 = t("screen.load.p95", lang, p95=book.duration(
            f"p95 time to first token at {load['concurrency']} users on {on}", Seconds(load["ttft_p95_s"]), "ms",
            SRC_LOAD, 0))
    pct = (load.get("target") or {}).get("ttft_percentile")
    if (getattr(ev, "asks_p99", False) or pct == 99) and load.get("ttft_p99_s"):  # "p99 latency?": the tail
        p95 += t("screen.load.p99_spread" if load.get("tails_spread") else "screen.load.p99", lang, p99=book.duration(
            f"p99 time to first token at {load['concurrency']} users on {on}", Seconds(load["ttft_p99_s"]), "ms",
            SRC_LOAD, 0))
    elif pct == 95 and spread_for_tail(speed_workload(ev.workload), pct):  # a p95 target: its tail of spread lengths
        p95 += t("screen.load.p95_spread", lang)
    bits = [t("screen.load.ttft", lang, ttft=ttft, p95=p95)]
    per_v = load["per_user_tokens_per_s"]
    per = book.num(f"tokens/s per user at {load['concurrency']} users on {on}", per_v, "tokens/s", SRC_LOAD,
                   1 if per_v < 10 else 0)
    tpot = ""
    if load.get("tpot_s"):
        median = book.duration(f"median time per output token at {load['concurrency']} users on {on}",
                               Seconds(load["tpot_s"]), "ms", SRC_LOAD, 0)
        tpot = t("screen.load.tpot", lang, tpot=median)
        if getattr(ev, "asks_p99", False) and load.get("tpot_p99_s"):  # "p95 / p99 TPOT?": both tails
            p99 = book.duration(f"p99 time per output token at {load['concurrency']} users on {on}",
                                Seconds(load["tpot_p99_s"]), "ms", SRC_LOAD, 0)
            if load.get("tpot_p95_s"):
                p95_tpot = book.duration(f"p95 time per output token at {load['concurrency']} users on {on}",
                                         Seconds(load["tpot_p95_s"]), "ms", SRC_LOAD, 0)
                tpot = t("screen.load.tpot_tails", lang, tpot=median, p95=p95_tpot, p99=p99)
            else:
                tpot = t("screen.load.tpot_p99", lang, tpot=median, p99=p99)
    bits.append(t("screen.load.per_user", lang, per=per, tpot=tpot))
    if load.get("total_tokens_per_s"):
        tot = book.num(f"output tokens/s in total at {load['concurrency']} users on {on}", load["total_tokens_per_s"],
                       "tokens/s", SRC_LOAD, 0)
        bits.append(t("screen.load.total", lang, tot=tot))
    head = t("screen.load.head", lang, n=n, on=on, bits=t("list.comma", lang).join(bits))
    ttft_target = (load.get("target") or {}).get("ttft_s")
    if ttft_target and load.get("max_concurrency_for_target") is not None:
        return head + _ttft_limit(load, o, on, book, lang, _users_to_serve(ev, load)) + t("sentence.end", lang)
    target = (load.get("target") or {}).get("tpot_s")
    limit = load.get("max_concurrency_for_target")
    if target and limit is not None:
        stated = ev.constraints.max_ms_per_token is not None
        ms = target_ms(book, "TPOT target", target, SRC_USER if stated else SRC_RECOMMEND)
        rate = book.target_rate(target)
        why = t("screen.load.your_target" if stated else "screen.load.default_target", lang)
        if limit >= 1:
            most = book.count(f"largest concurrency meeting the TPOT target on {on}", limit, "sequences", SRC_LOAD)
            # the KV cache holds fewer requests than the latency allows, or the latency is the limit
            bound = load.get("limit_bound")
            tail = t("screen.load.most_memory" if bound == "memory" else "screen.load.most_slots" if bound == "slots"
                     else "screen.load.most", lang, most=most, ms=ms, rate=rate, why=why, n=int(limit))
            users = _users_to_serve(ev, load)
            tail += (at_target_clause(ev, o, users, limit, book, lang)
                     or replicas_for_load(o, users, limit, book, lang))
        else:
            tail = t("screen.load.not_one", lang, ms=ms, rate=rate, why=why)
            tail += at_target_clause(ev, o, _users_to_serve(ev, load), 0, book, lang)
        return head + tail + t("sentence.end", lang)
    return head + t("sentence.end", lang)

def _users_to_serve(ev: Any, load: dict[str, Any]) -> int:
    """The users the copies are for: those asked about, when the load was simulated at fewer (the most the cards
    hold: "100 users on 2× A100" run at the 56 they hold, the copies are for the 100)."""
    return max(int(load["concurrency"]), int(getattr(ev.workload, "concurrency", 1) or 1))


def _ttft_limit(load: dict[str, Any], o: Any, on: str, book: Book, lang: str, users: int) -> str:
    """The largest concurrency meeting a stated time-to-first-token target (with the stated TPOT target when there
    is one as well), as the clause after the load figures."""
    target, limit = load["target"], load["max_concurrency_for_target"]
    ttft = target_ms(book, "TTFT target", target["ttft_s"], SRC_USER)
    if target.get("ttft_percentile"):  # "p95 TTFT under 1 s": the users' first tokens at that percentile
        ttft = t("screen.load.ttft_pct", lang, ttft=ttft, pct=target["ttft_percentile"])
    if target.get("tpot_s"):
        tp = target["tpot_s"]
        ms = target_ms(book, "TPOT target", tp, SRC_USER)
        rate = book.target_rate(tp)
        cond = t("screen.load.cond_both", lang, ttft=ttft, ms=ms, rate=rate)
    else:
        cond = t("screen.load.cond_ttft", lang, ttft=ttft)
    why = t("screen.load.your_target", lang)
    if limit < 1:
        return t("screen.load.not_one_ttft", lang, cond=cond, why=why)
    most = book.count(f"largest concurrency meeting the TTFT target on {on}", limit, "sequences", SRC_LOAD)
    key = "screen.load.most_ttft_memory" if load.get("limit_bound") == "memory" else "screen.load.most_ttft"
    return t(key, lang, most=most, cond=cond, why=why) + replicas_for_load(o, users, limit, book, lang)
