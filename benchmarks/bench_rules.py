"""Rule evaluation time per request: p50/p99 in-process, single thread, plus the cost of building the engine.

    .venv/bin/python benchmarks/bench_rules.py [--n 2000]

Requests: one configuration as the recommender sends it per option (RTX 4090 ×2 serving a 32B model in
China), a workload fact alone, and a heavy request (4 facts, ~37 findings). Each request goes through
validation, the durable_rules session (assert, fire, delete state) and rendering of the findings.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

GiB = 2**30


def _requests() -> dict[str, list[dict]]:
    from tests.rules_cases import BIG

    option = {
        "kind": "config", "gpu_id": "rtx-4090", "gpu_arch": "ada", "segment": "consumer", "memory_bytes": 24 * GiB,
        "tdp_w": 450, "nvlink": False, "count": 2, "tp": 2, "region": "cn", "task": "inference", "precision": "awq-int4",
        "context": 8192, "max_context": 32768, "concurrency": 30, "per_gpu_bytes": 20 * GiB, "kv_cache_bytes": 9 * GiB,
        "tokens_per_s": 1400, "min_tokens_per_s": 1000, "price_amount": 26000, "budget_amount": 500000,
        "currency": "CNY",
    }
    workload = {"kind": "workload", "task": "inference", "params": 3.2e10, "concurrency": 30, "region": "cn"}
    return {"one option (config fact)": [option], "workload fact": [workload], "heavy request (4 facts)": BIG}


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="timed evaluations per request (default 2000)")
    args = parser.parse_args(argv)

    from rules.engine import engine, evaluate

    t0 = time.perf_counter()
    eng = engine()
    build_s = time.perf_counter() - t0
    print(f"engine build: {build_s * 1e3:.1f} ms for {len(eng.rules)} rules (once per process)")
    print(f"{'request':28} {'findings':>8} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
    for name, facts in _requests().items():
        found = evaluate(facts)  # warm: caches, first render
        samples = []
        for _ in range(args.n):
            t = time.perf_counter()
            evaluate(facts)
            samples.append(time.perf_counter() - t)
        print(f"{name:28} {len(found):8d} {_percentile(samples, 0.5) * 1e3:8.3f} "
              f"{_percentile(samples, 0.99) * 1e3:8.3f} {statistics.fmean(samples) * 1e3:8.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
