"""The recommender: search catalog GPUs × count × layout for what fits, estimate speed and cost, apply the rules,
and return ranked options with their reasons.

Search (per candidate GPU): counts 1, 2, 4, 8 within a node, then whole nodes; the first count whose memory
estimate fits with ≥ 10 % headroom (`MIN_HEADROOM`) and meets the speed target (per-token latency, total
throughput, training deadline) is that GPU's option. Options are then priced, checked by the rules engine
(`rules.engine.evaluate`; options with a "block" finding are dropped) and ranked three ways:

* lowest cost  — the cheapest purchase (or rental) that meets every target;
* best value   — the most throughput per unit of money (training: the least money × time);
* best performance — the highest total tokens/s (training: the shortest wall-clock), within the budget.

When nothing fits the constraints, the closest configurations are returned with what would have to change
(lower precision, shorter context, more budget, more GPUs).

This module holds the entry points (`recommend`, memoised; `evaluate_configs`) and re-exports the recommender's
public names from the modules that hold them:

| module | holds |
|---|---|
| `recommend_results` | `Option`, `Change`, `Recommendation` and their JSON contracts |
| `recommend_search` | the layouts, the search state (`Search`) and the search over count × layout on one GPU |
| `recommend_speed` | speed and concurrency of a fitting option, its memory margin |
| `recommend_prices` | unit prices, the TCO of an option, purchase totals and cost |
| `recommend_launch` | launch commands (vLLM, llama.cpp, LLaMA-Factory, Megatron-LM) |
| `recommend_rules` | rule facts and findings |
| `recommend_options` | options built from sized layouts; one GPU's option; the 4-bit lead for a named card |
| `recommend_rank` | the three rankings |
| `recommend_changes` | what would have to change when nothing fits |
| `recommend_assumptions` | what the answer must state |
| `recommend_offload` | the llama.cpp layer-offload option for one named card |
"""

from __future__ import annotations

import copy
import math
import threading
from collections.abc import Iterable
from typing import TypeVar

import msgspec

from advisor.estimator.formats import bits_per_weight
from advisor.estimator.memory import default_inference_format
from advisor.recommend.assumptions import (
    DEFAULT_TRAINING_DEADLINE_S,
    advice_assumptions,
    deadline_assumption,
    deadline_out_of_reach,
    search_assumptions,
    stack_assumption,
)
from advisor.recommend.changes import LIGHTER_TASK, LOWER_PRECISION, changes
from advisor.recommend.launch import launch_hint, quantized_checkpoint
from advisor.recommend.offload import offer
from advisor.recommend.options import (
    QUANTISED_FORMATS,
    SPEED_MISSES,
    build_option,
    existing_option,
    quantised_lead,
    same_config,
    search_gpu,
    target_misses,
)
from advisor.recommend.prices import cost_of, option_price, option_tco, total_price, unit_price
from advisor.recommend.rank import (
    BASEBOARD_SIZES,
    INTERACTIVE_MS_PER_TOKEN,
    buyable_new,
    could_lead,
    rank,
    second_hand,
    spread_over_servers,
)
from advisor.recommend.results import (
    Change,
    Option,
    Recommendation,
    findings_contract,
    option_tags,
    price_contract,
    weights_said,
)
from advisor.recommend.rules import apply_rules, blocked, config_facts, evaluate_rules, param_fields, workload_facts
from advisor.recommend.search import (
    CN_UNAVAILABLE,
    DEFAULT_CPU_RAM_BYTES,
    MIN_HEADROOM,
    NEAR_CAPACITY,
    NODE_COUNTS,
    Layout,
    Search,
    candidate_gpus,
    counts,
    resolve_inputs,
    served_group_error,
    sold_in,
    unsized_error,
)
from advisor.recommend.speed import fill_load
from advisor.workload import Constraints, Workload, default_context, named_cards
from knowledge.catalog import Catalog, load_catalog
from knowledge.errors import InputError
from knowledge.messages import t
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import dump, dump_json, given, replace

__all__ = [
    "CACHE_SIZE",
    "CN_UNAVAILABLE",
    "DEFAULT_CPU_RAM_BYTES",
    "DEFAULT_TRAINING_DEADLINE_S",
    "GIB",
    "INTERACTIVE_MS_PER_TOKEN",
    "LIGHTER_TASK",
    "LOWER_PRECISION",
    "MIN_HEADROOM",
    "NEAR_CAPACITY",
    "NODE_COUNTS",
    "QUANTISED_FORMATS",
    "SPEED_MISSES",
    "Change",
    "Layout",
    "Option",
    "Recommendation",
    "Search",
    "build_option",
    "buyable_new",
    "candidate_gpus",
    "clear_cache",
    "config_facts",
    "cost_of",
    "evaluate_configs",
    "evaluate_rules",
    "findings_contract",
    "launch_hint",
    "option_price",
    "option_tags",
    "option_tco",
    "price_contract",
    "quantized_checkpoint",
    "recommend",
    "resolve_inputs",
    "same_config",
    "second_hand",
    "sold_in",
    "spread_over_servers",
    "target_misses",
    "total_price",
    "unit_price",
    "with_default_context",
]

R = TypeVar("R", bound=msgspec.Struct)

CacheKey = tuple[str, str, int, str | None, int]  # workload, constraints, id(catalog), model (JSON), limit
_CACHE: dict[CacheKey, Recommendation] = {}
_PENDING: dict[CacheKey, threading.Event] = {}  # keys being computed now, set when their result is cached
_CACHE_LOCK = threading.Lock()
CACHE_SIZE = 256


def recommend(workload: Workload, constraints: Constraints | None = None, *, catalog: Catalog | None = None,
              model: ModelSpec | None = None, limit: int = 8) -> Recommendation:
    """Ranked configurations for `workload` under `constraints` (see the module docstring for the search).

    `model` overrides the catalog lookup of `workload.model` (a spec read from a user's config.json).
    Results are memoised per (workload, constraints, catalog, model, limit) — many users ask the same question —
    and every caller gets its own copy of the result, its options and their lists and dicts (`_copy_result`).
    Concurrent callers with the same key wait for one search instead of each running it (the web chat runs
    several turns at once, and people in a room ask the same refinement)."""
    constraints = constraints or Constraints()
    catalog = catalog or load_catalog()
    workload = with_default_context(workload, catalog, model)
    key = (dump_json(workload), dump_json(constraints), id(catalog),
           None if model is None else dump_json(model), limit)
    while True:
        with _CACHE_LOCK:
            hit = _CACHE.get(key)
            running = None if hit is not None else _PENDING.get(key)
            if hit is None and running is None:
                _PENDING[key] = done = threading.Event()
        if hit is not None:
            return _copy_result(hit)
        if running is None:
            break
        running.wait()  # then read the cache again; if that search failed, this caller runs its own
    try:
        hit = _recommend(workload, constraints, catalog=catalog, model=model, limit=limit)
        with _CACHE_LOCK:
            if len(_CACHE) >= CACHE_SIZE:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = hit
    finally:
        with _CACHE_LOCK:
            _PENDING.pop(key, None)
        done.set()
    return _copy_result(hit)


def with_default_context(workload: Workload, catalog: Catalog, model: ModelSpec | None = None) -> Workload:
    """The workload with the model's default context (advisor.workload.default_context) when the caller gave none
    (`context` left at its default: knowledge.structs.given); unchanged otherwise."""
    if given(workload, "context") or workload.is_training:
        return workload
    spec = model or (catalog.find_model(workload.model) if workload.model else None)
    context = default_context(spec)
    return workload if context == workload.context else replace(workload, context=context)


def _copy_containers(model: R, **update: object) -> R:
    """A shallow copy of `model` whose list and dict fields are new containers (one level down): a caller can
    append, reorder or set keys without touching the memoised result. The values inside (findings, nested
    dicts of numbers) are shared and treated as read-only, as everywhere else in the advisor."""
    new = copy.copy(model)  # no checks: the fields are the memoised result's, checked when it was built
    for name in model.__struct_fields__:
        value = getattr(model, name)
        if name in update:
            setattr(new, name, update[name])
        elif isinstance(value, (list, dict)):
            setattr(new, name, list(value) if isinstance(value, list) else dict(value))
    return new


def _copy_result(rec: Recommendation) -> Recommendation:
    """Each caller's own copy of a memoised recommendation (about 40× cheaper than `model_copy(deep=True)`,
    which was the costliest step of a deterministic web turn)."""
    return _copy_containers(rec, options=[_copy_containers(o) for o in rec.options],
                            closest=[_copy_containers(o) for o in rec.closest],
                            changes=[_copy_containers(c) for c in rec.changes])


def clear_cache() -> None:
    """Forget memoised recommendations (benchmarks time the search itself; tests that swap data call it)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _recommend(workload: Workload, constraints: Constraints, *, catalog: Catalog | None, model: ModelSpec | None,
               limit: int) -> Recommendation:
    """The search behind `recommend` (not memoised)."""
    model, catalog = resolve_inputs(workload, constraints, catalog, model)
    default_deadline = workload.is_training and constraints.deadline_s is None
    if default_deadline:  # a 3-year pre-training run on one card is "cheapest" but useless: bound the wall time
        constraints = replace(constraints, deadline_s=DEFAULT_TRAINING_DEADLINE_S)
    interactive = _default_interactivity(workload, constraints)
    if interactive is not None:
        constraints = interactive
    search = Search(model, workload, constraints, catalog)
    gpus = {g.id: g for g in candidate_gpus(catalog, constraints)}
    options, near = _search_all(search, gpus)
    out_of_reach = default_deadline and bool(options) and not any(o.meets_targets for o in options)
    if out_of_reach:  # the default deadline is a preference, not the user's: show the fastest tried, not nothing
        for o in options:
            if o.misses == ["deadline"]:
                o.misses, o.meets_targets = [], True
        constraints = replace(constraints, deadline_s=None)  # the rules (run on the shortlist) check without it too
        search = Search(model, workload, constraints, catalog)
    if interactive is not None and not any(could_lead(o, gpus[o.gpu], constraints) for o in options):
        # nothing a buyer could be recommended (priced, sold new in the region) reaches the interactive target: say
        # so, and size for the memory alone as before
        constraints = replace(constraints, max_ms_per_token=None)
        search = Search(model, workload, constraints, catalog)
        gpus = {g.id: g for g in candidate_gpus(catalog, constraints)}
        options, near = _search_all(search, gpus)
    ranked = _ranked(options, gpus, workload, constraints)
    shortlist = _shortlist(search, ranked, gpus, limit)
    closest = _closest(search, near, ranked, shortlist, gpus)
    lead = quantised_lead(search, gpus, shortlist)
    compact = [] if lead else _compact_lead(search, gpus, shortlist)
    lead = lead or compact
    if lead:
        shortlist = lead + [o for o in shortlist if not any(same_config(o, q) for q in lead)]
        closest = [o for o in closest if not any(o.gpu == q.gpu for q in lead)]
        _relabel(shortlist, lead[0], workload, constraints, gpus)
    rec = Recommendation(
        model={"id": model.id, "name": model.name, **param_fields(model)},
        workload=dump(workload, json=True), constraints=dump(constraints, json=True),
        options=[o for o in shortlist if o.meets_targets or "existing" in o.labels], closest=closest,
        findings=evaluate_rules([workload_facts(search)]),
        considered=len(options) + len(near),
        market_excluded=[] if constraints.candidates else [g.name for g in catalog.gpus
                                                            if not sold_in(g, constraints.region)],
    )
    _state_assumptions(search, rec, bool(lead) and not compact, default_deadline)
    if compact:
        spread = next((o for o in shortlist if o not in compact), None)
        if spread is not None:
            fmt = weights_said(compact[0])
            own = spread.layout.weights.upper()
            for lang, out in (("en", rec.assumptions), ("zh", rec.assumptions_zh)):
                out.append(t("recommend.compact_lead", lang, own=own, n=spread.count, gpu=spread.gpu_name,
                             servers=spread.nodes, fmt=fmt))
    if out_of_reach:
        en, zh = deadline_out_of_reach()
        rec.assumptions.append(en)
        rec.assumptions_zh.append(zh)
    stack = stack_assumption(search, rec, gpus)
    if stack is not None:
        rec.assumptions.append(stack[0])
        rec.assumptions_zh.append(stack[1])
    if interactive is not None:
        rec.assumptions.append(interactivity_assumption("en", search.constraints.max_ms_per_token is not None))
        rec.assumptions_zh.append(interactivity_assumption("zh", search.constraints.max_ms_per_token is not None))
    _add_changes(search, rec, options, near, closest)
    fill_load(search, rec.options + rec.closest)  # the simulation under load, for the shown options only
    offer(search, rec)  # one named card that cannot hold the model: llama.cpp layer offload, after the quantised ones
    return rec


def _users(workload: Workload) -> int:
    """Concurrent users the stack preference weighs (a training job is not a multi-user server)."""
    return 1 if workload.is_training else workload.concurrency


def _default_interactivity(workload: Workload, c: Constraints) -> Constraints | None:
    """Chat serving with no stated speed target, on hardware still to be chosen: the constraints with the default
    per-user target (`INTERACTIVE_MS_PER_TOKEN`, MLPerf Inference's interactive scenario); else None. Not for cards
    the user named: replicating a named card until each copy serves a handful of users at the default speed (80×
    L40S for 20 users of a 72B model) answers no one; the answer says the speed and the copies the target takes."""
    if (workload.is_training or c.max_ms_per_token is not None or c.min_tokens_per_s is not None
            or named_cards(c) or c.existing is not None or workload.engine == "llama.cpp"):
        return None
    return replace(c, max_ms_per_token=INTERACTIVE_MS_PER_TOKEN)


def interactivity_assumption(lang: str, met: bool) -> str:
    """The stated default target, and whether any configuration reaches it."""
    head = t("recommend.interactive", lang, tps=1000.0 / INTERACTIVE_MS_PER_TOKEN, ms=INTERACTIVE_MS_PER_TOKEN)
    return head + t("recommend.interactive.met" if met else "recommend.interactive.unmet", lang)


def _search_all(search: Search, gpus: dict[str, GpuSpec]) -> tuple[list[Option], list[Option]]:
    """(the options that fit, the closest of the GPUs where none does): the user's own cards first, then each
    candidate GPU's search. Adds the user's own GPU to `gpus`."""
    c = search.constraints
    options: list[Option] = []
    near: list[Option] = []
    if c.existing is not None:
        gpu = search.catalog.gpu(c.existing.gpu)
        gpus.setdefault(gpu.id, gpu)
        n = c.existing.count
        opt = existing_option(search, gpu, n, max(1, math.ceil(n / c.max_gpus_per_node)))
        if opt is not None:
            (options if opt.fits else near).append(opt)
    pairs = counts(c)
    named = {search.catalog.gpu(n).id for n in named_cards(c)}
    for gpu in gpus.values():
        boards = pairs if gpu.interface == "pcie" or gpu.id in named or c.condition == "used" else [
            (n, k) for n, k in pairs if n // k in BASEBOARD_SIZES]  # SXM/OAM: whole 4- or 8-GPU baseboards
        fit, closest = search_gpu(search, gpu, boards or pairs)
        if fit is not None and not any(same_config(o, fit) for o in options):
            options.append(fit)
        elif closest is not None and not any(same_config(o, closest) for o in options + near):
            near.append(closest)
    return options, near


def _shortlist(search: Search, ranked: list[Option], gpus: dict[str, GpuSpec], limit: int) -> list[Option]:
    """The first `limit` ranked options no rule blocks (the user's own cards are kept, blocked or not); ranked
    again when a blocked option took a label with it."""
    shortlist: list[Option] = []
    for opt in ranked:
        apply_rules(search, opt, gpus[opt.gpu])
        if blocked(opt) and "existing" not in opt.labels:
            opt.meets_targets = False
            opt.misses.append("blocked")
            continue
        shortlist.append(opt)
        if len(shortlist) >= limit:
            break
    if any("blocked" in o.misses for o in ranked):  # labels may have gone with a blocked option: rank again
        for o in shortlist:
            o.labels = [lab for lab in o.labels if lab == "existing"]
        shortlist = _ranked(shortlist, gpus, search.workload, search.constraints)
    return shortlist


# tried in this order when the lead at the checkpoint's own precision spreads consumer cards over servers: 8-bit
# (FP8 weights, the format of the FP8 checkpoints most families publish; W8A8 INT8 where the card has no FP8), then
# 4-bit (AWQ, the most published 4-bit checkpoint format)
COMPACT_FORMATS = ("fp8", "awq-int4")


def _compact_lead(search: Search, gpus: dict[str, GpuSpec], shortlist: list[Option]) -> list[Option]:
    """Serving at the checkpoint's own precision when the lead spreads consumer or workstation cards over several
    servers (rank.spread_over_servers: PCIe and Ethernet between machines; Qwen3-235B in BF16 within ¥500k: 40 RTX 5060
    Ti in 5 servers): the first of COMPACT_FORMATS narrower than that precision with which one server of cards a
    company can buy new holds the model within the targets, at no more than the lead's purchase, leads instead. []
    when the user stated a precision, or none does."""
    w, c = search.workload, search.constraints
    if w.is_training or w.weights is not None or not shortlist or not spread_over_servers(shortlist[0], gpus):
        return []
    top = shortlist[0]
    own = bits_per_weight(default_inference_format(search.model))
    for fmt in COMPACT_FORMATS:
        if bits_per_weight(fmt) >= own:
            continue
        sub = search.varied(replace(w, weights=fmt))
        pool = dict(gpus)
        options, _ = _search_all(sub, pool)
        ranked = _ranked(options, pool, sub.workload, c)
        one = [o for o in ranked if o.nodes == 1 and could_lead(o, pool[o.gpu], c) and cost_of(o) <= cost_of(top)]
        for o in _shortlist(sub, one, pool, 1):
            if o.meets_targets:
                o.labels.append("quantised")
                for other in shortlist:  # the lead it replaces is no longer the recommended one
                    other.labels = [lab for lab in other.labels if lab != "recommended"]
                return [o]
    return []


def _ranked(options: list[Option], gpus: dict[str, GpuSpec], workload: Workload, constraints: Constraints
            ) -> list[Option]:
    """`rank` with the request's own settings: used cards asked for, the region, the users, cards named, cards owned."""
    return rank(options, workload.is_training, gpus, constraints.condition == "used", constraints.region,
                _users(workload), bool(named_cards(constraints)), constraints.owned)


def _relabel(shortlist: list[Option], lead: Option, workload: Workload, constraints: Constraints,
             gpus: dict[str, GpuSpec]) -> None:
    """The labels of a shortlist whose lead came from another search (a quantised or compact lead): "lowest cost",
    "best value" and "best performance" judged again over the merged list, each on one option (the lead's own search
    and the original ranking had each given them), the order kept and the lead still the recommended one."""
    _ranked(shortlist, gpus, workload, constraints)
    for o in shortlist:
        o.labels = [lab for lab in o.labels if lab != "recommended"]
    lead.labels.insert(0, "recommended")


def _closest(search: Search, near: list[Option], ranked: list[Option], shortlist: list[Option],
             gpus: dict[str, GpuSpec]) -> list[Option]:
    """The three configurations closest to working (most headroom first; those a rule rules out last when
    nothing meets the targets)."""
    closest = sorted(near + [o for o in ranked if not o.meets_targets and "blocked" not in o.misses],
                     key=lambda o: -o.headroom_ratio)
    if not any(o.meets_targets for o in shortlist):
        for o in closest:
            if not o.findings:
                apply_rules(search, o, gpus[o.gpu])
        closest.sort(key=blocked)  # stable: configurations a rule rules out go last
    return closest[:3]


def _state_assumptions(search: Search, rec: Recommendation, quantised: bool, default_deadline: bool) -> None:
    """The recommendation's assumptions, in English and Chinese."""
    rec.assumptions, rec.assumptions_zh = search_assumptions(search)
    stated = advice_assumptions(search, rec, quantised) + ([deadline_assumption()] if default_deadline else [])
    for en, zh in stated:
        rec.assumptions.append(en)
        rec.assumptions_zh.append(zh)


def _add_changes(search: Search, rec: Recommendation, options: list[Option], near: list[Option],
                 closest: list[Option]) -> None:
    """What would have to change when no option meets the targets, and what would make the user's own hardware
    work when it does not fit."""
    if not any(o.meets_targets for o in rec.options):
        rec.changes = changes(search, options, closest)
    own = next((o for o in options + near if "existing" in o.labels), None)
    if own is not None and not own.fits:
        scope = replace(search.constraints, candidates=(own.gpu,), existing=None, budget=None, max_nodes=own.nodes, max_gpus_per_node=max(1, min(16, own.count // own.nodes)))
        rec.changes += [replace(ch, for_existing=True) for ch in changes(search, [], [own], scope, owned=True)]


# ------------------------------------------------------------------------------------------------------------
# evaluating named configurations ("compare 8×H20, 8×A800 and 8×RTX 4090")

def _owned(c: Constraints, catalog: Catalog, gpu: GpuSpec, count: int) -> tuple[str, ...]:
    """("existing",) when (gpu, count) is the hardware the user owns: rules see it as owned, not bought."""
    return ("existing",) if c.existing and catalog.gpu(c.existing.gpu).id == gpu.id and c.existing.count == count else ()


def evaluate_configs(workload: Workload, configs: Iterable[tuple[str, int]], constraints: Constraints | None = None,
                     *, catalog: Catalog | None = None, model: ModelSpec | None = None,
                     per_user: bool = True) -> list[Option]:
    """Each (gpu, count) as the user named it: memory, speed, price and findings, fitting or not.

    The layout is the one the search would use for that count (training: the lightest ZeRO stage that fits with
    headroom and within the host RAM assumed for offload, else the lightest that fits at all); `per_user=False`
    keeps serving's lightest layout (replicas of the smallest group) instead of the fastest per user."""
    constraints = constraints or Constraints()
    model, catalog = resolve_inputs(workload, constraints, catalog, model)
    search = Search(model, workload, constraints, catalog)
    out: list[Option] = []
    for name, count in configs:
        if not 1 <= count <= constraints.max_gpus_per_node * constraints.max_nodes:
            raise InputError(f"GPU count must be between 1 and {constraints.max_gpus_per_node * constraints.max_nodes}"
                             f", got {count}", field="count")
        gpu = catalog.gpu(name)
        # a unified-memory machine (Mac Studio, DGX Spark) is its own node: N of them pipeline over the network
        nodes = count if gpu.is_machine else max(1, math.ceil(count / constraints.max_gpus_per_node))
        opt = existing_option(search, gpu, count, nodes, labels=_owned(constraints, catalog, gpu, count),
                              per_user=per_user)
        if opt is None:
            served = served_group_error(search, gpu, count, nodes)  # "2 H100 with TP 4": the group said, both languages
            if served is not None:
                raise served
            raise unsized_error(search, gpu, count, nodes)
        apply_rules(search, opt, gpu)
        if blocked(opt):
            opt.misses.append("blocked")
            opt.meets_targets = False
        out.append(opt)
    fill_load(search, out)
    return out
