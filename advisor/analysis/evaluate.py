"""The analysis of one workload (:func:`analyse`): the memory need, the user's own configurations exactly as named
(`advisor.recommend.recommender.evaluate_configs`), the recommender's search and the rules it applies, then what the question
needs beyond the options — alternatives, the limits of the user's configuration, capacity at full load, the speed
at the average load, the quoted claim and the plan's premises. When the recommender is missing or broken, the
memory estimator alone answers (:mod:`advisor.analysis.memory_only`) and the result says so."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING, Any

from advisor.analysis.claims import check_claim, premise_findings
from advisor.analysis.engines import engine_runs
from advisor.analysis.fabric import fabric_need
from advisor.analysis.interconnect import link_share
from advisor.analysis.limits import capacity, config_limits, serving_load, speed_at
from advisor.analysis.memory_only import evaluate_config, search, smallest_count
from advisor.analysis.request import AnalysisRequest, NamedConfig
from advisor.analysis.result import Analysis, Assumption, top_option
from advisor.analysis.smaller import smaller_models_that_fit
from advisor.analysis.steps import Step, timed
from advisor.analysis.variants import variant_needs
from advisor.estimator.fit_limits import FitLimits, training_fit_limits
from advisor.estimator.memory import estimate_memory
from advisor.recommend.recommender import evaluate_configs
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError, NotValidated
from knowledge.messages import pair
from knowledge.quantities import Seconds
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option, Recommendation
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec, ModelSpec
    from rules.findings import Finding

log = logging.getLogger(__name__)
PREFERENCE_METHODS = ("DPO", "KTO", "IPO")  # sized as that objective; online RL (GRPO, PPO) is not modelled
log.addHandler(logging.NullHandler())


def _one_named(request: AnalysisRequest, catalog: Catalog) -> tuple[GpuSpec | None, int]:
    """The one configuration the user named (its card and count, one when unsaid), for sizing variants on it."""
    if len(request.named) != 1:
        return None, 1
    named = request.named[0]
    return catalog.gpu(named.gpu), int(named.count or 1)


def analyse(request: AnalysisRequest, catalog: Catalog | None = None, steps: list[Step] | None = None) -> Analysis:
    """Run the tools for `request` (each call recorded in `steps`); see the module docstring. Raises the
    estimator's and recommender's input errors (AdvisorError) as they come."""
    if catalog is None:
        catalog = load_catalog()
    steps = [] if steps is None else steps
    w = request.workload
    if request.reference_method in PREFERENCE_METHODS and w.is_training and w.method == "sft":  # "DPO …": sized as DPO
        request = replace(request, workload=replace(w, method=request.reference_method.lower()))
    workload, constraints = request.workload, request.constraints
    model = catalog.model(workload.model or "")
    ev = Analysis(workload=workload, constraints=constraints, model=model, intent=request.intent, stated=request.stated,
                  inferred=request.inferred, asks_users=request.asks_users, asks_need=request.asks_need,
                  asks_speed=request.asks_speed, asks_context=request.asks_context, asks_batch=request.asks_batch,
                  asks_servers=request.asks_servers, asks_token_cost=request.asks_token_cost,
                  asks_why_count=request.asks_why_count, reference_method=request.reference_method,
                  asks_cheapest=request.asks_cheapest, asks_kv_token=request.asks_kv_token,
                  asks_tokens_per_day=request.asks_tokens_per_day, asks_power=request.asks_power,
                  asks_launch=request.asks_launch, asks_train_speed=request.asks_train_speed,
                  asks_full_load=request.asks_full_load, asks_rps=request.asks_rps,
                  rate_period_s=request.rate_period_s, asks_e2e=request.asks_e2e, asks_ttft=request.asks_ttft,
                  asks_speculation=request.asks_speculation, asks_plan=request.asks_plan,
                  asks_p99=request.asks_p99, asks_fits=request.asks_fits)
    if request.detail == "options":
        ev.recommendation = _recommend(workload, constraints, steps, ev, strict=request.strict)
        ev.findings = _rules(ev)
        return ev

    ev.need = timed(steps, "estimate_memory", {"model": model.id, "task": workload.task},
                    lambda: estimate_memory(model, workload),
                    lambda r: f"{r.per_gpu.total.text('GiB')} on one GPU")
    if request.capacity_count and request.capacity_count > 1 and not workload.is_training:
        n = request.capacity_count  # "two 24GB cards": the model split over them by tensor parallelism
        try:
            ev.need_split = estimate_memory(model, replace(workload, gpus=n, nodes=1, tp=n, pp=1))
            ev.split_count = n
        except (InputError, ValueError):
            ev.need_split = None  # TP of that degree does not divide the model's heads: one card's check stands
    if request.variants:  # "LoRA vs QLoRA?": each setting's need, side by side
        ev.variants = timed(steps, "estimate_memory", {"model": model.id, "variants": list(request.variants)},
                            lambda: variant_needs(model, workload, request.variants, *_one_named(request, catalog)),
                            lambda r: "; ".join(f"{v.field}={v.value}: {v.need.per_gpu.total.text('GiB')}" for v in r))
    ev.recommendation = _recommend(workload, constraints, steps, ev, strict=request.strict)
    if ev.recommendation is not None:
        # a machine named without a count ("Mac Studio M3 Ultra vs 4× 3090") is one machine, not a count to search
        named = tuple(replace(m, count=1) if not m.count and catalog.gpu(m.gpu).is_machine else m
                      for m in request.named) or count_said(request, ev.recommendation, ev)
        _named_options(replace(request, named=named), ev.recommendation, steps, ev)
        _training_precisions(request, steps, ev)
        ev.fit_limits = _single_gpu_fit_limits(ev, catalog)
    else:
        for mention in request.named:
            gpu = catalog.gpu(mention.gpu)
            count = mention.count or (1 if mention.role == "existing" else smallest_count(model, workload, gpu))
            ev.configs.append(evaluate_config(model, workload, gpu, count, mention.role, steps))
        if not ev.configs:
            ev.configs = search(model, workload, constraints, catalog, steps)
    if request.claim is not None:
        ev.claim = check_claim(model, workload, request.claim, steps)
    ev.premise = premise_findings(request.named, request.wants_nvlink, catalog, steps)
    if ev.recommendation is not None:
        _stretch(request, model, catalog, steps, ev, ev.recommendation)
    if request.engines:  # "vLLM or llama.cpp, which is faster on a 4090?": each engine sized and timed there
        ev.engines = engine_runs(request, model, catalog, steps, ev)
    top = top_option(ev) if request.asks_link else None
    if top is not None:  # "do I need NVLink?": the all-reduce share of the answered configuration's decode step
        gpu = catalog.gpu(top.gpu)
        ev.link = timed(steps, "link_share", {"gpu": gpu.id, "count": top.count, "tp": top.layout.tp},
                        lambda: link_share(model, gpu, top),
                        lambda r: f"all-reduce share {r.share:.0%}" if r.share is not None else r.link)
    trained = top_option(ev) if request.asks_fabric else None
    if trained is not None and trained.training is not None:  # "do I need InfiniBand?": the run over 100 GbE
        on = catalog.gpu(trained.gpu)
        ev.fabric = timed(steps, "fabric_need", {"gpu": on.id, "count": trained.count, "nodes": trained.nodes},
                          lambda: fabric_need(model, on, trained, request.workload, request.constraints.mfu),
                          lambda r: f"{r.slowdown:.2f}× over 100 GbE" if r is not None else "no comparison")
    ev.findings = _rules(ev)
    return ev


def count_said(request: AnalysisRequest, rec: Recommendation, ev: Analysis) -> tuple[NamedConfig, ...]:
    """"How long to train X on 2048 GPUs?": the count said with no card is the configuration asked about, so a
    training job is evaluated at exactly that count on the search's leading card (the search alone would answer
    with its own smallest count that meets the deadline); the card so chosen is said as an assumption."""
    n = request.count_said
    lead = next((o for o in rec.options if o.meets_targets), rec.options[0] if rec.options else None)
    if n is None or request.named or not request.workload.is_training or lead is None:
        return ()
    en, zh = pair("assumption.count_said", n="{n}", gpu=lead.gpu_name)  # {n}: a number the renderer records
    ev.assumptions.append(Assumption(en, zh, {"n": (n, "", "user input")}))
    ev.count_card = lead.gpu_name
    return (NamedConfig(gpu=lead.gpu, count=n, role="candidate", count_only=True),)


def _named_options(request: AnalysisRequest, rec: Recommendation, steps: list[Step], ev: Analysis) -> None:
    """The user's own configurations as options: exactly as named where a count was given (or owned), else the
    search's smallest fitting count; then what would make a lone named configuration work, and alternatives
    beyond the named cards when none of them works."""
    workload, constraints = request.workload, request.constraints
    exact = [m for m in request.named if m.count or m.role == "existing"]
    if exact:
        ev.user_options = _evaluate_named(workload, constraints, exact, steps)
    for mention in request.named:  # a card named without a count: the search's smallest fitting count
        if mention.count or mention.role == "existing":
            continue
        found = next((o for o in rec.options + rec.closest if o.gpu == mention.gpu), None)
        if found is not None:
            ev.user_options.append(replace(found, labels=list(found.labels) + ["candidate"]))
        elif constraints.region == "cn":
            # a card a China-market rule rules out ("H800 集群") leaves the search empty-handed: size it as if
            # it could be bought, then show it at that count with the rule's finding, beside what can be bought
            probe = _recommend(workload, replace(constraints, region="global", candidates=(mention.gpu,), budget=None), steps, ev)
            hit = next((o for o in (probe.options + probe.closest if probe else []) if o.gpu == mention.gpu), None)
            if hit is not None:
                ev.user_options += _evaluate_named(workload, constraints, [replace(mention, count=hit.count)], steps)
    _same_count(request, steps, ev)
    candidates = [m for m in request.named if m.role == "candidate"]
    owned = any(m.role == "existing" for m in request.named)
    lone = [m for m in candidates if m.count]
    if not owned and len(lone) == 1:
        _lone_config(workload, constraints, lone[0], steps, ev)
        ev.bigger_twin = _bigger_twin(workload, constraints, lone[0], steps, ev)
    count_only = next((m for m in candidates if m.count and m.count_only), None)
    if count_only is not None and count_only.count and not any(o.meets_targets for o in ev.user_options):
        # "what if we only have four cards?": the leading card at that count does not work; what does, in as
        # many cards of any kind (not more cards of the same one)
        n = max(1, min(16, count_only.count))
        fewer = _recommend(workload, replace(constraints, candidates=(), max_gpus_per_node=n, max_nodes=1), steps, ev)
        if fewer is not None:
            ev.alternatives = [o for o in fewer.options if o.meets_targets and o.count <= n][:3]
            ev.alternatives_within = n
    elif candidates and constraints.candidates and not any(o.meets_targets for o in rec.options + ev.user_options):
        # none of the named cards works (too small, blocked in the region): what the whole catalog offers
        wider = _recommend(workload, replace(constraints, candidates=()), steps, ev)
        if wider is not None:
            ev.alternatives = [o for o in wider.options if o.meets_targets][:3]
    ev.offload = ev.offload or _offload_of(rec)
    ev.offload_asked = request.offload_asked and ev.offload is not None
    own = next((o for o in ev.user_options if "existing" in o.labels and o.count == 1 and not o.fits), None)
    if own is not None and workload.task == "inference" and len(exact) == 1:  # "on my 4090": what runs on it
        catalog = load_catalog()
        ev.smaller = smaller_models_that_fit(ev.model, workload, catalog.gpu(own.gpu), catalog)


def _lone_config(workload: Workload, constraints: Constraints, lone: NamedConfig, steps: list[Step],
                 ev: Analysis) -> None:
    """"one RTX 3060 12GB, does it work?": what would make that configuration work, checked on it as the
    recommender checks the user's own cards (review R33), even when other configurations work."""
    shown = next((o for o in ev.user_options if o.gpu == lone.gpu and o.count == lone.count), None)
    if shown is None or shown.fits or lone.count is None:
        return
    probe = _recommend(workload, replace(constraints, existing=ExistingGpus(gpu=lone.gpu, count=lone.count), candidates=()), steps, ev)
    if probe is not None:
        ev.named_changes = [ch for ch in probe.changes if ch.for_existing]
        ev.named_config = shown
        ev.offload = _offload_of(probe)
    fmt = next((ch.value for ch in ev.named_changes if ch.kind == "precision" and isinstance(ch.value, str)), None)
    fewer = next((ch.value for ch in ev.named_changes if ch.kind == "concurrency" and isinstance(ch.value, int)), None)
    if fmt is not None and workload.task == "inference":
        # the change evaluated on the configuration named, so a speed or load question is answered as changed
        changed = _evaluate_named(replace(workload, weights=fmt), constraints, [lone], steps)[0]
        ev.changed_config = changed if changed.fits else None
    elif fewer is not None and 1 < fewer < workload.concurrency and workload.task == "inference":
        # "100 users on 8 H800: TTFT?" when 62 fit: the load of the most users it holds, so the question is answered
        changed = _evaluate_named(replace(workload, concurrency=fewer), constraints, [lone], steps)[0]
        ev.changed_config = changed if changed.fits else None


def _bigger_twin(workload: Workload, constraints: Constraints, lone: NamedConfig, steps: list[Step],
                 ev: Analysis) -> Option | None:
    """"Can a Mac Studio M3 Ultra run DeepSeek-V3 at Q4?": when the card named (its catalog default, the 96 GB
    machine) cannot hold the job at the count named, the smallest of the same card's larger memory sizes that can
    (Catalog.memory_twins: the 512 GB machine), evaluated as named; None when the named one fits or none does."""
    shown = next((o for o in ev.user_options if o.gpu == lone.gpu and o.count == lone.count), None)
    if shown is None or shown.fits:
        return None
    for twin in load_catalog().memory_twins(lone.gpu):
        opt = _evaluate_named(workload, constraints, [replace(lone, gpu=twin.id)], steps)[0]
        if opt.fits:
            return opt
    return None


def _stretch(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
             rec: Recommendation) -> None:
    """The speed at the user's average load, how far the user's own (or one named) configuration stretches, and
    each option's capacity at full load when no concurrency was given (the tables' speeds are for one user)."""
    workload = request.workload
    avg = request.concurrency_avg
    if workload.task == "inference" and avg and avg < workload.concurrency:
        lead = top_option(ev) or next((o for o in ev.user_options if o.fits), None)
        if lead is not None:
            ev.average_speed = speed_at(model, catalog.gpu(lead.gpu), lead, avg, steps)
    own = next((o for o in ev.user_options if "existing" in o.labels), None)
    one = own or (ev.user_options[0] if len(ev.user_options) == 1 else None)
    if one is not None:
        ev.limits = config_limits(model, catalog.gpu(one.gpu), one, workload, steps)
    if workload.task == "inference" and request.concurrency_given and workload.concurrency > 1:
        lead = top_option(ev) or next((o for o in ev.user_options if o.fits), None)
        if lead is not None and lead.fits:
            ev.load = _load_at(request, model, catalog.gpu(lead.gpu), lead, workload.concurrency, steps)
            _same_figures(lead, ev.load)
    changed = ev.changed_config
    if changed is not None and request.concurrency_given and workload.concurrency > 1:
        users = min(workload.concurrency, changed.sized_workload.concurrency if changed.sized_workload else
                    workload.concurrency)  # a change of load (fewer users) is simulated at that load
        ev.changed_load = _load_at(request, model, catalog.gpu(changed.gpu), changed, users, steps)
    if request.asks_speculation and workload.task == "inference":
        _speculation(request, model, catalog, steps, ev, one)
    if workload.task != "inference" or request.concurrency_given:
        return
    mine = ev.limits.option if ev.limits is not None else None
    for o in ev.user_options + ev.alternatives + rec.options[:4]:
        key = (o.gpu, o.count)
        if o is mine or key in ev.capacity or not o.fits:
            continue
        cap = capacity(model, catalog.gpu(o.gpu), o, steps)
        if cap is not None:
            ev.capacity[key] = cap
    if request.job_requests and workload.task == "inference":
        _batch_job(request, model, catalog, steps, ev, one)
        return
    if request.asks_rps and workload.task == "inference":
        _requests_per_s(request, model, catalog, steps, ev, one)
        return
    if request.asks_users:
        # "how many users at 30 ms per token?": the load the memory holds (the limits of the configuration named,
        # else its capacity above), simulated, and the most users meeting the stated target (the users lead); the
        # load sentence then speaks of that many users, not of the memory's most, which nobody asked about.
        # "How many users (and what TTFT)?" with no target: the same at the default per-token target, so the users
        # and their speed are the simulation's, as under any other load the answer shows
        asked = one or top_option(ev)
        if asked is not None and asked.fits:
            gpu, held = catalog.gpu(asked.gpu), _held(ev, asked) or 1
            ev.load = _load_at(request, model, gpu, asked, held, steps)
            limit = int((ev.load or {}).get("max_concurrency_for_target") or 0)
            if 1 <= limit < held:
                ev.load = _load_at(request, model, gpu, asked, limit, steps) or ev.load
        if one is None and request.constraints.budget and request.constraints.budget_covers == "system":
            _budget_users(request, model, catalog, steps, ev)


def _speculation(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                 one: Option | None) -> None:
    """"Does speculative decoding help, how much faster?": the configuration named (else the lead) at the load asked
    (one user when none was), simulated without and with speculation (`Speculation()`: k drafted tokens a step, each
    accepted with probability α, a draft step at a few % of the target's; tokens a step (1 − α^(k+1)) / (1 − α)):
    `Analysis.speculation`. Its gain shrinks as the load grows: the drafts' verification shares the batch."""
    from advisor.estimator.serving_sim import Speculation  # start-up: only a speculation question simulates it

    asked = one or top_option(ev)
    if asked is None or not asked.fits:
        return
    gpu, users = catalog.gpu(asked.gpu), max(1, request.workload.concurrency)
    spec = Speculation()
    base = _load_at(request, model, gpu, asked, users, steps)
    with_spec = serving_load(model, gpu, asked, users, steps, speculation=spec)
    if base and with_spec:
        ev.speculation = {"option": asked, "users": users, "base": base, "spec": with_spec, "k": spec.k,
                          "acceptance": spec.acceptance, "tokens_per_step": spec.tokens_per_step()}


BUDGET_OPTIONS = 6  # the recommender's leading configurations tried for "the most users a budget buys"


def _budget_users(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step],
                  ev: Analysis) -> None:
    """"With a ¥2M budget, how many concurrent users at most?": the budget spent on identical copies of one of the
    recommender's leading configurations (each priced, sold in the region), the copies that fit it,
    ⌊budget ÷ price of one copy⌋, times the users one copy serves within the per-token target (stated, else the
    default; no more than its memory holds, simulated at that load): the configuration whose copies serve the most
    (`Analysis.budget_users`; ties: the cheaper), its load the answer's load line. Copies of an inference deployment
    scale linearly (each keeps its own weights and KV cache), as `render.scale_out.replicas_for_load` counts them."""
    from advisor.recommend.prices import budget_price  # start-up: only a budget question prices copies
    from advisor.recommend.rank import leadable, mainstream_stack  # start-up: likewise

    c = request.constraints
    budget = c.budget or 0.0
    rec = ev.recommendation.options if ev.recommendation is not None else []
    best: tuple[int, float, Option, int, int, dict[str, Any]] | None = None
    seen: set[tuple[str, int, int]] = set()
    # hardware a company would buy in quantity: priced new and sold in the region (no used or end-of-life cards),
    # on a mainstream software stack
    buyable = [o for o in rec if o.fits and "existing" not in o.labels and leadable(o, catalog.gpu(o.gpu), c)
               and mainstream_stack(catalog.gpu(o.gpu), c.region, users=2)]
    per_node = c.max_gpus_per_node
    tried = []
    for o in buyable[:BUDGET_OPTIONS]:  # each as sized, and a whole server's worth of its cards laid out for users
        tried.append(o)
        for k in (2 * o.count, 4 * o.count, 8 * o.count):
            if o.count < k <= per_node:
                tried += [x for x in _as_replicas(request, model, o, k, steps) if x.fits]
    for o in tried:
        key = (o.gpu, o.count, o.layout.tp)
        price = budget_price(o, "system")
        if key in seen or not price or price > budget:
            continue
        seen.add(key)
        gpu = catalog.gpu(o.gpu)
        held = _held_or_capacity(ev, model, gpu, o, steps, made=False) or 1
        load = _load_at(request, model, gpu, o, held, steps)
        per = int((load or {}).get("max_concurrency_for_target") or 0)
        if load is None or per < 1:
            continue
        if per < held:
            load = _load_at(request, model, gpu, o, per, steps) or load
        copies = int(budget // price)
        users = copies * per
        if best is None or (users, -copies * price) > (best[0], -best[1]):
            best = (users, copies * price, o, copies, per, load)
    if best is not None and best[3] > 1:
        users, spent, o, copies, per, load = best
        ev.budget_users = {"option": o, "copies": copies, "per_copy": per, "users": users, "spent": spent}
        ev.load = load
        if ev.recommendation is not None:  # the configuration answered leads the options shown with it
            from advisor.recommend.recommender import same_config  # start-up: only a budget's copies reorder options

            ev.recommendation.options = [o, *(x for x in ev.recommendation.options if not same_config(x, o))]


def _load_at(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, option: Option, concurrency: int,
             steps: list[Step]) -> dict[str, Any] | None:
    """The simulated load on `option` at `concurrency` under the request's targets: its per-token target (stated,
    else serving_load's default), its first-token target, and the 99th percentiles when they were asked."""
    ms = request.constraints.max_ms_per_token
    return serving_load(model, gpu, option, concurrency, steps, tpot_target_s=Seconds.of(ms, "ms").s if ms else None,
                        ttft_target_s=request.ttft_target_s, tails=request.asks_p99)


def _held(ev: Analysis, asked: Option) -> int:
    """The concurrent sequences `asked` holds: the limits of the configuration named, else its capacity row; 0
    when neither was made."""
    held = ev.limits.max_load if ev.limits is not None and ev.limits.option is asked else 0
    return int(held or ev.capacity.get((asked.gpu, asked.count), {}).get("max_concurrency") or 0)


def _held_or_capacity(ev: Analysis, model: ModelSpec, gpu: GpuSpec, option: Option, steps: list[Step], *,
                      made: bool = True) -> int:
    """The concurrent sequences `option` holds, at least 1: `_held` where its limits or capacity row were made
    (`made`: `option` is the one they were made for, not another layout of the same cards), else its capacity now."""
    held = _held(ev, option) if made else 0
    if not held:
        cap = capacity(model, gpu, option, steps)
        held = int(cap["max_concurrency"]) if cap else 1
    return max(1, held)


def _requests_per_s(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                    one: Option | None) -> None:
    """"How many requests per second can it handle?": the most concurrent requests the configuration serves within
    the per-token target (stated, else the interactivity default; the TTFT target too when stated), no more than
    its memory holds, simulated again at that load: its closed-loop rate X = C / R requests/s (Little's law) is the
    answer (`Analysis.load` at that concurrency, `requests_per_s`)."""
    asked = one or top_option(ev)
    if asked is None or not asked.fits:
        return
    gpu = catalog.gpu(asked.gpu)
    held = _held_or_capacity(ev, model, gpu, asked, steps)
    probe = _load_at(request, model, gpu, asked, held, steps)
    limit = int((probe or {}).get("max_concurrency_for_target") or 0)
    if probe is None or limit < 1:
        ev.load = probe
        return
    ev.load = probe if limit == held else _load_at(request, model, gpu, asked, limit, steps)


def _batch_job(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
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
    best = _fastest_batch(request, model, gpu, [asked, *_as_replicas(request, model, asked, asked.count, steps)],
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
        sizes = [k for k in ((1, 2, 4, 8, 16) if one is None else (2 * asked.count, 4 * asked.count, 8 * asked.count))
                 if (asked.count < k or one is None) and k <= per_node]
        tried = [best] + [b for k in sizes
                          for b in [_fastest_batch(request, model, gpu, _as_replicas(request, model, asked, k, steps),
                                                   steps, ev, None)] if b is not None]
        top = max(b[0] / b[1].count for b in tried)  # within 1 % of the most per GPU, the fewest cards a copy
        rate_k, opt_k, _, _ = min((b for b in tried if b[0] / b[1].count >= 0.99 * top), key=lambda b: b[1].count)
        copies = math.ceil(n / (rate_k * deadline))
        if one is not None or copies * opt_k.count < asked.count:
            ev.batch.update(deadline_s=deadline, copies=copies, copy_option=opt_k, copy_rate=rate_k, sized=one is None)


def _as_replicas(request: AnalysisRequest, model: ModelSpec, asked: Option, count: int,
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


def _fastest_batch(request: AnalysisRequest, model: ModelSpec, gpu: GpuSpec, options: list[Option],
                   steps: list[Step], ev: Analysis,
                   asked: Option | None) -> tuple[float, Option, int, dict[str, Any]] | None:
    """Of `options`, the one with the highest closed-loop rate at the most requests it holds at once: (requests/s,
    option, requests held, its simulated load). Only `asked` reads the limits or capacity row the analysis made:
    a capacity row is keyed by card and count, and another layout of those cards holds another number."""
    best: tuple[float, Option, int, dict[str, Any]] | None = None
    for opt in options:
        held = _held_or_capacity(ev, model, gpu, opt, steps, made=opt is asked)
        load = _load_at(request, model, gpu, opt, held, steps)
        rate = float((load or {}).get("requests_per_s") or 0)
        if load is not None and rate > 0 and (best is None or rate > best[0]):
            best = (rate, opt, held, load)
    return best


def _same_figures(o: Option, load: dict[str, Any] | None) -> None:
    """The option the load sentence speaks of shows that sentence's figures in its table row too (the ladder's "for
    up to C users"; the recommender's rows carry the one simulation at C): one figure per fact."""
    t = o.throughput
    if load is None or t is None or t.under_load is None:
        return
    o.throughput = replace(t, under_load=replace(
        t.under_load, ttft=Seconds(load["ttft_s"]), ttft_p95=Seconds(load["ttft_p95_s"]), tpot=Seconds(load["tpot_s"]),
        per_user_tokens_per_s=load["per_user_tokens_per_s"], total_tokens_per_s=load["total_tokens_per_s"]))


def _recommend(workload: Workload, constraints: Constraints, steps: list[Step], ev: Analysis, *,
               strict: bool = False) -> Recommendation | None:
    """The recommender's ranked options; None (and a note) when it is missing or fails on something other
    than the user's input, so the memory-only answer still comes through (`strict`: it raises)."""
    try:
        # optional: the answer degrades when advisor.recommend.recommender fails to import
        from advisor.recommend.recommender import recommend
    except ImportError:
        if strict:
            raise
        ev.unavailable.append("recommend")
        return None
    try:
        return timed(steps, "recommend", {"model": workload.model, "task": workload.task,
                                          "region": constraints.region},
                     lambda: recommend(workload, constraints))
    except (InputError, NotValidated):  # the rules could not be checked: say so, never answer unchecked
        raise
    except Exception as exc:
        if strict:
            raise
        log.warning("recommend failed; answering from the memory estimator: %s", exc)
        ev.unavailable.append("recommend")
        return None


def _training_precisions(request: AnalysisRequest, steps: list[Step], ev: Analysis) -> None:
    """"FP8 instead of BF16 to pre-train it on 64 H100: how much faster?": the configuration named (or the lead)
    planned in FP8 and in BF16 (`Workload.train_precision`), the runs side by side (`Analysis.precision_runs`)
    in place of the memory of the two weight formats, which is not what is asked."""
    w = request.workload
    asked = {v for f, v in request.variants if f == "weights"}
    if w.task not in ("pretrain", "full") or asked != {"fp8", "bf16"}:
        return
    base = ev.user_options[0] if len(ev.user_options) == 1 else top_option(ev)
    if base is None:
        return
    from advisor.recommend.assumptions import DEFAULT_TRAINING_DEADLINE_S  # start-up: training answers only

    count = base.count
    slow = base.training is not None and base.training.wall.s > DEFAULT_TRAINING_DEADLINE_S
    if not base.fits or slow:  # a card that cannot hold the run, or takes years on it ("FP8 training on H100 …, for
        # a 70B?"): the recommender's count of that card, which finishes within its default deadline; else (a card
        # the region's search leaves out) the run's cards scaled to that deadline, in whole 8-GPU servers
        rec = ev.recommendation.options if ev.recommendation is not None else []
        fit = next((o for o in rec if o.gpu == base.gpu and o.fits and o.training is not None), None)
        if fit is not None:
            count = fit.count
        elif base.fits and base.training is not None:
            need = base.count * base.training.wall.s / DEFAULT_TRAINING_DEADLINE_S
            count = 8 * 2 ** math.ceil(math.log2(max(1.0, need / 8)))
        else:
            return
    runs = []
    for precision in ("fp8", "bf16"):
        sized = replace(w, weights=None, train_precision=precision)
        runs += _evaluate_named(sized, request.constraints, [NamedConfig(gpu=base.gpu, count=count)], steps)
    if len(runs) == 2 and all(o.fits and o.training is not None for o in runs):
        ev.precision_runs = runs
        ev.variants = []


def _same_count(request: AnalysisRequest, steps: list[Step], ev: Analysis) -> None:
    """"How much faster would B200s be than H100s for training a 70B?": two or more cards named with no count, for
    a training job (or their serving speed), are compared at one count, the largest of their smallest fitting counts (a run's time falls
    with its GPUs, so 1× B200 against 4× H100 would compare the counts, not the cards); kept as sized when that
    count does not fit them all."""
    named = [m for m in request.named if m.role == "candidate"]
    opts = ev.user_options
    # serving too when the speed is what is compared ("how much faster is H200 than H100 for a 405B?"): 4× H200
    # against 8× H100 would compare the counts
    by_card = request.workload.is_training or request.asks_speed
    if (request.intent != "compare" or not by_card or len(named) < 2 or len(opts) != len(named)
            or any(m.count for m in named) or not all(o.fits for o in opts) or len({o.count for o in opts}) == 1):
        return
    n = max(o.count for o in opts)
    same = _evaluate_named(request.workload, request.constraints, [replace(m, count=n) for m in named], steps)
    if all(o.fits for o in same):
        ev.user_options = same


def _evaluate_named(workload: Workload, constraints: Constraints, named: list[NamedConfig],
                    steps: list[Step]) -> list[Option]:
    """The named configurations exactly as named (advisor.recommend.recommender.evaluate_configs), labelled with their role;
    the node limit widened to hold the widest."""
    configs = [(m.gpu, m.count or 1) for m in named]
    widest = max(n for _, n in configs)
    c = constraints
    if widest > c.max_gpus_per_node * c.max_nodes:
        c = replace(c, max_nodes=-(-widest // c.max_gpus_per_node))
    options = timed(steps, "evaluate_configs", {"model": workload.model, "configs": configs},
                    lambda: evaluate_configs(workload, configs, c),
                    lambda r: ", ".join(f"{o.count}× {o.gpu}: {'fits' if o.fits else 'does not fit'}" for o in r))
    out = []
    for opt, mention in zip(options, named, strict=True):
        labels = [lab for lab in opt.labels if lab != mention.role] + [mention.role]
        out.append(replace(opt, labels=labels))
    return out


def _offload_of(rec: Recommendation) -> Option | None:
    """The recommender's llama.cpp layer-offload option (one named card that cannot hold the model), or None."""
    return next((o for o in list(rec.options) + list(rec.closest) if "offload" in o.labels), None)


def _rules(ev: Analysis) -> list[Finding]:
    """Findings to show: the top configuration's (rule metadata renders wording and citation), then the
    workload's own (guide tiers, size tables), each rule once; warnings before information."""
    claimed = list(ev.claim.findings) if ev.claim is not None else []
    if ev.recommendation is None:
        if "rules" not in ev.unavailable:
            ev.unavailable.append("rules")
        return list(ev.premise) + claimed
    top = top_option(ev)
    found = list(ev.premise) + claimed
    found += list(top.findings if top is not None else []) + list(ev.recommendation.findings)
    seen: set[str] = set()
    out = []
    for f in found:
        if f.rule_id not in seen:
            seen.add(f.rule_id)
            out.append(f)
    order = {"block": 0, "warn": 1, "info": 2}
    return sorted(out, key=lambda f: order.get(f.severity, 3))


def _single_gpu_fit_limits(ev: Analysis, catalog: Catalog) -> FitLimits | None:
    """"Will this fine-tune fit on my card?" on one named GPU: the spare memory, the largest micro-batch and the
    longest sequence that fit (advisor.estimator.fit_limits, each a full estimate); None for other questions."""
    w = ev.workload
    named = [o for o in ev.user_options if o.count == 1]
    if not w.is_training or len(ev.user_options) != 1 or not named:
        return None
    try:
        return training_fit_limits(ev.model, w, catalog.gpu(named[0].gpu))
    except (InputError, NotValidated):  # a limit that cannot be computed is left out, never guessed
        return None
