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
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from advisor import training_advice
from advisor.estimator.limits import largest_context
from advisor.estimator.memory import estimate_memory
from advisor.estimator.results import MemoryEstimate
from advisor.workload import Constraints, Workload
from knowledge.catalog import Catalog, load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.record import Record
from knowledge.schemas import GpuSpec, ModelSpec
from rules.findings import Finding

NEAR_CAPACITY = 0.95  # a pick whose per-GPU memory is above 95 % of what the engine may use is "near capacity"
CN_UNAVAILABLE = ("restricted", "licence_required", "not_sold")  # knowledge ChinaMarket.status: no new purchase in cn
MIN_HEADROOM = 0.10  # rules' sizing threshold: below 10 % free memory a serving engine has no room to grow
GIB = 2**30
NODE_COUNTS = (1, 2, 4, 8)
DEFAULT_TRAINING_DEADLINE_S = 30 * 86400  # when none is given; stated as an assumption in the answer
DEFAULT_CPU_RAM_BYTES = 512 * GIB  # host RAM assumed per node when checking offload (typical 8-GPU server)


class Option(Record, frozen=False):
    """One configuration: a GPU, a count and a layout, with everything computed for it."""

    gpu: str
    gpu_name: str
    count: int
    nodes: int = 1
    layout: dict[str, Any]
    per_gpu_bytes: dict[str, int]
    cpu_bytes: dict[str, int] = {}
    capacity_bytes: int
    usable_bytes: int
    headroom_ratio: float
    fits: bool
    throughput: dict[str, Any] = {}
    training: dict[str, Any] = {}
    price: dict[str, Any] | None = None  # {amount, currency, as_of, source, kind, condition, reliability}
    tco: dict[str, Any] | None = None
    findings: list[Finding] = []
    substitutes: list[str] = []
    launch_hint: str = ""
    labels: list[str] = []
    meets_targets: bool = True
    misses: list[str] = []  # which target or constraint it misses ("budget", "latency", "deadline", …)
    formulas: list[str] = []
    assumptions: list[str] = []
    margin: dict[str, Any] = {}  # how close to the memory limit, and where it stops (near_capacity picks)
    _memory: tuple[MemoryEstimate, Workload] | None = None  # behind the numbers: not a field, not in the contract

    def to_contract(self) -> dict[str, Any]:
        """The `gpu-advisor recommend --json` option shape of DESIGN.md, plus documented extras."""
        return {
            "gpu": self.gpu,
            "count": self.count,
            "layout": self.layout,
            "per_gpu_bytes": self.per_gpu_bytes,
            "fits": self.fits,
            "throughput": self.throughput or self.training,
            "price": price_contract(self.price),
            "findings": [{"rule_id": f.rule_id, "severity": f.severity, "message": f.message,
                          "message_zh": f.message_zh, "source": f.source, "as_of": f.as_of}
                         for f in self.findings],
            "gpu_name": self.gpu_name,
            "nodes": self.nodes,
            "labels": self.labels,
            "capacity_bytes": self.capacity_bytes,
            "headroom_ratio": round(self.headroom_ratio, 4),
            "tco": self.tco,
            "substitutes": self.substitutes,
            "launch_hint": self.launch_hint,
            "meets_targets": self.meets_targets,
            "misses": self.misses,
            "margin": self.margin,
        }

    @property
    def used_price(self) -> bool:
        """Priced from a used-card price (the headline must say "used" / "二手")."""
        return bool(self.price) and self.price.get("condition") == "used"

    @property
    def quantised(self) -> bool:
        """Served from an integer-quantised checkpoint (AWQ, GPTQ, GGUF, bitsandbytes); 16-bit and FP8 are not."""
        return str(self.layout.get("weights") or "bf16") not in ("bf16", "fp16", "fp32", "fp8")

    @property
    def near_capacity(self) -> bool:
        return bool(self.margin.get("near_capacity"))

    @property
    def memory_estimate(self) -> MemoryEstimate | None:
        """The memory estimate of one GPU behind the numbers (not in the JSON contract nor model_dump)."""
        return self._memory[0] if self._memory else None

    @property
    def sized_workload(self) -> Workload | None:
        """The workload as one GPU of the layout sees it (inference replicas split the concurrency), for which
        `memory_estimate` was computed."""
        return self._memory[1] if self._memory else None

    def set_memory(self, est: MemoryEstimate, sized: Workload) -> None:
        """Attach the estimate behind the numbers and the sized workload it was computed for."""
        self._memory = (est, sized)


def option_tags(o: Any, lang: str = "en") -> list[str]:
    """Words an answer's headline and layout cell must carry about an option: its 4-bit format when quantised
    ("AWQ-INT4"), and "used" / "二手" when it is priced from used cards."""
    tags = []
    serving = not getattr(o, "training", None) and not (o.layout or {}).get("recompute")
    if serving and getattr(o, "quantised", False):
        tags.append(str((o.layout or {}).get("weights", "")).upper())
    if (o.price or {}).get("condition") == "used":
        tags.append("二手卡价" if lang == "zh" else "used-card price")
    if getattr(o, "near_capacity", False):
        tags.append("接近显存上限" if lang == "zh" else "near its memory limit")
    return tags


def price_contract(price: dict[str, Any] | None) -> dict[str, Any] | None:
    """A price as the JSON contract shows it: amount, currency, `as_of`, `condition` (new / used / street) and the
    source's `reliability` beside the date."""
    if price is None:
        return None
    return {k: price.get(k) for k in ("amount", "currency", "as_of", "condition", "reliability", "kind", "source",
                                      "end_of_life")}


class Change(Record, frozen=False):
    """Something that would have to change for a configuration to fit or meet the targets."""
    kind: str  # "precision", "context", "budget", "gpus", "task"
    for_existing: bool = False  # checked on the user's own cards only
    message: str
    message_zh: str
    value: Any = None


class Recommendation(Record, frozen=False):
    """The ranked options for one workload under its constraints, with what would have to change and why."""

    model: dict[str, Any]
    workload: dict[str, Any]
    constraints: dict[str, Any]
    options: list[Option] = []  # ranked: the labelled ones first
    closest: list[Option] = []  # when nothing meets the constraints
    changes: list[Change] = []
    findings: list[Finding] = []  # about the workload as a whole (scenario tiers, claims)
    assumptions: list[str] = []
    assumptions_zh: list[str] = []  # the same, in Chinese
    considered: int = 0  # configurations evaluated
    market_excluded: list[str] = []  # card names left out of the search for the region's market (stated)

    def assumptions_in(self, lang: str) -> list[str]:
        return self.assumptions_zh if lang == "zh" and self.assumptions_zh else self.assumptions

    def to_contract(self) -> dict[str, Any]:
        return {
            "options": [o.to_contract() for o in self.options],
            "closest": [o.to_contract() for o in self.closest],
            "changes": [c.model_dump() for c in self.changes],
            "model": self.model,
            "workload": self.workload,
            "constraints": self.constraints,
            "findings": [{"rule_id": f.rule_id, "severity": f.severity, "message": f.message,
                          "message_zh": f.message_zh, "source": f.source, "as_of": f.as_of}
                         for f in self.findings],
            "assumptions": self.assumptions,
            "market_excluded": self.market_excluded,
        }

    def headline_condition(self, lang: str = "en") -> str:
        """"used" / "二手" when the leading option is priced from a used card, else "" (for the answer's headline)."""
        lead = self.options[0] if self.options else None
        if lead is None or not lead.used_price:
            return ""
        return "二手" if lang == "zh" else "used"


# ------------------------------------------------------------------------------------------------------------
# layouts

@dataclass(frozen=True)
class Layout:
    count: int
    nodes: int
    tp: int
    pp: int
    zero: int = 0
    offload: str = "none"
    plan: Any = field(default=None, compare=False)  # the parallelism planner's plan (pre-training, full FT)

    @property
    def per_node(self) -> int:
        return self.count // self.nodes

    @property
    def dp(self) -> int:
        return self.count // (self.tp * self.pp)


def _counts(c: Constraints) -> list[tuple[int, int]]:
    """(count, nodes) pairs to try, ascending: 1, 2, 4, 8 in one node, then 2, 4, 8 … full nodes."""
    per_node = c.max_gpus_per_node
    pairs = [(n, 1) for n in NODE_COUNTS if n <= per_node]
    if per_node not in NODE_COUNTS:
        pairs.append((per_node, 1))
    nodes = 2
    while nodes <= c.max_nodes and nodes <= 64:
        pairs.append((per_node * nodes, nodes))
        nodes *= 2
    return pairs


def _valid_tp(model: ModelSpec, tp: int) -> bool:
    a, kv = model.num_attention_heads, model.num_kv_heads
    if a % tp:
        return False
    return model.is_mla or (tp <= kv and kv % tp == 0) or (tp > kv and tp % kv == 0)


def _inference_layout(model: ModelSpec, count: int, nodes: int) -> Layout | None:
    """Tensor parallel inside a node, pipeline parallel across nodes; the largest valid TP degree."""
    per_node = count // nodes
    tp = per_node
    while tp > 1 and not _valid_tp(model, tp):
        tp //= 2
    pp = nodes if nodes <= model.num_layers else 0
    if not pp:
        return None
    return Layout(count=count, nodes=nodes, tp=tp, pp=pp)


def _training_layouts(w: Workload, count: int, nodes: int) -> list[Layout]:
    """Data parallel with ZeRO, from the lightest sharding that may fit to full offload."""
    if count == 1:
        base = [Layout(1, 1, 1, 1, 0)]
        if w.task in ("full", "pretrain"):
            base.append(Layout(1, 1, 1, 1, 2, "optimizer"))
        return base
    stages = [0, 2, 3] if w.task in ("lora", "qlora", "freeze") else [1, 2, 3]
    out = [Layout(count, nodes, 1, 1, z) for z in stages]
    out.append(Layout(count, nodes, 1, 1, 3, "optimizer"))
    return out


# ------------------------------------------------------------------------------------------------------------
# the search

@dataclass
class _Ctx:
    model: ModelSpec
    workload: Workload
    constraints: Constraints
    catalog: Catalog


def _sized_workload(w: Workload, layout: Layout) -> Workload:
    """The workload as one GPU of `layout` sees it (inference replicas split the concurrency)."""
    per_node = layout.count // layout.nodes
    update: dict[str, Any] = {"gpus": per_node, "nodes": layout.nodes, "tp": layout.tp, "pp": layout.pp,
                              "zero": layout.zero, "offload": layout.offload}
    if not w.is_training and layout.dp > 1:
        update["concurrency"] = math.ceil(w.concurrency / layout.dp)
    return w.model_copy(update=update)


def _memory(ctx: _Ctx, gpu: GpuSpec, layout: Layout) -> tuple[MemoryEstimate, Workload] | None:
    w = _sized_workload(ctx.workload, layout)
    try:
        Workload.model_validate(w.model_dump())
        return estimate_memory(ctx.model, w, gpu), w
    except (AdvisorError, ValueError):
        return None


def _headroom(est: MemoryEstimate, gpu: GpuSpec) -> float:
    """Free share of the card: (capacity − per-GPU total) / capacity, or −1 when the engine's own limit (vLLM's
    gpu_memory_utilization) is exceeded. An engine reservation of 0.9 is itself the 10 % headroom."""
    if not est.fits(gpu):
        return -1.0
    return (gpu.memory_bytes - est.per_gpu.total) / gpu.memory_bytes


def _sized(est: MemoryEstimate, gpu: GpuSpec) -> bool:
    """Fits with headroom, and any CPU offload fits the host RAM assumed per node (else the sizing rules
    `sizing-low-headroom` / `sizing-offload-ram-short` would flag or block it)."""
    return _headroom(est, gpu) >= MIN_HEADROOM and est.cpu.total <= DEFAULT_CPU_RAM_BYTES


def candidate_gpus(catalog: Catalog, c: Constraints) -> list[GpuSpec]:
    """The GPUs to search: the user's candidates (named cards are checked whatever their market; the market rules
    say what applies), else the catalog's cards sold in the region's market (`sold_in`)."""
    if c.candidates:
        return [catalog.gpu(name) for name in c.candidates]
    return [g for g in catalog.gpus if sold_in(g, c.region)]


def sold_in(gpu: GpuSpec, region: str) -> bool:
    """Whether a company can buy the card new in `region` (knowledge ChinaMarket, dated): outside China, not a
    card built for the China market (H20, A800, H800, L20, RTX 4090 D, 5090 D); in mainland China, not one whose
    status is restricted, licence-required or not sold there (A100/H100/H200/B200, RTX 4090, 5090 …)."""
    if region == "cn":
        return gpu.china.status not in CN_UNAVAILABLE
    return not gpu.china.built_for_china


def resolve_inputs(workload: Workload, constraints: Constraints, catalog: Catalog | None = None,
                   model: ModelSpec | None = None) -> tuple[ModelSpec, Catalog]:
    catalog = catalog or load_catalog()
    if model is None and workload.model is None:
        raise InputError("no model given", field="model",
                         accepted="a catalog model id or alias (see `gpu-advisor models`)",
                         message_zh="没有指定模型（可用 `gpu-advisor models` 查看支持的模型）")
    model = model or catalog.model(workload.model or "")
    for name in constraints.candidates:
        catalog.gpu(name)
    if constraints.existing is not None:
        catalog.gpu(constraints.existing.gpu)
    return model, catalog


def _first_fit(ctx: _Ctx, gpu: GpuSpec, pairs: Iterable[tuple[int, int]]
               ) -> tuple[MemoryEstimate, Workload, Layout] | None:
    """The smallest layout on `gpu` whose memory fits with headroom, or None."""
    if training_advice.planned(ctx.workload):
        return _planned_fit(ctx, gpu, pairs)
    for count, nodes in pairs:
        layouts = ([_inference_layout(ctx.model, count, nodes)] if not ctx.workload.is_training
                   else _training_layouts(ctx.workload, count, nodes))
        for layout in layouts:
            if layout is None or _weights_cannot_fit(ctx, gpu, layout):
                continue
            found = _memory(ctx, gpu, layout)
            if found is None:
                continue
            est, w = found
            if _sized(est, gpu):
                return est, w, layout
            if w.is_training and _unshardable_exceeds(est, gpu):
                return None  # activations and runtime overhead do not shrink with more data-parallel GPUs
    return None


def _planned_fit(ctx: _Ctx, gpu: GpuSpec, pairs: Iterable[tuple[int, int]]
                 ) -> tuple[MemoryEstimate, Workload, Layout] | None:
    """Pre-training / full fine-tuning: the smallest count at which the parallelism planner finds a layout, or
    where ZeRO-Offload (which the planner does not search) holds the model states in host RAM."""
    w = ctx.workload
    for count, nodes in pairs:
        found = _planned(ctx, gpu, count, nodes)
        if found is not None:
            return found
        for layout in (lay for lay in _training_layouts(w, count, nodes) if lay.offload != "none"):
            found = _memory(ctx, gpu, layout)
            if found is not None and _sized(found[0], gpu):
                return found[0], found[1], layout
    return None


def _planned(ctx: _Ctx, gpu: GpuSpec, count: int, nodes: int) -> tuple[MemoryEstimate, Workload, Layout] | None:
    """The planner's layout of `count` × `gpu` as (memory, sized workload, layout), or None when none fits."""
    w = ctx.workload
    plan = training_advice.plan_for(ctx.model, gpu, count, w, w.train_tokens or _default_train_tokens(ctx.model, w))
    if plan is None:
        return None
    layout = Layout(count, nodes, plan.layout.tp, plan.layout.pp, plan.layout.zero, plan=plan)
    return training_advice.plan_memory(plan, ctx.model, w), _sized_workload(w, layout), layout


def _unshardable_exceeds(est: MemoryEstimate, gpu: GpuSpec) -> bool:
    """Per-GPU memory that data parallelism cannot shard (activations + overhead) already leaves no headroom."""
    return est.per_gpu.activations + est.per_gpu.overhead > (1 - MIN_HEADROOM) * est.usable_bytes(gpu)


def _weights_cannot_fit(ctx: _Ctx, gpu: GpuSpec, layout: Layout) -> bool:
    """Cheap lower bound for inference: the weight and KV-cache shards alone exceed the card less its headroom
    (skips the full estimate)."""
    if ctx.workload.is_training:
        return False
    from advisor.estimator.formats import weight_bytes
    from advisor.estimator.memory import kv_cache_bytes

    w = ctx.workload
    shard = weight_bytes(ctx.model, _precision(w, ctx.model), tp=layout.tp, pp=layout.pp)
    kv = kv_cache_bytes(ctx.model, w.context, math.ceil(max(w.batch, w.concurrency) / layout.dp), w.kv, layout.tp,
                        pp=layout.pp)
    return shard + kv > (1 - MIN_HEADROOM) * gpu.memory_bytes


def _closest(ctx: _Ctx, gpu: GpuSpec, pairs: list[tuple[int, int]]
             ) -> tuple[MemoryEstimate, Workload, Layout] | None:
    """The largest layout tried on `gpu` (for the "nothing fits" answer): the best it can do."""
    for count, nodes in reversed(pairs):
        layouts = ([_inference_layout(ctx.model, count, nodes)] if not ctx.workload.is_training
                   else list(reversed(_training_layouts(ctx.workload, count, nodes))))
        for layout in layouts:
            if layout is None:
                continue
            found = _memory(ctx, gpu, layout)
            if found is not None:
                return found[0], found[1], layout
    return None


# ------------------------------------------------------------------------------------------------------------
# evaluating one configuration

def _speed(ctx: _Ctx, gpu: GpuSpec, est: MemoryEstimate, w: Workload, layout: Layout) -> tuple[dict, dict, list[str]]:
    """(inference throughput dict, training dict, formulas) for a fitting configuration."""
    from advisor.estimator.calibration import load_calibration

    calib = load_calibration()
    if not w.is_training:
        from advisor.estimator.throughput import estimate_throughput

        tw = w.model_copy(update={"tp": layout.tp, "concurrency": ctx.workload.concurrency})
        t = estimate_throughput(ctx.model, gpu, layout.count if layout.pp == 1 else layout.tp, tw, calib,
                                with_capacity=False)
        return ({"decode_tokens_per_s": t.decode_tokens_per_s,
                 "decode_tokens_per_s_total": t.decode_tokens_per_s_total,
                 "ms_per_token": t.ms_per_token, "prefill_tokens_per_s": t.prefill_tokens_per_s,
                 "ttft_s": t.ttft_s, "bound": t.bound, "concurrency": w.concurrency,
                 "max_concurrency": _max_concurrency(est, gpu, layout, w), **_engine_concurrency(ctx, gpu, est, t)},
                {}, t.formulas[:1])
    if layout.plan is not None:
        return {}, training_advice.training_figures(layout.plan), layout.plan.formulas[:1]
    from advisor.estimator.training import estimate_train_time

    tokens = w.train_tokens or _default_train_tokens(ctx.model, w)
    r = estimate_train_time(ctx.model, gpu, layout.count, tokens, calib, seq_len=w.context, task=w.task,
                            recompute=w.recompute, zero=max(layout.zero, 1) if layout.count > 1 else 0,
                            micro_batch=w.batch, offload=layout.offload)
    from advisor.estimator.training import BEST_CASE, PRIOR_CASE

    basis = "fitted" if BEST_CASE in r.mfu_source else "prior" if PRIOR_CASE in r.mfu_source else "given"
    return ({}, {"tokens": tokens, "tokens_per_s": r.tokens_per_s, "wall_s": r.wall_s, "gpu_hours": r.gpu_hours,
                 "mfu": r.mfu, "mfu_basis": basis}, r.formulas[:1])


def _engine_concurrency(ctx: _Ctx, gpu: GpuSpec, est: MemoryEstimate, t: Any) -> dict[str, Any]:
    """The serving engine's own start-up figure for one instance (vLLM: "Maximum concurrency for N tokens per
    request: X x"; advisor/estimator/engine_memory.py), or nothing for engines without a KV reservation."""
    from advisor.estimator.engine_memory import engine_kv_budget

    b = engine_kv_budget(est.engine, ctx.model, gpu, tp=t.tp, weights=t.weights, kv=t.kv, max_model_len=t.context)
    if b is None:
        return {}
    return {"engine_max_concurrency": round(b.max_concurrency, 2), "engine_log_line": b.log_line}


def _default_train_tokens(model: ModelSpec, w: Workload) -> float:
    """Token budget when none was given: Chinchilla's 20 tokens per parameter for pre-training
    (Hoffmann et al. 2022), 100 M tokens for a fine-tuning run (stated as an assumption)."""
    from knowledge.params import param_counts

    return 20.0 * param_counts(model).total if w.task == "pretrain" else 1e8


def _max_concurrency(est: MemoryEstimate, gpu: GpuSpec, layout: Layout, w: Workload) -> int:
    """Sequences of `w.context` tokens whose KV fits next to the weights, over all replicas."""
    per_seq = est.kv_bytes_per_token * w.context
    if not per_seq:
        return 0
    free = est.usable_bytes(gpu) - (est.per_gpu.total - est.per_gpu.kv_cache)
    return max(0, int(free // per_seq)) * max(1, layout.dp)


def unit_price(gpu: GpuSpec, currency: str, condition: str = "new") -> dict[str, Any] | None:
    """Price of one card in `currency` with its date, kind, source, `condition` (new / used / street) and the
    source's reliability (advisor.estimator.cost.gpu_unit_price: the newest catalog price of that condition, else
    the other currency's at the dated exchange rate; a card with no new price is end-of-life and priced used,
    `end_of_life` true); None when there is none."""
    from advisor.estimator.calibration import load_economics
    from advisor.estimator.cost import end_of_life, gpu_unit_price
    from knowledge.schemas import Price, source_reliability

    try:
        amount, date, kind, source = gpu_unit_price(gpu, currency, load_economics(), condition)
    except InputError:
        return None
    base = kind.split(",")[0]
    cond = Price(amount=1, currency="USD", date=date, kind=base, source=source).condition  # type: ignore[arg-type]
    try:
        reliability = source_reliability(load_catalog().source(source).kind)
    except AdvisorError:
        reliability = "low"
    return {"amount": amount, "currency": currency, "as_of": date.isoformat(), "kind": kind, "source": source,
            "condition": cond, "reliability": reliability, "end_of_life": end_of_life(gpu)}


def option_tco(ctx: _Ctx, gpu: GpuSpec, opt: Option) -> dict[str, Any] | None:
    """Money for the job (advisor.estimator.cost.estimate_tco), three cases:

    * owned cards: running cost only (power and operations over the years; nothing is bought, no rent compared);
    * training: purchase and running cost against renting the job's own GPU-hours (count × wall-clock), not
      years of round-the-clock rent;
    * serving: purchase + power + operations over the horizon against renting over the same horizon at the stated
      utilisation (always-on: 100 %)."""
    from advisor.estimator.calibration import load_economics
    from advisor.estimator.cost import estimate_tco

    owned = "existing" in opt.labels
    if opt.price is None and not owned:
        return None
    tps = opt.throughput.get("decode_tokens_per_s_total") or opt.training.get("tokens_per_s")
    try:
        t = estimate_tco(gpu, opt.count, load_economics(), currency=ctx.constraints.currency,
                         years=ctx.constraints.tco_years, tokens_per_s=tps or None, region=ctx.constraints.region,
                         condition=ctx.constraints.condition,
                         gpu_price=None if opt.price is not None else 1.0)
    except InputError:
        return None
    out = t.to_contract()
    out["basis"] = "owned" if owned else "training_job" if opt.training else "serving_horizon"
    if opt.training and out.get("cloud"):
        _rent_the_job(out, opt.training["gpu_hours"])
    if owned:
        return _running_cost_only(out, opt.training["wall_s"] / 3600 if opt.training else None)
    return out


def _running_cost_only(t: dict[str, Any], job_hours: float | None) -> dict[str, Any]:
    """Owned hardware: the running cost (power) only — over the years for serving, over the job's wall-clock
    hours for a training job (power per year × hours / 8760); no purchase and no break-even. A training job keeps
    its rent comparison (the job's own GPU-hours)."""
    cur, years = t["currency"], float(t["years"])
    power = float((t.get("power_per_year") or {}).get("amount", 0.0))
    cloud = t.get("cloud") if job_hours is not None else None
    t["purchase"] = {"gpus": None, "rest_of_system": None, "total": None}
    t["operations_per_year"] = None
    t["depreciation_per_year"] = t["residual_value"] = None
    t["tco_per_year"] = {"amount": power, "currency": cur}
    t["cloud"] = cloud
    t["break_even_utilization"] = None
    t["cost_per_million_tokens"] = None
    t["prices"] = [p for p in t.get("prices", []) if "per card" not in p.get("name", "")]
    if job_hours is None:
        t["tco"] = {"amount": power * years, "currency": cur}
        t["formulas"] = [f"running cost = {years:g} years × power {power:,.0f} {cur}/year (cards already owned)"]
    else:
        t["tco"] = {"amount": power * job_hours / 8760.0, "currency": cur}
        t["job_hours"] = job_hours
        t["formulas"] = [f"running cost of the job = power {power:,.0f} {cur}/year × {job_hours:,.1f} h / 8760 h "
                         "(cards already owned)"]
    return t


def _rent_the_job(t: dict[str, Any], gpu_hours: float) -> None:
    """Training: the rent to compare is the job's own GPU-hours at the quoted hourly rate."""
    cloud = t["cloud"]
    hourly = float(cloud["cost"]["amount"]) / max(float(t.get("gpu_hours_used") or 0.0), 1e-9)
    cloud["cost"] = {"amount": hourly * gpu_hours, "currency": cloud["cost"]["currency"]}
    cloud["gpu_hours"] = gpu_hours
    t["break_even_utilization"] = None  # a one-off job has no utilisation to break even at
    t["formulas"] = list(t.get("formulas", [])) + [
        f"renting the job = {gpu_hours:,.0f} GPU-hours × {hourly:,.2f} {cloud['cost']['currency']}/GPU-hour"]


def _launch_hint(ctx: _Ctx, gpu: GpuSpec, w: Workload, layout: Layout) -> str:
    """A ready-to-use command or config line for the layout (vLLM, DeepSpeed, LLaMA-Factory, Megatron-LM)."""
    if layout.plan is not None:
        return training_advice.launch_hint(layout.plan)
    m = ctx.model
    repo = m.hf_repo or m.id
    if not w.is_training:
        repo = m.hf_repo_chat or repo  # a chat service serves the instruction-tuned checkpoint
        fmt = "awq-int4" if w.weights == "int4" else w.weights or ""  # generic 4-bit: the AWQ checkpoint
        quant = {"awq-int4": "awq", "gptq-int4": "gptq", "gptq-int8": "gptq", "fp8": "fp8",
                 "bnb-int8": "bitsandbytes", "nf4": "bitsandbytes"}.get(fmt, "")
        ckpt = quantized_checkpoint(m, fmt)
        if fmt.startswith("q"):
            split = f" --tensor-split {','.join(['1'] * layout.count)}" if layout.count > 1 else ""
            model_arg = (f"-hf {ckpt.repo}:{fmt.upper()}" if ckpt else
                         f"-m <{fmt.upper()} GGUF of {repo}>")
            return f"llama-server {model_arg} -c {w.context} -ngl 999 --parallel {w.concurrency}{split}"
        if quant in ("awq", "gptq"):
            repo = ckpt.repo if ckpt else f"<{fmt.upper()} checkpoint of {repo}>"
        parts = [f"vllm serve {repo}", f"--tensor-parallel-size {layout.tp}"]
        if layout.pp > 1:
            parts.append(f"--pipeline-parallel-size {layout.pp}")
        parts += [f"--max-model-len {w.context}", f"--max-num-seqs {max(1, math.ceil(w.concurrency / layout.dp))}"]
        if quant:
            parts.append(f"--quantization {quant}")
        elif not gpu.supports_bf16 and _precision(w, m) == "fp16":
            parts.append("--dtype half")
        if w.kv in ("fp8", "int8"):
            parts.append("--kv-cache-dtype fp8")
        if layout.dp > 1:
            parts.append(f"(× {layout.dp} replicas behind a load balancer)")
        return " ".join(parts)
    method = {"lora": "lora", "qlora": "lora", "freeze": "freeze", "full": "full", "pretrain": "full"}[w.task]
    bits = " quantization_bit=4" if w.task == "qlora" else ""
    stage = "pt" if w.task == "pretrain" else "sft"
    ds = ""
    if layout.count > 1 or layout.zero:
        off = "_offload" if layout.offload != "none" else ""
        ds = f" deepspeed=examples/deepspeed/ds_z{layout.zero}{off}_config.json"
    launcher = f"FORCE_TORCHRUN=1 NNODES={layout.nodes} " if layout.nodes > 1 else ""
    return (f"{launcher}llamafactory-cli train stage={stage} model_name_or_path={repo} finetuning_type={method}"
            f"{bits}{ds} cutoff_len={w.context} per_device_train_batch_size={w.batch} bf16="
            f"{'true' if gpu.supports_bf16 else 'false'} gradient_checkpointing=true")


def quantized_checkpoint(model: ModelSpec, fmt: str) -> Any:
    """The catalog's published checkpoint of `model` in weight format `fmt` (knowledge ModelSpec.quantized, cited),
    or None."""
    return next((q for q in model.quantized if q.format == fmt), None)


# ------------------------------------------------------------------------------------------------------------
# rules

def _precision(w: Workload, model: ModelSpec | None = None) -> str:
    """The weight format the estimate used: the workload's, else the task's default (the checkpoint's own precision
    for inference)."""
    from advisor.estimator.memory import DEFAULT_WEIGHTS, default_inference_format

    if w.weights:
        return w.weights
    if w.task == "inference" and model is not None:
        return default_inference_format(model)
    return DEFAULT_WEIGHTS[w.task]


def config_facts(ctx: _Ctx, gpu: GpuSpec, opt: Option, est: MemoryEstimate, w: Workload) -> dict[str, Any]:
    """The rule facts (rules.facts.ConfigFacts) of one priced, sized option."""
    from rules.facts import ConfigFacts

    c = ctx.constraints
    price = opt.price
    tp, pp = opt.layout["tp"], opt.layout["pp"]
    if opt.layout.get("engine") == "llama.cpp":
        # llama.cpp's default split (--split-mode layer) gives each GPU whole layers: a pipeline, with no per-layer
        # all-reduce, so the tensor-parallel rules do not apply (the layout's tp only shards the weights; review R31)
        tp, pp = 1, max(pp, opt.count)
    facts: dict[str, Any] = {
        "count": opt.count, "nodes": opt.nodes, "tp": tp, "pp": pp, "region": c.region,
        "acquisition": "owned" if "existing" in opt.labels else ("rent" if c.buy_or_rent == "rent" else "buy"),
        "task": w.task, "precision": _precision(w, ctx.model), "context": w.context, "max_context": ctx.model.max_context,
        "weight_format": _precision(w, ctx.model), "used": bool(price and price.get("condition") == "used"),
        "concurrency": w.concurrency if not w.is_training else None,
        "per_gpu_bytes": est.per_gpu.total, "kv_cache_bytes": est.per_gpu.kv_cache or None,
        "fits": opt.fits, "headroom_ratio": min(1.0, opt.headroom_ratio),
        "flash_attention": w.flash_attention,
        "power_limit_w": c.power_limit_w,
        "params": float(_param_fields(ctx.model)["params"]),
        "tco_years": opt.tco["years"] if opt.tco else None,
        "tp_divides_heads": _valid_tp(ctx.model, tp),
    }
    if est.cpu.total:
        facts.update(offload_cpu_bytes=est.cpu.total, cpu_ram_bytes=DEFAULT_CPU_RAM_BYTES)
    if opt.training:
        facts.update(train_wall_s=opt.training["wall_s"], deadline_s=c.deadline_s)
    if opt.throughput:
        facts.update(tokens_per_s=opt.throughput["decode_tokens_per_s_total"], min_tokens_per_s=c.min_tokens_per_s,
                     ms_per_token=opt.throughput["ms_per_token"], max_ms_per_token=c.max_ms_per_token)
        if w.concurrency >= 8:
            facts["always_on"] = True
    if price is not None:
        facts.update(price_amount=total_price(opt), currency=price["currency"])
        if c.budget is not None:
            facts["budget_amount"] = c.budget if c.currency == price["currency"] else None
            if facts["budget_amount"] is None:
                facts.pop("budget_amount")
    return ConfigFacts.from_gpu(gpu, **{k: v for k, v in facts.items() if v is not None}).to_facts()


def _workload_facts(ctx: _Ctx) -> dict[str, Any]:
    from knowledge.params import param_counts
    from rules.facts import WorkloadFacts

    w, c = ctx.workload, ctx.constraints
    counts = param_counts(ctx.model)
    fields: dict[str, Any] = {"task": w.task, "params": counts.total, "active_params": counts.active,
                                  "concurrency": w.concurrency, "context": w.context, "precision": _precision(w, ctx.model),
                                  "region": c.region, "model_id": ctx.model.id}
    if c.budget is not None:
        fields.update(budget_amount=c.budget, currency=c.currency)
    return WorkloadFacts(**fields).to_facts()


def evaluate_rules(facts: list[dict[str, Any]]) -> list[Finding]:
    """The findings of the rule engine for `facts`."""
    from rules.engine import evaluate

    return evaluate(facts)


# ------------------------------------------------------------------------------------------------------------
# building, checking and ranking options

def _option(ctx: _Ctx, gpu: GpuSpec, est: MemoryEstimate, w: Workload, layout: Layout,
            labels: list[str] | None = None) -> Option:
    fits = est.fits(gpu)
    opt = Option(
        gpu=gpu.id, gpu_name=gpu.name, count=layout.count, nodes=layout.nodes,
        layout={"tp": layout.tp, "pp": layout.pp, "dp": layout.dp, "zero": layout.zero, "offload": layout.offload,
                "engine": est.engine, "weights": _precision(w, ctx.model), "kv": w.kv,
                "recompute": w.recompute if w.is_training else None,
                **(training_advice.layout_fields(layout.plan) if layout.plan is not None else {})},
        per_gpu_bytes=est.per_gpu.to_contract(), cpu_bytes=est.cpu.to_contract(),
        capacity_bytes=gpu.memory_bytes, usable_bytes=est.usable_bytes(gpu),
        headroom_ratio=(gpu.memory_bytes - est.per_gpu.total) / gpu.memory_bytes, fits=fits,
        price=option_price(ctx, gpu), labels=list(labels or []),
        formulas=list(est.formulas), assumptions=list(est.assumptions),
        launch_hint=_launch_hint(ctx, gpu, w, layout),
    )
    opt.set_memory(est, w)
    if fits:
        throughput, training, formulas = _speed(ctx, gpu, est, w, layout)
        opt.throughput, opt.training = throughput, training
        opt.formulas += formulas
        opt.tco = option_tco(ctx, gpu, opt)
    opt.misses = target_misses(ctx, gpu, opt)
    opt.meets_targets = fits and not opt.misses
    if fits and not w.is_training:
        opt.margin = _margin(ctx, gpu, est, opt)
    return opt


def _margin(ctx: _Ctx, gpu: GpuSpec, est: MemoryEstimate, opt: Option) -> dict[str, Any]:
    """Share of the engine's usable memory the pick takes: near_capacity above NEAR_CAPACITY, with the longest
    context (one sequence per replica) and the most sequences at the asked context before it stops fitting."""
    usable = est.usable_bytes(gpu)
    share = est.per_gpu.total / usable if usable else 1.0
    out: dict[str, Any] = {"used_bytes": est.per_gpu.total, "usable_bytes": usable, "share": round(share, 4),
                           "near_capacity": share > NEAR_CAPACITY}
    if out["near_capacity"]:
        w = ctx.workload
        sub = _Ctx(ctx.model, w.model_copy(update={"concurrency": 1}), ctx.constraints, ctx.catalog)
        out["max_context"] = _longest_context(sub, gpu, opt)
        out["max_concurrency"] = opt.throughput.get("max_concurrency") if opt.throughput else None
        out["context"], out["concurrency"] = w.context, w.concurrency
    return out


def _longest_context(ctx: _Ctx, gpu: GpuSpec, opt: Option) -> int:
    """Longest context (multiple of 256, up to the model's maximum) that still fits on the option's layout
    (advisor.estimator.limits.largest_context)."""
    layout = Layout(opt.count, opt.nodes, opt.layout["tp"], opt.layout["pp"])

    def fits_at(context: int) -> bool:
        sub = _Ctx(ctx.model, ctx.workload.model_copy(update={"context": context}), ctx.constraints, ctx.catalog)
        found = _memory(sub, gpu, layout)
        return found is not None and found[0].fits(gpu)

    return largest_context(fits_at, ctx.model.max_context)


def option_price(ctx: _Ctx, gpu: GpuSpec) -> dict[str, Any] | None:
    """The dated unit price of `gpu` in the request's currency and condition (None when the catalog has none)."""
    return unit_price(gpu, ctx.constraints.currency, ctx.constraints.condition)


def total_price(opt: Option) -> float | None:
    """Purchase price of the whole configuration: GPUs plus the rest of the server(s) as the guides' tiers price
    it (advisor.estimator.cost), else the GPUs alone when no TCO could be computed."""
    if opt.tco is not None:
        if opt.tco.get("basis") == "owned":
            return 0.0  # nothing to buy
        return float(opt.tco["purchase"]["total"]["amount"])
    return None if opt.price is None else opt.price["amount"] * opt.count


def target_misses(ctx: _Ctx, gpu: GpuSpec, opt: Option) -> list[str]:
    """The request's targets (budget, deadline, power …) that `opt` misses."""
    c = ctx.constraints
    out = []
    if c.budget is not None and "existing" not in opt.labels:
        total = total_price(opt)
        if total is None:
            out.append("no_price")
        elif total > c.budget:
            out.append("budget")
    if c.power_limit_w is not None and gpu.tdp_w * opt.count > c.power_limit_w:
        out.append("power")
    t = opt.throughput
    if t:
        if c.max_ms_per_token is not None and t["ms_per_token"] > c.max_ms_per_token:
            out.append("latency")
        if c.min_tokens_per_s is not None and t["decode_tokens_per_s_total"] < c.min_tokens_per_s:
            out.append("throughput")
    if opt.training and c.deadline_s is not None and opt.training["wall_s"] > c.deadline_s:
        out.append("deadline")
    return out


SPEED_MISSES = ("latency", "throughput", "deadline")


def _search_gpu(ctx: _Ctx, gpu: GpuSpec, pairs: list[tuple[int, int]]) -> tuple[Option | None, Option | None]:
    """(the smallest option on `gpu` that fits and meets the speed targets, or the largest that was tried)."""
    remaining = list(pairs)
    best: Option | None = None
    while remaining:
        found = _first_fit(ctx, gpu, remaining)
        if found is None:
            break
        est, w, layout = found
        opt = _option(ctx, gpu, est, w, layout)
        best = opt
        if not any(m in SPEED_MISSES for m in opt.misses):
            return opt, None
        needed = layout.count + 1
        # wall-clock time scales at best as 1/GPUs: skip counts that cannot meet it (not from an offloaded layout,
        # whose host-side optimizer step more GPUs may drop altogether)
        if "deadline" in opt.misses and layout.offload == "none":
            needed = max(needed, math.ceil(layout.count * opt.training["wall_s"] / ctx.constraints.deadline_s))
            # full servers between the doublings (review R46): 64 GPUs at 34 days for a 30-day deadline need 73,
            # i.e. 10 servers of 8, not the next doubling's 16
            per_node = ctx.constraints.max_gpus_per_node
            nodes = math.ceil(needed / per_node)
            if needed > per_node and nodes <= ctx.constraints.max_nodes and (nodes * per_node, nodes) not in pairs:
                remaining.append((nodes * per_node, nodes))
                remaining.sort()
        remaining = [(n, k) for n, k in remaining if n >= needed]  # more GPUs for speed
    if best is not None:
        return best, None
    near = _closest(ctx, gpu, pairs)
    return None, (_option(ctx, gpu, *near) if near else None)


def cost_of(o: Option) -> float:
    """Money over the horizon: the TCO when it could be computed, else the purchase price (inf when unpriced)."""
    if o.tco and o.tco.get("tco"):
        return float(o.tco["tco"]["amount"])
    return total_price(o) or math.inf


def spread_consumer(o: Option, gpus: dict[str, GpuSpec]) -> bool:
    """Consumer or workstation cards spread over several servers: no NVLink switch, no peer-to-peer, PCIe and
    Ethernet between machines (rules risk-consumer-multi-node, sizing-pcie-tensor-parallel)."""
    return o.nodes > 1 and gpus[o.gpu].segment in ("consumer", "workstation")


def _rank(options: list[Option], training: bool, gpus: dict[str, GpuSpec]) -> list[Option]:
    """Label lowest_cost, best_value and best_performance among the options that meet every target.

    Cost is the TCO over the horizon (purchase + power + operations), so a cheap card that needs twice the servers
    and power does not win on its sticker price; consumer cards spread over several servers rank after any option
    that fits in one server or uses datacenter parts; an option near its memory limit (`NEAR_CAPACITY`) is not the
    lowest-cost or best-value pick while another has room."""
    ok = [o for o in options if o.meets_targets]
    priced = [o for o in ok if total_price(o)]
    compact = any(not spread_consumer(o, gpus) for o in priced)

    def perf(o: Option) -> float:
        return -o.training["wall_s"] if training else o.throughput.get("decode_tokens_per_s_total", 0.0)

    def value(o: Option) -> float:
        money = cost_of(o)
        return 1.0 / (money * o.training["wall_s"]) if training else perf(o) / money

    def spread(o: Option) -> bool:
        return compact and spread_consumer(o, gpus)

    roomy = any(not o.near_capacity for o in priced)

    def tight(o: Option) -> bool:  # near its memory limit while another option has room: not the cheap pick
        return roomy and o.near_capacity

    picks: list[tuple[str, Option]] = []
    if priced:
        picks.append(("lowest_cost", min(priced, key=lambda o: (spread(o), tight(o), cost_of(o), -perf(o)))))
        picks.append(("best_value", max(priced, key=lambda o: (not spread(o), not tight(o), value(o)))))
    if ok:
        picks.append(("best_performance", max(ok, key=lambda o: (perf(o), -cost_of(o)))))
    for label, o in picks:
        if label not in o.labels:
            o.labels.append(label)
    labelled: list[Option] = []
    for _, o in picks:
        if all(o is not x for x in labelled):  # identity: pydantic's == compares every field
            labelled.append(o)
    taken = {id(o) for o in labelled}
    existing = [o for o in options if "existing" in o.labels and id(o) not in taken]
    taken |= {id(o) for o in existing}
    rest = sorted((o for o in ok if id(o) not in taken), key=lambda o: (spread(o), tight(o), cost_of(o), -perf(o)))
    return existing + labelled + rest


def _apply_rules(ctx: _Ctx, opt: Option, gpu: GpuSpec) -> None:
    """Attach the rule findings for this option (rules see one configuration at a time)."""
    est, w = opt.memory_estimate, opt.sized_workload
    opt.findings = evaluate_rules([config_facts(ctx, gpu, opt, est, w)])
    opt.substitutes = sorted({f.alternative for f in opt.findings if f.alternative})


_CACHE: dict[tuple[Any, ...], Recommendation] = {}
_PENDING: dict[tuple[Any, ...], threading.Event] = {}  # keys being computed now, set when their result is cached
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
    key = (workload.model_dump_json(), constraints.model_dump_json(), id(catalog),
           None if model is None else model.model_dump_json(), limit)
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
    (`context` not set explicitly); unchanged otherwise."""
    from advisor.workload import default_context

    if "context" in workload.model_fields_set or workload.is_training:
        return workload
    spec = model or (catalog.find_model(workload.model) if workload.model else None)
    ctx = default_context(spec)
    return workload if ctx == workload.context else workload.model_copy(update={"context": ctx})


def _copy_containers(model: Record, **update: Any) -> Any:
    """A shallow copy of `model` whose list and dict fields are new containers (one level down): a caller can
    append, reorder or set keys without touching the memoised result. The values inside (findings, nested
    dicts of numbers) are shared and treated as read-only, as everywhere else in the advisor."""
    fields = {name: (list(value) if isinstance(value, list) else dict(value))
              for name, value in model.__dict__.items() if isinstance(value, (list, dict)) and name not in update}
    return model.model_copy(update={**fields, **update})


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
    model, catalog = resolve_inputs(workload, constraints, catalog, model)
    default_deadline = workload.is_training and constraints.deadline_s is None
    if default_deadline:  # a 3-year pre-training run on one card is "cheapest" but useless: bound the wall time
        constraints = constraints.model_copy(update={"deadline_s": DEFAULT_TRAINING_DEADLINE_S})
    ctx = _Ctx(model, workload, constraints, catalog)
    pairs = _counts(constraints)
    options: list[Option] = []
    near: list[Option] = []
    gpus = {g.id: g for g in candidate_gpus(catalog, constraints)}

    if constraints.existing is not None:
        gpu = catalog.gpu(constraints.existing.gpu)
        gpus.setdefault(gpu.id, gpu)
        n = constraints.existing.count
        nodes = max(1, math.ceil(n / constraints.max_gpus_per_node))
        opt = _existing_option(ctx, gpu, n, nodes)
        if opt is not None:
            (options if opt.fits else near).append(opt)

    for gpu in gpus.values():
        fit, closest = _search_gpu(ctx, gpu, pairs)
        if fit is not None and not any(same_config(o, fit) for o in options):
            options.append(fit)
        elif closest is not None and not any(same_config(o, closest) for o in options + near):
            near.append(closest)

    ranked = _rank(options, workload.is_training, gpus)
    shortlist: list[Option] = []
    for opt in ranked:
        _apply_rules(ctx, opt, gpus[opt.gpu])
        if any(f.severity == "block" for f in opt.findings) and "existing" not in opt.labels:
            opt.meets_targets = False
            opt.misses.append("blocked")
            continue
        shortlist.append(opt)
        if len(shortlist) >= limit:
            break
    if any("blocked" in o.misses for o in ranked):  # labels may have gone with a blocked option: rank again
        for o in shortlist:
            o.labels = [lab for lab in o.labels if lab == "existing"]
        shortlist = _rank(shortlist, workload.is_training, gpus)

    closest = sorted(near + [o for o in ranked if not o.meets_targets and "blocked" not in o.misses],
                     key=lambda o: -o.headroom_ratio)
    if not any(o.meets_targets for o in shortlist):
        for o in closest:
            if not o.findings:
                _apply_rules(ctx, o, gpus[o.gpu])
        closest.sort(key=_blocked)  # stable: configurations a rule rules out go last
    closest = closest[:3]
    lead = _quantised_lead(ctx, gpus, shortlist)
    if lead:
        shortlist = lead + [o for o in shortlist if not any(same_config(o, q) for q in lead)]
        closest = [o for o in closest if not any(o.gpu == q.gpu for q in lead)]
    rec = Recommendation(
        model={"id": model.id, "name": model.name, **_param_fields(model)},
        workload=workload.model_dump(mode="json"), constraints=constraints.model_dump(mode="json"),
        options=[o for o in shortlist if o.meets_targets or "existing" in o.labels], closest=closest,
        findings=evaluate_rules([_workload_facts(ctx)]),
        considered=len(options) + len(near),
        market_excluded=[] if constraints.candidates else [g.name for g in catalog.gpus if not sold_in(g, constraints.region)],
    )
    rec.assumptions, rec.assumptions_zh = _assumptions(ctx)
    for en, zh in _advice_assumptions(ctx, rec, bool(lead)):
        rec.assumptions.append(en)
        rec.assumptions_zh.append(zh)
    if default_deadline:
        days = DEFAULT_TRAINING_DEADLINE_S / 86400
        rec.assumptions.append(f"no deadline given: configurations that finish within {days:g} days are preferred "
                               "(give a deadline to change this)")
        rec.assumptions_zh.append(f"未给出期限：优先选择 {days:g} 天内能完成训练的配置（可指定期限）")
    if not any(o.meets_targets for o in rec.options):
        rec.changes = _changes(ctx, options, closest)
    own = next((o for o in options + near if "existing" in o.labels), None)
    if own is not None and not own.fits:  # what would make the user's own hardware work
        scope = constraints.model_copy(update={
            "candidates": (own.gpu,), "existing": None, "budget": None, "max_nodes": own.nodes,
            "max_gpus_per_node": max(1, min(16, own.count // own.nodes))})
        rec.changes += [ch.model_copy(update={"for_existing": True}) for ch in _changes(ctx, [], [own], scope)]
    from advisor.recommend_offload import offer

    offer(ctx, rec)  # one named card that cannot hold the model: llama.cpp layer offload, after the quantised ones
    return rec


def same_config(a: Option, b: Option) -> bool:
    """The same configuration (GPU, count, nodes and weight format): one row in any table."""
    return (a.gpu, a.count, a.nodes, a.layout.get("weights")) == (b.gpu, b.count, b.nodes, b.layout.get("weights"))


QUANTISED_FORMATS = ("awq-int4", "gptq-int4", "q4_k_m")  # tried in this order for a named card (vLLM, then GGUF)


def _quantised_lead(ctx: _Ctx, gpus: dict[str, GpuSpec], shortlist: list[Option]) -> list[Option]:
    """For cards the user named, serving a model at its own precision: when a named card has no option that meets
    the targets at that precision (it does not fit, or a capability rule such as BF16 on Turing blocks it), the
    4-bit configuration on that card (the first format of
    QUANTISED_FORMATS that no rule blocks; AWQ needs Turing or newer) — to lead the answer."""
    w, c = ctx.workload, ctx.constraints
    if w.is_training or w.weights is not None or not c.candidates:
        return []
    out: list[Option] = []
    pairs = _counts(c)
    for gid in dict.fromkeys(ctx.catalog.gpu(n).id for n in c.candidates):
        gpu = gpus[gid]
        native = next((o for o in shortlist if o.gpu == gid and o.meets_targets), None)
        if native is not None:
            continue
        for fmt in QUANTISED_FORMATS:
            sub = _Ctx(ctx.model, w.model_copy(update={"weights": fmt}), c, ctx.catalog)
            opt, _ = _search_gpu(sub, gpu, pairs)
            if opt is None or not opt.meets_targets:
                continue
            _apply_rules(sub, opt, gpu)
            if _blocked(opt):
                continue
            if native is None:
                opt.labels.append("quantised")
                out.append(opt)
            break
    return out


def _advice_assumptions(ctx: _Ctx, rec: Recommendation, quantised: bool) -> list[tuple[str, str]]:
    """What the answer must state: the market the search kept to, the price condition, the default context."""
    from advisor.workload import DEFAULT_CONTEXT

    w, c = ctx.workload, ctx.constraints
    out: list[tuple[str, str]] = []
    if rec.market_excluded:
        names = ", ".join(rec.market_excluded)
        out.append((f"region {c.region}: only cards sold new there are offered (left out: {names})"
                    if c.region == "cn" else
                    f"region {c.region} (outside mainland China): cards sold only in mainland China are not offered "
                    f"(left out: {names})",
                    f"地区 {c.region}：只推荐国内可买到新卡的型号（未纳入：{names}）" if c.region == "cn" else
                    f"地区 {c.region}（中国大陆以外）：不推荐专供中国市场的型号（未纳入：{names}）"))
    if c.condition == "used":
        out.append(("used cards asked for: priced at dated used-card prices where the catalog has them",
                    "按要求使用二手卡：有二手价的按带日期的二手价计算"))
    else:
        eol = sorted({o.gpu_name for o in rec.options if o.price and o.price.get("end_of_life")})
        out.append(("new-card prices (a company purchase)" + (
                    f"; {', '.join(eol)}: end of life (the catalog's newest price is a used one), so priced used"
                    if eol else ""),
                    "按新卡价格计算（企业采购）" + (f"；{'、'.join(eol)} 已停产（目录中最新价格为二手价），按二手价计算"
                                           if eol else "")))
    if not w.is_training and ctx.model.default_context and w.context == ctx.model.default_context:
        out.append((f"context {w.context} tokens per sequence: {ctx.model.name} is a reasoning model whose answers run "
                    f"long (its own default, instead of {DEFAULT_CONTEXT})",
                    f"每条序列上下文按 {w.context} tokens：{ctx.model.name} 是推理模型，回答很长（采用该模型的默认值，"
                    f"而不是 {DEFAULT_CONTEXT}）"))
    if quantised:
        out.append(("the named card does not run the model at its own precision on fewer cards, so the 4-bit "
                    "configuration leads", "所选显卡无法以原精度用更少的卡运行该模型，因此首选 4-bit 量化配置"))
    return out


def _param_fields(model: ModelSpec) -> dict[str, int]:
    from knowledge.params import param_counts

    counts = param_counts(model)
    return {"params": counts.total, "active_params": counts.active}


def _existing_option(ctx: _Ctx, gpu: GpuSpec, count: int, nodes: int,
                     labels: tuple[str, ...] = ("existing",)) -> Option | None:
    """The given count of `gpu` with the lightest layout that fits with headroom (else the lightest that fits at
    all, else the last tried), fitting or not."""
    planned = _planned(ctx, gpu, count, nodes) if training_advice.planned(ctx.workload) else None
    if planned is not None:
        return _option(ctx, gpu, *planned, labels=list(labels))
    if ctx.workload.is_training:
        layouts = _training_layouts(ctx.workload, count, nodes)
    else:
        layout = _inference_layout(ctx.model, count, nodes)
        layouts = [layout] if layout else []
    tried = []
    for layout in layouts:
        found = _memory(ctx, gpu, layout)
        if found is None:
            continue
        tried.append((*found, layout))
        if _sized(found[0], gpu):
            break
    # the first layout sized with headroom, else the first that fits at all, else the last tried
    pick = next((t for t in tried if _sized(t[0], gpu)), None) or next((t for t in tried if t[0].fits(gpu)), None)
    pick = pick or (tried[-1] if tried else None)
    return _option(ctx, gpu, *pick, labels=list(labels)) if pick else None


def _assumptions(ctx: _Ctx) -> tuple[list[str], list[str]]:
    """The recommender's own assumptions, in English and Chinese (same order)."""
    w, c = ctx.workload, ctx.constraints
    cur = c.currency
    pairs = [
        (f"a configuration fits when its per-GPU memory leaves ≥ {MIN_HEADROOM:.0%} of the card free (an engine "
         "that reserves 90 % of the card, as vLLM does, leaves that by itself)",
         f"每卡显存至少留出 {MIN_HEADROOM:.0%} 余量才算“装得下”（vLLM 这类只占用 90% 显存的引擎本身即留出该余量）"),
        (f"prices in {cur}: the newest dated price per card in the catalog (converted at the dated exchange rate "
         "where only the other currency is known) plus the rest of the server as the guides' tiers price it; TCO "
         "over the default years at full utilisation",
         f"价格以 {cur} 计：取目录中每张卡最新的带日期价格（只有另一币种时按带日期的汇率换算），加上按指南分档估算的"
         "整机其余部分；TCO 按默认年限、满负荷计算"),
        (f"at most {c.max_gpus_per_node} GPUs per node", f"每台服务器最多 {c.max_gpus_per_node} 张卡"),
    ]
    if not w.is_training:
        pairs.append(("tensor parallel inside a node, pipeline parallel across nodes; replicas when the heads do not "
                      "divide the GPU count",
                      "节点内张量并行、节点间流水线并行；注意力头数不能整除卡数时改为多副本"))
    elif w.train_tokens is None:
        pairs.append(("training time for a default token budget (20 tokens per parameter for pre-training, 100 M "
                      "tokens for fine-tuning): give the real budget for a real estimate",
                      "训练时间按默认 token 量估算（预训练每参数 20 token，微调 1 亿 token）：请给出实际数据量以得到准确估计"))
    return [en for en, _ in pairs], [zh for _, zh in pairs]


# ------------------------------------------------------------------------------------------------------------
# when nothing fits: what would have to change

LOWER_PRECISION = {"inference": ("fp8", "int8", "awq-int4", "q4_k_m", "q3_k_m", "q2_k")}
LIGHTER_TASK = {"full": ("lora", "qlora"), "pretrain": (), "freeze": ("lora", "qlora"), "lora": ("qlora",),
                "qlora": ()}


def _changes(ctx: _Ctx, options: list[Option], closest: list[Option], scope: Constraints | None = None
             ) -> list[Change]:
    """Concrete changes that would produce a configuration meeting every constraint, each checked by re-running
    the search with that one change (within `scope`, e.g. only the user's own cards, when given)."""
    w, c = ctx.workload, scope or ctx.constraints
    out: list[Change] = []
    fitting = [o for o in options if o.fits]
    if fitting and c.budget is not None and all("budget" in o.misses or "no_price" in o.misses for o in fitting):
        cheapest = min((o for o in fitting if total_price(o)), key=lambda o: total_price(o) or math.inf,
                       default=None)
        if cheapest is not None:
            amount = total_price(cheapest)
            out.append(Change(kind="budget", value=amount,
                              message=f"a budget of {_money(amount, c.currency)} buys {cheapest.count}× "
                                      f"{cheapest.gpu_name}, the cheapest configuration that fits",
                              message_zh=f"预算提高到 {_money(amount, c.currency)} 可买 {cheapest.count} 张 "
                                         f"{cheapest.gpu_name}（能装下的最便宜配置）"))
    if any(m in SPEED_MISSES for o in fitting for m in o.misses):
        out.append(Change(kind="gpus", message="more GPUs per node or faster cards (the speed target is missed "
                                               "by every configuration tried)",
                          message_zh="需要更多或更快的显卡（所有配置都达不到速度目标）"))
    if w.is_training:
        for task in LIGHTER_TASK.get(w.task, ()):
            alt = _retry(ctx, w.model_copy(update={"task": task, "weights": None}), scope)
            if alt is not None:
                out.append(Change(kind="task", value=task,
                                  message=f"{task} instead of {w.task}: {alt.count}× {alt.gpu_name} fits",
                                  message_zh=f"改用 {task}（而不是 {w.task}）：{alt.count} 张 {alt.gpu_name} 可以装下"))
                break
    else:
        current = _precision(w, ctx.model)
        formats = list(LOWER_PRECISION["inference"])
        if c.candidates and not all(ctx.catalog.gpu(g).supports_fp8 for g in c.candidates):
            formats.remove("int8")
            formats.insert(0, "int8")  # no FP8 tensor cores: INT8 runs natively, FP8 only as weight-only upcast
        for fmt in formats:
            if _bits(fmt) >= _bits(current):
                continue
            alt = _retry(ctx, w.model_copy(update={"weights": fmt}), scope)
            if alt is not None:
                out.append(Change(kind="precision", value=fmt,
                                  message=f"{fmt} weights instead of {current}: {alt.count}× {alt.gpu_name} fits",
                                  message_zh=f"权重改用 {fmt}（而不是 {current}）：{alt.count} 张 {alt.gpu_name} 可以装下"))
                break
        best = next((o for o in closest if not _blocked(o)), None)  # never point to a card a rule rules out
        if best is not None:
            ctx_len = _max_context(ctx, ctx.catalog.gpu(best.gpu), best)
            if ctx_len and ctx_len < w.context:
                out.append(Change(kind="context", value=ctx_len,
                                  message=f"context ≤ {ctx_len} tokens (instead of {w.context}) fits on "
                                          f"{best.count}× {best.gpu_name}",
                                  message_zh=f"上下文降到 {ctx_len} tokens 以内（原 {w.context}）可在 {best.count} 张 "
                                             f"{best.gpu_name} 上装下"))
    return out


def _blocked(o: Option) -> bool:
    return any(f.severity == "block" for f in o.findings)


def _bits(fmt: str) -> float:
    from advisor.estimator.formats import bits_per_weight

    return bits_per_weight(fmt)


def _retry(ctx: _Ctx, w: Workload, constraints: Constraints | None = None) -> Option | None:
    """The cheapest option meeting every constraint for a changed workload that no rule blocks (a change must not
    point to a card the market rules rule out)."""
    c = constraints or ctx.constraints
    sub = _Ctx(ctx.model, w, c, ctx.catalog)
    pairs = _counts(c)
    found = []
    for gpu in candidate_gpus(ctx.catalog, c):
        opt, _ = _search_gpu(sub, gpu, pairs)
        if opt is not None and opt.meets_targets:
            found.append((opt, gpu))
    for opt, gpu in sorted(found, key=lambda pair: cost_of(pair[0])):
        _apply_rules(sub, opt, gpu)
        if not any(f.severity == "block" for f in opt.findings):
            return opt
    return None


def _max_context(ctx: _Ctx, gpu: GpuSpec, opt: Option) -> int | None:
    """Longest context (multiple of 256 tokens, up to the asked one) that fits with headroom on the option's
    layout (advisor.estimator.limits.largest_context)."""
    layout = Layout(opt.count, opt.nodes, opt.layout["tp"], opt.layout["pp"], opt.layout["zero"],
                    opt.layout["offload"])

    def fits_at(context: int) -> bool:
        sub = _Ctx(ctx.model, ctx.workload.model_copy(update={"context": context}), ctx.constraints, ctx.catalog)
        found = _memory(sub, gpu, layout)
        return found is not None and _headroom(found[0], gpu) >= MIN_HEADROOM

    return largest_context(fits_at, ctx.workload.context) or None


def _money(amount: float | None, currency: str) -> str:
    if amount is None:
        return "?"
    return f"¥{amount:,.0f}" if currency == "CNY" else f"${amount:,.0f}"


# ------------------------------------------------------------------------------------------------------------
# evaluating named configurations ("compare 8×H20, 8×A800 and 8×RTX 4090")

def _owned(c: Constraints, catalog: Catalog, gpu: GpuSpec, count: int) -> tuple[str, ...]:
    """("existing",) when (gpu, count) is the hardware the user owns: rules see it as owned, not bought."""
    return ("existing",) if c.existing and catalog.gpu(c.existing.gpu).id == gpu.id and c.existing.count == count else ()


def evaluate_configs(workload: Workload, configs: Iterable[tuple[str, int]], constraints: Constraints | None = None,
                     *, catalog: Catalog | None = None, model: ModelSpec | None = None) -> list[Option]:
    """Each (gpu, count) as the user named it: memory, speed, price and findings, fitting or not.

    The layout is the one the search would use for that count (training: the lightest ZeRO stage that fits with
    headroom and within the host RAM assumed for offload, else the lightest that fits at all)."""
    constraints = constraints or Constraints()
    model, catalog = resolve_inputs(workload, constraints, catalog, model)
    ctx = _Ctx(model, workload, constraints, catalog)
    out = []
    for name, count in configs:
        if not 1 <= count <= constraints.max_gpus_per_node * constraints.max_nodes:
            raise InputError(f"GPU count must be between 1 and {constraints.max_gpus_per_node * constraints.max_nodes}"
                             f", got {count}", field="count")
        gpu = catalog.gpu(name)
        nodes = max(1, math.ceil(count / constraints.max_gpus_per_node))
        opt = _existing_option(ctx, gpu, count, nodes, labels=_owned(constraints, catalog, gpu, count))
        if opt is None:
            raise InputError(f"{count}× {gpu.name} has no valid layout for {model.name} (tensor parallelism must "
                             f"divide the {model.num_attention_heads} attention heads)", field="count")
        _apply_rules(ctx, opt, gpu)
        if any(f.severity == "block" for f in opt.findings):
            opt.misses.append("blocked")
            opt.meets_targets = False
        out.append(opt)
    return out
