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
from advisor.analysis.limits import capacity, config_limits, speed_at
from advisor.analysis.load_answers import (
    batch_job,
    budget_users,
    chat_turns_apply,
    chunked_prefill,
    fuller_for_tokens,
    held_or_capacity,
    held_sequences,
    load_at,
    load_change,
    load_ladder,
    load_within_target,
    requests_per_s,
    served_variants,
    speculation,
    ttft_ladder,
    turns_at,
    turns_load,
    turns_users,
)
from advisor.analysis.memory_only import evaluate_config, search, smallest_count
from advisor.analysis.named import evaluate_named
from advisor.analysis.pinned_layout import settle
from advisor.analysis.rent_budget import cheapest_rented, rent_cap, rentable_cards
from advisor.analysis.request import AnalysisRequest, NamedConfig
from advisor.analysis.result import SAME_CARD_REACH, Analysis, Assumption, top_option
from advisor.analysis.smaller import smaller_models_that_fit
from advisor.analysis.steps import Step, timed
from advisor.analysis.training_compare import same_count, training_frameworks, training_precisions
from advisor.analysis.variants import variant_needs
from advisor.estimator.fit_limits import FitLimits, training_fit_limits
from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import default_inference_format, estimate_memory
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError, NotValidated
from knowledge.messages import pair
from knowledge.quantities import Seconds
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option, Recommendation
    from advisor.recommend.results import Change
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
    """Run the tools for `request` (each call recorded in `steps`); see the module docstring. A training layout the
    user pinned is kept, or the analysis made again without it (advisor.analysis.pinned_layout). Raises the
    estimator's and recommender's input errors (AdvisorError) as they come."""
    if catalog is None:
        catalog = load_catalog()
    steps = [] if steps is None else steps
    return settle(request, _analyse(request, catalog, steps), lambda free: _analyse(free, catalog, steps))


def _analyse(request: AnalysisRequest, catalog: Catalog, steps: list[Step]) -> Analysis:
    w = request.workload
    if request.reference_method in PREFERENCE_METHODS and w.is_training and w.method == "sft":  # "DPO …": sized as DPO
        request = replace(request, workload=replace(w, method=request.reference_method.lower()))
    workload, constraints = request.workload, request.constraints
    rented = None
    if constraints.monthly_rent_budget and not constraints.candidates:  # "每月 5 万租卡": among the cards rented out
        constraints = replace(constraints, candidates=rentable_cards(catalog, constraints.region))
        request = replace(request, constraints=constraints)
    if workload.is_training and constraints.monthly_rent_budget:  # "$100k a month for rented H100s": that many cards
        constraints, rented = rent_cap(constraints, catalog)
        request = replace(request, constraints=constraints)
        if rented and rented.get("within") and request.intent == "feasibility":  # "… is that enough?": on those cards
            request = replace(request, named=tuple(replace(m, count=int(rented["within"]))
                                                   if m.gpu == rented["gpu"] and not m.count else m for m in request.named))
    model = catalog.model(workload.model or "")
    ev = Analysis(workload=workload, constraints=constraints, model=model, intent=request.intent, stated=request.stated,
                  inferred=request.inferred, host_cloud=request.host_cloud, asks_users=request.asks_users, asks_need=request.asks_need,
                  asks_speed=request.asks_speed, asks_context=request.asks_context, asks_batch=request.asks_batch,
                  asks_servers=request.asks_servers, asks_token_cost=request.asks_token_cost,
                  asks_why_count=request.asks_why_count, reference_method=request.reference_method,
                  asks_cheapest=request.asks_cheapest or request.asks_minimum, asks_minimum=request.asks_minimum,
                  asks_api=request.asks_api, api_provider=request.api_provider, asks_monthly=request.asks_monthly, asks_cost=request.asks_cost, asks_kv_token=request.asks_kv_token, asks_kv_capacity=request.asks_kv_capacity,
                  asks_tokens_per_day=request.asks_tokens_per_day, asks_power=request.asks_power,
                  asks_launch=request.asks_launch, asks_train_speed=request.asks_train_speed, asks_mfu=request.asks_mfu,
                  asks_full_load=request.asks_full_load, asks_rps=request.asks_rps,
                  rate_period_s=request.rate_period_s, asks_e2e=request.asks_e2e, asks_ttft=request.asks_ttft,
                  asks_speculation=request.asks_speculation, asks_plan=request.asks_plan,
                  asks_p99=request.asks_p99, asks_fits=request.asks_fits,
                  asks_oom=request.asks_oom, rent_cap=rented)
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
        training_precisions(request, steps, ev)
        training_frameworks(request, steps, ev)
        ev.fit_limits = _single_gpu_fit_limits(ev, catalog)
        ev.minimum_4bit = _minimum_at_4bit(request, model, steps, ev)
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


def _within_reach(o: Option, named: list[NamedConfig]) -> bool:
    """An option that meets the targets within `SAME_CARD_REACH` × the largest count named (any count when none
    was)."""
    most = max((m.count or 0 for m in named), default=0)
    return o.meets_targets and (not most or o.count <= SAME_CARD_REACH * most)


def _minimum_at_4bit(request: AnalysisRequest, model: ModelSpec, steps: list[Step], ev: Analysis) -> Option | None:
    """"Minimum configuration for GLM-4.5-Air?" with no format said: the lowest purchase of new hardware at 4-bit
    weights (AWQ INT4), the format a minimum setup is usually run in, beside the answer's own format; None when not
    asked, a format was said, the job trains, or the model's own weights are 4-bit already."""
    w = request.workload
    if not request.asks_minimum or w.weights or w.is_training or request.named:
        return None
    if bits_per_weight(default_inference_format(model)) <= 5:  # the checkpoint is 4-bit already (gpt-oss MXFP4)
        return None
    from advisor.recommend.prices import lowest_purchase  # start-up: the recommender stays optional (_recommend)

    rec = _recommend(replace(w, weights="awq-int4"), request.constraints, steps, ev)
    four = lowest_purchase(rec.options, new_only=True) if rec else None
    return four if four is not None and four.meets_targets and "used" not in four.labels else None


def count_said(request: AnalysisRequest, rec: Recommendation, ev: Analysis) -> tuple[NamedConfig, ...]:
    """"How long to train X on 2048 GPUs?": the count said with no card is the configuration asked about, so a
    training job is evaluated at exactly that count on the search's leading card (the search alone would answer
    with its own smallest count that meets the deadline); the card so chosen is said as an assumption. Two counts
    ("GPUs from 256 to 512") are two configurations of that card, compared."""
    n = request.count_said
    lead = next((o for o in rec.options if o.meets_targets), rec.options[0] if rec.options else None)
    if n is None or request.named or not request.workload.is_training or lead is None:
        return ()
    en, zh = pair("assumption.count_said", n="{n}", gpu=lead.gpu_name)  # {n}: a number the renderer records
    ev.assumptions.append(Assumption(en, zh, {"n": (n, "", "user input")}))
    ev.count_card = lead.gpu_name
    said = (n, request.count_said_to) if request.count_said_to else (n,)  # "from 256 to 512 GPUs": both, one card
    return tuple(NamedConfig(gpu=lead.gpu, count=k, role="candidate", count_only=True) for k in said)


def _named_options(request: AnalysisRequest, rec: Recommendation, steps: list[Step], ev: Analysis) -> None:
    """The user's own configurations as options: exactly as named where a count was given (or owned), else the
    search's smallest fitting count; then what would make a lone named configuration work, and alternatives
    beyond the named cards when none of them works."""
    workload, constraints = request.workload, request.constraints
    exact = [m for m in request.named if m.count or m.role == "existing"]
    if exact:
        ev.user_options = evaluate_named(workload, constraints, exact, steps)
    for mention in request.named:  # a card named without a count: the search's smallest fitting count
        if mention.count or mention.role == "existing":
            continue
        found = next((o for o in rec.options + rec.closest if o.gpu == mention.gpu), None)
        if found is not None:  # a rented training run: the count with the fewest GPU-hours (analysis.rent_budget)
            found = cheapest_rented(workload, constraints, found, steps)
            ev.user_options.append(replace(found, labels=list(found.labels) + ["candidate"]))
        elif constraints.region == "cn":
            # a card a China-market rule rules out ("H800 集群") leaves the search empty-handed: size it as if
            # it could be bought, then show it at that count with the rule's finding, beside what can be bought
            probe = _recommend(workload, replace(constraints, region="global", candidates=(mention.gpu,), budget=None), steps, ev)
            hit = next((o for o in (probe.options + probe.closest if probe else []) if o.gpu == mention.gpu), None)
            if hit is not None:
                ev.user_options += evaluate_named(workload, constraints, [replace(mention, count=hit.count)], steps)
    same_count(request, steps, ev)
    candidates = [m for m in request.named if m.role == "candidate"]
    owned = any(m.role == "existing" for m in request.named)
    lone = [m for m in candidates if m.count]
    if (len(exact) >= 2 and workload.task == "inference" and workload.weights is None and ev.user_options
            and not any(o.fits for o in ev.user_options)):
        ev.compared_4bit = _compared_at_4bit(workload, constraints, exact, steps)
    if not owned and len(lone) == 1:
        _lone_config(workload, constraints, lone[0], steps, ev)
        ev.bigger_twin = _bigger_twin(workload, constraints, lone[0], steps, ev)
    mine = [m for m in request.named if m.role == "existing"]
    if owned and len(mine) == 1 and not any(o.fits for o in ev.user_options if "existing" in o.labels):
        # "can my 4090 run it, how fast?": the change the recommender checked on the user's own cards, evaluated
        _changed_config(workload, constraints, replace(mine[0], role="candidate"),
                        [ch for ch in rec.changes if ch.for_existing], steps, ev)
    count_only = next((m for m in candidates if m.count and m.count_only), None)
    if count_only is not None and count_only.count and not any(o.meets_targets for o in ev.user_options):
        # "what if we only have four cards?": the leading card at that count does not work; what does, in as
        # many cards of any kind (not more cards of the same one)
        n = max(1, min(16, count_only.count))
        fewer = _recommend(workload, replace(constraints, candidates=(), max_gpus_per_node=n, max_nodes=1), steps, ev)
        if fewer is not None:
            ev.alternatives = [o for o in fewer.options if o.meets_targets and o.count <= n][:3]
            ev.alternatives_within = n
    elif candidates and constraints.candidates and not any(_within_reach(o, candidates)
                                                           for o in rec.options + ev.user_options):
        # none of the named cards works (too small, blocked in the region), or works only as many times more of it
        # (LoRA of a 72B on "an 8× 4090 server" fits on 256 of them): what the whole catalog offers
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
    _changed_config(workload, constraints, lone, ev.named_changes, steps, ev)


def _compared_at_4bit(workload: Workload, constraints: Constraints, named: list[NamedConfig],
                      steps: list[Step]) -> list[Option]:
    """The configurations compared, each at 4 bits, when none holds the job at the checkpoint's own precision: GGUF
    Q4_K_M for a few users on consumer/workstation cards (what they run), else AWQ INT4; [] when the checkpoint is
    already at 4 bits or none holds it at 4 bits either."""
    # start-up: only two named configurations that both fail compare at 4 bits
    from advisor.recommend.changes import FEW_USERS, GGUF_FOR

    catalog = load_catalog()
    model = catalog.model(workload.model) if workload.model else None
    if model is None or bits_per_weight(default_inference_format(model)) <= 4.5:
        return []
    # a few users on consumer or workstation cards run the GGUF file of the 4-bit class (llama.cpp, Ollama), a
    # service AWQ (recommend.changes: the same split its engine change makes)
    home = workload.concurrency <= FEW_USERS and all(
        catalog.gpu(n.gpu).segment in ("consumer", "workstation") for n in named)
    fmt = GGUF_FOR["awq-int4"] if home else "awq-int4"
    out = evaluate_named(replace(workload, weights=fmt), constraints, named, steps)
    return out if any(o.fits for o in out) else []


def _changed_config(workload: Workload, constraints: Constraints, named: NamedConfig, changes: list[Change],
                    steps: list[Step], ev: Analysis) -> None:
    """The configuration named, which does not hold the job as asked, evaluated with the lightest change checked on
    it (an FP8 KV cache, a weight format, fewer users), so a speed or load question is answered as changed."""
    fmt = next((ch.value for ch in changes if ch.kind == "precision" and isinstance(ch.value, str)), None)
    kv = next((ch.value for ch in changes if ch.kind == "kv" and isinstance(ch.value, str)), None)
    fewer = next((ch.value for ch in changes if ch.kind == "concurrency" and isinstance(ch.value, int)), None)
    if kv is not None and workload.task == "inference":  # an FP8 KV cache, the weights kept: the lighter change
        changed = evaluate_named(replace(workload, kv=kv), constraints, [named], steps)[0]
        ev.changed_config = changed if changed.fits else None
    elif fmt is not None and workload.task == "inference":
        # the change evaluated on the configuration named, so a speed or load question is answered as changed
        # (a 4-bit file offered with a shorter context is evaluated at that context)
        cut = next((ch.context for ch in changes if ch.kind == "precision" and ch.context), None)
        changed = evaluate_named(replace(workload, weights=fmt, **({"context": cut} if cut else {})), constraints,
                                 [named], steps)[0]
        ev.changed_config = changed if changed.fits else None
    elif fewer is not None and 1 < fewer < workload.concurrency and workload.task == "inference":
        # "100 users on 8 H800: TTFT?" when 62 fit: the load of the most users it holds, so the question is answered
        changed = evaluate_named(replace(workload, concurrency=fewer), constraints, [named], steps)[0]
        ev.changed_config = changed if changed.fits else None


def _bigger_twin(workload: Workload, constraints: Constraints, lone: NamedConfig, steps: list[Step],
                 ev: Analysis) -> Option | None:
    """"Can a Mac Studio M3 Ultra run DeepSeek-V3 at Q4?": when the card named (its catalog default, the 96 GB
    machine) cannot hold the job at the count named, the smallest of the same card's larger memory sizes that can
    (Catalog.memory_twins: the 512 GB machine), evaluated as named; None when the named one fits or none does."""
    shown = next((o for o in ev.user_options if o.gpu == lone.gpu and o.count == lone.count), None)
    if shown is None or shown.fits:
        return None
    from advisor.recommend.changes import raised_share_mb  # start-up: only a named card too small asks
    raised = None
    for twin in load_catalog().memory_twins(lone.gpu):
        opt = evaluate_named(workload, constraints, [replace(lone, gpu=twin.id)], steps)[0]
        if opt.fits:
            return opt
        if raised is None and raised_share_mb(twin, opt.per_gpu.total.n) is not None:
            raised = opt  # holds it once macOS gives the GPU more of the pool (render: the sysctl line)
    return raised


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
    changed = ev.changed_config
    if (request.asks_batch or request.asks_context) and ev.limits is not None and ev.limits.max_load <= 0 \
            and changed is not None:
        # "max batch for a 24B on a 4090?", "what context fits for a 7B on a 3060?" when not one sequence fits as
        # asked: the batch or the context the changed format holds
        ev.changed_limits = config_limits(model, catalog.gpu(changed.gpu), changed, workload, steps)
    if workload.task == "inference" and request.concurrency_given and workload.concurrency > 1:
        lead = top_option(ev) or next((o for o in ev.user_options if o.fits), None)
        if lead is not None and lead.fits:
            ev.load = load_at(request, model, catalog.gpu(lead.gpu), lead, workload.concurrency, steps)
            _same_figures(lead, ev.load)
            ev.at_target = _at_default_target(request, lead, steps, ev)
            load_change(request, model, catalog, steps, ev, lead)  # "from 50 to 100 users": the load before, too
    if changed is not None and request.concurrency_given and workload.concurrency > 1:
        copies = max(1, changed.layout.replicas or 1)  # the sized workload is one replica's share of the users
        users = min(workload.concurrency, changed.sized_workload.concurrency * copies if changed.sized_workload else
                    workload.concurrency)  # a change of load (fewer users) is simulated at that load
        ev.changed_load = load_at(request, model, catalog.gpu(changed.gpu), changed, users, steps)
        if ev.load_change is None and users == workload.concurrency:  # "from 20 to 80 users" on the changed cards
            load_change(request, model, catalog, steps, ev, changed, ev.changed_load)
    if one is not None and request.concurrency_given and not _other_load_question(request):
        turns_load(request, model, catalog, steps, ev, one)  # "50 users on one 4090": their chat turns, paged
    if request.asks_speculation and workload.task == "inference":
        speculation(request, model, catalog, steps, ev, one)
    if request.asks_chunked and workload.task == "inference":
        chunked_prefill(request, model, catalog, steps, ev, one)
    if request.asks_ttft_ladder and workload.task == "inference":
        ttft_ladder(request, model, catalog, steps, ev, one)
    if request.tp_compared and workload.task == "inference":  # "TP 8, or 2 replicas of TP 4?"
        served_variants(request, model, catalog, steps, ev, "tp", request.tp_compared)
    formats = tuple(v for f, v in request.variants if f == "weights")
    if request.served_formats and len(formats) == 2 and workload.task == "inference":  # "FP8 or BF16: how fast?"
        served_variants(request, model, catalog, steps, ev, "weights", formats)
        if ev.served_runs:
            ev.variants = []  # the speed at each format is what is asked, not the memory
    if request.load_ladder and workload.task == "inference":  # "as concurrency goes 1, 8, 32, 128"
        load_ladder(request, model, catalog, steps, ev, one)
    if workload.task == "inference" and request.asks_users and request.concurrency_given and ev.load is None:
        _users_held(request, model, catalog, steps, ev, one)
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
    if request.asks_token_cost and request.asks_full_load and one is not None and not request.count_named:
        fuller_for_tokens(request, model, catalog, steps, ev, one)  # "on H100 at high load": the count that batches
    if request.job_requests and workload.task == "inference":
        batch_job(request, model, catalog, steps, ev, one)
        return
    if request.asks_rps and workload.task == "inference":
        requests_per_s(request, model, catalog, steps, ev, one)
        return
    if request.asks_users or request.constraints.monthly_rent_budget:
        # "how many users at 30 ms per token?": the load the memory holds (the limits of the configuration named,
        # else its capacity above), simulated, and the most users meeting the stated target (the users lead); the
        # load sentence then speaks of that many users, not of the memory's most, which nobody asked about.
        # "How many users (and what TTFT)?" with no target: the same at the default per-token target, so the users
        # and their speed are the simulation's, as under any other load the answer shows
        asked = one or top_option(ev)
        if asked is not None and asked.fits:
            ev.load, _ = load_within_target(request, model, catalog.gpu(asked.gpu), asked,
                                            held_sequences(ev, asked) or 1, steps)
            turns_users(request, model, catalog, steps, ev, asked)  # and as chat turns on a paged KV cache
        elif asked is not None and asked is one and changed is not None:
            # "Qwen3-30B-A3B 单卡 L20 能跑多少并发？" when the card holds it only in FP8: the users it holds so changed
            gpu = catalog.gpu(changed.gpu)
            ev.changed_load, _ = load_within_target(request, model, gpu, changed,
                                                    held_or_capacity(ev, model, gpu, changed, steps, made=False), steps)
        c = request.constraints
        if (one is None or not request.count_named) and (c.monthly_rent_budget or (c.budget and c.budget_covers == "system")):
            budget_users(request, model, catalog, steps, ev)  # a month's rent is spent on users whatever was asked


def _other_load_question(request: AnalysisRequest) -> bool:
    """A question about the load that its own answer takes (users, a rate, a batch job, a ladder, a change of load,
    a comparison) or that reads the memory verdict the other way round ("will it OOM?"): no chat-turn load then."""
    return bool(request.asks_users or request.asks_rps or request.job_requests or request.asks_oom
                or request.load_ladder or request.load_from or request.asks_speculation or request.asks_chunked
                or request.asks_ttft_ladder or request.tp_compared or request.asks_context
                or request.asks_batch or sum(1 for f, _ in request.variants if f == "weights") == 2)


def _users_held(request: AnalysisRequest, model: ModelSpec, catalog: Catalog, steps: list[Step], ev: Analysis,
                one: Option | None) -> None:
    """"50 users on 2× L40S … how many users max?": the configuration named does not hold the users said, so the
    question is answered at the load its memory does hold, the configuration sized again at that load, then at the
    most users meeting the per-token target (`Analysis.load`, read by the users lead)."""
    if one is None or one.fits or not request.named:
        return
    if (request.asks_speed or request.asks_ttft) and chat_turns_apply(request, one):
        # "40 users on 2× L20: TTFT and speed? how many at 20 tokens/s?": the speed asked is at the 40 users, as chat
        # turns on the paged KV cache (whole contexts do not fit), the users lead the most within the target there
        turns = turns_at(request, model, catalog.gpu(one.gpu), one, one, held_sequences(ev, one), None, steps)
        if turns is not None:
            ev.load = ev.turns_load = turns  # the users lead reads its limit; the load line, the named cards' turns
            return
    held = held_sequences(ev, one)
    if held < 1:
        return
    named = [m for m in request.named if m.gpu == one.gpu][:1] or list(request.named[:1])
    refit = evaluate_named(replace(request.workload, concurrency=held), request.constraints, named, steps)[0]
    if refit.fits:
        ev.load, _ = load_within_target(request, model, catalog.gpu(refit.gpu), refit, held, steps)


# more identical copies than this of a configuration sized for memory, to keep every user within the default
# per-token target, is not a deployment anyone buys (300 users of a 72B on L40S: 75 copies, 1,200 cards)
SANE_COPIES = 4


def _at_default_target(request: AnalysisRequest, lead: Option, steps: list[Step], ev: Analysis) -> Option | None:
    """When the stated load would take more than SANE_COPIES copies of `lead` within the default per-token target
    (no target was stated, so `lead` was sized for memory), the configuration the recommender sizes with that target
    among the same cards (it may change the weight format or the group: AWQ INT4 on TP 4 of L40S), when it takes
    fewer cards than the copies; else None."""
    c, load = request.constraints, ev.load or {}
    target, limit = (load.get("target") or {}).get("tpot_s"), load.get("max_concurrency_for_target")
    users = request.workload.concurrency
    if c.max_ms_per_token is not None or c.min_tokens_per_s or not target or limit is None:
        return None
    copies = math.ceil(users / limit) if limit >= 1 else math.inf
    if copies <= SANE_COPIES:
        return None
    rec = _recommend(request.workload, replace(c, max_ms_per_token=target * 1e3,
                                               candidates=c.candidates or (lead.gpu,)), steps, ev)
    best = next((o for o in rec.options if o.fits and o.meets_targets), None) if rec is not None else None
    return best if best is not None and best.count < copies * lead.count else None


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
