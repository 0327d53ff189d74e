"""Rule-engine soak: many rule sessions in one process, memory and results checked.

    .venv/bin/python benchmarks/soak_rules.py [--sessions 200000] [--every 10000]

The requests mix what a long-running server sends: the same requests again and again (every firing and
silent rule scenario, the heavy 4-fact request, facts no rule reads), and distinct ones (configuration facts
whose count, context, price and load vary with the request number). It prints the resident set size (RSS)
every `--every` sessions, then checks that each distinct request's findings equal those of a fresh process
(a child interpreter that evaluates every distinct request once, on a new engine).
tests/test_rules_soak.py runs the same check with a smaller session count in CI.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GiB = 2**30
DISTINCT = 997  # distinct configuration requests before they repeat (prime: the mix does not line up with it)


def repeated() -> list[list[dict[str, Any]]]:
    """Requests that recur: every rule scenario, the heavy request, and facts no rule reads."""
    from tests.rules_cases import BIG, flat_cases

    out = [[facts] for _, _, _, facts in flat_cases()]
    out.append(BIG)
    out.append([{"kind": "config", "gpu_id": "h100-sxm"}])  # no rule reads it (the session must still go)
    out.append([{"kind": "config", "gpu_id": "b200", "count": 2, "tp": 2, "task": "inference"}])
    return out


def distinct(i: int) -> list[dict[str, Any]]:
    """The i-th distinct request: a 4090 configuration whose numbers depend on i (so do its findings)."""
    from tests.rules_cases import bases

    k = i % DISTINCT
    return [{**bases()["rtx-4090"], "count": 1 + k % 8, "tp": 1, "task": "inference", "precision": "awq-int4",
             "context": 1024 * (1 + k % 64), "max_context": 32768, "concurrency": 1 + k % 97,
             "per_gpu_bytes": (8 + k % 17) * GiB, "kv_cache_bytes": (1 + k % 9) * GiB,
             "tokens_per_s": 100 + 7 * k, "min_tokens_per_s": 1000, "price_amount": 12000 + 13 * k,
             "budget_amount": 20000 + 100 * (k % 50), "currency": "CNY", "always_on": bool(k % 2)}]


def requests(n: int) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """n (key, facts) requests: two repeated for every distinct one, interleaved."""
    fixed = repeated()
    for i in range(n):
        if i % 3 == 2:
            k = (i // 3) % DISTINCT
            yield f"d{k}", distinct(k)
        else:
            k = (i - i // 3) % len(fixed)
            yield f"r{k}", fixed[k]


def digest(findings: list[Any]) -> str:
    """A short fingerprint of a request's findings (rule, fact, severity and rendered message)."""
    text = json.dumps([[f.rule_id, f.fact_index, f.severity, f.message] for f in findings], ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def rss_bytes() -> int:
    """This process's current resident set size (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def soak(n: int, every: int, out: Any = None) -> tuple[list[tuple[int, int]], dict[str, str]]:
    """Evaluate n requests; the RSS curve [(sessions, bytes)] and each request key's findings digest.
    Raises AssertionError when a repeated request's findings change during the run."""
    from rules.engine import evaluate

    seen: dict[str, str] = {}
    curve = [(0, rss_bytes())]
    for i, (key, facts) in enumerate(requests(n), 1):
        d = digest(evaluate(facts))
        if seen.setdefault(key, d) != d:
            raise AssertionError(f"request {key} changed its findings at session {i}")
        if i % every == 0 or i == n:
            curve.append((i, rss_bytes()))
            if out is not None:
                print(f"{i:>9,} sessions  RSS {curve[-1][1] / 2**20:7.1f} MiB", file=out, flush=True)
    return curve, seen


def fresh_digests(keys: list[str]) -> dict[str, str]:
    """Findings digests of the requests named by `keys`, each evaluated once in a new interpreter."""
    code = ("import json,sys; sys.path.insert(0, sys.argv[1]); from benchmarks.soak_rules import by_key, digest;"
            "from rules.engine import evaluate;"
            "print(json.dumps({k: digest(evaluate(by_key(k))) for k in json.loads(sys.stdin.read())}))")
    done = subprocess.run([sys.executable, "-c", code, str(ROOT)], input=json.dumps(keys), capture_output=True,
                          text=True, check=True, cwd=ROOT)
    return json.loads(done.stdout)


def by_key(key: str) -> list[dict[str, Any]]:
    return distinct(int(key[1:])) if key[0] == "d" else repeated()[int(key[1:])]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=200_000, help="rule sessions (default 200,000)")
    parser.add_argument("--every", type=int, default=10_000, help="print RSS every this many sessions")
    args = parser.parse_args(argv)
    from rules.engine import evaluate

    evaluate(repeated()[0])  # build the engine before the first RSS sample
    start = time.perf_counter()
    curve, seen = soak(args.sessions, args.every, out=sys.stdout)
    took = time.perf_counter() - start
    first, last = curve[1][1], curve[-1][1]
    print(f"{args.sessions:,} sessions in {took:.1f} s ({took / args.sessions * 1e6:.0f} µs each); "
          f"RSS {first / 2**20:.1f} → {last / 2**20:.1f} MiB after the first {curve[1][0]:,} "
          f"({(last - first) / first * 100:+.1f} %)")
    fresh = fresh_digests(sorted(seen))
    differ = sorted(k for k in seen if fresh[k] != seen[k])
    print(f"{len(seen)} distinct requests; findings equal to a fresh process: {len(seen) - len(differ)}/{len(seen)}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
