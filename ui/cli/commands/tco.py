"""`gpu-advisor tco`: buy against rent — purchase, power, operations, depreciation, TCO, cloud, break-even.

    gpu-advisor tco --gpu h100-sxm --count 8 --years 3 --currency USD --utilization 0.6
    gpu-advisor tco --gpu rtx-4090 --count 8 --currency CNY --electricity 0.8 --model qwen2.5-32b --weights awq-int4 \\
        --concurrency 32 --json

Options (all money in --currency; every default is dated and cited in knowledge/data/economics.yaml):
  --years Y           horizon (default 3, the low end of guide-000's 3–5 years)
  --currency CNY|USD  output currency (default CNY); conversions at the dated PBOC central parity
  --electricity P     price per kWh in --currency (default: China business ≈0.64 CNY, US commercial ≈0.09 USD)
  --utilization U     share of the hours the GPUs work, 0 … 1 (default 1); scales power, GPU-hours and rent
  --pue X             facility power / IT power (default 1.58, Uptime Institute 2023)
  --gpu-price A       per card, overriding the catalog's newest street/channel price
  --cloud-price C     on-demand USD per GPU-hour, overriding the catalog's cloud price
  --tokens-per-s T    throughput of the whole configuration at full load → cost per 1M tokens; or
  --model M [--weights --kv --context --concurrency]  compute it with the throughput estimator
`--json` keys: currency, years, utilization, purchase{gpus,rest_of_system,total}, power_per_year,
operations_per_year, depreciation_per_year, residual_value, tco, cloud{usd_per_gpu_hour,provider,as_of,cost,region,other_region},
break_even_utilization, cost_per_million_tokens{owned,cloud}, exchange_rate, prices[], formulas, assumptions
(money as {amount, currency}).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from advisor.estimator.calibration import load_calibration, load_economics
from advisor.estimator.cost import check_tco_inputs, estimate_tco
from advisor.workload import Constraints, Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.quantities import memory_text
from knowledge.structs import replace
from ui.cli import jsonout
from ui.cli.args import add_field, number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.description = __doc__
    parser.add_argument("--gpu", metavar="ID", required=True, help="catalog GPU id or alias")
    parser.add_argument("--count", type=number(1, 4096 * 16, integer=True), default=1, help="number of GPUs")
    add_field(parser, Constraints, "tco_years", "--years", help="horizon in years (default 3)")
    add_field(parser, Constraints, "currency", default="CNY", help="output currency")
    parser.add_argument("--electricity", type=number(None, 100), default=None, metavar="PRICE",
                        help="electricity price per kWh in --currency")
    parser.add_argument("--utilization", type=number(0, 1), default=1.0, metavar="U",
                        help="fraction of hours busy, 0 … 1")
    parser.add_argument("--pue", type=number(1, 5), default=None, help="power usage effectiveness (default 1.58)")
    parser.add_argument("--gpu-price", type=number(0, 1e9), default=None, metavar="AMOUNT",
                        help="per card, in --currency")
    parser.add_argument("--cloud-price", type=number(0, 10_000), default=None, metavar="USD",
                        help="USD per GPU-hour on demand")
    parser.add_argument("--tokens-per-s", type=number(0, 1e12, lo_open=True), default=None,
                        help="throughput at full load (all GPUs)")
    parser.add_argument("--model", metavar="ID", default=None, help="compute tokens/s for this model")
    add_field(parser, Workload, "weights")
    add_field(parser, Workload, "kv")
    add_field(parser, Workload, "context")
    add_field(parser, Workload, "concurrency", default=None, help="sequences served (default: as many as fit in memory)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _tokens_per_s(args: argparse.Namespace, gpu: Any) -> tuple[float | None, str | None]:
    if args.tokens_per_s is not None or not args.model:
        return args.tokens_per_s, None
    # start-up: only --model computes the tokens/s (the throughput estimator)
    from advisor.estimator.throughput import estimate_throughput

    model = load_catalog().model(args.model)
    calib = load_calibration()
    if args.weights is None:  # the same default as estimate/recommend/ask
        # start-up: only --model computes the tokens/s (the throughput estimator)
        from advisor.estimator.memory import default_inference_format

        args.weights = default_inference_format(model)
    w = Workload(task="inference", weights=args.weights, kv=args.kv, context=args.context,
                 concurrency=args.concurrency or 1, gpus=args.count, tp=args.count)
    est = estimate_throughput(model, gpu, args.count, w, calib)
    if args.concurrency is None and est.capacity and est.capacity.max_concurrency >= 1:
        w = replace(w, concurrency=est.capacity.max_concurrency)
        est = estimate_throughput(model, gpu, args.count, w, calib, with_capacity=False)
    elif not est.fits:
        raise InputError(f"{model.name} does not fit on {args.count} × {gpu.name}: short by "
                         f"{memory_text(est.memory_shortfall_bytes, 'GiB', 2)} per GPU", field="count")
    return est.decode_tokens_per_s_total, (f"{model.name} {args.weights}, {est.concurrency} sequences × "
                                           f"{args.context} tokens: {est.decode_tokens_per_s_total:,.0f} tokens/s")


def compute(args: argparse.Namespace) -> tuple[Any, Any, str | None]:
    gpu = load_catalog().gpu(args.gpu)
    econ = load_economics()

    check_tco_inputs(args.count, args.years if args.years is not None else econ.default_years.value, args.utilization,
           args.electricity, args.currency, args.gpu_price, args.cloud_price, args.pue)
    tps, tps_note = _tokens_per_s(args, gpu)
    est = estimate_tco(gpu, args.count, econ, years=args.years, currency=args.currency, electricity=args.electricity,
                       utilization=args.utilization, pue=args.pue, gpu_price=args.gpu_price,
                       cloud_usd_per_hour=args.cloud_price, tokens_per_s=tps)
    return est, gpu, tps_note


def run(args: argparse.Namespace) -> int:
    est, gpu, note = compute(args)
    if args.json:
        out = est.to_contract()
        if note:
            out["throughput"] = note
        jsonout.write(out)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render(est, gpu, note))
    return 0


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}"


def _money(x: Any) -> str:
    return "—" if x is None else f"{x.amount:>14,.0f} {x.currency}"


def render(est: Any, gpu: Any, note: str | None = None) -> str:
    cur = est.currency
    lines = [
        f"{est.count} × {gpu.name} for {est.years:g} years at {est.utilization:.0%} utilisation ({cur}; "
        f"{est.exchange_rate_cny_per_usd:g} CNY/USD as of {est.exchange_rate_date})",
        f"  GPUs          {_money(est.purchase_gpus)}  ({est.gpu_unit_price.amount:,.0f} per card, "
        f"{est.gpu_price_kind}, {est.gpu_price_date})",
        f"  rest of system{_money(est.purchase_rest)}  ({est.servers} × {est.server_tier})",
        f"  purchase      {_money(est.purchase_total)}",
        f"  power / year  {_money(est.power_per_year)}  ({est.power_kw_it:.2f} kW IT, PUE {est.pue:g}, "
        f"{est.energy_kwh_per_year:,.0f} kWh at {est.electricity_price:g} {cur}/kWh)",
        f"  operations/yr {_money(est.operations_per_year)}",
        f"  depreciation  {_money(est.depreciation_per_year)} per year; residual {est.residual_value.amount:,.0f}",
        f"  TCO           {_money(est.tco)}  ({est.tco_per_year.amount:,.0f} per year; "
        f"{est.cost_per_gpu_hour_used.amount:,.2f} per GPU-hour used)" if est.cost_per_gpu_hour_used else
        f"  TCO           {_money(est.tco)}",
    ]
    if est.cloud_cost is not None:
        lines.append(f"  cloud         {_money(est.cloud_cost)}  ({est.gpu_hours_used:,.0f} GPU-hours at "
                     f"${est.cloud_usd_per_gpu_hour:g}/h, {est.cloud_provider}"
                     + (f", {est.cloud_price_date}" if est.cloud_price_date else "") + ")")
        if est.break_even_utilization is None:
            lines.append("  break-even    none: renting is cheaper at any utilisation")
        else:
            verdict = ("buying pays above this" if est.break_even_utilization <= 1
                       else "above 100%: renting is cheaper over this horizon")
            lines.append(f"  break-even    {est.break_even_utilization:.1%} utilisation ({verdict})")
    if est.cost_per_million_tokens_owned is not None:
        cloud = est.cost_per_million_tokens_cloud
        lines.append(f"  per 1M tokens {est.cost_per_million_tokens_owned.amount:,.3f} {cur} owned"
                     + (f", {cloud.amount:,.3f} {cur} rented" if cloud else "")
                     + (f"  ({note})" if note else ""))
    lines += ["", "prices:"] + [f"  - {p.name}: {_num(p.value)} {p.unit}" + (f" (as of {p.as_of})" if p.as_of else "")
                                 + f" [{p.source}]" for p in est.prices]
    lines += ["", "formulas:"] + [f"  - {f}" for f in est.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines) + "\n"
