"""Claims and premises: a quoted memory figure checked against the estimator, the guide claim a user is quoting
(knowledge/data/guides/claims.yaml) with the claims rules' findings, and what the user's plan takes for granted
(NVLink on cards that have none)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from advisor.analysis.result import ClaimCheck
from advisor.analysis.steps import timed
from advisor.workload import Workload

if TYPE_CHECKING:
    from advisor.analysis.request import NamedConfig, QuotedClaim
    from advisor.conversation.turn import Step
    from knowledge.catalog import Catalog
    from knowledge.guides import Claim
    from knowledge.schemas import ModelSpec
    from rules.findings import Finding


def check_claim(model: ModelSpec, workload: Workload, claim: QuotedClaim, steps: list[Step]) -> ClaimCheck:
    """Weights (and KV cache at the stated context) for the quoted configuration, against the quoted figure."""
    from advisor.estimator.memory import estimate_memory

    w = Workload.model_validate({**workload.model_dump(), "gpus": 1, "tp": 1, "pp": 1, "task": "inference",
                                 "concurrency": 1, "batch": 1,
                                 "weights": workload.weights if workload.task == "inference" else None})
    mem = timed(steps, "check_claim", {"model": model.id, "weights": w.weights or "bf16", "claim": claim.text},
                lambda: estimate_memory(model, w), lambda r: f"weights {r.per_gpu.weights / 1e9:.1f} GB")
    weights, kv = mem.per_gpu.weights, mem.per_gpu.kv_cache
    if claim.bytes_if_gib < weights:
        verdict = "too_low"
    elif claim.bytes_if_gib < mem.per_gpu.total:
        verdict = "weights_only"
    else:
        verdict = "plausible"
    check = ClaimCheck(claim=claim, weights_bytes=weights, kv_bytes=kv, total_bytes=mem.per_gpu.total,
                       fmt=w.weights or "bf16", context=w.context, verdict=verdict)
    try:
        check.guide_claim = match_guide_claim(claim.value, claim.unit, w.weights or "bf16", float(mem.params))
        if check.guide_claim is not None:
            check.findings = claim_findings(check.guide_claim, steps)
    except ImportError:
        pass
    return check


_VERIFY = re.compile(r"文章|教程|指南|攻略|博客|网上|据说|听说|号称|宣称|说|对吗|对不对|是真的|真的吗|正确吗|准确吗|靠谱吗|吗|"
                     r"\bguide\b|\barticle\b|\bblog\b|\bclaims?\b|\bsays?\b|\bsaid\b|according to|is (?:that|it|this) "
                     r"(?:right|true|correct|accurate)|\breally\b|\?|？")
_SPEC_NUMBER = re.compile(r"(?<![\d.])(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)\s*(?P<scale>万|亿|k\b|m\b|million)?\s*"
                          r"(?P<unit>tflops|tops|tb/s|gb/s|tbps|gbps|元|块|人民币|rmb|cny|瓦|w\b)?", re.I)
_UNIT_OF = {"tflops": "TFLOPS", "tops": "TOPS", "tb/s": "GB/s", "tbps": "GB/s", "gb/s": "GB/s", "gbps": "GB/s",
            "元": "CNY", "块": "CNY", "人民币": "CNY", "rmb": "CNY", "cny": "CNY", "瓦": "W", "w": "W"}
_KEYWORD_CLAIMS = {"nvlink": re.compile(r"nvlink|nv\s*link|桥接"), "architecture": re.compile(r"ada|lovelace|架构")}


def _gpu_family(gpu_id: str) -> str:
    """"h100-pcie" and "h100-sxm" -> "h100"; "rtx-4090" stays (but is not "rtx-4090d")."""
    parts = gpu_id.split("-")
    return "-".join(parts[:2]) if parts[0] == "rtx" else parts[0]


def match_spec_claim(text: str, gpus: Iterable[str]) -> Claim | None:
    """The guide claim about a GPU's specification or price that `text` quotes or asks about ("H100 的 FP16 是 1513
    TFLOPS 吗", "A800 一张卡要 170 万吗", "two 4090s over NVLink"): same card family and the same figure (±2 %,
    units converted), or for NVLink/architecture claims the keyword. None when nothing matches."""
    from advisor.conversation.extract import normalise
    from knowledge.guides import load_guides

    mentioned = {_gpu_family(g) for g in gpus}
    s = normalise(text)
    if not mentioned or not _VERIFY.search(s):
        return None
    figures: list[tuple[float, str | None]] = []
    for m in _SPEC_NUMBER.finditer(s):
        value = float(m.group("num").replace(",", ""))
        scale = (m.group("scale") or "").lower()
        value *= {"万": 1e4, "亿": 1e8, "k": 1e3, "m": 1e6, "million": 1e6}.get(scale, 1.0)
        unit = _UNIT_OF.get((m.group("unit") or "").lower())
        if (m.group("unit") or "").lower() in ("tb/s", "tbps"):
            value *= 1000.0
        if unit is None and scale in ("万", "亿"):
            unit = "CNY"
        figures.append((value, unit))
    budget = re.search(r"预算|budget|花费|不超过|控制在", s)
    best = None
    for c in load_guides().claims:
        spec_gpus = {_gpu_family(g) for g in c.gpus}
        if not spec_gpus & mentioned:
            continue
        v, unit = c.claimed.value, c.claimed.unit
        hit = False
        if isinstance(v, (int, float)) and not isinstance(v, bool) and unit in ("TFLOPS", "TOPS", "GB/s", "CNY", "W"):
            if unit == "CNY" and budget:
                continue
            hit = any(abs(x - float(v)) <= 0.02 * float(v) and (u is None or u == unit or {u, unit} <= {"TFLOPS", "TOPS"})
                      for x, u in figures)
        elif c.check in _KEYWORD_CLAIMS:
            hit = bool(_KEYWORD_CLAIMS[c.check].search(s))
        if hit and (best is None or (c.design_error and not best.design_error)):
            best = c
    return best


def premise_findings(named: Sequence[NamedConfig], wants_nvlink: bool, catalog: Catalog,
                     steps: list[Step]) -> list[Finding]:
    """Rule findings on what the user's plan takes for granted: the cards joined over NVLink (`wants_nvlink`) when
    a card named has none ("two 4090s with NVLink"). The rules engine decides, on ConfigFacts with and without
    `wants_nvlink`; only what the premise adds is kept (cap-no-nvlink), one finding per rule."""
    if not wants_nvlink:
        return []
    from rules.engine import evaluate as evaluate_rules
    from rules.facts import ConfigFacts

    out: list[Finding] = []
    for mention in named:
        gpu = catalog.find_gpu(mention.gpu) if hasattr(catalog, "find_gpu") else catalog.gpu(mention.gpu)
        if gpu is None or gpu.nvlink_bytes_per_s > 0:
            continue
        count = max(2, mention.count or 2)  # NVLink joins at least two cards
        base = {f.rule_id for f in evaluate_rules([ConfigFacts.from_gpu(gpu, count=count).to_facts()])}
        added = timed(steps, "check_premise", {"gpu": gpu.id, "count": count, "wants_nvlink": True},
                      partial(evaluate_rules, [ConfigFacts.from_gpu(gpu, count=count, wants_nvlink=True).to_facts()]),
                      lambda r: ", ".join(f.rule_id for f in r) or "no finding")
        out += [f for f in added if f.rule_id not in base and all(f.rule_id != o.rule_id for o in out)]
    return out


def claim_findings(claim: Claim, steps: list[Step]) -> list[Finding]:
    """The claims rules' findings for a guide claim (wording and citation from the rule metadata)."""
    from rules.engine import evaluate as evaluate_rules
    from rules.facts import ClaimFacts

    facts = ClaimFacts.from_claim(claim).to_facts()
    return timed(steps, "explain_claim", {"claim": claim.id}, lambda: evaluate_rules([facts]),
                 lambda r: f"{claim.id}: {claim.verdict}")


_FORMAT_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "gptq-int8": 8, "bnb-int8": 8, "q8_0": 8,
                "int4": 4, "gptq-int4": 4, "awq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4}


def match_guide_claim(value: float, unit: str, weights: str, params: float) -> Claim | None:
    """The guide claim (knowledge/data/guides/claims.yaml) a user is quoting: same memory figure (±2 %), and,
    where the claim states them, the same precision bits and a model size within 15 %. None when none matches."""
    from knowledge.guides import load_guides

    bits = _FORMAT_BITS.get(weights)
    best = None
    for c in load_guides().claims:
        if c.claimed.unit not in ("GB", "GiB") or not isinstance(c.claimed.value, (int, float)):
            continue
        if abs(float(c.claimed.value) - value) > 0.02 * value:
            continue
        d = c.details or {}
        if "bits" in d and bits is not None and int(d["bits"]) != bits:
            continue
        if "params_b" in d and abs(float(d["params_b"]) * 1e9 / params - 1) > 0.15:
            continue
        score = ("bits" in d) + ("params_b" in d)
        if best is None or score > best[0]:
            best = (score, c)
    return best[1] if best else None
