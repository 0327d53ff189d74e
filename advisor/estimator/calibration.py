"""Calibration constants and economic parameters, loaded from data and passed into the pure estimators.

`knowledge/data/calibration.yaml` holds the efficiencies, overheads and MFU classes of the speed and training
models; `knowledge/data/economics.yaml` the electricity prices, PUE, exchange rate, server tiers, operations
share and depreciation. Every value carries its source ids (registry: `knowledge/data/sources/*.yaml`). One set
of constants serves every model and GPU: there is no per-model or per-GPU fudge, only classes (weight-format
family, GPU class) that the data defines. The estimator functions take these objects as arguments and do no I/O.
"""


import builtins
import datetime as dt
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from knowledge import snapshot, trusted
from knowledge.errors import CatalogError
from knowledge.structs import Frozen, Meta, PositiveFloat, StructError, fields, validate

DATA = Path(__file__).resolve().parents[2] / "knowledge" / "data"
CALIBRATION_FILE = DATA / "calibration.yaml"
ECONOMICS_FILE = DATA / "economics.yaml"


class _Strict(Frozen):
    """Base of the tables' entries: frozen, validated, unknown fields refused."""


class Constant(_Strict):
    """One number with where it comes from: measured rows it was fitted to, a paper, or a stated prior."""

    value: float
    source: Annotated[list[str], Meta(min_length=1)]
    basis: Literal["fitted", "measured", "datasheet", "paper", "prior", "derived", "guide"] = "fitted"
    note: str = ""


def _v(c: Constant) -> float:
    return c.value


# ------------------------------------------------------------------------------------------------------------
# speed and training


class Efficiency(_Strict):
    """Fraction of a datasheet peak that a class of kernels reaches."""

    float: Constant  # bf16/fp16/fp32 weights
    weight_only: Constant  # GPTQ/AWQ/int8/int4 weight-only kernels (dequantise on the fly)
    gguf: Constant  # llama.cpp block-quantised kernels
    bnb: Constant  # bitsandbytes (NF4, LLM.int8)
    fp8: Constant  # FP8 weights with FP8 tensor cores

    def of(self, family: str) -> builtins.float:  # `float` is a field here
        const: Constant = getattr(self, family.replace("-", "_"))
        return const.value


class AllReduce(_Strict):
    """Ring all-reduce cost: 2(t−1)/t · M / (link bytes/s · efficiency) + 2(t−1) · latency per ring step."""

    nvlink_efficiency: Constant
    pcie_efficiency: Constant
    nvlink_latency_s: Constant
    pcie_latency_s: Constant
    pcie_bytes_per_s: dict[int, float]  # per direction, x16, by PCIe generation
    pcie_source: list[str]


class EngineFixedCost(_Strict):
    """Per-step fixed cost of one engine at batch 1: c_step + L · c_layer[memory class] (launches, syncs, sampling).

    Memory class: "hbm" (A100/H100/H200/B200/MI300-class parts) or "gddr" (GeForce, RTX workstation, L40S, A40, L4).
    `float_bandwidth_efficiency` replaces η_w for 16/32-bit weights where the engine's kernels differ (llama.cpp).
    """

    step_s: Constant
    layer_s: dict[Literal["hbm", "gddr"], Constant]
    float_bandwidth_efficiency: Constant | None = None


class HostClass(_Strict):
    """A host's DRAM: channels × MT/s × 8 bytes per transfer (64-bit channel) = theoretical bytes/s."""

    label: str
    channels: Annotated[int, Meta(ge=1, le=24)]
    mt_per_s: Annotated[float, Meta(gt=0)]
    source: Annotated[list[str], Meta(min_length=1)]

    @property
    def bytes_per_s(self) -> float:
        return self.channels * self.mt_per_s * 1e6 * 8


class HostMemory(_Strict):
    """System RAM for llama.cpp layer offload: the host classes, the share of their bandwidth CPU matmul-vector
    kernels stream at batch 1, and the default class per GPU market segment (a stated assumption)."""

    efficiency: Constant
    classes: dict[str, HostClass]
    default_class: dict[Literal["consumer", "workstation", "datacenter"], str]
    gpu_fit_margin_bytes: Constant | None = None  # memory llama.cpp's --fit leaves free on each GPU (-fitt)


class InferenceCalibration(_Strict):
    bandwidth_efficiency: Efficiency  # weight streaming: bytes / (datasheet bandwidth × this)
    kv_bandwidth_efficiency: Constant  # attention kernels reading the KV cache
    compute_efficiency: Constant  # large-GEMM fraction of the dense peak (bf16 or fp8 tensor cores)
    fp8_compute_efficiency: Constant  # same, for FP8 GEMMs against the FP8 peak
    fp4_compute_efficiency: Constant | None = None  # same, for NVFP4/MXFP4 GEMMs against the FP4 peak (Blackwell)
    attention_efficiency: Constant  # fused attention kernels against the 16-bit dense peak
    # GPUs whose measured large-matmul rate is a smaller share of their peak than the NVIDIA class the GEMM
    # efficiencies above were fitted on: the ratio of the two shares, multiplying those efficiencies (by GPU id)
    matmul_factor_by_gpu: dict[str, Constant] = msgspec.field(default_factory=dict)
    # likewise for streaming memory: the ratio of a GPU's measured share of its datasheet bandwidth (STREAM kernels)
    # to the share of the NVIDIA cards the bandwidth efficiencies were fitted on, multiplying η_w and η_kv (by GPU id)
    bandwidth_factor_by_gpu: dict[str, Constant] = msgspec.field(default_factory=dict)
    roofline_sharpness: Constant  # p of the smooth roofline (a^p + b^p)^(1/p); large p → hard max
    step_overhead_s: Constant  # fixed cost per forward step (launch, scheduling, sampling)
    layer_overhead_s: Constant  # extra fixed cost per transformer layer per forward step
    request_overhead_s: Constant  # fixed cost of starting one request (counts in time to first token)
    # engines whose batch-1 fixed costs differ from the serving engines' step/layer overheads above (llama.cpp)
    engine_fixed_costs: dict[str, EngineFixedCost] = msgspec.field(default_factory=dict)
    host_memory: HostMemory | None = None  # llama.cpp partial offload (advisor/estimator/offload.py)
    allreduce: AllReduce
    activation_bytes: Constant  # bytes per activation element sent in TP all-reduces (16-bit)


class TrainingCalibration(_Strict):
    mfu_by_class: dict[str, Constant]  # compute-only MFU (bf16 peak) per GPU class, no activation recompute
    fp8_mfu: Constant  # MFU against the FP8 peak for FP8 training (Transformer Engine)
    qlora_mfu_factor: Constant  # QLoRA: dequantising the 4-bit base in every matmul slows it down
    tokens_per_gpu_step: Constant  # tokens each GPU processes per optimizer step (sets comm/compute ratio)
    comm_overlap: Constant  # share of gradient/parameter communication hidden behind compute
    nic_bytes_per_s_per_gpu: dict[int, Constant]  # HGX/OAM baseboard servers: one NIC per GPU, by PCIe generation
    pcie_server_network_bytes_per_s: Constant  # PCIe-card servers: the whole server's network, one direction
    network_efficiency: Constant  # achieved share of the NICs' line rate in NCCL all-gather/reduce-scatter
    gpus_per_node: Constant  # GPUs sharing NVLink/PCIe inside one server
    cpu_adam_params_per_s: Constant  # ZeRO-Offload: parameters one server's CPUs update per second (CPU Adam)
    consumer_pcie_efficiency: Constant  # consumer cards without P2P: fraction of PCIe bandwidth collectives get


class TrainingEngine(_Strict):
    """A training framework as the planner sees it: its GEMM efficiency relative to Megatron-Core's (the HFU
    classes are Megatron-fitted), the pipeline schedules it offers, and whether it trains with FP8 GEMMs."""

    name: str
    hfu_factor: Constant
    schedules: list[str]
    fp8: bool
    tp_overlap: Constant | None = None  # share of its plain TP/SP collectives hidden (None: planner.tp_overlap)
    async_tp_overlap: Constant | None = None  # share hidden by the overlapped TP it offers (on unless pinned off)
    recompute_regathers: bool = True  # ZeRO-3 gathers again for the recomputed forward (False: PyTorch FSDP)
    fp8_factor: Constant | None = None  # its FP8 GEMM efficiency relative to Transformer Engine's (fp8_hfu)
    selective_matmul_recompute: Constant | None = None  # its "selective" recomputes this share of the forward GEMMs
    families: list[str] = msgspec.field(default_factory=list)  # MoE families whose published pre-training ran it
    note: str = ""


class PlannerCalibration(_Strict):
    """Constants of the parallelism planner (advisor/estimator/planner.py, step_time.py): one set for every model."""

    hfu_by_class: dict[str, Constant]  # compute-only hardware-FLOPs utilisation at scale (bf16 peak), per GPU class
    fp8_hfu: Constant  # the same against the FP8 peak (Transformer Engine / DeepSeek FP8 GEMMs)
    elementwise_hidden: Constant  # h₀ of the memory-bound share: HFU × 1/(1 + h₀/h) (norms, rotary, softmax)
    # the BF16 FLOP/byte balance of the card h₀ was fitted on: h₀ scales with a card's own balance (step_time)
    elementwise_reference_flops_per_byte: Constant | None = None
    moe_compute_factor: Constant  # grouped expert GEMMs, routing and permutation run below dense GEMM efficiency
    # GEMM time grows as 1 + K₀/K with the reduction width K, K₀ = this × peak FLOP/s ÷ HBM bytes/s (step_time.moe_terms)
    gemm_reduction_bytes: Constant | None = None
    moe_bandwidth_efficiency: Constant | None = None  # share of HBM bandwidth the token permutation kernels reach
    tp_overlap: Constant  # share of TP/SP collectives hidden behind GEMMs
    ep_overlap: Constant  # share of the MoE all-to-all hidden behind compute
    ring_hop_latency_s: Constant  # one step of an NCCL ring collective across servers
    pcie_tp_max: Constant  # largest TP degree over PCIe without NVLink, unless asked for
    goodput: Constant  # productive share of a long run's GPU time (restarts, checkpoints, evaluation, stragglers)
    memory_headroom: Constant  # share of GPU memory the chosen layout leaves free
    default_global_batch_tokens: Constant
    family_global_batch_tokens: dict[str, Constant]  # published global batch (tokens) by model family
    # the largest batch a family's published schedule reached (the planner searches base × 2^k up to it)
    family_global_batch_max: dict[str, Constant] = msgspec.field(default_factory=dict)
    critical_batch_coefficient: Constant | None = None  # B_crit = a · C^b tokens (C: training FLOPs)
    critical_batch_exponent: Constant | None = None
    training_engines: dict[str, TrainingEngine] = msgspec.field(default_factory=dict)  # megatron, fsdp (FSDP2), deepspeed
    schedule_bubble_factor: dict[str, Constant] = msgspec.field(default_factory=dict)  # bubble relative to 1F1B's
    fp8_training_families: dict[str, Constant] = msgspec.field(default_factory=dict)  # families whose published pre-training ran FP8 GEMMs


class MemoryCalibration(_Strict):
    """The caching allocator's reserve of a training step (advisor/estimator/allocator.py)."""

    reserve_layer_working: Constant  # share of one checkpointed layer's working set left in unusable blocks
    reserve_saved_activations: Constant  # ... of the saved activations without checkpointing
    cublas_workspace_bytes: Constant  # cuBLAS/cuBLASLt workspaces allocated at the first matmul


class Calibration(_Strict):
    version: str
    fitted_on: str
    inference: InferenceCalibration
    training: TrainingCalibration
    planner: PlannerCalibration
    memory: MemoryCalibration | None = None

    def check_invariants(self) -> None:
        inf = self.inference
        fractions = [inf.kv_bandwidth_efficiency, inf.compute_efficiency, inf.fp8_compute_efficiency,
                     *([inf.fp4_compute_efficiency] if inf.fp4_compute_efficiency else []), inf.attention_efficiency, inf.allreduce.nvlink_efficiency,
                     *inf.matmul_factor_by_gpu.values(),
                     inf.allreduce.pcie_efficiency, self.training.fp8_mfu, self.training.qlora_mfu_factor,
                     self.training.comm_overlap, self.training.consumer_pcie_efficiency,
                     self.training.network_efficiency,
                     *self.training.mfu_by_class.values(), *self.planner.hfu_by_class.values(),
                     self.planner.fp8_hfu, self.planner.moe_compute_factor, self.planner.tp_overlap,
                     self.planner.ep_overlap, self.planner.goodput, self.planner.memory_headroom,
                     *([self.planner.moe_bandwidth_efficiency] if self.planner.moe_bandwidth_efficiency else []),
                     *(getattr(inf.bandwidth_efficiency, f) for f in fields(type(inf.bandwidth_efficiency)))]
        for c in fractions:
            if not 0 < c.value <= 1:
                raise ValueError(f"an efficiency must lie in (0, 1], got {c.value} (sources {c.source})")
        if inf.roofline_sharpness.value < 1:
            raise ValueError("roofline_sharpness must be ≥ 1 (1 = sum, ∞ = max)")
        engine_costs = [c for e in inf.engine_fixed_costs.values() for c in (e.step_s, *e.layer_s.values())]
        for e in inf.engine_fixed_costs.values():
            if e.float_bandwidth_efficiency is not None and not 0 < e.float_bandwidth_efficiency.value <= 1:
                raise ValueError("an engine's float_bandwidth_efficiency must lie in (0, 1]")
            if set(e.layer_s) != {"hbm", "gddr"}:
                raise ValueError("engine_fixed_costs.*.layer_s needs both 'hbm' and 'gddr'")
        if inf.host_memory is not None:
            hm = inf.host_memory
            if not 0 < hm.efficiency.value <= 1:
                raise ValueError("host_memory.efficiency must lie in (0, 1]")
            missing = set(hm.default_class.values()) - set(hm.classes)
            if missing:
                raise ValueError(f"host_memory.default_class names unknown classes {sorted(missing)}")
        for c in (inf.step_overhead_s, inf.layer_overhead_s, inf.request_overhead_s, *engine_costs):
            if c.value < 0:
                raise ValueError(f"overheads are never negative, got {c.value}")
        if "default" not in self.training.mfu_by_class:
            raise ValueError("training.mfu_by_class needs a 'default' class")

    def source_ids(self) -> set[str]:
        return _collect_sources(self)


# ------------------------------------------------------------------------------------------------------------
# economics


class DatedConstant(Constant):
    as_of: dt.date


class ServerTier(_Strict):
    """The rest of a server around its GPUs (CPU, board, RAM, disks, NICs, PSU, chassis), as the guides tier it."""

    label: str
    label_zh: str
    max_gpus: Annotated[int, Meta(ge=1, le=16)]
    price: Annotated[float, Meta(ge=0)]  # per server, in `currency` (0: a complete machine, nothing around it)
    currency: Literal["CNY", "USD"]
    power_w: Annotated[float, Meta(ge=0)]  # platform power at full load, excluding GPUs
    as_of: dt.date
    source: Annotated[list[str], Meta(min_length=1)]
    basis: Literal["guide", "derived", "measured", "prior", "datasheet"] = "derived"
    note: str = ""


class ReferenceCloudPrice(_Strict):
    usd_per_hour: PositiveFloat
    provider: str
    date: dt.date
    source: str


class Economics(_Strict):
    exchange_rate_cny_per_usd: DatedConstant
    electricity_price: dict[Literal["CNY", "USD"], DatedConstant]  # per kWh
    pue: DatedConstant
    operations_fraction_per_year: Constant  # of the purchase price, per year
    depreciation_years: Constant
    default_years: Constant
    server_tiers: dict[str, ServerTier]
    cloud_reference: dict[str, list[ReferenceCloudPrice]] = msgspec.field(default_factory=dict)  # gpu id -> prices

    def to_currency(self, amount: float, from_currency: str, to_currency: str) -> float:
        if from_currency == to_currency:
            return amount
        rate = self.exchange_rate_cny_per_usd.value
        return amount * rate if from_currency == "USD" else amount / rate

    def source_ids(self) -> set[str]:
        return _collect_sources(self)


def _collect_sources(obj: object) -> set[str]:
    out: set[str] = set()
    if isinstance(obj, msgspec.Struct):
        for name in obj.__struct_fields__:
            value = getattr(obj, name)
            if name in ("source", "pcie_source") and isinstance(value, list):
                out.update(value)
            elif name == "source" and isinstance(value, str):
                out.add(value)
            else:
                out |= _collect_sources(value)
    elif isinstance(obj, dict):
        for value in obj.values():
            out |= _collect_sources(value)
    elif isinstance(obj, list):
        for value in obj:
            out |= _collect_sources(value)
    return out


# ------------------------------------------------------------------------------------------------------------
# loading (the only I/O of this package; callers pass the objects on)


def _load(path: Path, model: type[msgspec.Struct]) -> msgspec.Struct:
    """The validated table of `path`; a warm start reads back the JSON snapshot of the last load instead of
    parsing and validating the YAML again (knowledge.snapshot keyed by the file and this module; knowledge.trusted)."""
    return snapshot.cached(f"table-{path.stem}", [path, Path(__file__), *trusted.READER_FILES],
                           lambda: _parse(path, model), trusted.dump, lambda data: trusted.construct(model, data))


def _parse(path: Path, model: type[msgspec.Struct]) -> msgspec.Struct:
    import yaml  # here: a warm start reads the snapshot and parses no YAML

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~10× faster than the Python parser
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except FileNotFoundError:
        raise CatalogError(f"{path.name}: file not found at {path}") from None
    except yaml.YAMLError as exc:
        raise CatalogError(f"{path.name}: not valid YAML: {exc}") from None
    try:
        return validate(model, data)
    except StructError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise CatalogError(f"{path.name}: {where}: {first['msg']}", field=where) from None


@lru_cache(maxsize=4)
def load_calibration(path: Path | None = None) -> Calibration:
    """The validated calibration constants (cached)."""
    return _load(path or CALIBRATION_FILE, Calibration)  # type: ignore[return-value]


@lru_cache(maxsize=4)
def load_economics(path: Path | None = None) -> Economics:
    """The validated economic parameters (cached)."""
    return _load(path or ECONOMICS_FILE, Economics)  # type: ignore[return-value]
