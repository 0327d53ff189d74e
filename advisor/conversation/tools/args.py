"""The tools' argument schemas (pydantic: what the model sees as JSON schema), with the workload's fields, limits
and checks from `advisor.workload.Workload`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from advisor.analysis.request import AnalysisRequest
from advisor.estimator.cost import MAX_ELECTRICITY, MIN_UTILIZATION, MIN_YEARS
from advisor.estimator.planner import MAX_COUNT
from advisor.workload import (
    DEFAULT_CONTEXT,
    Constraints,
    Currency,
    ExistingGpus,
    KvFormat,
    Optimizer,
    Recompute,
    Region,
    Task,
    WeightFormat,
    Workload,
)
from knowledge.pydantic_models import pydantic_model
from knowledge.structs import fields

if TYPE_CHECKING:
    from knowledge.catalog import Catalog


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=300)


_MODEL_DESC = "catalog model id or alias, e.g. 'llama-3.1-70b', 'qwen2.5-32b', 'deepseek-r1', 'Qwen/Qwen2.5-7B-Instruct'"
_GPU_DESC = "catalog GPU id or alias, e.g. 'h100-sxm', 'h20', 'a800-80g-sxm', 'rtx 4090', 'l20'"


class WorkloadArgs(pydantic_model(Workload, _Args)):  # type: ignore[misc]  # Workload's fields, limits, checks
    """A workload (the fields of advisor.workload.Workload) with the model required."""

    model: str = Field(min_length=1, description=_MODEL_DESC)
    nodes: int = Field(1, ge=1, le=4096, description=f"nodes; gpus × nodes ≤ {MAX_COUNT:,} GPUs in all",
                       json_schema_extra={"x-max-product-with": "gpus", "x-max-product": MAX_COUNT})
    tp: int = Field(1, ge=1, le=1024, description="tensor-parallel degree: divides the model's attention heads; "
                                                  "tp × pp ≤ gpus × nodes",
                    json_schema_extra={"x-model-rule": "divides num_attention_heads"})
    pp: int = Field(1, ge=1, le=1024, description="pipeline stages: at most the model's layers; tp × pp ≤ gpus × nodes",
                    json_schema_extra={"x-model-rule": "at most num_layers"})

    @field_validator("nodes")
    @classmethod
    def _world(cls, nodes: int, info: ValidationInfo) -> int:
        gpus = info.data.get("gpus")
        if isinstance(gpus, int) and gpus * nodes > MAX_COUNT:
            raise ValueError(f"gpus × nodes = {gpus * nodes:,} GPUs is more than {MAX_COUNT:,}; "
                             f"accepted: gpus × nodes ≤ {MAX_COUNT:,}")
        return nodes

    def to_workload(self) -> Workload:
        return Workload(**{k: getattr(self, k) for k in fields(Workload)})

    def given(self) -> dict[str, Any]:
        """The fields the caller set (echoed back, so the answer can state them)."""
        given: dict[str, Any] = self.model_dump(exclude_unset=True, mode="json")
        return given


class EstimateMemoryArgs(WorkloadArgs):
    gpu: str | None = Field(None, description="optional: check the fit on this GPU; " + _GPU_DESC)


class EstimateThroughputArgs(WorkloadArgs):
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=1024, description="number of GPUs, one tensor-parallel group: divides the model's "
                                                     "attention heads (and tp divides count)",
                       json_schema_extra={"x-model-rule": "divides num_attention_heads"})


class TrainTimeArgs(_Args):
    model: str = Field(min_length=1, description=_MODEL_DESC)
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=100_000, description="number of GPUs")
    tokens: float = Field(gt=0, le=1e15, description="training tokens (e.g. 2e9 for 2B tokens)")
    task: Literal["pretrain", "full", "lora", "qlora", "freeze"] = "pretrain"
    context: int | None = Field(None, ge=16, le=1_000_000, validation_alias=AliasChoices("context", "seq_len"),
                                description="tokens per training sequence")
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
    deadline_s: float | None = Field(None, gt=0, le=3.2e9, description="training must finish within (seconds; "
                                                                       "at most ~100 years)")
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
    years: float | None = Field(None, ge=MIN_YEARS, le=10, description="ownership period, a month (1/12) to 10 "
                                                                       "years (default: the economics data's)")
    utilization: float | None = Field(None, ge=MIN_UTILIZATION, le=1,
                                      description=f"average busy share ({MIN_UTILIZATION:g}–1; default 1)")
    currency: Currency = "CNY"
    electricity_price: float | None = Field(
        None, gt=0, le=max(MAX_ELECTRICITY.values()),
        description="per kWh, in `currency`: at most " + " or ".join(f"{v:g} {k}" for k, v in MAX_ELECTRICITY.items()),
        json_schema_extra={"x-maximum-by-currency": dict(MAX_ELECTRICITY)})
    gpu_price: float | None = Field(None, gt=0, le=1e8, description="a quoted price per card, in `currency`")
    pue: float | None = Field(None, ge=1, le=3)
    model: str | None = Field(None, description="optional: a model for cost per million tokens; " + _MODEL_DESC)
    weights: WeightFormat | None = None
    concurrency: int = Field(1, ge=1, le=100_000)

    @field_validator("electricity_price")
    @classmethod
    def _tariff(cls, price: float | None, info: ValidationInfo) -> float | None:
        top = MAX_ELECTRICITY.get(str(info.data.get("currency", "CNY")))
        if price is not None and top is not None and price > top:
            raise ValueError(f"{price:g} {info.data.get('currency')}/kWh is implausible; "
                             f"accepted: at most {top:g} {info.data.get('currency')} per kWh")
        return price


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
