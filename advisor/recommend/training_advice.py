"""The parallelism planner as the recommender and the conversation use it for pre-training and full fine-tuning:
the plan for one option, its figures, and ready-to-use launch settings (Megatron-LM arguments; a DeepSpeed JSON
for ZeRO-2/3 layouts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.estimator.calibration import load_calibration
from advisor.recommend.parts import OptionLayout, PlannedLayout, PlannedRun, TrainingFigures
from knowledge.errors import InputError
from knowledge.quantities import Seconds

if TYPE_CHECKING:  # the planner is imported where a plan is made: an inference recommendation never loads it
    from advisor.estimator.calibration import Calibration
    from advisor.estimator.planner import Plan
    from advisor.estimator.results import MemoryEstimate
    from advisor.workload import Offload, Workload
    from knowledge.schemas import GpuSpec, ModelSpec

PLANNED_TASKS = ("pretrain", "full")
PLANNED_ENGINES = ("megatron", "fsdp", "deepspeed")  # the workload engines the planner models (calibration planner)


def planned(w: Workload) -> bool:
    """Whether the workload goes through the planner (pre-training and full fine-tuning without CPU offload). TRL's
    preference training (DPO, KTO, ORPO …) runs under accelerate with DeepSpeed or FSDP, not Megatron: it is sized by
    the ZeRO layouts, whose estimate holds the reference model and the chosen + rejected sequences."""
    return w.task in PLANNED_TASKS and w.offload == "none" and w.method == "sft"


_PLANS: dict[tuple[object, ...], Plan | None] = {}


def plan_for(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, tokens: float,
             mfu: float | None = None, calib: Calibration | None = None) -> Plan | None:
    """The planner's fastest fitting layout of `count` × `gpu` for `w`, or None when no layout fits (memoised: the
    recommender's count search and its deadline pass ask for the same configurations; plans are immutable). A ZeRO
    stage the workload names is pinned; a stated `mfu` replaces the step-time model's for the run totals. `calib`:
    another calibration than the project's (a what-if such as analysis.fabric's slower network; not memoised)."""
    engine = w.engine if w.engine in PLANNED_ENGINES else None  # a training framework named: planned with it
    # FP8 asked for: on cards with FP8 tensor cores (elsewhere the planner's BF16, as the option's precision says)
    precision = w.train_precision if w.train_precision != "fp8" or (gpu.supports_fp8 and gpu.fp8_dense_flops) else None
    key = (model.id, model.hidden_size, model.num_layers, model.vocab_size, gpu.id, gpu.memory_bytes, count, tokens,
           w.context, w.recompute, w.batch, w.zero, mfu, engine, precision)
    if calib is None and key in _PLANS:
        return _PLANS[key]
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.planner
    from advisor.estimator.planner import Overrides, plan_training

    ov = Overrides(recompute=w.recompute, micro_batch=w.batch if w.batch > 1 else None, zero=w.zero or None)
    try:
        plan = plan_training(model, gpu, count, tokens, calib or load_calibration(), context=w.context, ov=ov, mfu=mfu,
                             explain=False, engine=engine, precision=precision)
    except InputError:
        plan = None
    if calib is not None:
        return plan
    if len(_PLANS) > 4096:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def plan_memory(plan: Plan, model: ModelSpec, w: Workload) -> MemoryEstimate:
    """The plan's memory as the MemoryEstimate the recommender reports."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.planner
    from advisor.estimator.planner import plan_memory_estimate

    est: MemoryEstimate = plan_memory_estimate(plan, model, w.task)
    return est


def planned_layout(plan: Plan, zero_offload: Offload, weights: str, kv: str) -> OptionLayout:
    """The planner's layout as an option's `layout`, under the engine it was planned for."""
    lay = plan.layout
    extra = PlannedLayout(ep=lay.ep, cp=lay.cp, recompute_layers=lay.recompute_layers, micro_batch=lay.micro_batch,
                          grad_accum=lay.grad_accum, global_batch_tokens=plan.global_batch_tokens, vpp=lay.vpp,
                          summary=lay.describe(), precision=plan.precision)
    return OptionLayout(tp=lay.tp, pp=lay.pp, dp=lay.dp, zero=lay.zero, zero_offload=zero_offload, engine=plan.engine,
                        weights=weights, kv=kv, recompute=lay.recompute, planned=extra)


def training_figures(plan: Plan, mfu_given: bool = False) -> TrainingFigures:
    """An option's `training`: `wall`/`gpu_hours` are the run totals with goodput (what a budget or a deadline
    needs); `step_wall`/`step_gpu_hours` the same at the step-time MFU. The planner's seconds become `Seconds`
    here, at its result boundary."""
    run = PlannedRun(step_wall=Seconds(plan.wall_s), step_gpu_hours=plan.gpu_hours, goodput=plan.goodput,
                     bubble_fraction=plan.step.bubble_fraction, layout=plan.layout.describe())
    return TrainingFigures(tokens=plan.tokens, tokens_per_s=plan.tokens_per_s, wall=Seconds(plan.run_wall_s),
                           gpu_hours=plan.run_gpu_hours, mfu=plan.mfu, mfu_basis="given" if mfu_given else "fitted",
                           planned=run)


def launch_hint(plan: Plan) -> str:
    """One line: the layout, then Megatron-LM arguments, then the DeepSpeed JSON for ZeRO-2/3 layouts."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.plan_text
    from advisor.estimator.plan_text import launch_settings

    s = launch_settings(plan)
    text = f"{plan.layout.describe()} — Megatron-LM: pretrain_gpt.py {s['megatron']}"
    if "deepspeed" in s:
        text += f" — DeepSpeed config: {s['deepspeed']}"
    return text
