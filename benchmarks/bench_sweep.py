"""Time a speed sweep: every catalog GPU × counts 1–8 × 4 precisions for one model, in-process.

    .venv/bin/python benchmarks/bench_sweep.py [--model llama-3.1-8b] [--repeat 5] [--full]

The hot path is `throughput.decode_rate` (what a search over configurations calls): per-model constants are
precomputed once per (model, weight format, KV format, TP) by `speed_profile` and reused, so each configuration
costs one roofline step. Counts that do not divide the model's attention heads are skipped (not a valid TP layout).
`--full` also times `estimate_throughput` (formula lines, prefill, pydantic result) without the memory check.
Target: the sweep well under 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from advisor.estimator import throughput as th  # noqa: E402
from advisor.estimator.calibration import load_calibration  # noqa: E402
from advisor.workload import Workload  # noqa: E402
from knowledge.catalog import load_catalog  # noqa: E402

PRECISIONS = ("bf16", "fp8", "awq-int4", "q4_k_m")
COUNTS = range(1, 9)


def sweep(model, gpus, calib, *, full: bool = False) -> int:
    n = 0
    for gpu in gpus:
        for count in COUNTS:
            if model.num_attention_heads % count:
                continue
            for fmt in PRECISIONS:
                if full:
                    th.estimate_throughput(model, gpu, count, Workload(weights=fmt, context=4096, concurrency=8,
                                                                       gpus=count, tp=count), calib,
                                           with_capacity=False)
                else:
                    th.decode_rate(model, gpu, count, calib, weights=fmt, context=4096, concurrency=8)
                n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="llama-3.1-8b")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--full", action="store_true", help="also time the full estimate with formulas")
    args = ap.parse_args(argv)
    cat = load_catalog()
    calib = load_calibration()
    model = cat.model(args.model)
    gpus = cat.gpus

    th._PROFILES.clear()
    t0 = time.perf_counter()
    n = sweep(model, gpus, calib)
    cold = time.perf_counter() - t0
    warm = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        sweep(model, gpus, calib)
        warm.append(time.perf_counter() - t0)
    print(f"{model.name}: {len(gpus)} GPUs × counts 1–8 (TP layouts that divide {model.num_attention_heads} heads) × "
          f"{len(PRECISIONS)} precisions = {n} configurations")
    print(f"  cold (profiles built):  {cold * 1e3:8.1f} ms")
    print(f"  warm (median of {args.repeat}):   {statistics.median(warm) * 1e3:8.1f} ms  "
          f"({statistics.median(warm) / n * 1e6:.1f} µs per configuration)")
    if args.full:
        t0 = time.perf_counter()
        sweep(model, gpus, calib, full=True)
        full = time.perf_counter() - t0
        print(f"  full estimates:         {full * 1e3:8.1f} ms  ({full / n * 1e6:.1f} µs per configuration)")
    ok = cold < 0.1
    print("  target < 100 ms: " + ("met" if ok else "MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
