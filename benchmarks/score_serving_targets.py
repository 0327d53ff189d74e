"""How many serving-target phrasings the reader takes right: the development set
(benchmarks/serving_targets_dev.yaml), the held-out set (tests/data/serving_targets_heldout.yaml) and a second
held-out set written after the reader changed (benchmarks/serving_targets_fresh.yaml).

    .venv/bin/python benchmarks/score_serving_targets.py [--show-errors]

An item is right when every target field read equals the expected one (absent = nothing read): the per-token
latency `tpot_ms` (a per-user speed is 1000 / speed ms), `ttft_ms`, `e2e_ms`, the total `min_tokens_per_s` and
`qps`, each within 0.01 %.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEV = ROOT / "benchmarks" / "serving_targets_dev.yaml"
HELDOUT = ROOT / "tests" / "data" / "serving_targets_heldout.yaml"
FRESH = ROOT / "benchmarks" / "serving_targets_fresh.yaml"  # a second held-out set, written after the change
FIELDS = {"tpot_ms": "tpot_ms", "ttft_ms": "ttft_ms", "e2e_ms": "e2e_ms", "total": "min_tokens_per_s", "qps": "qps"}


def load(path: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return items


def misses(item: dict[str, Any], catalog: Any) -> dict[str, tuple[float | None, float | None]]:
    """The target fields read wrong: name -> (expected, read)."""
    from advisor.conversation.reader.extract import extract

    s = extract(item["text"], catalog)
    out: dict[str, tuple[float | None, float | None]] = {}
    for key, slot in FIELDS.items():
        want, got = item.get(key), getattr(s, slot)
        same = (want is None and got is None) or (want is not None and got is not None
                                                  and math.isclose(float(want), float(got), rel_tol=1e-4))
        if not same:
            out[key] = (want, got)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--show-errors", action="store_true")
    args = ap.parse_args()
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    for name, path in (("development", DEV), ("held-out", HELDOUT), ("fresh held-out", FRESH)):
        items = load(path)
        wrong = [(it["text"], m) for it in items if (m := misses(it, catalog))]
        print(f"{name}: {len(items) - len(wrong)}/{len(items)} right")
        if args.show_errors:
            for text, m in wrong:
                print(f"  {text}\n    " + ", ".join(f"{k}: want {w}, read {g}" for k, (w, g) in m.items()))


if __name__ == "__main__":
    main()
