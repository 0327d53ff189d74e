"""The two Chinese buying guides as data: scenario tiers, value ranking, model-size table, TCO table,
substitution statements, and every checkable numeric claim with a computed check and a verdict.

Data: `knowledge/data/guides/*.yaml`, citing `guide-000` (seeds/000_40d9afaaa53413f3.txt, dated 2025-06-16) and
`guide-003` (seeds/003_116b2c47c4d342f5.txt, undated). A claim's *computed* value is never typed in: the YAML
names a check (a function in `CHECKS`) and its inputs; the check reads the catalog and `knowledge.params`, and the
verdict follows from comparing the guide's figure with the computed one:

- "right": the guide's figure agrees with the computed one within the stated tolerance;
- "wrong": it does not (or was already false on the guide's own date);
- "dated": it was true once (an older price, a market rule before a later change) but is not now.

Units in checks: model/weight sizes in GB (10^9 bytes) as the guides write them, GPU capacity in GiB, compute
in dense TFLOPS, bandwidth in GB/s, money in CNY or USD as stated.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from knowledge.catalog import Catalog, check_cites, data_dir, load_catalog, read_yaml, validate_file
from knowledge.errors import AdvisorError, CatalogError, InputError
from knowledge.params import param_counts
from knowledge.structs import Frozen, Meta, Value

GuideId = Literal["guide-000", "guide-003"]
Verdict = Literal["right", "wrong", "dated"]
GUIDE_DATES: dict[str, dt.date | None] = {"guide-000": dt.date(2025, 6, 16), "guide-003": None}
GiB = 2**30


class _Strict(Frozen):
    """A guide table's entry: frozen, checked, unknown fields refused."""


class GuideRef(_Strict):
    guide: GuideId
    section: str
    quote: str  # the Chinese original


class GpuCount(_Strict):
    gpu: str  # catalog id
    count: Annotated[int, Meta(ge=1)]


# --- scenario tiers (guide-003 part 5) ------------------------------------------------------------------------

class DemandProfile(_Strict):
    inference_finetune: str  # "7B-14B"
    inference_finetune_params: tuple[float, float]  # in parameters, e.g. (7e9, 14e9)
    training: str
    training_params: float
    concurrency: tuple[int, int]
    data_scale: str
    memory_estimate_gb: float  # the guide's 显存需求预估


class ServerConfig(_Strict):
    gpus: GpuCount
    cpu: str
    ram_gb: int
    disk_tb: float
    price_cny: float  # the guide's 价格预估 for the whole server


class ScenarioTier(_Strict):
    id: str
    name_zh: str
    name_en: str
    demand: DemandProfile
    basic: ServerConfig
    advanced: ServerConfig
    ref: GuideRef


class ScenarioTiers(_Strict):
    tiers: tuple[ScenarioTier, ...]


# --- value ranking, substitutions ------------------------------------------------------------------------------

class ValueRanking(_Strict):
    order: tuple[str, ...]  # gpu ids, best value first
    statements: tuple[GuideRef, ...]
    ref: GuideRef


class Substitution(_Strict):
    id: str
    original: str  # gpu id
    substitute: str  # gpu id
    context: str  # "inference", "pre-training", "fine-tuning", "all"
    claim_id: str | None = None  # the claim that checks it
    ref: GuideRef


class Substitutions(_Strict):
    substitutions: tuple[Substitution, ...]


# --- model-size table and TCO table (guide-000) ----------------------------------------------------------------

class SizeCell(_Strict):
    text: str  # as printed, e.g. "1×RTX 4090(8-bit)"
    gpus: GpuCount
    precision: str | None = None  # "8-bit", "4-bit", "quantized"
    claim_id: str | None = None


class SizeRow(_Strict):
    size: str  # "7B参数"
    params: float
    training_min: SizeCell
    finetune_min: SizeCell
    inference_min: SizeCell
    production: str


class SizeTable(_Strict):
    rows: tuple[SizeRow, ...]
    ref: GuideRef


class TcoRow(_Strict):
    option_zh: str
    option_en: str
    gpus: GpuCount | None = None  # None for the cloud row
    initial_cny: float | None
    energy_cny: float | None
    operations_cny: float | None
    total_cny: float | None
    use_case: str
    claim_ids: tuple[str, ...] = ()


class TcoTable(_Strict):
    rows: tuple[TcoRow, ...]
    ref: GuideRef


# --- claims ------------------------------------------------------------------------------------------------------

class Figure(_Strict):
    value: float | str | bool
    unit: str


class ClaimSpec(_Strict):
    """A claim as written in the data file: what the guide says and how to check it."""

    id: str
    guide: GuideId
    section: str
    quote: str
    claim: str  # in English
    claimed: Figure  # the guide's figure
    check: str  # a key of CHECKS
    args: dict[str, Any] = {}  # noqa: RUF012 - msgspec gives each instance its own empty dict
    compare: Literal["approx", "at_least", "at_most", "equal", "positive", "fits", "market", "price_history"] = "approx"
    tolerance: Annotated[float, Meta(ge=0)] = 0.1
    explanation: str  # str.format template over the check's named results
    explanation_zh: str | None = None  # the same in Chinese (same placeholders); None: Chinese answers quote the English
    design_error: bool = False  # listed in DESIGN.md "Known errors in the guides"

    def check_invariants(self) -> None:
        if self.check not in CHECKS:
            raise ValueError(f"unknown check '{self.check}' (accepted: {', '.join(sorted(CHECKS))})")


class UncheckedClaim(_Strict):
    """A numeric statement of a guide that the catalog cannot check, and why."""

    id: str
    guide: GuideId
    section: str
    quote: str
    claim: str
    reason: str


class ClaimFile(_Strict):
    claims: tuple[ClaimSpec, ...]
    unchecked: tuple[UncheckedClaim, ...] = ()


class Claim(_Strict):
    """A checked claim: the guide's figure, the computed figure and the verdict."""

    id: str
    guide: GuideId
    section: str
    quote: str
    claim: str
    claimed: Figure
    computed: Figure
    verdict: Verdict
    explanation: str
    design_error: bool
    check: str
    explanation_zh: str | None = None
    gpus: tuple[str, ...] = ()  # the catalog cards the claim is about (its check's gpu / also / gpus arguments)
    details: dict[str, Any]

    @property
    def source(self) -> str:
        return self.guide


# --- checks ------------------------------------------------------------------------------------------------------

class Result(Value):
    value: float | str | bool
    unit: str
    named: dict[str, Any] = msgspec.field(default_factory=dict)
    verdict: Verdict | None = None  # set by checks that decide it themselves (market, fits)


def _params(cat: Catalog, args: dict[str, Any]) -> float:
    """Parameter count: computed from a catalog model, or a nominal size ("70B" in the guide) when no model."""
    if "model" in args:
        return float(param_counts(cat.model(args["model"])).total)
    return float(args["params"])


def _field(cat: Catalog, gpu: str, name: str) -> float:
    value = getattr(cat.gpu(gpu), name)
    if value is None:
        raise CatalogError(f"guides: GPU '{gpu}' has no '{name}'", field=name)
    return float(value)


_SCALE = {"flops": (1e12, "TFLOPS"), "ops": (1e12, "TOPS"), "bytes_per_s": (1e9, "GB/s"), "memory_bytes": (GiB, "GiB"),
          "tdp_w": (1.0, "W")}


def _scale_for(name: str) -> tuple[float, str]:
    for suffix, scale in _SCALE.items():
        if name.endswith(suffix):
            return scale
    return 1.0, ""


def check_gpu_field(cat: Catalog, gpu: str, field: str, also: list[str] | None = None) -> Result:
    """A catalog figure in display units (dense TFLOPS, GB/s, GiB, W); `also` adds other GPUs' values by id."""
    scale, unit = _scale_for(field)
    named = {"value": _field(cat, gpu, field) / scale}
    for other in also or []:
        named[other.replace("-", "_")] = _field(cat, other, field) / scale
    g = cat.gpu(gpu)
    if g.fp16_acc_dense_flops:
        named["fp16_acc"] = g.fp16_acc_dense_flops / 1e12
    if g.tf32_dense_flops:
        named["tf32"] = g.tf32_dense_flops / 1e12
    named["fp32"] = g.fp32_flops / 1e12
    named["sparse"] = 2 * named["value"]
    return Result(named["value"], unit, named)


def check_gpu_ratio(cat: Catalog, a: str, b: str, field: str, field_b: str | None = None) -> Result:
    """a.field / b.field_b (same field by default)."""
    va, vb = _field(cat, a, field), _field(cat, b, field_b or field)
    scale, unit = _scale_for(field)
    named = {"a": va / scale, "b": vb / _scale_for(field_b or field)[0], "unit": unit,
             "mem_ratio": _field(cat, a, "memory_bytes") / _field(cat, b, "memory_bytes"),
             "bw_ratio": _field(cat, a, "bandwidth_bytes_per_s") / _field(cat, b, "bandwidth_bytes_per_s"),
             "bf16_ratio": _field(cat, a, "bf16_dense_flops") / _field(cat, b, "bf16_dense_flops")}
    return Result(va / vb, "x", named)


def check_gpu_flag(cat: Catalog, gpu: str, field: str) -> Result:
    """A yes/no capability of the catalog entry (supports_fp8, supports_bf16, …)."""
    return Result(bool(getattr(cat.gpu(gpu), field)), field)


def check_architecture(cat: Catalog, gpus: list[str]) -> Result:
    """The architecture of each listed GPU; the value is the one they share (or a list when they differ)."""
    archs = {g: cat.gpu(g).architecture for g in gpus}
    values = sorted(set(archs.values()))
    return Result(values[0] if len(values) == 1 else ", ".join(values), "architecture", {"archs": archs})


def check_nvlink(cat: Catalog, gpu: str) -> Result:
    g = cat.gpu(gpu)
    return Result(g.nvlink_bytes_per_s / 1e9, "GB/s", {"value": g.nvlink_bytes_per_s / 1e9, "nvlink": g.nvlink})


def check_weights_gb(cat: Catalog, bits: float, model: str | None = None, params: float | None = None) -> Result:
    """Weight bytes = parameters × bits / 8, in GB (10^9 bytes) and GiB."""
    n = _params(cat, {"model": model} if model else {"params": params})
    size = n * bits / 8
    return Result(size / 1e9, "GB", {"value": size / 1e9, "gib": size / GiB, "params_b": n / 1e9, "bits": bits})


def check_bytes_per_param(cat: Catalog, bytes_per_param: float, model: str | None = None,
                          params: float | None = None) -> Result:
    """Memory = parameters × bytes per parameter, in GB (10^9 bytes)."""
    n = _params(cat, {"model": model} if model else {"params": params})
    size = n * bytes_per_param
    return Result(size / 1e9, "GB", {"value": size / 1e9, "tb": size / 1e12, "params_b": n / 1e9,
                                     "bytes_per_param": bytes_per_param})


def check_fits(cat: Catalog, gpu: str, count: int, bytes_per_param: float, model: str | None = None,
               params: float | None = None, claim_fits: bool = True) -> Result:
    """Required = parameters × bytes/param (weights, or model states for training; activations and KV cache not
    included, so "does not fit" is robust) against count × GPU memory."""
    n = _params(cat, {"model": model} if model else {"params": params})
    required = n * bytes_per_param
    capacity = count * cat.gpu(gpu).memory_bytes
    fits = required <= capacity
    named = {"value": required / 1e9, "required_gb": required / 1e9, "required_gib": required / GiB,
             "capacity_gib": capacity / GiB, "capacity_gb": capacity / 1e9, "params_b": n / 1e9,
             "min_gpus": math.ceil(required / cat.gpu(gpu).memory_bytes), "fits": fits}
    return Result(required / 1e9, "GB", named, "right" if fits == claim_fits else "wrong")


def _newest_price(cat: Catalog, gpu: str, currency: str) -> Any:
    price = cat.gpu(gpu).price(currency)
    if price is None:
        raise CatalogError(f"guides: GPU '{gpu}' has no {currency} price", field="prices")
    return price


def check_price(cat: Catalog, gpu: str, currency: str = "CNY", count: int = 1) -> Result:
    """count × the newest per-card price in `currency` (street/channel preferred over launch MSRP)."""
    p = _newest_price(cat, gpu, currency)
    history = sorted((q for q in cat.gpu(gpu).prices if q.currency == currency), key=lambda q: q.date)
    named = {"value": count * p.amount, "each": p.amount, "date": p.date.isoformat(), "count": count,
             "history": [[q.date.isoformat(), count * q.amount, q.kind] for q in history],
             "history_text": "; ".join(f"{q.date} {count * q.amount:,.0f} {currency} ({q.kind.replace('_', ' ')})"
                                       for q in history)}
    return Result(count * p.amount, currency, named)


def check_energy_cost(cat: Catalog, gpu: str, count: int, years: float, pue: float, cny_per_kwh: float) -> Result:
    """Energy cost = count × TDP × PUE × 8760 h × years × price (GPUs at TDP around the clock: an upper bound)."""
    kwh = count * _field(cat, gpu, "tdp_w") / 1000 * pue * 8760 * years
    return Result(kwh * cny_per_kwh, "CNY", {"value": kwh * cny_per_kwh, "kwh": kwh, "years": years, "pue": pue,
                                              "kw": count * _field(cat, gpu, "tdp_w") / 1000})


def check_energy_difference(cat: Catalog, a: str, b: str, count: int, years: float, cny_per_kwh: float) -> Result:
    """Yearly cost difference of running `count` of GPU a instead of b at TDP around the clock."""
    dw = _field(cat, a, "tdp_w") - _field(cat, b, "tdp_w")
    kwh = count * dw / 1000 * 8760 * years
    total_a = count * _field(cat, a, "tdp_w") / 1000 * 8760 * years * cny_per_kwh
    return Result(kwh * cny_per_kwh, "CNY", {"value": kwh * cny_per_kwh, "total_a": total_a, "watts": dw})


def check_efficiency_ratio(cat: Catalog, a: str, b: str) -> Result:
    """(dense BF16 FLOPS per watt of a) / (that of b)."""
    ea = _field(cat, a, "bf16_dense_flops") / _field(cat, a, "tdp_w")
    eb = _field(cat, b, "bf16_dense_flops") / _field(cat, b, "tdp_w")
    return Result(ea / eb, "x", {"a": ea / 1e12, "b": eb / 1e12})


def check_max_memory(cat: Catalog, gpus: list[str]) -> Result:
    sizes = {g: cat.gpu(g).memory_bytes / GiB for g in gpus}
    return Result(max(sizes.values()), "GiB", {"sizes": sizes, "value": max(sizes.values())})


def check_market(cat: Catalog, gpu: str) -> Result:
    """China-market status by date: 'wrong' when the card was already restricted on the guide's date,
    'dated' when the guide is undated (the advice was right before the restriction), 'right' otherwise."""
    c = cat.gpu(gpu).china
    since = c.restricted_since.isoformat() if c.restricted_since else "not restricted"
    return Result(since, "date", {"status": c.status, "since": since, "as_of": c.as_of.isoformat(),
                                  "substitute": c.china_substitute or "none", "note": c.note})


def check_value_per_usd(cat: Catalog, gpus: list[str]) -> Result:
    """Dense BF16 TFLOPS per 1,000 US$ of launch MSRP, ranked (the guide ranks by its own street prices)."""
    scores = {}
    for g in gpus:
        launch = [p for p in cat.gpu(g).prices if p.currency == "USD" and p.kind == "launch_msrp"]
        if launch:
            scores[g] = _field(cat, g, "bf16_dense_flops") / 1e12 / (launch[0].amount / 1000)
    order = sorted(scores, key=scores.get, reverse=True)  # type: ignore[arg-type]
    return Result(" > ".join(order), "ranking", {"scores": {k: round(v, 1) for k, v in scores.items()},
                                                  "order": " > ".join(order)})


def check_break_even_price(cat: Catalog, a: str, b: str, b_price_cny: float, advantage: float) -> Result:
    """Highest price of `a` at which a's dense BF16 TFLOPS per CNY is `advantage` × b's at `b_price_cny`."""
    ta, tb = _field(cat, a, "bf16_dense_flops"), _field(cat, b, "bf16_dense_flops")
    limit = b_price_cny * (ta / tb) / advantage
    return Result(limit, "CNY", {"value": limit, "ratio": ta / tb})


CHECKS: dict[str, Callable[..., Result]] = {
    "gpu_field": check_gpu_field, "gpu_ratio": check_gpu_ratio, "architecture": check_architecture,
    "gpu_flag": check_gpu_flag, "nvlink": check_nvlink, "weights_gb": check_weights_gb, "bytes_per_param": check_bytes_per_param,
    "fits": check_fits, "price": check_price, "energy_cost": check_energy_cost,
    "energy_difference": check_energy_difference, "efficiency_ratio": check_efficiency_ratio,
    "max_memory": check_max_memory, "market": check_market, "value_per_usd": check_value_per_usd,
    "break_even_price": check_break_even_price,
}


def _verdict(spec: ClaimSpec, r: Result) -> Verdict:
    if r.verdict is not None and spec.compare in ("fits",):
        return r.verdict
    claimed, computed = spec.claimed.value, r.value
    if spec.compare == "equal":
        return "right" if claimed == computed else "wrong"
    if spec.compare == "positive":  # the guide says the quantity exists (true) or not (false)
        return "right" if bool(claimed) == (isinstance(computed, (int, float)) and computed > 0) else "wrong"
    if spec.compare == "market":
        since = r.named["since"]
        if since == "not restricted":
            return "right"
        guide_date = GUIDE_DATES[spec.guide]
        if guide_date is None:
            return "dated"
        return "wrong" if dt.date.fromisoformat(since) <= guide_date else "dated"
    if not isinstance(claimed, (int, float)) or not isinstance(computed, (int, float)):
        raise CatalogError(f"guides: claim '{spec.id}' compares non-numbers with '{spec.compare}'", field=spec.id)
    tol = spec.tolerance
    if spec.compare == "approx":
        return "right" if abs(claimed - computed) <= tol * abs(computed) else "wrong"
    if spec.compare == "at_least":  # the guide says "at least / more than claimed"
        return "right" if computed >= claimed * (1 - tol) else "wrong"
    if spec.compare == "at_most":  # the guide says "at most / only about claimed"
        return "right" if computed <= claimed * (1 + tol) else "wrong"
    if spec.compare == "price_history":
        if abs(claimed - computed) <= tol * computed:
            return "right"
        older = [amount for _, amount, _ in r.named.get("history", [])]
        return "dated" if any(abs(claimed - a) <= tol * a for a in older) else "wrong"
    raise CatalogError(f"guides: claim '{spec.id}': compare '{spec.compare}' needs a deciding check", field=spec.id)


def evaluate_claim(spec: ClaimSpec, cat: Catalog) -> Claim:
    """Run the claim's check against the catalog and decide the verdict."""
    try:
        r = CHECKS[spec.check](cat, **spec.args)
    except TypeError as exc:
        raise CatalogError(f"guides/claims.yaml: claim '{spec.id}': bad args for check '{spec.check}': {exc}",
                           field=spec.id) from None
    except AdvisorError as exc:
        raise CatalogError(f"guides/claims.yaml: claim '{spec.id}': {exc}", field=spec.id) from None
    verdict = _verdict(spec, r)
    named = {"claimed": spec.claimed.value, **r.named}
    named.setdefault("value", r.value)
    try:
        text = spec.explanation.format(**named)
        text_zh = spec.explanation_zh.format(**named) if spec.explanation_zh else None
    except (KeyError, IndexError, ValueError) as exc:
        raise CatalogError(f"guides/claims.yaml: claim '{spec.id}': explanation placeholder {exc} not computed",
                           field=spec.id) from None
    value = round(r.value, 4) if isinstance(r.value, float) else r.value
    return Claim(id=spec.id, guide=spec.guide, section=spec.section, quote=spec.quote, claim=spec.claim,
                 claimed=spec.claimed, computed=Figure(value=value, unit=r.unit), verdict=verdict, explanation=text,
                 design_error=spec.design_error, check=spec.check, details=_jsonable(r.named), explanation_zh=text_zh,
                 gpus=tuple(g for g in [spec.args.get("gpu"), *(spec.args.get("also") or ()),
                                        *(spec.args.get("gpus") or ())] if isinstance(g, str)))


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, float):
            out[k] = round(v, 4)
        elif isinstance(v, (str, int, bool)) or v is None:
            out[k] = v
        else:
            out[k] = v if isinstance(v, (list, dict)) else str(v)
    return out


# --- loading -----------------------------------------------------------------------------------------------------

class Guides(Value):
    """The guides' tables and checked claims. Load with :func:`load_guides`."""

    tiers: tuple[ScenarioTier, ...]
    value_ranking: ValueRanking
    substitutions: tuple[Substitution, ...]
    size_table: SizeTable
    tco: TcoTable
    claims: tuple[Claim, ...]
    unchecked: tuple[UncheckedClaim, ...] = ()

    def claim(self, claim_id: str) -> Claim:
        for c in self.claims:
            if c.id == claim_id:
                return c
        raise InputError(f"unknown guide claim '{claim_id}'", field="claim",
                         accepted=", ".join(c.id for c in self.claims))

    def tier(self, tier_id: str) -> ScenarioTier:
        for t in self.tiers:
            if t.id == tier_id:
                return t
        raise InputError(f"unknown scenario tier '{tier_id}'", field="tier",
                         accepted=", ".join(t.id for t in self.tiers))

    def claims_about(self, gpu_or_model: str) -> tuple[Claim, ...]:
        """Claims whose check reads this GPU or model id (exact id)."""
        def mentions(c: Claim) -> bool:
            return gpu_or_model in repr(c.details) or gpu_or_model in c.id
        return tuple(c for c in self.claims if mentions(c))

    def wrong(self) -> tuple[Claim, ...]:
        return tuple(c for c in self.claims if c.verdict == "wrong")


_FILES: dict[str, tuple[str, type[msgspec.Struct]]] = {"tiers": ("scenario_tiers.yaml", ScenarioTiers), "ranking": ("value_ranking.yaml", ValueRanking),
          "subs": ("substitutions.yaml", Substitutions), "sizes": ("size_table.yaml", SizeTable),
          "tco": ("tco_table.yaml", TcoTable), "claims": ("claims.yaml", ClaimFile)}


def _gpu_ids_used(obj: Any) -> list[str]:
    found: list[str] = []
    if isinstance(obj, GpuCount):
        found.append(obj.gpu)
    elif isinstance(obj, msgspec.Struct):
        for name in obj.__struct_fields__:
            found += _gpu_ids_used(getattr(obj, name))
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            found += _gpu_ids_used(item)
    return found


def build_guides(root: Path, cat: Catalog) -> Guides:
    folder = root / "guides"
    loaded: dict[str, Any] = {}
    for key, (name, schema) in _FILES.items():
        path = folder / name
        shown = f"{root.name}/guides/{name}"
        loaded[key] = validate_file(schema, read_yaml(path, root), shown)
        for gid in _gpu_ids_used(loaded[key]):
            if cat.find_gpu(gid) is None or cat.find_gpu(gid).id != gid:  # type: ignore[union-attr]
                raise CatalogError(f"{shown}: '{gid}' is not a GPU id of the catalog", field="gpu")
    for ref in (loaded["ranking"].ref, loaded["sizes"].ref, loaded["tco"].ref):
        check_cites({"ref": [ref.guide]}, cat.sources, "guides")
    for gid in loaded["ranking"].order:
        cat.gpu(gid)
    seen: set[str] = set()
    claims = []
    for spec in loaded["claims"].claims:
        if spec.id in seen:
            raise CatalogError(f"{root.name}/guides/claims.yaml: claim id '{spec.id}' is not unique", field="id")
        seen.add(spec.id)
        if spec.guide not in cat.sources:
            raise CatalogError(f"{root.name}/guides/claims.yaml: claim '{spec.id}': source '{spec.guide}' missing",
                               field="guide")
        claims.append(evaluate_claim(spec, cat))
    ids = {c.id for c in claims}
    refs = [s.claim_id for s in loaded["subs"].substitutions]
    refs += [cell.claim_id for row in loaded["sizes"].rows for cell in (row.training_min, row.finetune_min, row.inference_min)]
    refs += [cid for row in loaded["tco"].rows for cid in row.claim_ids]
    for cid in refs:
        if cid is not None and cid not in ids:
            raise CatalogError(f"{root.name}/guides: claim '{cid}' referenced but not in claims.yaml", field="claim_id")
    return Guides(tiers=loaded["tiers"].tiers, value_ranking=loaded["ranking"],
                  substitutions=loaded["subs"].substitutions, size_table=loaded["sizes"], tco=loaded["tco"],
                  claims=tuple(claims), unchecked=loaded["claims"].unchecked)


@lru_cache(maxsize=4)
def _load_cached(root: str) -> Guides:
    return build_guides(Path(root), load_catalog(root))


def load_guides(path: str | Path | None = None) -> Guides:
    """The guides' tables and checked claims for the data directory (cached per process)."""
    return _load_cached(str(data_dir(path).resolve()))
