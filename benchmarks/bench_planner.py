"""Time of the parallelism planner's search (advisor/estimator/planner.py) for one question: every layout of one
GPU type and count, idle GPUs allowed, in-process, warm caches. Prints the median and worst of repeated runs per case;
the target is under 20 ms per question up to a few hundred GPUs (issue 14) and under 0.5 s at thousands (issue 29:
the exact search over every DP below the count; docs/training-planner.md).

    PYTHONPATH=. python benchmarks/bench_planner.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.estimator.calibration import load_calibration  # noqa: E402
from advisor.estimator.planner import plan_training  # noqa: E402
from knowledge.catalog import load_catalog  # noqa: E402

CASES = [  # model, GPU, count, tokens, sequence, precision
    ("llama-3-8b", "h100-sxm", 8, 1e11, 8192, "bf16"),
    ("llama-2-7b", "a100-80g-sxm", 1024, 2e12, 4096, "bf16"),
    ("llama-2-70b", "a100-80g-sxm", 2048, 2e12, 4096, "bf16"),
    ("llama-3.1-405b", "h100-sxm", 16384, 15.6e12, 8192, "bf16"),
    ("llama-3.1-405b", "h100-sxm", 16384, 15.6e12, 131072, "bf16"),
    ("mixtral-8x7b", "h100-sxm", 256, 1e12, 4096, "bf16"),
    ("deepseek-v3", "h800-sxm", 2048, 14.8e12, 4096, "fp8"),
    ("qwen2.5-72b", "rtx-4090", 128, 1e11, 4096, "bf16"),
]


def main(repeats: int = 15) -> None:
    cat, calib = load_catalog(), load_calibration()
    print(f"{'case':<52} {'layouts':>8} {'median ms':>10} {'max ms':>8}  chosen layout")
    worst = 0.0
    for mid, gid, n, tokens, seq, prec in CASES:
        model, gpu = cat.model(mid), cat.gpu(gid)
        times = []
        plan = None
        for _ in range(repeats):
            t0 = time.perf_counter()
            plan = plan_training(model, gpu, n, tokens, calib, context=seq, precision=prec)
            times.append((time.perf_counter() - t0) * 1000)
        assert plan is not None
        med, mx = statistics.median(times), max(times)
        worst = max(worst, med)
        print(f"{mid + ' on ' + str(n) + ' × ' + gid + f' s={seq} {prec}':<52} {plan.searched:>8} {med:>10.1f} "
              f"{mx:>8.1f}  {plan.layout.describe()}")
    print(f"worst median: {worst:.1f} ms (target < 500 ms at thousands of GPUs)")


if __name__ == "__main__":
    main()
