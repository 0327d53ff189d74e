"""The vocabulary every layer shares: what job is to be run (`Workload`) and under which limits (`Constraints`).

Values are validated here, once, with messages naming the field and the accepted range; estimator
functions can then trust their inputs. Tokens are counts, sizes are bytes, times are seconds.
"""

from __future__ import annotations

from typing import Literal

from knowledge.record import Field, Record

Task = Literal["inference", "full", "lora", "qlora", "freeze", "pretrain"]
WeightFormat = Literal[
    "fp32", "bf16", "fp16", "fp8", "int8", "int4",
    "gptq-int4", "gptq-int8", "awq-int4", "nf4", "bnb-4bit", "bnb-int8",
    "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "q3_k_m", "q2_k", "mxfp4", "nvfp4",
    "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq2_m", "iq3_xxs", "iq3_s", "iq3_m", "iq4_xs", "iq4_nl", "mxfp4_moe",
]
KvFormat = Literal["fp16", "bf16", "fp8", "int8", "int4", "fp32"]
Optimizer = Literal["adamw", "adamw8bit", "sgd", "adamw-bf16"]
Recompute = Literal["none", "selective", "full"]
Offload = Literal["none", "optimizer", "all"]
Engine = Literal["transformers", "transformers-compiled", "vllm", "llama.cpp", "sglang", "trtllm", "deepspeed", "megatron",
                 "fsdp"]
Region = Literal["cn", "global"]
Currency = Literal["CNY", "USD"]

TRAINING_TASKS: frozenset[str] = frozenset({"full", "lora", "qlora", "freeze", "pretrain"})
DEFAULT_CONTEXT = 4096  # tokens per sequence when neither the user nor the model's data gives one


def default_context(model: object | None) -> int:
    """Tokens per sequence to size for when the user gave none: the model's own `default_context` (reasoning
    models such as DeepSeek-R1 write 16–32k-token answers; cited in knowledge/data/models), else DEFAULT_CONTEXT.
    The one place this default is decided (recommender, dialog and CLI ask here)."""
    own = getattr(model, "default_context", None)
    return int(own) if own else DEFAULT_CONTEXT


class Workload(Record):
    """One LLM job. `model` is a catalog id or alias; `None` means "not said yet" (the dialog asks)."""

    model: str | None = None
    task: Task = "inference"
    weights: WeightFormat | None = None  # None: the task's default (bf16 inference, nf4 for qlora, …)
    kv: KvFormat = "fp16"
    context: int = Field(default=DEFAULT_CONTEXT, ge=1, le=10_000_000,
                         description="tokens per sequence (prompt + output)")
    batch: int = Field(default=1, ge=1, le=100_000,
                       description="micro-batch per GPU for training; sequences for inference")
    concurrency: int = Field(default=1, ge=1, le=100_000, description="concurrent sequences served")
    prompt_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    output_tokens: int | None = Field(default=None, ge=1, le=10_000_000)
    optimizer: Optimizer = "adamw"
    zero: int = Field(default=0, ge=0, le=3)
    offload: Offload = "none"
    gpus: int = Field(default=1, ge=1, le=1024, description="GPUs per node")
    nodes: int = Field(default=1, ge=1, le=4096)
    tp: int = Field(default=1, ge=1, le=1024)
    pp: int = Field(default=1, ge=1, le=1024)
    recompute: Recompute | None = None  # None: full for fine-tuning, selective for pre-training, n/a for inference
    lora_rank: int = Field(default=16, ge=1, le=4096)
    grad_accum: int = Field(default=1, ge=1, le=100_000,
                            description="micro-batches per optimizer step (HF Trainer default 1)")
    lora_targets: Literal["attention", "all-linear"] = "all-linear"
    engine: Engine | None = None  # None: vllm for serving, transformers for training
    train_tokens: float | None = Field(default=None, ge=1, le=1e15, allow_inf_nan=False,
                                       description="token budget for training")
    flash_attention: bool | None = None  # None: on where the GPU supports it

    def check_invariants(self) -> None:
        world = self.gpus * self.nodes
        if self.tp * self.pp > world:
            raise ValueError(
                f"tp × pp = {self.tp * self.pp} exceeds the {world} GPUs (gpus × nodes); accepted: tp × pp ≤ gpus × nodes"
            )
        if self.task == "qlora" and self.weights not in (None, "nf4", "bnb-4bit", "int4", "gptq-int4", "awq-int4"):
            raise ValueError(f"QLoRA needs a 4-bit base (nf4), not '{self.weights}'; accepted: nf4 or leave unset")

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def is_training(self) -> bool:
        return self.task in TRAINING_TASKS


class ExistingGpus(Record):
    gpu: str
    count: int = Field(ge=1, le=4096)


class Constraints(Record):
    """Limits on the hardware that may be recommended."""

    budget: float | None = Field(default=None, gt=0, le=1e12, allow_inf_nan=False,
                                 description="upper limit on purchase price")
    currency: Currency = "USD"
    region: Region = "global"
    existing: ExistingGpus | None = None  # hardware the user already owns: recommend how to use it
    candidates: tuple[str, ...] = ()  # restrict the search to these GPU ids ("we sell H20, L20 and 4090 servers")
    max_gpus_per_node: int = Field(default=8, ge=1, le=16)
    max_nodes: int = Field(default=64, ge=1, le=4096)
    power_limit_w: float | None = Field(default=None, gt=0, le=1e9, allow_inf_nan=False)
    max_ms_per_token: float | None = Field(default=None, gt=0, le=1e6, allow_inf_nan=False,
                                           description="per-sequence decode latency target")
    min_tokens_per_s: float | None = Field(default=None, gt=0, le=1e12, allow_inf_nan=False,
                                           description="total throughput target")
    deadline_s: float | None = Field(default=None, gt=0, le=3.2e9, allow_inf_nan=False,  # ~100 years
                                      description="training must finish within this wall time")
    tco_years: float | None = Field(default=None, gt=0, le=15, allow_inf_nan=False,
                                    description="TCO horizon; None: the economics default")
    buy_or_rent: Literal["buy", "rent", "either"] = "either"
    mfu: float | None = Field(default=None, gt=0, le=1, allow_inf_nan=False,
                              description="a training MFU the user states (0–1); None: the calibrated one")
    condition: Literal["new", "used"] = "new"  # a company purchase is priced new unless used cards are asked for


def field_bounds(model: type[Record], name: str) -> tuple[float | None, float | None, bool, bool]:
    """(lo, hi, lo_open, hi_open) of a model field's ge/gt/le/lt constraints: one place for each limit, read
    by the CLI's option types and the chat's range check."""
    lo = hi = None
    lo_open = hi_open = False
    for meta in model.model_fields[name].metadata:
        if getattr(meta, "ge", None) is not None:
            lo, lo_open = meta.ge, False
        if getattr(meta, "gt", None) is not None:
            lo, lo_open = meta.gt, True
        if getattr(meta, "le", None) is not None:
            hi, hi_open = meta.le, False
        if getattr(meta, "lt", None) is not None:
            hi, hi_open = meta.lt, True
    return lo, hi, lo_open, hi_open
