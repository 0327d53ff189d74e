"""`gpu-advisor train-time`: tokens/s, wall-clock and GPU-hours to train on a token budget.

    gpu-advisor train-time --model llama-3-8b --tokens 100B --gpu h100-sxm --count 64
    gpu-advisor train-time --model qwen2.5-14b --task qlora --tokens 2e8 --gpu rtx-4090 --count 1 --json

Token budgets accept plain numbers, exponents (2e9) and K/M/B/T suffixes (2B = 2·10⁹). The MFU comes from the
calibrated GPU class unless --mfu overrides it. Before timing, the memory estimator checks that the job fits the
GPUs (ZeRO-3 across several GPUs); a job that does not fit is an error (exit 2) naming the shortfall in GiB.
`--json`: the DESIGN.md keys (`gpu_hours`, `wall_s`, `mfu`, `tokens_per_s`, `formulas`) then extras.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from typing import Any

from ui import jsonout


GiB = 2**30
_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def parse_tokens(text: str) -> float:
    """'2B' → 2e9, '1.5T' → 1.5e12, '2e9' → 2e9, '100000' → 1e5; errors name the flag."""
    from knowledge.errors import InputError

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*", str(text))
    if not m:
        raise InputError(f"--tokens: '{text}' is not a token count", field="tokens",
                         accepted="a positive number such as 2000000000, 2e9, 2B or 1.5T",
                         message_zh=f"--tokens：“{text}”不是有效的 token 数量（例如 2e9、2B、1.5T）")
    from advisor.workload import Workload, field_bounds
    from ui.args import describe

    value = float(m.group(1)) * _SUFFIX[m.group(2).lower()]
    lo, hi, _, _ = field_bounds(Workload, "train_tokens")  # the range the estimator accepts
    if not math.isfinite(value) or 0 < value < lo:  # ≤ 0 and > hi: the estimator's own messages
        accepted = describe(lo, hi)
        raise InputError(f"--tokens: {text} is out of range", field="tokens", accepted=accepted,
                         message_zh=f"--tokens：{text} 超出范围（可接受：{accepted}）")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from advisor import workload as wl
    from ui.args import field_number, number
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="ID", help="catalog id or alias (see `gpu-advisor models`)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    parser.add_argument("--tokens", required=True, metavar="N", help="training tokens (e.g. 2e9, 2B, 1.5T)")
    parser.add_argument("--gpu", metavar="ID", required=True, help="catalog GPU id or alias")
    parser.add_argument("--count", type=number(1, 4096 * 8, integer=True), default=1,
                        help="number of GPUs (8 per server beyond 8)")
    parser.add_argument("--task", choices=["pretrain", "full", "lora", "qlora", "freeze"], default="pretrain")
    parser.add_argument("--seq-len", type=field_number(wl.Workload, "context"), default=None,
                        help="training sequence length (default 4096 or less)")
    parser.add_argument("--recompute", choices=["none", "selective", "full"], default=None,
                        help="activation recomputation (default: selective for pretrain, full for fine-tuning)")
    parser.add_argument("--precision", choices=["bf16", "fp8"], default="bf16", help="tensor-core precision")
    parser.add_argument("--mfu", type=number(0.01, 1), default=None, help="override the achieved MFU (0.01 … 1)")
    parser.add_argument("--batch", type=field_number(wl.Workload, "batch"), default=1,
                        help="micro-batch per GPU for the memory check")
    parser.add_argument("--no-memory-check", action="store_true", help="skip the fit check")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def _memory_check(model: Any, gpu: Any, args: argparse.Namespace, seq_len: int, recompute: str) -> None:
    from pydantic import ValidationError

    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload
    from knowledge.errors import InputError
    from ui.commands.estimate import validation_to_input_error

    per_node = min(args.count, 8)
    nodes = -(-args.count // 8)
    if args.count > 8 and args.count % 8:
        raise InputError(f"--count {args.count}: more than 8 GPUs must fill whole 8-GPU servers", field="count",
                         accepted="1 … 8, or a multiple of 8")
    try:
        w = Workload(model=model.id, task=args.task, context=seq_len, batch=args.batch, gpus=per_node, nodes=nodes,
                     zero=3 if args.count > 1 else 0, recompute=recompute)
    except ValidationError as exc:
        raise validation_to_input_error(exc) from None
    est = estimate_memory(model, w, gpu)
    if not est.fits(gpu):
        short = -est.headroom_bytes(gpu) / GiB
        raise InputError(
            f"{args.task} of {model.name} does not fit on {args.count} × {gpu.name}: needs "
            f"{est.per_gpu.total / GiB:.2f} GiB per GPU, {est.usable_bytes(gpu) / GiB:.2f} GiB usable — short by "
            f"{short:.2f} GiB (try more GPUs, --task lora/qlora, or check `gpu-advisor estimate`)", field="count",
            message_zh=f"{model.name} 的 {args.task} 训练放不下 {args.count} 张 {gpu.name}：每卡还差 {short:.2f} GiB")


def compute(args: argparse.Namespace) -> tuple[Any, Any, Any]:
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.training import estimate_train_time
    from knowledge.catalog import load_catalog
    from ui.commands.estimate import _model

    tokens = parse_tokens(args.tokens)
    gpu = load_catalog().gpu(args.gpu)
    model = _model(args)
    seq_len = args.seq_len or min(model.max_context, 4096)
    recompute = args.recompute or ("selective" if args.task == "pretrain" else "full")
    est = estimate_train_time(model, gpu, args.count, tokens, load_calibration(), seq_len=seq_len, task=args.task,
                              recompute=recompute, precision=args.precision, mfu=args.mfu)
    if not args.no_memory_check:
        _memory_check(model, gpu, args, seq_len, recompute)
    return est, model, gpu


def run(args: argparse.Namespace) -> int:
    est, model, gpu = compute(args)
    if args.json:
        jsonout.write(est.to_contract())
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render(est, model, gpu))
    return 0


def render(est: Any, model: Any, gpu: Any) -> str:
    days = est.wall_s / 86400
    lines = [
        f"{est.task} of {model.name} on {est.count} × {gpu.name} ({est.precision}, {est.recompute} recompute, "
        f"sequence {est.seq_len})",
        f"  tokens        {est.tokens:.4g}",
        f"  throughput    {est.tokens_per_s:,.0f} tokens/s ({est.tokens_per_s_per_gpu:,.0f} per GPU)",
        f"  MFU           {est.mfu:.1%}  ({est.mfu_source})",
        f"  wall clock    {est.wall_s / 3600:,.1f} h = {days:,.2f} days",
        f"  GPU-hours     {est.gpu_hours:,.0f}",
        "", "formulas:",
    ]
    lines += [f"  - {f}" for f in est.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines) + "\n"
