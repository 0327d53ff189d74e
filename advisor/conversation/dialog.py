"""The deterministic dialog: a state machine over workload slots, one clarifying question at a time.

Each turn: extract slots from the message (:mod:`advisor.conversation.extract`), merge them into the
conversation's state (later turns refine earlier ones and the changes are reported), then either ask the
one question that blocks an answer (which model? which task?) or answer from the tools — recommender,
estimator, rules — and ask the most useful next question with its default offered. "默认/default"
accepts the default of the pending question. Nonsense, injection attempts, empty or huge messages get a
clear reply in the user's language and leave the state as it was.

Answers are rendered by :mod:`advisor.conversation.compose`; this module only decides and computes.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from advisor.conversation.extract import GpuMention, Slots, extract
from advisor.conversation.turn import Step
from advisor.estimator.limits import CONTEXT_STEP, fits_with, largest, largest_context, most_sequences
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.errors import AdvisorError, InputError, NotValidated
from knowledge.record import RecordError

log = logging.getLogger(__name__)
log.addHandler(logging.NullHandler())

DEFAULT_MODEL = "qwen2.5-7b"
from advisor.workload import default_context  # noqa: E402  (one place for the default)

SERVE_COUNTS = (1, 2, 4, 8)
from advisor.recommend_offload import OFFLOAD_FORMAT as OFFLOAD_WEIGHTS  # noqa: E402 (the one place of that default)

QPS_SECONDS_PER_REQUEST = 1.0  # Little's law L = λ·W with W = 1 s when only QPS is known (stated as an assumption)

BLOCKING = ("model", "task")
NEXT_INFERENCE = ("concurrency", "context", "weights", "region", "budget", "output_tokens")
NEXT_TRAINING = ("train_tokens", "context", "region", "budget", "deadline")


class DialogState(BaseModel):
    """What the conversation knows: merged slots, the question waiting for an answer, what was asked/defaulted."""

    model_config = ConfigDict(extra="forbid")
    slots: Slots = Slots()
    pending: str | None = None
    asked: list[str] = []
    defaulted: list[str] = []
    focus_gpu: str | None = None  # the top option of the last answer ("what about 4 cards?" re-counts it)
    last_numbers: dict[str, float] = {}  # key results of the last answer, for "what changed and how much"
    last_workload: dict[str, Any] = {}
    answered: int = 0
    intent: str = "other"  # the intent of the last turn (advisor.conversation.intent)


@dataclass
class Change:
    slot: str
    old: Any
    new: Any


# ----------------------------------------------------------------------------------------------------------------
# merging turns
# ----------------------------------------------------------------------------------------------------------------
_TRANSIENT = {"claim", "unknown_gpus", "unknown_model", "model_text", "model_assumed", "size_params"}


def merge(state: DialogState, new: Slots) -> list[Change]:
    """Fold this turn's slots into the state; return what changed (old -> new) for the slots that matter."""
    old = state.slots
    merged = old.model_copy(deep=True)
    changes: list[Change] = []

    def put(name: str, value: Any) -> None:
        before = getattr(merged, name)
        if before != value:
            if name not in _TRANSIENT:
                changes.append(Change(name, before, value))
            setattr(merged, name, value)

    merged.claim = new.claim
    merged.unknown_gpus = list(new.unknown_gpus)
    merged.unknown_model = new.unknown_model
    if new.model is not None:
        put("model", new.model)
        merged.model_text, merged.model_assumed, merged.size_params = new.model_text, new.model_assumed, new.size_params
    elif new.size_params is not None:
        merged.size_params = new.size_params
    if new.task is not None:
        put("task", new.task)
        merged.task_generic = None
    elif new.task_generic is not None:
        keep = old.task in ("lora", "qlora", "full", "freeze") if new.task_generic == "finetune" else (
            old.task in ("lora", "qlora", "full", "freeze", "pretrain"))
        if not keep:
            merged.task_generic = new.task_generic
            if old.task == "inference":
                put("task", None)
    for name in ("weights", "kv", "context", "batch", "prompt_tokens", "output_tokens", "concurrency", "qps",
                 "budget", "currency", "region", "train_tokens", "deadline_s", "tco_years", "engine", "lora_rank",
                 "zero", "buy_or_rent", "wants_nvlink", "condition", "offload"):
        value = getattr(new, name)
        if value is not None:
            put(name, value)
    if new.concurrency is not None:
        merged.concurrency_avg = new.concurrency_avg
    if new.weights is not None and merged.task == "qlora" and new.weights not in ("nf4", "int4", "gptq-int4", "awq-int4"):
        put("task", "lora")  # "QLoRA … 改成 8bit": an 8-bit base is LoRA on a quantised base, not QLoRA
    if (new.weights is None and merged.weights is not None and merged.task in ("full", "pretrain", "freeze")
            and merged.weights not in ("bf16", "fp16", "fp32")):
        put("weights", None)  # an earlier turn's serving precision does not carry over to full training
    if new.weights is None and merged.task == "qlora" and merged.weights not in (None, "nf4", "int4"):
        put("weights", None)
    if new.excluded or new.excluded_vendors:
        put("excluded", sorted(set(old.excluded) | set(new.excluded)))
        put("excluded_vendors", sorted(set(old.excluded_vendors) | set(new.excluded_vendors)))
        merged.candidates = [c for c in merged.candidates if c.gpu not in merged.excluded]
    if new.capacity is not None:
        put("capacity", new.capacity)
    if new.existing is not None:
        put("existing", new.existing)
    if new.candidates:
        put("candidates", list(new.candidates))
    if new.gpu_count is not None:
        if new.existing is None and not new.candidates:
            if merged.existing is not None:
                put("existing", merged.existing.model_copy(update={"count": new.gpu_count}))
            elif merged.candidates:
                put("candidates", [c.model_copy(update={"count": new.gpu_count}) for c in merged.candidates])
            elif state.focus_gpu:
                put("candidates", [GpuMention(gpu=state.focus_gpu, count=new.gpu_count, text="")])
            else:
                put("gpu_count", new.gpu_count)
        else:
            for mention in ([merged.existing] if merged.existing else []) + list(merged.candidates):
                if mention.count is None:
                    mention.count = new.gpu_count
    state.slots = merged
    return changes


def observe(state: DialogState, text: str, lang: str = "en", catalog: Any = None) -> Slots:
    """Extraction and merge only (used in LLM mode so the state follows the conversation)."""
    slots = extract(text or "", catalog if catalog is not None else default_catalog(), pending=state.pending, lang=lang)
    if slots.reset:
        reset(state)
    elif not slots.empty:
        merge(state, slots)
    return slots


def reset(state: DialogState) -> None:
    fresh = DialogState()
    for name in type(state).model_fields:
        setattr(state, name, getattr(fresh, name))


# ----------------------------------------------------------------------------------------------------------------
# from slots to Workload / Constraints (defaults applied, each one stated)
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class Assumption:
    """One assumption, in both languages; `{name}` placeholders are numbers rendered (and recorded) by compose."""

    en: str
    zh: str
    numbers: dict[str, tuple[float, str, str]] = field(default_factory=dict)  # name -> (value, unit, source)


PRETRAIN_TOKENS = 1e10  # "train a 1B model on 100B tokens": only pre-training reads that many tokens (fine-tuning sets are far smaller)


def _task_of(slots: Slots) -> str | None:
    if slots.task:
        return slots.task
    if slots.task_generic == "finetune":
        return "lora"
    if slots.task_generic == "train" and (slots.train_tokens or 0) >= PRETRAIN_TOKENS:
        return "pretrain"
    return None


def build_workload(state: DialogState) -> tuple[Workload | None, list[Assumption]]:
    """The Workload the slots describe, with the defaults it needed (None when no model is known yet)."""
    s = state.slots
    notes: list[Assumption] = []
    if s.model is None:
        return None, notes
    task = _task_of(s) or "inference"
    if s.task is None and s.task_generic == "finetune":
        notes.append(Assumption("fine-tuning method not given: LoRA assumed", "未说明微调方式：按 LoRA 计算"))
    elif s.task is None:
        notes.append(Assumption("task not given: inference (serving) assumed", "未说明任务：按推理部署计算"))
    weights = s.weights
    if task == "qlora" and weights in (None, "int4"):
        weights = "nf4"
    if task in ("full", "pretrain", "freeze") and weights not in (None, "bf16", "fp16", "fp32"):
        notes.append(Assumption(f"full-weight training keeps the weights in BF16 mixed precision; {weights.upper()} "
                                "is a serving format here (FP8 training is not modelled)",
                                f"全参训练的权重按 BF16 混合精度计算；{weights.upper()} 在这里按部署格式处理（不估算 FP8 训练）"))
        weights = None
    if s.offload and task == "inference" and weights in (None, "int4"):
        weights = OFFLOAD_WEIGHTS  # layer offload is llama.cpp's: a GGUF file, the 4-bit one people run
        notes.append(Assumption(f"layer offload is llama.cpp's: GGUF {weights.upper()} weights assumed",
                                f"按层卸载是 llama.cpp 的功能：按 GGUF {weights.upper()} 权重计算"))
    if weights is None and task == "inference":
        native = default_weights(s.model)
        notes.append(Assumption(f"weights in {native.upper()}, the checkpoint's own precision",
                                f"权重按 {native.upper()} 计算（模型发布时的精度）"))
    context = s.context
    if context is None:
        context = default_context(default_catalog().find_model(s.model or "") if task == "inference" else None)
        notes.append(Assumption("context {ctx} per sequence", "每条序列上下文 {ctx}",
                                {"ctx": (context, "tokens", "advisor.workload.default_context")}))
    concurrency = s.concurrency
    if concurrency is None and s.qps:
        concurrency = max(1, math.ceil(s.qps * QPS_SECONDS_PER_REQUEST))
        notes.append(Assumption(
            "{qps} requests/s read as {conc} concurrent requests (Little's law with {w} per request)",
            "QPS {qps} 按 {conc} 路并发计算（利特尔定律，每个请求 {w}）",
            {"qps": (s.qps, "requests/s", "user input"), "conc": (concurrency, "sequences", "Little's law L = λ·W"),
             "w": (QPS_SECONDS_PER_REQUEST, "s", "dialog assumption")}))
    if concurrency is None:
        concurrency = 1
        if task == "inference":
            notes.append(Assumption("one request at a time (concurrency {n})", "单路请求（并发 {n}）",
                                    {"n": (1, "sequences", "dialog default")}))
    if s.concurrency_avg is not None and s.concurrency is not None and task == "inference":
        notes.append(Assumption("sized for the peak of {peak} concurrent requests (average {avg})",
                                "按高峰 {peak} 并发配置（平时 {avg}）",
                                {"peak": (s.concurrency, "sequences", "user input"),
                                 "avg": (s.concurrency_avg, "sequences", "user input")}))
    kwargs: dict[str, Any] = {"model": s.model, "task": task, "weights": weights, "context": context,
                              "concurrency": concurrency if task == "inference" else 1}
    if s.kv:
        kwargs["kv"] = s.kv
    if s.batch:
        kwargs["batch"] = s.batch
    if s.prompt_tokens:
        kwargs["prompt_tokens"] = min(s.prompt_tokens, context)
    if s.output_tokens:
        kwargs["output_tokens"] = min(s.output_tokens, context)
    if s.train_tokens and task != "inference":
        kwargs["train_tokens"] = s.train_tokens
    if s.engine:
        kwargs["engine"] = s.engine
    elif s.offload and task == "inference":
        kwargs["engine"] = "llama.cpp"
    if s.lora_rank and task in ("lora", "qlora"):
        kwargs["lora_rank"] = s.lora_rank
    if s.zero is not None and task != "inference":
        kwargs["zero"] = s.zero
    try:
        return Workload(**kwargs), notes
    except RecordError as exc:
        raise _input_error(exc) from None


def default_weights(model_id: str | None) -> str:
    """The serving precision the estimator assumes when none is given: the checkpoint's own (FP8 for DeepSeek-V3)."""
    spec = default_catalog().find_model(model_id) if model_id else None
    if spec is None:
        return "bf16"
    from advisor.estimator.memory import default_inference_format

    return default_inference_format(spec)


def build_constraints(state: DialogState, lang: str = "en") -> tuple[Constraints, list[Assumption]]:
    s = state.slots
    notes: list[Assumption] = []
    kwargs: dict[str, Any] = {}
    if s.budget:
        kwargs["budget"] = s.budget
        kwargs["currency"] = s.currency or ("CNY" if lang == "zh" else "USD")
    elif s.currency:
        kwargs["currency"] = s.currency
    else:
        kwargs["currency"] = "CNY" if lang == "zh" or s.region == "cn" else "USD"  # prices in the user's currency
    if s.region:
        kwargs["region"] = s.region
    elif lang == "zh":
        # the region question offers mainland China as the default to Chinese users: apply what it promises
        kwargs["region"] = "cn"
        notes.append(Assumption("region not given: mainland China assumed (only cards sold there)",
                                "未说明部署地区：按中国大陆计算（只考虑国内可买到的卡）"))
    if s.existing:
        kwargs["existing"] = ExistingGpus(gpu=s.existing.gpu, count=s.existing.count or 1)
    if s.candidates:
        kwargs["candidates"] = tuple(c.gpu for c in s.candidates)
    elif s.excluded or s.excluded_vendors:  # "国内买不到 A100", "no NVIDIA": search every other card
        vendors = {v.lower() for v in s.excluded_vendors}
        kwargs["candidates"] = tuple(g.id for g in default_catalog().gpus
                                     if g.id not in s.excluded and g.vendor.lower() not in vendors)
        notes.append(Assumption("left out as you asked: " + ", ".join(s.excluded + [v.upper() for v in vendors]),
                                "按您的要求不考虑：" + "、".join(s.excluded + [v.upper() for v in vendors])))
    if s.gpu_count and not s.existing and not s.candidates:
        kwargs["max_gpus_per_node"] = max(1, min(16, s.gpu_count))
        kwargs["max_nodes"] = 1
    if s.deadline_s:
        kwargs["deadline_s"] = s.deadline_s
    if s.buy_or_rent:
        kwargs["buy_or_rent"] = s.buy_or_rent
    if s.tco_years:
        kwargs["tco_years"] = s.tco_years
    if s.condition:
        kwargs["condition"] = s.condition
    try:
        return Constraints(**kwargs), notes
    except RecordError as exc:
        raise _input_error(exc) from None


def _input_error(exc: RecordError) -> InputError:
    err = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in err["loc"]) or "workload"
    msg = err["msg"].removeprefix("Value error, ")
    return InputError(f"{where}: {msg}", field=where, message_zh=f"参数 {where} 无效：{msg}")


def apply_workload(state: DialogState, workload: Workload | None) -> None:
    """Set the slots from a Workload (for drivers that build one themselves)."""
    s = state.slots
    if workload is None:
        for name in ("model", "task", "weights", "kv", "context", "concurrency", "train_tokens"):
            setattr(s, name, None)
        return
    s.model, s.task, s.weights, s.kv = workload.model, workload.task, workload.weights, workload.kv
    s.context, s.concurrency, s.batch = workload.context, workload.concurrency, workload.batch
    s.prompt_tokens, s.output_tokens = workload.prompt_tokens, workload.output_tokens
    s.train_tokens, s.engine = workload.train_tokens, workload.engine
    s.task_generic = None


def apply_constraints(state: DialogState, c: Constraints) -> None:
    s = state.slots
    s.budget, s.currency, s.region = c.budget, c.currency, c.region
    s.existing = GpuMention(gpu=c.existing.gpu, count=c.existing.count) if c.existing else None
    s.candidates = [GpuMention(gpu=g) for g in c.candidates]
    s.deadline_s, s.buy_or_rent = c.deadline_s, c.buy_or_rent


def workload_summary_dict(state: DialogState) -> dict[str, Any]:
    """The workload and constraints as understood, for Turn.workload (JSON-safe)."""
    out: dict[str, Any] = {}
    try:
        workload, _ = build_workload(state)
        if workload is not None:
            out["workload"] = workload.model_dump(mode="json", exclude_defaults=True) | {"model": workload.model,
                                                                                        "task": workload.task}
    except AdvisorError:
        pass
    try:
        constraints, _ = build_constraints(state)
        out["constraints"] = constraints.model_dump(mode="json", exclude_defaults=True)
    except AdvisorError:
        pass
    out["slots"] = state.slots.workload_fields() and state.slots.model_dump(mode="json", exclude_defaults=True)
    if state.pending:
        out["pending"] = state.pending
    return out


# ----------------------------------------------------------------------------------------------------------------
# questions
# ----------------------------------------------------------------------------------------------------------------
def missing_blocking(state: DialogState, implied_inference: bool = False) -> str | None:
    """The slot that blocks an answer (see the ask-versus-default rule in advisor.conversation.intent):
    `implied_inference` when this turn's question implies serving (feasibility, how many, a quantised format…)."""
    s = state.slots
    if s.model is None:
        return "model"
    if (_task_of(s) is None and "task" not in state.defaulted
            and not (implied_inference and s.task_generic is None)):
        return "task"
    return None


def next_question(state: DialogState) -> str | None:
    """The most useful slot still unknown, not yet asked and not defaulted (one at a time)."""
    s = state.slots
    task = _task_of(s) or "inference"
    order = NEXT_INFERENCE if task == "inference" else NEXT_TRAINING
    known = {
        "concurrency": s.concurrency is not None or s.qps is not None,
        "context": s.context is not None,
        "weights": s.weights is not None,
        "region": s.region is not None,
        "budget": s.budget is not None or s.existing is not None,
        "output_tokens": s.output_tokens is not None,
        "train_tokens": s.train_tokens is not None,
        "deadline": s.deadline_s is not None or s.train_tokens is None,
    }
    for slot in order:
        if known.get(slot) or slot in state.asked or slot in state.defaulted:
            continue
        if task != "inference" and slot == "region" and s.existing is not None:
            continue
        return slot
    return None


def accept_default(state: DialogState, slot: str, lang: str) -> None:
    """"默认/default" for `slot`: fill it with the default the question offered."""
    s = state.slots
    if slot == "model":
        s.model = DEFAULT_MODEL
        s.model_assumed = "default"
    elif slot == "task":
        if s.task_generic == "train":
            s.task, s.task_generic = "lora", None
        else:
            s.task = "inference"
    elif slot == "region":
        s.region = "cn" if lang == "zh" else "global"
    if slot not in state.defaulted:
        state.defaulted.append(slot)


# ----------------------------------------------------------------------------------------------------------------
# the catalog every turn reads
# ----------------------------------------------------------------------------------------------------------------
_CATALOG: Any = None


def default_catalog() -> Any:
    """The package catalog, loaded on first use and kept for the process (what a driver without its own uses)."""
    global _CATALOG
    if _CATALOG is None:
        from knowledge.catalog import load_catalog

        _CATALOG = load_catalog()
    return _CATALOG


# ----------------------------------------------------------------------------------------------------------------
# computing the answer (the same tools the agent calls)
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class ConfigResult:
    """One hardware configuration evaluated for the workload."""

    gpu: Any  # GpuSpec
    count: int
    role: str  # "existing", "candidate", "fit" (found by the search), "recommended"
    memory: Any = None  # MemoryEstimate
    fits: bool = False
    layout: str = ""
    workload: Workload | None = None
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ClaimCheck:
    claim: Any  # extract.Claim
    weights_bytes: int
    kv_bytes: int
    total_bytes: int
    fmt: str
    context: int
    verdict: str  # "too_low", "weights_only", "plausible"
    guide_claim: Any = None  # knowledge.guides.Claim the user is quoting, when one matches
    findings: list[Any] = field(default_factory=list)  # the claims rules' findings for it


@dataclass
class Evaluation:
    workload: Workload
    constraints: Constraints
    model: Any  # ModelSpec
    need: Any = None  # MemoryEstimate on one GPU with no card (the job's memory need)
    configs: list[ConfigResult] = field(default_factory=list)
    recommendation: Any = None  # advisor.recommend.Recommendation
    user_options: list[Any] = field(default_factory=list)  # recommend.Option for each configuration the user named
    findings: list[Any] = field(default_factory=list)
    claim: ClaimCheck | None = None
    assumptions: list[Assumption] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)  # tools not available in this build
    alternatives: list[Any] = field(default_factory=list)  # options beyond the named cards when none of them works
    alternatives_within: int | None = None  # the alternatives were searched within this many GPUs (one server)
    average_speed: dict[str, float] | None = None  # the leading option's speed at the user's average concurrency
    limits: Limits | None = None  # how far the user's own (or one named) configuration stretches
    capacity: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)  # (gpu, count) -> at full load
    premise: list[Any] = field(default_factory=list)  # findings on what the user assumes (NVLink on a 4090)
    named_changes: list[Any] = field(default_factory=list)  # what would make the one configuration named work
    named_config: Any = None  # that configuration (recommend.Option)
    intent: str = "other"  # what the question asks (advisor.conversation.intent)
    asks_users: bool = False  # "how many users can it serve?" (intent how_many about concurrency, not GPUs)
    asks_need: bool = False  # "how much memory does it need?" (intent explain: the total need, unsharded)
    offload: Any = None  # the llama.cpp layer-offload option on the one card named (advisor.recommend_offload)
    offload_asked: bool = False  # the user asked about offload: the answer leads with it


@dataclass
class Limits:
    """How far one configuration the user named stretches, from advisor.estimator.memory.estimate_memory with the
    configuration's own layout: the longest context (multiples of CONTEXT_STEP, by bisection) at the asked
    micro-batch or concurrency, and the largest micro-batch (training) or concurrency (inference) at the asked
    context, with the speed there."""

    option: Any  # advisor.recommend.Option of that configuration
    training: bool
    context: int  # tokens per sequence as asked
    load: int  # micro-batch per GPU (training) or concurrent sequences (inference) as asked
    max_context: int  # longest context that fits at `load`; 0: none, not even CONTEXT_STEP tokens
    context_cap: int  # the search stopped here (the model's maximum context)
    max_load: int  # largest micro-batch / concurrency at `context`; 0: none
    single_context: int = 0  # when nothing fits at `load` > 1: the longest context of one sequence (micro-batch 1)
    tokens_per_s: float | None = None  # training tokens/s of the configuration as asked
    at_max: dict[str, float] | None = None  # inference at max_load: per-sequence and total decode tokens/s


def _timed(steps: list[Step], name: str, arguments: dict[str, Any], fn: Callable[[], Any],
           summary: Callable[[Any], str] = lambda r: "") -> Any:
    start = time.perf_counter()
    try:
        result = fn()
    except AdvisorError as exc:
        steps.append(Step(name=name, arguments=arguments, duration_s=time.perf_counter() - start, ok=False,
                          summary=str(exc)))
        raise
    steps.append(Step(name=name, arguments=arguments, duration_s=time.perf_counter() - start, ok=True,
                      summary=summary(result)))
    return result


def evaluate(workload: Workload, constraints: Constraints, state: DialogState, catalog: Any,
             steps: list[Step]) -> Evaluation:
    """Run the tools for this workload: the memory need, the user's own configurations exactly as named
    (`advisor.recommend.evaluate_configs`), the recommender's search and the rules it applies. When the
    recommender is missing or broken, the estimator alone answers (memory only) and the answer says so."""
    from advisor.estimator.memory import estimate_memory

    model = catalog.model(workload.model)
    ev = Evaluation(workload=workload, constraints=constraints, model=model)
    ev.need = _timed(steps, "estimate_memory", {"model": model.id, "task": workload.task},
                     lambda: estimate_memory(model, workload),
                     lambda r: f"{r.per_gpu.total / 2**30:.1f} GiB on one GPU")
    s = state.slots
    named: list[tuple[GpuMention, str]] = []
    if s.existing:
        named.append((s.existing, "existing"))
    named += [(c, "candidate") for c in s.candidates]
    ev.recommendation = _recommend(workload, constraints, steps, ev)
    if ev.recommendation is not None:
        exact = [(m, role) for m, role in named if m.count or role == "existing"]
        if exact:
            ev.user_options = _evaluate_named(workload, constraints, exact, steps, ev)
        for mention, role in named:  # a card named without a count: the search's smallest fitting count
            if mention.count or role == "existing":
                continue
            found = next((o for o in ev.recommendation.options + ev.recommendation.closest if o.gpu == mention.gpu), None)
            if found is not None:
                ev.user_options.append(found.model_copy(update={"labels": list(found.labels) + ["candidate"]}))
            elif constraints.region == "cn":
                # a card a China-market rule rules out ("H800 集群") leaves the search empty-handed: size it as if
                # it could be bought, then show it at that count with the rule's finding, beside what can be bought
                probe = _recommend(workload, constraints.model_copy(update={"region": "global", "candidates": (mention.gpu,),
                                                                            "budget": None}), steps, ev)
                hit = next((o for o in (probe.options + probe.closest if probe else []) if o.gpu == mention.gpu), None)
                if hit is not None:
                    ev.user_options += _evaluate_named(workload, constraints, [(mention.model_copy(
                        update={"count": hit.count}), role)], steps, ev)
        lone = [m for m, role in named if role == "candidate" and m.count]
        if not s.existing and len(lone) == 1:
            # "one RTX 3060 12GB, does it work?": what would make that configuration work, checked on it as the
            # recommender checks the user's own cards (review R33), even when other configurations work
            shown = next((o for o in ev.user_options if o.gpu == lone[0].gpu and o.count == lone[0].count), None)
            if shown is not None and not shown.fits:
                probe = _recommend(workload, constraints.model_copy(update={
                    "existing": ExistingGpus(gpu=lone[0].gpu, count=lone[0].count), "candidates": ()}), steps, ev)
                if probe is not None:
                    ev.named_changes = [ch for ch in probe.changes if ch.for_existing]
                    ev.named_config = shown
                    ev.offload = _offload_of(probe)
        count_only = next((m for m, role in named if role == "candidate" and m.count and not m.text), None)
        if count_only is not None and not any(o.meets_targets for o in ev.user_options):
            # "what if we only have four cards?": the leading card at that count does not work; what does, in as
            # many cards of any kind (not more cards of the same one)
            n = max(1, min(16, count_only.count))
            fewer = _recommend(workload, constraints.model_copy(update={"candidates": (), "max_gpus_per_node": n,
                                                                        "max_nodes": 1}), steps, ev)
            if fewer is not None:
                ev.alternatives = [o for o in fewer.options if o.meets_targets and o.count <= n][:3]
                ev.alternatives_within = n
        elif s.candidates and constraints.candidates and not any(o.meets_targets for o in ev.recommendation.options + ev.user_options):
            # none of the named cards works (too small, blocked in the region): what the whole catalog offers
            wider = _recommend(workload, constraints.model_copy(update={"candidates": ()}), steps, ev)
            if wider is not None:
                ev.alternatives = [o for o in wider.options if o.meets_targets][:3]
        ev.offload = ev.offload or _offload_of(ev.recommendation)
        ev.offload_asked = bool(s.offload) and ev.offload is not None
    if ev.recommendation is None:
        for mention, role in named:
            gpu = catalog.gpu(mention.gpu)
            count = mention.count or (1 if role == "existing" else _smallest_count(model, workload, gpu))
            ev.configs.append(_evaluate_config(model, workload, gpu, count, role, steps))
        if not ev.configs:
            ev.configs = _search(model, workload, constraints, catalog, steps)
    if s.claim is not None:
        ev.claim = _check_claim(model, workload, s.claim, steps)
    ev.premise = premise_findings(s, catalog, steps)
    avg = s.concurrency_avg
    if ev.recommendation is not None and workload.task == "inference" and avg and avg < workload.concurrency:
        lead = top_option(ev) or next((o for o in ev.user_options if o.fits), None)
        if lead is not None:
            ev.average_speed = _speed_at(model, catalog.gpu(lead.gpu), lead, avg, steps)
    if ev.recommendation is not None:
        own = next((o for o in ev.user_options if "existing" in o.labels), None)
        one = own or (ev.user_options[0] if len(ev.user_options) == 1 else None)
        if one is not None:
            ev.limits = _limits(model, catalog.gpu(one.gpu), one, workload, steps)
    if (ev.recommendation is not None and workload.task == "inference" and s.concurrency is None
            and s.qps is None):
        # no concurrency given: the tables' speeds are for one user; each option's capacity and speed at it
        mine = ev.limits.option if ev.limits is not None else None
        for o in ev.user_options + ev.alternatives + ev.recommendation.options[:4]:
            key = (o.gpu, o.count)
            if o is mine or key in ev.capacity or not o.fits:
                continue
            cap = _capacity(model, catalog.gpu(o.gpu), o, steps)
            if cap is not None:
                ev.capacity[key] = cap
    ev.findings = _rules(ev, steps)
    return ev


def _speed_at(model: Any, gpu: Any, option: Any, concurrency: int, steps: list[Step]) -> dict[str, float] | None:
    """Decode speed of a recommended configuration at another concurrency (the user's average next to the peak it
    was sized for), with the recommender's layout (advisor.estimator.throughput)."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.throughput import estimate_throughput

    sized = getattr(option, "sized_workload", None)
    if sized is None:
        return None
    w = sized.model_copy(update={"concurrency": concurrency})
    count = option.count if w.pp == 1 else w.tp
    t = _timed(steps, "estimate_throughput", {"gpu": gpu.id, "count": option.count, "concurrency": concurrency},
               lambda: estimate_throughput(model, gpu, count, w, load_calibration(), with_capacity=False),
               lambda r: f"{r.decode_tokens_per_s:.1f} tokens/s per sequence at {concurrency}")
    return {"concurrency": float(concurrency), "per_seq": t.decode_tokens_per_s, "total": t.decode_tokens_per_s_total}


MAX_BATCH_SEARCH = 4096  # micro-batches searched up to this


def _capacity(model: Any, gpu: Any, option: Any, steps: list[Step]) -> dict[str, Any] | None:
    """A serving option at full load: the most concurrent sequences at its context (`_most_sequences`), the decode
    speed there (advisor.estimator.throughput.estimate_throughput) and the owned cost per million tokens at that
    speed (advisor.estimator.cost.estimate_tco, the option's own currency and years). None when it does not fit."""
    sized = getattr(option, "sized_workload", None)
    if sized is None or not option.fits:
        return None
    start = time.perf_counter()
    n = _most_sequences(gpu, option, fits_with(model, gpu, sized))
    steps.append(Step(name="capacity", arguments={"gpu": gpu.id, "count": option.count, "context": sized.context},
                      duration_s=time.perf_counter() - start, summary=f"{n} sequences fit"))
    if n < 1:
        return None
    speed = _speed_at(model, gpu, option, min(n, 100_000), steps)
    if speed is None:
        return None
    out: dict[str, Any] = {"max_concurrency": n, "per_seq": speed["per_seq"], "total": speed["total"]}
    tco = option.tco or {}
    if tco.get("tco"):
        from advisor.estimator.calibration import load_economics
        from advisor.estimator.cost import estimate_tco

        try:
            t = estimate_tco(gpu, option.count, load_economics(), years=tco.get("years"),
                             currency=tco["tco"]["currency"], tokens_per_s=speed["total"])
            cpm = t.to_contract().get("cost_per_million_tokens") or {}
            out["cost_per_million"] = cpm.get("owned")
        except AdvisorError:
            pass
    return out


def _most_sequences(gpu: Any, option: Any, fits: Callable[..., bool]) -> int:
    """Most concurrent sequences at the option's context, over all its replicas (advisor.estimator.limits)."""
    est, w = option.memory_estimate, option.sized_workload
    return most_sequences(est, w, gpu, max(1, int((option.layout or {}).get("dp", 1))), fits)


def _limits(model: Any, gpu: Any, option: Any, workload: Workload, steps: list[Step]) -> Limits | None:
    """The longest context and the largest micro-batch / concurrency that fit on `option` (the user's own or one
    named configuration), each at the other as asked, with its own layout (advisor.estimator.memory.estimate_memory,
    bisection; contexts in steps of CONTEXT_STEP tokens up to the model's maximum). Inference also gets the decode
    speed at the largest concurrency (advisor.estimator.throughput.estimate_throughput)."""
    w = getattr(option, "sized_workload", None)
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
        tokens_per_s = (option.training or {}).get("tokens_per_s")
    else:
        load = workload.concurrency  # all replicas (the sized workload holds one replica's share)
        max_load = _most_sequences(gpu, option, fits)
    steps.append(Step(name="largest_fit", arguments={"gpu": gpu.id, "count": option.count, "context": w.context,
                                                      "step_tokens": CONTEXT_STEP},
                      duration_s=time.perf_counter() - start,
                      summary=f"longest context {longest} tokens; largest {'micro-batch' if training else 'concurrency'} "
                              f"{max_load}"))
    if not training and max_load:
        at_max = _speed_at(model, gpu, option, min(int(max_load), 100_000), steps)
    return Limits(option=option, training=training, context=w.context, load=int(load), max_context=longest,
                  context_cap=cap, max_load=int(max_load), single_context=single, tokens_per_s=tokens_per_s,
                  at_max=at_max)


def _offload_of(rec: Any) -> Any:
    """The recommender's llama.cpp layer-offload option (one named card that cannot hold the model), or None."""
    return next((o for o in list(rec.options) + list(rec.closest) if "offload" in o.labels), None)


def _evaluate_named(workload: Workload, constraints: Constraints, named: list[tuple[GpuMention, str]],
                    steps: list[Step], ev: Evaluation) -> list[Any]:
    from advisor.recommend import evaluate_configs

    configs = [(m.gpu, m.count or 1) for m, _ in named]
    widest = max(n for _, n in configs)
    c = constraints
    if widest > c.max_gpus_per_node * c.max_nodes:
        c = c.model_copy(update={"max_nodes": -(-widest // c.max_gpus_per_node)})
    options = _timed(steps, "evaluate_configs", {"model": workload.model, "configs": configs},
                     lambda: evaluate_configs(workload, configs, c),
                     lambda r: ", ".join(f"{o.count}× {o.gpu}: {'fits' if o.fits else 'does not fit'}" for o in r))
    out = []
    for opt, (_, role) in zip(options, named, strict=True):
        labels = [lab for lab in opt.labels if lab != role] + [role]
        out.append(opt.model_copy(update={"labels": labels}))
    return out


def _layouts(model: Any, workload: Workload, count: int) -> list[dict[str, Any]]:
    """Layouts to try for `count` GPUs on one node: inference shards by tensor parallelism (pipeline when the
    heads do not divide); training tries data parallelism with ZeRO 0→3 (ZeRO-3 first for full/pretrain)."""
    if count == 1:
        return [{"gpus": 1}]
    if workload.task == "inference":
        heads = model.num_attention_heads
        tp = max(d for d in range(1, count + 1) if count % d == 0 and heads % d == 0)
        return [{"gpus": count, "tp": tp, "pp": count // tp}]
    stages = (workload.zero,) if workload.zero else (1, 2, 3)
    return [{"gpus": count, "zero": z} for z in stages]


def _layout_text(w: Workload) -> str:
    if w.task == "inference":
        return f"TP {w.tp}" + (f" × PP {w.pp}" if w.pp > 1 else "") if w.gpus > 1 else "1 GPU"
    return f"DP {w.gpus}, ZeRO-{w.zero}" if w.gpus > 1 else "1 GPU"


def _evaluate_config(model: Any, workload: Workload, gpu: Any, count: int, role: str,
                     steps: list[Step]) -> ConfigResult:
    from advisor.estimator.memory import estimate_memory

    result = ConfigResult(gpu=gpu, count=count, role=role)
    last: tuple[Any, Workload] | None = None
    for layout in _layouts(model, workload, count):
        try:
            w = workload.model_copy(update=layout)
            w = Workload.model_validate(w.model_dump())
            mem = _timed(steps, "estimate_memory", {"model": model.id, "gpu": gpu.id, "count": count, **layout},
                         lambda w=w: estimate_memory(model, w, gpu),
                         lambda r: f"{r.per_gpu.total / 2**30:.1f} GiB per GPU")
        except (AdvisorError, RecordError) as exc:
            result.error = str(exc)
            continue
        last = (mem, w)
        if mem.fits(gpu):
            break
    if last is not None:
        result.memory, result.workload = last
        result.fits = bool(last[0].fits(gpu))
        result.layout = _layout_text(last[1])
    return result


def _smallest_count(model: Any, workload: Workload, gpu: Any) -> int:
    from advisor.estimator.memory import estimate_memory

    for count in SERVE_COUNTS:
        for layout in _layouts(model, workload, count):
            try:
                w = Workload.model_validate({**workload.model_dump(), **layout})
                if estimate_memory(model, w, gpu).fits(gpu):
                    return count
            except (AdvisorError, RecordError):
                continue
    return SERVE_COUNTS[-1]


def _search(model: Any, workload: Workload, constraints: Constraints, catalog: Any,
            steps: list[Step]) -> list[ConfigResult]:
    """Until the recommender is available: the smallest count of each card that fits, fewest GPUs first."""
    found: list[ConfigResult] = []
    for gpu in catalog.gpus:
        if constraints.region == "cn" and gpu.china.status in ("restricted", "not_sold"):
            continue
        for count in SERVE_COUNTS:
            if count > constraints.max_gpus_per_node:
                break
            local: list[Step] = []
            r = _evaluate_config(model, workload, gpu, count, "fit", local)
            if r.fits:
                found.append(r)
                break
    found.sort(key=lambda r: (r.count, r.gpu.memory_bytes * r.count, r.gpu.tdp_w))
    steps.append(Step(name="search_configurations", arguments={"model": model.id, "region": constraints.region},
                      summary=f"{len(found)} cards fit"))
    return found[:3]


def _recommend(workload: Workload, constraints: Constraints, steps: list[Step], ev: Evaluation) -> Any:
    """The recommender's ranked options; None (and a note) when it is missing or fails on something other
    than the user's input, so the memory-only answer still comes through."""
    try:
        from advisor.recommend import recommend
    except ImportError:
        ev.unavailable.append("recommend")
        return None
    try:
        return _timed(steps, "recommend", {"model": workload.model, "task": workload.task,
                                           "region": constraints.region},
                      lambda: recommend(workload, constraints))
    except (InputError, NotValidated):  # the rules could not be checked: say so, never answer unchecked
        raise
    except Exception as exc:  # noqa: BLE001 - a broken tool must not cost the user the answer
        log.warning("recommend failed; answering from the memory estimator: %s", exc)
        ev.unavailable.append("recommend")
        return None


def _rules(ev: Evaluation, steps: list[Step]) -> list[Any]:
    """Findings to show: the top configuration's (rule metadata renders wording and citation), then the
    workload's own (guide tiers, size tables), each rule once; warnings before information."""
    if ev.recommendation is None:
        if "rules" not in ev.unavailable:
            ev.unavailable.append("rules")
        return list(ev.premise) + (list(ev.claim.findings) if ev.claim is not None else [])
    top = top_option(ev)
    found = list(ev.premise) + list(ev.claim.findings if ev.claim is not None else [])
    found += list(top.findings if top is not None else []) + list(ev.recommendation.findings)
    seen: set[str] = set()
    out = []
    for f in found:
        if f.rule_id not in seen:
            seen.add(f.rule_id)
            out.append(f)
    order = {"block": 0, "warn": 1, "info": 2}
    return sorted(out, key=lambda f: order.get(f.severity, 3))


def top_option(ev: Evaluation) -> Any:
    """The option the answer leads with: the best of the user's own configurations that fit, else the
    recommender's first; None when nothing fits."""
    if ev.user_options:
        ok = [o for o in ev.user_options if o.fits and o.meets_targets]
        pool = ok or [o for o in ev.user_options if o.fits]
        if pool:
            def key(o: Any) -> tuple[float, float]:
                price = o.price["amount"] * o.count if o.price else math.inf
                speed = -(o.training or {}).get("wall_s", 0.0) if o.training else (o.throughput or {}).get(
                    "decode_tokens_per_s_total") or 0.0
                return (price, -speed) if ok else (-speed, price)
            return min(pool, key=key)
        return None
    rec = ev.recommendation
    if rec is not None and rec.options:
        return rec.options[0]
    return None


def _check_claim(model: Any, workload: Workload, claim: Any, steps: list[Step]) -> ClaimCheck:
    """Weights (and KV cache at the stated context) for the quoted configuration, against the quoted figure."""
    from advisor.estimator.memory import estimate_memory

    w = Workload.model_validate({**workload.model_dump(), "gpus": 1, "tp": 1, "pp": 1, "task": "inference",
                                 "concurrency": 1, "batch": 1,
                                 "weights": workload.weights if workload.task == "inference" else None})
    mem = _timed(steps, "check_claim", {"model": model.id, "weights": w.weights or "bf16", "claim": claim.text},
                 lambda: estimate_memory(model, w), lambda r: f"weights {r.per_gpu.weights / 1e9:.1f} GB")
    weights, kv = mem.per_gpu.weights, mem.per_gpu.kv_cache
    if claim.bytes_if_gib < weights:
        verdict = "too_low"
    elif claim.bytes_if_gib < mem.per_gpu.total:
        verdict = "weights_only"
    else:
        verdict = "plausible"
    check = ClaimCheck(claim=claim, weights_bytes=weights, kv_bytes=kv, total_bytes=mem.per_gpu.total,
                       fmt=w.weights or "bf16", context=w.context, verdict=verdict)
    try:
        check.guide_claim = match_guide_claim(claim.value, claim.unit, w.weights or "bf16", float(mem.params))
        if check.guide_claim is not None:
            from rules.engine import evaluate as evaluate_rules
            from rules.facts import ClaimFacts

            facts = ClaimFacts.from_claim(check.guide_claim).to_facts()
            check.findings = _timed(steps, "explain_claim", {"claim": check.guide_claim.id},
                                    lambda: evaluate_rules([facts]),
                                    lambda r: f"{check.guide_claim.id}: {check.guide_claim.verdict}")
    except ImportError:
        pass
    return check


_VERIFY = re.compile(r"文章|教程|指南|攻略|博客|网上|据说|听说|号称|宣称|说|对吗|对不对|是真的|真的吗|正确吗|准确吗|靠谱吗|吗|"
                     r"\bguide\b|\barticle\b|\bblog\b|\bclaims?\b|\bsays?\b|\bsaid\b|according to|is (?:that|it|this) "
                     r"(?:right|true|correct|accurate)|\breally\b|\?|？")
_SPEC_NUMBER = re.compile(r"(?<![\d.])(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<scale>万|亿|k\b|m\b|million)?\s*"
                          r"(?P<unit>tflops|tops|tb/s|gb/s|tbps|gbps|元|块|人民币|rmb|cny|瓦|w\b)?", re.I)
_UNIT_OF = {"tflops": "TFLOPS", "tops": "TOPS", "tb/s": "GB/s", "tbps": "GB/s", "gb/s": "GB/s", "gbps": "GB/s",
            "元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "瓦": "W", "w": "W"}
_KEYWORD_CLAIMS = {"nvlink": re.compile(r"nvlink|nv\s*link|桥接"), "architecture": re.compile(r"ada|lovelace|架构")}


def _gpu_family(gpu_id: str) -> str:
    """"h100-pcie" and "h100-sxm" -> "h100"; "rtx-4090" stays (but is not "rtx-4090d")."""
    parts = gpu_id.split("-")
    return "-".join(parts[:2]) if parts[0] == "rtx" else parts[0]


def match_spec_claim(text: str, slots: Slots) -> Any:
    """The guide claim about a GPU's specification or price that `text` quotes or asks about ("H100 的 FP16 是 1513
    TFLOPS 吗", "A800 一张卡要 170 万吗", "two 4090s over NVLink"): same card family and the same figure (±2 %,
    units converted), or for NVLink/architecture claims the keyword. None when nothing matches."""
    from advisor.conversation.extract import normalise
    from knowledge.guides import load_guides

    mentioned = {_gpu_family(m.gpu) for m in ([slots.existing] if slots.existing else []) + list(slots.candidates)}
    s = normalise(text)
    if not mentioned or not _VERIFY.search(s):
        return None
    figures: list[tuple[float, str | None]] = []
    for m in _SPEC_NUMBER.finditer(s):
        value = float(m.group("num").replace(",", ""))
        scale = (m.group("scale") or "").lower()
        value *= {"万": 1e4, "亿": 1e8, "k": 1e3, "m": 1e6, "million": 1e6}.get(scale, 1.0)
        unit = _UNIT_OF.get((m.group("unit") or "").lower())
        if (m.group("unit") or "").lower() in ("tb/s", "tbps"):
            value *= 1000.0
        if unit is None and scale in ("万", "亿"):
            unit = "CNY"
        figures.append((value, unit))
    budget = re.search(r"预算|budget|花费|不超过|控制在", s)
    best = None
    for c in load_guides().claims:
        spec_gpus = {_gpu_family(g) for g in c.gpus}
        if not spec_gpus & mentioned:
            continue
        v, unit = c.claimed.value, c.claimed.unit
        hit = False
        if isinstance(v, (int, float)) and not isinstance(v, bool) and unit in ("TFLOPS", "TOPS", "GB/s", "CNY", "W"):
            if unit == "CNY" and budget:
                continue
            hit = any(abs(x - float(v)) <= 0.02 * float(v) and (u is None or u == unit or {u, unit} <= {"TFLOPS", "TOPS"})
                      for x, u in figures)
        elif c.check in _KEYWORD_CLAIMS:
            hit = bool(_KEYWORD_CLAIMS[c.check].search(s))
        if hit and (best is None or (c.design_error and not best.design_error)):
            best = c
    return best


def premise_findings(slots: Slots, catalog: Any, steps: list[Step]) -> list[Any]:
    """Rule findings on what the user's plan takes for granted: the cards joined over NVLink (`wants_nvlink`) when
    a card named has none ("two 4090s with NVLink"). The rules engine decides, on ConfigFacts with and without
    `wants_nvlink`; only what the premise adds is kept (cap-no-nvlink), one finding per rule."""
    if not slots.wants_nvlink:
        return []
    from rules.engine import evaluate as evaluate_rules
    from rules.facts import ConfigFacts

    out: list[Any] = []
    for mention in ([slots.existing] if slots.existing else []) + list(slots.candidates):
        gpu = catalog.find_gpu(mention.gpu) if hasattr(catalog, "find_gpu") else catalog.gpu(mention.gpu)
        if gpu is None or gpu.nvlink_bytes_per_s > 0:
            continue
        count = max(2, mention.count or 2)  # NVLink joins at least two cards
        base = {f.rule_id for f in evaluate_rules([ConfigFacts.from_gpu(gpu, count=count).to_facts()])}
        added = _timed(steps, "check_premise", {"gpu": gpu.id, "count": count, "wants_nvlink": True},
                       lambda gpu=gpu, count=count: evaluate_rules(
                           [ConfigFacts.from_gpu(gpu, count=count, wants_nvlink=True).to_facts()]),
                       lambda r: ", ".join(f.rule_id for f in r) or "no finding")
        out += [f for f in added if f.rule_id not in base and all(f.rule_id != o.rule_id for o in out)]
    return out


def claim_findings(claim: Any, steps: list[Step]) -> list[Any]:
    """The claims rules' findings for a guide claim (wording and citation from the rule metadata)."""
    from rules.engine import evaluate as evaluate_rules
    from rules.facts import ClaimFacts

    facts = ClaimFacts.from_claim(claim).to_facts()
    return _timed(steps, "explain_claim", {"claim": claim.id}, lambda: evaluate_rules([facts]),
                  lambda r: f"{claim.id}: {claim.verdict}")


_FORMAT_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "gptq-int8": 8, "bnb-int8": 8, "q8_0": 8,
                "int4": 4, "gptq-int4": 4, "awq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4}


def match_guide_claim(value: float, unit: str, weights: str, params: float) -> Any:
    """The guide claim (knowledge/data/guides/claims.yaml) a user is quoting: same memory figure (±2 %), and,
    where the claim states them, the same precision bits and a model size within 15 %. None when none matches."""
    from knowledge.guides import load_guides

    bits = _FORMAT_BITS.get(weights)
    best = None
    for c in load_guides().claims:
        if c.claimed.unit not in ("GB", "GiB") or not isinstance(c.claimed.value, (int, float)):
            continue
        if abs(float(c.claimed.value) - value) > 0.02 * value:
            continue
        d = c.details or {}
        if "bits" in d and bits is not None and int(d["bits"]) != bits:
            continue
        if "params_b" in d and abs(float(d["params_b"]) * 1e9 / params - 1) > 0.15:
            continue
        score = ("bits" in d) + ("params_b" in d)
        if best is None or score > best[0]:
            best = (score, c)
    return best[1] if best else None
