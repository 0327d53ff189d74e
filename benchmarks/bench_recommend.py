"""Time a full recommendation in-process (target: under 50 ms warm) and the rule evaluation inside it.

    .venv/bin/python benchmarks/bench_recommend.py [--runs 50] [--profile]

Three representative requests, each timed warm (catalog, calibration, rule engine and per-spec caches loaded by one
call first) over `--runs` calls, min/p50/p99/mean in milliseconds (the machine's cores are shared: min is the
figure least disturbed by other processes):

* serve Qwen2.5-32B to 30 users at 8k context in China with a ¥500,000 budget (the whole catalog searched);
* LoRA fine-tune Llama-3-8B (the whole catalog);
* pre-train Llama-2-7B on 100 B tokens within 30 days (the whole catalog, multi-node counts).

Rule evaluation: `rules.engine.evaluate` on one ConfigFacts as the recommender builds it for an option (the first
option of the serving request). Per recommendation it also counts the memory estimates and the rule-engine requests
(one per option shown, one for the workload) it makes. `--profile` adds a cProfile of the slowest request: the
functions with the most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_S = 0.050


def _requests() -> dict[str, tuple[Any, Any]]:
    from advisor.workload import Constraints, Workload

    return {
        "serve qwen2.5-32b ×30, 8k, cn, ¥500k": (
            Workload(model="qwen2.5-32b", concurrency=30, context=8192),
            Constraints(region="cn", currency="CNY", budget=500_000)),
        "LoRA llama-3-8b": (Workload(model="llama-3-8b", task="lora", context=2048), Constraints()),
        "pre-train llama-2-7b, 100B tokens, 30 d": (
            Workload(model="llama-2-7b", task="pretrain", train_tokens=1e11),
            Constraints(deadline_s=30 * 86_400)),
    }


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _row(name: str, samples: list[float], extra: str = "") -> str:
    return (f"{name:42} {min(samples) * 1e3:8.2f} {_percentile(samples, 0.5) * 1e3:8.2f} "
            f"{_percentile(samples, 0.99) * 1e3:8.2f} {statistics.fmean(samples) * 1e3:8.2f}  {extra}")


def _option_facts(workload: Any, constraints: Any) -> dict[str, Any]:
    """The config fact the recommender asserts for the first option of a request (built the way it builds it)."""
    from advisor.recommend import recommender as rec_mod
    from advisor.recommend.search import Search
    from knowledge.catalog import load_catalog

    rec = rec_mod.recommend(workload, constraints)
    opt = rec.options[0]
    catalog = load_catalog()
    model = catalog.model(workload.model)
    search = Search(model, workload, constraints, catalog)
    est, sized = opt._memory
    return rec_mod.config_facts(search, catalog.gpu(opt.gpu), opt, est, sized)


def _counting(fn: Any) -> tuple[Any, int, int]:
    """Run fn() and count the memory estimates and rule-engine requests the recommender makes (its search
    estimates memory in advisor.recommend.search)."""
    import advisor.recommend.search as rec_mod
    import rules.engine as eng

    calls = {"estimates": 0, "rules": 0}
    estimate, evaluate = rec_mod.estimate_memory, eng.evaluate

    def counted_estimate(*a: Any, **k: Any) -> Any:
        calls["estimates"] += 1
        return estimate(*a, **k)

    def counted_evaluate(facts: Any) -> Any:
        calls["rules"] += 1
        return evaluate(facts)

    rec_mod.estimate_memory, eng.evaluate = counted_estimate, counted_evaluate
    try:
        return fn(), calls["estimates"], calls["rules"]
    finally:
        rec_mod.estimate_memory, eng.evaluate = estimate, evaluate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="timed calls per request (default 50)")
    parser.add_argument("--profile", action="store_true", help="cProfile the slowest request")
    args = parser.parse_args(argv)

    from advisor.recommend.recommender import clear_cache
    from advisor.recommend.recommender import recommend as memoised
    from rules.engine import evaluate

    def recommend(w: object, c: object) -> object:  # time the search, not the memo: forget it first
        clear_cache()
        return memoised(w, c)

    t0 = time.perf_counter()
    requests = _requests()
    first = {name: recommend(*req) for name, req in requests.items()}  # cold: catalog, engine, caches
    print(f"first calls (cold, all three): {(time.perf_counter() - t0) * 1e3:.0f} ms")

    facts = _option_facts(*requests["serve qwen2.5-32b ×30, 8k, cn, ¥500k"])
    found = evaluate([facts])
    samples = []
    for _ in range(max(args.runs, 200)):
        t = time.perf_counter()
        evaluate([facts])
        samples.append(time.perf_counter() - t)
    print(f"\n{'rule evaluation (one request)':42} {'min ms':>8} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}")
    print(_row(f"one option's ConfigFacts ({facts['gpu_id']})", samples, f"{len(found)} findings"))

    print(f"\n{'recommendation (warm, in-process)':42} {'min ms':>8} {'p50 ms':>8} {'p99 ms':>8} {'mean ms':>8}  "
          "options / memory estimates / rule requests")
    worst: tuple[float, str] = (0.0, "")
    for name, (w, c) in requests.items():
        rec, estimates, rule_calls = _counting(lambda w=w, c=c: recommend(w, c))
        samples = []
        for _ in range(args.runs):
            t = time.perf_counter()
            recommend(w, c)
            samples.append(time.perf_counter() - t)
        p50 = _percentile(samples, 0.5)
        verdict = "ok" if p50 < TARGET_S else f"over the {TARGET_S * 1e3:.0f} ms target"
        print(_row(name, samples, f"{len(rec.options)} / {estimates} / {rule_calls}  {verdict}"))
        worst = max(worst, (p50, name))
        assert [o.gpu for o in rec.options] == [o.gpu for o in first[name].options], "results must not vary"
        memoised(w, c)
        hits = []
        for _ in range(args.runs):
            t = time.perf_counter()
            memoised(w, c)
            hits.append(time.perf_counter() - t)
        print(_row("  … the same question again (memoised)", hits, "deep copy of the cached result"))

    if args.profile:
        w, c = requests[worst[1]]
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(10):
            recommend(w, c)
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
        print(f"\ncProfile, 10 × '{worst[1]}' (cumulative):")
        print("\n".join(out.getvalue().splitlines()[:60]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
