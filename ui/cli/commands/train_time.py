"""`gpu-advisor train-time`: tokens/s, wall-clock and GPU-hours to train on a token budget.

    gpu-advisor train-time --model llama-3-8b --tokens 100B --gpu h100-sxm --count 64
    gpu-advisor train-time --model qwen2.5-14b --task qlora --tokens 2e8 --gpu rtx-4090 --count 1 --json

    gpu-advisor train-time --model llama-2-70b --tokens 2T --gpu a100-80g-sxm --count 2048
    gpu-advisor train-time --model llama-3.1-405b --tokens 15.6T --gpu h100-sxm --count 16384 --tp 8 --pp 16

Token budgets and --global-batch accept plain numbers, exponents (2e9) and K/M/B/T suffixes (2B = 2·10⁹).
Pre-training and full fine-tuning go through the parallelism planner (advisor/estimator/planner.py): it picks the
fastest TP × CP × PP × DP (× EP) layout with ZeRO, recomputation and micro-batching that fits with 10 % memory
headroom, unless --tp/--pp/--ep/--cp/--zero/--micro-batch/--global-batch/--recompute pin parts of it; it refuses
only when no layout fits, naming the smallest GPU count that would. LoRA/QLoRA/freeze keep the data-parallel model
(advisor/estimator/training.py) and its memory check. `--json`: the DESIGN.md keys (`gpu_hours`, `wall_s`, `mfu`,
`tokens_per_s`, `formulas`, `layout`, `step`, `run`) then extras (docs/training-planner.md).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import TYPE_CHECKING, Any

from advisor import workload as wl
from advisor.estimator.calibration import load_calibration
from advisor.estimator.memory import estimate_memory
from advisor.estimator.plan_text import data_parallel_contract, launch_settings
from advisor.estimator.planner import Overrides, Plan, plan_training
from advisor.estimator.training import estimate_train_time
from advisor.workload import DEFAULT_CONTEXT, Workload, field_bounds
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.quantities import Seconds, memory_text
from knowledge.structs import StructError
from ui.cli import jsonout
from ui.cli.args import add_field, describe, number
from ui.cli.commands.estimate import model_of_args, validation_to_input_error

if TYPE_CHECKING:
    from advisor.workload import Recompute
    from knowledge.schemas import GpuSpec, ModelSpec

_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def parse_tokens(text: str) -> float:
    """'2B' → 2e9, '1.5T' → 1.5e12, '2e9' → 2e9, '100000' → 1e5; errors name the flag."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*", str(text))
    if not m:
        # start-up: only a --tokens that does not read loads the message catalog
        from knowledge.messages import pair

        message, message_zh = pair("train_time.tokens_unread", text=text)
        raise InputError(message, field="tokens", accepted="a positive number such as 2000000000, 2e9, 2B or 1.5T",
                         message_zh=message_zh)

    value = float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    lo, hi, _, _ = field_bounds(Workload, "train_tokens")  # the range the estimator accepts
    if not math.isfinite(value) or (lo is not None and 0 < value < lo):  # ≤ 0 and > hi: the estimator's own messages
        accepted = describe(lo, hi)
        raise InputError.from_key("errors.tokens_range", field="tokens", accepted=accepted, text=text, range=accepted)
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="ID", help="catalog id or alias (see `gpu-advisor models`)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    parser.add_argument("--tokens", required=True, metavar="N", help="training tokens (e.g. 2e9, 2B, 1.5T)")
    parser.add_argument("--gpu", metavar="ID", required=True, help="catalog GPU id or alias")
    parser.add_argument("--count", type=number(1, 4096 * 8, integer=True), default=1,
                        help="number of GPUs (8 per server beyond 8)")
    add_field(parser, Workload, "task", choices=["pretrain", "full", "lora", "qlora", "freeze"], default="pretrain",
              help="the kind of training")
    add_field(parser, Workload, "context", "--context", "--seq-len", default=None,
              help=f"tokens per training sequence (default {wl.DEFAULT_CONTEXT} or less)")
    add_field(parser, Workload, "recompute")
    parser.add_argument("--precision", choices=["bf16", "fp8"], default=None,
                        help="tensor-core precision (default: FP8 for families pre-trained in FP8 on FP8 GPUs, else BF16)")
    parser.add_argument("--mfu", type=number(0.01, 1), default=None, help="override the achieved MFU (0.01 … 1)")
    parser.add_argument("--engine", choices=["megatron", "fsdp", "deepspeed", "dualpipe"], default=None,
                        help="training framework (default megatron; dualpipe for DeepSeek MoE models, as their report "
                             "ran): its efficiency, pipeline schedules and FP8")
    add_field(parser, Workload, "batch", "--micro-batch", "--batch", default=None,
              help="sequences per GPU per micro-batch (default: chosen by the planner; 1 for LoRA)")
    add_field(parser, Workload, "tp", default=None, help="tensor-parallel degree (default: planner)")
    add_field(parser, Workload, "pp", default=None, help="pipeline-parallel stages (default: planner)")
    parser.add_argument("--cp", type=number(1, 1024, integer=True), default=None, help="context-parallel degree (default: planner)")
    parser.add_argument("--ep", type=number(1, 1024, integer=True), default=None, help="expert-parallel degree, MoE only (default: planner)")
    add_field(parser, Workload, "zero", default=None, help="ZeRO stage 0-3 (default: planner)")
    parser.add_argument("--global-batch", default=None, metavar="TOKENS",
                        help="global batch in tokens, e.g. 4M (default: the family's published batch, else 4M)")
    parser.add_argument("--no-memory-check", action="store_true", help="skip the fit check")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _memory_check(model: ModelSpec, gpu: GpuSpec, args: argparse.Namespace, context: int,
                  recompute: Recompute) -> None:
    per_node = min(args.count, 8)
    nodes = -(-args.count // 8)
    if args.count > 8 and args.count % 8:
        raise InputError(f"--count {args.count}: more than 8 GPUs must fill whole 8-GPU servers", field="count",
                         accepted="1 … 8, or a multiple of 8")
    try:
        zero = (3 if args.count > 1 else 0) if args.zero is None else args.zero
        w = Workload(model=model.id, task=args.task, context=context, batch=args.batch, gpus=per_node, nodes=nodes,
                     zero=zero, recompute=recompute)
    except StructError as exc:
        raise validation_to_input_error(exc) from None
    est = estimate_memory(model, w, gpu)
    if not est.fits(gpu):
        short = (-est.headroom_bytes(gpu)).text("GiB", 2)
        raise InputError.from_key("errors.train_short", field="count", task=args.task, model=model.name,
                                  count=args.count, gpu=gpu.name, needs=est.per_gpu.total.text("GiB", 2),
                                  usable=est.usable_bytes(gpu).text("GiB", 2), short=short)


PLANNED_TASKS = ("pretrain", "full")


def overrides(args: argparse.Namespace) -> Any:
    gb = None
    if args.global_batch is not None:
        gb = parse_tokens(args.global_batch)
        if gb <= 0:
            raise InputError(f"--global-batch must be positive, got {args.global_batch}", field="global_batch",
                             accepted="a token count such as 4M or 16M")
    for flag, value in (("--tp", args.tp), ("--pp", args.pp), ("--cp", args.cp), ("--ep", args.ep)):
        if value is not None and not 1 <= value <= 100_000:
            raise InputError(f"{flag} must be between 1 and 100000, got {value}", field=flag.lstrip("-"),
                             accepted="1 … 100000")
    if args.zero is not None and args.zero not in (0, 1, 2, 3):
        raise InputError(f"--zero {args.zero} is not a ZeRO stage", field="zero", accepted="0, 1, 2 or 3")
    return Overrides(tp=args.tp, pp=args.pp, cp=args.cp, ep=args.ep, zero=args.zero, recompute=args.recompute,
                     micro_batch=args.micro_batch, global_batch_tokens=gb)


def compute(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    tokens = parse_tokens(args.tokens)
    gpu = load_catalog().gpu(args.gpu)
    model = model_of_args(args)
    context = args.context or min(model.max_context, DEFAULT_CONTEXT)
    if args.task in PLANNED_TASKS:
        plan = plan_training(model, gpu, args.count, tokens, load_calibration(), context=context,
                             precision=args.precision, ov=overrides(args), mfu=args.mfu,
                             ignore_memory=args.no_memory_check, engine=args.engine)
        return plan, model, gpu
    pinned = [f for f, v in (("--tp", args.tp), ("--pp", args.pp), ("--cp", args.cp), ("--ep", args.ep),
                             ("--global-batch", args.global_batch)) if v is not None]
    if pinned:
        raise InputError(f"{', '.join(pinned)}: {args.task} runs data parallel (the planner serves pretrain and full)",
                         field=pinned[0].lstrip("-"), accepted="--task pretrain or full, or drop the flag")
    recompute: Recompute = args.recompute or "full"
    args.batch = args.micro_batch or 1
    est = estimate_train_time(model, gpu, args.count, tokens, load_calibration(), context=context, task=args.task,
                              recompute=recompute, precision=args.precision or "bf16", mfu=args.mfu,
                              zero=3 if args.zero is None else args.zero, micro_batch=args.batch)
    if not args.no_memory_check:
        _memory_check(model, gpu, args, context, recompute)
    return est, model, gpu


def run(args: argparse.Namespace) -> int:
    est, model, gpu = compute(args)
    planned = isinstance(est, Plan)
    if args.json:
        data = (est.to_contract(args.task) if planned else
                data_parallel_contract(est, 3 if args.zero is None else args.zero, args.batch,
                                       load_calibration().planner.goodput.value))
        jsonout.write(data)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render_plan(est, model, gpu, args.task) if planned else render(est, model, gpu))
    return 0


def render_plan(plan: Any, model: Any, gpu: Any, task: str) -> str:
    """Human report of a planned run: the layout, the step breakdown, both totals (labelled), launch settings."""
    lay, st, mem = plan.layout, plan.step, plan.memory
    lines = [
        f"{task} of {model.name} on {plan.count} × {gpu.name} ({plan.precision}, sequence {plan.context})",
        f"  layout        {lay.describe()}",
        f"                tp {lay.tp}, pp {lay.pp}, dp {lay.dp}, ep {lay.ep}, cp {lay.cp}, zero {lay.zero}, "
        f"recompute {lay.recompute}, micro-batch {lay.micro_batch}, accumulation {lay.grad_accum}, "
        f"global batch {plan.global_batch_tokens:,} tokens",
        f"  memory/GPU    {memory_text(mem.total, 'GiB')} of {memory_text(plan.capacity_bytes, 'GiB', 0)} ({mem.accounting})",
        f"  step          {st.step_s:.3f} s = compute {st.compute_s:.3f} + bubble {st.bubble_s:.3f} "
        f"({st.bubble_fraction:.1%}) + exposed communication {st.exposed_comm_s:.3f}",
        f"  throughput    {plan.tokens_per_s:,.0f} tokens/s ({plan.tokens_per_s / plan.count:,.0f} per GPU)",
        f"  MFU           {plan.mfu:.1%}" + ("  (user override)" if plan.mfu_override is not None else ""),
        f"  at step time  {Seconds(plan.wall_s).text('days', 2, grouped=True)}, {plan.gpu_hours:,.0f} GPU-hours",
        f"  run total     {Seconds(plan.run_wall_s).text('days', 2, grouped=True)}, {plan.run_gpu_hours:,.0f} GPU-hours "
        f"(goodput {plan.goodput:.0%}: restarts, checkpoints, evaluation — read this one for a budget)",
        "", "launch settings:",
    ]
    lines += [f"  {name}: {value}" for name, value in launch_settings(plan).items()]
    lines += ["", "formulas:"] + [f"  - {f}" for f in plan.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in plan.assumptions]
    return "\n".join(lines) + "\n"


def render(est: Any, model: Any, gpu: Any) -> str:
    lines = [
        f"{est.task} of {model.name} on {est.count} × {gpu.name} ({est.precision}, {est.recompute} recompute, "
        f"sequence {est.context})",
        f"  tokens        {est.tokens:.4g}",
        f"  throughput    {est.tokens_per_s:,.0f} tokens/s ({est.tokens_per_s_per_gpu:,.0f} per GPU)",
        f"  MFU           {est.mfu:.1%}  ({est.mfu_source})",
        f"  wall clock    {est.wall.text('h', 1, grouped=True)} = {est.wall.text('days', 2, grouped=True)}",
        f"  GPU-hours     {est.gpu_hours:,.0f}",
        "", "formulas:",
    ]
    lines += [f"  - {f}" for f in est.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines) + "\n"
