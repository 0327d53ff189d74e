"""The typed parts of a recommender `Option`: its layout, the card price it rests on and its memory margin, each
with the `to_contract()` that writes the JSON shape DESIGN.md fixes (same keys, same order, same nulls).

The layout keeps two different offloads apart: ZeRO's optimizer-state offload to host RAM (`zero_offload`, the
training workload's `offload`) and llama.cpp's layer offload (`layer_offload`: `-ngl` layers on the card, the rest
in system RAM). Both are written under the contract's one `offload` key, "layers" for the latter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from advisor.workload import Offload
from knowledge.quantities import Money
from knowledge.structs import Frozen, Meta, NonNegativeInt, PositiveInt, fields, validate

ZeroStage = Annotated[int, Meta(ge=0, le=3)]


class PlannedLayout(Frozen):
    """What the parallelism planner (Megatron-LM) adds to a layout: expert and context parallelism, the
    recomputation split, the batch and the interleaving (advisor.estimator.parallel_layout.ParallelLayout)."""

    ep: PositiveInt
    cp: PositiveInt
    recompute_layers: NonNegativeInt
    micro_batch: PositiveInt
    grad_accum: PositiveInt
    global_batch_tokens: NonNegativeInt
    vpp: PositiveInt
    summary: str  # "TP 2 × PP 4 × DP 8, ZeRO-1, …"


class LayerOffload(Frozen):
    """llama.cpp layer offload: `ngl` layers on the card (`-ngl`), `cpu_layers` and `system_ram_bytes` on the host."""

    ngl: NonNegativeInt
    cpu_layers: NonNegativeInt
    system_ram_bytes: NonNegativeInt


class OptionLayout(Frozen):
    """How an option splits the model: TP × PP × DP, the ZeRO stage and its optimizer offload, the engine, the
    weight and KV formats, activation recomputation (training only), and the planner's or llama.cpp's extras."""

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

    @property
    def offload(self) -> str:
        """The contract's `offload`: "layers" for llama.cpp layer offload, else the ZeRO offload."""
        return "layers" if self.layer_offload is not None else self.zero_offload

    def to_contract(self) -> dict[str, Any]:
        """The contract's flat `layout` object: the common keys, then the planner's, then llama.cpp's."""
        out: dict[str, Any] = {"tp": self.tp, "pp": self.pp, "dp": self.dp, "zero": self.zero, "offload": self.offload,
                               "engine": self.engine, "weights": self.weights, "kv": self.kv,
                               "recompute": self.recompute}
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
    def from_contract(cls, data: Mapping[str, Any]) -> OptionLayout:
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
    def from_contract(cls, data: Mapping[str, Any]) -> UnitPrice:
        """The price back from its contract object; StructError when invalid (a price without a currency)."""
        flat = dict(data)
        money = {k: flat.pop(k) for k in ("amount", "currency") if k in flat}
        return validate(cls, {**flat, "per_card": money})


class Margin(Frozen):
    """How close a serving option is to its memory limit: the share of the engine's usable memory it takes and,
    near capacity, where it stops (the longest context at one sequence, the most sequences at the asked context)."""

    used_bytes: NonNegativeInt
    usable_bytes: NonNegativeInt
    share: float
    near_capacity: bool
    max_context: int | None = None  # near capacity only (with the three below)
    max_concurrency: int | None = None
    context: int | None = None
    concurrency: int | None = None

    def to_contract(self) -> dict[str, Any]:
        out: dict[str, Any] = {"used_bytes": self.used_bytes, "usable_bytes": self.usable_bytes, "share": self.share,
                               "near_capacity": self.near_capacity}
        if self.near_capacity:
            out.update(max_context=self.max_context, max_concurrency=self.max_concurrency, context=self.context,
                       concurrency=self.concurrency)
        return out

