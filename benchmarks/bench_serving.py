"""Time one serving simulation (advisor/estimator/serving.py) at several loads: the budget is well under 50 ms.

    PYTHONPATH=$PWD python benchmarks/bench_serving.py
"""

from __future__ import annotations

import time

from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import simulate_serving
from advisor.workload import Workload
from knowledge.catalog import load_catalog


def main() -> None:
    cat, cal = load_catalog(), load_calibration()
    for model, gpu, count, prompt, output in (("llama-3.1-8b", "h100-sxm", 1, 1000, 200),
                                              ("llama-3.3-70b", "h100-sxm", 2, 5000, 500)):
        w = Workload(model=model, prompt_tokens=prompt, output_tokens=output, context=prompt + output,
                     gpus=count, tp=count)
        for conc in (1, 16, 64, 256):
            simulate_serving(cat.model(model), cat.gpu(gpu), count, w, cal, concurrency=conc)
            t0 = time.perf_counter()
            for _ in range(5):
                rep = simulate_serving(cat.model(model), cat.gpu(gpu), count, w, cal, concurrency=conc)
            ms = (time.perf_counter() - t0) / 5 * 1e3
            print(f"{model:14s} {count}×{gpu:9s} c={conc:<4d} {ms:6.1f} ms  ({rep.result.events} events, "
                  f"{rep.result.steps} steps)")


if __name__ == "__main__":
    main()
