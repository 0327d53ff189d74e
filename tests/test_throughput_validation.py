"""Published inference measurements against the shipped calibration (one set of constants for every row).

Rows and sources: benchmarks/speed_validation.yaml; `python benchmarks/validate_speed.py` prints the same table.
Tolerances: decode tokens/s 25% with a median under 12% (issue 18; llama.cpp/Ollama batch 1, datacenter and consumer
cards alike), time to first token and serving throughput 35%
(TensorRT-LLM). Rows marked `check: false` in the YAML are shown by the benchmark but not asserted; the YAML says why.
"""

from __future__ import annotations

import statistics

import pytest

from benchmarks.validate_speed import DECODE_MEDIAN_TARGET, TOLERANCE, load_rows, predict_all

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
    assert counts["decode"] >= 60 and counts["ttft"] >= 60 and counts["serving"] >= 40, counts
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


def test_batch1_decode_median_error_on_each_side_of_the_market():
    """Issue 18: median |error| ≤ 12% over all batch-1 rows, and on datacenter and consumer rows separately."""
    dec = [r for r in CHECKED if r.kind == "decode"]
    assert statistics.median(abs(r.error) for r in dec) <= DECODE_MEDIAN_TARGET
    for seg in ("datacenter", "consumer"):
        part = [abs(r.error) for r in dec if r.segment == seg]
        assert len(part) >= 25, seg
        assert statistics.median(part) <= DECODE_MEDIAN_TARGET, seg


def test_hbm_datacenter_cards_are_tested_on_several_sizes_and_formats():
    """The rows that issue 18 found over-predicted (A100, H100 PCIe: 7B…70B, Q4 and F16) are all in the table."""
    dec = [r for r in CHECKED if r.kind == "decode"]
    for gpu in ("a100-80g-pcie", "h100-pcie", "a100-80g-sxm", "l40s"):
        rows = [r for r in dec if r.gpu == gpu]
        assert {r.setting.split()[0] for r in rows} >= {"fp16"} and len(rows) >= 3, gpu
    h100 = {r.model for r in dec if r.gpu == "h100-pcie"}
    assert {"llama-2-7b", "llama-2-13b", "llama-1-30b", "llama-1-65b", "llama-3-70b"} <= h100
