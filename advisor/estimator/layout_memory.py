"""Memory per GPU of a training layout (TP × CP × PP × DP, EP for experts, ZeRO, recomputation).

Parameters on the most loaded GPU: the dense body of one pipeline stage (⌈L/PP⌉ layers) split by TP, the
embedding (first stage) or the output layer (last stage; a tied embedding keeps a copy there when PP > 1) split by
TP, and the stage's routed experts split by EP × TP (Megatron-Core's expert tensor parallelism defaults to TP; EP × 1
where EP is folded over the TP ranks, `ParallelLayout.expert_tp`).

Model states (bytes per parameter Ψ on the GPU; N = DP × CP ranks share the dense states, DP × CP / EP the expert
states):
* ZeRO-0/1 as Megatron-LM's DDP / distributed optimizer: 2Ψ bf16 weights + 4Ψ fp32 gradient buffers + 12Ψ Adam
  states (fp32 master, m, v), the optimizer part divided by N under ZeRO-1: 18Ψ and 6Ψ + 12Ψ/N
  (Megatron `theoretical_memory_usage.py`).
* ZeRO-2/3 as DeepSpeed's estimator (`estimate_zero2_model_states_mem_needs`: 4Ψ + 16Ψ/N;
  `estimate_zero3_model_states_mem_needs`: 18Ψ/N + 4·largest layer), see training_memory.deepspeed_zero2/3.
Activations per Korthikanti et al. 2022 with TP + sequence parallelism (advisor/estimator/activations.py) at
the sequence share s/CP; under 1F1B the first stage holds min(PP, m) micro-batches in flight, × (1 + (PP−1)/
(PP·v)) with v interleaved stages (Narayanan et al. 2021 §2.2.2); the last stage holds the logits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar, cast

from knowledge.params import param_counts
from knowledge.schemas import ModelSpec
from knowledge.structs import Value

from . import activations as act
from .engines import default_engines
from .parallel_layout import ParallelLayout
from .training_memory import deepspeed_model_states, largest_layer_params

BODY_GROUPS = ("attention", "mlp", "norm", "shared_experts", "router")


class LayoutMemory(Value):
    weights: float
    gradients: float
    optimizer: float
    activations: float
    overhead: float
    params_per_gpu: float  # dense + expert parameters held on the most loaded GPU
    accounting: str

    @property
    def total(self) -> float:
        return self.weights + self.gradients + self.optimizer + self.activations + self.overhead


def stage_params(model: ModelSpec, lay: ParallelLayout) -> tuple[float, float]:
    """(dense, expert) parameters on one GPU of the most loaded pipeline stage."""
    g = param_counts(model).by_group
    L = model.num_layers
    stage_layers = -(-L // lay.pp)
    body = sum(g.get(k, 0) for k in BODY_GROUPS) * stage_layers / L
    first = g.get("embedding", 0) + g.get("position", 0)
    last = g.get("lm_head", 0) or (g.get("embedding", 0) if lay.pp > 1 else 0)
    ends = first + last if lay.pp == 1 else max(first, last)
    dense = (body + ends) / lay.tp
    experts = 0.0
    if model.is_moe and model.moe_layers:
        experts = g.get("experts", 0) * min(stage_layers, model.moe_layers) / model.moe_layers / (lay.ep * lay.expert_tp)
    return dense, experts


def model_state_bytes(psi: float, zero: int, shards: int, largest: float = 0.0) -> tuple[float, float, float, str]:
    """(weights, gradients, optimizer) bytes of ψ parameters sharded over `shards` ranks (module doc)."""
    if zero == 0:
        return 2 * psi, 4 * psi, 12 * psi, "Megatron DDP 18Ψ"
    if zero == 1:
        return 2 * psi, 4 * psi, 12 * psi / shards, "Megatron distributed optimizer 6Ψ + 12Ψ/N"
    ds = deepspeed_model_states(psi, zero, shards, largest)
    how = "DeepSpeed ZeRO-2 estimator 4Ψ + 16Ψ/N" if zero == 2 else "DeepSpeed ZeRO-3 estimator 18Ψ/N + 4·largest layer"
    return ds.weights, ds.gradients, ds.optimizer, how


T = TypeVar("T")
# a search's cache of terms that depend on the model and the layout: each key names its term (and so its type)
Memo = dict[tuple[object, ...], object]


def memoised(memo: Memo | None, key: tuple[object, ...], make: Callable[[], T]) -> T:
    """`make()`, computed once per `key` of `memo` (None: every time)."""
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return cast(T, memo[key])  # stored by make() under this key


def _parts(model: ModelSpec, lay: ParallelLayout, context: int, rec: str,
           memo: Memo | None) -> tuple[float, float, float]:
    """(stored, working, logits) activation bytes of `rec` recomputation, memoised per search."""

    def parts() -> tuple[float, float, float]:
        a = act.training_activations(model, max(1, context // lay.cp), lay.micro_batch, tp=lay.tp, pp=lay.pp,
                                     recompute=rec)
        return float(a.stored), float(a.working), float(a.logits)

    return memoised(memo, ("act", context, lay.cp, lay.micro_batch, lay.tp, lay.pp, rec), parts)


def in_flight_scale(lay: ParallelLayout) -> float:
    """Stored activations relative to PP micro-batches in flight: min(PP, m)/PP, × (1 + (PP−1)/(PP·v)) interleaved;
    DualPipe holds PP + 1 (DeepSeek-V3 report, Table 2)."""
    if lay.pp == 1:
        return 1.0
    if lay.schedule == "dualpipe":
        return min(lay.pp + 1, lay.grad_accum) / lay.pp
    scale = min(lay.pp, lay.grad_accum) / lay.pp
    return scale * (1 + (lay.pp - 1) / (lay.pp * lay.vpp)) if lay.vpp > 1 else scale


def activation_bytes(model: ModelSpec, lay: ParallelLayout, context: int, memo: Memo | None = None,
                     recompute: str | None = None, full_layers: int | None = None) -> float:
    """Activations on the most loaded GPU. Block recompute (Megatron --recompute-method block
    --recompute-num-layers k) interpolates between selective and full by the share k/n of each stage's n layers."""
    rec = recompute or lay.recompute
    k = lay.recompute_layers if full_layers is None else full_layers
    scale = in_flight_scale(lay)
    if rec == "full" and k > 0:
        f = min(1.0, k / -(-model.num_layers // lay.pp))
        sel, full = _parts(model, lay, context, "selective", memo), _parts(model, lay, context, "full", memo)
        return (sel[0] * (1 - f) + full[0] * f) * scale + full[1] + sel[2]
    a = _parts(model, lay, context, rec, memo)
    return a[0] * scale + a[1] + a[2]


def states_bytes(model: ModelSpec, lay: ParallelLayout,
                 memo: Memo | None = None) -> tuple[float, float, float, float, str]:
    """(weights, gradients, optimizer, parameters on the GPU, accounting) of the most loaded GPU. DualPipe keeps two
    copies of each rank's parameters (its stages from both ends; DeepSeek-V3 report, Table 2: "2×"), and their
    gradients."""

    def states() -> tuple[float, float, float, float, str]:
        dense, experts = stage_params(model, lay)
        shards = lay.dp * lay.cp
        largest = largest_layer_params(model) / lay.tp if lay.zero == 3 else 0.0
        w, g, o, how = model_state_bytes(dense, lay.zero, shards, largest)
        if experts:
            we, ge, oe, _ = model_state_bytes(experts, lay.zero, lay.expert_dp)
            w, g, o = w + we, g + ge, o + oe
        if lay.schedule == "dualpipe":
            w, g, how = 2 * w, 2 * g, how + "; DualPipe: two copies of the parameters and their gradients"
        return w, g, o, dense + experts, how

    dual = lay.schedule == "dualpipe"
    return memoised(memo, ("states", lay.tp, lay.pp, lay.ep, lay.dp, lay.cp, lay.zero, dual), states)


def runtime_overhead() -> float:
    eng = default_engines().get("megatron")
    return eng.cuda_context_bytes.value + (eng.nccl_bytes.value if eng.nccl_bytes else 0.0)


def layout_memory(model: ModelSpec, lay: ParallelLayout, context: int, memo: Memo | None = None) -> LayoutMemory:
    """Per-GPU bytes of `lay` training `model` at `context` tokens per sequence (module doc)."""
    w, g, o, params, how = states_bytes(model, lay, memo)
    return LayoutMemory(weights=w, gradients=g, optimizer=o, activations=activation_bytes(model, lay, context, memo),
                        overhead=runtime_overhead(), params_per_gpu=params, accounting=how)


def lightest_recompute(model: ModelSpec, lay: ParallelLayout, context: int, limit: float,
                       order: tuple[str, ...] = ("none", "selective", "block", "full"),
                       memo: Memo | None = None) -> tuple[str, int] | None:
    """The cheapest recomputation under which `lay` fits `limit` bytes, as (recompute, full layers per stage):
    none, selective, full on the fewest layers k per stage (block), full. Each costs more FLOPs than the one before,
    so the first that fits is the fastest. None when nothing fits."""
    fixed = sum(states_bytes(model, lay, memo)[:3]) + runtime_overhead()
    n = -(-model.num_layers // lay.pp)
    if fixed + activation_bytes(model, lay, context, memo, "full", 0) > limit:
        return None
    for rec in order:
        if rec == "block":
            if n <= 1:
                continue
            a1 = activation_bytes(model, lay, context, memo, "full", 1)
            an = activation_bytes(model, lay, context, memo, "full", n)
            per_layer = (a1 - an) / (n - 1)  # activations fall linearly with k
            k = 1 if fixed + a1 <= limit else 1 + math.ceil((fixed + a1 - limit) / per_layer) if per_layer > 0 else n
            if k < n:
                return "full", k
            continue
        if fixed + activation_bytes(model, lay, context, memo, rec, 0) <= limit:
            return rec, 0
    return None
