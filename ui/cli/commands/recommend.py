"""`gpu-advisor recommend`: ranked GPU configurations for a workload under constraints.

    gpu-advisor recommend --model qwen2.5-32b --concurrency 30 --context 8192 --region cn --budget 500000 --currency CNY
    gpu-advisor recommend --model llama-3.1-70b --task lora --tokens 2e9 --candidates h20,l20,rtx-4090 --deadline-days 14

Human output: the ranked options (GPU, count, per-GPU memory in GiB, speed, price with its date), findings with
their sources, and — when nothing fits — what would have to change. `--json`: the DESIGN.md contract.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from advisor import workload as wl
from advisor.recommend.recommender import recommend
from advisor.workload import Constraints, Workload
from knowledge.errors import InputError
from knowledge.messages import t
from knowledge.quantities import DAY, SYMBOLS, Seconds, memory_text
from knowledge.structs import StructError, replace, validate
from ui.citations import source_without_path
from ui.cli import jsonout
from ui.cli.args import add_field, number

if TYPE_CHECKING:
    from advisor.recommend.parts import UnitPrice
    from advisor.recommend.results import Option, Recommendation


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="ID", help="catalog id or alias (see `gpu-advisor models`)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    for name in ("task", "weights", "kv"):
        add_field(parser, Workload, name)
    add_field(parser, Workload, "context", default=None,
              help=f"tokens per sequence (default: the model's own, e.g. 32768 for DeepSeek-R1, else {wl.DEFAULT_CONTEXT})")
    for name in ("batch", "concurrency", "prompt_tokens", "output_tokens"):
        add_field(parser, Workload, name)
    add_field(parser, Workload, "train_tokens", "--tokens")
    add_field(parser, Workload, "engine")
    add_field(parser, Workload, "lora_rank")
    for name in ("budget", "budget_covers", "currency", "region", "condition"):
        add_field(parser, Constraints, name)
    parser.add_argument("--candidates", default="", help="comma-separated GPU ids to choose from")
    parser.add_argument("--existing", metavar="N×GPU", default=None, help="GPUs you already own, e.g. 2x3090")
    for name in ("max_gpus_per_node", "max_ms_per_token", "min_tokens_per_s", "max_ttft_ms", "ttft_percentile"):
        add_field(parser, Constraints, name)
    add_field(parser, Constraints, "deadline_s", "--deadline-days", scale=DAY.s, help="training must finish within "
              "this many days")
    add_field(parser, Constraints, "power_limit_w")
    parser.add_argument("--limit", type=number(1, 100, integer=True), default=8, help="options to show")
    parser.add_argument("--json", action="store_true")


def _existing(text: str | None) -> dict[str, Any] | None:
    import re


    if not text:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*[x×*]\s*(.+?)\s*", text)
    if not m:
        raise InputError(f"--existing: cannot read '{text}'", field="existing", accepted="COUNTxGPU, e.g. 2x3090")
    return {"gpu": m.group(2), "count": int(m.group(1))}


def build_inputs(args: argparse.Namespace) -> tuple[Workload, Constraints]:
    try:
        sized = {} if args.context is None else {"context": args.context}
        workload = Workload(model=args.model, task=args.task, weights=args.weights, kv=args.kv, **sized,
                            batch=args.batch, concurrency=args.concurrency, prompt_tokens=args.prompt_tokens,
                            output_tokens=args.output_tokens, train_tokens=args.tokens, engine=args.engine,
                            lora_rank=args.lora_rank)
    except StructError as exc:
        # start-up: only a workload that fails validation loads the estimate command's error wording
        from ui.cli.commands.estimate import validation_to_input_error

        raise validation_to_input_error(exc) from None
    try:
        constraints = validate(Constraints, {  # validated as a whole: errors name the flag ("existing.count")
            "budget": args.budget, "budget_covers": args.budget_covers, "currency": args.currency,
            "region": args.region, "candidates": tuple(c.strip() for c in args.candidates.split(",") if c.strip()),
            "existing": _existing(args.existing), "max_gpus_per_node": args.max_gpus_per_node,
            "max_ms_per_token": args.max_ms_per_token, "min_tokens_per_s": args.min_tokens_per_s,
            "max_ttft_ms": args.max_ttft_ms, "ttft_percentile": args.ttft_percentile,
            "deadline_s": None if args.deadline_days is None else Seconds.of(args.deadline_days, "days").s,
            "power_limit_w": args.power_limit_w, "condition": args.condition})
    except StructError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err.get("loc") else "constraints"
        flag = {"deadline_s": "--deadline-days"}.get(field, "--" + field.replace("_", "-"))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        raise InputError(f"{flag}: {msg} (got {err.get('input')!r})", field=field) from None
    return workload, constraints


def run(args: argparse.Namespace) -> int:
    workload, constraints = build_inputs(args)
    model = None
    if args.config:
        # start-up: only --config reads a Hugging Face config.json
        from knowledge.hf_config import load_hf_config

        model = load_hf_config(args.config)
        workload = replace(workload, model=model.id)
    rec = recommend(workload, constraints, model=model, limit=args.limit)
    if args.json:
        jsonout.write(rec.to_contract())
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render(rec))
    return 0


def _money(price: UnitPrice | None, count: int) -> str:
    if not price:
        return "no price"
    return f"{SYMBOLS[price.per_card.currency]}{price.per_card.amount * count:,.0f} (as of {price.as_of})"


def _speed(o: Option) -> str:
    if o.throughput:
        t = o.throughput
        return f"{t.decode_tokens_per_s:.1f} tok/s/seq, {t.decode_tokens_per_s_total:.0f} tok/s total"
    if o.training:
        case = {"fitted": " (best case)", "prior": " (prior; best case)"}.get(o.training.mfu_basis, "")
        return f"{o.training.wall.text('days')}, MFU {o.training.mfu:.0%}{case}"
    return "-"


def render(rec: Recommendation) -> str:
    m = rec.model
    lines = [f"{m['name']} ({m['params'] / 1e9:.1f}B params) — {rec.workload['task']}", ""]
    if rec.options:
        lines.append("options (memory per GPU in GiB = 2^30 bytes):")
        for i, o in enumerate(rec.options, 1):
            labels = f" [{', '.join(o.labels)}]" if o.labels else ""
            lines.append(f"{i}. {o.count}× {o.gpu_name}{labels}: {o.per_gpu.total.gib:.1f} of "
                         f"{o.capacity.text('GiB', 0)} per GPU; {_speed(o)}; {_money(o.price, o.count)}")
            lay, lo = o.layout, o.layout.layer_offload
            shards = f"TP {lay.tp} × PP {lay.pp}"
            if lay.attention_dp:
                shards = t("layout.dp_attention", "en", group=shards)
            if lay.replicas is None:  # training: the data-parallel degree
                shards += f" × DP {lay.dp}"
            elif lay.replicas > 1:  # serving: independent engine copies sharing the users
                shards = t("layout.replicas", "en", n=lay.replicas, group=shards)
            lines.append(f"   layout {shards}"
                         + (f", ZeRO-{lay.zero}" if lay.zero else "")
                         + (f", offload {lay.offload}" if lay.offload != 'none' else "")
                         + (f" (llama.cpp -ngl {lo.ngl}: {lo.cpu_layers} layers and "
                            f"{memory_text(lo.system_ram_bytes, 'GiB')} in system RAM)" if lo is not None else ""))
            if o.throughput and o.throughput.engine_log_line:
                lines.append(f"   {lay.engine} at start-up: {o.throughput.engine_log_line}")
            lines.append(f"   launch: {o.launch_hint}")
            for f in o.findings:
                lines.append(f"   [{f.severity}] {f.rule_id}: {f.message} ({source_without_path(f.source)})")
    else:
        lines.append("nothing meets every constraint. closest:")
        for o in rec.closest:
            lines.append(f"- {o.count}× {o.gpu_name}: {o.per_gpu.total.text('GiB')} per GPU of "
                         f"{o.capacity.text('GiB', 0)}; misses {', '.join(o.misses) or 'memory'}")
        if rec.changes:
            lines += ["", "what would have to change:"] + [f"- {c.message}" for c in rec.changes]
    if rec.findings:
        lines += ["", "about the workload:"] + [f"- [{f.severity}] {f.rule_id}: {f.message} ({source_without_path(f.source)})"
                                                for f in rec.findings]
    lines += ["", "assumptions:"] + [f"- {a}" for a in rec.assumptions]
    return "\n".join(lines) + "\n"
