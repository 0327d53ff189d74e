"""`gpu-advisor estimate`: memory per GPU (and host RAM under offload) for inference, fine-tuning or training.

    gpu-advisor estimate --model llama-3-70b --context 8192 --batch 4 --tp 2 --gpus 2 --gpu h100-sxm
    gpu-advisor estimate --config path/to/config.json --task qlora --json

Human output: the per-GPU breakdown in GiB (2^30 bytes), the formulas and assumptions, and with --gpu the total
against that GPU's capacity. `--json`: the DESIGN.md contract (bytes as integers); with --gpu an extra `fit` object.
Imports only the estimator and the knowledge package (no Gradio, LangChain or Slack).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from advisor.estimator.calibration import load_calibration
from advisor.estimator.memory import estimate_memory, fit_summary
from advisor.workload import Workload
from knowledge import structs
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.structs import StructError, dump
from ui.cli import jsonout
from ui.cli.args import add_field
from ui.cli.commands import offload_cli
from ui.cli.commands.offload_cli import OFFLOAD_HELP, add_host_arguments

if TYPE_CHECKING:
    from advisor.estimator.results import MemoryEstimate
    from knowledge.quantities import Bytes
    from knowledge.schemas import GpuSpec, ModelSpec

FLAG_NAMES = {"train_tokens": "--tokens"}  # the Workload fields whose option is not `--field-name` (add_field's rule)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--model", metavar="ID", help="catalog id or alias (see `gpu-advisor models`)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json")
    parser.add_argument("--weights-file", metavar="PATH", default=None,
                        help="inference: exact weight bytes from a model.safetensors.index.json or a .gguf header")
    for name in ("task", "weights", "kv", "context", "batch", "concurrency", "prompt_tokens", "optimizer", "zero"):
        add_field(parser, Workload, name)
    offload = add_field(parser, Workload, "offload")  # and llama.cpp's layer offload, which is no Workload field
    offload.choices, offload.help = (*(offload.choices or ()), "layers"), f"{offload.help}; {OFFLOAD_HELP}"
    add_host_arguments(parser)
    add_field(parser, Workload, "gpus")
    add_field(parser, Workload, "nodes")
    add_field(parser, Workload, "tp", default=None, help="tensor-parallel degree (default 1; pretrain with --gpu: the planner's)")
    add_field(parser, Workload, "pp", default=None, help="pipeline-parallel degree (default 1; pretrain with --gpu: the planner's)")
    add_field(parser, Workload, "attention_dp")
    for name in ("recompute", "lora_rank", "lora_targets", "grad_accum", "method", "engine", "flash_attention"):
        add_field(parser, Workload, name)
    parser.add_argument("--gpu", metavar="ID", default=None, help="show fit and headroom on this GPU")
    parser.add_argument("--json", action="store_true", help="machine-readable output (bytes)")


def _workload(args: argparse.Namespace) -> Workload:
    values = {
        "task": args.task, "weights": args.weights, "kv": args.kv, "context": args.context, "batch": args.batch,
        "concurrency": args.concurrency, "prompt_tokens": args.prompt_tokens, "optimizer": args.optimizer,
        "zero": args.zero, "offload": "none" if args.offload == "layers" else args.offload, "gpus": args.gpus, "nodes": args.nodes, "tp": args.tp or 1,
        "pp": args.pp or 1, "recompute": args.recompute, "lora_rank": args.lora_rank, "lora_targets": args.lora_targets,
        "engine": args.engine, "grad_accum": args.grad_accum, "method": args.method,
        "flash_attention": None if args.flash_attention is None else args.flash_attention == "on",
        "attention_dp": args.attention_dp == "on",
    }
    try:
        return Workload(**values)
    except StructError as exc:
        raise validation_to_input_error(exc) from None


def validation_to_input_error(exc: StructError) -> InputError:
    """The first pydantic error of a Workload as one InputError naming the flag and the accepted range."""
    err = exc.errors()[0]
    field = str(err["loc"][0]) if err.get("loc") else "workload"
    flag = FLAG_NAMES.get(field, "--" + field.replace("_", "-"))
    ctx = err.get("ctx") or {}

    lo, hi, _, _ = structs.bounds(Workload, field) if field in Workload.__struct_fields__ else (None, None, False, False)
    accepted = f"{lo} to {hi:,}" if lo is not None and hi is not None else None
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    got = err.get("input")
    if field == "workload" or not err.get("loc"):
        if "QLoRA" in msg:
            return InputError(f"--weights: {msg}", field="weights")
        if "tp × pp" in msg:
            return InputError(f"--tp/--pp/--gpus: {msg}", field="tp")
        return InputError(msg, field="workload")
    text = f"{flag}: {msg}" + (f" (got {got!r})" if not isinstance(got, dict) and got is not None else "")
    if accepted is None and ctx:
        bounds = [f"{sym} {ctx[k]:g}" for k, sym in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤"))
                  if isinstance(ctx.get(k), (int, float))]
        accepted = " and ".join(bounds) or None
    return InputError(text, field=field, accepted=accepted)


def model_of_args(args: argparse.Namespace) -> ModelSpec:
    """The ModelSpec the command names: from `--config` (a Hugging Face config.json) or the catalog."""
    if args.config:
        # start-up: only --config reads a Hugging Face config.json
        from knowledge.hf_config import load_hf_config

        return load_hf_config(args.config)
    return load_catalog().model(args.model)


def run(args: argparse.Namespace) -> int:
    offload = offload_cli.wants_offload(args)
    if offload and args.engine in (None, "llama.cpp"):
        args.engine = "llama.cpp"
    elif offload:
        raise InputError.from_key("errors.offload_engine", field="engine", accepted="--engine llama.cpp (or none)",
                                  engine=args.engine)
    workload = _workload(args)
    model = model_of_args(args)
    gpu = None
    if args.gpu:
        gpu = load_catalog().gpu(args.gpu)
    if offload:
        return _run_offload(args, model, gpu, workload)
    layout = None
    if gpu is not None and args.task == "pretrain" and args.tp is None and args.pp is None:
        est, layout = _planned(args, model, gpu, workload)  # the same planner as `train-time`
    else:
        est = estimate_memory(model, workload, gpu, weights_file_bytes=_weights_file(args, workload))
    if args.json:
        out = est.to_contract()
        if getattr(args, "weights_file", None):
            # start-up: only --weights-file reads a weight file's header
            from knowledge.weight_files import read_weight_file

            out["weights_file"] = dump(read_weight_file(args.weights_file), json=True)
        if layout is not None:
            out["layout"] = layout
        if gpu is not None:
            out["fit"] = fit_summary(est, gpu)
        jsonout.write(out)
        sys.stdout.write("\n")
        return 0
    limits = None
    if gpu is not None and workload.is_training and layout is None:
        # start-up: only a training job on a named GPU states its fit limits
        from advisor.estimator.fit_limits import training_fit_limits

        limits = training_fit_limits(model, workload, gpu).sentence()
    sys.stdout.write(render(est, model, gpu, limits))
    return 0


def _weights_file(args: argparse.Namespace, workload: Workload) -> int | None:
    """Bytes of `--weights-file` (inference only); a GGUF file implies a GGUF weight format."""
    if not getattr(args, "weights_file", None):
        return None
    # start-up: only --weights-file reads a weight file's header
    from knowledge.weight_files import read_weight_file

    if workload.is_training:
        raise InputError("--weights-file sizes inference weights; training keeps its own precision",
                         field="weights_file", accepted="--task inference")
    return read_weight_file(args.weights_file).total_bytes


def _run_offload(args: argparse.Namespace, model: ModelSpec, gpu: GpuSpec | None, workload: Workload) -> int:
    """`--offload layers`: memory on both sides of a llama.cpp layer split (and its speed)."""
    if gpu is None:
        raise InputError.from_key("errors.offload_gpu", field="gpu", accepted="a catalog GPU id (see `gpu-advisor gpus`)")
    count = workload.gpus * workload.nodes
    p = offload_cli.plan(args, model, gpu, count, workload)
    if args.json:
        out = estimate_memory_contract(model, workload, gpu)
        out["offload"] = p.to_contract()
        jsonout.write(out)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(offload_cli.render(p, model, gpu, count))
    return 0


def estimate_memory_contract(model: ModelSpec, workload: Workload, gpu: GpuSpec) -> dict[str, Any]:
    est = estimate_memory(model, workload, gpu)
    return est.to_contract() | {"fit": fit_summary(est, gpu)}


def _planned(args: argparse.Namespace, model: ModelSpec, gpu: GpuSpec, workload: Workload) -> tuple[MemoryEstimate, dict[str, Any]]:
    """Pre-training memory at the planner's layout for gpus × nodes GPUs (what `train-time` would run)."""
    # start-up: only pre-training on a named GPU with no layout given runs the planner
    from advisor.estimator.planner import Overrides, plan_memory_estimate, plan_training

    ov = Overrides(zero=args.zero or None, recompute=args.recompute,
                   micro_batch=args.batch if args.batch > 1 else None)
    plan = plan_training(model, gpu, workload.world_size, 1e9, load_calibration(), context=args.context, ov=ov)
    return plan_memory_estimate(plan, model), plan.layout_dict()


def _g(x: Bytes) -> str:
    return f"{x.gib:10.2f} GiB"


def render(est: MemoryEstimate, model: ModelSpec, gpu: GpuSpec | None = None, limits: str | None = None) -> str:
    """Plain-text report: breakdown in GiB, fit against `gpu`, formulas and assumptions."""
    lines = [f"{model.name} — {est.task}, {est.gpus} GPU(s); params {est.params / 1e9:.2f}B"
             + (f" ({est.active_params / 1e9:.2f}B active)" if est.active_params != est.params else "")
             + (f", trainable {est.trainable_params / 1e6:.2f}M" if est.task in ("lora", "qlora", "freeze") else ""),
             "", "per GPU (1 GiB = 2^30 bytes):"]
    for key, value in est.per_gpu.parts().items():
        if value:
            lines.append(f"  {key.replace('_', ' '):<18}{_g(value)}")
    lines.append(f"  {'total':<18}{_g(est.per_gpu.total)}")
    if est.cpu.total:
        lines += ["", "host RAM per node (offload):"]
        for key, value in est.cpu.parts().items():
            if value:
                lines.append(f"  {key.replace('_', ' '):<18}{_g(value)}")
        lines.append(f"  {'total':<18}{_g(est.cpu.total)}")
    if gpu is not None:
        usable = est.usable_bytes(gpu)
        head = est.headroom_bytes(gpu)
        verdict = "fits" if head.n >= 0 else "does NOT fit"
        lines += ["", f"on {gpu.name} ({gpu.memory.gib:g} GiB): {verdict}; "
                      f"{est.per_gpu.total.gib:.2f} of {usable.text('GiB', 2)} usable"
                      + (f" ({est.usable_fraction:g} × capacity)" if est.usable_fraction < 1 else "")
                      + f", headroom {head.gib:+.2f} GiB"]
        if est.kv_bytes_per_token:
            lines.append(f"  KV cache room for ≈ {est.kv_capacity_tokens(gpu):,} tokens in total at this setting")
        if limits:
            lines.append(f"  {limits}")
    lines += ["", "formulas:"] + [f"  - {f}" for f in est.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in est.assumptions]
    return "\n".join(lines) + "\n"
