"""The hardware tools: the recommendation (through advisor.analysis, as the dialog), GPUs compared side by side,
and the catalog's GPU and model entries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from advisor.analysis.evaluate import analyse
from advisor.conversation.tools.args import CompareGpusArgs, LookupGpuArgs, LookupModelArgs, RecommendArgs
from advisor.conversation.tools.estimates import memory_facts, try_throughput
from advisor.conversation.tools.format import fmt_bandwidth, fmt_bytes, fmt_count, fmt_flops, mem, num
from advisor.conversation.tools.results import (
    MAX_ASSUMPTIONS,
    ToolOutput,
    cap,
    catalog,
    cites,
    dedupe_findings,
    evaluate_rules,
    finding_dict,
)
from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_bytes_per_token_layer
from advisor.estimator.memory import estimate_memory
from knowledge.errors import AdvisorError
from knowledge.params import param_counts
from knowledge.structs import dump
from rules.findings import Finding

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec


def recommend_tool(args: RecommendArgs) -> ToolOutput:
    """Ranked GPU configurations (GPU × count × layout) that fit the workload and constraints, with findings."""
    cat = catalog()
    cat.model(args.model)  # a clear UnknownModel error before the search
    analysis = analyse(args.to_request(cat), cat)
    rec = analysis.recommendation
    assert rec is not None  # a strict request: the recommender raises rather than answer without it
    src = "recommend (advisor.recommend.recommender)"
    options = list(rec.options)[: args.top]
    shown = options or list(rec.closest)[: args.top]
    rows, numbers, findings = [], [], []
    for i, opt in enumerate(shown, 1):
        row, nums, fnd = _option_row(i, opt, src)
        rows.append(row)
        numbers += nums
        findings += fnd
    findings = dedupe_findings([*findings, *rec.findings])
    # the rows carry each number's display string; the full Number dicts stay out of the model's context
    data: dict[str, Any] = {"model": rec.model.get("name"), "options" if options else "closest_not_fitting": rows,
                            "findings": [finding_dict(f) for f in findings],
                            "assumptions": cap(rec.assumptions, MAX_ASSUMPTIONS), "inputs": args.given(),
                            "configurations_considered": rec.considered}
    if not options:
        data["none_meets_the_constraints"] = True
        data["changes_that_would_help"] = [c.message for c in rec.changes][:5]
    summary = (f"{len(options)} option(s); first: {rows[0]['label']}" if options
               else "no configuration meets the constraints" + (f"; closest: {rows[0]['label']}" if rows else ""))
    contract = rec.to_contract()
    memory = None
    if shown:
        first = shown[0]
        memory = {"parts": {k: v.n for k, v in first.per_gpu.parts().items()},
                  "total": first.per_gpu.total.n, "capacity": first.capacity.n, "usable": first.usable.n,
                  "gpu": first.gpu}
    return ToolOutput(summary, data, numbers, findings,
                      {"options": (contract["options"] or contract["closest"])[: args.top],
                       "recommendation": contract, "memory": memory})


def _option_row(i: int, opt: Option, src: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[Finding]]:
    """One option for the model: label, layout, fit, and its numbers (memory, speed or training time, price)."""
    label = f"{opt.count}× {opt.gpu_name}" + (f" ({opt.nodes} nodes)" if opt.nodes > 1 else "")
    tag = f"option {i} ({label})"
    row: dict[str, Any] = {"rank": i, "label": label, "gpu": opt.gpu, "count": opt.count, "nodes": opt.nodes,
                           "labels": list(opt.labels), "layout": {k: v for k, v in opt.layout.to_contract().items() if v is not None},
                           "fits": opt.fits, "meets_targets": opt.meets_targets}
    if opt.misses:
        row["misses"] = list(opt.misses)
    if opt.substitutes:
        row["substitutes"] = list(opt.substitutes)
    if opt.launch_hint:
        row["launch_hint"] = opt.launch_hint
    nums = [mem(f"{tag}: memory per GPU", opt.per_gpu.total, src),
            mem(f"{tag}: GPU memory", opt.capacity, src),
            mem(f"{tag}: usable memory per GPU", opt.usable, src),
            num(f"{tag}: headroom", opt.headroom_ratio, "ratio", src)]
    t = opt.throughput.to_contract() if opt.throughput else {}
    for key, name, unit, scale in (("decode_tokens_per_s", "decode speed per sequence", "tokens/s", 1.0),
                                   ("decode_tokens_per_s_total", "decode speed, all sequences", "tokens/s", 1.0),
                                   ("ms_per_token", "time per output token", "s", 1e-3),
                                   ("ttft_s", "time to first token", "s", 1.0),
                                   ("max_concurrency", "max concurrent sequences that fit", "sequences", 1.0)):
        if isinstance(t.get(key), (int, float)) and not isinstance(t.get(key), bool):
            nums.append(num(f"{tag}: {name}", t[key] * scale, unit, src))
    tr = opt.training.to_contract() if opt.training else {}
    for key, name, unit in (("wall_s", "training wall-clock", "s"), ("gpu_hours", "GPU-hours", "GPU-hours"),
                            ("tokens_per_s", "training throughput", "tokens/s"), ("mfu", "MFU", "ratio"),
                            ("tokens", "training tokens", "tokens")):
        if isinstance(tr.get(key), (int, float)) and not isinstance(tr.get(key), bool):
            nums.append(num(f"{tag}: {name}", tr[key], unit, src))
    price = opt.price
    if price is not None:
        cur, as_of, amount = price.per_card.currency, price.as_of, price.per_card.amount
        psrc = f"catalog: {price.source}, {price.kind} as of {as_of}"
        nums.append(num(f"{tag}: price per GPU (as of {as_of})", amount, cur, psrc))
        nums.append(num(f"{tag}: price of {opt.count} GPUs (as of {as_of})", amount * opt.count, cur, psrc))
        row["price_as_of"] = as_of
    if opt.tco is not None:
        tco = opt.tco.tco
        nums.append(num(f"{tag}: TCO over {opt.tco.years} years", tco.amount, tco.currency, src))
        cloud = opt.tco.cloud
        if cloud is not None:  # renting the same GPU-hours instead: at the user's stated price, else a dated quote
            where = ("your stated price" if cloud.stated_rate is not None
                     else f"{cloud.provider or 'a cloud'} as of {cloud.as_of}")
            nums.append(num(f"{tag}: renting the same GPU-hours over {opt.tco.years} years ({where})", cloud.cost.amount,
                            cloud.cost.currency, src))
    row["numbers"] = [f"{n['name'].split(': ', 1)[1]}: {n['display']}" for n in nums]
    row["finding_ids"] = [f.rule_id for f in opt.findings]
    return row, nums, list(opt.findings)


def compare_gpus_tool(args: CompareGpusArgs) -> ToolOutput:
    """Side-by-side specs of 2–6 GPUs; with a model, memory fit (and decode speed for inference) on each."""
    cat = catalog()
    gpus = [cat.gpu(g) for g in args.gpus]
    if len({g.id for g in gpus}) < len(gpus):
        raise AdvisorError("the same GPU is listed twice", field="gpus", accepted="2–6 different GPUs")
    model = cat.model(args.model) if args.model else None
    rows, numbers = [], []
    findings: list[Finding] = []
    workload = args.to_workload() if model else None
    for g in gpus:
        spec = _gpu_numbers(g)
        row: dict[str, Any] = {"gpu": g.name, "id": g.id, "architecture": g.architecture, "nvlink": g.nvlink,
                               "china": _china(g)}
        numbers += spec
        if model is not None and workload is not None:
            layout = workload
            try:
                est = estimate_memory(model, layout, g)
            except AdvisorError as exc:
                row["memory_error"] = str(exc)
            else:
                src = "estimate_memory (advisor.estimator.memory)"
                row["fits"] = est.fits(g)
                numbers.append(mem(f"{g.name}: {model.name} memory per GPU ({args.count} GPU(s))", est.per_gpu.total,
                                   src))
                numbers.append(num(f"{g.name}: memory utilisation", est.utilisation(g), "ratio", src))
                if workload.task == "inference" and est.fits(g):
                    speed = try_throughput(model, g, args.count, layout)
                    if speed is not None:
                        numbers.append(num(f"{g.name}: decode speed per sequence", speed.decode_tokens_per_s,
                                           "tokens/s", "estimate_throughput (advisor.estimator.throughput)"))
                        numbers.append(num(f"{g.name}: decode speed, all sequences", speed.decode_tokens_per_s_total,
                                           "tokens/s", "estimate_throughput (advisor.estimator.throughput)"))
                findings += evaluate_rules(memory_facts(est, g, args))
        rows.append(row)
    data = {"gpus": rows, "numbers": numbers, "count": args.count,
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    if model is not None:
        data["model"] = model.name
    summary = "compared " + ", ".join(g.name for g in gpus) + (f" for {model.name}" if model else "")
    return ToolOutput(summary, data, numbers, dedupe_findings(findings), {"rows": rows})


def _gpu_numbers(g: GpuSpec) -> list[dict[str, Any]]:
    n = g.name
    out = [num(f"{n} memory", g.memory_bytes, "bytes", cites(g, "memory_bytes")),
           num(f"{n} memory bandwidth", g.bandwidth_bytes_per_s, "bytes/s", cites(g, "bandwidth_bytes_per_s")),
           num(f"{n} dense BF16 tensor", g.bf16_dense_flops, "FLOP/s", cites(g, "bf16_dense_flops"))]
    if g.fp8_dense_flops:
        out.append(num(f"{n} dense FP8 tensor", g.fp8_dense_flops, "FLOP/s", cites(g, "fp8_dense_flops")))
    if g.int8_dense_ops:
        out.append(num(f"{n} dense INT8 tensor", g.int8_dense_ops, "OP/s", cites(g, "int8_dense_ops"),
                       f"{g.int8_dense_ops / 1e12:,.0f} TOPS"))
    out.append(num(f"{n} FP32 (non-tensor)", g.fp32_flops, "FLOP/s", cites(g, "fp32_flops")))
    out.append(num(f"{n} TDP", g.tdp_w, "W", cites(g, "tdp_w")))
    if g.nvlink_bytes_per_s:
        out.append(num(f"{n} NVLink (total, both directions)", g.nvlink_bytes_per_s, "bytes/s",
                       cites(g, "nvlink_bytes_per_s")))
    for p in sorted(g.prices, key=lambda p: p.date, reverse=True)[:2]:
        out.append(num(f"{n} {p.kind.replace('_', ' ')} price (as of {p.date.isoformat()})", p.amount, p.currency,
                       f"catalog: {p.source}"))
    return out


def _china(g: GpuSpec) -> dict[str, Any]:
    c = g.china
    out: dict[str, Any] = {"status": c.status, "as_of": c.as_of.isoformat()}
    if c.restricted_since:
        out["restricted_since"] = c.restricted_since.isoformat()
    if c.substitutes or c.china_substitute:
        out["china_substitutes"] = list(c.substitutes) or [c.china_substitute]
    if c.note:
        out["note"] = c.note
    return out


def lookup_gpu_tool(args: LookupGpuArgs) -> ToolOutput:
    """A GPU's catalog entry: memory, bandwidth, dense tensor FLOPS, power, NVLink, China status, dated prices."""
    cat = catalog()
    g = cat.gpu(args.gpu)
    numbers = _gpu_numbers(g)
    for c in g.cloud[:3]:
        numbers.append(num(f"{g.name} cloud price per GPU-hour ({c.provider}, as of {c.date.isoformat()})",
                           c.usd_per_hour, "USD", f"catalog: {c.source}"))
    source_ids = sorted({s for ids in g.cite.values() for s in ids})
    data = {"gpu": g.name, "id": g.id, "vendor": g.vendor, "architecture": g.architecture, "segment": g.segment,
            "launch_year": g.launch_year, "interface": g.interface, "memory_type": g.memory_type,
            "nvlink": g.nvlink, "pcie_gen": g.pcie_gen, "supports": {"bf16": g.supports_bf16, "fp8": g.supports_fp8,
                                                                     "flash_attention_2": g.supports_flash_attention_2},
            "china": _china(g), "numbers": numbers, "sources": _sources(cat, source_ids)}
    if g.modded:
        data["modded"] = "community memory mod: no vendor warranty"
    summary = (f"{g.name}: {fmt_bytes(g.memory_bytes)}, {fmt_bandwidth(g.bandwidth_bytes_per_s)}, "
               f"{fmt_flops(g.bf16_dense_flops)} dense BF16")
    return ToolOutput(summary, data, numbers, [], {"gpu": dump(g, json=True)})


def _sources(cat: Catalog, ids: Iterable[str]) -> list[dict[str, Any]]:
    out = []
    for sid in ids:
        try:
            s = cat.source(sid)
        except AdvisorError:
            continue
        out.append({"id": s.id, "title": s.title, "url": s.url or s.document,
                    "retrieved": s.retrieved.isoformat() if s.retrieved else None})
    return out[:8]


def lookup_model_tool(args: LookupModelArgs) -> ToolOutput:
    """A model's architecture and parameter counts (computed from the architecture), and weight sizes by format."""
    cat = catalog()
    m = cat.model(args.model)
    pc = param_counts(m)
    src = "knowledge.params.param_counts (architecture)"
    numbers = [num("parameters", pc.total, "params", src, fmt_count(pc.total, "params"))]
    if pc.active != pc.total:
        numbers.append(num("active parameters per token", pc.active, "params", src, fmt_count(pc.active, "params")))
    wsrc = "advisor.estimator.formats.weight_bytes"
    for fmt in ("bf16", "fp8", "int8", "int4"):
        try:
            numbers.append(num(f"weights in {fmt}", weight_bytes(m, fmt), "bytes", wsrc))
        except AdvisorError:
            continue
    kv = kv_bytes_per_token_layer(m, "fp16") * m.num_layers
    numbers.append(num("KV cache per token (fp16, all layers)", kv, "bytes", "advisor.estimator.memory",
                       f"{kv / 2**20:,.3f} MiB ({kv / 1e6:,.3f} MB) per token"))
    numbers.append(num("maximum context", m.max_context, "tokens", cites(m, "max_context")))
    arch = {k: getattr(m, k) for k in ("family", "model_type", "hidden_size", "num_layers", "num_attention_heads",
                                       "num_kv_heads", "head_dim", "intermediate_size", "vocab_size")}
    if m.is_moe:
        arch.update(n_routed_experts=m.n_routed_experts, experts_per_token=m.experts_per_token,
                    n_shared_experts=m.n_shared_experts)
    if m.is_mla:
        arch.update(kv_lora_rank=m.kv_lora_rank, qk_rope_head_dim=m.qk_rope_head_dim)
    if m.sliding_window:
        arch.update(sliding_window=m.sliding_window, sliding_window_layers=m.sliding_window_layers)
    data = {"model": m.name, "id": m.id, "hf_repo": m.hf_repo, "hf_repo_chat": m.hf_repo_chat, "architecture": arch, "numbers": numbers,
            "sources": _sources(cat, sorted({s for ids in m.cite.values() for s in ids}))}
    summary = f"{m.name}: {fmt_count(pc.total, 'params')}" + (
        f" ({fmt_count(pc.active, 'active')})" if pc.active != pc.total else "")
    return ToolOutput(summary, data, numbers, [], {"model": dump(m, json=True)})
