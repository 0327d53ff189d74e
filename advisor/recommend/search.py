"""The layouts the recommender tries and the search over them: for one GPU, the smallest count × layout whose
memory estimate fits with headroom (`first_fit`), or the largest tried when none does (`closest_sizing`).

Counts: 1, 2, 4, 8 within a node, then whole nodes (`counts`); a unified-memory machine (Mac Studio, DGX Spark, Ryzen
AI Max) is tried as one machine only (`machine_pairs`): several are a network cluster, not a tensor-parallel server.
A card is sized with an engine its software stack runs (`rules.stacks`): llama.cpp on Apple Metal when none is named,
and no option when the named engine does not run there (vLLM on a Mac, TensorRT-LLM on Ascend). Inference: the
smallest tensor-parallel group inside a node that holds the load, as independent replicas over the other GPUs;
pipeline parallel across nodes only when one copy does not fit in a node (`inference_layouts`). Training: data parallel with ZeRO, from
the lightest sharding to full offload; pre-training and full fine-tuning go through the parallelism planner
(advisor.recommend.training_advice). A layout fits when it leaves ≥ `MIN_HEADROOM` of the card free and any CPU offload
fits the host RAM assumed per node (`DEFAULT_CPU_RAM_BYTES`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from advisor.estimator.formats import weight_bytes
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.memory import DEFAULT_WEIGHTS, default_inference_format, estimate_memory
from advisor.estimator.results import MemoryEstimate
from advisor.recommend import training_advice
from advisor.workload import Constraints, Engine, Offload, Workload
from knowledge.catalog import Catalog, load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.params import cached_per_spec, param_counts
from knowledge.quantities import GIB
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import Value, dump, replace, validate
from rules.stacks import runs

if TYPE_CHECKING:  # the planner is imported where a plan is made: an inference recommendation never loads it
    from advisor.estimator.planner import Plan

CN_UNAVAILABLE = ("restricted", "licence_required", "not_sold")  # knowledge ChinaMarket.status: no new purchase in cn
MIN_HEADROOM = 0.10  # rules' sizing threshold: below 10 % free memory a serving engine has no room to grow
NODE_COUNTS = (1, 2, 4, 8)
DEFAULT_CPU_RAM_BYTES = 512 * GIB  # host RAM assumed per node when checking offload (typical 8-GPU server)
NEAR_CAPACITY = 0.95  # a pick whose per-GPU memory is above 95 % of what the engine may use is "near capacity"


class Layout(Value):
    count: int
    nodes: int
    tp: int
    pp: int
    zero: int = 0
    offload: Offload = "none"
    plan: Plan | None = None  # the parallelism planner's plan (pre-training, full FT)
    engine: Engine | None = None  # the training engine this layout needs (FSDP for sharded QLoRA), else the workload's
    attention_dp: bool = False  # serving an MLA model: attention data-parallel over each TP group (Workload.attention_dp)

    @property
    def per_node(self) -> int:
        return self.count // self.nodes

    @property
    def dp(self) -> int:
        return self.count // (self.tp * self.pp)


class Search(Value):
    """What one search is for: the model, the workload and constraints, and the catalog to draw GPUs from."""

    model: ModelSpec
    workload: Workload
    constraints: Constraints
    catalog: Catalog

    def varied(self, workload: Workload, constraints: Constraints | None = None) -> Search:
        """The same search for a changed workload (and constraints)."""
        return Search(self.model, workload, constraints or self.constraints, self.catalog)


class Memory(NamedTuple):
    """One GPU's memory estimate and the sized workload it was computed for."""

    estimate: MemoryEstimate
    workload: Workload


class Sizing(NamedTuple):
    """A layout with its memory estimate and sized workload (what an option is built from)."""

    estimate: MemoryEstimate
    workload: Workload
    layout: Layout


def counts(c: Constraints) -> list[tuple[int, int]]:
    """(count, nodes) pairs to try, ascending: 1, 2, 4, 8 in one node, then 2, 4, 8 … full nodes."""
    per_node = c.max_gpus_per_node
    pairs = [(n, 1) for n in NODE_COUNTS if n <= per_node]
    if per_node not in NODE_COUNTS:
        pairs.append((per_node, 1))
    nodes = 2
    while nodes <= c.max_nodes and nodes <= 64:
        pairs.append((per_node * nodes, nodes))
        nodes *= 2
    return pairs


def valid_tp(model: ModelSpec, tp: int) -> bool:
    """TP divides the attention heads, and the KV heads divide TP or TP divides them (MLA shards any way)."""
    a, kv = model.num_attention_heads, model.num_kv_heads
    if a % tp:
        return False
    return model.is_mla or (tp <= kv and kv % tp == 0) or (tp > kv and tp % kv == 0)


def inference_layouts(model: ModelSpec, count: int, nodes: int, users: int = 1) -> list[Layout]:
    """The serving layouts of `count` GPUs on `nodes` nodes for `users` concurrent users, lightest replica first;
    the search keeps the first whose memory fits the weights and the KV cache of the replica's share of the users
    (`first_fit`):

    1. independent replicas of one tensor-parallel group inside a server, TP = 1, 2, 4 … up to the GPUs per node
       (powers of two dividing it, and the node's own count; `valid_tp`), count / TP replicas, each serving
       ⌈users / replicas⌉: the smallest TP that holds the load uses the fewest GPUs per copy of the weights. No
       more replicas than users (a copy without a request idles while a wider group would speed up the few), so
       one user gets the node's widest group, as before replicas; when even that leaves copies over (one user on
       two servers), the widest group alone.
       NVIDIA NIM's "throughput" profiles use the minimum number of GPUs that hold the model, its "latency"
       profiles more (docs.nvidia.com/nim/large-language-models/latest/optimization.html); vLLM's Data Parallel
       Deployment replicates the weights over separate instances serving independent batches
       (docs.vllm.ai/en/latest/serving/data_parallel_deployment/), and SGLang's DP guide says throughput then
       grows nearly linearly with the replicas (docs.sglang.io/advanced_features/dp_dpa_smg_guide.html);
    2. only when no replica fits in one server: TP over a whole node × PP = 2, 4 … nodes, the rest replicas (vLLM's
       Distributed Inference and Serving: tensor parallel inside a node, pipeline parallel across nodes when the
       model does not fit in one node, docs.vllm.ai/en/v0.8.4/serving/distributed_serving.html). 10 cards on 2
       nodes end with TP 1 × PP 2, 5 replicas, never TP 2 × PP 2, which leaves 2 over.
    An MLA model (DeepSeek-V2/V3/R1, Kimi K2) keeps one latent KV head that TP copies to every GPU of the group; so
    between 1 and 2 its groups are tried again with attention data-parallel (DP attention: each GPU caches only its
    own sequences, the experts stay split; SGLang --enable-dp-attention, vLLM --data-parallel-size with
    --enable-expert-parallel [sglang-dp-attention, vllm-data-parallel]): chosen when plain TP cannot hold the load
    in a server, before a pipeline across servers. Plain TP comes first because at small batches it reads less per
    step (each GPU reads 1/TP of the attention, not all of it)."""
    per_node = count // nodes
    tps = [tp for tp in sorted({per_node} | {2 ** k for k in range(per_node.bit_length()) if per_node % 2 ** k == 0})
           if valid_tp(model, tp)]
    flat = [Layout(count=count, nodes=nodes, tp=tp, pp=1) for tp in tps] if count % nodes == 0 else []
    out = [lay for lay in flat if lay.dp <= max(1, users)] or flat[-1:]
    if model.is_mla:
        out += [replace(lay, attention_dp=True) for lay in out if lay.tp > 1]
    if nodes > 1:
        stages = sorted({nodes} | {2 ** k for k in range(1, nodes.bit_length()) if nodes % 2 ** k == 0})
        for pp in (pp for pp in stages if pp <= model.num_layers):
            # a stage is a node's largest TP group whose stages divide the count (vLLM: TP = GPUs per node)
            tp = max((tp for tp in tps if count % (tp * pp) == 0), default=1)
            out.append(Layout(count=count, nodes=nodes, tp=tp, pp=pp))
    return out


def training_layouts(w: Workload, count: int, nodes: int) -> list[Layout]:
    """Data parallel with ZeRO, from the lightest sharding that may fit to full offload."""
    if count == 1:
        base = [Layout(1, 1, 1, 1, 0)]
        if w.task in ("full", "pretrain"):
            base.append(Layout(1, 1, 1, 1, 2, "optimizer"))
        return base
    stages = [0, 2, 3] if w.task in ("lora", "qlora", "freeze") else [1, 2, 3]
    out = [Layout(count, nodes, 1, 1, z) for z in stages]
    out.append(Layout(count, nodes, 1, 1, 3, "optimizer"))
    if w.task == "qlora" and w.engine in (None, "fsdp"):
        # FSDP + QLoRA (Answer.AI's fsdp_qlora): the 4-bit base sharded over the GPUs, then also its CPU offload of
        # parameters, the layout of their published 70B runs on 2 × 24 GB cards [answerai-fsdp-qlora-benchmarks]
        out += [Layout(count, nodes, 1, 1, 3, "none", engine="fsdp"), Layout(count, nodes, 1, 1, 3, "all", engine="fsdp")]
    return out


def layouts_for(search: Search, count: int, nodes: int) -> list[Layout]:
    """The layouts to try for `count` GPUs on `nodes` nodes, lightest first (inference: `inference_layouts`)."""
    if search.workload.is_training:
        layouts = training_layouts(search.workload, count, nodes)
        return [lay for lay in layouts if lay.offload == "none"] if search.constraints.no_offload else layouts
    pins = search.workload.pinned_layout
    if pins is not None and pins.dp:  # "4 replicas": that many copies, each count ÷ 4 GPUs
        out = replica_layouts(search.model, count, nodes, pins.dp)
    else:
        out = inference_layouts(search.model, count, nodes, search.workload.concurrency)
        whole = _whole_group(search.model, count, nodes)
        if whole is not None and (not out or out[-1].tp * out[-1].pp < count):
            out.append(whole)  # tried when the replicas above cannot hold the model
    if pins is not None and (pins.tp or pins.pp):  # "with TP 4": the served group the person runs
        return pinned_serving(search.model, count, nodes, pins.tp, pins.pp, out)
    return out


def replica_layouts(model: ModelSpec, count: int, nodes: int, replicas: int) -> list[Layout]:
    """`count` GPUs served as `replicas` copies of the model ("4 replicas of Llama 70B on H100"; vLLM's data-parallel
    deployment, one engine per copy): each copy's count ÷ replicas GPUs as one group, TP over them where the heads
    allow it and they sit in one server, else layers split (`_whole_group`); none when the count does not divide."""
    per_copy, per_node = count // replicas, max(1, count // max(nodes, 1))
    if count % replicas or per_copy < 1:
        return []
    if per_copy == 1 or (per_copy <= per_node and valid_tp(model, per_copy)):
        return [Layout(count=count, nodes=nodes, tp=per_copy, pp=1)]
    group = _whole_group(model, per_copy, -(-per_copy // per_node))  # a copy over as many servers as it spans
    return [Layout(count=count, nodes=nodes, tp=group.tp, pp=group.pp)] if group is not None else []


def replica_pairs(replicas: int, per_node: int, max_nodes: int) -> list[tuple[int, int]]:
    """(count, nodes) pairs for `replicas` copies of 1, 2, 4, 8 … GPUs each, ascending: a copy inside a server
    while it fits one (as many copies per server as fit), else whole servers per copy."""
    pairs = []
    for per_copy in (1, 2, 4, 8, 16, 32, 64):
        count = replicas * per_copy
        nodes = -(-replicas // max(1, per_node // per_copy)) if per_copy <= per_node else replicas * (per_copy // per_node)
        while count % nodes:
            nodes += 1
        if nodes <= max_nodes:
            pairs.append((count, nodes))
    return pairs


def pinned_serving(model: ModelSpec, count: int, nodes: int, tp: int | None, pp: int | None,
                   layouts: list[Layout]) -> list[Layout]:
    """The layouts of `layouts` with the TP (and PP) degree the person serves with ("Llama 70B on 8 H100 with TP 4":
    two replicas of TP 4), else that group built on the count when it divides it and the model's heads allow it;
    none when it cannot run on `count` GPUs."""
    kept = [lay for lay in layouts if (tp is None or lay.tp == tp) and (pp is None or lay.pp == pp)]
    if kept:
        return kept
    t, p = tp or 1, pp or 1
    if count % (t * p) or not valid_tp(model, t) or p > model.num_layers or (t > count // max(nodes, 1) and p == 1):
        return []
    return [Layout(count=count, nodes=nodes, tp=t, pp=p)]


def _whole_group(model: ModelSpec, count: int, nodes: int) -> Layout | None:
    """A count that does not split into nodes of 1, 2, 4 or 8 ("十张", "二十张 H20"): all the cards as one
    model-parallel group, the largest valid TP degree up to 8 that divides the count, pipeline stages for the rest
    (20 cards: TP 4 × PP 5; 3 cards, whose 3 divides no head count of a power of two: TP 1 × PP 3; 4 cards of a
    model whose 10 KV heads TP 4 cannot split, Phi-4: TP 2 × PP 2). None for the usual counts whose TP is valid: the
    layouts above already hold one group of them or its replicas."""
    if count % nodes == 0 and count // nodes in (1, 2, 4, 8) and valid_tp(model, count // nodes):
        return None
    even = next((n for n in range(nodes, count + 1) if count % n == 0 and count // n <= 8), None)  # 20: 4 × 5
    for tp in (8, 4, 2, 1):  # 1: a pipeline of single cards ("3 RTX 3090": TP 1 × PP 3, vLLM --pipeline-parallel-size)
        if even is not None and count % tp == 0 and valid_tp(model, tp) and count // tp <= model.num_layers:
            return Layout(count=count, nodes=even, tp=tp, pp=count // tp)
    return None


def sized_workload(w: Workload, layout: Layout) -> Workload:
    """The workload as one GPU of `layout` sees it (inference replicas split the concurrency)."""
    update: dict[str, object] = {"gpus": layout.per_node, "nodes": layout.nodes, "tp": layout.tp, "pp": layout.pp,
                                 "zero": layout.zero, "offload": layout.offload}
    if layout.engine:
        update["engine"] = layout.engine
    if layout.attention_dp:
        update["attention_dp"] = True
    if not w.is_training and layout.dp > 1:
        update["concurrency"] = math.ceil(w.concurrency / layout.dp)
    return replace(w, **update)


def machine_pairs(gpu: GpuSpec, pairs: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The (count, nodes) pairs to try on `gpu`: for a unified-memory computer only the single machine among
    `pairs` (none once the search has moved past one), else `pairs`."""
    return [(n, k) for n, k in pairs if n == 1] if gpu.is_machine else list(pairs)


# a generic precision asked of llama.cpp (the engine of stacks without vLLM, Apple Metal) is read as the GGUF file
# people download for it: Q4_K_M is llama.cpp's recommended 4-bit mix, Q8_0 its 8-bit (llama.cpp quantize README)
GGUF_OF = {"int4": "q4_k_m", "int8": "q8_0", "fp8": "q8_0"}


def engine_for(gpu: GpuSpec, w: Workload) -> str | None:
    """The engine `gpu` is sized with: the workload's; for serving on a stack without vLLM (Apple Metal) llama.cpp;
    else None (the estimator's default: vLLM for serving, transformers for training)."""
    if w.engine or w.is_training or runs(gpu.stack, "vllm"):
        return w.engine
    return "llama.cpp" if runs(gpu.stack, "llama.cpp") else None


def _gguf_file(model: ModelSpec, w: Workload, engine: str | None) -> Workload:
    """On llama.cpp a width said ("4-bit" on a Mac) or the checkpoint's own FP8 (DeepSeek-V3, Kimi K2 on a Mac
    Studio) is the GGUF file of that width people run (GGUF_OF); llama.cpp loads no FP8 checkpoint."""
    if engine != "llama.cpp" or w.is_training:
        return w
    fmt = w.weights or default_inference_format(model)
    return replace(w, weights=GGUF_OF[fmt]) if fmt in GGUF_OF else w


def stack_runs(gpu: GpuSpec, w: Workload) -> bool:
    """Whether `gpu`'s software stack runs the engine the workload is sized with (rules.stacks); an inference-only
    part (GpuSpec.inference_only) runs no training job."""
    if w.is_training and gpu.inference_only:
        return False
    engine = engine_for(gpu, w) or ("transformers" if w.is_training else "vllm")
    return runs(gpu.stack, engine)


def memory_of(search: Search, gpu: GpuSpec, layout: Layout) -> Memory | None:
    """The memory estimate of one GPU of `layout`, or None when the sized workload is not a valid one or its engine
    does not run on the card's stack."""
    w = sized_workload(search.workload, layout)
    if not stack_runs(gpu, w):
        return None
    engine = engine_for(gpu, w)
    if engine != w.engine:
        w = replace(w, engine=engine)
    w = _gguf_file(search.model, w, engine)
    if not valid_sized(w):
        return None
    try:
        return Memory(estimate_memory(search.model, w, gpu), w)
    except (AdvisorError, ValueError):
        return None


@lru_cache(maxsize=1024)
def valid_sized(w: Workload) -> bool:
    """Whether a sized workload (made by `replace`, unchecked) passes Workload's own checks. A pure function of the
    workload (a frozen struct, hashed by its fields), memoised: a search sizes the same workload for every GPU of
    a layout (~75 checks for ~10 distinct workloads per recommendation)."""
    try:
        validate(Workload, dump(w))
    except (AdvisorError, ValueError):
        return False
    return True


def served_group_error(search: Search, gpu: GpuSpec, count: int, nodes: int) -> InputError | None:
    """A served model's TP (× PP) group that cannot run on the cards: larger than them or not dividing them ("2 H100
    with TP 4"), or a degree that does not divide the attention heads ("TP 3"), said in both languages; None when
    the layouts exist."""
    pins = search.workload.pinned_layout
    if pins is None or not pins.tp or search.workload.is_training or layouts_for(search, count, nodes):
        return None
    model = search.model
    if not valid_tp(model, pins.tp):  # "TP 3": not a divisor of the heads
        return InputError.from_key("errors.tp_heads", field="tp", tp=pins.tp, heads=model.num_attention_heads,
                                   model=model.name)
    group = pins.tp * (pins.pp or 1)
    said = f"{pins.tp}" + (f" × PP {pins.pp}" if pins.pp else "")
    return InputError.from_key("errors.served_group", field="tp", count=count, gpu=gpu.name, model=model.name,
                               group_said=said, group=group)


def unsized_error(search: Search, gpu: GpuSpec, count: int, nodes: int) -> InputError:
    """Why `count` of `gpu` got no memory estimate at all (memory_of gave None for every layout), in both languages:
    the first reason met (no TP degree that divides the attention heads, an inference-only part asked to train, a
    software stack that does not run the engine), else the estimator's own error."""
    model = search.model
    fields: dict[str, Any] = {"count": count, "gpu": gpu.name, "model": model.name}
    layouts = layouts_for(search, count, nodes)
    pins = search.workload.pinned_layout
    if not layouts and pins is not None and pins.dp and count % pins.dp and not search.workload.is_training:
        return InputError.from_key("errors.unsized.replicas", field="count", replicas=pins.dp, m1=pins.dp,
                                   m2=2 * pins.dp, m4=4 * pins.dp, **fields)  # "8 H100 as 3 replicas": 3, 6 or 12
    if not layouts:
        return InputError.from_key("errors.unsized.heads", field="count", heads=model.num_attention_heads, **fields)
    w = sized_workload(search.workload, layouts[0])
    if w.is_training and gpu.inference_only:
        return InputError.from_key("errors.unsized.inference_only", field="gpu", **fields)
    if not stack_runs(gpu, w):
        return InputError.from_key("errors.unsized.stack", field="gpu", stack=gpu.stack,
                                   engine=engine_for(gpu, w) or "vllm", **fields)
    engine = engine_for(gpu, w)
    w = replace(w, engine=engine) if engine != w.engine else w
    w = _gguf_file(search.model, w, engine)
    try:
        Workload(**dump(w))
        estimate_memory(search.model, w, gpu)
    except (AdvisorError, ValueError) as exc:
        from knowledge.messages import t  # start-up: only a configuration that cannot be sized loads the catalog

        why_zh = exc.localized("zh") if isinstance(exc, InputError) else str(exc)
        return InputError(t("errors.unsized.estimate", "en", why=str(exc), **fields), field="count",
                          message_zh=t("errors.unsized.estimate", "zh", why=why_zh, **fields))
    return InputError.from_key("errors.unsized.none", field="count", **fields)


def headroom(est: MemoryEstimate, gpu: GpuSpec) -> float:
    """Free share of the card: (capacity − per-GPU total) / capacity, or −1 when the engine's own limit (vLLM's
    gpu_memory_utilization) is exceeded. An engine reservation of 0.9 is itself the 10 % headroom."""
    if not est.fits(gpu):
        return -1.0
    return (gpu.memory - est.per_gpu.total).ratio(gpu.memory)


def sized(est: MemoryEstimate, gpu: GpuSpec) -> bool:
    """Fits with headroom, and any CPU offload fits the host RAM assumed per node (else the sizing rules
    `sizing-low-headroom` / `sizing-offload-ram-short` would flag or block it)."""
    return headroom(est, gpu) >= MIN_HEADROOM and est.cpu.total.n <= DEFAULT_CPU_RAM_BYTES


def candidate_gpus(catalog: Catalog, c: Constraints) -> list[GpuSpec]:
    """The GPUs to search: the user's candidates (named cards are checked whatever their market; the market rules
    say what applies), else the catalog's cards sold in the region's market (`sold_in`), unified-memory machines
    left out."""
    if c.candidates:
        return [catalog.gpu(name) for name in c.candidates]
    # a unified-memory machine (Mac Studio, DGX Spark, Ryzen AI Max) is a one-user desktop: searched when named,
    # never proposed unasked as a server
    # a budget for the cards alone ("a GPU under $1000") buys a card for a PC or workstation: data-centre cards need a
    # server chassis that budget leaves out
    pc = c.budget_covers == "gpus"
    return [g for g in catalog.gpus if sold_in(g, c.region) and not g.is_machine
            and not (pc and g.segment == "datacenter")]


def sold_in(gpu: GpuSpec, region: str) -> bool:
    """Whether a company can buy the card new in `region` (knowledge ChinaMarket, dated): outside China, not a
    card built for the China market (H20, A800, H800, L20, RTX 4090 D, 5090 D); in mainland China, not one whose
    status is restricted, licence-required or not sold there (A100/H100/H200/B200, RTX 4090, 5090 …)."""
    if region == "cn":
        return gpu.china.status not in CN_UNAVAILABLE
    return not gpu.china.built_for_china


def resolve_inputs(workload: Workload, constraints: Constraints, catalog: Catalog | None = None,
                   model: ModelSpec | None = None) -> tuple[ModelSpec, Catalog]:
    """The model spec and catalog of a request; every GPU it names is checked to exist (InputError, UnknownGpu)."""
    catalog = catalog or load_catalog()
    if model is None and workload.model is None:
        raise InputError.from_key("errors.no_model", field="model",
                                  accepted="a catalog model id or alias (see `gpu-advisor models`)")
    model = model or catalog.model(workload.model or "")
    for name in constraints.candidates:
        catalog.gpu(name)
    if constraints.existing is not None:
        catalog.gpu(constraints.existing.gpu)
    return model, catalog


def first_fit(search: Search, gpu: GpuSpec, pairs: Iterable[tuple[int, int]]) -> Sizing | None:
    """The smallest layout on `gpu` whose memory fits with headroom, or None. Whole servers are tried doubling
    (`counts`); when a doubling fits after one that did not, the server counts in between are bisected
    (`_fewest_nodes`), so a 72B full fine-tune on H100 is 3 servers (24 GPUs), not the 4 the doubling reached."""
    pins = search.workload.pinned_layout
    given = list(pairs)
    if not search.workload.is_training and pins is not None and pins.dp and len(given) > 1:
        # "4 replicas": counts of 4 copies, within the counts asked (a search for speed asks for more GPUs)
        c = search.constraints
        lo, hi = min(n for n, _ in given), max(n for n, _ in given)
        given = [p for p in replica_pairs(pins.dp, c.max_gpus_per_node, max(c.max_nodes, pins.dp)) if lo <= p[0]
                 and p[0] <= max(hi, pins.dp)]
    pairs = machine_pairs(gpu, given)
    if not stack_runs(gpu, search.workload):
        return None
    at = _planned_at if training_advice.planned(search.workload) else _layout_at
    per_node = search.constraints.max_gpus_per_node
    missed = 0  # the most whole servers tried that did not fit
    for count, nodes in pairs:
        found = at(search, gpu, count, nodes)
        if found is _NEVER:
            return None
        if isinstance(found, Sizing):
            return _fewest_nodes(search, gpu, at, missed, found) if missed else found
        if count == nodes * per_node:
            missed = nodes
    return None


class _Never:
    """A count's answer that no larger count can change (training activations that do not shard)."""


_NEVER = _Never()
T = TypeVar("T")
_At = Callable[[Search, GpuSpec, int, int], "Sizing | _Never | None"]


def _layout_at(search: Search, gpu: GpuSpec, count: int, nodes: int) -> Sizing | _Never | None:
    """The first of `count`'s layouts that fits with headroom (serving: the roomier group when near capacity)."""
    for layout in layouts_for(search, count, nodes):
        if weights_cannot_fit(search, gpu, layout):
            continue
        found = memory_of(search, gpu, layout)
        if found is None:
            continue
        est, w = found
        if sized(est, gpu):
            return roomier(search, gpu, Sizing(est, w, layout))
        if w.is_training and unshardable_exceeds(est, gpu):
            return _NEVER  # activations and runtime overhead do not shrink with more data-parallel GPUs
    return None


def fewest_between(lo: int, hi: int, found: T, probe: Callable[[int], T | None]) -> T:
    """Between `lo` servers (which miss) and `hi` (which give `found`), the result at the fewest servers for which
    `probe` gives one, by bisection: it assumes that what holds at n servers holds at more."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        tried = probe(mid)
        if tried is not None:
            hi, found = mid, tried
        else:
            lo = mid
    return found


def _fewest_nodes(search: Search, gpu: GpuSpec, at: _At, missed: int, found: Sizing) -> Sizing:
    """Between `missed` whole servers (no fit) and `found` (fits), the fewest servers that fit (`fewest_between`):
    the memory per GPU only falls as servers are added (more shards of the weights and states, more stages)."""
    per_node = search.constraints.max_gpus_per_node

    def fits_at(nodes: int) -> Sizing | None:
        tried = at(search, gpu, nodes * per_node, nodes)
        return tried if isinstance(tried, Sizing) else None

    return fewest_between(missed, found.layout.nodes, found, fits_at)


def wider_groups(search: Search, gpu: GpuSpec, found: Sizing) -> Iterator[Sizing]:
    """For a serving layout of replicas that misses a speed target: the same count's larger tensor-parallel groups
    inside a server (fewer replicas, each faster per token) that fit with headroom, lightest first; NIM's "latency"
    profiles likewise spend more GPUs per copy than its "throughput" ones (see `inference_layouts`). Nothing for
    training, nor after a pipeline across nodes, whose more stages add no speed per token."""
    lay = found.layout
    if search.workload.is_training or lay.pp > 1:
        return
    for layout in layouts_for(search, lay.count, lay.nodes):
        if layout.pp > 1 or layout.tp <= lay.tp or weights_cannot_fit(search, gpu, layout):
            continue
        memory = memory_of(search, gpu, layout)
        if memory is not None and sized(memory.estimate, gpu):
            yield Sizing(*memory, layout)


def near_capacity(est: MemoryEstimate, gpu: GpuSpec) -> bool:
    """The per-GPU need is above NEAR_CAPACITY of what the engine may use on `gpu`."""
    usable = est.usable_bytes(gpu)
    return not usable.n or est.per_gpu.total.ratio(usable) > NEAR_CAPACITY


def roomier(search: Search, gpu: GpuSpec, found: Sizing) -> Sizing:
    """A serving replica that fits but is near capacity (a 72B model in BF16 on TP 2 of 80 GB cards: ~1 GiB left
    for the KV cache) gives way to the count's first larger TP group that is not, when there is one: a practitioner
    does not run an engine whose cache holds barely one request when the same GPUs hold fewer, roomier copies."""
    if not near_capacity(found.estimate, gpu):
        return found
    return next((s for s in wider_groups(search, gpu, found) if not near_capacity(s.estimate, gpu)), found)


def _planned_at(search: Search, gpu: GpuSpec, count: int, nodes: int) -> Sizing | None:
    """Pre-training / full fine-tuning at `count`: the parallelism planner's layout, else ZeRO-Offload (which the
    planner does not search) holding the model states in host RAM; a layout the user pinned (TP/PP) is the
    planner's only, with no offload in its stead, and "without offloading" rules offload out."""
    found = planned(search, gpu, count, nodes)
    if found is not None:
        return found
    w = search.workload
    offloaded = [] if search.constraints.no_offload or w.pinned_layout is not None else training_layouts(w, count, nodes)
    for layout in (lay for lay in offloaded if lay.offload != "none"):
        memory = memory_of(search, gpu, layout)
        if memory is not None and sized(memory.estimate, gpu):
            return Sizing(*memory, layout)
    return None


def planned(search: Search, gpu: GpuSpec, count: int, nodes: int) -> Sizing | None:
    """The planner's layout of `count` × `gpu`, or None when none fits."""
    w, model = search.workload, search.model
    plan = training_advice.plan_for(model, gpu, count, w, w.train_tokens or default_train_tokens(model, w),
                                    search.constraints.mfu)
    if plan is None:
        return None
    layout = Layout(count, nodes, plan.layout.tp, plan.layout.pp, plan.layout.zero, plan=plan)
    return Sizing(training_advice.plan_memory(plan, model, w), sized_workload(w, layout), layout)


def unshardable_exceeds(est: MemoryEstimate, gpu: GpuSpec) -> bool:
    """Per-GPU memory that data parallelism cannot shard (activations + overhead) already leaves no headroom."""
    return est.per_gpu.activations + est.per_gpu.overhead > (1 - MIN_HEADROOM) * est.usable_bytes(gpu)


def weights_cannot_fit(search: Search, gpu: GpuSpec, layout: Layout) -> bool:
    """Cheap lower bound for inference: the weight and KV-cache shards alone exceed the card less its headroom
    (skips the full estimate)."""
    if search.workload.is_training:
        return False

    w = search.workload
    sequences = math.ceil(max(w.batch, w.concurrency) / layout.dp)
    return _shards(search.model, precision(w, search.model), layout.tp, layout.pp, w.context, sequences, w.kv,
                   layout.attention_dp) > (1 - MIN_HEADROOM) * gpu.memory_bytes


@cached_per_spec
def _shards(model: ModelSpec, weights: str, tp: int, pp: int, context: int, sequences: int, kv: str,
            attention_dp: bool = False) -> int:
    """Bytes of the weight shard and KV cache of one GPU (memoised: the search asks the same layouts of every card)."""
    return (weight_bytes(model, weights, tp=tp, pp=pp, attention_dp=attention_dp)
            + kv_cache_bytes(model, context, sequences, kv, tp, pp=pp, attention_dp=attention_dp))


def closest_sizing(search: Search, gpu: GpuSpec, pairs: list[tuple[int, int]]) -> Sizing | None:
    """The largest layout tried on `gpu` (for the "nothing fits" answer): the best it can do."""
    for count, nodes in reversed(machine_pairs(gpu, pairs)):
        for layout in reversed(layouts_for(search, count, nodes)):
            found = memory_of(search, gpu, layout)
            if found is not None:
                return Sizing(*found, layout)
    return None


def precision(w: Workload, model: ModelSpec | None = None) -> str:
    """The weight format the estimate used: the workload's, else the task's default (the checkpoint's own precision
    for inference)."""
    if w.weights:
        return w.weights
    if w.task == "inference" and model is not None:
        return default_inference_format(model)
    return DEFAULT_WEIGHTS[w.task]


def default_train_tokens(model: ModelSpec, w: Workload) -> float:
    """Token budget when none was given: Chinchilla's 20 tokens per parameter for pre-training
    (Hoffmann et al. 2022), 100 M tokens for a fine-tuning run (stated as an assumption)."""
    return 20.0 * param_counts(model).total if w.task == "pretrain" else 1e8
