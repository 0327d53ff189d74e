"""What one message says about the workload (`extract` returns it): the slots, the GPUs and claims it names.

Every field is None / empty when the message does not mention it; the dialog merges turns and applies defaults.
"""

from __future__ import annotations

import msgspec

from advisor.conversation.reader.electricity import ElectricityPrice
from advisor.conversation.reader.ranges import OutOfRange
from advisor.conversation.reader.rental import RentRate
from advisor.workload import TRAINING_TASKS, PinnedLayout
from knowledge.structs import Mutable, fields


class GpuMention(Mutable):
    """A GPU the user named, resolved to a catalog id, with the count they said (None: not said)."""

    gpu: str
    count: int | None = None
    text: str = ""
    assumed: str = ""  # e.g. "A100 taken as the 80 GB SXM4 card" when the name was ambiguous


class Claim(Mutable):
    """A memory figure quoted from a guide or article, to be checked ("文章说 70B 4bit 只要 28GB")."""

    text: str
    value: float
    unit: str  # as typed: "GB", "G", "GiB", "TB"
    bytes_if_gb: float  # value read as decimal GB (1e9)
    bytes_if_gib: float  # value read as GiB (2^30)


class DeviceMention(Mutable):
    """A laptop GPU or an Apple Silicon Mac named by the product (advisor.conversation.reader.devices): its usable
    memory is the slots' capacity."""

    kind: str  # "laptop" or "apple"
    id: str  # knowledge.devices id ("rtx-4060-laptop"; "apple-silicon")
    name: str  # as the answer names it ("GeForce RTX 4060 Laptop GPU"; the user's words for a Mac)
    text: str = ""  # the user's words
    pool_gb: float | None = None  # a Mac's unified memory as sold (GB = GiB)


class SaidLength(Mutable):
    """A prompt or output length said in characters or words (reader.text_length): the slot it fills, the amount and
    its unit ("zh_char", "word", "char"), the tokens per unit used, the tokens read and the user's words."""

    slot: str
    amount: float
    unit: str
    per: float
    tokens: int
    text: str


class Slots(Mutable):
    """What one message says about the workload. None / empty means "not mentioned". Mutable: the dialog merges
    turns into a copy field by field (`dialog.machine.merge`)."""

    model: str | None = None  # catalog id
    model_text: str | None = None  # as typed
    model_assumed: str = ""  # why this catalog model stands for what was said ("70B" -> llama-3.1-70b)
    size_params: float | None = None  # a bare size ("70B", "700亿") when no model was named
    unknown_model: str | None = None  # looked like a model name but is not in the catalog
    models: list[str] = msgspec.field(default_factory=list)  # every catalog model named, in order, when the message names two or more (a comparison)
    task: str | None = None  # a Workload task
    task_generic: str | None = None  # "finetune" or "train" when the method was not said
    weights: str | None = None
    kv: str | None = None
    context: int | None = None
    batch: int | None = None
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    said_lengths: list[SaidLength] | None = None  # lengths said in characters or words ("每条1000字")
    concurrency: int | None = None
    concurrency_avg: int | None = None
    load_from: int | None = None  # "from 50 to 100 users": the load the change starts from (concurrency is the new one)
    load_ladder: tuple[int, ...] | None = None  # "as concurrency goes 1, 8, 32, 128": each load (concurrency: the largest)
    peak_share: float | None = None  # the share of the headcount at once the person states ("高峰 10% 在线", "5% at peak")
    headcount: int | None = None  # people who use the service ("team of 15", "全公司 300 人"), not all at once
    qps: float | None = None
    budget: float | None = None
    other_currency: str | None = None  # a budget said in a currency the catalog does not price in ("€600k")
    budget_gpus: bool | None = None  # the budget was said for the cards alone ("a GPU under $1000", "显卡预算 5000")
    daily_each: float | None = None  # each person's requests a day ("20 msgs/day each"): qps = headcount × it / 86400
    rent_cap_hour: float | None = None  # the most an hour for rented cards ("budget $2/hr", "每小时不超过 20 元")
    budget_monthly: bool | None = None  # the budget is a spend per month ("$40k a month", "每月预算 30 万"): rent
    currency: str | None = None
    region: str | None = None
    existing: GpuMention | None = None
    # a card "we have" with no count ("we only have L40S", "我们有 4090"): sized as the one card to use, how many of
    # it the job takes, not as one card owned
    fleet: str | None = None
    candidates: list[GpuMention] = msgspec.field(default_factory=list)
    gpu_count: int | None = None
    gpu_count_to: int | None = None  # "GPUs from 256 to 512" with no card: the second count (gpu_count the first)
    gpu_cap: int | None = None  # "up to 128 H200s": the most GPUs there are; how many are needed is the question
    # amounts said as a factor of the last one, by what they apply to (reader.factors): "2x the GPUs" {"gpus": 2},
    # "预算翻倍" {"budget": 2}, "double the users" {"users": 2}, "half the context" {"context": 0.5} (dialog.relative)
    scales: dict[str, float] = msgspec.field(default_factory=dict)
    server_size: int | None = None  # GPUs in each server when the count of servers is asked ("how many 4x L40S servers")
    unknown_gpus: list[str] = msgspec.field(default_factory=list)
    train_tokens: float | None = None
    epochs: int | None = None  # "3 epochs", "训练 3 轮": said with a dataset or alone ("and 5 epochs?" rescales it)
    samples: float | None = None  # "一万条数据", "20k samples" said without their length (the dialog assumes one)
    sample_tokens: float | None = None  # "每条大约 800 token" said alone: the length of the samples said before
    job_tokens: float | None = None  # a batch job said as its tokens ("1亿 token 的文档 做摘要"): requests of an assumed length
    job_requests: float | None = None  # "summarise 1 million documents", "批量处理 50 万条数据": a batch-inference job
    deadline_s: float | None = None
    deadline_text: str | None = None  # a deadline said in words ("overnight", "周末"): the words, said with the hours taken
    ttft_ms: float | None = None  # a stated time-to-first-token target ("TTFT under 1 s", "首 token 500ms 以内")
    ttft_pct: int | None = None  # the percentile that target is stated at ("p95 TTFT", "99 分位"): 95 or 99
    tpot_ms: float | None = None  # a stated time-per-output-token target ("TPOT ≤ 50 ms", "每路至少 20 tokens/s")
    latency_text: str | None = None  # the words the latency targets were read from
    e2e_ms: float | None = None  # an end-to-end (whole reply) latency target ("p95 latency under 2 s", "响应时间 2 秒以内")
    e2e_text: str | None = None  # the words it was read from
    rack_text: str | None = None  # a count said in racks ("half a rack of H100"): the rack's size is asked
    min_tokens_per_s: float | None = None  # a total output-throughput target ("5000 tokens/s in total", "总吞吐 5000 token/s")
    throughput_text: str | None = None  # the words it was read from
    tco_years: int | None = None
    claim: Claim | None = None
    engine: str | None = None
    lora_rank: int | None = None
    zero: int | None = None
    optimizer: str | None = None  # a training optimizer named ("8-bit Adam", "adamw_8bit"): Workload.optimizer
    replicas: int | None = None  # copies of the model served side by side ("4 replicas", "4 个副本"), reader.layout
    pinned_layout: PinnedLayout | None = None  # parallel degrees fixed for training ("TP8 PP4", "EP 8"), reader.layout
    layout_asked: bool = False  # "the best parallelism layout for training …": a large run's layout is asked
    mfu: float | None = None  # a training MFU the user states ("assume 35% MFU"), as a fraction
    buy_or_rent: str | None = None
    usage_hours_month: float | None = None  # hours a month the hardware runs ("8 hours a day", "每月 200 小时")
    usage_per_gpu: bool | None = None  # False: "500 GPU-hours a month" is the whole job's, not each card's
    usage_text: str | None = None  # the words the usage was read from
    usage_share: float | None = None  # the usage said as a share of the time ("60% of the time"), 0–1
    tokens_per_day: float | None = None  # a generated-token volume ("1M tokens a day", "30M tokens/month"), per day
    horizon_months: float | None = None  # how long it is used ("用半年", "for 18 months"): a rent-or-buy horizon
    horizon_text: str | None = None
    rent_rate: RentRate | None = None  # a rental price the person states ("at $2.5/GPU-hour", "每小时 12 块"), reader.rental
    electricity: ElectricityPrice | None = None  # an electricity price the person states ("$0.12/kWh", "电价 0.8 元/度")
    condition: str | None = None  # "used" when second-hand cards are asked for
    rent_at: str | None = None  # a cloud named as where the job runs ("host it on Lambda"): reader.rental's name
    job_answer: str | None = None  # what a batch job's answers are when no length is said: "label" ("classify 10M tickets"), "translation"
    coding: bool | None = None  # a coding use ("as a coding assistant", "Qwen2.5-Coder for our devs", "写代码"): its context
    home: bool | None = None  # a home or personal machine ("at home", "my gaming PC", "家用", "笔记本"): llama.cpp-style
    offload: bool | None = None  # llama.cpp layer offload asked for ("加内存卸载", "offload to RAM", "-ngl")
    wants_nvlink: bool | None = None  # the plan joins the cards over NVLink ("两张 4090 用 NVLink 桥接"); False: "no NVLink"
    excluded: list[str] = msgspec.field(default_factory=list)  # cards ruled out ("国内买不到 A100", "not H20", "除了 4090"): never candidates
    excluded_vendors: list[str] = msgspec.field(default_factory=list)  # "no NVIDIA" / "不要英伟达": every card of that vendor ruled out
    bandwidth: float | None = None  # bytes/s of a card typed by its specs ("96 GB at 1.8 TB/s")
    capacity: Claim | None = None  # a card's memory typed without a card name ("28GB 显存够吗", "my card has 24 GB")
    device: DeviceMention | None = None  # a laptop GPU or a Mac named by the product: capacity is its usable memory
    bad_rate: str | None = None  # a zero or negative rental price ("$-3/hour", "0 元/小时"): bad input
    negative: str | None = None  # a count or amount typed with a minus sign ("-5 张 H100"): bad input, not 5
    # intents
    default: bool = False
    reset: bool = False
    injection: bool = False
    greeting: bool = False
    thanks: bool = False
    question_words: bool = False  # the message asks something ("?", "吗", "how", ...)
    advice: bool = False  # asks for hardware advice without saying for what ("帮我推荐显卡", "which GPU should I buy")
    truncated: bool = False
    gib_question: bool = False  # asks whether a card's "GB" is GB or GiB
    refers_previous: bool = False  # "that setup / 这个配置 / 刚才那个": the configuration of the previous answer
    answer_lang: str | None = None  # the language the answers are asked in ("answer in Chinese please", "说英文")
    out_of_range: list[OutOfRange] = msgspec.field(default_factory=list)  # numbers read but outside what can be sized (ranges.reply answers)

    def workload_fields(self) -> dict[str, object]:
        """The non-empty workload slots (everything except intents), for merging and for tests."""
        intents = {"default", "reset", "injection", "greeting", "thanks", "question_words", "truncated", "advice",
                   "gib_question", "refers_previous", "negative", "bad_rate", "out_of_range", "answer_lang", "layout_asked"}
        out: dict[str, object] = {}
        for name in fields(type(self)):
            if name in intents:
                continue
            value = getattr(self, name)
            if value is None or value == [] or value == {} or value == "":
                continue
            out[name] = value
        return out

    @property
    def empty(self) -> bool:
        return not self.workload_fields()

    @property
    def training(self) -> bool:
        """The job is a training one: a training method said, or fine-tuning / training without one."""
        return self.task in TRAINING_TASKS or self.task_generic is not None


__all__ = ["Claim", "DeviceMention", "GpuMention", "Slots"]
