"""How far a configuration stretches and what it does at full load: the longest context and the largest
micro-batch / concurrency that fit (advisor.estimator.limits, bisection over estimate_memory), the decode speed at
another concurrency, and the cost per million tokens at full load."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.analysis.result import Limits
from advisor.analysis.steps import Step, timed
from advisor.estimator.calibration import load_calibration, load_economics
from advisor.estimator.cost import estimate_tco
from advisor.estimator.limits import CONTEXT_STEP, fits_with, largest, largest_context, most_sequences
from advisor.estimator.serving import saturating_concurrency, simulate_serving
from advisor.estimator.serving_sim import Speculation
from advisor.estimator.throughput import estimate_throughput
from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN
from advisor.recommend.speed import roofline_view
from advisor.workload import Workload, chat_lengths, speed_workload, spread_for_tail
from knowledge.errors import AdvisorError
from knowledge.quantities import Seconds
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.recommend.recommender import Option
    from knowledge.schemas import GpuSpec, ModelSpec


def speed_at(model: ModelSpec, gpu: GpuSpec, option: Option, concurrency: int,
             steps: list[Step]) -> dict[str, float] | None:
    """Decode speed of a recommended configuration at another concurrency (the user's average next to the peak it
    was sized for), with the recommender's layout (advisor.estimator.throughput)."""
    sized = option.sized_workload
    if sized is None:
        return None
    # the recommender's roofline of the option's layout: one pipeline stage's TP groups of the busy replicas
    count, w = roofline_view(option.count, option.layout.tp, option.layout.pp, replace(sized, concurrency=concurrency))
    t = timed(steps, "estimate_throughput", {"gpu": gpu.id, "count": option.count, "concurrency": concurrency},
              lambda: estimate_throughput(model, gpu, count, w, load_calibration(), with_capacity=False),
              lambda r: f"{r.decode_tokens_per_s:.1f} tokens/s per sequence at {concurrency}")
    return {"concurrency": float(concurrency), "per_seq": t.decode_tokens_per_s, "total": t.decode_tokens_per_s_total}


# the default TPOT target: the recommender's interactivity target (advisor.recommend.rank.INTERACTIVE_MS_PER_TOKEN,
# MLPerf Inference's interactive scenario), so the answer's concurrency limit and the ranking use one figure
DEFAULT_TPOT_TARGET_S = Seconds.of(INTERACTIVE_MS_PER_TOKEN, "ms").s


def _tails(model: ModelSpec, gpu: GpuSpec, count: int, w: Workload, concurrency: int, r: Any) -> dict[str, float]:
    """The 95th and 99th percentiles of TTFT and of TPOT at `concurrency`: of the run itself when the request lengths were
    stated (fixed lengths: the tail is the scheduler's), else of a run whose lengths spread as conversations do
    (lognormal around the chat turn's means, `conversational`): one length for every request would put the p99 at
    the median. Never below the p95 of the run printed beside them."""
    fixed = not chat_lengths(w)
    tail = r
    if not fixed:
        try:
            tail = simulate_serving(model, gpu, count, w, load_calibration(), concurrency=concurrency,
                                    conversational=True).result
        except AdvisorError:
            tail = r
    return {"ttft_p95_s": max(tail.ttft_p95_s, r.ttft_p95_s),  # the spread run's p95 replaces the one-length run's
            "ttft_p99_s": max(tail.ttft_p99_s, tail.ttft_p95_s, r.ttft_p95_s),
            "tpot_p95_s": max(tail.tpot_p95_s, r.tpot_p95_s),
            "tpot_p99_s": max(tail.tpot_p99_s, tail.tpot_p95_s, r.tpot_p95_s), "tails_spread": not fixed}


def serving_load(model: ModelSpec, gpu: GpuSpec, option: Option, concurrency: int, steps: list[Step], *,
                 tpot_target_s: float | None = None, ttft_target_s: float | None = None,
                 tails: bool = False, speculation: Speculation | None = None,
                 ttft_percentile: int = 50, chunked_prefill: bool | None = None,
                 turns_held: bool = False) -> dict[str, Any] | None:
    """"Serve X to N users": a serving option at `concurrency` concurrent requests under the continuous-batching
    simulation (advisor.estimator.serving) — median and p95 TTFT, per-user tokens/s, total output tokens/s — and
    the largest concurrency whose median TPOT (and TTFT, when given) meets the target (default: the recommender's
    interactivity target, `DEFAULT_TPOT_TARGET_S`). The memory bound on that limit counts whole-context requests, as
    the memory was sized; with `turns_held`, the simulated requests (a chat turn each) the paged KV cache holds at
    once, for a configuration judged by its chat turns (load_answers.turns_load), with the run's preemptions.
    None when the option was not sized or the engine is not simulated."""
    sized = option.sized_workload
    if sized is None or sized.is_training:
        return None
    w = speed_workload(replace(sized, concurrency=concurrency))  # a chat turn's lengths unless stated
    count = option.count  # the whole layout: a pipelined replica spans all its stages (serving.scheduler_for)
    tpot = tpot_target_s if tpot_target_s is not None else (None if ttft_target_s else DEFAULT_TPOT_TARGET_S)
    # llama.cpp chosen for a GGUF format (no engine named): llama-server runs as many parallel slots as the answer's
    # launch line sets (--parallel: the users each replica was sized for, advisor.recommend.launch); an engine the
    # person named (llama.cpp, Ollama) keeps its default four
    slots = max(sized.concurrency, 1) if option.layout.engine == "llama.cpp" and sized.engine is None else None
    try:
        rep = timed(steps, "simulate_serving", {"gpu": gpu.id, "count": option.count, "concurrency": concurrency},
                    lambda: simulate_serving(model, gpu, count, w, load_calibration(), concurrency=concurrency,
                                             speculation=speculation, max_num_seqs=slots,
                                             chunked_prefill=chunked_prefill,  # None: the engine's default
                                             target_tpot_s=tpot, target_ttft_s=ttft_target_s,
                                             ttft_percentile=ttft_percentile,
                                             # a target at a tail percentile on a chat turn's default lengths:
                                             # the lengths spread as conversations do (_tails)
                                             conversational=spread_for_tail(w, ttft_percentile)),
                    lambda r: f"TTFT {Seconds(r.result.ttft_p50_s).text('ms', 0)}, {r.result.per_user_tokens_per_s:.1f} "
                              f"tokens/s per user at {concurrency}")
    except AdvisorError:
        return None
    r = rep.result
    # the latency limit counts requests served at once: no more than the KV cache holds whole (the rest would wait in
    # the queue, their first token delayed by whole requests), so the smaller of the two, with which one binds
    limit, bound = rep.max_concurrency_for_target, "latency"
    try:
        # whole-context requests, as the memory was sized: a limit never above the sequences the answer sized for
        # (with `turns_held`: the requests simulated, a chat turn each)
        held = saturating_concurrency(model, gpu, count, w if turns_held else replace(sized, concurrency=concurrency),
                                      load_calibration(), max_num_seqs=slots)
    except AdvisorError:
        held = None
    if held is not None and option.fits and not turns_held:  # nor more than the memory estimate fits (whole contexts)
        fits = option_sequences(gpu, option, fits_with(model, gpu, sized))
        if 0 < fits < held:
            held = fits
    if limit is not None and held is not None and held < limit:
        limit, bound = held, "memory"
    slots = rep.scheduler.max_num_seqs * rep.replicas
    if limit is not None and limit >= slots and concurrency > slots:  # the engine's parallel slots bind (llama.cpp's
        limit, bound = slots, "slots"  # --parallel): more users wait for a free slot, their first token delayed
    return {"concurrency": concurrency, "ttft_s": r.ttft_p50_s, "ttft_p95_s": r.ttft_p95_s,
            **({"ttft_p99_s": r.ttft_p99_s} if ttft_percentile == 99 else {}), "tpot_s": r.tpot_p50_s,
            "per_user_tokens_per_s": r.per_user_tokens_per_s, "total_tokens_per_s": rep.output_tokens_per_s,
            "requests_per_s": rep.requests_per_s,  # over all replicas (the result's are one replica's)
            # the 99th percentiles of the run at this load, no lower than the p95 printed beside them (`tails`)
            **(_tails(model, gpu, count, w, concurrency, r) if tails else {}),
            "max_concurrency_for_target": limit, "limit_bound": bound, "target": rep.target,
            "engine": rep.engine, "formulas": rep.formulas(),
            # the step's token budget (max_num_batched_tokens) and the prompt simulated: whether chunking splits it
            "step_tokens": rep.scheduler.max_num_batched_tokens, "prompt_tokens": w.prompt_tokens,
            "held": held,  # whole requests the KV cache holds at once (None: not computed); more wait in the queue
            **({"preemptions": r.preemptions, "kv_tokens": rep.scheduler.kv_capacity_tokens * rep.replicas,
                "slots": rep.scheduler.max_num_seqs * rep.replicas,
                "turn_tokens": (w.prompt_tokens or 0) + (w.output_tokens or 0)} if turns_held else {})}


MAX_BATCH_SEARCH = 4096  # micro-batches searched up to this


def capacity(model: ModelSpec, gpu: GpuSpec, option: Option, steps: list[Step]) -> dict[str, Any] | None:
    """A serving option at full load: the most concurrent sequences at its context (`option_sequences`), the decode
    speed there (advisor.estimator.throughput.estimate_throughput) and the owned cost per million tokens at that
    speed (advisor.estimator.cost.estimate_tco, the option's own currency and years). None when it does not fit."""
    sized = option.sized_workload
    if sized is None or not option.fits:
        return None
    start = time.perf_counter()
    n = option_sequences(gpu, option, fits_with(model, gpu, sized))
    steps.append(Step(name="capacity", arguments={"gpu": gpu.id, "count": option.count, "context": sized.context},
                      duration_s=time.perf_counter() - start, summary=f"{n} sequences fit"))
    if n < 1:
        return None
    speed = speed_at(model, gpu, option, min(n, 100_000), steps)
    if speed is None:
        return None
    out: dict[str, Any] = {"max_concurrency": n, "per_seq": speed["per_seq"], "total": speed["total"]}
    tco = option.tco
    if tco is not None:
        try:
            t = estimate_tco(gpu, option.count, load_economics(), years=tco.years, currency=tco.currency,
                             tokens_per_s=speed["total"])
            cpm = t.to_contract().get("cost_per_million_tokens") or {}
            out["cost_per_million"] = cpm.get("owned")
        except AdvisorError:
            pass
    return out


def option_sequences(gpu: GpuSpec, option: Option, fits: Callable[..., bool]) -> int:
    """Most concurrent sequences at the option's context, over all its replicas (advisor.estimator.limits)."""
    est, w = option.memory_estimate, option.sized_workload
    assert est is not None and w is not None  # the option was sized (its estimate is behind its numbers)
    return most_sequences(est, w, gpu, max(1, option.layout.dp), fits)


def config_limits(model: ModelSpec, gpu: GpuSpec, option: Option, workload: Workload,
                  steps: list[Step]) -> Limits | None:
    """The longest context and the largest micro-batch / concurrency that fit on `option` (the user's own or one
    named configuration), each at the other as asked, with its own layout (advisor.estimator.memory.estimate_memory,
    bisection; contexts in steps of CONTEXT_STEP tokens up to the model's maximum). Inference also gets the decode
    speed at the largest concurrency (advisor.estimator.throughput.estimate_throughput)."""
    w = option.sized_workload
    if w is None:
        return None
    training = w.is_training
    fits = fits_with(model, gpu, w)
    # pre-training sets the new model's context itself (the catalog model only stands in for its size)
    cap = max(w.context, 131072 if w.task == "pretrain" else model.max_context)
    cap -= cap % CONTEXT_STEP
    start = time.perf_counter()
    longest = largest_context(lambda c: fits(context=c), cap)
    single = 0
    if not longest and (w.batch if training else w.concurrency) > 1:
        one = {"batch": 1} if training else {"concurrency": 1, "batch": 1}
        single = largest_context(lambda c: fits(context=c, **one), cap)
    at_max = None
    tokens_per_s = None
    if training:
        load = w.batch
        max_load = largest(lambda b: fits(batch=b), MAX_BATCH_SEARCH)
        tokens_per_s = option.training.tokens_per_s if option.training else None
    else:
        load = workload.concurrency  # all replicas (the sized workload holds one replica's share)
        max_load = option_sequences(gpu, option, fits)
    steps.append(Step(name="largest_fit", arguments={"gpu": gpu.id, "count": option.count, "context": w.context,
                                                      "step_tokens": CONTEXT_STEP},
                      duration_s=time.perf_counter() - start,
                      summary=f"longest context {longest} tokens; largest {'micro-batch' if training else 'concurrency'} "
                              f"{max_load}"))
    if not training and max_load:
        at_max = speed_at(model, gpu, option, min(int(max_load), 100_000), steps)
    return Limits(option=option, training=training, context=w.context, load=int(load), max_context=longest,
                  context_cap=cap, max_load=int(max_load), single_context=single, tokens_per_s=tokens_per_s,
                  at_max=at_max)

