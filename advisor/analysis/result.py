"""What an analysis found (mutable structs: the analysis fills them in as it goes): the memory need, each
configuration evaluated, the recommendation, the limits of the user's own configuration, capacity at full load,
the claim checked, the rules' findings."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import msgspec

from advisor.workload import Constraints, PinnedLayout, Workload
from knowledge.quantities import ZERO, Bytes

if TYPE_CHECKING:
    from advisor.analysis.fabric import FabricNeed
    from advisor.analysis.interconnect import LinkShare
    from advisor.analysis.request import QuotedClaim
    from advisor.analysis.smaller import SmallerFit
    from advisor.analysis.variants import VariantNeed
    from advisor.estimator.fit_limits import FitLimits
    from advisor.estimator.results import MemoryEstimate
    from advisor.recommend.recommender import Change, Option, Recommendation
    from knowledge.guides import Claim
    from knowledge.schemas import GpuSpec, ModelSpec
    from rules.findings import Finding


class Assumption(msgspec.Struct):
    """One assumption, in both languages; `{name}` placeholders are numbers rendered (and recorded) by compose."""

    en: str
    zh: str
    numbers: dict[str, tuple[float, str, str]] = msgspec.field(default_factory=dict)  # name -> (value, unit, source)


class ConfigResult(msgspec.Struct):
    """One hardware configuration evaluated for the workload by the memory estimator alone (no recommender)."""

    gpu: GpuSpec
    count: int
    role: str  # "existing", "candidate", "fit" (found by the search), "recommended"
    memory: MemoryEstimate | None = None
    fits: bool = False
    layout: str = ""
    workload: Workload | None = None
    error: str = ""
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


class ClaimCheck(msgspec.Struct):
    """A quoted memory figure against the weights (and KV cache at the stated context) the estimator computes."""

    claim: QuotedClaim
    weights: Bytes
    kv: Bytes
    total: Bytes
    fmt: str
    context: int
    verdict: str  # "too_low", "weights_only", "plausible"
    guide_claim: Claim | None = None  # the guide claim the user is quoting, when one matches
    findings: list[Finding] = msgspec.field(default_factory=list)  # the claims rules' findings for it
    task: str = "inference"  # a training claim ("全量微调 24G 就够") is checked against the training need on one GPU
    states: Bytes = ZERO  # training: gradients + optimizer states + activations on that GPU


class Limits(msgspec.Struct):
    """How far one configuration the user named stretches, from advisor.estimator.memory.estimate_memory with the
    configuration's own layout: the longest context (multiples of CONTEXT_STEP, by bisection) at the asked
    micro-batch or concurrency, and the largest micro-batch (training) or concurrency (inference) at the asked
    context, with the speed there."""

    option: Option  # the recommender's option of that configuration
    training: bool
    context: int  # tokens per sequence as asked
    load: int  # micro-batch per GPU (training) or concurrent sequences (inference) as asked
    max_context: int  # longest context that fits at `load`; 0: none, not even CONTEXT_STEP tokens
    context_cap: int  # the search stopped here (the model's maximum context)
    max_load: int  # largest micro-batch / concurrency at `context`; 0: none
    single_context: int = 0  # when nothing fits at `load` > 1: the longest context of one sequence (micro-batch 1)
    tokens_per_s: float | None = None  # training tokens/s of the configuration as asked
    at_max: dict[str, float] | None = None  # inference at max_load: per-sequence and total decode tokens/s


class EngineRun(msgspec.Struct):
    """One serving engine on one configuration (advisor.analysis.engines): the most precise weight format of the
    engine's usual ones that fits with the recommender's headroom, and the decode speed there ("" / 0: none fits)."""

    engine: str
    gpu: str
    gpu_name: str
    count: int
    weights: str  # the format that fits; "" when none of the engine's formats fits
    per_gpu: Bytes = ZERO  # memory per GPU at that format
    usable: Bytes = ZERO  # what the engine lets the job use of one card
    tokens_per_s: float = 0.0  # decode tokens/s per sequence at the asked concurrency
    tokens_per_s_total: float = 0.0  # all sequences together
    ttft_s: float = 0.0  # median time to first token at that load (0: not computed)
    kv: str = ""  # the KV-cache format when the engine holds the load only with one other than asked ("fp8")
    full_load: int = 0  # timed at its full load: the chat turns it runs at once (max_num_seqs and KV cache); 0: as asked


class PinnedNote(msgspec.Struct):
    """A training layout the user pinned ("TP8 PP4"), as the answer speaks of it (advisor.analysis.pinned_layout):
    kept (`why` empty; `best_*` set when the planner's own layout of the configuration is faster by more than
    PINNED_SLOWER), or refused on the configuration answered with the reason (`why`: English, Chinese)."""

    layout: PinnedLayout  # the degrees as said
    on: str = ""  # the configuration checked: "512× NVIDIA H100 SXM5 80GB"
    why: tuple[str, str] | None = None  # what is wrong with it there, and what is accepted
    wall_s: float | None = None  # the pinned run's wall-clock (run total)
    best: PinnedLayout | None = None  # the planner's own TP/PP (CP, EP) on the same configuration, when faster
    best_wall_s: float | None = None


SAME_CARD_REACH = 4  # more of a named card than 4× its named count is no longer "that setup, somewhat bigger"


class Analysis(msgspec.Struct):
    """Everything an answer about one workload shows (advisor.analysis.evaluate.analyse)."""

    workload: Workload
    constraints: Constraints
    model: ModelSpec
    need: MemoryEstimate | None = None  # on one GPU with no card (the job's memory need)
    need_split: MemoryEstimate | None = None  # per card over `split_count` memory-only cards ("two 24GB cards"), TP
    split_count: int = 1
    configs: list[ConfigResult] = msgspec.field(default_factory=list)  # memory-only answer (no recommender)
    recommendation: Recommendation | None = None
    user_options: list[Option] = msgspec.field(default_factory=list)  # each configuration the user named
    findings: list[Finding] = msgspec.field(default_factory=list)
    claim: ClaimCheck | None = None
    assumptions: list[Assumption] = msgspec.field(default_factory=list)
    unavailable: list[str] = msgspec.field(default_factory=list)  # tools not available in this build
    alternatives: list[Option] = msgspec.field(default_factory=list)  # beyond the named cards when none of them works
    minimum_4bit: Option | None = None  # "minimum configuration?": the lowest new purchase at 4-bit weights
    alternatives_within: int | None = None  # the alternatives were searched within this many GPUs (one server)
    average_speed: dict[str, float] | None = None  # the leading option's speed at the user's average concurrency
    limits: Limits | None = None  # how far the user's own (or one named) configuration stretches
    capacity: dict[tuple[str, int], dict[str, Any]] = msgspec.field(default_factory=dict)  # (gpu, count) -> at full load
    # the leading serving option under the stated load (continuous-batching simulation): TTFT, per-user speed, the
    # concurrency limit for the stated or default TPOT target (advisor.analysis.limits.serving_load)
    load: dict[str, Any] | None = None
    batch: dict[str, Any] | None = None  # a batch-inference job: its requests, the rate they run at, its time
    # "with a ¥2M budget, how many users at most?": copies of the configuration that serves the most users within it
    budget_users: dict[str, Any] | None = None
    rent_cap: dict[str, Any] | None = None  # a training job's budget a month: the cards it rents (analysis.rent_budget)
    precision_runs: list[Option] = msgspec.field(default_factory=list)  # a training run in FP8, then in BF16
    premise: list[Finding] = msgspec.field(default_factory=list)  # findings on what the user assumes (NVLink on a 4090)
    named_changes: list[Change] = msgspec.field(default_factory=list)  # what would make the one configuration named work
    named_config: Option | None = None  # that configuration
    # that configuration with the first of those changes applied when it is a weight format (FP8, INT4) and it then
    # holds the job, and its load at the stated concurrency: "on 2× H100 at 50 users?" answered as changed
    changed_config: Option | None = None
    changed_load: dict[str, Any] | None = None
    # that configuration, not holding every user's whole default context, at the users asked when the paged KV cache
    # holds all their chat turns at once: "50 users of an 8B on one 4090" (load_answers.turns_load)
    turns_load: dict[str, Any] | None = None
    # "how many users can it serve?" answered at whole contexts where the memory binds: the chat turns the paged KV
    # cache holds and how many of them meet the per-token target (load_answers.turns_users)
    turns_users: dict[str, Any] | None = None
    # "what batch fits on it?" when not one sequence does as asked: the limits of changed_config (the batch it holds)
    changed_limits: Limits | None = None
    # the stated load needs too many copies of the leading option (sized for memory) within the default per-token
    # target: the configuration the recommender sizes with that target instead (evaluate._at_default_target)
    at_target: Option | None = None
    bigger_twin: Option | None = None  # the same card with more memory, at the count named, when that one holds the job
    # two or more configurations compared, none holding the job at the checkpoint's precision: each at 4 bits (the
    # GGUF file one person runs on consumer cards, else AWQ), so "2× 3090 or one 4090 for 32B?" is compared as run
    compared_4bit: list[Option] = msgspec.field(default_factory=list)
    intent: str = "other"  # what the question asks (advisor.conversation.reader.intent)
    asks_users: bool = False  # "how many users can it serve?" (intent how_many about concurrency, not GPUs)
    asks_need: bool = False  # "how much memory does it need?" (intent explain: the total need, unsharded)
    asks_speed: bool = False  # "how many tokens per second on …?": the speed first
    asks_fits: bool = False  # "… and is memory enough?": the memory verdict after the answer asked first
    asks_oom: bool = False  # "will it OOM?": the verdict said the other way round ("Yes, it will run out of memory")
    asks_p99: bool = False  # "p99 TTFT?": the load line gives the 99th percentiles too
    asks_rps: bool = False  # "how many requests per second?": the rate at the most users within the target
    rate_period_s: int = 1  # the period that rate was asked in (60: "requests per minute")
    asks_e2e: bool = False  # "how long does a 2000-token answer take?": first token + output × time per token
    asks_ttft: bool = False  # "what's the TTFT …?": the speed lead opens with the first-token time
    asks_speculation: bool = False  # "does speculative decoding help?"
    framework_runs: list[Option] = msgspec.field(default_factory=list)  # one training run per framework compared
    # "does speculative decoding help?": the load without and with it (advisor.analysis.load_answers.speculation)
    speculation: dict[str, Any] | None = None
    chunked: dict[str, Any] | None = None  # "does chunked prefill help?": the load with it and without (load_answers)
    ttft_ladder: dict[str, Any] | None = None  # "how does TTFT grow with the prompt?": the load at each prompt length
    load_ladder: dict[str, Any] | None = None  # "as concurrency goes 1, 8, 32, 128": the load at each concurrency
    served_runs: list[dict[str, Any]] = msgspec.field(default_factory=list)  # "TP8 or 2 × TP4?", "FP8 or BF16?": each under the load
    # "from 50 to 100 users": the same configuration simulated at the load it starts from, beside `load` (load_answers)
    load_change: dict[str, Any] | None = None
    asks_plan: bool = False  # "what global batch and parallelism would you use?": the planned layout and batch
    asks_full_load: bool = False  # "… at full load?": the figures at the most sequences the cards hold
    asks_train_speed: bool = False  # a training job's "tokens/s per GPU?" / "what MFU?": the throughput first
    asks_mfu: bool = False  # "what MFU?": the utilisation before the tokens/s
    asks_servers: bool = False  # "how many servers / 几台": the count in servers first
    pinned: PinnedNote | None = None  # a layout the user pinned: kept or refused (advisor.analysis.pinned_layout)
    count_card: str = ""  # a count said with no card: the card it was answered on (advisor.analysis.evaluate.count_said)
    link: LinkShare | None = None  # "do I need NVLink?": the link's share of a step (advisor.analysis.interconnect)
    fabric: FabricNeed | None = None  # "do I need InfiniBand?": the run over 100 GbE between servers (analysis.fabric)
    asks_kv_token: bool = False  # "how much KV cache per token?": that first (render.lead.kv_token_lead)
    asks_kv_capacity: bool = False  # "KV cache capacity in tokens?": that first (render.figure_leads.kv_capacity_lead)
    asks_tokens_per_day: bool = False  # "how many tokens a day?": the output at full load, first (render.lead)
    asks_power: bool = False  # "its power draw / electricity?": the option's power and yearly energy, first
    asks_launch: bool = False  # "the launch command?": the option's launch line, first
    asks_context: bool = False  # "what's the longest context on it?": the longest context that fits first
    asks_batch: bool = False  # "what batch size can I use?": the largest micro-batch / concurrency that fits first
    variants: list[VariantNeed] = msgspec.field(default_factory=list)  # settings compared, each with its need
    asks_token_cost: bool = False  # "what does a million tokens cost on it?": the cost per token first
    asks_why_count: bool = False  # "why does 70B need two GPUs?": the reason for the count first
    asks_cheapest: bool = False  # "the cheapest hardware for R1": the lowest purchase that fits first
    asks_minimum: bool = False  # "Kimi K2 最低配置": the lowest purchase of new hardware that fits first
    asks_api: bool = False  # "self-host or use an API?": the cheapest hosted API first (render.api_lead)
    api_provider: str | None = None  # the provider named: its quote, the cheapest beside it (render.api_lead)
    asks_monthly: bool = False  # "monthly rent cost": a daily volume's money said a month (render.token_cost)
    asks_cost: bool = False  # "how long and how much?" of a training job: its rent after its time (firstscreen.time_lead)
    engines: list[EngineRun] = msgspec.field(default_factory=list)  # engines compared on one configuration
    reference_method: str = ""  # "DPO": the frozen reference model is said first (what the sizing assumes)
    offload: Option | None = None  # the llama.cpp layer-offload option on the one card named
    offload_asked: bool = False  # the user asked about offload: the answer leads with it
    smaller: list[SmallerFit] = msgspec.field(default_factory=list)  # same-family models that run on the user's own card
    # one named GPU for a training job: spare memory, largest micro-batch and sequence (advisor.estimator.fit_limits)
    fit_limits: FitLimits | None = None
    stated: tuple[str, ...] = ()  # the job's fields the user stated (context, concurrency, …): labelled "user input"
    inferred: tuple[str, ...] = ()  # fields implied by what was said (a concurrency from a request rate): "inferred"
    host_cloud: str | None = None  # the cloud named as the host: the answer names its instance for the lead


def asked_option(ev: Analysis) -> Option | None:
    """The configuration a question about "it" is about: the one the user named, else the option the answer leads
    with (`top_option`)."""
    return ev.user_options[0] if len(ev.user_options) == 1 else top_option(ev)


def top_option(ev: Analysis) -> Option | None:
    """The option the answer leads with: the best of the user's own configurations that fit, else the
    recommender's first; None when nothing fits."""
    if ev.user_options:
        ok = [o for o in ev.user_options if o.fits and o.meets_targets]
        pool = ok or [o for o in ev.user_options if o.fits]
        if pool:
            def key(o: Option) -> tuple[float, float]:
                price = o.price.per_card.amount * o.count if o.price else math.inf
                speed = -o.training.wall.s if o.training else (
                    o.throughput.decode_tokens_per_s_total if o.throughput else 0.0) or 0.0
                return (price, -speed) if ok else (-speed, price)
            return min(pool, key=key)
        return None
    rec = ev.recommendation
    if rec is not None and rec.options:
        return rec.options[0]
    return None
