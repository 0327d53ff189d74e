"""Speed and concurrency of a fitting option: decode/prefill throughput or training time (the estimator's
rooflines and 6·N·D), how many sequences fit next to the weights, the engine's own concurrency figure, and how
close the pick is to its memory limit (`margin`, with the longest context that still fits).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, NamedTuple

from advisor.estimator.calibration import load_calibration
from advisor.estimator.limits import largest_context
from advisor.estimator.results import MemoryEstimate
from advisor.recommend import training_advice
from advisor.recommend.parts import Margin, MfuBasis, ServingFigures, TrainingFigures, UnderLoad
from advisor.recommend.search import NEAR_CAPACITY, Layout, Search, default_train_tokens, memory_of
from advisor.workload import Workload, speed_workload, spread_for_tail
from knowledge.errors import AdvisorError
from knowledge.quantities import Bytes, Seconds
from knowledge.schemas import GpuSpec
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.results import Option



class Speed(NamedTuple):
    """An option's speed: its serving figures or its training time, and the formula behind it."""

    throughput: ServingFigures | None
    training: TrainingFigures | None
    formulas: list[str]


def speed(search: Search, gpu: GpuSpec, est: MemoryEstimate, w: Workload, layout: Layout, *,
          judge: bool = True) -> Speed:
    """The speed of a fitting configuration: serving throughput, or training time (planner or 6·N·D). `judge=False`:
    the serving rooflines alone, without the simulation a speed target is judged on."""
    if not w.is_training:
        return _serving_speed(search, gpu, est, w, layout, judge)
    if layout.plan is not None:
        return Speed(None, training_advice.training_figures(layout.plan, search.constraints.mfu is not None),
                     layout.plan.formulas[:1])
    from advisor.estimator.preference import compute_factor  # start-up: loaded for a training speed only
    from advisor.estimator.training import BEST_CASE, PRIOR_CASE, estimate_train_time  # start-up: likewise

    tokens = w.train_tokens or default_train_tokens(search.model, w)
    k = compute_factor(w)  # DPO: chosen + rejected through the policy and the reference's forward (×2.67 in full)
    r = estimate_train_time(search.model, gpu, layout.count, tokens * k, load_calibration(), context=w.context,
                            task=w.task, recompute=w.recompute, zero=max(layout.zero, 1) if layout.count > 1 else 0,
                            micro_batch=w.batch, offload=layout.offload, mfu=search.constraints.mfu)
    basis: MfuBasis = "fitted" if BEST_CASE in r.mfu_source else "prior" if PRIOR_CASE in r.mfu_source else "given"
    lines = r.formulas[:1] + ([f"{w.method.upper()}: {tokens:,.0f} tokens × {k:.2f} (each pair's sequences and the "
                               "reference forward; estimator.preference.compute_factor)"] if k != 1.0 else [])
    return Speed(None, TrainingFigures(tokens=tokens, tokens_per_s=r.tokens_per_s / k, wall=r.wall,
                                     gpu_hours=r.gpu_hours, mfu=r.mfu, mfu_basis=basis), lines)


def _serving_speed(search: Search, gpu: GpuSpec, est: MemoryEstimate, w: Workload, layout: Layout,
                   judge: bool = True) -> Speed:
    """Decode and prefill rooflines for the whole request's concurrency (advisor.estimator.throughput)."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.throughput
    from advisor.estimator.throughput import estimate_throughput

    users = search.workload.concurrency
    gpus, tw = roofline_view(layout.count, layout.tp, layout.pp, replace(w, concurrency=users))
    t = estimate_throughput(search.model, gpu, gpus, tw,
                            load_calibration(), with_capacity=False, brief=True)  # only formulas[:1] is kept
    # a speed target is judged on what the answer shows: the simulation at the stated load (the rooflines leave out
    # the prefills sharing the steps, and read every sequence's KV cache at the full context where a chat turn's is
    # shorter); other options get it in fill_load, shown ones only
    c, ttft, load = search.constraints, t.ttft, None
    if judge and (c.min_tokens_per_s is not None or c.max_ttft_ms is not None or c.max_ms_per_token is not None):
        sw = speed_workload(replace(w, tp=layout.tp, pp=layout.pp, concurrency=users))
        only_tpot = c.min_tokens_per_s is None and c.max_ttft_ms is None
        if users > 1 and not (only_tpot and (_surely_fast(search, t.tpot, sw) or (layout.pp == 1 and _surely_slow(search, gpu, gpus, tw, sw)))):
            load = under_load(search, gpu, layout.count, sw)
        if c.max_ttft_ms is not None and load is None:  # one user: the prompt's prefill, as fill_load shows it
            ttft = _ttft(search, gpu, w, layout, sw, t.ttft)
    return Speed(ServingFigures(decode_tokens_per_s=t.decode_tokens_per_s,
                                decode_tokens_per_s_total=t.decode_tokens_per_s_total, tpot=t.tpot,
                                prefill_tokens_per_s=t.prefill_tokens_per_s, ttft=ttft, bound=t.bound,
                                concurrency=users, max_concurrency=max_concurrency(est, gpu, layout, w),
                                under_load=load),
                 None, t.formulas[:1])  # the engine's figures and the load: fill_load, for the shown options


# a decode roofline this far inside the per-token target, for chat-like requests (prompts no longer than twice the
# output), meets it in the simulation too: over 1,759 layouts (7 models × 4 loads × 3 contexts × the catalog) the
# simulated time per token at a chat turn's lengths was at most 1.49× this roofline (short windows, many users: the
# prefills sharing the steps), median 0.77 (it reads every sequence's KV cache at the full context)
SURE_MARGIN = 0.65


def _surely_fast(search: Search, tpot: Seconds, sw: Workload) -> bool:
    """Whether a layout meets the per-token target without simulating it (SURE_MARGIN)."""
    target = search.constraints.max_ms_per_token
    if target is None or not sw.prompt_tokens or not sw.output_tokens or sw.prompt_tokens > 2 * sw.output_tokens:
        return False
    return tpot.ms <= SURE_MARGIN * target


def _surely_slow(search: Search, gpu: GpuSpec, gpus: int, tw: Workload, sw: Workload) -> bool:
    """Whether a layout without a pipeline misses the per-token target even on the decode roofline with every
    sequence at its prompt's length (the least KV cache a request reads, and no prefill sharing the steps): the
    simulation, which adds both, misses it too (≥ 1.03× this roofline over 598 such layouts), so the search moves
    on without running it (≈ 4 ms each, dozens of layouts per answer). Not for a pipeline: the roofline runs its
    users as one batch where the engine keeps a micro-batch per stage in flight (down to 0.19× in the simulation)."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.throughput
    from advisor.estimator.throughput import estimate_throughput

    target = search.constraints.max_ms_per_token
    if target is None or not sw.prompt_tokens:
        return False
    short = replace(tw, context=max(1, min(tw.context, sw.prompt_tokens)))
    t = estimate_throughput(search.model, gpu, gpus, short, load_calibration(), with_capacity=False, brief=True)
    return t.tpot.ms > target


def roofline_view(count: int, tp: int, pp: int, w: Workload) -> tuple[int, Workload]:
    """The GPUs the serving roofline covers and the workload it reads, for `w.concurrency` users on `count` GPUs in
    replicas of TP `tp` × PP `pp`: the TP groups of one pipeline stage (a token passes the stages one after another,
    so its step costs what one TP group over all layers costs), of the replicas that have a user (the others idle;
    the figures are those of ⌈users / replicas⌉ a replica either way), as a world of its own so that TP 1 stays
    TP 1 (throughput._shape reads TP = count otherwise)."""
    busy = min(max(1, count // (tp * pp)), max(1, w.concurrency))
    return tp * busy, replace(w, tp=tp, gpus=tp * busy, nodes=1, pp=1)


def fill_load(search: Search, options: Iterable[Option]) -> None:
    """The simulated figures under the stated load (`under_load`) and the engine's own concurrency figure for the
    options an answer shows. The per-token target is judged on the roofline's ms_per_token, so the search leaves
    them out for the dozens of configurations it tries (unless a total or first-token target is stated:
    `_serving_speed` simulates then, and that simulation is kept) and only the shown ones get them (the
    simulation ≈ 1.5 ms each). The rows show the one simulation at C, not the ladder of advisor.estimator.serving_ladder
    (≈ 7 simulations); an answer's load sentence simulates its option's ladder and gives that option's row the same
    figures (advisor.analysis.evaluate: one figure per fact)."""
    users = search.workload.concurrency
    if search.workload.is_training:
        return
    for o in options:
        figs, sized = o.throughput, o.sized_workload
        if figs is None or sized is None or figs.engine_log_line is not None or o.layout.layer_offload is not None:
            continue  # (an engine line: filled already)
        # the whole layout: a pipelined replica's KV cache is spread over all its stages (serving.scheduler_for);
        # time to first token and load for a chat turn unless lengths were given (advisor.workload.speed_workload)
        tw = speed_workload(replace(sized, tp=o.layout.tp, pp=o.layout.pp, concurrency=users))
        gpu = search.catalog.gpu(o.gpu)
        engine = _engine_figures(search, gpu, o)
        layout = Layout(o.count, o.nodes, o.layout.tp, o.layout.pp, attention_dp=o.layout.attention_dp)
        o.throughput = replace(figs, ttft=_ttft(search, gpu, sized, layout, tw, figs.ttft),
                               under_load=figs.under_load or (under_load(search, gpu, o.count, tw) if users > 1 else None),
                               engine_max_concurrency=engine[0] if engine else None,
                               engine_log_line=engine[1] if engine else None)


def _engine_figures(search: Search, gpu: GpuSpec, o: Option) -> tuple[float, str] | None:
    """`engine_concurrency` for the serving estimate behind `o.throughput` (`_serving_speed`'s workload and GPUs)."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.throughput
    from advisor.estimator.throughput import serving_shape

    est, sized = o.memory_estimate, o.sized_workload
    if est is None or sized is None or o.layout.pp > 1:  # the start-up budget is modelled for one TP group holding
        return None  # every layer; a pipeline's stages each hold a share of them (no figure rather than a wrong one)
    shape = serving_shape(search.model, *roofline_view(o.count, o.layout.tp, o.layout.pp,
                                                        replace(sized, concurrency=search.workload.concurrency)))
    return engine_concurrency(search, gpu, est, tp=shape.tp, weights=shape.weights, kv=shape.kv,
                              context=shape.context, attention_dp=shape.attention_dp)


def _ttft(search: Search, gpu: GpuSpec, sized: Workload | None, layout: Layout, w: Workload,
          before: Seconds) -> Seconds:
    """The roofline's time to the first token of one `w` prompt on `layout` (`before` when the lengths are those
    `sized`, the workload it was computed for, has)."""
    if sized is None or (w.prompt_tokens == sized.prompt_tokens and w.output_tokens == sized.output_tokens):
        return before
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.throughput
    from advisor.estimator.throughput import time_to_first_token

    try:
        gpus, tw = roofline_view(layout.count, layout.tp, layout.pp,
                                 replace(w, concurrency=search.workload.concurrency))
        return Seconds(time_to_first_token(search.model, gpu, gpus, tw, load_calibration()))
    except AdvisorError:
        return before


def under_load(search: Search, gpu: GpuSpec, count: int, w: Workload) -> UnderLoad | None:
    """At a stated concurrency above one, the continuous-batching simulation's figures at that load
    (advisor.estimator.serving, one simulation): median TTFT and per-user tokens/s with prefills sharing the steps,
    and output tokens/s in total."""
    if w.concurrency <= 1:
        return None
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.serving
    from advisor.estimator.serving import simulate_serving

    # a first-token target stated at a tail percentile, on a chat turn's default lengths: the lengths spread as
    # conversations do (one length for every request would put the tail at the median; analysis.limits._tails)
    spread = spread_for_tail(w, search.constraints.ttft_percentile)
    try:
        rep = simulate_serving(search.model, gpu, count, w, load_calibration(), concurrency=w.concurrency,
                               ladder=False, conversational=spread)
    except AdvisorError:
        return None
    r = rep.result
    return UnderLoad(ttft=Seconds(r.ttft_p50_s), ttft_p95=Seconds(r.ttft_p95_s), tpot=Seconds(r.tpot_p50_s),
                     per_user_tokens_per_s=r.per_user_tokens_per_s, total_tokens_per_s=rep.output_tokens_per_s,
                     engine=rep.engine, ttft_p99=Seconds(max(r.ttft_p99_s, r.ttft_p95_s)))


def engine_concurrency(search: Search, gpu: GpuSpec, est: MemoryEstimate, *, tp: int, weights: str, kv: str,
                       context: int, attention_dp: bool = False) -> tuple[float, str] | None:
    """The serving engine's own start-up figure for one instance of `tp` GPUs (vLLM: "Maximum concurrency for N
    tokens per request: X x"; advisor/estimator/engine_memory.py), or nothing for engines without a KV reservation."""
    # start-up: `gpu-advisor recommend` never loads advisor.estimator.engine_memory
    from advisor.estimator.engine_memory import engine_kv_budget

    if est.engine is None:
        return None
    b = engine_kv_budget(est.engine, search.model, gpu, tp=tp, weights=weights, kv=kv, max_model_len=context,
                         attention_dp=attention_dp)
    if b is None:
        return None
    return round(b.max_concurrency, 2), b.log_line


def max_concurrency(est: MemoryEstimate, gpu: GpuSpec, layout: Layout, w: Workload) -> int:
    """Sequences of `w.context` tokens whose KV fits next to the weights, over all replicas. A sequence takes
    kv_bytes_per_token × context, or less in a hybrid-attention model (gpt-oss, Gemma 3) whose sliding-window
    layers hold only their window: then the estimate's own KV bytes per sequence (memory.kv_cache_bytes)."""
    per_seq = est.kv_bytes_per_token * w.context
    held = est.per_gpu.kv_cache.n / w.concurrency if w.concurrency else 0
    if 0 < held < 0.99 * per_seq.n:
        per_seq = Bytes(math.ceil(held))
    return est.fit_count(gpu, per_seq) * max(1, layout.dp)


def margin(search: Search, gpu: GpuSpec, est: MemoryEstimate, opt: Option) -> Margin:
    """Share of the engine's usable memory the pick takes: near_capacity above NEAR_CAPACITY, with the longest
    context (one sequence per replica) and the most sequences at the asked context before it stops fitting."""
    usable = est.usable_bytes(gpu)
    share = est.per_gpu.total.ratio(usable) if usable else 1.0
    if share <= NEAR_CAPACITY:
        return Margin(used=est.per_gpu.total, usable=usable, share=round(share, 4), near_capacity=False)
    w = search.workload
    return Margin(used=est.per_gpu.total, usable=usable, share=round(share, 4), near_capacity=True,
                  max_context=longest_context(search.varied(replace(w, concurrency=1)), gpu, opt),
                  max_concurrency=opt.throughput.max_concurrency if opt.throughput else None,
                  context=w.context, concurrency=w.concurrency)


def longest_context(search: Search, gpu: GpuSpec, opt: Option) -> int:
    """Longest context (multiple of 256, up to the model's maximum) that still fits on the option's layout
    (advisor.estimator.limits.largest_context)."""
    layout = Layout(opt.count, opt.nodes, opt.layout.tp, opt.layout.pp, attention_dp=opt.layout.attention_dp)

    def fits_at(context: int) -> bool:
        found = memory_of(search.varied(replace(search.workload, context=context)), gpu, layout)
        return found is not None and found.estimate.fits(gpu)

    return largest_context(fits_at, search.model.max_context)
