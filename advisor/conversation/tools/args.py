"""The tools' argument schemas (pydantic: what the model sees as JSON schema), with the workload's fields, limits
and checks from `advisor.workload.Workload`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from advisor.analysis.request import AnalysisRequest
from advisor.estimator.cost import MAX_ELECTRICITY, MIN_UTILIZATION, MIN_YEARS
from advisor.estimator.planner import MAX_COUNT
from advisor.workload import (
    Constraints,
    ExistingGpus,
    StatedRent,
    Workload,
)
from knowledge.pydantic_models import Adjust, pydantic_model
from knowledge.structs import fields

if TYPE_CHECKING:
    from knowledge.catalog import Catalog


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=300)


_MODEL_DESC = "catalog model id or alias, e.g. 'llama-3.1-70b', 'qwen2.5-32b', 'deepseek-r1', 'Qwen/Qwen2.5-7B-Instruct'"
_GPU_DESC = "catalog GPU id or alias, e.g. 'h100-sxm', 'h20', 'a800-80g-sxm', 'rtx 4090', 'l20'"


# A tool needs the model (the dialog's "not said yet" is no tool call); the API and MCP bound the world size
# (gpus × nodes) where the estimator's planner stops counting (MAX_COUNT), and say so in the schema.
_MODEL_REQUIRED = Adjust(required=True, limits={"min_length": 1}, description=_MODEL_DESC)
_WORKLOAD_ADJUST = {
    "model": _MODEL_REQUIRED,
    "nodes": Adjust(note=f"; gpus × nodes ≤ {MAX_COUNT:,} GPUs in all",
                    extra={"x-max-product-with": "gpus", "x-max-product": MAX_COUNT}),
}


class WorkloadArgs(pydantic_model(Workload, _Args, adjust=_WORKLOAD_ADJUST)):  # type: ignore[misc]
    """A workload (the fields of advisor.workload.Workload, with its checks) with the model required."""

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


# train_time reads a training job: the training tasks only (pre-training unless told), a sequence length of
# 16 … 1M tokens, also called seq_len (unset: the model's), ZeRO-3 unless told (fully sharded states), and the token
# budget under the name the CLI's --tokens has, any positive amount (as this API has always taken); the MFU is
# the limit a user may state (Constraints.mfu).
_TRAIN_JOB = pydantic_model(Workload, _Args, only=("task", "context", "recompute", "zero", "train_tokens"), adjust={
    "task": Adjust(annotation=Literal["pretrain", "full", "lora", "qlora", "freeze"], default="pretrain",
                   description="the kind of training"),
    "context": Adjust(annotation=int | None, default=None, limits={"ge": 16, "le": 1_000_000}, aliases=("seq_len",),
                      description="tokens per training sequence"),
    "zero": Adjust(default=3),
    "train_tokens": Adjust(name="tokens", required=True, limits={"gt": 0},
                           description="training tokens (e.g. 2e9 for 2B tokens)"),
})
_TRAIN_LIMITS = pydantic_model(Constraints, _Args, only=("mfu",))


_TRAIN_MODEL = pydantic_model(Workload, _Args, only=("model",), adjust={"model": _MODEL_REQUIRED})


class _TrainOn(_TRAIN_MODEL):  # type: ignore[misc,valid-type]
    """The model and what it trains on (first in the schema)."""

    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=100_000, description="number of GPUs")


# pydantic orders the fields of several bases from the last base to the first
class TrainTimeArgs(_TRAIN_LIMITS, _TRAIN_JOB, _TrainOn):  # type: ignore[misc,valid-type]
    precision: Literal["bf16", "fp16", "fp8"] = "bf16"


# the limits a recommendation takes, flat: the GPU the user owns as two fields (existing_gpu, existing_count) and
# the candidates as a JSON list of at most 20 ids (a bounded request)
_RECOMMEND_LIMITS = pydantic_model(Constraints, _Args, only=(
    "budget", "budget_covers", "currency", "region", "candidates", "max_gpus_per_node", "max_nodes", "power_limit_w", "max_ms_per_token",
    "min_tokens_per_s", "max_ttft_ms", "ttft_percentile", "deadline_s", "buy_or_rent"), adjust={
    "candidates": Adjust(annotation=list[str], default=[], limits={"max_length": 20}),
})
# the person's own rental price ("we rent H100s at $2.50 an hour on AWS"): the rent side of each option's TCO uses
# it instead of the catalog's quotes; three flat fields, all optional (the struct's price is required once one is given)
_RENT = pydantic_model(StatedRent, _Args, only=("per_gpu_hour", "currency", "provider"), adjust={
    "per_gpu_hour": Adjust(name="rent_per_gpu_hour", optional=True,
                           description="the user's own rental price per GPU-hour, when they state one"),
    "currency": Adjust(name="rent_currency", note=" (with rent_per_gpu_hour)"),
    "provider": Adjust(name="rent_provider", description="the cloud the user rents from, when named"),
})
_EXISTING = pydantic_model(ExistingGpus, _Args, adjust={
    "gpu": Adjust(name="existing_gpu", optional=True, description="a GPU the user already owns (id or alias)"),
    "count": Adjust(name="existing_count", optional=True),
})


class RecommendArgs(_RENT, _EXISTING, _RECOMMEND_LIMITS, WorkloadArgs):  # type: ignore[misc,valid-type]
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
            budget=self.budget, budget_covers=self.budget_covers, currency=self.currency, region=self.region,
            existing=existing,
            candidates=tuple(catalog.gpu(c).id for c in self.candidates), max_gpus_per_node=self.max_gpus_per_node,
            max_nodes=self.max_nodes, power_limit_w=self.power_limit_w, max_ms_per_token=self.max_ms_per_token,
            min_tokens_per_s=self.min_tokens_per_s, max_ttft_ms=self.max_ttft_ms,
            ttft_percentile=self.ttft_percentile, deadline_s=self.deadline_s, buy_or_rent=self.buy_or_rent,
            rent=None if self.rent_per_gpu_hour is None else StatedRent(
                per_gpu_hour=self.rent_per_gpu_hour, currency=self.rent_currency, provider=self.rent_provider))
        return AnalysisRequest(workload=self.to_workload(), constraints=constraints, detail="options", strict=True)


_COMPARE_JOB = pydantic_model(Workload, _Args, only=(
    "model", "task", "weights", "kv", "context", "concurrency", "batch", "optimizer", "zero"), adjust={
    "model": Adjust(description="optional: " + _MODEL_DESC),
})


class _CompareOn(_Args):
    gpus: list[str] = Field(min_length=2, max_length=6, description="GPU ids or aliases: " + _GPU_DESC)
    count: int = Field(1, ge=1, le=1024, description="GPUs of each kind (per configuration)")


class CompareGpusArgs(_COMPARE_JOB, _CompareOn):  # type: ignore[misc,valid-type]
    """Compare 2–6 GPUs; with a model, also memory fit (and speed for inference) at `count` GPUs each."""

    def to_workload(self) -> Workload:
        """Inference on `count` GPUs uses tensor parallelism over them; training, data parallelism with ZeRO."""
        tp = self.count if self.task == "inference" else 1
        return Workload(model=self.model, task=self.task, weights=self.weights, kv=self.kv, context=self.context,
                        concurrency=self.concurrency, batch=self.batch, optimizer=self.optimizer, zero=self.zero,
                        gpus=min(self.count, 1024), tp=tp)


# the TCO of one kind of GPU: its currency is CNY unless told (as the CLI's tco), the horizon `years` within what
# advisor.estimator.cost computes (a month to 10 years); a model, its weights and concurrency give cost per token
_TCO_JOB = pydantic_model(Workload, _Args, only=("model", "weights", "concurrency"), adjust={
    "model": Adjust(description="optional: a model for cost per million tokens; " + _MODEL_DESC),
})
_TCO_LIMITS = pydantic_model(Constraints, _Args, only=("currency", "tco_years"), adjust={
    "currency": Adjust(default="CNY"),
    "tco_years": Adjust(name="years", annotation=float | None, limits={"ge": MIN_YEARS, "le": 10},
                        description="ownership period, a month (1/12) to 10 years (default: the economics data's)"),
})


class _TcoOf(_Args):
    gpu: str = Field(min_length=1, description=_GPU_DESC)
    count: int = Field(1, ge=1, le=100_000)


class TcoArgs(_TCO_JOB, _TCO_LIMITS, _TcoOf):  # type: ignore[misc,valid-type]
    utilization: float | None = Field(None, ge=MIN_UTILIZATION, le=1,
                                      description=f"average busy share ({MIN_UTILIZATION:g}–1; default 1)")
    electricity_price: float | None = Field(
        None, gt=0, le=max(MAX_ELECTRICITY.values()),
        description="per kWh, in `currency`: at most " + " or ".join(f"{v:g} {k}" for k, v in MAX_ELECTRICITY.items()),
        json_schema_extra={"x-maximum-by-currency": dict(MAX_ELECTRICITY)})
    gpu_price: float | None = Field(None, gt=0, le=1e8, description="a quoted price per card, in `currency`")
    pue: float | None = Field(None, ge=1, le=3)

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
