"""Training runs compared for a question (:func:`advisor.analysis.evaluate.analyse` calls these): the run in FP8 and
in BF16, with each training framework the planner models, and two cards at one count."""

from __future__ import annotations

import math

from advisor.analysis.named import evaluate_named
from advisor.analysis.request import AnalysisRequest, NamedConfig
from advisor.analysis.result import Analysis, asked_option
from advisor.analysis.steps import Step
from knowledge.structs import replace


def training_precisions(request: AnalysisRequest, steps: list[Step], ev: Analysis) -> None:
    """"FP8 instead of BF16 to pre-train it on 64 H100: how much faster?": the configuration named (or the lead)
    planned in FP8 and in BF16 (`Workload.train_precision`), the runs side by side (`Analysis.precision_runs`)
    in place of the memory of the two weight formats, which is not what is asked."""
    w = request.workload
    asked = {v for f, v in request.variants if f == "weights"}
    if w.task not in ("pretrain", "full") or asked != {"fp8", "bf16"}:
        return
    base = asked_option(ev)
    if base is None:
        return
    from advisor.recommend.assumptions import DEFAULT_TRAINING_DEADLINE_S  # start-up: training answers only

    count = base.count
    # "… on 512 H100": a count said is the run asked about, however long it takes; a card named bare (read as one)
    # is re-counted to finish within the default deadline
    said = any((n.count or 0) > 1 and n.gpu == base.gpu for n in request.named)
    slow = base.training is not None and base.training.wall.s > DEFAULT_TRAINING_DEADLINE_S and not said
    if not base.fits or slow:  # a card that cannot hold the run, or takes years on it ("FP8 training on H100 …, for
        # a 70B?"): the recommender's count of that card, which finishes within its default deadline; else (a card
        # the region's search leaves out) the run's cards scaled to that deadline, in whole 8-GPU servers
        rec = ev.recommendation.options if ev.recommendation is not None else []
        fit = next((o for o in rec if o.gpu == base.gpu and o.fits and o.training is not None), None)
        if fit is not None:
            count = fit.count
        else:
            if not base.fits:  # the recommender chose other cards: the fewest of this one that hold the run
                held = evaluate_named(w, request.constraints, [NamedConfig(gpu=base.gpu)], steps)
                if not held or not held[0].fits or held[0].training is None:
                    return
                base = held[0]
            assert base.training is not None
            need = base.count * base.training.wall.s / DEFAULT_TRAINING_DEADLINE_S
            count = max(base.count, 8 * 2 ** math.ceil(math.log2(max(1.0, need / 8))))
    runs = []
    for precision in ("fp8", "bf16"):
        sized = replace(w, weights=None, train_precision=precision)
        runs += evaluate_named(sized, request.constraints, [NamedConfig(gpu=base.gpu, count=count)], steps)
    if len(runs) == 2 and all(o.fits and o.training is not None for o in runs):
        ev.precision_runs = runs
        ev.variants = []


def training_frameworks(request: AnalysisRequest, steps: list[Step], ev: Analysis) -> None:
    """"Megatron, FSDP or DeepSpeed for a 70B on 64 H100?": the configuration named (or the lead) planned with each
    framework the planner models (`Workload.engine`: its GEMM efficiency, schedules, FP8 and overlap,
    calibration planner.training_engines), the runs side by side, fastest first (`Analysis.framework_runs`)."""
    w = request.workload
    if w.task not in ("pretrain", "full") or len(request.frameworks) < 2:
        return
    base = asked_option(ev)
    if base is None or not base.fits:
        return
    runs = []
    for engine in request.frameworks:
        got = evaluate_named(replace(w, engine=engine), request.constraints,
                             [NamedConfig(gpu=base.gpu, count=base.count)], steps)
        runs += [o for o in got if o.fits and o.training is not None]
    if len(runs) >= 2:
        ev.framework_runs = sorted(runs, key=lambda o: o.training.wall.s if o.training else math.inf)


def same_count(request: AnalysisRequest, steps: list[Step], ev: Analysis) -> None:
    """"How much faster would B200s be than H100s for training a 70B?": two or more cards named with no count, for
    a training job (or their serving speed), are compared at one count, the largest of their smallest fitting counts
    (a run's time falls with its GPUs, so 1× B200 against 4× H100 would compare the counts, not the cards); kept as
    sized when that count does not fit them all."""
    named = [m for m in request.named if m.role == "candidate"]
    opts = ev.user_options
    # serving too when the speed is what is compared ("how much faster is H200 than H100 for a 405B?"): 4× H200
    # against 8× H100 would compare the counts
    by_card = request.workload.is_training or request.asks_speed
    if (request.intent != "compare" or not by_card or len(named) < 2 or len(opts) != len(named)
            or any(m.count for m in named) or not all(o.fits for o in opts) or len({o.count for o in opts}) == 1):
        return
    n = max(o.count for o in opts)
    same = evaluate_named(request.workload, request.constraints, [replace(m, count=n) for m in named], steps)
    if all(o.fits for o in same):
        ev.user_options = same
