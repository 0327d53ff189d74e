"""What an analysis is asked: the workload and constraints, the configurations the user named, the claim quoted,
and what the question asks (typed records; the dialog builds one from its slots, the agent's tool from its
arguments)."""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta

from advisor.workload import Constraints, Workload
from knowledge.quantities import Bytes
from knowledge.structs import Frozen

Role = Literal["existing", "candidate"]


class NamedConfig(Frozen):
    """A configuration the user named: a catalog GPU id and the count they said (None: not said)."""

    gpu: str
    count: int | None = None
    role: Role = "candidate"
    count_only: bool = False  # a count said without a card ("what if we only have four?"): the leading card re-counted


class QuotedClaim(Frozen):
    """A memory figure quoted from a guide or article ("文章说 70B 4bit 只要 28GB"), as the extractor read it."""

    text: str
    value: float
    unit: str  # as typed: "GB", "G", "GiB", "TB"
    bytes_if_gib: float  # value read as GiB (2^30): the reading the check holds against the estimate

    @property
    def amount(self) -> Bytes:
        """The quoted figure read as GiB, as Bytes."""
        return Bytes.of(self.bytes_if_gib)


class AnalysisRequest(Frozen):
    """One analysis: everything :func:`advisor.analysis.evaluate.analyse` reads.

    `detail` "options" computes only what the option list needs (memory need, the recommendation) — the agent's
    `recommend` tool; "answer" adds the user's configurations, limits, capacity, claims and premises. `strict`
    lets a failing recommender raise instead of answering from the memory estimator alone."""

    workload: Workload
    constraints: Constraints
    named: tuple[NamedConfig, ...] = ()
    claim: QuotedClaim | None = None
    concurrency_avg: int | None = None  # the average load next to the peak the workload is sized for
    job_requests: Annotated[float, Meta(ge=1, le=1e12)] | None = None  # a batch-inference job's requests
    concurrency_given: bool = False  # the user said a concurrency or a request rate
    ttft_target_s: Annotated[float, Meta(gt=0, le=3600)] | None = None  # a stated time-to-first-token target
    offload_asked: bool = False  # the user asked about layer offload: the answer leads with it
    wants_nvlink: bool = False  # the user's plan takes NVLink between the named cards for granted
    intent: str = "other"  # what the question asks (advisor.conversation.reader.intent)
    # GPUs said with no card ("train it on 2048 GPUs"): a training job is answered at that count, on the search's
    # leading card (advisor.analysis.evaluate.count_said)
    count_said: Annotated[int, Meta(ge=1, le=65536)] | None = None
    count_said_to: Annotated[int, Meta(ge=1, le=65536)] | None = None  # "GPUs from 256 to 512": the second count
    # cards known only by their memory, counted ("two 24GB cards"): the need is also split over that many
    capacity_count: Annotated[int, Meta(ge=1, le=1024)] | None = None
    stated: tuple[str, ...] = ()  # the workload fields the user stated (the rest are defaults or inferred)
    inferred: tuple[str, ...] = ()  # fields implied by what was said (a concurrency from a request rate)
    host_cloud: str | None = None  # the cloud named as the host ("on AWS"): its cards are the candidates
    asks_users: bool = False  # "how many users can it serve?"
    asks_context: bool = False  # "what's the longest context on it?"
    asks_batch: bool = False  # "what batch size can I use?"
    # settings of one field compared ("LoRA vs QLoRA", "8-bit KV cache?"): (field, value) each (reader.variants)
    variants: tuple[tuple[str, str | int], ...] = ()
    asks_need: bool = False  # "how much memory does it need?"
    asks_speed: bool = False  # "how many tokens per second on …?"
    asks_full_load: bool = False  # "at full load", "满载"
    asks_fits: bool = False  # "显存够吗", "is the memory enough?" beside another question
    asks_oom: bool = False  # "will it OOM?", "会爆显存吗": whether it fits, asked so that yes means it does not
    asks_p99: bool = False  # "p99 latency?": the 99th percentiles beside the median
    asks_rps: bool = False  # "how many requests per second can it handle?", "每秒能处理多少请求"
    asks_e2e: bool = False  # "how long does a 2000-token answer take?": the whole answer's time
    asks_ttft: bool = False  # "what's the TTFT …?": the first-token time said first
    asks_speculation: bool = False  # "does speculative decoding help?": the load with and without it
    asks_chunked: bool = False  # "does chunked prefill help TTFT?": the load with and without it
    asks_ttft_ladder: bool = False  # "how does TTFT change with prompt length?": the load at a ladder of prompts
    load_from: int | None = None  # "from 50 to 100 users": the load the change starts from (the workload's is the new)
    load_ladder: tuple[int, ...] = ()  # "as concurrency goes 1, 8, 32, 128": each load simulated (the largest is the workload's)
    frameworks: tuple[str, ...] = ()  # "Megatron vs FSDP vs DeepSpeed?": the training run planned with each
    tp_compared: tuple[int, ...] = ()  # "TP8 or 2 replicas of TP4?": the served model at each TP degree
    served_formats: bool = False  # "how much throughput do I lose going from FP8 to BF16?": each format's speed
    asks_plan: bool = False  # "what global batch and parallelism?": the planned run's layout and batch
    rate_period_s: Annotated[int, Meta(ge=1, le=86400)] = 1  # the period the rate is asked in: 60 "per minute"
    asks_train_speed: bool = False  # training: "tokens/s per GPU?", "what MFU?"
    asks_mfu: bool = False  # training: "what MFU?" (the utilisation opens the throughput answer)
    asks_servers: bool = False  # "how many servers / 几台服务器?": the count in servers
    asks_link: bool = False  # "do I need NVLink?": the link's share of a step (advisor.analysis.interconnect)
    asks_fabric: bool = False  # "do I need InfiniBand?": the training run over 100 GbE between servers (analysis.fabric)
    asks_kv_token: bool = False  # "how much KV cache per token?": one token's cache over all layers, first
    asks_kv_capacity: bool = False  # "how many tokens of KV cache on 2× H100?": the pool the engine reserves, first
    asks_tokens_per_day: bool = False  # "how many tokens a day can it generate?": the output at full load × 86,400 s
    asks_power: bool = False  # "what is its power draw / electricity cost?": the option's power and yearly energy
    asks_launch: bool = False  # "启动命令怎么写": the engine's launch line for the configuration, first
    asks_token_cost: bool = False  # "what does a million tokens cost on …?"
    asks_why_count: bool = False  # "why does 70B need two GPUs?": the reason for the count first
    asks_cheapest: bool = False  # "the cheapest hardware for R1": the lowest purchase that fits first
    asks_minimum: bool = False  # "Kimi K2 最低配置": the lowest purchase of new hardware that fits first
    asks_api: bool = False  # "self-host or use an API?": the cheapest hosted API against the configuration owned
    api_provider: str | None = None  # the provider the question names ("is paying Groq cheaper …"): its quote first
    asks_monthly: bool = False  # "monthly rent cost": money said a month
    asks_cost: bool = False  # "how long and how much?" of a training job: its rent said with its time
    engines: tuple[str, ...] = ()  # serving engines compared ("vLLM or llama.cpp?"), each sized and timed
    reference_method: str = ""  # "DPO": a preference method that keeps a frozen reference model
    detail: Literal["answer", "options"] = "answer"
    strict: bool = False

    @property
    def count_named(self) -> bool:
        """Whether a configuration was named with its count ("on 2 H100s"); a card named bare ("on rented H100s")
        leaves the count to the analysis (a budget's copies, a job's day, the count that batches)."""
        return any(m.count for m in self.named)
