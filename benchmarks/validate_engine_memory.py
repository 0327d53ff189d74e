"""Print the serving-engine memory validation table: each published start-up log's KV-cache GiB, block/token count
and maximum concurrency against advisor/estimator/engine_memory.py, with the relative error (tolerance 10%).

    .venv/bin/python benchmarks/validate_engine_memory.py [--json]

Rows and sources: benchmarks/engine_memory_validation.yaml; asserted in tests/test_engine_memory.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from advisor.estimator.engine_memory import sglang_kv_budget, sglang_mem_fraction_static, vllm_kv_budget  # noqa: E402
from knowledge.catalog import load_catalog  # noqa: E402

DATA = Path(__file__).resolve().parent / "engine_memory_validation.yaml"
TOLERANCE = 0.10
GIB = 2**30


@dataclass(frozen=True)
class Row:
    id: str
    engine: str
    quantity: str  # "KV GiB", "blocks", "tokens", "max concurrency", "mem_fraction_static"
    predicted: float
    measured: float
    source: str
    checked: bool = True
    why: str = ""

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0

    @property
    def ok(self) -> bool:
        return abs(self.error) <= TOLERANCE or not self.checked


@lru_cache(maxsize=1)
def load_rows() -> dict:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def _gib(x: float | None) -> int | None:
    return None if x is None else int(x * GIB)


def _vllm(r: dict, cat) -> list[Row]:  # noqa: ANN001 - the catalog
    b = vllm_kv_budget(cat.model(r["model"]), cat.gpu(r["gpu"]), tp=r["tp"], weights=r["weights"],
                       max_model_len=r["max_model_len"], release=r["release"],
                       gpu_memory_utilization=r.get("utilization"), total_bytes=_gib(r.get("total_gib")),
                       kv_cache_memory_bytes=_gib(r.get("kv_cache_memory_gib")))
    got = {"kv_gib": ("KV GiB", b.kv_cache_bytes / GIB), "blocks": ("blocks", b.num_blocks),
           "tokens": ("tokens", b.kv_tokens), "concurrency": ("max concurrency", b.max_concurrency)}
    return [Row(r["id"], "vllm", got[k][0], float(got[k][1]), float(r[k]), r["source"], r.get("check", True),
                r.get("why", "")) for k in got if k in r]


def _sglang(r: dict, cat) -> list[Row]:  # noqa: ANN001
    b = sglang_kv_budget(cat.model(r["model"]), cat.gpu(r["gpu"]), tp=r["tp"], weights=r["weights"],
                         max_model_len=r["max_model_len"], mem_fraction_static=r.get("mem_fraction_static"),
                         total_bytes=_gib(r.get("total_gib")))
    got = {"kv_gib": ("KV GiB", b.kv_cache_bytes / GIB), "tokens": ("tokens", b.kv_tokens)}
    return [Row(r["id"], "sglang", got[k][0], float(got[k][1]), float(r[k]), r["source"], r.get("check", True))
            for k in got if k in r]


def predict_all() -> list[Row]:
    cat = load_catalog()
    data = load_rows()
    rows: list[Row] = []
    for r in data["vllm"]:
        rows += _vllm(r, cat)
    for r in data["sglang"]:
        rows += _sglang(r, cat)
    for r in data["sglang_fraction"]:
        frac, _, _ = sglang_mem_fraction_static(cat.gpu(r["gpu"]), tp=r["tp"])
        rows.append(Row(r["id"], "sglang", "mem_fraction_static", frac, r["fraction"], r["source"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = predict_all()
    if args.json:
        print(json.dumps([asdict(r) | {"error": r.error, "ok": r.ok} for r in rows], indent=2))
        return 0
    head = f"{'row':34} {'quantity':20} {'predicted':>12} {'measured':>12} {'error':>7}  source"
    print(head)
    print("-" * len(head))
    for r in rows:
        flag = f"  (shown, not asserted: {r.why})" if not r.checked else ("" if r.ok else "  <-- outside ±10%")
        print(f"{r.id:34} {r.quantity:20} {r.predicted:12,.2f} {r.measured:12,.2f} {r.error:+7.1%}  {r.source}{flag}")
    errs = [abs(r.error) for r in rows if r.checked]
    print(f"\n{sum(1 for r in rows if r.checked and r.ok)}/{len(errs)} asserted figures within ±{TOLERANCE:.0%}; "
          f"median |error| {statistics.median(errs):.1%}, max {max(errs):.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
