"""The recommender's typed results and their JSON contracts: `Option` (one configuration with everything computed
for it), `Change` (what would make a configuration work) and `Recommendation` (the ranked options for one request).

`to_contract()` gives the `gpu-advisor recommend --json` shapes of DESIGN.md (plus the documented extras); the
findings of an option and of the whole request are rendered by one helper, `findings_contract`.
"""

# No `from __future__ import annotations` here: the structs' field annotations are then evaluated by this
# module's byte-code when the classes are made, not compiled from text on every start
# (knowledge.structs._resolve_annotations: ≈ 40 µs per annotation); names defined later are quoted.

from typing import Any

import msgspec

from advisor.estimator.results import Breakdown, MemoryEstimate
from advisor.recommend.parts import Margin, OptionLayout, OptionTco, ServingFigures, TrainingFigures, UnitPrice
from advisor.workload import Workload
from knowledge.messages import t
from knowledge.quantities import SYMBOLS, Bytes
from knowledge.structs import Mutable, dump
from rules.findings import Finding

ChangeValue = int | float | str | None  # a budget amount, a format or task name, a context length


class Option(Mutable):
    """One configuration: a GPU, a count and a layout, with everything computed for it. Its parts (layout,
    price, serving or training speed, TCO, memory margin) are typed (advisor.recommend.parts); `to_contract` writes
    them as the JSON contract's objects."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    gpu: str
    gpu_name: str
    count: int
    nodes: int = 1
    layout: OptionLayout
    per_gpu: Breakdown  # memory per GPU by purpose (the contract's `per_gpu_bytes`)
    cpu: Breakdown = msgspec.field(default_factory=Breakdown)  # host memory of a CPU offload (zeros: none)
    capacity: Bytes  # the card's memory (the contract's `capacity_bytes`)
    usable: Bytes  # what the engine lets the job use of it
    headroom_ratio: float
    fits: bool
    throughput: ServingFigures | None = None  # a serving option's speed
    training: TrainingFigures | None = None  # a training option's time
    price: UnitPrice | None = None  # the card price the option rests on
    tco: OptionTco | None = None
    findings: list[Finding] = msgspec.field(default_factory=list)
    substitutes: list[str] = msgspec.field(default_factory=list)
    launch_hint: str = ""
    labels: list[str] = msgspec.field(default_factory=list)
    meets_targets: bool = True
    misses: list[str] = msgspec.field(default_factory=list)  # which target or constraint it misses ("budget", "latency", …)
    formulas: list[str] = msgspec.field(default_factory=list)
    assumptions: list[str] = msgspec.field(default_factory=list)
    margin: Margin | None = None  # serving options that fit: how close to the memory limit, where it stops
    _memory: tuple[MemoryEstimate, Workload] | None = None  # behind the numbers: not a field, not in the contract

    def to_contract(self) -> dict[str, Any]:
        """The `gpu-advisor recommend --json` option shape of DESIGN.md, plus documented extras.

        `sized_workload`: the Workload the memory estimate was computed for — the layout as one GPU sees it
        (`gpus` per node, `nodes`, `tp`, `pp`, `zero`, `offload`; inference replicas split the `concurrency`) —
        as `Workload.model_dump(mode="json")`, or None when the option has no estimate attached. For the layouts
        the recommender sizes itself, `estimate_memory(model, sized_workload, gpu)` gives `per_gpu_bytes` again
        (a plot redrawn from fields); the parallelism planner's layouts (`layout["engine"] == "megatron"`) take
        their memory from the plan, and a llama.cpp layer-offload option (`layout["offload"] == "layers"`) its
        GPU side from the offload plan."""
        sized = self.sized_workload
        return {
            "gpu": self.gpu,
            "count": self.count,
            "layout": self.layout.to_contract(),
            "per_gpu_bytes": self.per_gpu.to_contract(),
            "fits": self.fits,
            "throughput": (self.throughput.to_contract() if self.throughput else
                           self.training.to_contract() if self.training else {}),
            "price": price_contract(self.price),
            "findings": findings_contract(self.findings),
            "gpu_name": self.gpu_name,
            "nodes": self.nodes,
            "labels": self.labels,
            "capacity_bytes": self.capacity.n,
            "headroom_ratio": round(self.headroom_ratio, 4),
            "tco": None if self.tco is None else self.tco.to_contract(),
            "substitutes": self.substitutes,
            "launch_hint": self.launch_hint,
            "meets_targets": self.meets_targets,
            "misses": self.misses,
            "margin": {} if self.margin is None else self.margin.to_contract(),
            "sized_workload": None if sized is None else dump(sized, json=True),
        }

    @property
    def used_price(self) -> bool:
        """Priced from a used-card price (the headline must say "used" / "二手")."""
        return self.price is not None and self.price.condition == "used"

    @property
    def quantised(self) -> bool:
        """Served from an integer-quantised checkpoint (AWQ, GPTQ, GGUF, bitsandbytes); 16-bit and FP8 are not."""
        return self.layout.weights not in ("bf16", "fp16", "fp32", "fp8")

    @property
    def near_capacity(self) -> bool:
        return self.margin is not None and self.margin.near_capacity

    @property
    def memory_estimate(self) -> MemoryEstimate | None:
        """The memory estimate of one GPU behind the numbers (not in the JSON contract nor model_dump)."""
        return self._memory[0] if self._memory else None

    @property
    def sized_workload(self) -> Workload | None:
        """The workload as one GPU of the layout sees it (inference replicas split the concurrency), for which
        `memory_estimate` was computed."""
        return self._memory[1] if self._memory else None

    def set_memory(self, est: MemoryEstimate, sized: Workload) -> None:
        """Attach the estimate behind the numbers and the sized workload it was computed for."""
        self._memory = (est, sized)


def option_tags(o: Option, lang: str = "en") -> list[str]:
    """Words an answer's headline and layout cell must carry about an option: its 4-bit format when quantised
    ("AWQ-INT4"), or any format the recommender chose in place of the checkpoint's own (label "quantised": FP8 for
    a model published in BF16), and "used" / "二手" when it is priced from used cards."""
    tags = []
    serving = not o.training and not o.layout.recompute
    if serving and (o.quantised or "quantised" in o.labels):
        fmt = o.layout.weights
        tags.append(t("option.tag.int4_experts", lang) if fmt == "int4-experts" else weights_said(o))  # Kimi K2's own
    if o.used_price:
        tags.append(t("option.tag.used_price", lang))
    if o.near_capacity:
        tags.append(t("option.tag.near_capacity", lang))
    return tags


def price_contract(price: UnitPrice | None) -> dict[str, Any] | None:
    """A price as the JSON contract shows it: amount, currency, `as_of`, `condition` (new / used / street) and the
    source's `reliability` beside the date, then its kind, source and whether the card is end-of-life."""
    return None if price is None else price.to_contract()


def findings_contract(findings: list[Finding]) -> list[dict[str, Any]]:
    """Findings as the JSON contract shows them (an option's and the request's alike)."""
    return [{"rule_id": f.rule_id, "severity": f.severity, "message": f.message, "message_zh": f.message_zh,
             "source": f.source, "as_of": f.as_of} for f in findings]


class Change(Mutable):
    """Something that would have to change for a configuration to fit or meet the targets."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    kind: str  # "gpu_share", "precision", "engine", "context", "concurrency", "budget", "gpus", "task"
    for_existing: bool = False  # checked on the user's own cards only
    message: str
    message_zh: str
    value: ChangeValue = None
    context: int | None = None  # a weight format offered with a shorter context (4-bit at 12,288 tokens): that context


class Recommendation(Mutable):
    """The ranked options for one workload under its constraints, with what would have to change and why."""
    derived = True  # computed by the program from checked input (knowledge.structs)

    model: dict[str, Any]
    workload: dict[str, Any]
    constraints: dict[str, Any]
    options: list[Option] = msgspec.field(default_factory=list)  # ranked: the labelled ones first
    closest: list[Option] = msgspec.field(default_factory=list)  # when nothing meets the constraints
    changes: list[Change] = msgspec.field(default_factory=list)
    findings: list[Finding] = msgspec.field(default_factory=list)  # about the workload as a whole (scenario tiers, claims)
    assumptions: list[str] = msgspec.field(default_factory=list)
    assumptions_zh: list[str] = msgspec.field(default_factory=list)  # the same, in Chinese
    considered: int = 0  # configurations evaluated
    market_excluded: list[str] = msgspec.field(default_factory=list)  # cards left out for the region's market (stated)

    def assumptions_in(self, lang: str) -> list[str]:
        return self.assumptions_zh if lang == "zh" and self.assumptions_zh else self.assumptions

    def to_contract(self) -> dict[str, Any]:
        return {
            "options": [o.to_contract() for o in self.options],
            "closest": [o.to_contract() for o in self.closest],
            "changes": [dump(c) for c in self.changes],
            "model": self.model,
            "workload": self.workload,
            "constraints": self.constraints,
            "findings": findings_contract(self.findings),
            "assumptions": self.assumptions,
            "market_excluded": self.market_excluded,
        }

    def lead_summary(self, lang: str = "en") -> str:
        """The answer's first line for the leading option: the full purchase (cards and servers) and the TCO over
        the horizon; owned cards are named as owned and costed by their running cost (power and operations).
        "" when there is no option."""
        return purchase_line(self.options[0], lang) if self.options else ""

    def headline_condition(self, lang: str = "en") -> str:
        """"used" / "二手" when the leading option is priced from a used card, else "" (for the answer's headline)."""
        lead = self.options[0] if self.options else None
        if lead is None or not lead.used_price:
            return ""
        return t("price.condition.used", lang)


def money(amount: float, currency: str) -> str:
    """"$138,621" / "¥674,310" (whole units)."""
    sym = SYMBOLS.get(currency)
    return f"{sym}{amount:,.0f}" if sym else f"{amount:,.0f} {currency}"


def ascend_checkpoint(o: Option) -> str | None:
    """On Ascend, which has no FP8 and no AWQ/GPTQ kernels, the msModelSlim checkpoint an 8- or 4-bit option runs:
    "W8A8 INT8" or "W4A8" (rules-vllm-ascend-quant; launch._serving_hint); None elsewhere."""
    fmt = o.layout.weights
    if fmt not in ("fp8", "awq-int4", "gptq-int4"):
        return None
    from knowledge.catalog import load_catalog  # start-up: only a quantised option's words read the catalog

    gpu = load_catalog().find_gpu(o.gpu)
    if gpu is None or gpu.stack != "cann":
        return None
    return "W8A8 INT8" if fmt == "fp8" else "W4A8"


def weights_said(o: Option) -> str:
    """An option's weight format as its answer names it: "AWQ-INT4", "FP8"; on Ascend the checkpoint it runs."""
    return ascend_checkpoint(o) or o.layout.weights.upper()


def purchase_line(o: Option, lang: str = "en") -> str:
    """One option in words with its full cost: "4× NVIDIA H200 SXM in 1 server: $138,621 to buy (GPUs $106,611 +
    server $32,010), 3-year TCO $178,598"; owned: "2× RTX 4090 (already owned): nothing to buy; running cost
    (power and operations) ¥29,232 over 3 years"."""
    cost = o.tco
    years = cost.years if cost is not None else 3.0
    tco = cost.tco if cost is not None else None
    servers = cost.servers if cost is not None else o.nodes
    used = ""
    if "used" in o.labels:
        from knowledge.catalog import load_catalog  # start-up: only a second-hand or modded option reads the catalog

        used = t("suffix.modded" if load_catalog().gpu(o.gpu).modded else "suffix.used", lang)
    if "existing" in o.labels:
        name = f"{o.count}× {o.gpu_name}" + t("suffix.owned", lang)
        if not tco:
            return name
        job_hours = getattr(cost, "job_hours", None)
        if job_hours:  # a training job on cards already owned: what running that job costs, not a horizon of years
            return t("purchase.owned_job", lang, name=name, run=money(tco.amount, tco.currency),
                     hours=f"{job_hours:,.0f}")
        return t("purchase.owned", lang, name=name, run=money(tco.amount, tco.currency), years=years)
    fmt = t("replicas.with_weights", lang, fmt=weights_said(o)) if "quantised" in o.labels else ""
    name = f"{o.count}× {o.gpu_name}{used}{fmt}" + t("purchase.in_servers", lang, n=servers)
    purchase = cost.purchase if cost is not None else None
    total = purchase.total if purchase is not None else None
    if not total:
        if o.price is None:
            return t("purchase.no_price", lang, name=name)
        cards = money(o.price.per_card.amount * o.count, o.price.per_card.currency)
        return t("purchase.cards_only", lang, name=name, cards=cards)
    cur = total.currency
    gpus, rest = purchase.gpus if purchase else None, purchase.rest_of_system if purchase else None
    parts = t("purchase.parts", lang, n=servers, gpus=money(gpus.amount, cur),
              rest=money(rest.amount, cur)) if gpus and rest and rest.amount else ""  # a machine: no parts
    tco_text = money(tco.amount, tco.currency) if tco else ""
    return (t("purchase.buy", lang, name=name, buy=money(total.amount, cur), parts=parts)
            + (t("purchase.tco", lang, years=years, tco=tco_text) if tco_text else ""))
