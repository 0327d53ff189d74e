"""The parallelism planner as the recommender and the conversation use it for pre-training and full fine-tuning:
the plan for one option, its figures, and ready-to-use launch settings (Megatron-LM arguments; a DeepSpeed JSON
for ZeRO-2/3 layouts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.estimator.calibration import load_calibration
from advisor.recommend.parts import OptionLayout, PlannedLayout, PlannedRun, TrainingFigures
from advisor.workload import PinnedLayout
from knowledge.errors import InputError
from knowledge.quantities import Seconds

if TYPE_CHECKING:  # the planner is imported where a plan is made: an inference recommendation never loads it
    from advisor.estimator.calibration import Calibration
    from advisor.estimator.planner import Overrides, Plan
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
    stage and the parallel degrees the workload names (`pinned_layout`) are pinned; a stated `mfu` replaces the
    step-time model's for the run totals. `calib`: another calibration than the project's (a what-if such as
    analysis.fabric's slower network; not memoised)."""
    engine, precision = _engine(w), _precision(gpu, w)
    key = (model.id, model.hidden_size, model.num_layers, model.vocab_size, gpu.id, gpu.memory_bytes, count, tokens,
           w.context, w.recompute, w.batch, w.zero, mfu, engine, precision, w.pinned_layout)
    if calib is None and key in _PLANS:
        return _PLANS[key]
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.planner
    from advisor.estimator.planner import plan_training

    try:
        plan = plan_training(model, gpu, count, tokens, calib or load_calibration(), context=w.context,
                             ov=_overrides(w), mfu=mfu, explain=False, engine=engine, precision=precision)
    except InputError:
        plan = None
    if calib is not None:
        return plan
    if len(_PLANS) > 4096:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def _engine(w: Workload) -> str | None:
    """The training framework named, when the planner models it (planned with it), else None (its default)."""
    return w.engine if w.engine in PLANNED_ENGINES else None


def _precision(gpu: GpuSpec, w: Workload) -> str | None:
    """FP8 asked for: on cards with FP8 tensor cores (elsewhere the planner's BF16, as the option's precision says)."""
    return w.train_precision if w.train_precision != "fp8" or (gpu.supports_fp8 and gpu.fp8_dense_flops) else None


def _overrides(w: Workload) -> Overrides:
    """What the workload fixes of the layout: the ZeRO stage, recomputation and micro-batch it names, and the
    parallel degrees the user pinned (`Workload.pinned_layout`)."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.planner
    from advisor.estimator.planner import Overrides

    pins = w.pinned_layout or PinnedLayout()
    return Overrides(recompute=w.recompute, micro_batch=w.batch if w.batch > 1 else None, zero=w.zero or None,
                     tp=pins.tp, pp=pins.pp, cp=pins.cp, ep=pins.ep)


def pin_error(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, tokens: float,
              calib: Calibration | None = None) -> InputError | None:
    """The first of the planner's rules that `w`'s pinned degrees break on `count` × `gpu` (TP·PP·CP dividing the
    count, TP within a server and the model's heads, PP within its layers, CP and EP), else None. A DP said must
    make the count with them. Whether the layout then fits in memory is `plan_for`'s answer (None: it does not)."""
    pins = w.pinned_layout
    if pins is None:
        return None
    if pins.dp is not None and pins.split * pins.dp != count:
        return InputError.from_key("errors.pinned_dp", field="dp", accepted=f"TP × PP × CP × DP = {count}",
                                   layout=pins.text(" × "), world=pins.split * pins.dp, count=count)
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.planner
    from advisor.estimator.planner import check_inputs, default_precision

    calib = calib or load_calibration()
    try:
        check_inputs(model, gpu, count, tokens, w.context, _overrides(w), _precision(gpu, w) or
                     default_precision(model, gpu, calib), calib)
    except InputError as exc:
        return exc
    return None


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
