"""What a serving question asks of a load beyond the options (:func:`advisor.analysis.evaluate.analyse` calls these):
the request rate a configuration sustains, a batch job's time and the copies its deadline takes, the users a budget
buys, and speculative decoding with and without. Each simulates the configuration at the load it answers for
(:func:`advisor.analysis.limits.serving_load`) and leaves its figures on the :class:`Analysis`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from advisor.analysis.limits import capacity, option_sequences, serving_load
from advisor.analysis.named import evaluate_named
from advisor.analysis.request import AnalysisRequest, NamedConfig
from advisor.analysis.result import Analysis, asked_option, top_option
from advisor.analysis.steps import Step, timed
from advisor.estimator.cost import HOURS_PER_MONTH
from advisor.estimator.limits import fits_with
from advisor.estimator.memory import default_inference_format
from advisor.recommend.recommender import evaluate_configs
from advisor.workload import DEFAULT_CONTEXT, speed_workload
from knowledge.errors import InputError
from knowledge.quantities import Seconds
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec

BUDGET_OPTIONS = 6  # the recommender's leading configurations tried for "the most users a budget buys"


def _asked_at_load(request: AnalysisRequest, catalog: Catalog, ev: Analysis,
                   one: Option | None) -> tuple[Option, GpuSpec, int] | None:
    """The configuration a with/without question is about (the one named, else the lead; the one named as changed to
    hold the job, Analysis.changed_config, when it does not as asked), its GPU and the load asked (one user when
    none was); None when there is none or it does not hold the job."""
    asked = one or top_option(ev)
    if asked is not None and not asked.fits and asked is one and ev.changed_config is not None:
        asked = ev.changed_config  # "does chunked prefill help?" on cards that hold it with an FP8 KV cache
    if asked is None or not asked.fits:
        return None
    return asked, catalog.gpu(asked.gpu), max(1, request.workload.concurrency)


def speculation(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                one: Option | None) -> None:
    """"Does speculative decoding help, how much faster?": the configuration named (else the lead) at the load asked
    (one user when none was), simulated without and with speculation (`Speculation()`: k drafted tokens a step, each
    accepted with probability α, a draft step at a few % of the target's; tokens a step (1 − α^(k+1)) / (1 − α)):
    `Analysis.speculation`. Its gain shrinks as the load grows: the drafts' verification shares the batch."""
    from advisor.estimator.serving_sim import Speculation  # start-up: only a speculation question simulates it

    if (at := _asked_at_load(request, catalog, ev, one)) is None:
        return
    asked, gpu, users = at
    spec = Speculation()
    base = load_at(request, model, gpu, asked, users, steps)
    with_spec = serving_load(model, gpu, asked, users, steps, speculation=spec)
    if base and with_spec:
        ev.speculation = {"option": asked, "users": users, "base": base, "spec": with_spec, "k": spec.k,
                          "acceptance": spec.acceptance, "tokens_per_step": spec.tokens_per_step()}


def chunked_prefill(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                    one: Option | None) -> None:
    """"How much does chunked prefill help TTFT?": the configuration named (else the lead) at the load asked (one
    user when none was), simulated with chunked prefill (a step's token budget shared by decodes and prompt chunks)
    and without (a prompt runs whole in a step of its own while the decodes wait): `Analysis.chunked`."""
    if (at := _asked_at_load(request, catalog, ev, one)) is None:
        return
    asked, gpu, users = at
    on = serving_load(model, gpu, asked, users, steps, chunked_prefill=True)
    off = serving_load(model, gpu, asked, users, steps, chunked_prefill=False)
    if on and off:
        ev.chunked = {"option": asked, "users": users, "on": on, "off": off}


PROMPT_LADDER = (1024, 4096, 16384, 32768)  # prompt lengths a "TTFT against prompt length" answer simulates
LONG_PROMPTS = (65536, 131072)  # and these, up to a longer context the workload states


def ttft_ladder(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                one: Option | None) -> None:
    """"How does TTFT change with prompt length?": the configuration named (else the lead) at the load asked (one
    user when none was), simulated at each prompt of `PROMPT_LADDER` (and of `LONG_PROMPTS`) up to the context the
    person stated, that the model's context holds with the answer's output length: `Analysis.ttft_ladder`, the rows in
    prompt order."""
    if (at := _asked_at_load(request, catalog, ev, one)) is None:
        return
    asked, gpu, users = at
    sized, est = asked.sized_workload, asked.memory_estimate
    if sized is None or est is None:
        return
    out = speed_workload(sized).output_tokens or 0
    rows = []
    said = ev.workload.context if "context" in request.stated else None  # "at 16k context": up to it, not past
    for prompt in PROMPT_LADDER + (LONG_PROMPTS if said else ()):
        if prompt + out > model.max_context or (said and prompt > said):
            break
        longer = replace(sized, prompt_tokens=prompt, output_tokens=out or None,
                         context=max(sized.context, prompt + out))
        twin = replace(asked)  # the same option, its sized workload at this prompt (the simulation reads it)
        twin.set_memory(est, longer)
        load = serving_load(model, gpu, twin, users, steps)
        if load is None:
            break
        rows.append((prompt, load))
    if len(rows) >= 2:
        ev.ttft_ladder = {"option": asked, "users": users, "rows": rows}


def load_ladder(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                one: Option | None) -> None:
    """"How does latency change as concurrency goes 1, 8, 32, 128?": the configuration named (else the lead) simulated
    at each load listed (`request.load_ladder`, ascending): `Analysis.load_ladder`, the rows in load order. A load
    beyond what the KV cache holds queues for a slot (the simulation's `queued`), as in the answer's load line. When
    the configuration does not hold the largest load as asked, the ladder runs on it as the answer's change makes it
    hold the job (`Analysis.changed_config`: an FP8 KV cache, another format)."""
    if len(request.load_ladder) < 3:
        return
    at = _asked_at_load(request, catalog, ev, one)
    changed = ev.changed_config
    asked = at[0] if at is not None else changed if changed is not None and changed.fits else None
    if asked is None:
        return
    gpu = catalog.gpu(asked.gpu)
    rows = []
    for users in request.load_ladder:
        load = load_at(request, model, gpu, asked, users, steps)
        if not load:
            return
        rows.append((users, load))
    ev.load_ladder = {"option": asked, "rows": rows}


def served_variants(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                    field: str, values: tuple[str | int, ...]) -> None:
    """The configuration named (else the lead) served at each value of one setting, each simulated at the load asked
    (one user when none was): "TP 8 on 8 H100, or 2 replicas of TP 4?" (`field` "tp": the degree pinned, the cards
    left over are replicas, search.pinned_serving), "how much throughput do I lose going from FP8 to BF16?"
    (`field` "weights"). `Analysis.served_runs`: one {"field", "value", "option", "load"} per value, "load" None
    when that setting cannot hold the model there."""
    from advisor.workload import PinnedLayout  # start-up: only a served comparison pins a layout

    if len(values) < 2:
        return
    base = asked_option(ev)
    if base is None:
        return
    gpu, load = catalog.gpu(base.gpu), max(1, request.workload.concurrency)
    runs = []
    for value in values:
        change = {"pinned_layout": PinnedLayout(tp=int(value))} if field == "tp" else {field: value}
        w = replace(request.workload, **change)
        try:
            held = evaluate_named(w, request.constraints, [NamedConfig(gpu=base.gpu, count=base.count)], steps)
        except InputError:  # "TP 16 on 8 H100": that setting cannot run there (the answer says so)
            held = []
        o = held[0] if held else None
        ok = o is not None and o.fits and (field != "tp" or o.layout.tp == int(value))
        at = load_at(request, model, gpu, o, load, steps) if o is not None and ok else None
        runs.append({"field": field, "value": value, "option": o, "load": at})
    if any(r["load"] is not None for r in runs):
        ev.served_runs = runs


def load_change(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                lead: Option, load: dict[str, Any] | None = None) -> None:
    """"How much slower per user going from 50 to 100 users?": the configuration `ev.load` was simulated on (or
    `load`, another configuration's: the named cards with the format that makes them hold the new load), again at
    the load the change starts from (`request.load_from`), so the answer gives both: `Analysis.load_change`."""
    load = ev.load if load is None else load
    if not request.load_from or load is None:
        return
    base = load_at(request, model, catalog.gpu(lead.gpu), lead, request.load_from, steps)
    if base:
        ev.load_change = {"option": lead, "from": request.load_from, "to": request.workload.concurrency,
                          "base": base, "load": load}


def budget_users(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step],
                 ev: Analysis) -> None:
    """"With a ¥2M budget, how many concurrent users at most?": the budget spent on identical copies of one of the
    recommender's leading configurations (each priced, sold in the region), the copies that fit it,
    ⌊budget ÷ price of one copy⌋, times the users one copy serves within the per-token target (stated, else the
    default; no more than its memory holds, simulated at that load): the configuration whose copies serve the most
    (`Analysis.budget_users`; ties: the cheaper), its load the answer's load line. Copies of an inference deployment
    scale linearly (each keeps its own weights and KV cache), as `render.scale_out.replicas_for_load` counts them.

    A budget a month ("$40k a month", Constraints.monthly_rent_budget) rents instead: a copy's price is its cards
    around the clock for a month, count × price per GPU-hour × 730 h (the stated rate, else the catalog's quote),
    and cards nobody rents out are left out."""
    from advisor.recommend.prices import budget_price, hourly_rent, rent_quote  # start-up: only a budget prices copies
    from advisor.recommend.rank import leadable, mainstream_stack  # start-up: likewise

    c = request.constraints
    monthly = c.monthly_rent_budget
    budget = monthly or c.budget or 0.0

    def price_of(o: Option) -> float | None:
        if not monthly:
            return budget_price(o, "system")
        rate = hourly_rent(o)
        return None if rate is None else o.count * rate * HOURS_PER_MONTH

    rec = ev.recommendation.options if ev.recommendation is not None else []
    best: tuple[int, float, Option, int, int, dict[str, Any]] | None = None
    seen: set[tuple[str, int, int]] = set()
    # hardware a company would buy in quantity: priced new and sold in the region (no used or end-of-life cards), or
    # rent (any card a cloud lists), on a mainstream software stack
    weights = request.workload.weights or default_inference_format(model)  # as asked: no quantised stand-in
    buyable = [o for o in rec if o.fits and "existing" not in o.labels and o.layout.weights == weights
               and (hourly_rent(o) is not None if monthly else leadable(o, catalog.gpu(o.gpu), c))
               and mainstream_stack(catalog.gpu(o.gpu), c.region, users=2)]
    per_node = c.max_gpus_per_node
    tried = []
    for o in buyable[:BUDGET_OPTIONS]:  # each as sized, and a whole server's worth of its cards laid out for users
        tried.append(o)
        for k in server_sizes(o.count, per_node):
            tried += [x for x in as_replicas(request, model, o, k, steps) if x.fits]
    for o in tried:
        key = (o.gpu, o.count, o.layout.tp)
        price = price_of(o)
        if key in seen or not price or price > budget:
            continue
        seen.add(key)
        gpu = catalog.gpu(o.gpu)
        load, per = load_within_target(request, model, gpu, o, held_or_capacity(ev, model, gpu, o, steps, made=False),
                                       steps)
        if load is None or per < 1:
            continue
        copies = int(budget // price)
        users = copies * per
        if best is None or (users, -copies * price) > (best[0], -best[1]):
            best = (users, copies * price, o, copies, per, load)
    if best is not None and (best[3] > 1 or monthly):
        users, spent, o, copies, per, load = best
        ev.budget_users = {"option": o, "copies": copies, "per_copy": per, "users": users, "spent": spent}
        if monthly:  # the rate, and the cards the month's budget rents in all (a copy's worth may leave some over)
            rate = hourly_rent(o) or 0.0  # priced, or it would not have been chosen (price_of)
            provider, as_of = rent_quote(o)
            ev.budget_users.update(monthly=True, rate=rate, rentable=int(budget // (rate * HOURS_PER_MONTH)),
                                   provider=provider, as_of=as_of)
        ev.load = load
        if ev.recommendation is not None:  # the configuration answered leads the options shown with it
            from advisor.recommend.recommender import same_config  # start-up: only a budget's copies reorder options

            ev.recommendation.options = [o, *(x for x in ev.recommendation.options if not same_config(x, o))]


def fuller_for_tokens(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                      one: Option) -> None:
    """"Cost per million tokens of 70B FP8 on H100 at high load": a card named without a count was sized for one
    user, and one H100 holding a 70B model leaves no room to batch. Of that count and 2, 4 and 8 times as many
    within a server, the configuration whose full load (analysis.limits.capacity) costs least per million tokens
    owned leads instead, when it is over 10 % cheaper (the answer's first option and its capacity row)."""
    gpu = catalog.gpu(one.gpu)
    own = (ev.capacity.get((one.gpu, one.count)) or {}).get("cost_per_million") or {}
    best, best_cap, best_cost = None, None, float(own.get("amount") or 0)
    for k in server_sizes(one.count, request.constraints.max_gpus_per_node):
        opt = evaluate_named(request.workload, request.constraints, [NamedConfig(gpu=one.gpu, count=k)], steps)[0]
        cap = capacity(model, gpu, opt, steps) if opt.fits else None
        cost = float(((cap or {}).get("cost_per_million") or {}).get("amount") or 0)
        if cap is not None and cost and (not best_cost or cost < 0.9 * best_cost):
            best, best_cap, best_cost = opt, cap, cost
    if best is not None and best_cap is not None:
        ev.user_options = [replace(best, labels=[*best.labels, "candidate"]) if o is one else o for o in ev.user_options]
        ev.capacity[(best.gpu, best.count)] = best_cap


def turns_users(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                asked: Option) -> None:
    """"How many users can one 4090 serve with Llama-3.1-8B?": the users lead counts whole default contexts (8 of
    4,096 tokens); when the memory is what binds there and neither the context nor the request lengths were said,
    also the chat turns an engine that pages its KV cache holds at once and how many of them meet the per-token
    target (`Analysis.turns_users`), when that is more users."""
    load = ev.load or {}
    if load.get("limit_bound") != "memory" or not chat_turns_apply(request, asked):
        return
    # the target's limit comes from the ladder whatever the load simulated; the memory bound from the chat turns held
    probe = load_at(request, model, catalog.gpu(asked.gpu), asked, max(1, int(load["concurrency"])), steps,
                    turns_held=True)
    if not probe or probe.get("max_concurrency_for_target") is None:
        return
    limit = int(probe["max_concurrency_for_target"])
    if limit > int(load.get("max_concurrency_for_target") or 0):
        ev.turns_users = {"limit": limit, "held": probe["held"], "target": probe["target"],
                          "turn_tokens": probe["turn_tokens"], "kv_tokens": probe["kv_tokens"],
                          "engine": probe["engine"], "gpu": asked.gpu, "count": asked.count, "slots": probe["slots"]}


def load_at(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, option: Option, concurrency: int,
            steps: list[Step], *, turns_held: bool = False) -> dict[str, Any] | None:
    """The simulated load on `option` at `concurrency` under the request's targets: its per-token target (stated,
    else serving_load's default), its first-token target, and the 99th percentiles when they were asked
    (`turns_held`: serving_load's memory bound in chat turns)."""
    ms = request.constraints.max_ms_per_token
    return serving_load(model, gpu, option, concurrency, steps, tpot_target_s=Seconds.of(ms, "ms").s if ms else None,
                        ttft_target_s=request.ttft_target_s, tails=request.asks_p99,
                        ttft_percentile=request.constraints.ttft_percentile, turns_held=turns_held)


# engines that page the KV cache (blocks taken as a request grows, vLLM's PagedAttention, SGLang's radix pool,
# TensorRT-LLM's paged KV): memory held is what the running requests have written, not their whole context;
# llama.cpp reserves each slot's whole context, transformers' generate() a padded static batch
PAGED_KV_ENGINES = frozenset({"vllm", "sglang", "trtllm"})


def chat_turns_apply(request: AnalysisRequest, option: Option) -> bool:
    """Whether `option`'s users may be judged by their chat turns: neither the context nor the request lengths were
    said, the context is the generic default (a model's own, a reasoning model's long answers, is no chat turn), and
    the engine pages its KV cache (llama.cpp and transformers reserve whole contexts)."""
    return (not set(request.stated) & {"context", "prompt_tokens", "output_tokens"}
            and request.workload.context == DEFAULT_CONTEXT and option.layout.engine in PAGED_KV_ENGINES)


def turns_load(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
               one: Option) -> None:
    """"50 users of Llama-3.1-8B on one 4090, what speed?": the card holds the weights but not every user's whole
    default context at once (the memory verdict counts 50 × 4,096 tokens of KV). An engine that pages its KV cache
    holds what the requests have written, so when neither the context nor the request lengths were said, the users
    are simulated at the load asked, a chat turn each, with the cache the weights leave; when all their turns fit it
    at once (no preemption) that load is `Analysis.turns_load`, answered beside the verdict on whole contexts."""
    w = request.workload
    if one.fits or w.task != "inference" or w.concurrency <= 1 or not chat_turns_apply(request, one):
        return
    gpu = catalog.gpu(one.gpu)
    whole, served, fmt = held_sequences(ev, one), one, None
    if whole < 1:
        # not one whole context beside the weights as asked: the format that holds them, the users' chat turns in it.
        # The change found for the named cards when it holds fewer whole contexts than the users asked ("Phi-4 for 35
        # students on a 4080 Super": AWQ INT4 holds 4), else the lighter format that holds one ("Qwen2.5-32B on two
        # 4090s for 20 users": FP8); a change that holds them all is answered as changed (changed_lead)
        changed = ev.changed_config
        if changed is not None and int((ev.changed_load or {}).get("concurrency") or 0) >= w.concurrency:
            return
        found = (changed, _whole_contexts(model, gpu, changed)) if changed is not None else \
            _format_holding_one(request, model, gpu, one, steps)
        if found is None:
            return
        served, whole = found
        fmt = served.sized_workload.weights if served.sized_workload else None
    if whole < 1:
        return
    ev.turns_load = turns_at(request, model, gpu, served, one, whole, fmt, steps)


def turns_at(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, served: Option, one: Option, whole: int,
             fmt: str | None, steps: list[Step]) -> dict[str, Any] | None:
    """The users asked simulated on `served` a chat turn each (`load_at(turns_held=True)`), as `Analysis.turns_load`
    of the configuration named (`one`: its cards, the `whole` contexts it holds, the weight `fmt` changed to), when
    the paged KV cache holds all their turns at once with no preemption; else None."""
    users = request.workload.concurrency
    load = load_at(request, model, gpu, served, users, steps, turns_held=True)
    if not load or (load.get("held") or 0) < users or load.get("preemptions"):
        return None
    return {**load, "gpu": one.gpu, "count": one.count, "whole": whole, "format": fmt}


# weight formats tried, lightest change first, when the weights as asked leave no room for one whole context
TURN_FORMATS = ("fp8", "awq-int4")


def _format_holding_one(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, one: Option,
                        steps: list[Step]) -> tuple[Option, int] | None:
    """The configuration named in the first of TURN_FORMATS (FP8 only on cards with FP8 tensor cores) that holds one
    whole-context request, with the whole contexts it holds; None when neither does."""
    w = request.workload
    for fmt in TURN_FORMATS:
        if fmt == w.weights or (fmt == "fp8" and not (gpu.supports_fp8 and gpu.fp8_dense_flops)):
            continue
        opt = evaluate_named(replace(w, weights=fmt, concurrency=1), request.constraints,
                             [NamedConfig(gpu=one.gpu, count=one.count)], steps)[0]
        held = _whole_contexts(model, gpu, opt)
        if held >= 1:
            return opt, held
    return None


def _whole_contexts(model: ModelSpec, gpu: GpuSpec, opt: Option) -> int:
    """The whole-context requests `opt` holds at once, from the memory estimate (0 when it does not fit)."""
    sized = opt.sized_workload
    return option_sequences(gpu, opt, fits_with(model, gpu, sized)) if opt.fits and sized is not None else 0


def load_within_target(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, option: Option, held: int,
                       steps: list[Step]) -> tuple[dict[str, Any] | None, int]:
    """The load on `option` at the most requests it holds (`held`), simulated again at the most that meet the
    per-token target when that is fewer: (that load, the target's limit read from the first run; 0 without one)."""
    load = load_at(request, model, gpu, option, held, steps)
    limit = int((load or {}).get("max_concurrency_for_target") or 0)
    if 1 <= limit < held:
        load = load_at(request, model, gpu, option, limit, steps) or load
    return load, limit


def server_sizes(count: int, per_node: int) -> list[int]:
    """Counts of a card to try beyond `count`, doubling up to a server's `per_node` (the copies a deadline or a
    budget buys may run better on more cards each)."""
    return [k for k in (2 * count, 4 * count, 8 * count) if count < k <= per_node]


def held_sequences(ev: Analysis, asked: Option) -> int:
    """The concurrent sequences `asked` holds: the limits of the configuration named, else its capacity row; 0
    when neither was made."""
    held = ev.limits.max_load if ev.limits is not None and ev.limits.option is asked else 0
    return int(held or ev.capacity.get((asked.gpu, asked.count), {}).get("max_concurrency") or 0)


def held_or_capacity(ev: Analysis, model: ModelSpec, gpu: GpuSpec, option: Option, steps: list[Step], *,
                     made: bool = True) -> int:
    """The concurrent sequences `option` holds, at least 1: `held_sequences` where its limits or capacity row were made
    (`made`: `option` is the one they were made for, not another layout of the same cards), else its capacity now."""
    held = held_sequences(ev, option) if made else 0
    if not held:
        cap = capacity(model, gpu, option, steps)
        held = int(cap["max_concurrency"]) if cap else 1
    return max(1, held)


def requests_per_s(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                   one: Option | None) -> None:
    """"How many requests per second can it handle?": the most concurrent requests the configuration serves within
    the per-token target (stated, else the interactivity default; the TTFT target too when stated), no more than
    its memory holds, simulated again at that load: its closed-loop rate X = C / R requests/s (Little's law) is the
    answer (`Analysis.load` at that concurrency, `requests_per_s`)."""
    asked = one or top_option(ev)
    if asked is None or not asked.fits:
        return
    gpu = catalog.gpu(asked.gpu)
    held = held_or_capacity(ev, model, gpu, asked, steps)
    probe = load_at(request, model, gpu, asked, held, steps)
    limit = int((probe or {}).get("max_concurrency_for_target") or 0)
    if probe is None or limit < 1:
        ev.load = probe
        return
    ev.load = probe if limit == held else load_at(request, model, gpu, asked, limit, steps)


def batch_job(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
              one: Option | None) -> None:
    """"Summarise 1 million documents on 4× L40S: how long?": a batch job keeps the engine's batch full, so its
    requests run at the most the memory holds at once (the configuration named, else the lead), simulated at that
    load (`Analysis.load`); the job takes requests ÷ the closed-loop rate X = C / R (Little's law) seconds. The
    configuration was laid out for one user (its widest tensor-parallel group); its cards as replicas of the
    smallest group that holds the model are tried too, and the faster kept (8 replicas of an 8B model on 8 L4s
    rather than one TP 8 group over PCIe)."""
    asked = one or top_option(ev)
    n = request.job_requests
    if asked is None or not asked.fits or not n:
        return
    gpu = catalog.gpu(asked.gpu)
    best = fastest_batch(request, model, gpu, [asked, *as_replicas(request, model, asked, asked.count, steps)],
                         steps, ev, asked)
    if best is None:
        return
    rate, opt, held, ev.load = best
    ev.batch = {"requests": n, "requests_per_s": rate, "seconds": n / rate, "concurrency": held, "option": opt}
    deadline = request.constraints.deadline_s
    if deadline and (n / rate > deadline or one is None):
        # "… in 10 hours": copies of the one server's worth of these cards that puts out the most per GPU. With no
        # card named the recommender chose the card for the job's rate, judged at a chat pace (Little's law), where a
        # batch runs the engine full: its count is then sized the same way, from one card up to a server
        per_node = request.constraints.max_gpus_per_node
        sizes = [k for k in (1, 2, 4, 8, 16) if k <= per_node] if one is None else server_sizes(asked.count, per_node)
        tried = [best] + [b for k in sizes
                          for b in [fastest_batch(request, model, gpu, as_replicas(request, model, asked, k, steps),
                                                  steps, ev, None)] if b is not None]
        top = max(b[0] / b[1].count for b in tried)  # within 1 % of the most per GPU, the fewest cards a copy
        rate_k, opt_k, _, _ = min((b for b in tried if b[0] / b[1].count >= 0.99 * top), key=lambda b: b[1].count)
        copies = math.ceil(n / (rate_k * deadline))
        if one is not None or copies * opt_k.count < asked.count:
            # sized: the cards are the advisor's to count (none named, or a card named without a count)
            sized = one is None or not request.count_named
            ev.batch.update(deadline_s=deadline, copies=copies, copy_option=opt_k, copy_rate=rate_k, sized=sized)
    ev.batch["rent"] = job_rent(ev.batch, asked)


def job_rent(job: dict[str, Any], asked: Option) -> dict[str, Any] | None:
    """A batch job's cost rented by the GPU-hour: the cards it runs on × its time, at the stated or the catalog's
    price per GPU-hour (prices.hourly_rent). With copies for a deadline, each copy runs n ÷ (copies × one copy's rate)
    seconds; otherwise the configuration answered runs the job's whole time. None when nothing prices renting."""
    from advisor.recommend.prices import hourly_rent, rent_quote  # start-up: only a batch job is costed by the hour

    n = float(job["requests"])
    if job.get("copies"):
        opt, copies = job["copy_option"], int(job["copies"])
        gpus, seconds = copies * opt.count, n / (copies * float(job["copy_rate"]))
    else:
        opt = job["option"]
        gpus, seconds = opt.count, float(job["seconds"])
    priced = opt if hourly_rent(opt) else asked  # a layout tried for the job may carry no TCO: the asked card's
    rate = hourly_rent(priced)
    if not rate:
        return None
    provider, as_of = rent_quote(priced)
    gpu_hours = gpus * seconds / 3600
    return {"rate": rate, "gpus": gpus, "hours": seconds / 3600, "gpu_hours": gpu_hours, "cost": gpu_hours * rate,
            "provider": provider, "as_of": as_of}


def as_replicas(request: AnalysisRequest, model: ModelSpec, asked: Option, count: int,
                steps: list[Step]) -> list[Option]:
    """`count` of the asked card laid out for throughput: replicas of the smallest group that holds the model (one
    user would get the widest group, so the layout is sized for enough users to give every group one); [] when it
    does not fit or adds nothing to `asked`."""
    if count <= 1 and asked.count <= 1:
        return []
    users = max(count * 8, request.workload.concurrency)
    got = timed(steps, "evaluate_configs", {"model": model.id, "configs": [(asked.gpu, count)], "layout": "lightest"},
                lambda: evaluate_configs(replace(request.workload, concurrency=users), [(asked.gpu, count)],
                                         request.constraints, per_user=False),
                lambda r: ", ".join(f"{o.count}× {o.gpu}, TP {o.layout.tp}" for o in r))
    return [o for o in got if o.fits and (o.count != asked.count or o.layout.tp < asked.layout.tp)]


def fastest_batch(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, options: list[Option],
                  steps: list[Step], ev: Analysis,
                  asked: Option | None) -> tuple[float, Option, int, dict[str, Any]] | None:
    """Of `options`, the one with the highest closed-loop rate at the most requests it holds at once: (requests/s,
    option, requests held, its simulated load). Only `asked` reads the limits or capacity row the analysis made:
    a capacity row is keyed by card and count, and another layout of those cards holds another number."""
    best: tuple[float, Option, int, dict[str, Any]] | None = None
    for opt in options:
        held = held_or_capacity(ev, model, gpu, opt, steps, made=opt is asked)
        load = load_at(request, model, gpu, opt, held, steps)
        rate = float((load or {}).get("requests_per_s") or 0)
        if load is not None and rate > 0 and (best is None or rate > best[0]):
            best = (rate, opt, held, load)
    return best
