"""Print the serving simulation against the published rows of benchmarks/serving_validation.yaml.

    PYTHONPATH=$PWD python benchmarks/validate_serving.py [--at-rate]

Columns: measured and predicted TTFT (ms), TPOT (ms) and output tokens/s, signed errors in %. "(fitted on)": the
row a calibration constant was fitted on (not a validation). Rows marked `held_out: true` were added after the model
was built and never used to fit anything; they are printed in their own table with their own total. Rows marked
`mlperf: true` (MLPerf Inference results, also held out) get a third table: Offline at the submission's batch, Server
and Interactive as the output tokens/s at the highest Poisson request rate whose p99 TTFT and TPOT meet the round's
bounds (`limits`; serving_rate.max_rate_for_bounds; `--at-rate` also prints each such row simulated at its published
scheduled rate against its published median TTFT/TPOT, which separates the step's cost from the scheduler's, as LoadGen judges them; the TTFT/TPOT columns of those rows are
the simulated p99s at that rate, not scored; `vllm_v0: true`: the submission ran vLLM's V0 scheduler without chunked
prefill, prompts in steps of their own); a row's `tp`, `pp`, `max_num_seqs`, `max_num_batched_tokens` and `chunked_prefill` are
the engine settings it states.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
TOL = {"ttft_ms": 0.35, "tpot_ms": 0.25, "tokens_per_s": 0.25}


def _data() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "benchmarks" / "serving_validation.yaml").read_text(encoding="utf-8"))
    return data


def all_rows() -> list[dict[str, Any]]:
    return list(_data()["rows"])


def rows() -> list[dict[str, Any]]:
    """The rows the model was built against (everything not marked `held_out` or `mlperf`)."""
    return [r for r in all_rows() if not r.get("held_out") and not r.get("mlperf")]


def held_out_rows() -> list[dict[str, Any]]:
    """Published rows never used to fit or tune anything (`held_out: true`)."""
    return [r for r in all_rows() if r.get("held_out")]


def mlperf_rows() -> list[dict[str, Any]]:
    """MLPerf Inference results (`mlperf: true`), held out like the rows above: Offline at the stated batch, Server and
    Interactive as the throughput at the largest load meeting their latency bounds (`limits`)."""
    return [r for r in all_rows() if r.get("mlperf")]


def model_of(name: str) -> Any:
    """A catalog model, or one of the file's `hf_configs` (architectures only these rows use)."""
    from knowledge.catalog import load_catalog
    from knowledge.hf_config import spec_from_hf_config

    extra = _data().get("hf_configs") or {}
    if name in extra:
        return spec_from_hf_config(dict(extra[name]), id=name)
    return load_catalog().model(name)


def predict(row: dict[str, Any]) -> dict[str, float]:
    """The simulation's TTFT/TPOT (ms) and output tokens/s for one row's settings."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.serving import (
        CONVERSATION_OUTPUT_MEAN,
        CONVERSATION_PROMPT_MEAN,
        saturating_concurrency,
        simulate_serving,
    )
    from advisor.estimator.serving_rate import max_rate_for_bounds
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    cat = load_catalog()
    model, gpu = model_of(row["model"]), cat.gpu(row["gpu"])
    count = int(row["count"])
    talk = row.get("mix") == "sharegpt"
    prompt = CONVERSATION_PROMPT_MEAN if talk else row["prompt"]
    output = CONVERSATION_OUTPUT_MEAN if talk else row["output"]
    context = 4096 if talk else prompt + output  # the SGLang/vLLM runs served --max_model_len 4096
    w = Workload(model=model.id, weights=row["weights"], kv=row["kv"], prompt_tokens=prompt,
                 output_tokens=output, context=context, gpus=count, tp=int(row.get("tp") or count),
                 pp=int(row.get("pp") or 1))
    calib = load_calibration()
    flags = {k: row[k] for k in ("max_num_seqs", "max_num_batched_tokens", "chunked_prefill")
             if row.get(k) is not None}  # the engine flags a row states
    if row.get("limits"):  # an MLPerf Server/Interactive run: the highest Poisson rate meeting its p99 bounds
        lim = row["limits"]
        ans = max_rate_for_bounds(model, gpu, count, w, calib, tpot_s=lim["tpot_ms"] / 1e3,
                                  ttft_s=lim["ttft_ms"] / 1e3, engine=row["engine"],
                                  prefill_first=bool(row.get("vllm_v0")), **flags)
        return {"ttft_ms": ans.result.ttft_p99_s * 1e3, "tpot_ms": ans.result.tpot_p99_s * 1e3,
                "tokens_per_s": ans.output_tokens_per_s}
    elif row.get("rate"):
        rep = simulate_serving(model, gpu, count, w, calib, rate=float(row["rate"]), engine=row["engine"],
                               conversational=talk, requests=row.get("requests") or 600, **flags)
    else:
        whole = saturating_concurrency(model, gpu, count, w, calib, engine=row["engine"])
        conc = row.get("concurrency") or whole
        if row.get("saturate"):  # a stated batch runs only as many requests as the KV cache holds whole
            conc = min(conc, whole)
        rep = simulate_serving(model, gpu, count, w, calib, concurrency=conc, engine=row["engine"],
                               stagger=not row.get("saturate", False), conversational=talk,
                               requests=row.get("requests") or (4 * conc if row.get("saturate") else None),
                               **flags)
    r = rep.result
    return {"ttft_ms": r.ttft_p50_s * 1e3, "tpot_ms": r.tpot_p50_s * 1e3, "tokens_per_s": rep.output_tokens_per_s}


def errors(row: dict[str, Any], pred: dict[str, float]) -> dict[str, float]:
    return {k: pred[k] / row[k] - 1.0 for k in TOL if row.get(k)}


def within(row: dict[str, Any], pred: dict[str, float]) -> bool:
    """Every measured figure of the row within its tolerance."""
    return all(abs(e) <= TOL[k] for k, e in errors(row, pred).items())


def _table(title: str, table: list[dict[str, Any]]) -> int:
    """Print one table; the number of rows within tolerance."""
    print(title)
    print(f"{'row':38s} {'TTFT ms meas/pred':>20s} {'TPOT ms meas/pred':>20s} {'tok/s meas/pred':>22s}  worst")
    misses = 0
    for row in table:
        pred = predict(row)
        err = errors(row, pred)
        cells = []
        for k in ("ttft_ms", "tpot_ms", "tokens_per_s"):
            if row.get(k):
                cells.append(f"{row[k]:8.1f}/{pred[k]:8.1f} {err[k]:+4.0%}")
            else:
                cells.append(f"{'–':>8s}/{pred[k]:8.1f}     ")
        bad = [k for k, e in err.items() if abs(e) > TOL[k]]
        misses += bool(bad)
        tag = ("  MISS " + ",".join(bad) if bad else "") + ("  (fitted on)" if row.get("fitted") else "")
        print(f"{row['id']:38s} " + " ".join(f"{c:>20s}" for c in cells) + tag)
    return len(table) - misses


def at_published_rate(row: dict[str, Any]) -> dict[str, float]:
    """The simulated medians of an MLPerf Server/Interactive row at its published scheduled rate (not scored)."""
    from advisor.estimator.calibration import load_calibration
    from advisor.estimator.serving_rate import simulate_at_rate
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    model, gpu = model_of(row["model"]), load_catalog().gpu(row["gpu"])
    w = Workload(model=model.id, weights=row["weights"], kv=row["kv"], prompt_tokens=row["prompt"],
                 output_tokens=row["output"], context=row["prompt"] + row["output"], gpus=int(row["count"]),
                 tp=int(row.get("tp") or row["count"]), pp=int(row.get("pp") or 1))
    flags = {k: row[k] for k in ("max_num_seqs", "max_num_batched_tokens", "chunked_prefill")
             if row.get(k) is not None}
    r = simulate_at_rate(model, gpu, int(row["count"]), w, load_calibration(), rate=float(row["scheduled_qps"]),
                         engine=row["engine"], prefill_first=bool(row.get("vllm_v0")), **flags)
    return {"ttft_ms": r.ttft_p50_s * 1e3, "tpot_ms": r.tpot_p50_s * 1e3, "batch": r.mean_batch}


def _rate_table(table: list[dict[str, Any]]) -> None:
    """MLPerf Server/Interactive rows at their published rate: simulated against published median TTFT/TPOT."""
    print("MLPerf Server/Interactive at the published scheduled rate (not scored): median TTFT and TPOT, simulated "
          "against published; the simulated mean decode batch")
    for row in table:
        if not row.get("limits") or not row.get("tpot_p50_ms_published"):
            continue
        sim = at_published_rate(row)
        print(f"{row['id']:38s} TTFT {row['ttft_p50_ms_published']:7.1f}/{sim['ttft_ms']:7.1f}  TPOT "
              f"{row['tpot_p50_ms_published']:6.1f}/{sim['tpot_ms']:6.1f} "
              f"{sim['tpot_ms'] / row['tpot_p50_ms_published'] - 1:+4.0%}  batch {sim['batch']:5.0f}")


def main() -> int:
    base, held, mlp = rows(), held_out_rows(), mlperf_rows()
    ok_base = _table("Rows the model was built against", base)
    print()
    ok_held = _table("HELD-OUT rows (held_out: true; never fitted on)", held)
    print()
    ok_mlp = _table("MLPerf Inference rows (mlperf: true; held out; Server/Interactive: tokens/s at the highest "
                    "Poisson rate whose p99 TTFT/TPOT meet the bounds; their TTFT/TPOT columns: simulated p99)", mlp)
    print()
    if "--at-rate" in sys.argv:
        _rate_table(mlp)
        print()
    print(f"{ok_base} of {len(base)} rows within tolerance (TTFT ±35 %, TPOT and tokens/s ±25 %)")
    print(f"held out: {ok_held} of {len(held)} rows within tolerance")
    print(f"MLPerf: {ok_mlp} of {len(mlp)} rows within tolerance")
    print(f"all: {ok_base + ok_held + ok_mlp} of {len(base) + len(held) + len(mlp)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
