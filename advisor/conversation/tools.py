"""The advisor's tool surface: typed tools over the estimator, recommender, rules and catalog.

Both conversation drivers use it. Each tool is a plain function of a pydantic argument model; call any of them
by name with :func:`call_tool`, which validates the arguments, runs the tool, times it and never raises: an
invalid call returns a `ToolResult` with `ok=False` and a readable error naming the field and what is accepted.

A result holds what the model sees (`data`: a summary, the numbers with units and display strings, formulas,
assumptions, findings from rule metadata) and what the interfaces need beyond it (`artifact`: options table,
memory breakdown for the chart). Numbers are SI (bytes, seconds, FLOP/s, W; money with its currency); display
strings give GiB and GB side by side (1 GiB = 2^30 B, 1 GB = 1e9 B).

The LangChain wrappers (:func:`langchain_tools`) are built lazily, so importing this module does not import
LangChain. The agent never lets LangChain execute a tool itself: it routes every call through
:func:`call_tool` (complete mediation), so a name outside :data:`ALLOWED` is refused in code.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from advisor.conversation.prompts import SLOTS
from advisor.conversation.turn import Number, Step
from advisor.workload import (
    DEFAULT_CONTEXT,
    Currency,
    KvFormat,
    Optimizer,
    Recompute,
    Region,
    Task,
    WeightFormat,
    Workload,
)
from knowledge.errors import AdvisorError, NotValidated
from knowledge.record import Record, RecordError
from knowledge.record_pydantic import pydantic_model
from rules.findings import Finding

if TYPE_CHECKING:
    from advisor.analysis.request import AnalysisRequest
    from knowledge.catalog import Catalog

log = logging.getLogger(__name__)

GIB = 2**30
MAX_FORMULAS = 8
MAX_ASSUMPTIONS = 8


# ==============================================================================================================
# Results
# ==============================================================================================================

@dataclass
class ToolOutput:
    """What a tool function returns (call_tool wraps it into a ToolResult)."""

    summary: str
    data: dict[str, Any]
    numbers: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    artifact: dict[str, Any] = field(default_factory=dict)


@dataclass
class ToolResult:
    name: str
    ok: bool
    arguments: dict[str, Any]
    data: dict[str, Any]
    summary: str = ""
    numbers: list[dict[str, Any]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    artifact: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    error: str = ""

    def content(self) -> str:
        """The JSON the model reads (compact, UTF-8)."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str)

    def step(self) -> Step:
        return Step(name=self.name, arguments=_jsonable(self.arguments), duration_s=round(self.duration_s, 6),
                    ok=self.ok, summary=self.summary if self.ok else f"error: {self.error}")

    def turn_numbers(self) -> list[Number]:
        return [to_number(n) for n in self.numbers]


def to_number(n: Mapping[str, Any]) -> Number:
    return Number(name=str(n["name"]), value=float(n["value"]), unit=str(n["unit"]), source=str(n.get("source", "")))


def num(name: str, value: float, unit: str, source: str, display: str | None = None) -> dict[str, Any]:
    """A number with its unit, a display string and where it came from."""
    value = float(value)
    return {"name": name, "value": _round_sig(value), "unit": unit, "display": display or _display(value, unit),
            "source": source}


def _round_sig(x: float, digits: int = 10) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    if abs(x) >= 1e6 and float(x).is_integer():
        return x
    return float(f"{x:.{digits}g}")


# ==============================================================================================================
# Display (the only place numbers are formatted for the model)
# ==============================================================================================================

def fmt_bytes(b: float) -> str:
    """"131.4 GiB (141.1 GB)"; MiB/MB below 1 GiB."""
    if abs(b) < GIB:
        return f"{b / 2**20:,.1f} MiB ({b / 1e6:,.1f} MB)"
    return f"{b / GIB:,.1f} GiB ({b / 1e9:,.1f} GB)"


def fmt_bandwidth(bps: float) -> str:
    return f"{bps / 1e12:,.2f} TB/s" if bps >= 1e12 else f"{bps / 1e9:,.0f} GB/s"


def fmt_flops(f: float) -> str:
    return f"{f / 1e15:,.2f} PFLOPS" if f >= 1e16 else f"{f / 1e12:,.1f} TFLOPS"


def fmt_tokens_s(x: float) -> str:
    return f"{x:,.0f} tokens/s" if x >= 100 else f"{x:,.1f} tokens/s"


def fmt_seconds(s: float) -> str:
    if s < 1:
        return f"{s * 1000:,.0f} ms" if s >= 0.01 else f"{s * 1000:,.2f} ms"
    if s < 120:
        return f"{s:,.1f} s"
    if s < 7200:
        return f"{s / 60:,.1f} min"
    if s < 3 * 86400:
        return f"{s / 3600:,.1f} hours"
    return f"{s / 86400:,.1f} days"


def fmt_money(amount: float, currency: str) -> str:
    symbol = "¥" if currency == "CNY" else "$"
    digits = 2 if abs(amount) < 100 else 0
    return f"{symbol}{amount:,.{digits}f} {currency}"


def fmt_count(n: float, unit: str = "") -> str:
    tail = f" {unit}" if unit else ""
    if abs(n) >= 1e9:
        return f"{n / 1e9:,.2f}B{tail}"
    if abs(n) >= 1e6:
        return f"{n / 1e6:,.1f}M{tail}"
    return f"{n:,.0f}{tail}" if float(n).is_integer() else f"{n:,.3g}{tail}"


def fmt_pct(ratio: float) -> str:
    return f"{ratio * 100:.1f}%"


def _display(value: float, unit: str) -> str:
    if unit == "bytes":
        return fmt_bytes(value)
    if unit == "bytes/s":
        return fmt_bandwidth(value)
    if unit == "FLOP/s":
        return fmt_flops(value)
    if unit == "tokens/s":
        return fmt_tokens_s(value)
    if unit == "s":
        return fmt_seconds(value)
    if unit in ("USD", "CNY"):
        return fmt_money(value, unit)
    if unit == "ratio":
        return fmt_pct(value)
    if unit == "W":
        return f"{value:,.0f} W"
    if unit == "GPU-hours":
        return f"{value:,.0f} GPU-hours" if value >= 100 else f"{value:,.3g} GPU-hours"
    return fmt_count(value, unit)


# ==============================================================================================================
# Argument models (what the model sees as JSON schema)
# ==============================================================================================================

class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=300)


_MODEL_DESC = "catalog model id or alias, e.g. 'llama-3.1-70b', 'qwen2.5-32b', 'deepseek-r1', 'Qwen/Qwen2.5-7B-Instruct'"
_GPU_DESC = "catalog GPU id or alias, e.g. 'h100-sxm', 'h20', 'a800-80g-sxm', 'rtx 4090', 'l20'"


class WorkloadArgs(pydantic_model(Workload, _Args)):  # type: ignore[misc]  # Workload's fields, limits, checks
    """A workload (the fields of advisor.workload.Workload) with the model required."""

    model: str = Field(min_length=1, description=_MODEL_DESC)

    def to_workload(self) -> Workload:
        return Workload(**{k: getattr(self, k) for k in Workload.model_fields})

    def given(self) -> dict[str, Any]:
        """The fields the caller set (echoed back, so the answer can state them)."""
        return self.model_dump(exclude_unset=True, mode="json")


class EstimateMemoryArgs(WorkloadArgs):
    gpu: str | None = Field(None, description="optional: check the fit on this GPU; " + _GPU_DESC)


class EstimateThroughputArgs(WorkloadArgs):
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=1024, description="number of GPUs (tensor-parallel group × replicas)")


class TrainTimeArgs(_Args):
    model: str = Field(min_length=1, description=_MODEL_DESC)
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=100_000, description="number of GPUs")
    tokens: float = Field(gt=0, le=1e15, description="training tokens (e.g. 2e9 for 2B tokens)")
    task: Literal["pretrain", "full", "lora", "qlora", "freeze"] = "pretrain"
    seq_len: int | None = Field(None, ge=16, le=1_000_000, description="sequence length in tokens")
    precision: Literal["bf16", "fp16", "fp8"] = "bf16"
    recompute: Recompute | None = None
    mfu: float | None = Field(None, gt=0, le=1, description="override the calibrated MFU (0–1)")
    zero: int = Field(3, ge=0, le=3)


class RecommendArgs(WorkloadArgs):
    budget: float | None = Field(None, gt=0, le=1e12, description="upper limit on the purchase price")
    currency: Currency = "USD"
    region: Region = Field("global", description="'cn' for mainland China (export rules apply), else 'global'")
    existing_gpu: str | None = Field(None, description="a GPU the user already owns (id or alias)")
    existing_count: int | None = Field(None, ge=1, le=4096)
    candidates: list[str] = Field(default_factory=list, max_length=20, description="only consider these GPUs")
    max_gpus_per_node: int = Field(8, ge=1, le=16)
    max_nodes: int = Field(64, ge=1, le=4096)
    power_limit_w: float | None = Field(None, gt=0, le=1e9)
    max_ms_per_token: float | None = Field(None, gt=0, le=1e6)
    min_tokens_per_s: float | None = Field(None, gt=0, le=1e12)
    deadline_s: float | None = Field(None, gt=0, le=1e10, description="training must finish within (seconds)")
    buy_or_rent: Literal["buy", "rent", "either"] = "either"
    top: int = Field(3, ge=1, le=10, description="how many options to return")

    @model_validator(mode="after")
    def _existing_pair(self) -> RecommendArgs:
        if (self.existing_gpu is None) != (self.existing_count is None):
            raise ValueError("existing_gpu and existing_count go together; accepted: both or neither")
        return self

    def to_request(self, catalog: Catalog) -> AnalysisRequest:
        """The analysis these arguments ask for: the option list only (no named configurations, claims or
        limits), with the recommender's failures raised (call_tool reports them)."""
        from advisor.analysis.request import AnalysisRequest
        from advisor.workload import Constraints, ExistingGpus

        existing = None
        if self.existing_gpu is not None and self.existing_count is not None:
            existing = ExistingGpus(gpu=catalog.gpu(self.existing_gpu).id, count=self.existing_count)
        constraints = Constraints(
            budget=self.budget, currency=self.currency, region=self.region, existing=existing,
            candidates=tuple(catalog.gpu(c).id for c in self.candidates), max_gpus_per_node=self.max_gpus_per_node,
            max_nodes=self.max_nodes, power_limit_w=self.power_limit_w, max_ms_per_token=self.max_ms_per_token,
            min_tokens_per_s=self.min_tokens_per_s, deadline_s=self.deadline_s, buy_or_rent=self.buy_or_rent)
        return AnalysisRequest(workload=self.to_workload(), constraints=constraints, detail="options", strict=True)


class CompareGpusArgs(_Args):
    """Compare 2–6 GPUs; with a model, also memory fit (and speed for inference) at `count` GPUs each."""

    gpus: list[str] = Field(min_length=2, max_length=6, description="GPU ids or aliases: " + _GPU_DESC)
    count: int = Field(1, ge=1, le=1024, description="GPUs of each kind (per configuration)")
    model: str | None = Field(None, description="optional: " + _MODEL_DESC)
    task: Task = "inference"
    weights: WeightFormat | None = None
    kv: KvFormat = "fp16"
    context: int = Field(DEFAULT_CONTEXT, ge=1, le=10_000_000)
    concurrency: int = Field(1, ge=1, le=100_000)
    batch: int = Field(1, ge=1, le=100_000)
    optimizer: Optimizer = "adamw"
    zero: int = Field(0, ge=0, le=3)

    def to_workload(self) -> Workload:
        """Inference on `count` GPUs uses tensor parallelism over them; training, data parallelism with ZeRO."""
        tp = self.count if self.task == "inference" else 1
        return Workload(model=self.model, task=self.task, weights=self.weights, kv=self.kv, context=self.context,
                        concurrency=self.concurrency, batch=self.batch, optimizer=self.optimizer, zero=self.zero,
                        gpus=min(self.count, 1024), tp=tp)


class TcoArgs(_Args):
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=100_000)
    years: float | None = Field(None, gt=0, le=10, description="ownership period (default: the economics data's)")
    utilization: float | None = Field(None, gt=0, le=1, description="average busy share (0–1; default 1)")
    currency: Currency = "CNY"
    electricity_price: float | None = Field(None, gt=0, le=100, description="per kWh, in `currency`")
    gpu_price: float | None = Field(None, gt=0, le=1e8, description="a quoted price per card, in `currency`")
    pue: float | None = Field(None, ge=1, le=3)
    model: str | None = Field(None, description="optional: a model for cost per million tokens; " + _MODEL_DESC)
    weights: WeightFormat | None = None
    concurrency: int = Field(1, ge=1, le=100_000)


class LookupGpuArgs(_Args):
    gpu: str = Field(min_length=1, description=_GPU_DESC)


class LookupModelArgs(_Args):
    model: str = Field(min_length=1, description=_MODEL_DESC)


class ExplainArgs(_Args):
    query: str = Field(min_length=1, max_length=300,
                       description="a rule id, a claim id, or the claim as the user quoted it (e.g. '70B 4bit 28GB')")


class AskArgs(_Args):
    slot: Literal["model", "task", "precision", "context", "concurrency", "budget", "region"] = Field(
        description="the one missing item the question is about")
    question: str = Field(min_length=3, max_length=300, description="one short question in the user's language")


# ==============================================================================================================
# Shared helpers
# ==============================================================================================================

def _catalog() -> Any:
    from knowledge.catalog import load_catalog

    return load_catalog()


def _cites(spec: Any, field_name: str) -> str:
    ids = (getattr(spec, "cite", {}) or {}).get(field_name) or []
    return "catalog: " + ", ".join(ids) if ids else "catalog"


def _cap(items: Iterable[str], n: int) -> list[str]:
    items = [str(i) for i in items]
    return items[:n] + ([f"… {len(items) - n} more"] if len(items) > n else [])


def _finding_dict(f: Finding) -> dict[str, Any]:
    """A finding as the model sees it (the application renders the wording and citation for the user)."""
    out: dict[str, Any] = {"rule_id": f.rule_id, "severity": f.severity, "message": f.message}
    if f.alternative:
        out["alternative"] = f.alternative
    if f.as_of:
        out["as_of"] = f.as_of
    return out


def _evaluate_rules(facts: list[Any]) -> list[Finding]:
    """Findings of the rules engine for `facts`; none when the engine is not available (logged)."""
    if not facts:
        return []
    try:
        from rules.engine import evaluate
    except ImportError:
        return []
    try:
        return list(evaluate(facts))
    except NotValidated:
        raise  # the rules could not be checked: the tool fails rather than answer without findings
    except Exception:
        log.exception("rules engine failed")
        return []


def _memory_numbers(est: Any, src: str, prefix: str = "") -> list[dict[str, Any]]:
    out = []
    for part, value in est.per_gpu.parts().items():
        if value:
            out.append(num(f"{prefix}{part.replace('_', ' ')} per GPU", value, "bytes", src))
    out.append(num(f"{prefix}total per GPU", est.per_gpu.total, "bytes", src))
    if est.cpu.total:
        out.append(num(f"{prefix}host RAM (CPU offload)", est.cpu.total, "bytes", src))
    return out


def _weights_for(args: Any) -> str:
    return args.weights or ("nf4" if args.task == "qlora" else "bf16")


# ==============================================================================================================
# Tools
# ==============================================================================================================

def estimate_memory_tool(args: EstimateMemoryArgs) -> ToolOutput:
    """Memory per GPU (weights, KV cache, activations, gradients, optimizer states, overhead) for a workload."""
    from advisor.estimator.memory import estimate_memory, fit_summary

    cat = _catalog()
    model = cat.model(args.model)
    gpu = cat.gpu(args.gpu) if args.gpu else None
    est = estimate_memory(model, args.to_workload(), gpu)
    src = "estimate_memory (advisor.estimator.memory)"
    numbers = [num("parameters", est.params, "params", src, fmt_count(est.params, "params"))]
    if est.active_params != est.params:
        numbers.append(num("active parameters per token", est.active_params, "params", src,
                           fmt_count(est.active_params, "params")))
    if est.trainable_params:
        numbers.append(num("trainable parameters", est.trainable_params, "params", src,
                           fmt_count(est.trainable_params, "params")))
    numbers += _memory_numbers(est, src)
    data: dict[str, Any] = {"model": model.name, "task": est.task, "gpus": est.gpus}
    artifact: dict[str, Any] = {"estimate": est.to_contract(),
                                "memory": {"parts": est.per_gpu.parts(), "total": est.per_gpu.total}}
    summary = f"{model.name} {est.task}: {fmt_bytes(est.per_gpu.total)} per GPU"
    findings: list[Finding] = []
    if gpu is not None:
        fit = fit_summary(est, gpu)
        gsrc = _cites(gpu, "memory_bytes")
        numbers += [
            num(f"{gpu.name} memory", gpu.memory_bytes, "bytes", gsrc),
            num(f"usable on {gpu.name}", fit["usable_bytes"], "bytes", src),
            num("headroom per GPU" if fit["fits"] else "shortfall per GPU", abs(fit["headroom_bytes"]), "bytes", src),
            num("memory utilisation", est.utilisation(gpu), "ratio", src),
        ]
        data.update(gpu=gpu.name, fits=fit["fits"])
        artifact["memory"].update(capacity=gpu.memory_bytes, usable=fit["usable_bytes"], gpu=gpu.id)
        artifact["fit"] = fit  # the `fit` object of `gpu-advisor estimate --gpu ... --json`
        summary += f"; {'fits' if fit['fits'] else 'does not fit'} on {gpu.name}"
        findings = _evaluate_rules(_memory_facts(est, gpu, args))
    data.update(numbers=numbers, formulas=_cap(est.formulas, MAX_FORMULAS),
                assumptions=_cap(est.assumptions, MAX_ASSUMPTIONS), inputs=args.given())
    return ToolOutput(summary, data, numbers, findings, artifact)


def _memory_facts(est: Any, gpu: Any, args: Any) -> list[Any]:
    """Rule facts for one GPU configuration (rules.facts.ConfigFacts) from a memory estimate, as the recommender
    builds them: catalog memory, the estimator's fit against the engine's usable share."""
    try:
        from rules.facts import ConfigFacts
    except ImportError:
        return []
    w = args.to_workload()
    return [ConfigFacts.from_gpu(
        gpu, count=est.gpus, nodes=w.nodes, tp=w.tp, pp=w.pp, task=est.task, params=float(est.params),
        precision=_weights_for(w), context=w.context, concurrency=w.concurrency if not w.is_training else None,
        per_gpu_bytes=est.per_gpu.total, kv_cache_bytes=est.per_gpu.kv_cache or None, fits=est.fits(gpu),
        headroom_ratio=min(1.0, est.headroom_bytes(gpu) / gpu.memory_bytes))]


def estimate_throughput_tool(args: EstimateThroughputArgs) -> ToolOutput:
    """Decode speed per sequence and in total, prefill speed and time to first token on `count` GPUs."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.throughput import estimate_throughput

    cat = _catalog()
    model, gpu = cat.model(args.model), cat.gpu(args.gpu)
    est = estimate_throughput(model, gpu, args.count, args.to_workload(), load_calibration())
    src = "estimate_throughput (advisor.estimator.throughput)"
    numbers = [
        num("decode speed per sequence", est.decode_tokens_per_s, "tokens/s", src),
        num("decode speed, all sequences", est.decode_tokens_per_s_total, "tokens/s", src),
        num("time per output token", est.ms_per_token / 1000, "s", src),
        num("prefill speed", est.prefill_tokens_per_s, "tokens/s", src),
        num("time to first token", est.ttft_s, "s", src),
        num("end-to-end time per request", est.e2e_s, "s", src),
        num("physical ceiling per sequence", est.ceiling_tokens_per_s, "tokens/s", src),
    ]
    if est.capacity is not None:
        numbers.append(num("max concurrent sequences that fit", est.capacity.max_concurrency, "sequences", src))
    data = {"model": model.name, "gpu": gpu.name, "count": est.count, "tp": est.tp, "replicas": est.replicas,
            "bound": est.bound, "fits": est.fits, "concurrency": est.concurrency, "context": est.context,
            "numbers": numbers, "formulas": _cap(est.formulas, MAX_FORMULAS),
            "assumptions": _cap(est.assumptions, MAX_ASSUMPTIONS), "inputs": args.given()}
    if not est.fits:
        numbers.append(num("memory shortfall", est.memory_shortfall_bytes, "bytes", src))
    summary = (f"{model.name} on {est.count}× {gpu.name}: {fmt_tokens_s(est.decode_tokens_per_s)} per sequence, "
               f"TTFT {fmt_seconds(est.ttft_s)} ({est.bound}-bound)")
    contract = est.to_contract()
    from advisor.estimator.engine_memory import budget_for_estimate

    budget = budget_for_estimate(est, model, gpu, getattr(args.to_workload(), "engine", None))
    if budget is not None:  # the engine's own start-up figure, as `gpu-advisor throughput --json` reports it
        contract["engine_memory"] = budget.to_contract() | {"instances": est.replicas}
    return ToolOutput(summary, data, numbers, [], {"throughput": contract})


def train_time_tool(args: TrainTimeArgs) -> ToolOutput:
    """Training wall-clock time and GPU-hours for a token budget (6·N·D at a calibrated MFU)."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.plan_text import data_parallel_contract
    from advisor.estimator.training import estimate_train_time

    cat = _catalog()
    model, gpu = cat.model(args.model), cat.gpu(args.gpu)
    if args.task in ("pretrain", "full"):
        return _planned_train_time(args, model, gpu)
    est = estimate_train_time(model, gpu, args.count, args.tokens, load_calibration(), seq_len=args.seq_len,
                              task=args.task, recompute=args.recompute, precision=args.precision, mfu=args.mfu,
                              zero=args.zero)
    src = "estimate_train_time (advisor.estimator.training)"
    numbers = [
        num("training tokens", est.tokens, "tokens", src, fmt_count(est.tokens, "tokens")),
        num("throughput, all GPUs", est.tokens_per_s, "tokens/s", src),
        num("throughput per GPU", est.tokens_per_s_per_gpu, "tokens/s", src),
        num("wall-clock time", est.wall_s, "s", src,
            f"{est.wall_s / 86400:,.1f} days ({est.wall_s / 3600:,.0f} hours)" if est.wall_s >= 86400
            else fmt_seconds(est.wall_s)),
        num("GPU-hours", est.gpu_hours, "GPU-hours", src),
        num("MFU", est.mfu, "ratio", f"{src}; {est.mfu_source}"),
        num("model FLOPs per token", est.flops_per_token, "FLOP", src, f"{est.flops_per_token:.3g} FLOP"),
        num(f"{gpu.name} dense {est.precision.upper()} peak", est.peak_flops_per_gpu, "FLOP/s",
            _cites(gpu, "bf16_dense_flops")),
    ]
    data = {"model": model.name, "gpu": gpu.name, "count": est.count, "task": est.task, "precision": est.precision,
            "recompute": est.recompute, "seq_len": est.seq_len, "numbers": numbers,
            "formulas": _cap(est.formulas, MAX_FORMULAS), "assumptions": _cap(est.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = (f"{model.name} {est.task} on {est.count}× {gpu.name}: {fmt_seconds(est.wall_s)}, "
               f"{est.gpu_hours:,.0f} GPU-hours at MFU {fmt_pct(est.mfu)}")
    contract = data_parallel_contract(est, 3 if args.zero is None else args.zero, 1,
                                      load_calibration().planner.goodput.value)
    return ToolOutput(summary, data, numbers, [], {"train_time": contract})


def _planned_train_time(args: TrainTimeArgs, model: Any, gpu: Any) -> ToolOutput:
    """Pre-training / full fine-tuning through the parallelism planner: the layout, both totals, launch settings."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.plan_text import launch_settings
    from advisor.estimator.planner import Overrides, plan_training

    ov = Overrides(recompute=args.recompute, zero=args.zero if "zero" in args.model_fields_set else None)
    p = plan_training(model, gpu, args.count, args.tokens, load_calibration(), seq_len=args.seq_len,
                      precision=args.precision, ov=ov, mfu=args.mfu)
    src = "plan_training (advisor.estimator.planner)"
    days = f"{p.wall_s / 86400:,.1f} days" if p.wall_s >= 86400 else fmt_seconds(p.wall_s)
    numbers = [
        num("training tokens", p.tokens, "tokens", src, fmt_count(p.tokens, "tokens")),
        num("throughput, all GPUs", p.tokens_per_s, "tokens/s", src),
        num("throughput per GPU", p.tokens_per_s / p.count, "tokens/s", src),
        num("wall-clock time", p.wall_s, "s", f"{src}; at the step-time MFU", days),
        num("GPU-hours", p.gpu_hours, "GPU-hours", f"{src}; at the step-time MFU"),
        num("run total wall-clock (with goodput)", p.run_wall_s, "s", f"{src}; goodput {p.goodput_source}",
            f"{p.run_wall_s / 86400:,.1f} days"),
        num("run total GPU-hours (with goodput)", p.run_gpu_hours, "GPU-hours", f"{src}; goodput {p.goodput_source}"),
        num("MFU", p.mfu, "ratio", src),
        num("pipeline bubble", p.step.bubble_fraction, "ratio", src),
        num("memory per GPU", p.memory.total, "bytes", src),
    ]
    data = {"model": model.name, "gpu": gpu.name, "count": p.count, "task": args.task, "precision": p.precision,
            "layout": p.layout_dict(), "layout_summary": p.layout.describe(), "launch": launch_settings(p),
            "seq_len": p.seq_len, "numbers": numbers, "formulas": _cap(p.formulas, MAX_FORMULAS),
            "assumptions": _cap(p.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = (f"{model.name} {args.task} on {p.count}× {gpu.name} as {p.layout.describe()}: "
               f"{p.run_wall_s / 86400:,.1f} days and {p.run_gpu_hours:,.0f} GPU-hours as a run total "
               f"({p.gpu_hours:,.0f} at the step time, MFU {fmt_pct(p.mfu)})")
    return ToolOutput(summary, data, numbers, [], {"train_time": p.to_contract(args.task)})


def recommend_tool(args: RecommendArgs) -> ToolOutput:
    """Ranked GPU configurations (GPU × count × layout) that fit the workload and constraints, with findings."""
    from advisor.analysis.evaluate import analyse

    cat = _catalog()
    cat.model(args.model)  # a clear UnknownModel error before the search
    analysis = analyse(args.to_request(cat), cat)
    rec = analysis.recommendation
    assert rec is not None  # a strict request: the recommender raises rather than answer without it
    src = "recommend (advisor.recommend)"
    options = list(rec.options)[: args.top]
    shown = options or list(rec.closest)[: args.top]
    rows, numbers, findings = [], [], []
    for i, opt in enumerate(shown, 1):
        row, nums, fnd = _option_row(i, opt, src)
        rows.append(row)
        numbers += nums
        findings += fnd
    findings = _dedupe_findings([*findings, *rec.findings])
    # the rows carry each number's display string; the full Number dicts stay out of the model's context
    data: dict[str, Any] = {"model": rec.model.get("name"), "options" if options else "closest_not_fitting": rows,
                            "findings": [_finding_dict(f) for f in findings],
                            "assumptions": _cap(rec.assumptions, MAX_ASSUMPTIONS), "inputs": args.given(),
                            "configurations_considered": rec.considered}
    if not options:
        data["none_meets_the_constraints"] = True
        data["changes_that_would_help"] = [c.message for c in rec.changes][:5]
    summary = (f"{len(options)} option(s); first: {rows[0]['label']}" if options
               else "no configuration meets the constraints" + (f"; closest: {rows[0]['label']}" if rows else ""))
    contract = rec.to_contract()
    memory = None
    if shown:
        first = shown[0]
        memory = {"parts": {k: v for k, v in first.per_gpu_bytes.items() if k != "total"},
                  "total": first.per_gpu_bytes.get("total"), "capacity": first.capacity_bytes,
                  "usable": first.usable_bytes, "gpu": first.gpu}
    return ToolOutput(summary, data, numbers, findings,
                      {"options": (contract["options"] or contract["closest"])[: args.top],
                       "recommendation": contract, "memory": memory})


def _option_row(i: int, opt: Any, src: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[Finding]]:
    """One option for the model: label, layout, fit, and its numbers (memory, speed or training time, price)."""
    label = f"{opt.count}× {opt.gpu_name}" + (f" ({opt.nodes} nodes)" if opt.nodes > 1 else "")
    tag = f"option {i} ({label})"
    row: dict[str, Any] = {"rank": i, "label": label, "gpu": opt.gpu, "count": opt.count, "nodes": opt.nodes,
                           "labels": list(opt.labels), "layout": {k: v for k, v in opt.layout.items() if v is not None},
                           "fits": opt.fits, "meets_targets": opt.meets_targets}
    if opt.misses:
        row["misses"] = list(opt.misses)
    if opt.substitutes:
        row["substitutes"] = list(opt.substitutes)
    if opt.launch_hint:
        row["launch_hint"] = opt.launch_hint
    nums = [num(f"{tag}: memory per GPU", opt.per_gpu_bytes.get("total", 0), "bytes", src),
            num(f"{tag}: GPU memory", opt.capacity_bytes, "bytes", src),
            num(f"{tag}: usable memory per GPU", opt.usable_bytes, "bytes", src),
            num(f"{tag}: headroom", opt.headroom_ratio, "ratio", src)]
    t = opt.throughput or {}
    for key, name, unit, scale in (("decode_tokens_per_s", "decode speed per sequence", "tokens/s", 1.0),
                                   ("decode_tokens_per_s_total", "decode speed, all sequences", "tokens/s", 1.0),
                                   ("ms_per_token", "time per output token", "s", 1e-3),
                                   ("ttft_s", "time to first token", "s", 1.0),
                                   ("max_concurrency", "max concurrent sequences that fit", "sequences", 1.0)):
        if isinstance(t.get(key), (int, float)) and not isinstance(t.get(key), bool):
            nums.append(num(f"{tag}: {name}", t[key] * scale, unit, src))
    tr = opt.training or {}
    for key, name, unit in (("wall_s", "training wall-clock", "s"), ("gpu_hours", "GPU-hours", "GPU-hours"),
                            ("tokens_per_s", "training throughput", "tokens/s"), ("mfu", "MFU", "ratio"),
                            ("tokens", "training tokens", "tokens")):
        if isinstance(tr.get(key), (int, float)) and not isinstance(tr.get(key), bool):
            nums.append(num(f"{tag}: {name}", tr[key], unit, src))
    price = opt.price
    if price and isinstance(price.get("amount"), (int, float)) and price.get("currency") in ("USD", "CNY"):
        cur, as_of = price["currency"], price.get("as_of")
        psrc = f"catalog: {price.get('source')}, {price.get('kind', 'price')} as of {as_of}"
        nums.append(num(f"{tag}: price per GPU (as of {as_of})", price["amount"], cur, psrc))
        nums.append(num(f"{tag}: price of {opt.count} GPUs (as of {as_of})", price["amount"] * opt.count, cur, psrc))
        row["price_as_of"] = as_of
    if isinstance(opt.tco, dict):
        tco = opt.tco.get("tco")
        if isinstance(tco, dict) and isinstance(tco.get("amount"), (int, float)) and tco.get("currency") in ("USD", "CNY"):
            nums.append(num(f"{tag}: TCO over {opt.tco.get('years', '?')} years", tco["amount"], tco["currency"], src))
    row["numbers"] = [f"{n['name'].split(': ', 1)[1]}: {n['display']}" for n in nums]
    row["finding_ids"] = [f.rule_id for f in opt.findings]
    return row, nums, list(opt.findings)


def _dedupe_findings(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    out = []
    for f in findings:
        key = (f.rule_id, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def compare_gpus_tool(args: CompareGpusArgs) -> ToolOutput:
    """Side-by-side specs of 2–6 GPUs; with a model, memory fit (and decode speed for inference) on each."""
    cat = _catalog()
    gpus = [cat.gpu(g) for g in args.gpus]
    if len({g.id for g in gpus}) < len(gpus):
        raise AdvisorError("the same GPU is listed twice", field="gpus", accepted="2–6 different GPUs")
    model = cat.model(args.model) if args.model else None
    rows, numbers = [], []
    findings: list[Finding] = []
    workload = args.to_workload() if model else None
    for g in gpus:
        spec = _gpu_numbers(g)
        row: dict[str, Any] = {"gpu": g.name, "id": g.id, "architecture": g.architecture, "nvlink": g.nvlink,
                               "china": _china(g)}
        numbers += spec
        if model is not None and workload is not None:
            from advisor.estimator.memory import estimate_memory

            layout = workload
            try:
                est = estimate_memory(model, layout, g)
            except AdvisorError as exc:
                row["memory_error"] = str(exc)
            else:
                src = "estimate_memory (advisor.estimator.memory)"
                row["fits"] = est.fits(g)
                numbers.append(num(f"{g.name}: {model.name} memory per GPU ({args.count} GPU(s))", est.per_gpu.total,
                                   "bytes", src))
                numbers.append(num(f"{g.name}: memory utilisation", est.utilisation(g), "ratio", src))
                if workload.task == "inference" and est.fits(g):
                    speed = _try_throughput(model, g, args.count, layout)
                    if speed is not None:
                        numbers.append(num(f"{g.name}: decode speed per sequence", speed.decode_tokens_per_s,
                                           "tokens/s", "estimate_throughput (advisor.estimator.throughput)"))
                        numbers.append(num(f"{g.name}: decode speed, all sequences", speed.decode_tokens_per_s_total,
                                           "tokens/s", "estimate_throughput (advisor.estimator.throughput)"))
                findings += _evaluate_rules(_memory_facts(est, g, args))
        rows.append(row)
    data = {"gpus": rows, "numbers": numbers, "count": args.count,
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    if model is not None:
        data["model"] = model.name
    summary = "compared " + ", ".join(g.name for g in gpus) + (f" for {model.name}" if model else "")
    return ToolOutput(summary, data, numbers, _dedupe_findings(findings), {"rows": rows})


def _try_throughput(model: Any, gpu: Any, count: int, workload: Workload) -> Any:
    try:
        from advisor.estimator.calibration import load_calibration
        from advisor.estimator.throughput import estimate_throughput
    except ImportError:
        return None
    try:
        return estimate_throughput(model, gpu, count, workload, load_calibration())
    except AdvisorError:
        return None


def _gpu_numbers(g: Any) -> list[dict[str, Any]]:
    n = g.name
    out = [num(f"{n} memory", g.memory_bytes, "bytes", _cites(g, "memory_bytes")),
           num(f"{n} memory bandwidth", g.bandwidth_bytes_per_s, "bytes/s", _cites(g, "bandwidth_bytes_per_s")),
           num(f"{n} dense BF16 tensor", g.bf16_dense_flops, "FLOP/s", _cites(g, "bf16_dense_flops"))]
    if g.fp8_dense_flops:
        out.append(num(f"{n} dense FP8 tensor", g.fp8_dense_flops, "FLOP/s", _cites(g, "fp8_dense_flops")))
    if g.int8_dense_ops:
        out.append(num(f"{n} dense INT8 tensor", g.int8_dense_ops, "OP/s", _cites(g, "int8_dense_ops"),
                       f"{g.int8_dense_ops / 1e12:,.0f} TOPS"))
    out.append(num(f"{n} FP32 (non-tensor)", g.fp32_flops, "FLOP/s", _cites(g, "fp32_flops")))
    out.append(num(f"{n} TDP", g.tdp_w, "W", _cites(g, "tdp_w")))
    if g.nvlink_bytes_per_s:
        out.append(num(f"{n} NVLink (total, both directions)", g.nvlink_bytes_per_s, "bytes/s",
                       _cites(g, "nvlink_bytes_per_s")))
    for p in sorted(g.prices, key=lambda p: p.date, reverse=True)[:2]:
        out.append(num(f"{n} {p.kind.replace('_', ' ')} price (as of {p.date.isoformat()})", p.amount, p.currency,
                       f"catalog: {p.source}"))
    return out


def _china(g: Any) -> dict[str, Any]:
    c = g.china
    out: dict[str, Any] = {"status": c.status, "as_of": c.as_of.isoformat()}
    if c.restricted_since:
        out["restricted_since"] = c.restricted_since.isoformat()
    if c.substitutes or c.china_substitute:
        out["china_substitutes"] = list(c.substitutes) or [c.china_substitute]
    if c.note:
        out["note"] = c.note
    return out


def tco_tool(args: TcoArgs) -> ToolOutput:
    """Purchase, power and operations over N years against renting the same GPU-hours; cost per million tokens."""
    from advisor.estimator.calibration import load_economics
    from advisor.estimator.cost import estimate_tco

    cat = _catalog()
    gpu = cat.gpu(args.gpu)
    tokens_per_s = None
    if args.model:
        model = cat.model(args.model)
        w = Workload(model=model.id, weights=args.weights, concurrency=args.concurrency, gpus=min(args.count, 1024),
                     tp=min(args.count, 8))
        speed = _try_throughput(model, gpu, args.count, w)
        tokens_per_s = speed.decode_tokens_per_s_total if speed is not None else None
    optional = {k: v for k, v in (("utilization", args.utilization), ("electricity", args.electricity_price),
                                  ("gpu_price", args.gpu_price), ("pue", args.pue)) if v is not None}
    est = estimate_tco(gpu, args.count, load_economics(), years=args.years, currency=args.currency,
                       tokens_per_s=tokens_per_s, **optional)
    src = "estimate_tco (advisor.estimator.cost)"
    cur = est.currency
    numbers = [
        num("GPU unit price", est.gpu_unit_price.amount, cur,
            f"{src}; {est.gpu_price_kind} price as of {est.gpu_price_date.isoformat()}"),
        num("purchase, GPUs", est.purchase_gpus.amount, cur, src),
        num("purchase, rest of the servers", est.purchase_rest.amount, cur, src),
        num("purchase, total", est.purchase_total.amount, cur, src),
        num("power per year", est.power_per_year.amount, cur, src),
        num("energy per year", est.energy_kwh_per_year, "kWh", src, f"{est.energy_kwh_per_year:,.0f} kWh"),
        num("operations per year", est.operations_per_year.amount, cur, src),
        num(f"TCO over {est.years:g} years", est.tco.amount, cur, src),
        num("TCO per year", est.tco_per_year.amount, cur, src),
        num("GPU-hours used", est.gpu_hours_used, "GPU-hours", src),
        num("exchange rate", est.exchange_rate_cny_per_usd, "CNY/USD",
            f"{src}; as of {est.exchange_rate_date.isoformat()}", f"{est.exchange_rate_cny_per_usd:.4g} CNY per USD"),
    ]
    if est.cost_per_gpu_hour_used is not None:
        numbers.append(num("cost per GPU-hour used (owned)", est.cost_per_gpu_hour_used.amount, cur, src))
    if est.cloud_cost is not None:
        numbers.append(num("renting the same GPU-hours", est.cloud_cost.amount, cur,
                           f"{src}; {est.cloud_provider} price as of {est.cloud_price_date}"))
    if est.cloud_usd_per_gpu_hour is not None:
        numbers.append(num("cloud price per GPU-hour", est.cloud_usd_per_gpu_hour, "USD",
                           f"{src}; {est.cloud_provider}, as of {est.cloud_price_date}"))
    if est.break_even_utilization is not None:
        numbers.append(num("break-even utilisation (buy vs rent)", est.break_even_utilization, "ratio", src))
    if est.cost_per_million_tokens_owned is not None:
        numbers.append(num("cost per million tokens (owned)", est.cost_per_million_tokens_owned.amount, cur, src))
    if est.cost_per_million_tokens_cloud is not None:
        numbers.append(num("cost per million tokens (cloud)", est.cost_per_million_tokens_cloud.amount, cur, src))
    data = {"gpu": gpu.name, "count": est.count, "servers": est.servers, "server_tier": est.server_tier,
            "years": est.years, "utilization": est.utilization, "currency": cur, "numbers": numbers,
            "prices": [p.model_dump(mode="json") for p in est.prices][:6],
            "formulas": _cap(est.formulas, MAX_FORMULAS), "assumptions": _cap(est.assumptions, MAX_ASSUMPTIONS),
            "inputs": args.model_dump(exclude_unset=True, mode="json")}
    summary = f"{est.count}× {gpu.name}, {est.years:g} years: TCO {fmt_money(est.tco.amount, cur)}"
    return ToolOutput(summary, data, numbers, [], {"tco": est.to_contract()})


def lookup_gpu_tool(args: LookupGpuArgs) -> ToolOutput:
    """A GPU's catalog entry: memory, bandwidth, dense tensor FLOPS, power, NVLink, China status, dated prices."""
    cat = _catalog()
    g = cat.gpu(args.gpu)
    numbers = _gpu_numbers(g)
    for c in g.cloud[:3]:
        numbers.append(num(f"{g.name} cloud price per GPU-hour ({c.provider}, as of {c.date.isoformat()})",
                           c.usd_per_hour, "USD", f"catalog: {c.source}"))
    source_ids = sorted({s for ids in g.cite.values() for s in ids})
    data = {"gpu": g.name, "id": g.id, "vendor": g.vendor, "architecture": g.architecture, "segment": g.segment,
            "launch_year": g.launch_year, "interface": g.interface, "memory_type": g.memory_type,
            "nvlink": g.nvlink, "pcie_gen": g.pcie_gen, "supports": {"bf16": g.supports_bf16, "fp8": g.supports_fp8,
                                                                     "flash_attention_2": g.supports_flash_attention_2},
            "china": _china(g), "numbers": numbers, "sources": _sources(cat, source_ids)}
    if g.modded:
        data["modded"] = "community memory mod: no vendor warranty"
    summary = (f"{g.name}: {fmt_bytes(g.memory_bytes)}, {fmt_bandwidth(g.bandwidth_bytes_per_s)}, "
               f"{fmt_flops(g.bf16_dense_flops)} dense BF16")
    return ToolOutput(summary, data, numbers, [], {"gpu": g.model_dump(mode="json")})


def _sources(cat: Any, ids: Iterable[str]) -> list[dict[str, Any]]:
    out = []
    for sid in ids:
        try:
            s = cat.source(sid)
        except AdvisorError:
            continue
        out.append({"id": s.id, "title": s.title, "url": s.url or s.document,
                    "retrieved": s.retrieved.isoformat() if s.retrieved else None})
    return out[:8]


def lookup_model_tool(args: LookupModelArgs) -> ToolOutput:
    """A model's architecture and parameter counts (computed from the architecture), and weight sizes by format."""
    from advisor.estimator.formats import weight_bytes
    from advisor.estimator.memory import kv_bytes_per_token_layer
    from knowledge.params import param_counts

    cat = _catalog()
    m = cat.model(args.model)
    pc = param_counts(m)
    src = "knowledge.params.param_counts (architecture)"
    numbers = [num("parameters", pc.total, "params", src, fmt_count(pc.total, "params"))]
    if pc.active != pc.total:
        numbers.append(num("active parameters per token", pc.active, "params", src, fmt_count(pc.active, "params")))
    wsrc = "advisor.estimator.formats.weight_bytes"
    for fmt in ("bf16", "fp8", "int8", "int4"):
        try:
            numbers.append(num(f"weights in {fmt}", weight_bytes(m, fmt), "bytes", wsrc))
        except AdvisorError:
            continue
    kv = kv_bytes_per_token_layer(m, "fp16") * m.num_layers
    numbers.append(num("KV cache per token (fp16, all layers)", kv, "bytes", "advisor.estimator.memory",
                       f"{kv / 2**20:,.3f} MiB ({kv / 1e6:,.3f} MB) per token"))
    numbers.append(num("maximum context", m.max_context, "tokens", _cites(m, "max_context")))
    arch = {k: getattr(m, k) for k in ("family", "model_type", "hidden_size", "num_layers", "num_attention_heads",
                                       "num_kv_heads", "head_dim", "intermediate_size", "vocab_size")}
    if m.is_moe:
        arch.update(n_routed_experts=m.n_routed_experts, experts_per_token=m.experts_per_token,
                    n_shared_experts=m.n_shared_experts)
    if m.is_mla:
        arch.update(kv_lora_rank=m.kv_lora_rank, qk_rope_head_dim=m.qk_rope_head_dim)
    if m.sliding_window:
        arch.update(sliding_window=m.sliding_window, sliding_window_layers=m.sliding_window_layers)
    data = {"model": m.name, "id": m.id, "hf_repo": m.hf_repo, "hf_repo_chat": m.hf_repo_chat, "architecture": arch, "numbers": numbers,
            "sources": _sources(cat, sorted({s for ids in m.cite.values() for s in ids}))}
    summary = f"{m.name}: {fmt_count(pc.total, 'params')}" + (
        f" ({fmt_count(pc.active, 'active')})" if pc.active != pc.total else "")
    return ToolOutput(summary, data, numbers, [], {"model": m.model_dump(mode="json")})


def explain_rule_or_claim_tool(args: ExplainArgs) -> ToolOutput:
    """A rule (id, summary, source) or a guide claim with the guide's figure, the computed one and the verdict."""
    query = args.query.strip()
    rule = _rule_or_none(query)
    if rule is not None:
        data = _rule_data(rule)
        return ToolOutput(f"rule {rule.id}: {rule.summary}", data, [], [], {"rule": data})
    claims = _claims()
    exact = [c for c in claims if c.id == query]
    matches = exact or _best(claims, query, lambda c: f"{c.id} {c.quote} {c.claim} {c.explanation}", 3)
    rules = [] if exact else _best(_all_rules(), query, lambda r: f"{r.id} {r.topic} {r.summary} {r.en} {r.zh}", 3)
    if not matches and not rules:
        raise AdvisorError(f"no rule or guide claim matches '{query[:80]}'", field="query",
                           accepted="a rule id, a claim id, or words of the claim as quoted")
    numbers: list[dict[str, Any]] = []
    findings: list[Finding] = []
    rows = []
    for c in matches:
        row, nums, fnd = _claim_row(c)
        rows.append(row)
        numbers += nums
        findings += fnd
    data: dict[str, Any] = {}
    if rows:
        data.update(claims=rows, numbers=numbers, findings=[_finding_dict(f) for f in findings])
    if rules:
        data["rules"] = [_rule_data(r) for r in rules]
    summary = (f"claim {matches[0].id}: {matches[0].verdict}" if matches
               else f"rules matching '{query[:40]}': {', '.join(r.id for r in rules)}")
    return ToolOutput(summary, data, numbers, _dedupe_findings(findings), {"explanation": data})


def _all_rules() -> tuple[Any, ...]:
    try:
        from rules.meta import all_rules
    except ImportError:
        return ()
    return all_rules()


def _rule_or_none(query: str) -> Any:
    for r in _all_rules():
        if r.id == query.lower():
            return r
    return None


def _rule_data(rule: Any) -> dict[str, Any]:
    from rules.sources import citation

    return {"rule_id": rule.id, "topic": rule.topic, "severity": rule.severity, "summary": rule.summary,
            "source": citation(rule.source, rule.section), "as_of": rule.as_of, "alternative": rule.alternative}


def _claims() -> tuple[Any, ...]:
    try:
        from knowledge.guides import load_guides

        return load_guides().claims
    except (ImportError, AdvisorError, OSError):
        log.warning("guide claims are not available", exc_info=True)
        return ()


_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[\u4e00-\u9fff]")


def _tokens(text: str) -> set[str]:
    words = _WORD.findall(text.lower())
    cjk = [w for w in words if "\u4e00" <= w <= "\u9fff"]
    return {w for w in words if len(w) > 1 or w.isdigit()} | {a + b for a, b in pairwise(cjk)}


def _best(items: Iterable[Any], query: str, text_of: Callable[[Any], str], n: int) -> list[Any]:
    """Items sharing the most words, numbers and Chinese bigrams with `query` (at least two)."""
    q = _tokens(query)
    scored = []
    for item in items:
        overlap = len(q & _tokens(text_of(item)))
        if overlap >= 2:
            scored.append((overlap, item))
    scored.sort(key=lambda t: -t[0])
    return [item for _, item in scored[:n]]


def _claim_row(c: Any) -> tuple[dict[str, Any], list[dict[str, Any]], list[Finding]]:
    from rules.sources import citation

    src = f"guide claim {c.id} ({c.guide}, {c.section})"
    row: dict[str, Any] = {"claim_id": c.id, "guide": c.guide, "section": c.section, "quote": c.quote,
                           "claim": c.claim, "verdict": c.verdict, "explanation": c.explanation,
                           "guide_says": f"{c.claimed.value} {c.claimed.unit}".strip(),
                           "computed": f"{c.computed.value} {c.computed.unit}".strip(),
                           "source": citation(c.guide, c.section)}
    numbers = []
    if isinstance(c.computed.value, (int, float)) and not isinstance(c.computed.value, bool):
        numbers.append(num(f"claim {c.id}: computed value", c.computed.value, c.computed.unit, src,
                           f"{c.computed.value:,g} {c.computed.unit}"))
    stated = c.claimed.value if isinstance(c.claimed.value, (int, float)) and not isinstance(c.claimed.value, bool) \
        else None
    if stated is not None:
        numbers.append(num(f"claim {c.id}: the guide's figure", stated, c.claimed.unit, src,
                           f"{stated:,g} {c.claimed.unit}"))
    fact: dict[str, Any] = {"kind": "claim", "claim_id": c.id, "verdict": c.verdict, "claim_text": c.quote,
                            "unit": c.computed.unit or c.claimed.unit, "claim_source": c.guide,
                            "correction": c.explanation}
    if stated is not None:
        fact["stated_value"] = float(stated)
    if numbers and numbers[0]["name"].endswith("computed value"):
        fact["computed_value"] = float(c.computed.value)
    return row, numbers, _evaluate_rules([fact])


def ask_clarifying_question_tool(args: AskArgs) -> ToolOutput:
    """Ask the user ONE question about the most important missing item (ends the turn)."""
    slot = SLOTS[args.slot]
    data = {"question": args.question, "slot": args.slot, "default_en": slot.default_en,
            "default_zh": slot.default_zh, "examples": slot.options}
    return ToolOutput(f"asked about {args.slot}", data, [], [], {"question": args.question, "slot": args.slot})


# ==============================================================================================================
# Registry and dispatcher
# ==============================================================================================================

@dataclass(frozen=True)
class ToolSpec:
    name: str
    args: type[BaseModel]
    run: Callable[[Any], ToolOutput]
    description: str
    return_direct: bool = False


def _spec(name: str, args: type[BaseModel], run: Callable[[Any], ToolOutput], *, return_direct: bool = False,
          extra: str = "") -> ToolSpec:
    doc = (run.__doc__ or "").strip().splitlines()[0]
    return ToolSpec(name, args, run, (doc + (" " + extra if extra else "")).strip(), return_direct)


TOOLS: dict[str, ToolSpec] = {s.name: s for s in (
    _spec("estimate_memory", EstimateMemoryArgs, estimate_memory_tool,
          extra="Give `gpu` to check the fit. Use tp/gpus for multi-GPU layouts."),
    _spec("estimate_throughput", EstimateThroughputArgs, estimate_throughput_tool),
    _spec("train_time", TrainTimeArgs, train_time_tool),
    _spec("recommend", RecommendArgs, recommend_tool,
          extra="Use it for 'which GPUs should I buy/rent' questions; region 'cn' for mainland China."),
    _spec("compare_gpus", CompareGpusArgs, compare_gpus_tool),
    _spec("tco", TcoArgs, tco_tool),
    _spec("lookup_gpu", LookupGpuArgs, lookup_gpu_tool),
    _spec("lookup_model", LookupModelArgs, lookup_model_tool),
    _spec("explain_rule_or_claim", ExplainArgs, explain_rule_or_claim_tool,
          extra="Use it when the user quotes a figure or claim from an article, a guide or a vendor."),
    _spec("ask_clarifying_question", AskArgs, ask_clarifying_question_tool, return_direct=True),
)}

ALLOWED: frozenset[str] = frozenset(TOOLS)


def call_tool(name: Any, arguments: Any) -> ToolResult:
    """Validate and run tool `name`; never raises. Errors come back as `ok=False` with a readable message."""
    start = time.perf_counter()
    raw = arguments
    shown_name = str(name)[:80] if name is not None else "<none>"
    try:
        if not isinstance(name, str) or name not in TOOLS:
            raise AdvisorError(f"unknown tool '{shown_name}'", field="tool", accepted=", ".join(sorted(TOOLS)))
        spec = TOOLS[name]
        if isinstance(raw, str):
            try:
                raw = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError as exc:
                raise AdvisorError(f"arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos})",
                                   field="arguments", accepted="a JSON object") from None
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise AdvisorError(f"arguments of {name} must be an object, not {type(raw).__name__}",
                               field="arguments", accepted="a JSON object")
        try:
            args = spec.args.model_validate(dict(raw))
        except ValidationError as exc:
            raise AdvisorError(f"invalid arguments for {name}: {validation_text(exc)}",
                               field=_first_loc(exc)) from None
        out = spec.run(args)
        body = dict(out.data)
        if out.findings and "findings" not in body:
            body["findings"] = [_finding_dict(f) for f in out.findings]
        data = _finite({"tool": name, "ok": True, "summary": out.summary, **body})
        numbers = [n for n in _finite(out.numbers) if isinstance(n.get("value"), (int, float))]
        return ToolResult(name, True, _safe_args(raw), data, out.summary, numbers, list(out.findings),
                          out.artifact, time.perf_counter() - start)
    except AdvisorError as exc:
        message = str(exc)
    except (ValidationError, RecordError) as exc:  # a tool built an invalid internal object from valid arguments
        message = f"{shown_name}: {validation_text(exc)}"
    except Exception as exc:
        log.exception("tool %s failed", shown_name)
        message = f"internal error in {shown_name} ({type(exc).__name__}); try other arguments"
    data = {"tool": shown_name, "ok": False, "error": message}
    return ToolResult(shown_name, False, _safe_args(raw), data, "", [], [], {}, time.perf_counter() - start,
                      message)


def validation_text(exc: ValidationError | RecordError) -> str:
    """pydantic errors as 'field: message (got value)'; for unknown fields, the accepted ones."""
    parts = []
    for err in exc.errors()[:6]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            model = getattr(exc, "title", "")
            accepted = _accepted_fields(model)
            msg = "unknown field" + (f" (accepted: {accepted})" if accepted else "")
            parts.append(f"{loc}: {msg}")
            continue
        got = err.get("input")
        shown = repr(got)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        parts.append(f"{loc}: {msg} (got {shown})" if "input" in err and not isinstance(got, dict) else f"{loc}: {msg}")
    return "; ".join(parts)


def _accepted_fields(title: str) -> str:
    for spec in TOOLS.values():
        if spec.args.__name__ == title:
            return ", ".join(spec.args.model_fields)
    return ""


def _first_loc(exc: ValidationError | RecordError) -> str | None:
    errors = exc.errors()
    return ".".join(str(p) for p in errors[0]["loc"]) if errors and errors[0].get("loc") else None


def _safe_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return {str(k)[:80]: _jsonable(v) for k, v in list(raw.items())[:40]}
    return {"raw": str(raw)[:300]}


def _finite(obj: Any) -> Any:
    """Replace NaN/inf anywhere in a result by None (they must never reach a user)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, (BaseModel, Record)):
        return _jsonable(obj.model_dump(mode="json"))
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if hasattr(obj, "__dict__"):
        return {k: _jsonable(v) for k, v in vars(obj).items() if not k.startswith("_")}
    return str(obj)


# ==============================================================================================================
# LangChain wrappers (lazy)
# ==============================================================================================================

def langchain_tools(names: Iterable[str] | None = None) -> list[Any]:
    """StructuredTools with the pydantic schemas above; each call goes through :func:`call_tool`.

    Content is the JSON the model reads, the artifact the full ToolResult (response_format content_and_artifact).
    """
    from langchain_core.tools import StructuredTool

    tools = []
    for name in (names or TOOLS):
        spec = TOOLS[name]

        def _run(_name: str = name, **kwargs: Any) -> tuple[str, ToolResult]:
            result = call_tool(_name, kwargs)
            return result.content(), result

        tools.append(StructuredTool.from_function(
            func=_run, name=spec.name, description=spec.description, args_schema=spec.args,
            response_format="content_and_artifact", return_direct=spec.return_direct, infer_schema=False))
    return tools


__all__ = [
    "ALLOWED",
    "TOOLS",
    "ToolResult",
    "ToolSpec",
    "call_tool",
    "fmt_bandwidth",
    "fmt_bytes",
    "fmt_flops",
    "fmt_money",
    "fmt_pct",
    "fmt_seconds",
    "fmt_tokens_s",
    "langchain_tools",
    "num",
]
