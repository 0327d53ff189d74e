"""The parallelism planner: the fastest training layout that fits, and the run totals it implies.

Search (pre-training and full fine-tuning): every TP × CP × PP × DP split of at most the GPU count that
:func:`parallel_layout.check_layout` accepts (TP inside the NVLink domain, ≤ 2 over PCIe; CP only for sequences
≥ 16K tokens; EP over the divisors of the routed experts that divide DP × CP), ZeRO 1/2/3 (ZeRO-3 only without
PP), recomputation none/selective/full, micro-batches 1/2/4/8 with the accumulation that reaches the global batch
(searched over the family's published schedule, else 4M), interleaved stages v ∈ {1, 2, 4} where the layers allow.
A layout fits when its per-GPU memory (:mod:`layout_memory`) leaves `memory_headroom` (10 %) of the card free; the
planner keeps the one with the least step time per token (:mod:`step_time`), preferring fewer pipeline stages and
smaller TP on ties. User overrides pin any field.

Idle GPUs: a layout may use fewer GPUs than given (TP·CP·PP·DP ≤ count), and the plan says how many stay idle. The
layouts of n GPUs are then among those of any larger count, so more GPUs never lengthen the best wall-clock
(DeepSeek-V3 on 720 H800s: 704 of them beat every split of all 720, which was 8 % slower than 672).

Run totals: wall = tokens / (tokens per step / step time); GPU-hours = wall × GPUs / 3600 at the step-time MFU; the
run total divides both by the goodput factor (Llama 3: > 90 % effective training time), labelled separately.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import msgspec

from advisor.workload import DEFAULT_CONTEXT, MAX_CONTEXT
from knowledge.errors import InputError
from knowledge.params import param_counts
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value, replace

from .calibration import Calibration
from .layout_memory import (
    LayoutMemory,
    Memo,
    layout_memory,
    lightest_recompute,
    memoised,
    runtime_overhead,
    stage_params,
)
from .layout_splits import Split, splits
from .parallel_layout import ParallelLayout, check_layout
from .plan_text import launch_settings, plan_assumptions, plan_formulas
from .step_time import (
    StepBreakdown,
    bf16_attention_extra,
    bubble_factor,
    comm_terms,
    compute_utilisation,
    dp_seconds,
    intra_bytes_per_s,
    moe_copy_seconds,
    nic_bytes_per_gpu,
    nvlink_domain,
    step_time,
)
from .training import MAX_TOKENS, train_flops_per_token

if TYPE_CHECKING:
    from .results import MemoryEstimate

MICRO_BATCHES = (1, 2, 4, 8)
MAX_COUNT = 100_000
TIE = 1 + 1e-9  # times per token this close are equal (float rounding)


class Overrides(Value):
    """Layout fields the user pinned (None = the planner chooses)."""

    tp: int | None = None
    pp: int | None = None
    cp: int | None = None
    ep: int | None = None
    zero: int | None = None
    recompute: str | None = None
    micro_batch: int | None = None
    global_batch_tokens: float | None = None
    vpp: int | None = None
    async_tp: bool | None = None  # overlapped TP where the engine offers it (None: on; False: plain TP)


NO_OVERRIDES = Overrides()  # nothing pinned


class Plan(Value):
    model: str
    gpu: str
    count: int
    tokens: float
    context: int  # tokens per training sequence
    precision: str
    layout: ParallelLayout
    memory: LayoutMemory
    step: StepBreakdown
    capacity_bytes: float
    goodput: float
    goodput_source: str
    searched: int
    num_layers: int
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)
    mfu_override: float | None = None  # the user's achieved MFU replaces the step-time model's
    engine: str = "megatron"  # training framework (calibration planner.training_engines)

    @property
    def tokens_per_s(self) -> float:
        if self.mfu_override is not None:
            return self.count * self.step.peak_flops * self.mfu_override / self.step.model_flops_per_token
        return self.step.tokens_per_step / self.step.step_s

    @property
    def mfu(self) -> float:
        return self.step.mfu if self.mfu_override is None else self.mfu_override

    @property
    def wall_s(self) -> float:
        return self.tokens / self.tokens_per_s

    @property
    def gpu_hours(self) -> float:
        return self.wall_s * self.count / 3600.0

    @property
    def run_wall_s(self) -> float:
        return self.wall_s / self.goodput

    @property
    def run_gpu_hours(self) -> float:
        return self.gpu_hours / self.goodput

    @property
    def global_batch_tokens(self) -> int:
        return self.layout.global_batch_seqs * self.context

    def layout_dict(self) -> dict[str, Any]:
        lay = self.layout
        return {"tp": lay.tp, "pp": lay.pp, "dp": lay.dp, "ep": lay.ep, "cp": lay.cp, "zero": lay.zero,
                "recompute": lay.recompute, "micro_batch": lay.micro_batch, "grad_accum": lay.grad_accum,
                "global_batch_tokens": self.global_batch_tokens, "vpp": lay.vpp, "sequence_parallel": lay.tp > 1,
                "schedule": lay.schedule, "engine": self.engine,
                "gpu": self.gpu, "count": self.count}

    def step_dict(self) -> dict[str, Any]:
        s = self.step
        return {"step_s": s.step_s, "compute_s": s.compute_s, "bubble_s": s.bubble_s,
                "exposed_comm_s": s.exposed_comm_s, "bubble_fraction": s.bubble_fraction,
                "exposed": {"tp_s": s.tp_s, "cp_s": s.cp_s, "pp_s": s.pp_s, "dp_s": s.dp_s, "ep_s": s.ep_s},
                "hfu": s.hfu, "mfu": s.mfu}

    def to_contract(self, task: str = "pretrain") -> dict[str, Any]:
        """DESIGN.md `train-time --json` keys (gpu_hours, wall_s, mfu, tokens_per_s, formulas, layout, step, run),
        then extras (docs/training-planner.md)."""
        flops = self.step.model_flops_per_token
        return {
            "gpu_hours": self.gpu_hours, "wall_s": self.wall_s, "mfu": self.mfu, "tokens_per_s": self.tokens_per_s,
            "formulas": list(self.formulas), "layout": self.layout_dict(), "step": self.step_dict(),
            "run": {"goodput": self.goodput, "gpu_hours": self.run_gpu_hours, "wall_s": self.run_wall_s,
                    "wall_days": self.run_wall_s / 86400, "source": self.goodput_source},
            "tokens_per_s_per_gpu": self.tokens_per_s / self.count, "wall_days": self.wall_s / 86400,
            "flops_per_token": flops, "total_flops": flops * self.tokens,
            "mfu_source": "user override" if self.mfu_override is not None else self.step.hfu_note,
            "memory_per_gpu_bytes": self.memory_dict(), "launch": launch_settings(self),
            "workload": {"model": self.model, "task": task, "tokens": self.tokens, "seq_len": self.context,
                         "precision": self.precision, "recompute": self.layout.recompute},
            "assumptions": list(self.assumptions),
        }

    def memory_dict(self) -> dict[str, Any]:
        m = self.memory
        return {"weights": m.weights, "gradients": m.gradients, "optimizer_states": m.optimizer,
                "activations": m.activations, "overhead": m.overhead, "total": m.total,
                "capacity": self.capacity_bytes, "accounting": m.accounting}


def global_batch_tokens(model: ModelSpec, calib: Calibration) -> tuple[float, str]:
    """The family's published global batch in tokens, else the default (4M)."""
    pl = calib.planner
    const = pl.family_global_batch_tokens.get(model.family)
    if const is not None:
        return const.value, f"{model.family} family's published global batch ({', '.join(const.source)})"
    return pl.default_global_batch_tokens.value, "default 4M tokens (no published batch for this family)"


def batch_candidates(model: ModelSpec, tokens: float, context: int, calib: Calibration) -> tuple[list[float], str]:
    """Global batches (tokens) the planner may choose: the family's published batch × 2^k up to the largest its
    published schedule reached (Llama 3: 4M → 8M → 16M; DeepSeek-V3: up to 15,360 × 4K) and no further than the
    critical batch B = a · C^b of the training compute C = 6 · N · D (DeepSeek LLM scaling law); the base batch is
    always allowed. Larger batches cut the pipeline bubble and the per-token data-parallel traffic."""
    pl = calib.planner
    base, src = global_batch_tokens(model, calib)
    top = pl.family_global_batch_max.get(model.family)
    if top is None or pl.critical_batch_coefficient is None or pl.critical_batch_exponent is None:
        return [base], src
    compute = 6.0 * param_counts(model).active * tokens
    crit = pl.critical_batch_coefficient.value * compute ** pl.critical_batch_exponent.value
    out, b = [base], base * 2
    while b <= top.value * 1.0001 and b <= crit:
        out.append(b)
        b *= 2
    if out[-1] < top.value <= crit and top.value not in out:
        out.append(top.value)
    note = (f"{src}; searched {', '.join(f'{x / 2**20:.0f}M' for x in out)} tokens — up to the family's published "
            f"schedule ({', '.join(top.source)}) and the critical batch {crit / 2**20:,.0f}M tokens = "
            f"{pl.critical_batch_coefficient.value:g} · C^{pl.critical_batch_exponent.value:g} at C = "
            f"{compute:.2e} FLOPs ({', '.join(pl.critical_batch_coefficient.source)})")
    return out, note


def default_precision(model: ModelSpec, gpu: GpuSpec, calib: Calibration) -> str:
    """FP8 for families whose published pre-training ran FP8 GEMMs (DeepSeek-V3) on GPUs with FP8 tensor cores,
    else BF16."""
    if model.family in calib.planner.fp8_training_families and gpu.fp8_dense_flops and gpu.supports_fp8:
        return "fp8"
    return "bf16"


def default_engine(model: ModelSpec, calib: Calibration) -> str:
    """The framework the planner assumes when none is named: the one a family's published MoE pre-training ran
    (DeepSeek-V3: DualPipe on HAI-LLM, its report §3.2), else Megatron-Core."""
    if model.is_moe:
        for name, eng in calib.planner.training_engines.items():
            if model.family in eng.families:
                return name
    return "megatron"


def _candidates(model: ModelSpec, gpu: GpuSpec, count: int, context: int, ov: Overrides,
                calib: Calibration, engine: str = "megatron") -> Iterator[ParallelLayout]:
    """Every (tp, cp, pp, ep, vpp, schedule) with TP·CP·PP·DP = count the rules, schedules and overrides allow."""
    for sp in splits(model, gpu, count, context, ov, calib, engine):
        yield from sp.layouts(count // sp.gpus)


def _batchings(base: ParallelLayout, global_seqs: int, ov: Overrides) -> Iterator[ParallelLayout]:
    """(ZeRO stage, micro-batch) variants of a split, with the accumulation that reaches the global batch."""
    zeros = [ov.zero] if ov.zero is not None else ([1, 2, 3] if base.pp == 1 else [1])
    sizes = MICRO_BATCHES if base.pp == 1 else MICRO_BATCHES[:2]  # with PP, larger micro-batches only grow the bubble
    mbs = [ov.micro_batch] if ov.micro_batch else [b for b in sizes if b == 1 or b * base.dp <= global_seqs]
    for zero in zeros:
        for b in mbs:
            accum = max(1, global_seqs // (b * base.dp))  # never above the global batch
            if base.vpp > 1 and accum % base.pp:
                continue  # Megatron's interleaved schedule needs micro-batches in multiples of PP
            if base.schedule == "dualpipe" and accum < 2 * base.pp:
                continue  # DualPipe feeds micro-batches from both ends: at least 2 × PP of them
            yield ParallelLayout(tp=base.tp, pp=base.pp, dp=base.dp, cp=base.cp, ep=base.ep, zero=zero,
                                 micro_batch=b, grad_accum=accum, vpp=base.vpp, schedule=base.schedule)


_MEMOS: dict[tuple[object, ...], Memo] = {}
_SPLIT_BOUNDS: dict[tuple[object, ...], list[tuple[float, float, Split]]] = {}


def shared_memo(model: ModelSpec) -> Memo:
    """Activation and model-state terms of `model` by layout, kept across searches (they depend on the model and
    the layout, not on the GPU): the recommender asks the planner about many GPUs and counts for one model."""
    key = (model.id, model.hidden_size, model.num_layers, model.intermediate_size, model.vocab_size,
           model.num_attention_heads, model.num_kv_heads, model.n_routed_experts, model.moe_intermediate_size,
           model.max_context)
    if key not in _MEMOS:
        if len(_MEMOS) > 64:
            _MEMOS.clear()
        _MEMOS[key] = {}
    memo = _MEMOS[key]
    if len(memo) > 200_000:
        memo.clear()
    return memo


def search(model: ModelSpec, gpu: GpuSpec, count: int, context: int, calib: Calibration, *,
           ov: Overrides = NO_OVERRIDES, precision: str = "bf16", global_seqs: int,
           memory_only: bool = False, ignore_memory: bool = False, engine: str = "megatron", idle: bool = False,
           beat: float = math.inf) -> tuple[ParallelLayout, LayoutMemory, StepBreakdown | None, int] | None:
    """The fastest fitting layout (or, with `memory_only`, the first that fits), or None.

    Branch and bound: every layout gets a lower bound of its time per token (compute without recomputation, the
    bubble, and the TP/CP/PP/EP terms, which do not depend on memory); layouts are evaluated in the order of their
    bounds, and the search stops at the first bound above the best time found.

    `idle`: layouts may leave GPUs idle, TP·CP·PP·DP ≤ count with DP ≤ the global batch in sequences, so the layouts
    of n GPUs include those of every smaller count and more GPUs are never slower (a practitioner with 720 GPUs
    whose best split uses 672 leaves 48 idle). Splits are taken best first by a lower bound that holds for every
    smaller DP, each at its largest DP first. `beat`: only layouts no slower per token than this are of interest
    (the best of another global batch)."""
    limit = math.inf if ignore_memory else (1 - calib.planner.memory_headroom.value) * gpu.memory_bytes
    # every layout holds at least 18 bytes per parameter spread over all GPUs (ZeRO-3: 18Ψ/N; ZeRO-1:
    # 6Ψ/(TP·PP) + 12Ψ/N ≥ 18Ψ/N; ZeRO-2 more) plus the runtime: below that nothing fits
    if 18 * param_counts(model).total / count + runtime_overhead() > limit:
        return None
    memo = shared_memo(model)
    smemo: Memo = {}
    order = (ov.recompute,) if ov.recompute else ("none", "selective", "block", "full")
    peak, hfu, _ = compute_utilisation(model, gpu, precision, calib, engine)
    # GPU-seconds per token without and with full recomputation (FP8: the attention at the BF16 peak included)
    floor = (train_flops_per_token(model, context, "pretrain", "none")[1]
             + bf16_attention_extra(model, gpu, context, precision, "none")) / (peak * hfu)
    most = (train_flops_per_token(model, context, "pretrain", "full")[1]
            + bf16_attention_extra(model, gpu, context, precision, "full")) / (peak * hfu)
    # MoE expert layers: GPU-seconds per token at the least any layout pays (unbounded tokens per expert, expert
    # TP 1, the permutation hidden as under DualPipe); `bounded` adds each layout's exact excess
    copies = model.experts_per_token * model.moe_layers if model.is_moe else 0
    ideal = ParallelLayout(tp=1, pp=1, dp=1, micro_batch=2**40, schedule="dualpipe")
    copy_floor = moe_copy_seconds(model, gpu, ideal, context, calib, precision, peak, hfu) if copies else 0.0
    floor += copies * copy_floor
    most += copies * copy_floor
    intra, nic = intra_bytes_per_s(gpu, calib), nic_bytes_per_gpu(gpu, calib)
    domain = nvlink_domain(gpu, calib)
    fp8 = precision == "fp8"

    def bounded(bases: list[ParallelLayout], cut: float = math.inf) -> list[tuple[float, int, ParallelLayout]]:
        """Each layout with a lower bound of its time per token: compute without recomputation, the bubble, the
        TP/CP/PP/EP terms, and the data-parallel term with the fewest gathers (no recomputation) behind the longest
        overlap window (full recomputation's compute); none depends on memory. Layouts bounded at `cut` or above
        are left out."""
        out: list[tuple[float, int, ParallelLayout]] = []
        for base in bases:
            bound: dict[int, float] = {}  # by micro-batch: the bound without the DP term
            for lay in _batchings(base, global_seqs, ov):
                tokens = lay.global_batch_seqs * context
                if lay.micro_batch not in bound:
                    excess = (copies * (moe_copy_seconds(model, gpu, lay, context, calib, precision, peak, hfu)
                                        - copy_floor) if copies else 0.0)
                    compute = tokens / lay.world * (floor + excess) * (1 + (lay.pp - 1) / (lay.vpp * lay.grad_accum)
                                                                       * bubble_factor(lay, calib))
                    bound[lay.micro_batch] = compute + sum(comm_terms(model, lay, context, calib, intra, nic, 4, fp8,
                                                                      engine, domain, ov.async_tp))
                if bound[lay.micro_batch] >= cut * tokens:
                    continue
                dense, experts = memoised(smemo, ("stage", lay.tp, lay.pp, lay.ep, lay.expert_tp),
                                          lambda lay=lay: stage_params(model, lay))  # type: ignore[misc]
                dp_s = dp_seconds(lay, dense, experts, tokens / lay.world * most, calib, intra, nic, model.num_layers,
                                  domain, False)  # the fewest gathers: a lower bound
                out.append(((bound[lay.micro_batch] + dp_s) / tokens, len(out), lay))
        out.sort(key=lambda x: x[:2])
        return out

    Best = tuple[tuple[float, int, int, int, int, int], ParallelLayout, StepBreakdown]

    def evaluate(cands: list[tuple[float, int, ParallelLayout]], best: Best | None) -> Best | ParallelLayout | None:
        for lb, _, lay in cands:
            if lb > beat or (best is not None and lb >= best[0][0]):
                break
            found = lightest_recompute(model, lay, context, limit, order, memo)
            if found is None:
                continue
            lay = replace(lay, recompute=found[0], recompute_layers=found[1])
            if memory_only:
                return lay
            st = step_time(model, gpu, lay, context, calib, precision=precision, memo=smemo, engine=engine,
                           async_tp=ov.async_tp)
            key = (st.step_s / st.tokens_per_step, lay.pp, lay.tp, lay.cp, lay.vpp, lay.zero)
            if best is None or key < best[0]:
                best = (key, lay, st)
        return best

    if idle:  # best first over (split, DP), DP from the most the split allows downwards (module doc)
        g = global_seqs

        # per split, a lower bound of the time per token of every layout with DP ≤ d, a/d + b/(G + d), each term
        # shrinking as d grows: compute floor/(s·d); bubble floor·beta/(s·(G + d)) (DP'·micro-batches < G + DP'
        # sequences); TP and CP exchanges per token ∝ 1/DP; PP sends ∝ 1/(DP·micro-batches) (none with DualPipe)
        key = (id(calib), model.id, model.num_layers, model.hidden_size, gpu.id, count, context, ov, engine, precision)
        if key not in _SPLIT_BOUNDS:  # the same for every global batch the plan weighs
            terms = []
            for sp in splits(model, gpu, count, context, ov, calib, engine, idle=True):
                probe = ParallelLayout(tp=sp.tp, cp=sp.cp, pp=sp.pp, dp=1)  # one sequence per step
                tp_s, cp_s, pp_s, _ = comm_terms(model, probe, context, calib, intra, nic, 4, fp8, engine,
                                                 domain, ov.async_tp)
                terms.append((floor / sp.gpus + (tp_s + cp_s) / context,
                              floor * sp.beta / sp.gpus + (0.0 if sp.dualpipe else pp_s / context), sp))
            if len(_SPLIT_BOUNDS) > 32:
                _SPLIT_BOUNDS.clear()
            _SPLIT_BOUNDS[key] = terms
        heap = [(a / d + b / (g + d), i, a, b, sp, d) for i, (a, b, sp) in enumerate(_SPLIT_BOUNDS[key])
                for d in [min(count // sp.gpus, g)]]
        heapq.heapify(heap)
        got: Best | ParallelLayout | None = None
        searched = 0
        while heap and heap[0][0] <= beat and (got is None or heap[0][0] < got[0][0]):  # type: ignore[index]
            _, i, a, b, sp, d = heapq.heappop(heap)
            # the leanest layouts at d (1F1B, one sequence per micro-batch, full recomputation): when none fits,
            # no smaller DP fits either, unless it allows a larger EP (Split.next_leaner)
            zeros = [ov.zero] if ov.zero is not None else ([1, 2, 3] if sp.pp == 1 else [1])
            if not any(lightest_recompute(model, ParallelLayout(tp=sp.tp, pp=sp.pp, dp=d, cp=sp.cp, ep=e, zero=z,
                                                                grad_accum=-(-g // d)), context, limit, ("full",), memo)
                       for e in sp.eps(d) for z in zeros):
                if (nd := sp.next_leaner(d)) > 0:
                    heapq.heappush(heap, (a / nd + b / (g + nd), i, a, b, sp, nd))
                continue
            cands = bounded(list(sp.layouts(d)), min(beat, got[0][0] if got is not None else math.inf))  # type: ignore[index]
            searched += len(cands)
            got = evaluate(cands, got)  # type: ignore[arg-type]
            if d > 1:
                heapq.heappush(heap, (a / (d - 1) + b / (g + d - 1), i, a, b, sp, d - 1))
    else:
        bases = list(_candidates(model, gpu, count, context, ov, calib, engine))
        if any(b.dp <= global_seqs for b in bases):  # no data-parallel rank without a sequence of the global batch
            bases = [b for b in bases if b.dp <= global_seqs]
        cands = bounded(bases)
        got, searched = evaluate(cands, None), len(cands)
    if isinstance(got, ParallelLayout):
        return got, layout_memory(model, got, context, memo), None, searched
    if got is None:
        return None
    return got[1], layout_memory(model, got[1], context, memo), got[2], searched


def smallest_fitting_count(model: ModelSpec, gpu: GpuSpec, count: int, context: int, calib: Calibration,
                           ov: Overrides, global_seqs: int) -> int | None:
    """The smallest GPU count above `count` at which some layout fits: doubling, then whole servers in between."""
    per_node = int(calib.training.gpus_per_node.value)
    ov = replace(ov, tp=None, pp=None, cp=None, ep=None)  # a larger count may need another split
    prev, n = count, max(count + 1, 2)
    while n <= MAX_COUNT:
        n = -(-n // per_node) * per_node if n > per_node else n
        if search(model, gpu, n, context, calib, ov=ov, global_seqs=global_seqs, memory_only=True):
            break
        prev, n = n, n * 2
    else:
        return None
    lo, hi = prev, n
    step = per_node if hi > per_node else 1
    while hi - lo > step:
        mid = (lo + hi) // 2 // step * step
        if mid <= lo:
            break
        if search(model, gpu, mid, context, calib, ov=ov, global_seqs=global_seqs, memory_only=True):
            hi = mid
        else:
            lo = mid
    return hi


def check_inputs(model: ModelSpec, gpu: GpuSpec, count: int, tokens: float, context: int, ov: Overrides,
                 precision: str, calib: Calibration) -> None:
    """Bad input: one InputError naming the field and what is accepted."""
    if not math.isfinite(tokens) or tokens <= 0:
        raise InputError.from_key("errors.tokens_positive", field="tokens", accepted=f"1 … {MAX_TOKENS:.0e} tokens",
                                  tokens=tokens)
    if tokens > MAX_TOKENS:
        raise InputError.from_key("errors.tokens_absurd", field="tokens", accepted=f"1 … {MAX_TOKENS:.0e} tokens",
                                  tokens=tokens, most=MAX_TOKENS)
    if not 1 <= count <= MAX_COUNT:
        raise InputError(f"GPU count must be between 1 and {MAX_COUNT}, got {count}", field="count",
                         accepted=f"1 … {MAX_COUNT}")
    if not 1 <= context <= MAX_CONTEXT:
        raise InputError(f"sequence length must be between 1 and {MAX_CONTEXT:,}, got {context}", field="context")
    if precision == "fp8" and not (gpu.fp8_dense_flops and gpu.supports_fp8):
        raise InputError(f"{gpu.name} has no FP8 tensor cores; FP8 training needs Hopper, Ada or newer",
                         field="precision", accepted="bf16 on this GPU")
    if precision not in ("bf16", "fp16", "fp8"):
        raise InputError(f"unknown training precision '{precision}'", field="precision", accepted="bf16, fp8")
    if ov.global_batch_tokens is not None and not context <= ov.global_batch_tokens <= 1e10:
        raise InputError(f"global batch {ov.global_batch_tokens:g} tokens is outside one sequence ({context}) … 1e10",
                         field="global_batch", accepted=f"{context} … 1e10 tokens (e.g. 4M)")
    split = (ov.tp or 1) * (ov.pp or 1) * (ov.cp or 1)
    if count % split:
        raise InputError.from_key("errors.count_factor", field="count",
                                  accepted=f"a GPU count that is a multiple of {split} (world = TP×CP×PP×DP)",
                                  count=count, tp=ov.tp or 1, cp=ov.cp or 1, pp=ov.pp or 1, split=split)
    if ov.micro_batch is not None and not 1 <= ov.micro_batch <= 4096:
        raise InputError(f"micro-batch must be 1 … 4096 sequences, got {ov.micro_batch}", field="micro_batch",
                         accepted="1 … 4096")
    per_node = int(calib.training.gpus_per_node.value)
    probe = ParallelLayout(tp=ov.tp or 1, pp=ov.pp or 1, cp=ov.cp or 1, ep=ov.ep or 1,
                           dp=count // split, zero=1 if ov.zero is None else ov.zero,
                           recompute=ov.recompute or "selective", micro_batch=ov.micro_batch or 1, vpp=ov.vpp or 1)
    check_layout(model, gpu, count, probe, context, gpus_per_node=per_node,
                 pcie_tp_max=int(calib.planner.pcie_tp_max.value), allow_pcie_tp=ov.tp is not None)


def plan_training(model: ModelSpec, gpu: GpuSpec, count: int, tokens: float, calib: Calibration, *,
                  context: int | None = None, precision: str | None = None, ov: Overrides = NO_OVERRIDES,
                  mfu: float | None = None, ignore_memory: bool = False, explain: bool = True,
                  seq_len: int | None = None, engine: str | None = None) -> Plan:
    """The fastest layout of `count` × `gpu` that trains `model` on `tokens` tokens, with its run totals.
    `mfu`: the user's achieved MFU replaces the step-time model for the totals; `ignore_memory`: search every
    layout, fitting or not (the user skipped the memory check); `explain=False`: refuse without searching for the
    smallest count that would fit. `context`: tokens per training sequence (`seq_len`, its name in the JSON contract,
    is accepted as well). `engine`: the training framework (None: `default_engine`, Megatron-Core unless the
    family's published MoE pre-training ran another)."""
    context = int(context or seq_len or min(model.max_context, DEFAULT_CONTEXT))
    engine = engine or default_engine(model, calib)
    eng = calib.planner.training_engines.get(engine)
    if calib.planner.training_engines and eng is None:
        raise InputError(f"unknown training engine '{engine}'", field="engine",
                         accepted=", ".join(sorted(calib.planner.training_engines)))
    if precision is None:
        precision = default_precision(model, gpu, calib) if eng is None or eng.fp8 else "bf16"
    elif precision == "fp8" and eng is not None and not eng.fp8:
        raise InputError(f"{eng.name} does not train with FP8 GEMMs", field="precision",
                         accepted="bf16 with this engine, or --engine megatron / fsdp")
    check_inputs(model, gpu, count, tokens, context, ov, precision, calib)
    if mfu is not None and not 0 < mfu <= 1:
        raise InputError(f"MFU must be a fraction in (0, 1], got {mfu}", field="mfu", accepted="0 < mfu ≤ 1")
    if ov.global_batch_tokens:
        batches, gb_src = [ov.global_batch_tokens], "as given"
    else:
        batches, gb_src = batch_candidates(model, tokens, context, calib)
    idle = mfu is None and explain  # the recommender's probes (explain=False) ask about the counts they chose

    def best_at(n_gpus: int) -> tuple[Any, int]:
        """The fastest per token over the global batches (the largest first: it usually wins and bounds the
        others' searches); a tie, to float rounding (1e-9), keeps the smaller batch."""
        found, seqs_of, beat = None, max(1, round(batches[0] / context)), math.inf
        for gbt in sorted(batches, reverse=True):
            seqs = max(1, round(gbt / context))
            got = search(model, gpu, n_gpus, context, calib, ov=ov, precision=precision, global_seqs=seqs,
                         ignore_memory=ignore_memory, engine=engine, idle=idle, beat=beat * TIE)
            if got is not None and got[2] is not None and got[2].step_s / got[2].tokens_per_step <= beat * TIE:
                found, seqs_of = got, seqs
                beat = min(beat, got[2].step_s / got[2].tokens_per_step)
        return found, seqs_of

    found, global_seqs = best_at(count)
    used = found[0].world if found is not None else count
    if found is None:
        if not explain:  # the caller only asks whether it fits (the recommender's count search)
            raise InputError(f"no layout of {model.name} fits {count} × {gpu.name}", field="count")
        raise _no_fit(model, gpu, count, context, calib, ov, global_seqs)
    lay, mem, st, n = found
    assert st is not None
    pl = calib.planner
    plan = Plan(model=model.id, gpu=gpu.id, count=used, tokens=float(tokens), context=context, precision=precision,
                layout=lay, memory=mem, step=st, capacity_bytes=float(gpu.memory_bytes), goodput=pl.goodput.value,
                goodput_source=", ".join(pl.goodput.source), searched=n,
                num_layers=model.num_layers, mfu_override=mfu, engine=engine)

    notes = plan_assumptions(plan, model, gb_src, calib)
    if used < count:
        notes.insert(0, f"uses {used} of the {count} GPUs: every split of all {count} is slower or does not fit; "
                        f"{count - used} GPU(s) stay idle")
    return replace(plan, formulas=plan_formulas(plan, model), assumptions=notes)


def _no_fit(model: ModelSpec, gpu: GpuSpec, count: int, context: int, calib: Calibration, ov: Overrides,
            global_seqs: int) -> InputError:
    need = smallest_fitting_count(model, gpu, count, context, calib, ov, global_seqs)
    lean = None
    for base in _candidates(model, gpu, count, context, ov, calib):
        zero = ov.zero if ov.zero is not None else (3 if base.pp == 1 else 1)
        lay = replace(base, zero=zero, recompute=ov.recompute or "full", micro_batch=ov.micro_batch or 1,
                      grad_accum=max(1, global_seqs // max(1, base.dp)))
        mem = layout_memory(model, lay, context)
        if lean is None or mem.total < lean[0].total:
            lean = (mem, lay)
    usable = (1 - calib.planner.memory_headroom.value) * gpu.memory_bytes
    needs = (f": the leanest layout ({lean[1].describe()}) needs {lean[0].total / GIB:.2f} GiB per GPU, "
             f"{usable / GIB:.2f} GiB usable" if lean else ": no layout satisfies the parallelism rules")
    pinned = [f"{k} {v}" for k, v in (("TP", ov.tp), ("PP", ov.pp), ("CP", ov.cp), ("EP", ov.ep),
                                      ("ZeRO", ov.zero), ("recompute", ov.recompute),
                                      ("micro-batch", ov.micro_batch)) if v is not None]
    from knowledge.messages import t  # start-up: only a layout that fits nowhere loads the catalog

    with_pins = f" with {', '.join(pinned)}" if pinned else ""
    fields = {"model": model.name, "count": count, "gpu": gpu.name, "pinned": with_pins,
              "headroom": calib.planner.memory_headroom.value, "leanest": needs}
    tail = {lang: t("errors.no_layout.need", lang, n=need) if need else
            "" if lang == "zh" else f"; no count up to {MAX_COUNT} fits" for lang in ("en", "zh")}
    return InputError(t("errors.no_layout", "en", **fields, need=tail["en"]), field="count",
                      accepted=f"≥ {need} GPUs" if need else "a GPU with more memory",
                      message_zh=t("errors.no_layout", "zh", **fields, need=tail["zh"]))


def plan_memory_estimate(plan: Plan, model: ModelSpec, task: str = "pretrain") -> MemoryEstimate:
    """The plan's per-GPU memory as a MemoryEstimate (what `estimate --task pretrain --gpu` reports), so that
    `estimate` and `train-time` agree by construction."""
    # start-up: `gpu-advisor train-time` never loads advisor.estimator.results
    from .results import Breakdown, MemoryEstimate

    m, counts = plan.memory, param_counts(model)
    lines = [f for f in plan.formulas if f.startswith(("layout", "memory per GPU", "global batch"))]
    return MemoryEstimate(
        model=model.id, task=task, params=counts.total, active_params=counts.active, trainable_params=counts.total,
        gpus=plan.count, per_gpu=Breakdown(weights=m.weights, gradients=m.gradients, optimizer_states=m.optimizer,
                                           activations=m.activations, overhead=m.overhead),
        formulas=lines, engine="megatron",
        assumptions=[f"layout chosen by the parallelism planner (the same as `gpu-advisor train-time`): "
                     f"{plan.layout.describe()}"] + [a for a in plan.assumptions if a.startswith("model states")])
