"""The estimator's tools: memory per GPU, decode/prefill speed, training time (planner for pre-training and full
fine-tuning) and the cost of ownership."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.conversation.tools.args import (
    CompareGpusArgs,
    EstimateMemoryArgs,
    EstimateThroughputArgs,
    TcoArgs,
    TrainTimeArgs,
)
from advisor.conversation.tools.format import (
    dur,
    fmt_bytes,
    fmt_count,
    fmt_money,
    fmt_pct,
    fmt_seconds,
    fmt_tokens_s,
    mem,
    num,
)
from advisor.conversation.tools.results import (
    MAX_ASSUMPTIONS,
    MAX_FORMULAS,
    ToolOutput,
    cap,
    catalog,
    cites,
    evaluate_rules,
)
from advisor.estimator.calibration import load_calibration, load_economics
from advisor.estimator.cost import estimate_tco
from advisor.estimator.engine_memory import budget_for_estimate
from advisor.estimator.memory import estimate_memory, fit_summary
from advisor.estimator.plan_text import data_parallel_contract, launch_settings
from advisor.estimator.planner import Overrides, plan_training
from advisor.estimator.serving import merge_into_contract, simulate_estimate
from advisor.estimator.throughput import estimate_throughput
from advisor.estimator.training import estimate_train_time
from advisor.workload import Workload, speed_workload
from knowledge.errors import AdvisorError
from knowledge.quantities import DAY, Seconds
from knowledge.structs import dump
from rules.findings import Finding

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from advisor.estimator.speed_results import ThroughputEstimate
    from knowledge.schemas import GpuSpec, ModelSpec
    from rules.facts import ConfigFacts


def _memory_numbers(est: Any, src: str, prefix: str = "") -> list[dict[str, Any]]:
    out = []
    for part, value in est.per_gpu.parts().items():
        if value:
            out.append(mem(f"{prefix}{part.replace('_', ' ')} per GPU", value, src))
    out.append(mem(f"{prefix}total per GPU", est.per_gpu.total, src))
    if est.cpu.total:
        out.append(mem(f"{prefix}host RAM (CPU offload)", est.cpu.total, src))
    return out


def _weights_for(args: Workload) -> str:
    return args.weights or ("nf4" if args.task == "qlora" else "bf16")


def estimate_memory_tool(args: EstimateMemoryArgs) -> ToolOutput:
    """Memory per GPU (weights, KV cache, activations, gradients, optimizer states, overhead) for a workload."""
    cat = catalog()
    model = cat.model(args.model)
    gpu = cat.gpu(args.gpu) if args.gpu else None
    est = estimate_memory(model, args.to_workload(), gpu)
    src = "estimate_memory (advisor.estimator.memory)"
    numbers = [num("parameters", est.params, "params", src, fmt_count(est.params, "params"))]
    if est.active_params != est.params:
        numbers.append(num("active parameters per token", est.active_params, "params", src,
                           fmt_count(est.active_params, "params")))
    if est.trainable_params:
        numbers.append(num("trainable parameters", est.trainable_params, "params", src,
                           fmt_count(est.trainable_params, "params")))
    numbers += _memory_numbers(est, src)
    data: dict[str, Any] = {"model": model.name, "task": est.task, "gpus": est.gpus}
    artifact: dict[str, Any] = {"estimate": est.to_contract(),
                                "memory": {"parts": {k: v.n for k, v in est.per_gpu.parts().items()},
                                           "total": est.per_gpu.total.n}}
    summary = f"{model.name} {est.task}: {fmt_bytes(est.per_gpu.total)} per GPU"
    findings: list[Finding] = []
    if gpu is not None:
        fit = fit_summary(est, gpu)
        gsrc = cites(gpu, "memory_bytes")
        numbers += [
            num(f"{gpu.name} memory", gpu.memory_bytes, "bytes", gsrc),
            num(f"usable on {gpu.name}", fit["usable_bytes"], "bytes", src),
            num("headroom per GPU" if fit["fits"] else "shortfall per GPU", abs(fit["headroom_bytes"]), "bytes", src),
            num("memory utilisation", est.utilisation(gpu), "ratio", src),
        ]
        data.update(gpu=gpu.name, fits=fit["fits"])
        artifact["memory"].update(capacity=gpu.memory_bytes, usable=fit["usable_bytes"], gpu=gpu.id)
        artifact["fit"] = fit  # the `fit` object of `gpu-advisor estimate --gpu ... --json`
        summary += f"; {'fits' if fit['fits'] else 'does not fit'} on {gpu.name}"
        findings = evaluate_rules(memory_facts(est, gpu, args))
    data.update(numbers=numbers, formulas=cap(est.formulas, MAX_FORMULAS),
                assumptions=cap(est.assumptions, MAX_ASSUMPTIONS), inputs=args.given())
    return ToolOutput(summary, data, numbers, findings, artifact)


def memory_facts(est: MemoryEstimate, gpu: GpuSpec, args: EstimateMemoryArgs | CompareGpusArgs) -> list[ConfigFacts]:
    """Rule facts for one GPU configuration (rules.facts.ConfigFacts) from a memory estimate, as the recommender
    builds them: catalog memory, the estimator's fit against the engine's usable share."""
    try:
        from rules.facts import ConfigFacts  # optional: the answer degrades when rules.facts fails to import
    except ImportError:
        return []
    w = args.to_workload()
    return [ConfigFacts.from_gpu(
        gpu, count=est.gpus, nodes=w.nodes, tp=w.tp, pp=w.pp, task=est.task, params=float(est.params),
        precision=_weights_for(w), context=w.context, concurrency=w.concurrency if not w.is_training else None,
        per_gpu_bytes=est.per_gpu.total.n, kv_cache_bytes=est.per_gpu.kv_cache.n or None, fits=est.fits(gpu),
        headroom_ratio=min(1.0, est.headroom_bytes(gpu).ratio(gpu.memory)))]


SIM_SOURCE = "simulate_serving (advisor.estimator.serving)"


def estimate_throughput_tool(args: EstimateThroughputArgs) -> ToolOutput:
    """Decode speed per sequence and in total, prefill speed and time to first token on `count` GPUs."""
    cat = catalog()
    model, gpu = cat.model(args.model), cat.gpu(args.gpu)
    work = speed_workload(args.to_workload())  # a chat turn's lengths unless given, as the dialog and the CLI
    est = estimate_throughput(model, gpu, args.count, work, load_calibration())
    src = "estimate_throughput (advisor.estimator.throughput)"
    numbers = [
        num("decode speed per sequence", est.decode_tokens_per_s, "tokens/s", src),
        num("decode speed, all sequences", est.decode_tokens_per_s_total, "tokens/s", src),
        dur("time per output token", est.tpot, src),
        num("prefill speed", est.prefill_tokens_per_s, "tokens/s", src),
        dur("time to first token", est.ttft, src),
        dur("end-to-end time per request", est.e2e, src),
        num("physical ceiling per sequence", est.ceiling_tokens_per_s, "tokens/s", src),
    ]
    if est.capacity is not None:
        numbers.append(num("max concurrent sequences that fit", est.capacity.max_concurrency, "sequences", src))
    data = {"model": model.name, "gpu": gpu.name, "count": est.count, "tp": est.tp, "replicas": est.replicas,
            "bound": est.bound, "fits": est.fits, "concurrency": est.concurrency, "context": est.context,
            "numbers": numbers, "formulas": cap(est.formulas, MAX_FORMULAS),
            "assumptions": cap(est.assumptions, MAX_ASSUMPTIONS), "inputs": args.given()}
    if not est.fits:
        numbers.append(num("memory shortfall", est.memory_shortfall_bytes, "bytes", src))
    summary = (f"{model.name} on {est.count}× {gpu.name}: {fmt_tokens_s(est.decode_tokens_per_s)} per sequence, "
               f"TTFT {fmt_seconds(est.ttft)} ({est.bound}-bound)")
    contract = est.to_contract()

    served = simulate_estimate(est, model, gpu, work, load_calibration())
    if served is not None:  # under load, as `gpu-advisor throughput --json` reports it (issue 29)
        contract = merge_into_contract(contract, served)
        r = served.result
        numbers += [dur("time to first token under load (median)", Seconds(r.ttft_p50_s), SIM_SOURCE),
                    dur("time per output token under load (median)", Seconds(r.tpot_p50_s), SIM_SOURCE),
                    num("output tokens/s under load", served.output_tokens_per_s, "tokens/s", SIM_SOURCE)]

    budget = budget_for_estimate(est, model, gpu, getattr(work, "engine", None))
    if budget is not None:  # the engine's own start-up figure, as `gpu-advisor throughput --json` reports it
        contract["engine_memory"] = budget.to_contract() | {"instances": est.replicas}
    return ToolOutput(summary, data, numbers, [], {"throughput": contract})


def train_time_tool(args: TrainTimeArgs) -> ToolOutput:
    """Training wall-clock time and GPU-hours for a token budget (6·N·D at a calibrated MFU)."""
    cat = catalog()
    model, gpu = cat.model(args.model), cat.gpu(args.gpu)
    if args.task in ("pretrain", "full"):
        return _planned_train_time(args, model, gpu)
    est = estimate_train_time(model, gpu, args.count, args.tokens, load_calibration(), context=args.context,
                              task=args.task, recompute=args.recompute, precision=args.precision, mfu=args.mfu,
                              zero=args.zero)
    src = "estimate_train_time (advisor.estimator.training)"
    numbers = [
        num("training tokens", est.tokens, "tokens", src, fmt_count(est.tokens, "tokens")),
        num("throughput, all GPUs", est.tokens_per_s, "tokens/s", src),
        num("throughput per GPU", est.tokens_per_s_per_gpu, "tokens/s", src),
        dur("wall-clock time", est.wall, src,
            f"{est.wall.text('days', 1, grouped=True)} ({est.wall.hours:,.0f} hours)" if est.wall >= DAY
            else fmt_seconds(est.wall)),
        num("GPU-hours", est.gpu_hours, "GPU-hours", src),
        num("MFU", est.mfu, "ratio", f"{src}; {est.mfu_source}"),
        num("model FLOPs per token", est.flops_per_token, "FLOP", src, f"{est.flops_per_token:.3g} FLOP"),
        num(f"{gpu.name} dense {est.precision.upper()} peak", est.peak_flops_per_gpu, "FLOP/s",
            cites(gpu, "bf16_dense_flops")),
    ]
    data = {"model": model.name, "gpu": gpu.name, "count": est.count, "task": est.task, "precision": est.precision,
            "recompute": est.recompute, "context": est.context, "numbers": numbers,
            "formulas": cap(est.formulas, MAX_FORMULAS), "assumptions": cap(est.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = (f"{model.name} {est.task} on {est.count}× {gpu.name}: {fmt_seconds(est.wall)}, "
               f"{est.gpu_hours:,.0f} GPU-hours at MFU {fmt_pct(est.mfu)}")
    contract = data_parallel_contract(est, 3 if args.zero is None else args.zero, 1,
                                      load_calibration().planner.goodput.value)
    return ToolOutput(summary, data, numbers, [], {"train_time": contract})


def _planned_train_time(args: TrainTimeArgs, model: ModelSpec, gpu: GpuSpec) -> ToolOutput:
    """Pre-training / full fine-tuning through the parallelism planner: the layout, both totals, launch settings."""
    ov = Overrides(recompute=args.recompute, zero=args.zero if "zero" in args.model_fields_set else None)
    p = plan_training(model, gpu, args.count, args.tokens, load_calibration(), context=args.context,
                      precision=args.precision, ov=ov, mfu=args.mfu)
    src = "plan_training (advisor.estimator.planner)"
    wall, run_wall = Seconds(p.wall_s), Seconds(p.run_wall_s)  # the planner's result in seconds
    days = wall.text("days", 1, grouped=True) if wall >= DAY else fmt_seconds(wall)
    numbers = [
        num("training tokens", p.tokens, "tokens", src, fmt_count(p.tokens, "tokens")),
        num("throughput, all GPUs", p.tokens_per_s, "tokens/s", src),
        num("throughput per GPU", p.tokens_per_s / p.count, "tokens/s", src),
        dur("wall-clock time", wall, f"{src}; at the step-time MFU", days),
        num("GPU-hours", p.gpu_hours, "GPU-hours", f"{src}; at the step-time MFU"),
        dur("run total wall-clock (with goodput)", run_wall, f"{src}; goodput {p.goodput_source}",
            run_wall.text("days", 1, grouped=True)),
        num("run total GPU-hours (with goodput)", p.run_gpu_hours, "GPU-hours", f"{src}; goodput {p.goodput_source}"),
        num("MFU", p.mfu, "ratio", src),
        num("pipeline bubble", p.step.bubble_fraction, "ratio", src),
        num("memory per GPU", p.memory.total, "bytes", src),
    ]
    data = {"model": model.name, "gpu": gpu.name, "count": p.count, "task": args.task, "precision": p.precision,
            "layout": p.layout_dict(), "layout_summary": p.layout.describe(), "launch": launch_settings(p),
            "context": p.context, "numbers": numbers, "formulas": cap(p.formulas, MAX_FORMULAS),
            "assumptions": cap(p.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = (f"{model.name} {args.task} on {p.count}× {gpu.name} as {p.layout.describe()}: "
               f"{run_wall.text('days', 1, grouped=True)} and {p.run_gpu_hours:,.0f} GPU-hours as a run total "
               f"({p.gpu_hours:,.0f} at the step time, MFU {fmt_pct(p.mfu)})")
    return ToolOutput(summary, data, numbers, [], {"train_time": p.to_contract(args.task)})


def try_throughput(model: ModelSpec, gpu: GpuSpec, count: int, workload: Workload) -> ThroughputEstimate | None:
    try:
        # optional: the answer degrades when advisor.estimator.calibration fails to import
        from advisor.estimator.calibration import load_calibration

        # optional: the answer degrades when advisor.estimator.throughput fails to import
        from advisor.estimator.throughput import estimate_throughput
    except ImportError:
        return None
    try:
        return estimate_throughput(model, gpu, count, workload, load_calibration())
    except AdvisorError:
        return None


def tco_tool(args: TcoArgs) -> ToolOutput:
    """Purchase, power and operations over N years against renting the same GPU-hours; cost per million tokens."""
    cat = catalog()
    gpu = cat.gpu(args.gpu)
    tokens_per_s = None
    if args.model:
        model = cat.model(args.model)
        w = Workload(model=model.id, weights=args.weights, concurrency=args.concurrency, gpus=min(args.count, 1024),
                     tp=min(args.count, 8))
        speed = try_throughput(model, gpu, args.count, w)
        tokens_per_s = speed.decode_tokens_per_s_total if speed is not None else None
    optional: dict[str, Any] = {k: v for k, v in (("utilization", args.utilization), ("electricity", args.electricity_price),
                                  ("gpu_price", args.gpu_price), ("pue", args.pue)) if v is not None}
    est = estimate_tco(gpu, args.count, load_economics(), years=args.years, currency=args.currency,
                       tokens_per_s=tokens_per_s, **optional)
    src = "estimate_tco (advisor.estimator.cost)"
    cur = est.currency
    numbers = [
        num("GPU unit price", est.gpu_unit_price.amount, cur,
            f"{src}; {est.gpu_price_kind} price as of {est.gpu_price_date.isoformat()}"),
        num("purchase, GPUs", est.purchase_gpus.amount, cur, src),
        num("purchase, rest of the servers", est.purchase_rest.amount, cur, src),
        num("purchase, total", est.purchase_total.amount, cur, src),
        num("power per year", est.power_per_year.amount, cur, src),
        num("energy per year", est.energy_kwh_per_year, "kWh", src, f"{est.energy_kwh_per_year:,.0f} kWh"),
        num("operations per year", est.operations_per_year.amount, cur, src),
        num(f"TCO over {est.years:g} years", est.tco.amount, cur, src),
        num("TCO per year", est.tco_per_year.amount, cur, src),
        num("GPU-hours used", est.gpu_hours_used, "GPU-hours", src),
        num("exchange rate", est.exchange_rate_cny_per_usd, "CNY/USD",
            f"{src}; as of {est.exchange_rate_date.isoformat()}", f"{est.exchange_rate_cny_per_usd:.4g} CNY per USD"),
    ]
    if est.cost_per_gpu_hour_used is not None:
        numbers.append(num("cost per GPU-hour used (owned)", est.cost_per_gpu_hour_used.amount, cur, src))
    if est.cloud_cost is not None:
        numbers.append(num("renting the same GPU-hours", est.cloud_cost.amount, cur,
                           f"{src}; {est.cloud_provider} price as of {est.cloud_price_date}"))
    if est.cloud_usd_per_gpu_hour is not None:
        numbers.append(num("cloud price per GPU-hour", est.cloud_usd_per_gpu_hour, "USD",
                           f"{src}; {est.cloud_provider}, as of {est.cloud_price_date}"))
    if est.break_even_utilization is not None:
        numbers.append(num("break-even utilisation (buy vs rent)", est.break_even_utilization, "ratio", src))
    if est.cost_per_million_tokens_owned is not None:
        numbers.append(num("cost per million tokens (owned)", est.cost_per_million_tokens_owned.amount, cur, src))
    if est.cost_per_million_tokens_cloud is not None:
        numbers.append(num("cost per million tokens (cloud)", est.cost_per_million_tokens_cloud.amount, cur, src))
    data = {"gpu": gpu.name, "count": est.count, "servers": est.servers, "server_tier": est.server_tier,
            "years": est.years, "utilization": est.utilization, "currency": cur, "numbers": numbers,
            "prices": [dump(p, json=True) for p in est.prices][:6],
            "formulas": cap(est.formulas, MAX_FORMULAS), "assumptions": cap(est.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = f"{est.count}× {gpu.name}, {est.years:g} years: TCO {fmt_money(est.tco.amount, cur)}"
    return ToolOutput(summary, data, numbers, [], {"tco": est.to_contract()})
