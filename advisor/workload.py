"""The vocabulary every layer shares: what job is to be run (`Workload`) and under which limits (`Constraints`).

Values are validated here, once, with messages naming the field and the accepted range; estimator
functions can then trust their inputs. Tokens are counts, sizes are bytes, times are seconds.
"""


from typing import Annotated, Literal

import msgspec

from knowledge.schemas import MAX_CLUSTER_GPUS, MAX_CLUSTER_NODES
from knowledge.structs import FINITE, Frozen, Meta, bounds

Task = Literal["inference", "full", "lora", "qlora", "freeze", "pretrain"]
WeightFormat = Literal[
    "fp32", "bf16", "fp16", "fp8", "int8", "int4",
    "gptq-int4", "gptq-int8", "awq-int4", "nf4", "bnb-4bit", "bnb-int8",
    "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "q3_k_m", "q2_k", "mxfp4", "nvfp4",
    "iq1_s", "iq1_m", "iq2_xxs", "iq2_xs", "iq2_s", "iq2_m", "iq3_xxs", "iq3_s", "iq3_m", "iq4_xs", "iq4_nl", "mxfp4_moe",
    "int4-experts",
]
KvFormat = Literal["fp16", "bf16", "fp8", "int8", "int4", "fp32"]
Optimizer = Literal["adamw", "adamw8bit", "sgd", "adamw-bf16"]
Recompute = Literal["none", "selective", "full"]
# the training objective: supervised (sft) or a TRL preference method. DPO/IPO (DPOTrainer) and KTO keep a frozen
# reference model unless trained through a PEFT adapter; DPO/IPO/ORPO/SimPO run chosen + rejected per prompt
Method = Literal["sft", "dpo", "ipo", "kto", "orpo", "simpo"]
Offload = Literal["none", "optimizer", "all"]
Engine = Literal["transformers", "transformers-compiled", "vllm", "llama.cpp", "sglang", "trtllm", "deepspeed", "megatron",
                 "fsdp"]
Region = Literal["cn", "global"]
Currency = Literal["CNY", "USD"]

TRAINING_TASKS: frozenset[str] = frozenset({"full", "lora", "qlora", "freeze", "pretrain"})
DEFAULT_CONTEXT = 4096  # tokens per sequence when neither the user nor the model's data gives one

# the default as its own object: `knowledge.structs.given(w, "context")` tells a context left unset from one the
# caller gave, even DEFAULT_CONTEXT itself (the recommender then sizes for the model's own default context)
_CONTEXT_DEFAULT = int(str(DEFAULT_CONTEXT))


# One chat turn, the lengths a serving speed is estimated for when the user gives none: ShareGPT conversations as the
# vLLM and SGLang benchmark clients sample them average ≈ 215 prompt and ≈ 195 output tokens per request (SGLang's
# offline run: 4,281 output tokens/s at 22.03 requests/s = 194 per request; source sglang-vllm-060-bench). The
# memory is still sized for whole-context sequences; only speed, time to first token and load use these.
CHAT_PROMPT_TOKENS = 215
CHAT_OUTPUT_TOKENS = 195
# a batch job that classifies, labels or scores each item answers with a label, not a chat turn: a class name or a
# short JSON object ({"label": "billing"}) is a few to a dozen tokens with its end token; 16 is the assumption stated
# with the answer (a judgment, not a measurement), replaced by any length the person says
LABEL_OUTPUT_TOKENS = 16


def job_answer_tokens(kind: str, prompt: int) -> int:
    """The answer length of a batch job's item by what the job makes of it, when no length was said: a label
    (LABEL_OUTPUT_TOKENS) or a translation, as long as its source (a judgment stated with the answer: tokens per
    sentence differ by language pair and tokenizer)."""
    return LABEL_OUTPUT_TOKENS if kind == "label" else prompt


def request_lengths(context: int, prompt: int | None, output: int | None) -> tuple[int, int]:
    """(prompt, output) tokens of one request for the estimators: the stated ones, else a whole-context request
    (prompt = half the context, output = the rest), as the memory is sized. Callers that want a chat turn's
    lengths when none are stated apply `speed_workload` first (dialog, recommender, `gpu-advisor throughput`)."""
    p = int(prompt or max(1, context // 2))
    return p, int(output or max(1, context - p))


def speed_workload(w: "Workload") -> "Workload":
    """The workload whose serving speed is estimated: the prompt/output lengths stated, else one chat turn's
    (CHAT_PROMPT_TOKENS, CHAT_OUTPUT_TOKENS) within the context; training and stated lengths unchanged."""
    if w.task != "inference" or w.prompt_tokens is not None:
        return w
    if w.output_tokens is not None:  # an answer's length alone ("8k-token answers"): a chat turn's prompt before it
        return msgspec.structs.replace(w, prompt_tokens=min(CHAT_PROMPT_TOKENS, max(1, w.context - w.output_tokens)))
    prompt = min(CHAT_PROMPT_TOKENS, max(1, w.context // 2))
    output = min(CHAT_OUTPUT_TOKENS, max(1, w.context - prompt))
    return msgspec.structs.replace(w, prompt_tokens=prompt, output_tokens=output)


def chat_lengths(w: "Workload") -> bool:
    """Whether `w`'s request lengths are a chat turn's defaults (unstated, or CHAT_PROMPT/OUTPUT_TOKENS): one length
    for every request, where a tail percentile needs the spread of real conversations."""
    return w.prompt_tokens is None or w.output_tokens is None or (
        w.prompt_tokens, w.output_tokens) == (CHAT_PROMPT_TOKENS, CHAT_OUTPUT_TOKENS)


def spread_for_tail(w: "Workload", percentile: int) -> bool:
    """Whether a first-token target at `percentile` is judged on request lengths spread as conversations are: a tail
    percentile (above the median) on a chat turn's default lengths, where one length would put the tail at the median."""
    return percentile > 50 and chat_lengths(w)


def default_context(model: object | None) -> int:
    """Tokens per sequence to size for when the user gave none: the model's own `default_context` (reasoning
    models such as DeepSeek-R1 write 16–32k-token answers; cited in knowledge/data/models), else DEFAULT_CONTEXT.
    The one place this default is decided (recommender, dialog and CLI ask here)."""
    own = getattr(model, "default_context", None)
    return int(own) if own else DEFAULT_CONTEXT


# the longest sequence sized: Llama 4 Scout's "10M" context, 10 × 2²⁰ tokens (its config's max_position_embeddings,
# knowledge/data/models), the longest of any catalog model
MAX_CONTEXT = 10_485_760


class PinnedLayout(Frozen):
    """Parallel degrees the user fixed for a planned training run ("TP8 PP4", "EP 8"), None where the planner
    chooses. The GPU count is the configuration's (DP = GPUs ÷ (TP·PP·CP)); a DP said ("TP8×PP4×DP16") states the
    count it implies. Checked against the GPUs, the model and the memory where the run is planned
    (advisor.analysis.pinned_layout), not here: a job names no GPUs."""

    tp: Annotated[int, Meta(ge=1, le=1024, description="tensor-parallel degree")] | None = None
    pp: Annotated[int, Meta(ge=1, le=1024, description="pipeline stages")] | None = None
    cp: Annotated[int, Meta(ge=1, le=1024, description="context-parallel degree")] | None = None
    ep: Annotated[int, Meta(ge=1, le=1024, description="expert-parallel degree (MoE)")] | None = None
    dp: Annotated[int, Meta(ge=1, le=100_000, description="data-parallel degree")] | None = None

    @property
    def split(self) -> int:
        """GPUs of one model copy: TP × PP × CP (the degrees not fixed count 1)."""
        return (self.tp or 1) * (self.pp or 1) * (self.cp or 1)

    def after(self, earlier: "PinnedLayout | None") -> "PinnedLayout":
        """These degrees over an earlier turn's ("and with TP 4?" keeps its PP); a DP goes with its own turn's count."""
        if earlier is None:
            return self
        return PinnedLayout(tp=self.tp or earlier.tp, pp=self.pp or earlier.pp, cp=self.cp or earlier.cp,
                            ep=self.ep or earlier.ep, dp=self.dp)

    def text(self, sep: str = ", ") -> str:
        """"TP 8, PP 4" (the degrees fixed, in Megatron's order, joined by `sep`), as the answer names the layout."""
        return sep.join(f"{name} {v}" for name, v in (("TP", self.tp), ("PP", self.pp), ("CP", self.cp),
                                                     ("EP", self.ep), ("DP", self.dp)) if v is not None)


class Workload(Frozen):
    """One LLM job. `model` is a catalog id or alias; `None` means "not said yet" (the dialog asks)."""

    model: str | None = None
    task: Annotated[Task, Meta(description="inference, or the kind of training")] = "inference"
    weights: Annotated[WeightFormat, Meta(description="weight format (unset: the checkpoint's own precision; nf4 for qlora)")] | None = None
    kv: Annotated[KvFormat, Meta(description="KV-cache format")] = "fp16"
    context: Annotated[int, Meta(ge=1, le=MAX_CONTEXT, description="tokens per sequence (prompt + output)")] = _CONTEXT_DEFAULT
    batch: Annotated[int, Meta(ge=1, le=100_000, description="micro-batch per GPU for training; sequences for inference")] = 1
    concurrency: Annotated[int, Meta(ge=1, le=100_000, description="concurrent sequences served")] = 1
    prompt_tokens: Annotated[int, Meta(ge=1, le=MAX_CONTEXT, description="prompt tokens per request")] | None = None
    output_tokens: Annotated[int, Meta(ge=1, le=MAX_CONTEXT, description="generated tokens per request")] | None = None
    optimizer: Annotated[Optimizer, Meta(description="training optimizer (its state per parameter)")] = "adamw"
    zero: Annotated[int, Meta(ge=0, le=3, description="DeepSpeed ZeRO stage")] = 0
    offload: Annotated[Offload, Meta(description="training: ZeRO offload of the optimizer state (or all) to host RAM")] = "none"
    gpus: Annotated[int, Meta(ge=1, le=1024, description="GPUs per node")] = 1
    nodes: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_NODES, description="nodes (servers)")] = 1
    tp: Annotated[int, Meta(ge=1, le=1024, description="tensor-parallel degree: divides the model's attention heads; "
                                                      "tp × pp ≤ gpus × nodes",
                            extra_json_schema={"x-model-rule": "divides num_attention_heads"})] = 1
    pp: Annotated[int, Meta(ge=1, le=1024, description="pipeline stages: at most the model's layers; tp × pp ≤ gpus × nodes",
                            extra_json_schema={"x-model-rule": "at most num_layers"})] = 1
    attention_dp: Annotated[bool, Meta(description="serving an MLA model (DeepSeek-V2/V3, Kimi K2): attention data-parallel "
                                       "over the TP group (SGLang --enable-dp-attention; vLLM --data-parallel-size with "
                                       "--enable-expert-parallel): each GPU keeps the whole attention and the KV cache of "
                                       "its own share of the sequences; the rest stays split tp ways")] = False
    recompute: Annotated[Recompute, Meta(description="activation recomputation (unset: full for fine-tuning, selective for pre-training)")] | None = None
    lora_rank: Annotated[int, Meta(ge=1, le=4096, description="LoRA rank")] = 16
    grad_accum: Annotated[int, Meta(ge=1, le=100_000, description="training: micro-batches per optimizer step (gradients stay live between them; HF Trainer default 1)")] = 1
    lora_targets: Annotated[Literal["attention", "all-linear"], Meta(description="the layers LoRA adapts")] = "all-linear"
    method: Annotated[Method, Meta(description="training objective: sft, or a preference method (dpo/ipo/kto keep a frozen reference model without a LoRA adapter; dpo/ipo/orpo/simpo run chosen + rejected sequences per prompt)")] = "sft"
    engine: Annotated[Engine, Meta(description="runtime (unset: vllm for serving, transformers for training)")] | None = None
    train_tokens: Annotated[float, Meta(ge=1, le=1e15, description="token budget for training"), FINITE] | None = None
    flash_attention: Annotated[bool, Meta(description="FlashAttention (unset: on where the GPU supports it)")] | None = None
    train_precision: Annotated[Literal["bf16", "fp8"], Meta(description="pre-training / full fine-tuning: the GEMMs' "
                               "precision (unset: FP8 for families published in FP8 on cards with FP8 tensor cores, "
                               "else BF16)")] | None = None
    # pre-training / full fine-tuning: the parallel degrees the user fixed (unset: the planner chooses the layout)
    pinned_layout: PinnedLayout | None = None

    def check_invariants(self) -> None:
        world = self.gpus * self.nodes
        if self.tp * self.pp > world:
            raise ValueError(
                f"tp × pp = {self.tp * self.pp} exceeds the {world} GPUs (gpus × nodes); accepted: tp × pp ≤ gpus × nodes"
            )
        if self.attention_dp and (self.task != "inference" or self.tp < 2):
            raise ValueError("attention_dp splits a serving TP group's sequences over its GPUs; accepted: task "
                             "inference with tp ≥ 2")
        if self.task == "qlora" and self.weights not in (None, "nf4", "bnb-4bit", "int4", "gptq-int4", "awq-int4"):
            raise ValueError(f"QLoRA needs a 4-bit base (nf4), not '{self.weights}'; accepted: nf4 or leave unset")

    @property
    def world_size(self) -> int:
        return self.gpus * self.nodes

    @property
    def is_training(self) -> bool:
        return self.task in TRAINING_TASKS


class ExistingGpus(Frozen):
    gpu: str
    count: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_GPUS)]


class StatedRent(Frozen):
    """A rental price the person states for themselves ("$2.50 per GPU-hour on AWS", "每卡每小时 18 元"): per
    GPU-hour in `currency`, the provider named, and the card it was said for (None: no card named, so it prices
    every card sized). It replaces the catalog's quote in the rent comparison of that card."""

    per_gpu_hour: Annotated[float, Meta(gt=0, le=1e6, description="rental price per GPU-hour, in currency"), FINITE]
    currency: Annotated[Currency, Meta(description="currency of the rental price")] = "USD"
    provider: str | None = None
    gpu: str | None = None


class StatedElectricity(Frozen):
    """An electricity price the person states ("$0.12/kWh", "电价 0.8 元/度"): per kWh at the meter, in `currency`.
    It replaces economics.yaml's dated price in every power cost, TCO, rent-or-buy comparison and cost per token
    (advisor.estimator.cost.estimate_tco, converted at the dated exchange rate when the answer is in the other
    currency). `said_in`: a currency the catalog does not price in ("EUR" for "€0.20/kWh"), whose amount is taken as
    `currency` with no exchange rate (the answer says so)."""

    per_kwh: Annotated[float, Meta(gt=0, le=20, description="electricity price per kWh, in currency"), FINITE]
    currency: Annotated[Currency, Meta(description="currency of the electricity price")] = "USD"
    said_in: Annotated[str, Meta(description="the currency it was said in when not USD or CNY (no exchange rate "
                                             "applied)")] | None = None


class Constraints(Frozen):
    """Limits on the hardware that may be recommended."""

    budget: Annotated[float, Meta(gt=0, le=1e12, description="upper limit on the purchase price, in currency"), FINITE] | None = None
    # a budget spent every month on rented cards ("$40k a month", "每月预算 30 万"): what it rents around the clock
    # (730 h a month) at the stated or the catalog's price per GPU-hour stands in for a purchase budget
    monthly_rent_budget: Annotated[float, Meta(gt=0, le=1e12, description="rental spend per month, in currency"), FINITE] | None = None
    no_offload: bool = False  # the person rules out CPU offload ("without offloading", "不要卸载"): none is searched
    rent_budget_hourly: bool = False  # the rental budget was said per hour ("$2/hr max"): monthly = it × 730 h
    currency: Annotated[Currency, Meta(description="currency of budget and prices")] = "USD"
    # what the budget pays for: the whole machine (cards and the rest of the server, the default) or the cards alone
    # ("a GPU under $1000", "显卡预算 5000")
    budget_covers: Annotated[Literal["system", "gpus"], Meta(description="what the budget pays for: the whole machine or the GPUs alone")] = "system"
    region: Annotated[Region, Meta(description="market whose prices and availability apply: 'cn' for mainland China (export rules apply), else 'global'")] = "global"
    existing: ExistingGpus | None = None  # hardware the user already owns: recommend how to use it
    # cards the user already has in a number not said ("we only have A800s", "公司就几张 H800"): sized like any card,
    # but the market rules judge them as owned (in hand, not a purchase) and they may lead where they are not sold new
    owned: Annotated[tuple[str, ...], Meta(description="GPU ids the user already has, count not said: judged as owned by the market rules")] = ()
    # restrict the search to these GPU ids ("we sell H20, L20 and 4090 servers")
    candidates: Annotated[tuple[str, ...], Meta(description="only consider these GPUs")] = ()
    # the candidates are a pool the search chooses from (the cards a named cloud rents, every card but those ruled
    # out), not cards the user named: the named-card behaviours (no default speed target, a 4-bit lead on each card,
    # the stack preference skipped) do not apply
    candidates_pool: Annotated[bool, Meta(description="candidates are a pool to choose from, not cards the user named")] = False
    max_gpus_per_node: Annotated[int, Meta(ge=1, le=16, description="GPUs per server at most")] = 8
    max_nodes: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_NODES)] = 64
    power_limit_w: Annotated[float, Meta(gt=0, le=1e9, description="power limit in watts"), FINITE] | None = None
    max_ms_per_token: Annotated[float, Meta(gt=0, le=1e6, description="per-sequence decode latency target"), FINITE] | None = None
    min_tokens_per_s: Annotated[float, Meta(gt=0, le=1e12, description="total throughput target"), FINITE] | None = None
    # a request rate the user stated ("3 requests per second"); min_tokens_per_s is then its output, rate × tokens out
    requests_per_s: Annotated[float, Meta(gt=0, le=1e9, description="request rate the user stated (requests/s)"), FINITE] | None = None
    max_ttft_ms: Annotated[float, Meta(gt=0, le=3.6e6, description="time-to-first-token target (ms)"), FINITE] | None = None
    # the percentile of the simulated first-token times that target is judged at (50: the median)
    ttft_percentile: Annotated[Literal[50, 95, 99], Meta(description="percentile the TTFT target is judged at: 50, 95 or 99")] = 50
    deadline_s: Annotated[float, Meta(gt=0, le=3.2e9, description="training must finish within this wall time (seconds; at most ~100 years)"), FINITE] | None = None
    tco_years: Annotated[float, Meta(gt=0, le=15, description="TCO horizon in years (unset: the economics default)"), FINITE] | None = None
    buy_or_rent: Literal["buy", "rent", "either"] = "either"
    mfu: Annotated[float, Meta(gt=0, le=1, description="a training MFU the user states (0–1); None: the calibrated one"), FINITE] | None = None
    condition: Annotated[Literal["new", "used"], Meta(description="price cards new (a company purchase) or used (second-hand)")] = "new"
    rent: StatedRent | None = None  # a rental price the person states: it prices the rent comparison of its card
    electricity: Annotated[StatedElectricity, Meta(description="an electricity price the person states; unset: the "
                                                   "economics data's dated price")] | None = None


def field_bounds(model: type[msgspec.Struct], name: str) -> tuple[float | None, float | None, bool, bool]:
    """(lo, hi, lo_open, hi_open) of a struct field's ge/gt/le/lt limits: one place for each limit, read by the
    CLI's option types and the chat's range check."""
    return bounds(model, name)


def named_cards(c: Constraints) -> tuple[str, ...]:
    """The cards the user named: `candidates`, unless they are a pool to choose from (`candidates_pool`)."""
    return () if c.candidates_pool else c.candidates
