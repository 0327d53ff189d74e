"""The typed parts of a recommender `Option`: its layout, the card price it rests on, its serving speed or training
time, the money for its job (TCO) and its memory margin, each with the `to_contract()` that writes the JSON shape
DESIGN.md fixes (same keys, same order, same nulls).

The layout keeps two different offloads apart: ZeRO's optimizer-state offload to host RAM (`zero_offload`, the
training workload's `offload`) and llama.cpp's layer offload (`layer_offload`: `-ngl` layers on the card, the rest
in system RAM). Both are written under the contract's one `offload` key, "layers" for the latter.
"""

# No `from __future__ import annotations` here: the structs' field annotations are then evaluated by this
# module's byte-code when the classes are made, not compiled from text on every start
# (knowledge.structs._resolve_annotations: ≈ 40 µs per annotation); names defined later are quoted.

from collections.abc import Mapping
from typing import Annotated, Any, Literal

import msgspec

from advisor.estimator.speed_results import DatedValue, TcoEstimate
from advisor.workload import Offload
from knowledge.quantities import Bytes, Currency, Money, Seconds
from knowledge.structs import Frozen, Meta, NonNegativeInt, PositiveInt, dump, fields, validate

ZeroStage = Annotated[int, Meta(ge=0, le=3)]


class PlannedLayout(Frozen):
    """What the parallelism planner (Megatron-LM) adds to a layout: expert and context parallelism, the
    recomputation split, the batch and the interleaving (advisor.estimator.parallel_layout.ParallelLayout)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    ep: PositiveInt
    cp: PositiveInt
    recompute_layers: NonNegativeInt
    micro_batch: PositiveInt
    grad_accum: PositiveInt
    global_batch_tokens: NonNegativeInt
    vpp: PositiveInt
    summary: str  # "TP 2 × PP 4 × DP 8, ZeRO-1, …"
    precision: str = "bf16"  # the GEMMs' precision the plan trains in ("fp8": the family's published FP8 recipe)


class LayerOffload(Frozen):
    """llama.cpp layer offload: `ngl` layers on the card (`-ngl`), `cpu_layers` and `system_ram_bytes` on the host."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    ngl: NonNegativeInt
    cpu_layers: NonNegativeInt
    system_ram_bytes: NonNegativeInt


class OptionLayout(Frozen):
    """How an option splits the model: TP × PP × DP (serving: DP independent replicas), the ZeRO stage and its optimizer offload, the engine, the
    weight and KV formats, activation recomputation (training only), and the planner's or llama.cpp's extras."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    tp: PositiveInt
    pp: PositiveInt
    dp: PositiveInt = 1
    zero: ZeroStage = 0
    zero_offload: Offload = "none"  # ZeRO: optimizer state (or all) in host RAM; JSON `offload`
    engine: str | None = None
    weights: str = "bf16"  # the weight format the estimate used
    kv: str = "fp16"
    recompute: str | None = None  # serving: None
    planned: PlannedLayout | None = None  # the parallelism planner's layout (engine "megatron")
    layer_offload: LayerOffload | None = None  # llama.cpp layers in system RAM; JSON `offload` "layers"
    replicas: PositiveInt | None = None  # serving: independent engine copies sharing the users (= dp); training: None
    attention_dp: bool = False  # serving an MLA model: attention data-parallel over each TP group (DP attention)

    @property
    def offload(self) -> str:
        """The contract's `offload`: "layers" for llama.cpp layer offload, else the ZeRO offload."""
        return "layers" if self.layer_offload is not None else self.zero_offload

    def to_contract(self) -> dict[str, Any]:
        """The contract's flat `layout` object: the common keys, then the planner's, then llama.cpp's."""
        out: dict[str, Any] = {"tp": self.tp, "pp": self.pp, "dp": self.dp}
        if self.replicas is not None:  # serving: the dp copies are independent engines ("2 replicas × TP 8")
            out["replicas"] = self.replicas
        if self.attention_dp:  # only where chosen: the key is absent from every other layout
            out["attention_dp"] = True
        out.update(zero=self.zero, offload=self.offload, engine=self.engine, weights=self.weights, kv=self.kv,
                   recompute=self.recompute)
        if self.planned is not None:
            p = self.planned
            out.update(ep=p.ep, cp=p.cp, recompute_layers=p.recompute_layers, micro_batch=p.micro_batch,
                       grad_accum=p.grad_accum, global_batch_tokens=p.global_batch_tokens, vpp=p.vpp,
                       summary=p.summary)
        if self.layer_offload is not None:
            lo = self.layer_offload
            out.update(ngl=lo.ngl, cpu_layers=lo.cpu_layers, system_ram_bytes=lo.system_ram_bytes)
        return out

    @classmethod
    def from_contract(cls, data: Mapping[str, Any]) -> "OptionLayout":
        """The layout back from its contract object (a client of `recommend --json`); StructError when invalid."""
        flat = dict(data)
        planned = {k: flat.pop(k) for k in fields(PlannedLayout) if k in flat}
        layers = {k: flat.pop(k) for k in fields(LayerOffload) if k in flat}
        offload = flat.pop("offload", "none")
        return validate(cls, {**flat, "zero_offload": "none" if offload == "layers" else offload,
                              "planned": planned or None, "layer_offload": layers or None})


class UnitPrice(Frozen):
    """The dated price of one card an option is priced from: the money, its date and catalog kind ("street",
    "launch_msrp", "used", with ", converted …" when from the other currency), the source id and how far it can be
    trusted, what it prices (new / used / street) and whether the card is end-of-life (priced used)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    per_card: Money
    as_of: str  # ISO date
    kind: str
    source: str
    condition: Literal["new", "used", "street"]
    reliability: Literal["high", "medium", "low"]
    end_of_life: bool = False

    def to_contract(self) -> dict[str, Any]:
        """Amount and currency first, as DESIGN.md lists them, then the date, condition, reliability and the rest."""
        return {"amount": self.per_card.amount, "currency": self.per_card.currency, "as_of": self.as_of,
                "condition": self.condition, "reliability": self.reliability, "kind": self.kind,
                "source": self.source, "end_of_life": self.end_of_life}

    @classmethod
    def from_contract(cls, data: Mapping[str, Any]) -> "UnitPrice":
        """The price back from its contract object; StructError when invalid (a price without a currency)."""
        flat = dict(data)
        money = {k: flat.pop(k) for k in ("amount", "currency") if k in flat}
        return validate(cls, {**flat, "per_card": money})


class Margin(Frozen):
    """How close a serving option is to its memory limit: the share of the engine's usable memory it takes and,
    near capacity, where it stops (the longest context at one sequence, the most sequences at the asked context)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    used: Bytes  # memory per GPU the option takes
    usable: Bytes  # what the engine lets it use
    share: float
    near_capacity: bool
    max_context: int | None = None  # near capacity only (with the three below)
    max_concurrency: int | None = None
    context: int | None = None
    concurrency: int | None = None

    def to_contract(self) -> dict[str, Any]:
        out: dict[str, Any] = {"used_bytes": self.used.n, "usable_bytes": self.usable.n, "share": self.share,
                               "near_capacity": self.near_capacity}
        if self.near_capacity:
            out.update(max_context=self.max_context, max_concurrency=self.max_concurrency, context=self.context,
                       concurrency=self.concurrency)
        return out

    @classmethod
    def from_contract(cls, data: Mapping[str, Any]) -> "Margin":
        """The margin from its contract object (bytes as integers)."""
        flat = dict(data)
        used, usable = {"n": flat.pop("used_bytes")}, {"n": flat.pop("usable_bytes")}
        return validate(cls, {**flat, "used": used, "usable": usable})


class Purchase(Frozen):
    """What buying the configuration costs: the cards, the rest of the server(s) and the total (all None for cards
    already owned)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    gpus: Money | None = None
    rest_of_system: Money | None = None  # CPU, board, RAM, disks, NICs, chassis (the guides' server tiers)
    total: Money | None = None


class CloudRent(Frozen):
    """Renting the same GPU-hours at a dated cloud quote (training: the job's own GPU-hours, `gpu_hours`)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    usd_per_gpu_hour: float | None
    provider: str | None
    as_of: str | None  # ISO date of the quote
    cost: Money
    region: str | None  # the quote's market: "cn" or "global"
    other_region: bool = False  # the only quote is from the other market than the one asked
    gpu_hours: float | None = None  # training: the job's GPU-hours (contract key only then)
    stated_rate: Money | None = None  # the price per GPU-hour the person stated (None: a catalog quote)


class TokenCost(Frozen):
    """Cost per million output tokens, owned and rented."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    owned: Money
    cloud: Money | None = None


class ExchangeRate(Frozen):
    """The rate a price was converted at."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    cny_per_usd: float
    as_of: str  # ISO date


TcoBasis = Literal["owned", "training_job", "serving_horizon"]


class OptionTco(Frozen):
    """Money for an option's job (advisor.estimator.cost.estimate_tco, adjusted by advisor.recommend.prices): the
    purchase, power and operations over `years`, the TCO, renting instead, break-even and cost per token, on one of
    three bases: cards already owned (running cost only), a training job (rent its own GPU-hours), or serving over
    the horizon."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    currency: Currency
    years: float
    utilization: float
    gpu: str
    count: PositiveInt
    servers: PositiveInt
    server_tier: str
    purchase: Purchase
    power_per_year: Money
    energy_kwh_per_year: float
    operations_per_year: Money
    depreciation_per_year: Money | None
    residual_value: Money | None
    tco: Money  # purchase + (power + operations) × years; owned: the running cost only
    tco_per_year: Money
    gpu_hours_used: float
    cost_per_gpu_hour_used: Money | None = None
    cloud: CloudRent | None = None
    break_even_utilization: float | None = None
    cost_per_million_tokens: TokenCost | None = None
    exchange_rate: ExchangeRate
    prices: list[DatedValue] = msgspec.field(default_factory=list)
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)
    basis: TcoBasis
    job_hours: float | None = None  # owned cards, training: the job's wall-clock hours (contract key only then)

    @classmethod
    def of(cls, t: TcoEstimate, basis: TcoBasis) -> "OptionTco":
        """The estimator's TCO of the cards on `basis`, before any adjustment."""
        cloud = None if t.cloud_cost is None else CloudRent(
            usd_per_gpu_hour=t.cloud_usd_per_gpu_hour, provider=t.cloud_provider,
            as_of=t.cloud_price_date.isoformat() if t.cloud_price_date else None, cost=t.cloud_cost,
            region=t.cloud_region, other_region=t.cloud_other_region, stated_rate=t.cloud_stated_rate)
        per_million = None if t.cost_per_million_tokens_owned is None else TokenCost(
            owned=t.cost_per_million_tokens_owned, cloud=t.cost_per_million_tokens_cloud)
        return cls(
            currency=t.currency, years=t.years, utilization=t.utilization, gpu=t.gpu, count=t.count, servers=t.servers,
            server_tier=t.server_tier,
            purchase=Purchase(gpus=t.purchase_gpus, rest_of_system=t.purchase_rest, total=t.purchase_total),
            power_per_year=t.power_per_year, energy_kwh_per_year=t.energy_kwh_per_year,
            operations_per_year=t.operations_per_year, depreciation_per_year=t.depreciation_per_year,
            residual_value=t.residual_value, tco=t.tco, tco_per_year=t.tco_per_year, gpu_hours_used=t.gpu_hours_used,
            cost_per_gpu_hour_used=t.cost_per_gpu_hour_used, cloud=cloud,
            break_even_utilization=t.break_even_utilization, cost_per_million_tokens=per_million,
            exchange_rate=ExchangeRate(cny_per_usd=t.exchange_rate_cny_per_usd,
                                       as_of=t.exchange_rate_date.isoformat()),
            prices=list(t.prices), formulas=list(t.formulas), assumptions=list(t.assumptions), basis=basis)

    def to_contract(self) -> dict[str, Any]:
        """The estimator's TCO contract (TcoEstimate.to_contract, same keys and order), then `basis` and, for owned
        cards running a training job, `job_hours`."""
        def m(x: Money | None) -> dict[str, Any] | None:
            return None if x is None else x.to_contract()

        p, c, cpm = self.purchase, self.cloud, self.cost_per_million_tokens
        cloud: dict[str, Any] | None = None
        if c is not None:
            cloud = {"usd_per_gpu_hour": c.usd_per_gpu_hour, "provider": c.provider, "as_of": c.as_of,
                     "cost": m(c.cost), "region": c.region, "other_region": c.other_region}
            if c.gpu_hours is not None:
                cloud["gpu_hours"] = c.gpu_hours
        out = {
            "currency": self.currency, "years": self.years, "utilization": self.utilization, "gpu": self.gpu,
            "count": self.count, "servers": self.servers, "server_tier": self.server_tier,
            "purchase": {"gpus": m(p.gpus), "rest_of_system": m(p.rest_of_system), "total": m(p.total)},
            "power_per_year": m(self.power_per_year), "energy_kwh_per_year": self.energy_kwh_per_year,
            "operations_per_year": m(self.operations_per_year),
            "depreciation_per_year": m(self.depreciation_per_year), "residual_value": m(self.residual_value),
            "tco": m(self.tco), "tco_per_year": m(self.tco_per_year), "gpu_hours_used": self.gpu_hours_used,
            "cost_per_gpu_hour_used": m(self.cost_per_gpu_hour_used), "cloud": cloud,
            "break_even_utilization": self.break_even_utilization,
            "cost_per_million_tokens": None if cpm is None else {"owned": m(cpm.owned), "cloud": m(cpm.cloud)},
            "exchange_rate": {"cny_per_usd": self.exchange_rate.cny_per_usd, "as_of": self.exchange_rate.as_of},
            "prices": [dump(x, json=True) for x in self.prices],
            "formulas": list(self.formulas),
            "assumptions": list(self.assumptions),
            "basis": self.basis,
        }
        if self.job_hours is not None:
            out["job_hours"] = self.job_hours
        return out


class PlannedRun(Frozen):
    """What the parallelism planner adds to a training time: one step's figures at the step-time MFU, the goodput
    behind the run totals, the pipeline bubble and the layout in words."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    step_wall: Seconds  # the run's wall-clock at the step-time MFU (before goodput)
    step_gpu_hours: float
    goodput: float  # share of the wall-clock that trains (failures, restarts, checkpoints)
    bubble_fraction: float
    layout: str


MfuBasis = Literal["fitted", "prior", "given"]  # fitted to measured runs, a prior (best case), or the user's


class TrainingFigures(Frozen):
    """A training option's time: the tokens, throughput, wall-clock and GPU-hours of the run and the MFU they rest
    on ("fitted", "prior" or "given"); from the planner (`planned`) or 6·N·D (advisor.estimator.training)."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    tokens: float
    tokens_per_s: float
    wall: Seconds  # the run total (with goodput, from the planner)
    gpu_hours: float
    mfu: float
    mfu_basis: MfuBasis
    planned: PlannedRun | None = None

    def to_contract(self) -> dict[str, Any]:
        """The contract's `throughput` object of a training option."""
        out: dict[str, Any] = {"tokens": self.tokens, "tokens_per_s": self.tokens_per_s, "wall_s": self.wall.s,
                               "gpu_hours": self.gpu_hours, "mfu": self.mfu, "mfu_basis": self.mfu_basis}
        if self.planned is not None:
            p = self.planned
            out.update(step_wall_s=p.step_wall.s, step_gpu_hours=p.step_gpu_hours, goodput=p.goodput,
                       bubble_fraction=p.bubble_fraction, layout=p.layout)
        return out


class UnderLoad(Frozen):
    """The continuous-batching simulation at the stated concurrency (advisor.estimator.serving): median and p95
    time to first token, median time per output token, output tokens/s per user and in total, the engine simulated."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    ttft: Seconds
    ttft_p95: Seconds
    tpot: Seconds
    per_user_tokens_per_s: float
    total_tokens_per_s: float
    engine: str
    ttft_p99: Seconds = Seconds(0.0)  # the 99th percentile (a target stated at p99 is judged on it)

    def ttft_at(self, percentile: int) -> Seconds:
        """The simulated time to first token at the 50th, 95th or 99th percentile."""
        return {95: self.ttft_p95, 99: self.ttft_p99}.get(percentile, self.ttft)

    def to_contract(self) -> dict[str, Any]:
        """The contract's `under_load` object (durations in seconds)."""
        return {"ttft_s": self.ttft.s, "ttft_p95_s": self.ttft_p95.s, "tpot_s": self.tpot.s,
                "per_user_tokens_per_s": self.per_user_tokens_per_s, "total_tokens_per_s": self.total_tokens_per_s,
                "engine": self.engine}


class ServingFigures(Frozen):
    """A serving option's speed (advisor.estimator.throughput rooflines): decode tokens/s per sequence and in total,
    time per output token, prefill tokens/s and time to first token, what bounds decode, the concurrency asked
    and the most sequences that fit; the engine's own start-up concurrency figure, the simulation under load, and a
    llama.cpp layer-offload plan where they apply."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    decode_tokens_per_s: float
    decode_tokens_per_s_total: float
    tpot: Seconds  # time per output token (the contract's `ms_per_token`)
    prefill_tokens_per_s: float
    ttft: Seconds
    bound: str  # "memory", "compute", "host-memory" …
    concurrency: int
    max_concurrency: int
    engine_max_concurrency: float | None = None  # vLLM's "Maximum concurrency for N tokens per request: X x"
    engine_log_line: str | None = None
    under_load: UnderLoad | None = None
    # the estimator's OffloadPlan.to_contract() as it gives it (typing it here would load advisor.estimator.offload
    # on every `recommend` start-up)
    offload: dict[str, Any] | None = None

    @property
    def judged_ttft(self) -> Seconds:
        """Time to the first token a TTFT target is judged on: the simulation's median at the stated load where it
        ran (what the answer shows), else the prefill roofline's for one prompt."""
        return self.ttft_judged_at(50)

    def ttft_judged_at(self, percentile: int) -> Seconds:
        """`judged_ttft` at a percentile of the simulation (a target stated at p95 or p99); one prompt's prefill
        (no load simulated) has no spread, so every percentile is that time."""
        if self.under_load is not None and self.under_load.ttft.s > 0:
            return self.under_load.ttft_at(percentile)
        return self.ttft

    @property
    def judged_tpot(self) -> Seconds:
        """Time per output token a per-token target is judged on: the simulation's median at the stated load where it
        ran (what the answer shows), else the decode roofline's."""
        if self.under_load is not None and self.under_load.tpot.s > 0:
            return self.under_load.tpot
        return self.tpot

    @property
    def judged_total(self) -> float:
        """Output tokens/s in total that a total-throughput target is judged on: the simulation's at the stated load
        where it ran (what the answer shows), else the decode roofline's."""
        if self.under_load is not None and self.under_load.total_tokens_per_s > 0:
            return self.under_load.total_tokens_per_s
        return self.decode_tokens_per_s_total

    def to_contract(self) -> dict[str, Any]:
        """The contract's `throughput` object of a serving option (optional groups only when present)."""
        out: dict[str, Any] = {
            "decode_tokens_per_s": self.decode_tokens_per_s, "decode_tokens_per_s_total": self.decode_tokens_per_s_total,
            "ms_per_token": self.tpot.ms, "prefill_tokens_per_s": self.prefill_tokens_per_s,
            "ttft_s": self.ttft.s, "bound": self.bound, "concurrency": self.concurrency,
            "max_concurrency": self.max_concurrency}
        if self.engine_log_line is not None:
            out.update(engine_max_concurrency=self.engine_max_concurrency, engine_log_line=self.engine_log_line)
        if self.under_load is not None:
            out["under_load"] = self.under_load.to_contract()
        if self.offload is not None:
            out["offload"] = self.offload
        return out
