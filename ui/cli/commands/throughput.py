"""`gpu-advisor throughput`: decode and prefill speed, time to first token, capacity.

    gpu-advisor throughput --model llama-3.1-8b --gpu h100-sxm --prompt-tokens 1000 --output-tokens 500 --concurrency 32
    gpu-advisor throughput --model llama-3-70b --gpu rtx-4090 --count 4 --weights awq-int4 --max-ms-per-token 50 --json

Human output: tokens/s per sequence and in total, time to first token, which limit binds, the step breakdown,
the largest concurrency that fits and (with --max-ms-per-token) how many users the GPUs serve at that latency.
`--json`: the DESIGN.md keys (`decode_tokens_per_s`, `decode_tokens_per_s_total`, `prefill_tokens_per_s`, `ttft_s`,
`bound`, `formulas`) then extras. A model that does not fit is an error (exit 2) naming the shortfall in GiB.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from advisor.estimator.calibration import load_calibration
from advisor.estimator.engine_memory import budget_for_estimate, vllm_kv_budget
from advisor.estimator.memory import default_inference_format
from advisor.estimator.serving import merge_into_contract, simulate_estimate
from advisor.estimator.serving_sim import Speculation
from advisor.estimator.throughput import default_engine, estimate_throughput, max_concurrency_for_latency
from advisor.workload import CHAT_OUTPUT_TOKENS, CHAT_PROMPT_TOKENS, Constraints, Workload, speed_workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.messages import t
from knowledge.quantities import Seconds, in_unit, memory_text
from knowledge.structs import StructError
from ui.cli import jsonout
from ui.cli.args import add_field, number
from ui.cli.commands import offload_cli
from ui.cli.commands.estimate import model_of_args, validation_to_input_error
from ui.cli.commands.offload_cli import add_host_arguments, wants_offload


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="ID", help="catalog id or alias (see `gpu-advisor models`)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    parser.add_argument("--gpu", metavar="ID", required=True, help="catalog GPU id or alias (see `gpu-advisor gpus`)")
    parser.add_argument("--count", type=number(1, 4096, integer=True), default=1, help="number of GPUs (default 1)")
    add_field(parser, Workload, "tp", default=None,
              help="tensor-parallel degree (default: all --count GPUs; a divisor makes replicas)")
    add_field(parser, Workload, "attention_dp")
    add_field(parser, Workload, "weights")
    add_field(parser, Workload, "kv")
    add_field(parser, Workload, "context")

    # the dialog's defaults (advisor.workload.speed_workload): one chat turn when neither length is given
    add_field(parser, Workload, "prompt_tokens",
              help=f"prompt tokens per request (default: one chat turn, {CHAT_PROMPT_TOKENS}, at most half the "
                   "context, as the dialog assumes; memory and capacity are still for whole --context sequences)")
    add_field(parser, Workload, "output_tokens",
              help=f"generated tokens per request (default: {CHAT_OUTPUT_TOKENS} with the chat-turn prompt; the rest "
                   "of the context when only --prompt-tokens is given)")
    add_field(parser, Workload, "concurrency")
    add_field(parser, Workload, "engine", help="serving engine for the memory check (default vllm)")
    parser.add_argument("--gpu-memory-utilization", type=number(0, 1, lo_open=True), default=None, metavar="F",
                        help="vLLM: fraction of the WHOLE GPU per instance (default 0.92, current vLLM)")
    parser.add_argument("--kv-cache-memory-bytes", type=number(1, 1e15, integer=True), default=None, metavar="B",
                        help="vLLM: KV cache bytes per GPU, replacing --gpu-memory-utilization")
    parser.add_argument("--offload", choices=["none", "layers"], default="none",
                        help="layers: llama.cpp partial offload to system RAM (-ngl, RAM needed, speed)")

    add_host_arguments(parser)
    add_field(parser, Constraints, "max_ms_per_token", metavar="MS",
              help="also report how many concurrent users get ≤ MS milliseconds per token")
    add_field(parser, Constraints, "max_ttft_ms", metavar="MS",
              help="with the simulation: the concurrency limit also keeps the TTFT ≤ MS (median, or --ttft-percentile)")
    add_field(parser, Constraints, "ttft_percentile")
    parser.add_argument("--request-rate", type=number(0, 1e6, lo_open=True), default=None, metavar="R",
                        help="simulate Poisson arrivals at R requests/s instead of --concurrency clients")
    parser.add_argument("--traffic", choices=["fixed", "conversation"], default="fixed",
                        help="request lengths: fixed, or a conversational spread around the prompt/output means")
    parser.add_argument("--spec-tokens", type=number(1, 16, integer=True), default=None, metavar="K",
                        help="speculative decoding: K drafted tokens per step (off by default)")
    parser.add_argument("--spec-acceptance", type=number(0, 1), default=0.7, metavar="A",
                        help="speculative decoding: acceptance rate per drafted token (default 0.7)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _workload(args: argparse.Namespace) -> Any:
    """The request as a Workload, with the dialog's chat-turn lengths when none are given (speed_workload)."""
    tp = args.tp or args.count
    try:
        return speed_workload(Workload(
            task="inference", weights=args.weights, kv=args.kv, context=args.context, prompt_tokens=args.prompt_tokens,
            output_tokens=args.output_tokens, concurrency=args.concurrency, gpus=max(1, args.count), tp=max(1, tp),
            engine=args.engine, attention_dp=args.attention_dp == "on"))
    except StructError as exc:
        raise validation_to_input_error(exc) from None


def compute(args: argparse.Namespace) -> tuple[Any, Any, Any, int | None]:
    if args.count < 1:
        raise InputError(f"--count must be at least 1, got {args.count}", field="count", accepted="1 … 1024")
    gpu = load_catalog().gpu(args.gpu)
    model = model_of_args(args)
    if args.weights is None:  # the same default as estimate/recommend/ask
        args.weights = default_inference_format(model)
    workload = _workload(args)
    if (args.prompt_tokens or 0) + (args.output_tokens or 0) > args.context:
        raise InputError(f"--prompt-tokens + --output-tokens ({(args.prompt_tokens or 0) + (args.output_tokens or 0)})"
                         f" exceed --context {args.context}", field="context",
                         accepted="prompt + output ≤ context")
    calib = load_calibration()
    est = estimate_throughput(model, gpu, args.count, workload, calib)
    if not est.fits:
        short = in_unit(est.memory_shortfall_bytes, "GiB")
        raise InputError.from_key("errors.serve_short", field="count", model=model.name, weights=args.weights,
                                  kv=args.kv, concurrency=args.concurrency, context=args.context, count=args.count,
                                  gpu=gpu.name, short=short)
    users = None
    if args.max_ms_per_token is not None:
        limit = est.capacity.max_concurrency // est.replicas if est.capacity else None
        users = est.replicas * max_concurrency_for_latency(
            model, gpu, est.tp, calib, ms_per_token=args.max_ms_per_token, weights=args.weights, kv=args.kv,
            context=est.decode_context, limit=limit)
    return est, model, gpu, users


def run_offload(args: argparse.Namespace) -> int:
    """`--offload layers`: the llama.cpp layer split for --count GPUs plus system RAM, at batch 1."""
    gpu = load_catalog().gpu(args.gpu)
    model = model_of_args(args)
    if args.weights is None:
        args.weights = default_inference_format(model)
    if (args.prompt_tokens or 0) + (args.output_tokens or 0) > args.context:
        raise InputError(f"--prompt-tokens + --output-tokens exceed --context {args.context}", field="context",
                         accepted="prompt + output ≤ context")
    p = offload_cli.plan(args, model, gpu, args.count, _workload(args))
    if args.json:
        jsonout.write(offload_cli.throughput_contract(p))
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(offload_cli.render(p, model, gpu, args.count))
    return 0


def run(args: argparse.Namespace) -> int:
    if wants_offload(args):
        return run_offload(args)
    est, model, gpu, users = compute(args)
    budget = engine_budget(args, est, model, gpu)
    served = simulated(args, est, model, gpu)
    if args.json:
        out = est.to_contract()
        if served is not None:
            out = merge_into_contract(out, served)
        if users is not None:
            out["users_at_latency"] = {"max_ms_per_token": args.max_ms_per_token, "concurrency": users}
        if budget is not None:
            out["engine_memory"] = budget.to_contract() | {"instances": est.replicas}
        jsonout.write(out)
        sys.stdout.write("\n")
        return 0
    text = render(est, model, gpu, users, args.max_ms_per_token)
    if served is not None:
        head, sep, rest = text.partition("\nformulas:")
        text = head + served_lines(served) + sep + rest
    if budget is not None:
        head, sep, rest = text.partition("\nformulas:")
        text = head + engine_line(budget, est.replicas) + sep + rest
    sys.stdout.write(text)
    return 0


def simulated(args: argparse.Namespace, est: Any, model: Any, gpu: Any) -> Any:
    """The continuous-batching simulation at --concurrency or --request-rate (advisor.estimator.serving), with the
    concurrency limit for --max-ms-per-token / --max-ttft-ms; None where it does not apply."""
    target = Seconds.of(args.max_ms_per_token, "ms").s if args.max_ms_per_token is not None else None
    ttft = Seconds.of(args.max_ttft_ms, "ms").s if args.max_ttft_ms is not None else None
    spec = Speculation(k=args.spec_tokens, acceptance=args.spec_acceptance) if args.spec_tokens else None
    return simulate_estimate(est, model, gpu, _workload(args), load_calibration(), engine=args.engine,
                             rate=args.request_rate, target_tpot_s=target, target_ttft_s=ttft,
                             conversational=args.traffic == "conversation", speculation=spec,
                             ttft_percentile=args.ttft_percentile)


def served_lines(rep: Any) -> str:
    r = rep.result
    per = f" ({rep.replicas} replicas)" if rep.replicas > 1 else ""
    load = f"{r.concurrency} concurrent requests" if r.concurrency else f"{r.rate:g} requests/s"
    ttft, p95, tpot, itl = (Seconds(x) for x in (r.ttft_p50_s, r.ttft_p95_s, r.tpot_p50_s, r.itl_p95_s))
    text = (f"  under load    {rep.engine} simulation at {load}{per}: TTFT "
            f"{ttft.text('ms', 0)} (p95 {p95.ms:.0f}), {r.per_user_tokens_per_s:.1f} tokens/s per user "
            f"(TPOT {tpot.text('ms', 1)}, ITL p95 {itl.text('ms', 1)}), "
            f"{rep.output_tokens_per_s:,.0f} output tokens/s in total")
    if rep.max_concurrency_for_target is not None:
        text += f"\n  target        {rep.max_concurrency_for_target:,} concurrent requests within the latency target"
    return text + "\n"


def engine_budget(args: argparse.Namespace, est: Any, model: Any, gpu: Any) -> Any:
    """The serving engine's own KV budget for one instance (TP group) at --context tokens per request, or None for
    engines without a start-up reservation (llama.cpp)."""
    engine = args.engine or default_engine(est.weights)
    if engine == "vllm" and (args.gpu_memory_utilization is not None or args.kv_cache_memory_bytes is not None):
        return vllm_kv_budget(model, gpu, tp=est.tp, weights=est.weights, kv=est.kv, max_model_len=est.context,
                              gpu_memory_utilization=args.gpu_memory_utilization,
                              kv_cache_memory_bytes=args.kv_cache_memory_bytes)
    return budget_for_estimate(est, model, gpu, engine)


def engine_line(b: Any, instances: int) -> str:
    per = f" per instance, {instances} instances" if instances > 1 else ""
    name = "vLLM" if b.engine == "vllm" else "SGLang"
    return (f"  engine        {name} at start-up: {b.log_line}{per} (KV {memory_text(b.kv_cache_bytes, 'GiB', 2)}, "
            f"{b.kv_tokens:,} tokens; fraction {b.fraction:g} of {memory_text(b.total_bytes, 'GiB', 2)})\n")


def render(est: Any, model: Any, gpu: Any, users: int | None = None, target_ms: float | None = None) -> str:
    group = t("layout.dp_attention", "en", group=f"TP {est.tp}") if est.attention_dp else f"TP {est.tp}"
    layout = f"{est.count} × {gpu.name}" + (f" ({group} × {est.replicas} replicas)" if est.replicas > 1 else
                                            (f" ({group})" if est.tp > 1 else ""))
    lines = [
        f"{model.name} on {layout}; weights {est.weights}, KV {est.kv}",
        f"  decode        {est.decode_tokens_per_s:10.1f} tokens/s per sequence ({est.tpot.ms:.2f} ms/token), "
        f"{est.decode_tokens_per_s_total:,.0f} tokens/s total at concurrency {est.concurrency} — {est.bound}-bound",
        f"  ceiling       {est.ceiling_tokens_per_s:10.1f} tokens/s per sequence (bandwidth / bytes per step)",
        f"  prefill       {est.prefill_tokens_per_s:10,.0f} tokens/s ({est.prompt_tokens} prompt tokens, "
        f"{est.prefill_bound}-bound)",
        f"  first token   {est.ttft.ms:10.1f} ms;  whole reply of {est.output_tokens} tokens ≈ {est.e2e.text('s', 1)}",
    ]
    if est.moe_experts_touched is not None:
        lines.append(f"  MoE           {est.moe_experts_touched:.1f} routed experts read per layer per step")
    if est.capacity is not None:
        cap = est.capacity
        at = f", {cap.ms_per_token_at_max:.1f} ms/token there" if cap.ms_per_token_at_max else ""
        lines.append(f"  capacity      {cap.max_concurrency:,} sequences of {est.context} tokens fit in memory{at}")
    if users is not None:
        lines.append(f"  latency goal  {users:,} concurrent users at ≤ {target_ms:g} ms/token")
    lines += ["", "formulas:"] + [f"  - {f}" for f in est.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines) + "\n"
