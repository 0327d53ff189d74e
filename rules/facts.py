"""The fact vocabulary of the rule engine: what the recommender (or any caller) asserts.

A request is a list of flat facts. Three kinds exist, told apart by `kind`:

* `ConfigFacts` (kind "config"): one candidate configuration — a GPU × count × layout, how it would be
  bought, the workload it serves, and the estimator's results for it. Substitution, market, risk,
  capability, value, practice and sizing rules read these. Build one per option with
  `ConfigFacts.from_gpu(spec, ...)` so the hardware fields come from the catalog entry.
* `WorkloadFacts` (kind "workload"): the job regardless of hardware (task, parameter count,
  concurrency). The guides' scenario tiers and model-size tables read these. Assert one per request.
* `ClaimFacts` (kind "claim"): a statement from a guide that the user quoted, with the claims data's
  verdict and the computed value. The claims rules read these.

Units are SI (bytes, seconds, watts, FLOP/s); money carries its currency. Every field except the few
marked required is optional: a rule whose fields are absent simply does not fire, so leave out what you
do not know rather than guessing. Derived quantities are computed here, before assertion, so rule
conditions stay comparisons with constants:

=====================  =============================================================  ====================
derived field          formula                                                        from
=====================  =============================================================  ====================
gpu_family             pattern on the catalog id (`rules.gpus.family_of`)             gpu_id
gpus_per_node          count / nodes                                                  count, nodes
fits                   per_gpu_bytes <= memory_bytes                                  estimator
headroom_ratio         (memory_bytes - per_gpu_bytes) / memory_bytes                  estimator
kv_share               kv_cache_bytes / per_gpu_bytes                                 estimator
tp_spans_nodes         tp > gpus_per_node                                             layout
offload_ram_ratio      offload_cpu_bytes / cpu_ram_bytes (host RAM per node)          estimator
deadline_ratio         train_wall_s / deadline_s                                      estimator
budget_ratio           price_amount / budget_amount (same currency)                   cost
power_w                tdp_w * count                                                  catalog
node_gpu_power_w       tdp_w * gpus_per_node                                          catalog
power_ratio            power_w / power_limit_w                                        catalog
throughput_ratio       tokens_per_s / min_tokens_per_s (below 1 misses the target)    estimator
latency_ratio          ms_per_token / max_ms_per_token (above 1 misses the target)    estimator
context_ratio          context / max_context                                          model
=====================  =============================================================  ====================

A derived field passed explicitly is kept as given (the estimator may know better, e.g. an engine's
memory reservation), but only together with its inputs, which the findings quote. `to_facts()` gives the
flat dict the engine asserts, without `None` values; `rules.engine.evaluate` also takes the models
themselves (then they are not validated twice). This module does not import durable_rules.
"""

# No `from __future__ import annotations` here: the structs' field annotations are then evaluated by this
# module's byte-code when the classes are made, not compiled from text on every start
# (knowledge.structs._resolve_annotations: ≈ 40 µs per annotation); names defined later are quoted.

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

from knowledge.errors import AdvisorError, InputError
from knowledge.messages import pair, t
from knowledge.schemas import FP4_ARCHITECTURES, MAX_CLUSTER_GPUS, MAX_CLUSTER_NODES, Architecture, Segment, Stack
from knowledge.structs import Meta, Mutable, StructError, dump, fields, validate
from rules.gpus import resolve_gpu
from rules.sources import source

if TYPE_CHECKING:
    from knowledge.guides import Claim, Figure
    from knowledge.schemas import GpuSpec

Region = Literal["cn", "global"]
Currency = Literal["CNY", "USD"]
Task = Literal["inference", "full", "lora", "qlora", "freeze", "pretrain"]
Precision = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "int3", "int2"]
Acquisition = Literal["buy", "rent", "owned"]
LoadPattern = Literal["steady", "fluctuating"]
Network = Literal["infiniband", "roce", "ethernet"]
Verdict = Literal["right", "wrong", "dated"]  # as in knowledge.guides

TRAINING_TASKS = ("full", "lora", "qlora", "freeze", "pretrain")

# weight formats of advisor.workload.WeightFormat -> the precision family rules reason about
_PRECISION_OF_FORMAT: dict[str, str] = {
    "fp32": "fp32", "bf16": "bf16", "fp16": "fp16", "fp8": "fp8", "int8": "int8", "int4": "int4",
    "gptq-int4": "int4", "gptq-int8": "int8", "awq-int4": "int4", "nf4": "int4", "bnb-int8": "int8",
    "q8_0": "int8", "q6_k": "int8", "q5_k_m": "int4", "q4_k_m": "int4", "q4_0": "int4",
    "q3_k_m": "int3", "q2_k": "int2",
    # 4-bit floating-point block formats (gpt-oss MXFP4, Blackwell NVFP4) and bitsandbytes FP4: 4-bit weights
    "bnb-4bit": "int4", "mxfp4": "int4", "nvfp4": "int4", "mxfp4_moe": "int4",
    "int4-experts": "int4",
    # llama.cpp i-quants by their nominal bits (IQ1 ≈ 1.6–1.8 bits is below the 2-bit family: read as the lowest)
    "iq1_s": "int2", "iq1_m": "int2", "iq2_xxs": "int2", "iq2_xs": "int2", "iq2_s": "int2", "iq2_m": "int2",
    "iq3_xxs": "int3", "iq3_s": "int3", "iq3_m": "int3", "iq4_xs": "int4", "iq4_nl": "int4",
}


def precision_of(weight_format: str) -> str:
    """Precision family of a weight format ("awq-int4" → "int4", "q6_k" → "int8": at most 8 bits)."""
    key = weight_format.strip().lower()
    if key in _PRECISION_OF_FORMAT.values():  # already a family ("int2" from "q2_k")
        return key
    if key not in _PRECISION_OF_FORMAT:
        raise InputError(f"precision '{weight_format}' is not known",
                         field="precision", accepted=", ".join(sorted(_PRECISION_OF_FORMAT)))
    return _PRECISION_OF_FORMAT[key]


class _Facts(Mutable):
    """Base of the facts: validated on construction; derived fields are filled in by `check_invariants`."""

    def to_facts(self) -> dict[str, Any]:
        """The flat dict asserted into the engine: plain values, `None` left out."""
        return dump(self, json=True, exclude_none=True)


def _precision_family(facts: Any) -> None:
    """A weight format given as `precision` read as its family ("awq-int4" → "int4")."""
    v = facts.precision
    if isinstance(v, str):
        facts.precision = precision_of(v)


# derived fields that may be passed explicitly, and the inputs that must come with them
_DERIVED_FROM: dict[str, tuple[str, ...]] = {
    "fits": ("per_gpu_bytes", "memory_bytes"),
    "headroom_ratio": ("per_gpu_bytes", "memory_bytes"),
    "kv_share": ("kv_cache_bytes", "per_gpu_bytes"),
    "offload_ram_ratio": ("offload_cpu_bytes", "cpu_ram_bytes"),
    "deadline_ratio": ("train_wall_s", "deadline_s"),
    "budget_ratio": ("price_amount", "budget_amount"),
    "power_ratio": ("tdp_w", "power_limit_w"),
    "throughput_ratio": ("tokens_per_s", "min_tokens_per_s"),
    "latency_ratio": ("ms_per_token", "max_ms_per_token"),
    "context_ratio": ("context", "max_context"),
}


class ConfigFacts(_Facts):
    """One candidate configuration: hardware, layout, acquisition, workload, and estimator results."""

    kind: Literal["config"] = "config"

    # --- hardware (from the catalog entry; see from_gpu) -------------------------------------------------
    gpu_id: Annotated[str, Meta(description="catalog id or alias; normalised to the catalog id")]
    gpu_family: Annotated[str, Meta(description="family slug (rules.gpus); derived from gpu_id")] | None = None
    gpu_name: str | None = None
    gpu_arch: Architecture | None = None
    segment: Segment | None = None
    memory_bytes: Annotated[int, Meta(gt=0, description="memory of one GPU")] | None = None
    tdp_w: Annotated[float, Meta(gt=0)] | None = None
    nvlink: Annotated[bool, Meta(description="the card has NVLink (bridge or switch)")] | None = None
    scale_up: Annotated[bool, Meta(description="a switched card-to-card fabric in the server (NVLink switch, "
                                               "Infinity Fabric, HCCS)")] | None = None
    modded: Annotated[bool, Meta(description="community memory mod (2080 Ti 22G)")] = False
    software_stack: Annotated[Stack, Meta(description="cuda, rocm, cann, metal or synapseai (knowledge GpuSpec.stack)")] | None = None
    bf16: Annotated[bool, Meta(description="the card has BF16 compute")] | None = None
    fp4_native: Annotated[bool, Meta(description="the card has FP4 matrix units (Blackwell, CDNA 4)")] | None = None
    machine: Annotated[bool, Meta(description="a whole unified-memory computer (Mac, DGX Spark, Ryzen AI Max)")] | None = None
    engine: Annotated[str, Meta(description="the serving/training engine of the option (vllm, llama.cpp, …)")] | None = None

    # --- layout ------------------------------------------------------------------------------------------
    count: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_GPUS, description="GPUs in total")] = 1
    nodes: Annotated[int, Meta(ge=1, le=MAX_CLUSTER_NODES)] = 1
    gpus_per_node: Annotated[int, Meta(ge=1, le=64)] | None = None
    tp: Annotated[int, Meta(ge=1, le=1024)] = 1
    pp: Annotated[int, Meta(ge=1, le=1024)] = 1
    wants_nvlink: Annotated[bool, Meta(description="the configuration as proposed relies on NVLink")] | None = None
    network: Annotated[Network, Meta(description="inter-node network")] | None = None

    # --- acquisition and market ----------------------------------------------------------------------------
    region: Region = "global"
    acquisition: Acquisition = "buy"
    used: Annotated[bool, Meta(description="second-hand cards")] = False

    # --- workload ------------------------------------------------------------------------------------------
    task: Task | None = None
    params: Annotated[float, Meta(gt=0, le=1e14, description="model parameters, total")] | None = None
    precision: Annotated[Precision, Meta(description="weight/compute precision family; weight formats accepted")] | None = None
    weight_format: Annotated[str, Meta(description="the weight format as served (awq-int4, gptq-int4, q4_k_m…)")] | None = None
    flash_attention: Annotated[bool, Meta(description="the job expects FlashAttention-2; None = default on")] | None = None
    context: Annotated[int, Meta(ge=1)] | None = None
    max_context: Annotated[int, Meta(ge=1, description="the model's maximum context")] | None = None
    concurrency: Annotated[int, Meta(ge=1)] | None = None
    always_on: Annotated[bool, Meta(description="serves around the clock")] | None = None
    load_pattern: LoadPattern | None = None
    tco_years: Annotated[float, Meta(gt=0, le=30)] | None = None
    guide_config: Annotated[str, Meta(description="this option is a guide's configuration, as the guide "
                                     "writes it, e.g. '1×RTX 4080 (7B inference minimum)'")] | None = None
    guide_source: Annotated[str, Meta(description="source id of that guide (guide-000, guide-003)")] | None = None
    guide_section: str | None = None

    # --- estimator results ---------------------------------------------------------------------------------
    per_gpu_bytes: Annotated[int, Meta(ge=0, description="estimated memory per GPU, total")] | None = None
    kv_cache_bytes: Annotated[int, Meta(ge=0, description="KV cache per GPU")] | None = None
    fits: bool | None = None
    headroom_ratio: Annotated[float, Meta(le=1)] | None = None
    kv_share: Annotated[float, Meta(ge=0, le=1)] | None = None
    fits_sharded: Annotated[bool, Meta(description="would fit if sharded across the GPUs (TP/ZeRO-3)")] | None = None
    tp_divides_heads: Annotated[bool, Meta(description="attention and KV heads divide evenly by tp")] | None = None
    tp_spans_nodes: bool | None = None
    attention_dp: Annotated[bool, Meta(description="serving an MLA model with attention data-parallel over each TP "
                                       "group (DP attention)")] | None = None
    cpu_ram_bytes: Annotated[int, Meta(gt=0, description="host RAM per node")] | None = None
    offload_cpu_bytes: Annotated[int, Meta(ge=0, description="host memory the job needs per node")] | None = None
    offload_ram_ratio: Annotated[float, Meta(ge=0)] | None = None
    offload_gpu_layers: Annotated[int, Meta(ge=0, description="llama.cpp layer offload: -ngl, layers on the GPU")] | None = None
    offload_cpu_layers: Annotated[int, Meta(ge=0, description="llama.cpp layer offload: layers in system RAM")] | None = None
    offload_tokens_per_s: Annotated[float, Meta(gt=0, description="decode speed with those layers in RAM")] | None = None
    train_wall_s: Annotated[float, Meta(ge=0)] | None = None
    deadline_s: Annotated[float, Meta(gt=0)] | None = None
    deadline_ratio: Annotated[float, Meta(ge=0)] | None = None
    price_amount: Annotated[float, Meta(ge=0)] | None = None
    budget_amount: Annotated[float, Meta(gt=0)] | None = None
    currency: Currency | None = None
    budget_ratio: Annotated[float, Meta(ge=0)] | None = None
    power_w: Annotated[float, Meta(gt=0)] | None = None
    node_gpu_power_w: Annotated[float, Meta(gt=0)] | None = None
    power_limit_w: Annotated[float, Meta(gt=0)] | None = None
    power_ratio: Annotated[float, Meta(ge=0)] | None = None
    tokens_per_s: Annotated[float, Meta(ge=0)] | None = None
    min_tokens_per_s: Annotated[float, Meta(gt=0)] | None = None
    throughput_ratio: Annotated[float, Meta(ge=0)] | None = None
    ms_per_token: Annotated[float, Meta(gt=0)] | None = None
    max_ms_per_token: Annotated[float, Meta(gt=0)] | None = None
    latency_ratio: Annotated[float, Meta(ge=0)] | None = None
    context_ratio: Annotated[float, Meta(gt=0)] | None = None

    def normalize(self) -> None:
        _precision_family(self)

    def check_invariants(self) -> None:
        for derived, inputs in _DERIVED_FROM.items():
            if getattr(self, derived) is not None:
                lacking = [name for name in inputs if getattr(self, name) is None]
                if lacking:  # the findings quote the inputs, so a derived value never comes alone
                    raise ValueError(f"{derived} needs {' and '.join(inputs)} (missing: {', '.join(lacking)})")

        gpu_id, family = resolve_gpu(self.gpu_id)
        self.gpu_id = gpu_id
        if self.gpu_family is None:
            self.gpu_family = family
        if self.nodes > self.count:
            raise ValueError(f"nodes ({self.nodes}) exceeds count ({self.count}); accepted: nodes ≤ count")
        if self.gpus_per_node is None:
            self.gpus_per_node = -(-self.count // self.nodes)
        if self.tp_spans_nodes is None:
            self.tp_spans_nodes = self.tp > self.gpus_per_node
        if self.guide_config is not None:
            if self.guide_source is None:
                raise ValueError("guide_config needs guide_source (guide-000 or guide-003)")

            source(self.guide_source)  # CatalogError naming the id when it does not resolve
        if (self.price_amount is not None or self.budget_amount is not None) and self.currency is None:
            raise ValueError("price_amount/budget_amount need a currency; accepted: CNY, USD")
        mem, used = self.memory_bytes, self.per_gpu_bytes
        if mem is not None and used is not None:
            if self.fits is None:
                self.fits = used <= mem
            if self.headroom_ratio is None:
                self.headroom_ratio = (mem - used) / mem
        if self.kv_share is None and self.kv_cache_bytes is not None and used:
            self.kv_share = min(1.0, self.kv_cache_bytes / used)
        if self.offload_ram_ratio is None and self.offload_cpu_bytes is not None and self.cpu_ram_bytes:
            self.offload_ram_ratio = self.offload_cpu_bytes / self.cpu_ram_bytes
        if self.deadline_ratio is None and self.train_wall_s is not None and self.deadline_s:
            self.deadline_ratio = self.train_wall_s / self.deadline_s
        if self.budget_ratio is None and self.price_amount is not None and self.budget_amount:
            self.budget_ratio = self.price_amount / self.budget_amount
        if self.power_w is None and self.tdp_w is not None:
            self.power_w = self.tdp_w * self.count
        if self.node_gpu_power_w is None and self.tdp_w is not None:
            self.node_gpu_power_w = self.tdp_w * self.gpus_per_node
        if self.power_ratio is None and self.power_w is not None and self.power_limit_w:
            self.power_ratio = self.power_w / self.power_limit_w
        if self.throughput_ratio is None and self.tokens_per_s is not None and self.min_tokens_per_s:
            self.throughput_ratio = self.tokens_per_s / self.min_tokens_per_s
        if self.latency_ratio is None and self.ms_per_token is not None and self.max_ms_per_token:
            self.latency_ratio = self.ms_per_token / self.max_ms_per_token
        if self.context_ratio is None and self.context is not None and self.max_context:
            self.context_ratio = self.context / self.max_context

    @classmethod
    def from_gpu(cls, gpu: "GpuSpec", **fields: Any) -> "ConfigFacts":
        """Facts for a configuration of catalog GPU `gpu`; `fields` add layout, workload and results."""
        hardware = {
            "gpu_id": gpu.id,
            "gpu_name": gpu.name,
            "gpu_arch": gpu.architecture,
            "segment": gpu.segment,
            "memory_bytes": gpu.memory_bytes,
            "tdp_w": gpu.tdp_w,
            # a card-to-card link (NVLink, Infinity Fabric, Ascend's HCCS), its bandwidth published or not
            "nvlink": gpu.nvlink_bytes_per_s > 0 or gpu.link_kind != "none",
            "scale_up": gpu.scale_up,
            "modded": gpu.modded,
            "software_stack": gpu.stack,
            "bf16": gpu.supports_bf16,
            "fp4_native": gpu.architecture in FP4_ARCHITECTURES,
            "machine": gpu.is_machine,
        }
        return cls(**{**hardware, **fields})


class WorkloadFacts(_Facts):
    """The job, independent of hardware: what the guides' scenario tiers and size tables key on."""

    kind: Literal["workload"] = "workload"
    task: Task
    params: Annotated[float, Meta(gt=0, le=1e14, description="total parameters")]
    active_params: Annotated[float, Meta(gt=0, le=1e14, description="parameters active per token (MoE)")] | None = None
    concurrency: Annotated[int, Meta(ge=1, le=1_000_000)] = 1
    context: Annotated[int, Meta(ge=1)] | None = None
    precision: Precision | None = None
    region: Region = "global"
    model_id: str | None = None
    budget_amount: Annotated[float, Meta(gt=0)] | None = None
    currency: Currency | None = None

    def normalize(self) -> None:
        _precision_family(self)


class ClaimFacts(_Facts):
    """A guide statement the user quoted, as checked in the claims data (knowledge.guides): the verdict, the
    guide's figure and the computed one. Build it with `ClaimFacts.from_claim(guides.claim(id))`."""

    kind: Literal["claim"] = "claim"
    claim_id: Annotated[str, Meta(min_length=1)]
    verdict: Verdict
    claim_text: Annotated[str, Meta(description="the guide's words (Chinese original)")] | None = None
    claim_en: Annotated[str, Meta(description="the claim in English")] | None = None
    stated_value: Annotated[float, Meta(description="the guide's figure, when numeric")] | None = None
    unit: Annotated[str, Meta(description="unit of stated_value")] | None = None
    computed_value: Annotated[float, Meta(description="the computed figure, when numeric")] | None = None
    computed_unit: Annotated[str, Meta(description="unit of computed_value; default: unit")] | None = None
    correction: Annotated[str, Meta(description="the explanation with the computed value, English")] | None = None
    correction_zh: Annotated[str, Meta(description="the same in Chinese, when available")] | None = None
    claim_source: Annotated[str, Meta(description="source id of the guide making the claim (guide-000, guide-003)")]
    section: str | None = None

    def check_invariants(self) -> None:
        if self.stated_value is not None and self.unit is None:
            raise ValueError("stated_value needs its unit")
        if self.computed_value is not None and self.unit is None and self.computed_unit is None:
            raise ValueError("computed_value needs a unit (unit or computed_unit)")
        if self.computed_unit is None and self.computed_value is not None:
            self.computed_unit = self.unit

        source(self.claim_source)  # CatalogError naming the id when it does not resolve

    @classmethod
    def from_claim(cls, claim: "Claim") -> "ClaimFacts":
        """Facts for a checked claim of `knowledge.guides` (id, guide, section, quote, claim, claimed, computed,
        verdict, explanation). Non-numeric figures (text, yes/no) are left to the wording."""

        def number(fig: "Figure") -> float | None:
            v = getattr(fig, "value", None)
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

        stated, computed = number(claim.claimed), number(claim.computed)
        return cls(
            claim_id=claim.id, verdict=claim.verdict, claim_text=claim.quote, claim_en=claim.claim,
            stated_value=stated, unit=claim.claimed.unit if stated is not None else None,
            computed_value=computed, computed_unit=claim.computed.unit if computed is not None else None,
            correction=claim.explanation or None, correction_zh=getattr(claim, "explanation_zh", None) or None,
            claim_source=claim.guide, section=claim.section,
        )


AnyFacts = ConfigFacts | WorkloadFacts | ClaimFacts
_MODELS: dict[str, type[_Facts]] = {"config": ConfigFacts, "workload": WorkloadFacts, "claim": ClaimFacts}


def _accepted(err: dict[str, Any]) -> str | None:
    ctx = err.get("ctx") or {}
    if "expected" in ctx:
        return str(ctx["expected"]).replace("'", "").replace(" or ", ", ")
    for key, sign in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤")):
        if key in ctx:
            value = ctx[key]
            return f"a number {sign} {value:g}" if isinstance(value, (int, float)) else f"a number {sign} {value}"
    return None


def validate_facts(fact: Mapping[str, Any] | _Facts) -> dict[str, Any]:
    """Validate one fact (a mapping with `kind`, or a facts model) and return its flat dict.

    Raises InputError naming the field and the accepted values, or UnknownGpu for an unknown GPU.
    """
    if isinstance(fact, _Facts):
        return fact.to_facts()
    if not isinstance(fact, Mapping):
        raise InputError(f"a fact must be a mapping with a 'kind', got {type(fact).__name__}",
                         field="kind", accepted="config, workload, claim")
    kind = fact.get("kind")
    model = _MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        message, message_zh = pair("rules.fact.unknown_kind", kind=kind)
        raise InputError(message, field="kind", accepted="config, workload, claim", message_zh=message_zh)
    try:
        values = dict(fact)
        if isinstance(values.get("precision"), str) and "precision" in fields(model):  # "awq-int4" → "int4"
            values["precision"] = precision_of(values["precision"])
        return validate(model, values).to_facts()
    except StructError as exc:
        err = exc.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in err["loc"]) or "(fact)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            known = ", ".join(sorted(fields(model)))
            raise InputError(f"{kind} fact: unknown field '{loc}'", field=loc, accepted=known) from None
        accepted = _accepted(err)
        got = err.get("input")
        if not err["loc"]:  # a check across fields (model validator)
            first = msg.split(" ", 1)[0]
            message, message_zh = pair("rules.fact.invalid", kind=kind, msg=msg)
            raise InputError(message, field=first if first in fields(model) else None, message_zh=message_zh) from None
        key = ("rules.fact.not_a_value" if err["type"] in ("literal_error", "enum") else
               "rules.fact.required" if err["type"] == "missing" else "rules.fact.wrong_value")
        text, text_zh = pair(key, kind=kind, loc=loc, got=got, msg=msg)
        if accepted:  # the English suffix is the one InputError would add; the Chinese says it in its own words
            text += t("rules.fact.accepted", "en", accepted=accepted)
            text_zh += t("rules.fact.accepted", "zh", accepted=accepted)
        raise InputError(text, field=loc, accepted=accepted, message_zh=text_zh) from None
    except AdvisorError:
        raise
