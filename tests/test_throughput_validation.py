"""Published inference measurements against the shipped calibration (one set of constants for every row).

Rows and sources: benchmarks/speed_validation.yaml; `python benchmarks/validate_speed.py` prints the same table.
Tolerances (issue 4): decode tokens/s 30% (llama.cpp/Ollama), time to first token and serving throughput 35%
(TensorRT-LLM). Rows marked `check: false` in the YAML are shown by the benchmark but not asserted; the YAML says why.
"""

from __future__ import annotations

import pytest

from benchmarks.validate_speed import TOLERANCE, load_rows, predict_all

ROWS = predict_all(kinds=("decode", "ttft", "serving"))
CHECKED = [r for r in ROWS if r.checked]

# Known misses, each with its reason. The test fails if one of them starts passing (strict xfail), so the list
# cannot go stale.
KNOWN_MISSES = {
    "trt09-l40s-180b-tp8-2048": "TP8 over PCIe: the ring all-reduce of 2048 × 14848 activations dominates the "
                                "prediction (~0.78 s of 1.04 s); the measured 0.77 s implies faster PCIe collectives "
                                "than the Llama-2-70B TP4 L40S row (0.67 s) allows — one constant cannot serve both",
}


@pytest.mark.parametrize("row", CHECKED, ids=[r.id for r in CHECKED])
def test_row_within_tolerance(row, request):
    if row.id in KNOWN_MISSES:
        request.applymarker(pytest.mark.xfail(reason=KNOWN_MISSES[row.id], strict=True))
    assert abs(row.error) <= TOLERANCE[row.kind], (
        f"{row.id}: predicted {row.predicted:.1f} {row.unit}, measured {row.measured:.1f} ({row.error:+.1%}; "
        f"source {row.source})")


def test_every_kind_has_enough_asserted_rows():
    counts = {k: sum(1 for r in CHECKED if r.kind == k) for k in ("decode", "ttft", "serving")}
    assert counts["decode"] >= 9 and counts["ttft"] >= 60 and counts["serving"] >= 40, counts
    assert len(KNOWN_MISSES) <= 1


def test_unasserted_rows_are_only_the_documented_ones():
    """Only GQA/MoE models whose TensorRT-LLM v0.9 decode kernel is unknown are shown without being asserted."""
    data = load_rows()
    unchecked = [r for kind in ("decode", "ttft", "ttft_v09", "serving") for r in data[kind] if r.get("check") is False]
    assert {r["model"] for r in unchecked} <= {"falcon-180b", "mistral-7b", "mixtral-8x7b"}
    assert all(r["source"] == "trtllm-perf-v09" for r in unchecked)


def test_the_same_constants_serve_consumer_and_datacenter_gpus():
    gpus = {r.gpu for r in CHECKED}
    assert {"rtx-3090ti", "rtx-4090", "rtx-3060", "h100-sxm", "h200-sxm", "a100-80g-sxm", "l40s"} <= gpus


def test_mean_errors_are_well_inside_the_tolerances():
    for kind in ("decode", "ttft", "serving"):
        errs = [abs(r.error) for r in CHECKED if r.kind == kind]
        assert sum(errs) / len(errs) < 0.6 * TOLERANCE[kind], kind
