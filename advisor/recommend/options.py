"""Options built from sized layouts: one GPU's option (the smallest count that fits and meets the speed targets,
else the largest tried), the user's own or named configuration, and the 4-bit configuration that leads for a
named card that cannot run the model at its own precision.
"""

from __future__ import annotations

import math

from advisor.estimator.cost import HOURS_PER_MONTH
from advisor.estimator.results import MemoryEstimate
from advisor.recommend import training_advice
from advisor.recommend.launch import launch_hint
from advisor.recommend.parts import OptionLayout, ServingFigures, TrainingFigures
from advisor.recommend.prices import budget_price, hourly_rent, option_price, option_tco
from advisor.recommend.results import Option
from advisor.recommend.rules import apply_rules, blocked
from advisor.recommend.search import (
    Layout,
    Search,
    Sizing,
    closest_sizing,
    counts,
    fewest_between,
    first_fit,
    layouts_for,
    memory_of,
    planned,
    precision,
    roomier,
    sized,
    wider_groups,
)
from advisor.recommend.speed import Speed, margin, speed
from advisor.workload import Workload, named_cards
from knowledge.quantities import Seconds
from knowledge.schemas import GpuSpec
from knowledge.structs import given, replace

SPEED_MISSES = ("latency", "ttft", "throughput", "deadline")
QUANTISED_FORMATS = ("awq-int4", "gptq-int4", "q4_k_m")  # tried in this order for a named card (vLLM, then GGUF)


def build_option(search: Search, gpu: GpuSpec, est: MemoryEstimate, w: Workload, layout: Layout,
                 labels: list[str] | None = None, pace: Speed | None = None) -> Option:
    """The option of one sized layout: memory, price, launch line; speed, TCO and margin when it fits (`pace`: its
    speed when the caller has computed it already)."""
    fits = est.fits(gpu)
    opt = Option(
        gpu=gpu.id, gpu_name=gpu.name, count=layout.count, nodes=layout.nodes,
        layout=option_layout(layout, est.engine, precision(w, search.model), w),
        per_gpu=est.per_gpu, cpu=est.cpu, capacity=gpu.memory, usable=est.usable_bytes(gpu),
        headroom_ratio=(gpu.memory - est.per_gpu.total).ratio(gpu.memory), fits=fits,
        price=option_price(search, gpu), labels=list(labels or []),
        formulas=list(est.formulas), assumptions=list(est.assumptions),
        launch_hint=launch_hint(search, gpu, w, layout),
    )
    opt.set_memory(est, w)
    if fits:
        opt.throughput, opt.training, formulas = pace or speed(search, gpu, est, w, layout)
        opt.formulas += formulas
        opt.tco = option_tco(search, gpu, opt)
    opt.misses = target_misses(search, gpu, opt)
    opt.meets_targets = fits and not opt.misses
    if fits and not w.is_training:
        opt.margin = margin(search, gpu, est, opt)
    return opt


def option_layout(layout: Layout, engine: str | None, weights: str, w: Workload) -> OptionLayout:
    """The option's layout: the sized one, or the parallelism planner's when it planned it (its TP/PP/DP, ZeRO stage
    and recomputation replace the sized ones, engine "megatron")."""
    if layout.plan is not None:
        return training_advice.planned_layout(layout.plan, layout.offload, weights, w.kv)
    return OptionLayout(tp=layout.tp, pp=layout.pp, dp=layout.dp, zero=layout.zero, zero_offload=layout.offload,
                        engine=engine, weights=weights, kv=w.kv, recompute=w.recompute if w.is_training else None,
                        replicas=None if w.is_training else layout.dp, attention_dp=layout.attention_dp)


def target_misses(search: Search, gpu: GpuSpec, opt: Option) -> list[str]:
    """The request's targets (budget, deadline, power …) that `opt` misses."""
    c = search.constraints
    out = []
    if c.budget is not None and "existing" not in opt.labels:
        total = budget_price(opt, c.budget_covers)
        if total is None:
            out.append("no_price")
        elif total > c.budget:
            out.append("budget")
    if c.monthly_rent_budget is not None and "existing" not in opt.labels and not opt.training:
        # a serving budget spent on rent ("$3 an hour", "$40k a month"): the cards around the clock at their rate
        rate = hourly_rent(opt)
        if rate is None:
            out.append("no_price")
        elif opt.count * rate * HOURS_PER_MONTH > c.monthly_rent_budget * (1 + 1e-9):
            out.append("budget")
    if c.power_limit_w is not None and gpu.tdp_w * opt.count > c.power_limit_w:
        out.append("power")
    return out + speed_misses(search, opt.throughput, opt.training)


def speed_misses(search: Search, t: ServingFigures | None, training: TrainingFigures | None) -> list[str]:
    """The speed targets (SPEED_MISSES: per-token latency, total throughput, training deadline) a configuration of
    this speed misses."""
    c = search.constraints
    out = []
    if t:
        if c.max_ms_per_token is not None and t.judged_tpot.ms > c.max_ms_per_token:
            out.append("latency")
        if c.max_ttft_ms is not None and t.ttft_judged_at(c.ttft_percentile).ms > c.max_ttft_ms:
            out.append("ttft")
        if c.min_tokens_per_s is not None and t.judged_total < c.min_tokens_per_s:
            out.append("throughput")
    if training and c.deadline_s is not None and training.wall > Seconds(c.deadline_s):
        out.append("deadline")
    return out


def search_gpu(search: Search, gpu: GpuSpec, pairs: list[tuple[int, int]]) -> tuple[Option | None, Option | None]:
    """(the smallest option on `gpu` that fits and meets the speed targets, or the largest that was tried).

    A layout that fits but misses a speed target is judged on its speed alone (`speed_misses`) and the search
    moves on; only the layout returned is built into an option (price, TCO, launch line, margin), with the speed
    already computed. The option is the same as building every tried layout and keeping the last: building is a
    pure function of (search, GPU, sizing), and a discarded option was never read beyond its speed."""
    remaining = list(pairs)
    last: tuple[Sizing, Speed] | None = None
    slow_nodes: int | None = None  # whole servers of a layout that missed a speed target (None: none missed)
    while remaining:
        found = first_fit(search, gpu, remaining)
        if found is None:
            break
        if not found.estimate.fits(gpu):  # (a planner's layout) no speed without a fit: nothing is missed
            return build_option(search, gpu, *found), None
        last = _fastest_group(search, gpu, [found, *wider_groups(search, gpu, found)])
        pace = last[1]
        missed = speed_misses(search, pace.throughput, pace.training)
        if not missed:
            if slow_nodes is not None and last[0].layout.nodes - slow_nodes > 1:
                last = _fewest_servers(search, gpu, slow_nodes, last)
            break
        if pace.training is not None:  # whole servers that missed a deadline (a run's time falls with its GPUs)
            slow_nodes = found.layout.count // search.constraints.max_gpus_per_node
        elif found.layout.nodes > 1:
            slow_nodes = found.layout.nodes
        needed = _needed_for_speed(search, missed, pace.training, found.layout, pairs, remaining)
        remaining = [(n, k) for n, k in remaining if n >= needed]  # more GPUs for speed
    if last is not None:
        return build_option(search, gpu, *last[0], pace=last[1]), None
    near = closest_sizing(search, gpu, pairs)
    return None, (build_option(search, gpu, *near) if near else None)


def _fastest_group(search: Search, gpu: GpuSpec, groups: list[Sizing]) -> tuple[Sizing, Speed]:
    """Of one count's serving layouts that fit (`groups`: replicas of the smallest TP group first, then larger groups
    inside a server), the one to run at the stated load: the faster per user of the first that meets the speed
    targets and the widest group (ties to the lighter), else the widest, which misses least. At a stated
    concurrency C the total is C × the per-user speed, so the faster per user also makes more tokens in total;
    memory-bound decoding is fastest on the widest group (each GPU reads 1/TP of the weights per step), replicas
    where TP's collectives cost more than they save (PCIe cards, loads that make the step compute-bound). Training
    has one layout here."""
    first = (groups[0], speed(search, gpu, *groups[0]))
    if len(groups) == 1:
        return first
    meets = first
    for sizing in groups[1:-1]:  # larger TP groups before more GPUs, lightest first, until one meets the targets
        if not speed_misses(search, meets[1].throughput, meets[1].training):
            break
        meets = (sizing, speed(search, gpu, *sizing))
    if speed_misses(search, meets[1].throughput, meets[1].training):
        return groups[-1], speed(search, gpu, *groups[-1])
    # the widest group is judged (simulated) only when its roofline is faster per user than the one that meets
    a, b = meets[1].throughput, speed(search, gpu, *groups[-1], judge=False).throughput
    if a is None or b is None or b.decode_tokens_per_s <= 1.01 * a.decode_tokens_per_s:
        return meets
    widest = (groups[-1], speed(search, gpu, *groups[-1]))
    return meets if speed_misses(search, widest[1].throughput, widest[1].training) else widest


def _fewest_servers(search: Search, gpu: GpuSpec, slow: int, met: tuple[Sizing, Speed]) -> tuple[Sizing, Speed]:
    """A layout of whole servers that meets the speed targets (`met`) when `slow` servers missed them: the fewest
    servers in between that also meet them, by bisection (each added replica takes users off the others, so the
    per-user speed only grows with the servers; a training run's time falls with its GPUs). The server counts
    double (`counts`), so without this 500 DeepSeek-V3 users at 30 tokens/s each were quoted 8 servers of H200 where
    6 meet the target, and a deadline's jump to count × time ÷ deadline overshot where a layout change at more GPUs
    runs faster than linearly (7B on 1T tokens in 30 days: 56 H100 where 48 finish in 25 days)."""
    per_node = search.constraints.max_gpus_per_node

    def meets_at(nodes: int) -> tuple[Sizing, Speed] | None:
        found = first_fit(search, gpu, [(nodes * per_node, nodes)])
        pace = found and _fastest_group(search, gpu, [found, *wider_groups(search, gpu, found)])
        return pace if pace and not speed_misses(search, pace[1].throughput, pace[1].training) else None

    return fewest_between(slow, met[0].layout.nodes, met, meets_at)


def _needed_for_speed(search: Search, missed: list[str], training: TrainingFigures | None, layout: Layout,
                      pairs: list[tuple[int, int]], remaining: list[tuple[int, int]]) -> int:
    """The fewest GPUs that may meet the missed speed target: one more than now, and for a deadline at least
    count × wall-clock / deadline, since time scales at best as 1/GPUs (not from an offloaded layout, whose
    host-side optimizer step more GPUs may drop altogether). Adds the full-server count in between the doublings
    to `remaining` (review R46: 64 GPUs at 34 days for a 30-day deadline need 73, i.e. 10 servers of 8)."""
    needed = layout.count + 1
    c = search.constraints
    if "deadline" in missed and layout.offload == "none" and c.deadline_s is not None and training:
        needed = max(needed, math.ceil(layout.count * training.wall.ratio(Seconds(c.deadline_s))))
        per_node = c.max_gpus_per_node
        nodes = min(math.ceil(needed / per_node), _node_limit(search))  # out of reach: the most servers allowed
        needed = max(layout.count + 1, min(needed, nodes * per_node))
        if needed > per_node and nodes > layout.nodes and (nodes * per_node, nodes) not in pairs:
            remaining.append((nodes * per_node, nodes))
            remaining.sort()
    return needed


PRETRAIN_MAX_NODES = 4096  # 32,768 GPUs at 8 per server: pre-training runs of 2024-26 used 16k-100k+ GPUs


def _node_limit(search: Search) -> int:
    """Servers a deadline may add: the stated `max_nodes`, or for pre-training with none stated, up to
    PRETRAIN_MAX_NODES (a 405B model on 15.6T tokens needs tens of thousands of H100s for a 30-day run, where 64
    servers would take years; Llama 3.1 405B trained on 16,384 H100s, arXiv:2407.21783 §3.3)."""
    c = search.constraints
    if search.workload.task == "pretrain" and not given(c, "max_nodes"):
        return PRETRAIN_MAX_NODES
    return c.max_nodes


def existing_option(search: Search, gpu: GpuSpec, count: int, nodes: int,
                    labels: tuple[str, ...] = ("existing",), *, per_user: bool = True) -> Option | None:
    """The given count of `gpu` with the lightest layout that fits with headroom (else the lightest that fits at
    all, else the last tried), fitting or not; for serving, then the count's group that is fastest per user at
    the load (`_fastest_group`), unless `per_user` is False (a batch job's throughput: the replicas stay)."""
    plan = planned(search, gpu, count, nodes) if training_advice.planned(search.workload) else None
    if plan is not None:
        return build_option(search, gpu, *plan, labels=list(labels))
    tried: list[Sizing] = []
    for layout in layouts_for(search, count, nodes):
        found = memory_of(search, gpu, layout)
        if found is None:
            continue
        tried.append(Sizing(*found, layout))
        if sized(found.estimate, gpu):
            break
    # the first layout sized with headroom, else the first that fits at all, else the last tried
    pick = (next((t for t in tried if sized(t.estimate, gpu)), None)
            or next((t for t in tried if t.estimate.fits(gpu)), None) or (tried[-1] if tried else None))
    if pick is None:
        return None
    pace = None
    if sized(pick.estimate, gpu) and not search.workload.is_training:
        pick = roomier(search, gpu, pick)
        if per_user:  # serving: the count's group to run at this load, as the search picks it (`_fastest_group`)
            pick, pace = _fastest_group(search, gpu, [pick, *wider_groups(search, gpu, pick)])
    return build_option(search, gpu, *pick, labels=list(labels), pace=pace)


def same_config(a: Option, b: Option) -> bool:
    """The same configuration (GPU, count, nodes and weight format): one row in any table."""
    return (a.gpu, a.count, a.nodes, a.layout.weights) == (b.gpu, b.count, b.nodes, b.layout.weights)


def quantised_lead(search: Search, gpus: dict[str, GpuSpec], shortlist: list[Option]) -> list[Option]:
    """For cards the user named, serving a model at its own precision: when a named card has no option that meets
    the targets at that precision (it does not fit, or a capability rule such as BF16 on Turing blocks it), the
    4-bit configuration on that card (the first format of QUANTISED_FORMATS that no rule blocks; AWQ needs Turing
    or newer) — to lead the answer."""
    w, c = search.workload, search.constraints
    if w.is_training or w.weights is not None or not named_cards(c):
        return []
    out: list[Option] = []
    pairs = counts(c)
    for gid in dict.fromkeys(search.catalog.gpu(n).id for n in c.candidates):
        gpu = gpus[gid]
        if any(o.gpu == gid and o.meets_targets for o in shortlist):
            continue
        for fmt in QUANTISED_FORMATS:
            sub = search.varied(replace(w, weights=fmt))
            opt, _ = search_gpu(sub, gpu, pairs)
            if opt is None or not opt.meets_targets:
                continue
            apply_rules(sub, opt, gpu)
            if blocked(opt):
                continue
            opt.labels.append("quantised")
            out.append(opt)
            break
    return out
