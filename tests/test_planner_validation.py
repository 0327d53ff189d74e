"""The planner against published large runs with one constant set (benchmarks/validate_planner.py prints the
table): run totals (GPU-hours with the goodput factor) within 25 %, step-time rows (TFLOP/s per GPU) within 20 %."""

from __future__ import annotations

import pytest

from benchmarks.validate_planner import ROWS, TOLERANCE, predict

SOURCES = {"llama1-paper", "llama2-paper", "llama3-paper", "deepseek-v3-paper", "narayanan-2021", "opt-paper",
           "bloom-paper", "megatron-bridge-perf"}


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_published_run_within_tolerance(row):
    res = predict(row)
    assert abs(res.error) <= TOLERANCE[row.kind], (
        f"{row.id}: predicted {res.predicted:,.0f} vs published {row.published:,.0f} ({res.error:+.1%}); "
        f"{res.plan.layout.describe()}")


def test_rows_cover_the_reports_and_cite_registered_sources():
    from knowledge.catalog import load_catalog

    assert {r.source for r in ROWS} == SOURCES
    assert sum(r.kind == "run" for r in ROWS) >= 9 and sum(r.kind == "step" for r in ROWS) >= 8
    assert SOURCES <= set(load_catalog().sources)


def test_one_constant_set_every_constant_cited():
    from advisor.estimator.calibration import load_calibration
    from knowledge.catalog import load_catalog

    ids = load_calibration().source_ids()
    assert ids <= set(load_catalog().sources)
