"""Result schemas of the speed, training-time and cost estimators.

SI units inside (seconds, tokens/s, bytes, FLOP, watts, kWh). The durations that reach the answers are
:class:`~knowledge.quantities.Seconds` (time to first token, time per output token, a request's and a run's
wall-clock: the renderers read ms, hours or days from them, never by hand); the step-time breakdowns, the capacity
figures and the per-step parts stay floats in seconds (the estimator's own numbers, dumped as they are). Money is
:class:`~knowledge.quantities.Money`.
Every result carries the formula lines that produced it and the assumptions it rests on; `to_contract()` gives
exactly the `--json` keys of DESIGN.md (plus documented extras).
"""


import datetime as dt
from typing import Any, Literal

import msgspec

from knowledge.quantities import Money, Seconds
from knowledge.structs import Frozen, NonNegativeFloat, NonNegativeInt, PositiveFloat, PositiveInt, dump

Bound = Literal["memory", "compute"]


class _Result(Frozen):
    """Base of the speed, training-time and cost results: frozen, validated, unknown fields refused."""
    derived = True  # computed by the program from checked input (knowledge.structs)


class StepTime(_Result):
    """One forward step of the whole model on one GPU, split by cause (seconds).

    total = max(memory_s, compute_s) + communication_s + overhead_s
    """

    weights_s: NonNegativeFloat  # reading the weights that the step touches
    kv_s: NonNegativeFloat  # reading the KV cache of every sequence in the batch
    memory_s: NonNegativeFloat  # weights_s + kv_s
    compute_s: NonNegativeFloat  # FLOPs / (peak × efficiency)
    communication_s: NonNegativeFloat  # tensor-parallel all-reduces
    overhead_s: NonNegativeFloat  # fixed per-step cost (kernel launches, scheduling, sampling)
    total_s: PositiveFloat
    bound: Bound
    bytes_read: NonNegativeInt  # per GPU
    flops: NonNegativeFloat  # per GPU


class Capacity(_Result):
    """How many sequences fit in memory, and how fast each one decodes there."""

    max_concurrency: NonNegativeInt  # sequences at the given context that fit next to the weights (all replicas)
    kv_tokens: NonNegativeInt  # tokens of KV cache that fit per replica
    ms_per_token_at_max: float | None = None  # per-sequence decode latency at max_concurrency
    tokens_per_s_total_at_max: float | None = None


class ThroughputEstimate(_Result):
    """Decode and prefill speed of one model on `count` GPUs (tensor-parallel groups of `tp`, `replicas` copies)."""

    model: str
    gpu: str
    count: PositiveInt
    tp: PositiveInt
    replicas: PositiveInt
    weights: str
    kv: str
    context: PositiveInt  # tokens per sequence (prompt + output): what the memory/capacity check holds
    decode_context: PositiveInt  # KV length the decode step reads per sequence (mean while generating)
    prompt_tokens: PositiveInt
    output_tokens: PositiveInt
    concurrency: PositiveInt
    decode_tokens_per_s: PositiveFloat  # per sequence
    decode_tokens_per_s_total: PositiveFloat  # all sequences, all replicas
    tpot: Seconds  # time per output token of one sequence (the contract's `ms_per_token`)
    prefill_tokens_per_s: PositiveFloat
    ttft: Seconds  # batch-1 time to first token for prompt_tokens
    e2e: Seconds  # ttft + output_tokens at the per-sequence decode rate
    bound: Bound  # of the decode step
    prefill_bound: Bound
    decode_step: StepTime
    prefill_step: StepTime
    ceiling_tokens_per_s: PositiveFloat  # physical limit per sequence: bandwidth / bytes per step (η = 1, no overhead)
    ceiling_tokens_per_s_total: PositiveFloat  # min(bandwidth, peak FLOPS) limit at this batch
    moe_experts_touched: float | None = None  # expected distinct routed experts read per layer per step
    attention_dp: bool = False  # an MLA model's attention data-parallel over each TP group (Workload.attention_dp)
    capacity: Capacity | None = None
    fits: bool = True
    memory_shortfall_bytes: NonNegativeInt = 0
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)

    def to_contract(self) -> dict[str, Any]:
        """DESIGN.md `gpu-advisor throughput --json` keys, then extras."""
        return {
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "decode_tokens_per_s_total": self.decode_tokens_per_s_total,
            "prefill_tokens_per_s": self.prefill_tokens_per_s,
            "ttft_s": self.ttft.s,
            "bound": self.bound,
            "formulas": list(self.formulas),
            "ms_per_token": self.tpot.ms,
            "e2e_s": self.e2e.s,
            "prefill_bound": self.prefill_bound,
            "ceiling_tokens_per_s": self.ceiling_tokens_per_s,
            "layout": {"gpu": self.gpu, "count": self.count, "tp": self.tp, "replicas": self.replicas,
                       **({"attention_dp": True} if self.attention_dp else {})},
            "workload": {"model": self.model, "weights": self.weights, "kv": self.kv, "context": self.context,
                         "decode_context": self.decode_context, "prompt_tokens": self.prompt_tokens,
                         "output_tokens": self.output_tokens, "concurrency": self.concurrency},
            "decode_step_s": dump(self.decode_step),
            "prefill_step_s": dump(self.prefill_step),
            "capacity": dump(self.capacity) if self.capacity else None,
            "assumptions": list(self.assumptions),
        }


class ServingEstimate(_Result):
    """Offline/saturated serving: B sequences of ISL prompt and OSL output tokens processed together."""

    batch: PositiveInt
    input_tokens: PositiveInt
    output_tokens: PositiveInt
    prefill: Seconds
    decode: Seconds
    output_tokens_per_s: PositiveFloat  # all GPUs of the group
    output_tokens_per_s_per_gpu: PositiveFloat
    formulas: list[str] = msgspec.field(default_factory=list)


class TrainTimeEstimate(_Result):
    """Training throughput and wall-clock for a token budget."""

    model: str
    gpu: str
    count: PositiveInt
    task: str
    precision: str  # "bf16" or "fp8": the tensor-core peak the MFU refers to
    recompute: str
    tokens: PositiveFloat
    context: PositiveInt  # tokens per training sequence ("seq_len" in the JSON contract)
    params_matmul: PositiveInt  # N in 6·N·D: parameters that take part in matrix multiplies
    flops_per_token: PositiveFloat  # model FLOPs (the MFU numerator), per token
    hardware_flops_per_token: PositiveFloat  # incl. recomputation (the HFU numerator)
    peak_flops_per_gpu: PositiveFloat
    mfu: PositiveFloat  # model FLOPs utilisation achieved, after communication
    mfu_compute: PositiveFloat  # the calibrated compute-only MFU before communication
    mfu_source: str  # "calibrated (class …)" or "user override"
    communication_s_per_step: NonNegativeFloat
    compute_s_per_step: PositiveFloat
    offload_s_per_step: NonNegativeFloat = 0.0  # ZeRO-Offload: CPU Adam + PCIe transfers, not hidden
    tokens_per_step: PositiveFloat
    tokens_per_s: PositiveFloat  # all GPUs
    tokens_per_s_per_gpu: PositiveFloat
    wall: Seconds  # the run's wall-clock (the contract's `wall_s` and `wall_days`)
    gpu_hours: PositiveFloat
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)

    def to_contract(self) -> dict[str, Any]:
        """DESIGN.md `gpu-advisor train-time --json` keys, then extras."""
        return {
            "gpu_hours": self.gpu_hours,
            "wall_s": self.wall.s,
            "mfu": self.mfu,
            "tokens_per_s": self.tokens_per_s,
            "formulas": list(self.formulas),
            "tokens_per_s_per_gpu": self.tokens_per_s_per_gpu,
            "wall_days": self.wall.days,
            "flops_per_token": self.flops_per_token,
            "total_flops": self.flops_per_token * self.tokens,
            "mfu_source": self.mfu_source,
            "layout": {"gpu": self.gpu, "count": self.count},
            "workload": {"model": self.model, "task": self.task, "tokens": self.tokens, "seq_len": self.context,
                         "precision": self.precision, "recompute": self.recompute},
            "assumptions": list(self.assumptions),
        }


class DatedValue(_Result):
    """A price or rate with the date it holds and its source id."""

    name: str
    value: float
    unit: str
    as_of: dt.date | None = None
    source: str


class TcoEstimate(_Result):
    """Owning `count` GPUs for `years` against renting them, in one currency."""

    gpu: str
    count: PositiveInt
    years: PositiveFloat
    utilization: float
    currency: Literal["CNY", "USD"]
    exchange_rate_cny_per_usd: PositiveFloat
    exchange_rate_date: dt.date
    servers: PositiveInt
    server_tier: str
    gpu_unit_price: Money
    gpu_price_date: dt.date
    gpu_price_kind: str
    purchase_gpus: Money
    purchase_rest: Money  # rest of the server(s): CPU, board, RAM, disks, NICs, chassis
    purchase_total: Money
    power_kw_it: NonNegativeFloat  # average IT power at this utilisation
    energy_kwh_per_year: NonNegativeFloat  # at the facility meter (× PUE)
    electricity_price: NonNegativeFloat  # currency per kWh
    pue: PositiveFloat
    power_per_year: Money
    operations_per_year: Money
    depreciation_per_year: Money
    residual_value: Money  # book value left after `years` (straight-line over depreciation_years)
    tco: Money  # purchase + (power + operations) × years
    tco_per_year: Money
    gpu_hours_used: NonNegativeFloat  # count × 8760 × years × utilisation
    cost_per_gpu_hour_used: Money | None = None
    cloud_usd_per_gpu_hour: float | None = None
    cloud_provider: str | None = None
    cloud_price_date: dt.date | None = None
    cloud_region: str | None = None  # the quote's market: "cn" (a mainland-China provider) or "global"
    cloud_other_region: bool = False  # the quote is from the other market than the one asked (no local quote)
    cloud_cost: Money | None = None  # renting the same GPU-hours
    cloud_stated_rate: Money | None = None  # the price per GPU-hour the person stated, when it priced the rent
    break_even_utilization: float | None = None  # utilisation above which buying is cheaper than renting
    tokens_per_s: float | None = None
    cost_per_million_tokens_owned: Money | None = None
    cost_per_million_tokens_cloud: Money | None = None
    prices: list[DatedValue] = msgspec.field(default_factory=list)
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)

    def to_contract(self) -> dict[str, Any]:
        def m(x: Money | None) -> dict[str, Any] | None:
            return None if x is None else {"amount": x.amount, "currency": x.currency}

        return {
            "currency": self.currency,
            "years": self.years,
            "utilization": self.utilization,
            "gpu": self.gpu,
            "count": self.count,
            "servers": self.servers,
            "server_tier": self.server_tier,
            "purchase": {"gpus": m(self.purchase_gpus), "rest_of_system": m(self.purchase_rest),
                         "total": m(self.purchase_total)},
            "power_per_year": m(self.power_per_year),
            "energy_kwh_per_year": self.energy_kwh_per_year,
            "operations_per_year": m(self.operations_per_year),
            "depreciation_per_year": m(self.depreciation_per_year),
            "residual_value": m(self.residual_value),
            "tco": m(self.tco),
            "tco_per_year": m(self.tco_per_year),
            "gpu_hours_used": self.gpu_hours_used,
            "cost_per_gpu_hour_used": m(self.cost_per_gpu_hour_used),
            "cloud": None if self.cloud_cost is None else {
                "usd_per_gpu_hour": self.cloud_usd_per_gpu_hour, "provider": self.cloud_provider,
                "as_of": self.cloud_price_date.isoformat() if self.cloud_price_date else None,
                "cost": m(self.cloud_cost), "region": self.cloud_region,
                "other_region": self.cloud_other_region},
            "break_even_utilization": self.break_even_utilization,
            "cost_per_million_tokens": None if self.cost_per_million_tokens_owned is None else {
                "owned": m(self.cost_per_million_tokens_owned),
                "cloud": m(self.cost_per_million_tokens_cloud)},
            "exchange_rate": {"cny_per_usd": self.exchange_rate_cny_per_usd,
                              "as_of": self.exchange_rate_date.isoformat()},
            "prices": [dump(p, json=True) for p in self.prices],
            "formulas": list(self.formulas),
            "assumptions": list(self.assumptions),
        }
