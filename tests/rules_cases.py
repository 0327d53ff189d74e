"""Loader for the rule scenarios in tests/rules_scenarios/ (shared by the rule tests).

Each topic file maps a rule id to `fires:` and `silent:` lists of facts; `base: <name>` pulls a profile
from `_bases.yaml` that the case's other fields extend or override.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

SCENARIOS = Path(__file__).parent / "rules_scenarios"


@lru_cache(maxsize=1)
def bases() -> dict[str, dict[str, Any]]:
    return yaml.safe_load((SCENARIOS / "_bases.yaml").read_text(encoding="utf-8"))


def expand(case: dict[str, Any]) -> dict[str, Any]:
    case = dict(case)
    name = case.pop("base", None)
    return {**(bases()[name] if name else {}), **case}


@lru_cache(maxsize=1)
def cases() -> dict[str, dict[str, list[dict[str, Any]]]]:
    """rule id -> {"fires": [facts...], "silent": [facts...]} over every topic file."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for path in sorted(SCENARIOS.glob("*.yaml")):
        if path.name.startswith("_"):
            continue
        for rule_id, body in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if rule_id in out:
                raise ValueError(f"{path.name}: rule {rule_id} has scenarios in two files")
            out[rule_id] = {k: [expand(c) for c in body.get(k) or []] for k in ("fires", "silent")}
    return out


def flat_cases() -> list[tuple[str, str, int, dict[str, Any]]]:
    return [(rule_id, which, i, facts)
            for rule_id, body in cases().items() for which in ("fires", "silent")
            for i, facts in enumerate(body[which])]


GiB = 2**30

# one request that makes many rules fire at once (4 facts, ~37 findings): used by the engine tests and the benchmark
BIG = [
    {"kind": "workload", "task": "inference", "params": 3.2e10, "concurrency": 100, "region": "cn"},
    {**bases()["rtx-4090"], "count": 8, "tp": 8, "region": "cn", "task": "inference", "precision": "fp8",
     "per_gpu_bytes": 23 * GiB, "kv_cache_bytes": 16 * GiB, "params": 3.2e10, "always_on": True,
     "load_pattern": "fluctuating", "used": True, "wants_nvlink": True, "context": 65536, "max_context": 32768,
     "power_limit_w": 3000, "tokens_per_s": 900, "min_tokens_per_s": 1000, "price_amount": 240000,
     "budget_amount": 200000, "currency": "CNY", "tp_divides_heads": False, "tco_years": 5},
    {**bases()["rtx-2080ti-22g"], "count": 16, "nodes": 4, "tp": 8, "task": "full", "precision": "bf16",
     "per_gpu_bytes": 30 * GiB, "fits_sharded": True, "network": "ethernet", "train_wall_s": 3e6,
     "deadline_s": 2e6, "cpu_ram_bytes": 64 * GiB, "offload_cpu_bytes": 70 * GiB, "params": 7e9},
    {"kind": "claim", "claim_id": "rtx4090-nvlink", "verdict": "wrong", "claim_source": "guide-000",
     "claim_text": "双RTX 4090 NVLink配置"},
]

