"""A training layout the user pinned ("TP8 PP4 on 512 H100", `Workload.pinned_layout`), settled on the configuration
the answer is about (the one named, else the leading option; :func:`settle`).

Kept when the planner runs it there: the option's layout is then the user's, and the planner's own best layout of
the same GPUs is named beside it when that finishes more than PINNED_SLOWER sooner. Refused when one of the
planner's rules is broken (TP·PP·CP dividing the count, TP within a server and the model's heads, PP within its
layers, CP, EP: `training_advice.pin_error`) or no ZeRO stage, recomputation or micro-batch fits it in memory: the
analysis is then made again without it, so the answer shows the layout chosen for the job, and the note says what
was wrong and the values of that degree the rules accept there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from advisor.analysis.request import AnalysisRequest
from advisor.analysis.result import Analysis, PinnedNote, asked_option
from advisor.recommend.search import default_train_tokens
from advisor.recommend.training_advice import pin_error, plan_for, planned
from advisor.workload import PinnedLayout, Workload
from knowledge.catalog import load_catalog
from knowledge.messages import LANGS, t
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.results import Option
    from knowledge.errors import InputError
    from knowledge.schemas import GpuSpec, ModelSpec

PINNED_SLOWER = 1.05  # the planner's own layout is named when the pinned one takes more than 5 % longer
SHOWN_VALUES = 8  # accepted values listed at most


def settle(request: AnalysisRequest, ev: Analysis, again: Callable[[AnalysisRequest], Analysis]) -> Analysis:
    """`ev` with its note on the pinned layout (`Analysis.pinned`), or, when the layout cannot run on the
    configuration answered, the analysis `again` makes without it, with the reason."""
    w = request.workload
    pins = w.pinned_layout
    if pins is None or not planned(w):
        return ev
    mfu = request.constraints.mfu
    asked = asked_option(ev)
    if asked is not None and asked.fits and asked.layout.planned is not None and asked.training is not None:
        gpu = load_catalog().gpu(asked.gpu)
        if _why(ev.model, gpu, asked.count, w, mfu) is None:
            ev.pinned = _kept(ev.model, gpu, asked, w, pins, mfu)
            return ev
    free = again(replace(request, workload=replace(w, pinned_layout=None)))
    on = asked_option(free) or asked
    why = _why(free.model, load_catalog().gpu(on.gpu), on.count, w, mfu) if on is not None else None
    if on is None or why is None:
        return ev  # the layout runs there: it is not what keeps the job from these GPUs
    free.pinned = PinnedNote(layout=pins, on=f"{on.count}× {on.gpu_name}", why=why)
    return free


def _tokens(model: ModelSpec, w: Workload) -> float:
    return w.train_tokens or default_train_tokens(model, w)


def _why(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, mfu: float | None) -> tuple[str, str] | None:
    """What keeps `w`'s pinned layout from running on `count` × `gpu` (English, Chinese), with the values the rules
    accept for the degree at fault; None when the planner runs it."""
    tokens = _tokens(model, w)
    exc = pin_error(model, gpu, count, w, tokens)
    pins = w.pinned_layout
    if exc is not None and exc.field == "count" and pins is not None and count >= pins.split:
        # TP·PP·CP does not divide the count: a rule no count would mend (TP beyond a server, PP beyond the
        # layers), read at the nearest count it divides, is the reason to give
        exc = pin_error(model, gpu, count // pins.split * pins.split, w, tokens) or exc
    if exc is None:
        if plan_for(model, gpu, count, w, tokens, mfu) is not None:
            return None
        en, zh = (t("pinned.memory", lang, layout=pins.text(t("list.sep", lang)) if pins else "", count=count,
                    gpu=gpu.name) for lang in LANGS)
        return en, zh
    values = _accepted(exc, model, gpu, count, w, tokens)

    def said(lang: str) -> str:  # the values here in place of the planner's general "(accepted: …)"
        text = exc.localized(lang)
        if not values:
            return text
        text = text.removesuffix(f" (accepted: {exc.accepted})")
        return text + t("pinned.accepted", lang, name=(exc.field or "").upper(), values=values)

    return said("en"), said("zh")


def _accepted(exc: InputError, model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, tokens: float) -> str:
    """The values of the degree at fault (TP, PP, CP or EP) the planner's rules take on `count` GPUs, the other
    degrees as pinned (each a divisor of the count), listed up to SHOWN_VALUES; "" for another fault."""
    pins = w.pinned_layout
    field = exc.field or ""
    if pins is None or field not in ("tp", "pp", "cp", "ep"):
        return ""
    ok = [d for d in range(1, min(count, 1024) + 1) if count % d == 0
          and pin_error(model, gpu, count, replace(w, pinned_layout=replace(pins, **{field: d})), tokens) is None]
    if not ok:
        return ""
    return ", ".join(map(str, ok[:SHOWN_VALUES])) + (" …" if len(ok) > SHOWN_VALUES else "")


def _kept(model: ModelSpec, gpu: GpuSpec, asked: Option, w: Workload, pins: PinnedLayout,
          mfu: float | None) -> PinnedNote:
    """The note on a layout the planner runs: its wall-clock, and the planner's own layout of the same GPUs when
    that is more than PINNED_SLOWER faster."""
    assert asked.training is not None
    mine = asked.training.wall.s
    note = PinnedNote(layout=pins, on=f"{asked.count}× {asked.gpu_name}", wall_s=mine)
    best = plan_for(model, gpu, asked.count, replace(w, pinned_layout=None), _tokens(model, w), mfu)
    if best is not None and mine > best.run_wall_s * PINNED_SLOWER:
        lay = best.layout
        note.best = PinnedLayout(tp=lay.tp, pp=lay.pp, cp=lay.cp if lay.cp > 1 else None,
                                 ep=lay.ep if lay.ep > 1 else None)
        note.best_wall_s = best.run_wall_s
    return note


__all__ = ["PINNED_SLOWER", "settle"]
