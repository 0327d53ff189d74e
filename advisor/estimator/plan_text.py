"""Formula and assumption lines of a training plan (advisor/estimator/planner.py), and its launch settings."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from knowledge.quantities import GIB, Seconds
from knowledge.schemas import ModelSpec

from .calibration import Calibration
from .step_time import tp_hidden

if TYPE_CHECKING:
    from .planner import Plan
    from .speed_results import TrainTimeEstimate



def plan_formulas(p: Plan, model: ModelSpec) -> list[str]:
    lay, st, mem = p.layout, p.step, p.memory
    m = lay.grad_accum
    return [
        f"layout = {lay.describe()} on {p.count} GPUs (world = TP {lay.tp} × CP {lay.cp} × PP {lay.pp} × DP "
        f"{lay.dp}); {p.searched} layouts searched",
        f"global batch = micro-batch {lay.micro_batch} × {m} accumulation × DP {lay.dp} = {lay.global_batch_seqs:,} "
        f"sequences × {p.context} tokens = {p.global_batch_tokens:,} tokens",
        f"model FLOPs/token = 6·N + 3·A(s) = {st.model_flops_per_token:.4g}; hardware FLOPs/token "
        f"({lay.recompute} recompute) = {st.hardware_flops_per_token:.4g}",
        f"compute = {st.tokens_per_step:,.0f} tokens / {p.count} GPUs × {st.hardware_flops_per_token:.4g} / "
        f"({st.peak_flops / 1e12:.1f} TFLOP/s × HFU {st.hfu:.3f}) = {st.compute_s:.3f} s",
        f"pipeline bubble ({lay.schedule}) = compute × z·(PP−1)/(v·m) = {st.compute_s:.3f} × "
        f"{st.bubble_s / st.compute_s * lay.vpp * m / max(lay.pp - 1, 1) if st.compute_s else 1:.2f}·{lay.pp - 1}/"
        f"({lay.vpp}·{m}) = {st.bubble_s:.3f} s ({st.bubble_fraction:.1%} of the step)",
        f"exposed communication = TP {st.tp_s:.3f} + CP {st.cp_s:.3f} + PP {st.pp_s:.3f} + DP {st.dp_s:.3f} + "
        f"EP {st.ep_s:.3f} = {st.exposed_comm_s:.3f} s",
        f"step = {st.step_s:.3f} s → {p.tokens_per_s:,.0f} tokens/s ({p.tokens_per_s / p.count:,.0f} per GPU), "
        f"MFU = {st.mfu:.3f}",
        f"memory per GPU = weights {mem.weights / GIB:.2f} + gradients {mem.gradients / GIB:.2f} + optimizer "
        f"{mem.optimizer / GIB:.2f} + activations {mem.activations / GIB:.2f} + overhead {mem.overhead / GIB:.2f} = "
        f"{mem.total / GIB:.2f} GiB of {p.capacity_bytes / GIB:.0f} GiB ({mem.accounting})",
        f"wall (step-time MFU) = {p.tokens:.4g} tokens / {p.tokens_per_s:,.0f} tokens/s = {p.wall_s / 86400:,.2f} days; "
        f"GPU-hours = {p.gpu_hours:,.0f}",
        f"run total (goodput {p.goodput:.2f}) = {p.run_wall_s / 86400:,.2f} days, {p.run_gpu_hours:,.0f} GPU-hours",
    ]


def plan_assumptions(p: Plan, model: ModelSpec, batch_source: str, calib: Calibration) -> list[str]:
    pl = calib.planner
    out = [
        f"compute: {p.step.hfu_note}",
        "MFU definition: model FLOPs (6·N + causal attention) per second over the dense peak; recomputation is "
        "not useful work",
        f"global batch from the {batch_source}",
        f"two totals: 'step-time' GPU-hours assume every hour trains at the step time; the 'run total' divides by a "
        f"goodput of {p.goodput:.0%} ({pl.goodput.note}; {p.goodput_source}) — read the run total for a budget",
        f"model states: {p.memory.accounting}; activations per Korthikanti et al. 2022 with TP + sequence "
        f"parallelism; ≥ {pl.memory_headroom.value:.0%} of GPU memory left free",
        f"TP/SP collectives {tp_hidden(calib, p.engine):.0%} hidden behind GEMMs; DP reduce-scatter/all-gather hidden "
        "behind one micro-batch (ZeRO-1/2) or the whole step (ZeRO-3 prefetch)",
    ]
    if p.layout.ep > 1:
        out.append(f"MoE all-to-all over the scale-out network, {pl.ep_overlap.value:.0%} hidden "
                   f"({pl.ep_overlap.note})")
    if model.num_layers % p.layout.pp:
        out.append(f"{model.num_layers} layers on {p.layout.pp} stages: uneven stages of ≤ "
                   f"{-(-model.num_layers // p.layout.pp)} layers (as Llama 3 405B's 126 on 16)")
    return out


def megatron_args(p: Plan) -> str:
    """Megatron-LM / Megatron-Core arguments for the plan's layout."""
    lay = p.layout
    args = [f"--tensor-model-parallel-size {lay.tp}", f"--pipeline-model-parallel-size {lay.pp}"]
    if lay.vpp > 1:
        args.append(f"--num-layers-per-virtual-pipeline-stage {max(1, p.num_layers // (lay.pp * lay.vpp))}")
    if lay.cp > 1:
        args.append(f"--context-parallel-size {lay.cp}")
    if lay.ep > 1:
        args.append(f"--expert-model-parallel-size {lay.ep}")
        if lay.expert_tp != lay.tp:
            args.append("--expert-tensor-parallel-size 1")
    if lay.tp > 1:
        args.append("--sequence-parallel")
    args += [f"--micro-batch-size {lay.micro_batch}", f"--global-batch-size {lay.global_batch_seqs}",
             f"--seq-length {p.context}"]
    if lay.partial_recompute:
        args += ["--recompute-granularity full", "--recompute-method block",
                 f"--recompute-num-layers {lay.recompute_layers}"]
    elif lay.recompute != "none":
        args.append(f"--recompute-granularity {lay.recompute}")
        if lay.recompute == "full":
            args += ["--recompute-method uniform", "--recompute-num-layers 1"]
    if lay.zero == 3:
        args.append("--use-torch-fsdp2")  # Megatron-Core's fully sharded data parallel (ZeRO-3 equivalent)
    elif lay.zero >= 1:
        args.append("--use-distributed-optimizer")  # ZeRO-1 (ZeRO-2: the DeepSpeed config)
    args.append("--fp8-format hybrid" if p.precision == "fp8" else "--bf16")
    args += ["--overlap-grad-reduce", "--overlap-param-gather"] if lay.zero in (1, 2) else []
    return " ".join(args)


def deepspeed_config(p: Plan) -> dict[str, Any]:
    """A DeepSpeed config for ZeRO layouts (data parallel; TP/PP come from Megatron-DeepSpeed when > 1)."""
    lay = p.layout
    return {
        "train_batch_size": lay.global_batch_seqs,
        "train_micro_batch_size_per_gpu": lay.micro_batch,
        "gradient_accumulation_steps": lay.grad_accum,
        "bf16": {"enabled": p.precision != "fp16"},
        "zero_optimization": {"stage": lay.zero, "overlap_comm": True, "contiguous_gradients": True,
                              **({"stage3_prefetch_bucket_size": "auto"} if lay.zero == 3 else {})},
        "gradient_clipping": 1.0,
    }


def launch_settings(p: Plan) -> dict[str, str]:
    """Ready-to-use settings: Megatron-LM arguments always; a DeepSpeed JSON for ZeRO-2/3 layouts."""
    out = {"megatron": megatron_args(p)}
    if p.layout.schedule == "dualpipe":  # Megatron-LM has no DualPipe: its flags give the rest of the layout
        out["dualpipe"] = (f"deepseek-ai/DualPipe over {p.layout.pp} pipeline ranks (rank i holds stage i and its mirror "
                           f"PP−1−i, fed from both ends), {p.layout.grad_accum} micro-batches per step; the Megatron "
                           "flags above set TP/EP/DP and the batch, not the schedule")
    if p.layout.zero >= 2:
        out["deepspeed"] = json.dumps(deepspeed_config(p), separators=(",", ":"))
    return out


def data_parallel_contract(est: TrainTimeEstimate, zero: int, micro_batch: int,
                           goodput: float) -> dict[str, Any]:
    """The data-parallel estimate's contract with the layout/step/run keys of the planner's."""
    out = est.to_contract()
    seqs = est.tokens_per_step / est.context
    out["layout"].update({"tp": 1, "pp": 1, "dp": est.count, "ep": 1, "cp": 1, "zero": zero,
                          "recompute": est.recompute, "micro_batch": micro_batch,
                          "grad_accum": max(1, round(seqs / (est.count * micro_batch))),
                          "global_batch_tokens": est.tokens_per_step})
    step_s = est.tokens_per_step / est.tokens_per_s
    out["step"] = {"step_s": step_s, "compute_s": est.compute_s_per_step,
                   "exposed_comm_s": est.communication_s_per_step, "bubble_fraction": 0.0}
    run_wall = Seconds(est.wall.s / goodput)
    out["run"] = {"goodput": goodput, "gpu_hours": est.gpu_hours / goodput, "wall_s": run_wall.s,
                  "wall_days": run_wall.days}
    return out
