"""The rule facts of an option and of the request (rules.facts.ConfigFacts, WorkloadFacts) and the findings the
rule engine gives for them; an option with a "block" finding is ruled out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from advisor.estimator.results import MemoryEstimate
from advisor.recommend.prices import budget_price
from advisor.recommend.results import Option
from advisor.recommend.search import DEFAULT_CPU_RAM_BYTES, Search, precision, valid_tp
from advisor.workload import Workload
from knowledge.params import param_counts
from knowledge.schemas import GpuSpec, ModelSpec
from rules.engine import evaluate
from rules.facts import ConfigFacts, WorkloadFacts
from rules.findings import Finding


def config_facts(search: Search, gpu: GpuSpec, opt: Option, est: MemoryEstimate, w: Workload) -> dict[str, Any]:
    """The rule facts (rules.facts.ConfigFacts) of one priced, sized option, as the flat dict the engine asserts."""
    return config_model(search, gpu, opt, est, w).to_facts()


def config_model(search: Search, gpu: GpuSpec, opt: Option, est: MemoryEstimate, w: Workload) -> ConfigFacts:
    """The checked rule facts of one priced, sized option (given to the engine as they are: not checked twice)."""
    c, model = search.constraints, search.model
    price = opt.price
    tp, pp = opt.layout.tp, opt.layout.pp
    if opt.layout.engine == "llama.cpp":
        # llama.cpp's default split (--split-mode layer) gives each GPU whole layers: a pipeline, with no per-layer
        # all-reduce, so the tensor-parallel rules do not apply (the layout's tp only shards the weights; review R31);
        # the pipeline is one replica's GPUs (its tp × pp), the other replicas are copies of it
        tp, pp = 1, max(pp, opt.layout.tp * opt.layout.pp)
    facts: dict[str, Any] = {
        "count": opt.count, "nodes": opt.nodes, "tp": tp, "pp": pp, "region": c.region,
        "acquisition": "owned" if "existing" in opt.labels or opt.gpu in c.owned
        else ("rent" if c.buy_or_rent == "rent" else "buy"),
        "task": w.task, "precision": precision(w, model), "context": w.context, "max_context": model.max_context,
        "weight_format": precision(w, model), "used": opt.used_price,
        "concurrency": w.concurrency if not w.is_training else None,
        "per_gpu_bytes": est.per_gpu.total.n, "kv_cache_bytes": est.per_gpu.kv_cache.n or None,
        "fits": opt.fits, "headroom_ratio": min(1.0, opt.headroom_ratio),
        "flash_attention": w.flash_attention,
        "engine": opt.layout.engine or w.engine,
        "power_limit_w": c.power_limit_w,
        "params": float(param_fields(model)["params"]),
        "tco_years": opt.tco.years if opt.tco is not None else None,
        "tp_divides_heads": valid_tp(model, tp),
        "attention_dp": True if opt.layout.attention_dp else None,
    }
    if est.cpu.total:
        facts.update(offload_cpu_bytes=est.cpu.total.n, cpu_ram_bytes=DEFAULT_CPU_RAM_BYTES)
    if opt.training:
        facts.update(train_wall_s=opt.training.wall.s, deadline_s=c.deadline_s)
    if opt.throughput:
        facts.update(tokens_per_s=opt.throughput.judged_total, min_tokens_per_s=c.min_tokens_per_s,
                     ms_per_token=opt.throughput.judged_tpot.ms, max_ms_per_token=c.max_ms_per_token)
        if w.concurrency >= 8:
            facts["always_on"] = True
    if price is not None:
        facts.update(price_amount=budget_price(opt, c.budget_covers), currency=price.per_card.currency)
        if c.budget is not None and c.currency == price.per_card.currency:
            facts["budget_amount"] = c.budget
    return ConfigFacts.from_gpu(gpu, **{k: v for k, v in facts.items() if v is not None})


def workload_facts(search: Search) -> WorkloadFacts:
    """The checked rule facts (rules.facts.WorkloadFacts) of the job itself, whatever the hardware."""
    w, c, model = search.workload, search.constraints, search.model
    counts = param_counts(model)
    fields: dict[str, Any] = {"task": w.task, "params": counts.total, "active_params": counts.active,
                              "concurrency": w.concurrency, "context": w.context, "precision": precision(w, model),
                              "region": c.region, "model_id": model.id}
    if c.budget is not None:
        fields.update(budget_amount=c.budget, currency=c.currency)
    return WorkloadFacts(**fields)


def evaluate_rules(facts: Sequence[Mapping[str, Any] | ConfigFacts | WorkloadFacts]) -> list[Finding]:
    """The findings of the rule engine for `facts` (flat dicts, checked there, or checked fact models)."""
    return evaluate(facts)


def apply_rules(search: Search, opt: Option, gpu: GpuSpec) -> None:
    """Attach the rule findings for this option (rules see one configuration at a time)."""
    est, w = opt.memory_estimate, opt.sized_workload
    if est is None or w is None:
        raise ValueError(f"{opt.count}× {opt.gpu_name}: an option is checked with the memory estimate it was sized with")
    opt.findings = evaluate_rules([config_model(search, gpu, opt, est, w)])
    opt.substitutes = sorted({f.alternative for f in opt.findings if f.alternative})


def blocked(o: Option) -> bool:
    """A rule rules the option out (a "block" finding)."""
    return any(f.severity == "block" for f in o.findings)


def ruled_out_beyond_fit(o: Option) -> bool:
    """A rule other than "does not fit in memory" rules the option out (a market or engineering rule): a change
    that makes it fit still leaves it out."""
    return any(f.severity == "block" and f.rule_id != "sizing-does-not-fit" for f in o.findings)


def param_fields(model: ModelSpec) -> dict[str, int]:
    """The model's total and active parameter counts (knowledge.params)."""
    counts = param_counts(model)
    return {"params": counts.total, "active_params": counts.active}
