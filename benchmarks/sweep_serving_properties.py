"""Seeded sweep of the serving simulation's monotonicity: more concurrency never lowers TTFT or TPOT (issue 29).

For each case (a model of 1B-70B on a card from an L4 to an H200, fixed lengths or the conversational mix, random
prompt/output lengths), simulate a ladder of concurrencies (every C from 1 to 12, doubling to 256, and random
+1 steps above 12) and count the steps where the median or p95 TTFT/TPOT falls by more than 0.1 %, with a
histogram of their sizes. By default the figures the product prints (simulate_serving: for up to C users,
advisor/estimator/serving_ladder.py); `--raw`: the one simulation at each C as it comes out.

    PYTHONPATH=$PWD python benchmarks/sweep_serving_properties.py [--cases 300] [--seed 1] [--show 20] [--raw]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from typing import Any

from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import simulate_serving
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError

# (model, card, GPUs as one TP group)
SETUPS = [("llama-3.2-1b", "l4", 1), ("llama-3.2-1b", "h100-sxm", 1), ("qwen2.5-3b", "rtx-4090", 1),
          ("llama-3.1-8b", "l4", 1), ("llama-3.1-8b", "l40s", 1), ("llama-3.1-8b", "h100-sxm", 1),
          ("qwen2.5-7b", "a100-80g-sxm", 1), ("llama-3.1-8b", "h200-sxm", 1), ("qwen2.5-14b", "l40s", 1),
          ("qwen2.5-14b", "a100-40g-sxm", 1), ("qwen2.5-32b", "h100-sxm", 1), ("gemma-2-27b", "a100-80g-sxm", 1),
          ("llama-3.3-70b", "h100-sxm", 2), ("llama-3.3-70b", "h200-sxm", 1), ("qwen2.5-72b", "a100-80g-sxm", 4),
          ("llama-3.1-8b", "rtx-4090", 1), ("mistral-7b-v0.3", "l40s", 1), ("qwen3-30b-a3b", "h100-sxm", 1),
          ("llama-3.1-70b", "h100-sxm", 8), ("gpt-oss-120b", "b200", 8), ("qwen2.5-72b", "mi300x", 4)]
METRICS = ("ttft_p50_s", "tpot_p50_s", "ttft_p95_s", "tpot_p95_s")
TOL = 0.001


def ladder(rng: random.Random) -> list[tuple[int, int]]:
    """(C, C') pairs: +1 steps from 1 to 12, doublings 12 → 256, and three random +1 steps above 12."""
    pairs = [(c, c + 1) for c in range(1, 12)]
    pairs += [(c, 2 * c) for c in (12, 16, 24, 32, 48, 64, 128)]
    pairs += [(c, c + 1) for c in (rng.randint(13, 40), rng.randint(41, 120), rng.randint(121, 255))]
    return pairs


def cases(n: int, seed: int, mix: str = "both") -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        model, gpu, count = rng.choice(SETUPS)
        out.append({"model": model, "gpu": gpu, "count": count, "conversational": rng.random() < 0.5 if mix == "both" else mix == "conv",
                    "prompt": int(10 ** rng.uniform(1.3, 4.0)), "output": int(10 ** rng.uniform(0.9, 3.1)),
                    "pairs": ladder(rng)})
    return out


def run(n: int, seed: int, show: int, mix: str = "both", raw: bool = False) -> int:
    cat, cal = load_catalog(), load_calibration()
    dips: list[tuple[float, str, dict[str, Any], int, int]] = []
    kinds: Counter[str] = Counter()
    sims = 0
    t0 = time.perf_counter()
    for case in cases(n, seed, mix):
        w = Workload(model=case["model"], prompt_tokens=case["prompt"], output_tokens=case["output"],
                     context=case["prompt"] + case["output"], gpus=case["count"], tp=case["count"])
        m, g = cat.model(case["model"]), cat.gpu(case["gpu"])
        memo: dict[int, Any] = {}

        def sim(c: int, m: Any = m, g: Any = g, case: dict[str, Any] = case, w: Workload = w,
                memo: dict[int, Any] = memo) -> Any:
            if c not in memo:
                memo[c] = simulate_serving(m, g, case["count"], w, cal, concurrency=c,
                                           conversational=case["conversational"], ladder=not raw).result
            return memo[c]

        try:
            sim(1)
        except InputError:
            continue
        for a, b in case["pairs"]:
            try:  # one request that fits at one load and not at another is a fault of its own: count it
                ra, rb = sim(a), sim(b)
            except InputError:
                kinds["InputError at some C only"] += 1
                continue
            for k in METRICS:
                va, vb = getattr(ra, k), getattr(rb, k)
                if vb < va * (1 - TOL):
                    mix = "conv" if case["conversational"] else "fixed"
                    kinds[f"{k} {mix}"] += 1
                    dips.append((1 - vb / va, k, case, a, b))
        sims += len(memo)
    dt = time.perf_counter() - t0
    dips.sort(key=lambda d: -d[0])
    for frac, k, case, a, b in dips[:show]:
        print(f"{frac:6.1%} {k:10s} {case['model']:14s} {case['count']}x{case['gpu']:12s} "
              f"{'conv ' if case['conversational'] else 'fixed'} {case['prompt']:5d}/{case['output']:4d}  C {a} → {b}")
    print(f"{n} cases, {sims} simulations in {dt:.0f} s ({dt / max(sims, 1) * 1e3:.1f} ms each): "
          f"{len(dips)} decreases beyond {TOL:.1%}", dict(kinds))
    print("by size:", {f">{t:.0%}": sum(1 for d in dips if d[0] > t) for t in (0.01, 0.02, 0.05, 0.1, 0.2)})
    return len(dips)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--mix", choices=("both", "fixed", "conv"), default="both")
    ap.add_argument("--raw", action="store_true", help="the one simulation at each C, not the figures printed")
    args = ap.parse_args()
    run(args.cases, args.seed, args.show, args.mix, args.raw)


if __name__ == "__main__":
    main()
