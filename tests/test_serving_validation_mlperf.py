"""MLPerf Inference rows (benchmarks/serving_validation.yaml, `mlperf: true`): Llama 2 70B results of the v4.1 and
v5.1 datacenter rounds (NVIDIA/Cisco/Dell TensorRT-LLM on H100, H200, H200 NVL and B200; AMD vLLM on MI300X, MI325X
and MI355X), held out from every fit. Offline: generated tokens/s at the submission's batch; Server/Interactive:
tokens/s at the highest Poisson rate whose p99 TTFT and TPOT meet the round's bounds (serving_rate). The count within
±25 % must not regress."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.serving_bench import validate_serving

ROOT = Path(__file__).resolve().parents[1]

# Within ±25 % on output tokens/s on 2026-12-05: 35 of 39 (22 of the first 24; 13 of the 15 v5.1 Server/Interactive
# rows added after the changes below, as found, source mlperf-inf-v51-more), each simulated with the submission's own batch, token
# budget and chunked-prefill flags and the MI300X/MI325X matmul factor (calibration.yaml matmul_factor_by_gpu).
# Server/Interactive are judged as LoadGen judges them: Poisson arrivals, p99 TTFT and TPOT within the bounds
# (serving_rate.max_rate_for_bounds; 19 of 24 when the median of a closed loop was held to the bounds: the
# Interactive rows were 12-27 % high on H200 and MI325X, and +113 % on MI300X), and AMD's vLLM V0 runs without
# chunked prefill schedule prompts in steps of their own (Scheduler.prefill_first; the MI300X Server rows went from
# +25/+30 % to +16/+21 %). 2026-12-07, the MI300X bandwidth factor (calibration.yaml bandwidth_factor_by_gpu, STREAM
# on one cloud's H100/H200/MI300X): AMD's MI300X Interactive row comes within (+24 %), Dell's stays out (+30 %), 36 of
# 39. The misses, with what the model lacks:
MLPERF_FLOOR = 36
KNOWN_MISSES = {
    "mlp51-dell-mi300xx8-int": "40 ms TPOT bound on MI300X, vLLM V0 with 8-step scheduling: Dell's run of the "
                               "configuration AMD's row (now +24 %) ran, at a lower rate (+30 %)",
    "mlp51-nv-b200x8-int": "40 ms TPOT bound on B200 FP4 (max_num_tokens 768): the simulated step at a few hundred "
                           "sequences is too short; the FP4 efficiency was fitted on one prefill-bound row (+50 %)",
    "mlp51-google-b200x8-int": "Google's run of the same B200 FP4 Interactive configuration (+70 %), as NVIDIA's row",
}




def test_mlperf_rows_are_cited_with_their_settings():
    """At least 20 rows from MLPerf's published results, each with its source (title, URL, retrieval date), the
    submission's layout (GPUs, TP, precision, engine), lengths, and either the Offline batch or the latency bounds."""
    bench = validate_serving()
    sources = yaml.safe_load((ROOT / "knowledge" / "data" / "sources" / "calibration.yaml").read_text("utf-8"))
    rows = bench.mlperf_rows()
    assert len(rows) >= 24
    for row in rows:
        src = sources[row["source"]]
        assert src["title"] and src["url"].startswith("https://") and src["retrieved"], row["id"]
        assert not row.get("fitted") and not row.get("held_out"), row["id"]
        assert row["count"] % row["tp"] == 0 and row["prompt"] > 0 and row["output"] > 0, row["id"]
        if row.get("saturate"):
            assert row["concurrency"] >= row["count"] // row["tp"], row["id"]
        else:  # Server (2 s / 200 ms) or Interactive (450 ms / 40 ms)
            assert row["limits"] in ({"ttft_ms": 2000, "tpot_ms": 200}, {"ttft_ms": 450, "tpot_ms": 40}), row["id"]
        assert row["tokens_per_s"] > 0, row["id"]
    ids = {r["id"] for r in rows}
    assert not ids & {r["id"] for r in bench.rows()} and not ids & {r["id"] for r in bench.held_out_rows()}


def test_mlperf_rows_within_tolerance_do_not_regress():
    """The rows within ±25 % on tokens/s stay at or above the floor reached when they were added."""
    bench = validate_serving()
    within = [r["id"] for r in bench.mlperf_rows() if bench.within(r, bench.predict(r))]
    misses = {r["id"] for r in bench.mlperf_rows()} - set(within)
    assert len(within) >= MLPERF_FLOOR, sorted(misses)
    assert misses <= set(KNOWN_MISSES), sorted(misses - set(KNOWN_MISSES))


def test_validator_prints_the_mlperf_table(capsys):
    """`benchmarks/validate_serving.py` prints the MLPerf table with its own total."""
    bench = validate_serving()
    ok = bench._table("MLPerf", bench.mlperf_rows()[:2])
    out = capsys.readouterr().out
    assert "mlp41-nv-h100x8-off" in out and "tok/s meas/pred" in out and 0 <= ok <= 2
