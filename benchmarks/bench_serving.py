"""Time one serving simulation (advisor/estimator/serving.py) at several loads: the budget is well under 50 ms.

Each call is cold (serving.clear_envelopes first): a closed loop's figures for up to C users simulate the ladder of
loads up to C (advisor/estimator/serving_ladder.py), which a process otherwise keeps for the next answer.

    PYTHONPATH=$PWD python benchmarks/bench_serving.py
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import clear_envelopes, simulate_serving
from advisor.workload import Workload
from knowledge.catalog import load_catalog


def _time(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Milliseconds per cold call: the best of three rounds of five (the machine is shared: the best is the least
    disturbed), after one warm-up call."""
    rep = fn()
    best = math.inf
    for _ in range(3):
        spent = 0.0
        for _ in range(5):
            clear_envelopes()
            t0 = time.perf_counter()
            rep = fn()
            spent += time.perf_counter() - t0
        best = min(best, spent / 5 * 1e3)
    return best, rep


def main() -> None:
    cat, cal = load_catalog(), load_calibration()
    total = 0.0
    for model, gpu, count, prompt, output in (("llama-3.1-8b", "h100-sxm", 1, 1000, 200),
                                              ("llama-3.3-70b", "h100-sxm", 2, 5000, 500),
                                              ("llama-3.1-8b", "l4", 1, 2000, 500)):
        w = Workload(model=model, prompt_tokens=prompt, output_tokens=output, context=prompt + output,
                     gpus=count, tp=count)
        m, g = cat.model(model), cat.gpu(gpu)
        loads: list[tuple[str, dict[str, Any]]] = [(f"c={c}", {"concurrency": c}) for c in (1, 16, 64, 256)]
        loads += [("c=50 conversational", {"concurrency": 50, "conversational": True}),
                  ("20 req/s Poisson", {"rate": 20.0})]
        for label, kw in loads:
            ms, rep = _time(lambda kw=kw, m=m, g=g, count=count, w=w: simulate_serving(m, g, count, w, cal, **kw))
            total += ms
            print(f"{model:14s} {count}×{gpu:9s} {label:20s} {ms:6.1f} ms  ({rep.result.events} events, "
                  f"{rep.result.steps} steps)")
    print(f"total of the 18 simulations: {total:.1f} ms")


if __name__ == "__main__":
    main()
