"""Claims and premises: a quoted memory figure checked against the estimator, the guide claim a user is quoting
(knowledge/data/guides/claims.yaml) with the claims rules' findings, and what the user's plan takes for granted
(NVLink on cards that have none)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING

from advisor.analysis.result import ClaimCheck
from advisor.analysis.steps import timed
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.quantities import ZERO
from knowledge.structs import dump, validate
from rules.engine import evaluate as evaluate_rules
from rules.facts import ClaimFacts, ConfigFacts

if TYPE_CHECKING:
    from advisor.analysis.request import NamedConfig, QuotedClaim
    from advisor.analysis.steps import Step
    from knowledge.catalog import Catalog
    from knowledge.guides import Claim
    from knowledge.schemas import ModelSpec
    from rules.findings import Finding


def check_claim(model: ModelSpec, workload: Workload, claim: QuotedClaim, steps: list[Step]) -> ClaimCheck:
    """Weights (and KV cache at the stated context) for the quoted configuration, against the quoted figure; a
    training job's claim against the training need on one GPU (weights + gradients + optimizer states +
    activations, no ZeRO sharding or offload: what "N GB is enough to fine-tune it" means)."""
    if workload.task != "inference":
        return _check_training_claim(model, workload, claim, steps)
    w = validate(Workload, {**dump(workload), "gpus": 1, "tp": 1, "pp": 1, "task": "inference",
                                 "concurrency": 1, "batch": 1,
                                 "weights": workload.weights if workload.task == "inference" else None})
    mem = timed(steps, "check_claim", {"model": model.id, "weights": w.weights or "bf16", "claim": claim.text},
                lambda: estimate_memory(model, w), lambda r: f"weights {r.per_gpu.weights.text('GB')}")
    weights, kv = mem.per_gpu.weights, mem.per_gpu.kv_cache
    if claim.amount < weights:
        verdict = "too_low"
    elif claim.amount < mem.per_gpu.total:
        verdict = "weights_only"
    else:
        verdict = "plausible"
    check = ClaimCheck(claim=claim, weights=weights, kv=kv, total=mem.per_gpu.total,
                       fmt=w.weights or "bf16", context=w.context, verdict=verdict)
    try:
        check.guide_claim = match_guide_claim(claim.value, claim.unit, w.weights or "bf16", float(mem.params))
        if check.guide_claim is not None:
            check.findings = claim_findings(check.guide_claim, steps)
    except ImportError:
        pass
    return check


def _check_training_claim(model: ModelSpec, workload: Workload, claim: QuotedClaim, steps: list[Step]) -> ClaimCheck:
    w = validate(Workload, {**dump(workload), "gpus": 1, "tp": 1, "pp": 1, "zero": 0, "offload": "none"})
    mem = timed(steps, "check_claim", {"model": model.id, "task": w.task, "claim": claim.text},
                lambda: estimate_memory(model, w), lambda r: f"training need {r.per_gpu.total.text('GiB')}")
    per = mem.per_gpu
    states = per.gradients + per.optimizer_states + per.activations
    verdict = "too_low" if claim.amount < per.weights else "weights_only" if claim.amount < per.total \
        else "plausible"
    return ClaimCheck(claim=claim, weights=per.weights, kv=ZERO, total=per.total,
                      fmt=w.weights or "bf16", context=w.context, verdict=verdict, task=w.task, states=states)


def premise_findings(named: Sequence[NamedConfig], wants_nvlink: bool, catalog: Catalog,
                     steps: list[Step]) -> list[Finding]:
    """Rule findings on what the user's plan takes for granted: the cards joined over NVLink (`wants_nvlink`) when
    a card named has none ("two 4090s with NVLink"). The rules engine decides, on ConfigFacts with and without
    `wants_nvlink`; only what the premise adds is kept (cap-no-nvlink), one finding per rule."""
    if not wants_nvlink:
        return []

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
    facts = ClaimFacts.from_claim(claim).to_facts()
    return timed(steps, "explain_claim", {"claim": claim.id}, lambda: evaluate_rules([facts]),
                 lambda r: f"{claim.id}: {claim.verdict}")


_FORMAT_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "gptq-int8": 8, "bnb-int8": 8, "q8_0": 8,
                "int4": 4, "gptq-int4": 4, "awq-int4": 4, "nf4": 4, "q4_k_m": 4, "q4_0": 4}


def match_guide_claim(value: float, unit: str, weights: str, params: float) -> Claim | None:
    """The guide claim (knowledge/data/guides/claims.yaml) a user is quoting: same memory figure (±2 %), and,
    where the claim states them, the same precision bits and a model size within 15 %. None when none matches."""
    from knowledge.guides import load_guides  # start-up: `gpu-advisor ask` never loads knowledge.guides

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
