"""Print measured vs predicted peak reserved memory for every H200 run in tests/data/measured.

    .venv/bin/python benchmarks/validate_measured_memory.py [--markdown]

Predicted: `gpu-advisor estimate`'s total minus its CUDA-context line (the measured figures exclude the context).
Held-out rows (4 of 15) were not looked at while the model was built; in-sample and held-out errors are summed
separately. The same comparison is asserted by tests/test_memory_runtime.py (0 to +10 %).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from validate_memory import print_table  # noqa: E402 - the table printer of the sibling script

from advisor.estimator.memory import estimate_memory  # noqa: E402
from tests.measured_runs import runs  # noqa: E402

GIB = 2**30


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    head = ["line", "set", "run", "measured reserved GiB", "measured allocated GiB", "predicted GiB", "error %",
            "peak phase"]
    rows = []
    errs: dict[str, list[float]] = {"in-sample": [], "held-out": []}
    for r in runs():
        pred, meas = r.predicted_reserved(), r.measured_reserved
        e = estimate_memory(r.model(), r.workload())
        phase = next((f.split(":")[0].removeprefix("phase ") for f in e.formulas if "← peak" in f), "prefill/decode")
        err = 100 * (pred / meas - 1)
        kind = "held-out" if r.held_out else "in-sample"
        errs[kind].append(err)
        rows.append([str(r.line), kind, r.label, f"{meas / GIB:.2f}", f"{r.record['peak_allocated_bytes'] / GIB:.2f}",
                     f"{pred / GIB:.2f}", f"{err:+.1f}", phase])
    print_table(head, rows, markdown=args.markdown)
    print()
    for kind, values in errs.items():
        if values:
            print(f"{kind}: {len(values)} runs, mean error {sum(values) / len(values):+.1f} %, min {min(values):+.1f} %, "
                  f"max {max(values):+.1f} %, within 0..+10 %: {sum(0 <= v <= 10 for v in values)}")


if __name__ == "__main__":
    main()
