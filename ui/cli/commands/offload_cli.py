"""The llama.cpp layer-offload options shared by `estimate` and `throughput` (`--offload layers`, `--ngl`,
`--host-bandwidth`, `--host-ram`) and their text output. Imports the estimator only when an offload is asked for.

    gpu-advisor throughput --model llama-3.1-70b --gpu rtx-4090 --weights q4_k_m --offload layers
    gpu-advisor estimate --model llama-3.1-70b --gpu rtx-4090 --weights q4_k_m --offload layers --host-ram 64 --json
"""

from __future__ import annotations

import argparse
from typing import Any

from advisor.estimator.calibration import load_calibration
from knowledge.errors import InputError
from knowledge.quantities import UNIT_BYTES, Seconds, in_unit, memory_text
from ui.cli.args import number

OFFLOAD_HELP = ("layers: llama.cpp partial offload — the layers that do not fit on the GPU(s) run from system RAM "
                "(reports -ngl, system RAM and speed)")


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ngl", type=number(0, 100_000, integer=True), default=None, metavar="N",
                        help="llama.cpp -ngl: layers on the GPU (default: as many as fit; implies --offload layers)")
    parser.add_argument("--host-bandwidth", type=number(0, 100_000, lo_open=True), default=None, metavar="GB/s",
                        help="host DRAM bandwidth, theoretical (default: a host class by GPU segment, e.g. 2 × "
                             "DDR5-5600 = 89.6 GB/s for GeForce cards)")
    parser.add_argument("--host-ram", type=number(0, 1_000_000, lo_open=True), default=None, metavar="GiB",
                        help="system RAM of the host (checked against what the offload needs)")


def wants_offload(args: argparse.Namespace) -> bool:
    """`--offload layers`, or any of the host options (they only make sense with an offload)."""
    return (getattr(args, "offload", None) == "layers" or args.ngl is not None or args.host_bandwidth is not None
            or args.host_ram is not None)


def plan(args: argparse.Namespace, model: Any, gpu: Any, count: int, workload: Any) -> Any:
    """The OffloadPlan for the command's model, GPU(s) and workload; InputError on a bad combination."""
    # start-up: only --offload layers plans a llama.cpp layer split
    from advisor.estimator.offload import default_host, offload_for

    if getattr(workload, "task", "inference") != "inference":
        raise InputError.from_key("errors.offload_task", field="offload",
                                  accepted="--task inference (training offload: --offload optimizer|all)",
                                  task=workload.task)
    if int(getattr(workload, "concurrency", 1) or 1) > 1 or int(getattr(workload, "batch", 1) or 1) > 1:
        raise InputError.from_key("errors.offload_batch", field="concurrency", accepted="--concurrency 1 and --batch 1")
    calib = load_calibration()
    bw = None if args.host_bandwidth is None else float(args.host_bandwidth) * 1e9
    ram = None if args.host_ram is None else int(float(args.host_ram) * UNIT_BYTES["GiB"])
    host = default_host(gpu, calib, bandwidth_bytes_per_s=bw, ram_bytes=ram)
    return offload_for(model, gpu, count, workload, calib, host, ngl=args.ngl)


def render(p: Any, model: Any, gpu: Any, count: int) -> str:
    """The offload plan as text: -ngl, memory on both sides, speed, formulas and assumptions."""
    where = f"{count} × {gpu.name}" if count > 1 else gpu.name
    head = ("everything fits on the GPU: no offload needed" if p.full_offload else
            f"{p.cpu_layers} of {p.layers} layers run from system RAM")
    lines = [
        f"{model.name}: llama.cpp partial offload on {where} — {head}",
        f"  -ngl          {p.ngl}  ({p.gpu_layers} layers{' + output matrix' if p.output_on_gpu else ''} on the GPU)",
        f"  GPU memory    {in_unit(p.gpu_bytes_per_gpu, 'GiB'):10.2f} GiB per GPU" + ("" if p.fits else "  (does NOT fit)"),
        f"  system RAM    {in_unit(p.system_ram_bytes, 'GiB'):10.2f} GiB needed"
        + (f" of {memory_text(p.host.ram_bytes, 'GiB', 0)}" if p.host.ram_bytes else ""),
        f"  decode        {p.decode_tokens_per_s:10.1f} tokens/s (GPU part {Seconds(p.gpu_part_s).text('ms', 1)} + CPU "
        f"part {Seconds(p.cpu_part_s).text('ms', 1)} per token)",
        f"  prefill       {p.prefill_tokens_per_s:10,.0f} tokens/s; first token {Seconds(p.ttft_s).text('ms', 0)}",
        f"  host memory   {p.host.label}",
    ]
    lines += ["", "formulas:"] + [f"  - {f}" for f in p.formulas]
    lines += ["", "assumptions:"] + [f"  - {a}" for a in p.assumptions]
    return "\n".join(lines) + "\n"


def throughput_contract(p: Any) -> dict[str, Any]:
    """The throughput JSON keys of DESIGN.md for an offloaded run (one sequence), with the plan under "offload"."""
    return {"decode_tokens_per_s": p.decode_tokens_per_s, "decode_tokens_per_s_total": p.decode_tokens_per_s,
            "prefill_tokens_per_s": p.prefill_tokens_per_s, "ttft_s": p.ttft_s,
            "bound": "host-memory" if p.cpu_part_s > p.gpu_part_s else "memory", "formulas": list(p.formulas),
            "offload": p.to_contract()}
