"""The continuous-batching simulation (advisor/estimator/serving_sim.py, serving.py): published rows under load,
its properties, and its speed."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimator.calibration import load_calibration
from advisor.estimator.serving import max_concurrency_for_target, simulate_serving
from advisor.estimator.serving_sim import Speculation
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.structs import replace

CAT = load_catalog()
CAL = load_calibration()
ROOT = Path(__file__).resolve().parents[1]


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("validate_serving", ROOT / "benchmarks" / "validate_serving.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _w(model: str, prompt: int, output: int, **kw) -> Workload:
    return Workload(model=model, prompt_tokens=prompt, output_tokens=output, context=prompt + output, **kw)


def _sim(conc: int, prompt: int = 1000, output: int = 200, **kw):
    return simulate_serving(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), 1, _w("llama-3.1-8b", prompt, output),
                            CAL, concurrency=conc, **kw)


def test_published_rows_within_tolerance():
    """benchmarks/serving_validation.yaml (29 rows: NIM/TensorRT-LLM, TensorRT-LLM perf overview, SGLang, vLLM):
    TPOT and output tokens/s within ±25 %, TTFT within ±35 %, on every row not marked `known_miss` (each mark
    says why: SGLang v0.3 before its overlap scheduler; 0.5-0.6B models whose TTFT and throughput the host CPU
    sets; NIM 70B at 25 users, TTFT −36 %); the marked rows still miss (a fix shows up here and the mark goes)."""
    bench = _bench()
    errs: dict[str, list[float]] = {"ttft_ms": [], "tpot_ms": [], "tokens_per_s": []}
    misses, marked = [], []
    for row in bench.rows():
        err = bench.errors(row, bench.predict(row))
        bad = [(k, round(e, 2)) for k, e in err.items() if abs(e) > bench.TOL[k]]
        if row.get("known_miss"):
            marked.append((row["id"], bad))
            continue
        for k, e in err.items():
            errs[k].append(abs(e))
        if bad:
            misses.append((row["id"], bad))
    assert len(bench.rows()) >= 29 and len(marked) <= 9
    assert not misses, misses
    assert all(bad for _, bad in marked), marked
    assert statistics.median(errs["tokens_per_s"]) < 0.15
    assert statistics.median(errs["tpot_ms"]) < 0.15
    assert statistics.median(errs["ttft_ms"]) < 0.2


def test_batch_one_matches_engine_profiles():
    """Llama-3-8B bf16 on an H200 at one user: compiled static-cache transformers measured 140.9 tokens/s (the
    profile's fit, reproduced); vLLM is faster; eager transformers several times slower (HF: compile ≈ up to 4×)."""
    m, g = CAT.model("llama-3-8b"), CAT.gpu("h200-sxm")
    w = _w("llama-3-8b", 512, 256)
    speed = {e: simulate_serving(m, g, 1, w, CAL, concurrency=1, engine=e).result.per_user_tokens_per_s
             for e in ("transformers-compiled", "transformers", "vllm")}
    assert speed["transformers-compiled"] == pytest.approx(140.9, rel=0.05)
    assert speed["vllm"] > speed["transformers-compiled"]
    assert 2.5 < speed["transformers-compiled"] / speed["transformers"] < 6
    # a static batch of 16 (generate() has no continuous batching): measured 1,538 tokens/s of decode in total
    # (the per-sequence cost seq_s was fitted on it: this checks the static-batch path reproduces it)
    batch = simulate_serving(m, g, 1, w, CAL, concurrency=16, engine="transformers-compiled").result
    assert 16 * batch.per_user_tokens_per_s == pytest.approx(1538, rel=0.1)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 120), st.integers(1, 60))
def test_more_concurrency_never_lowers_ttft_or_tpot(c, extra):
    a, b = _sim(c).result, _sim(c + extra).result
    assert b.tpot_p50_s >= a.tpot_p50_s * 0.999
    assert b.ttft_p50_s >= a.ttft_p50_s * 0.999


@pytest.mark.parametrize("conc", [1, 4, 16])
def test_chunked_prefill_never_raises_ttft_for_long_prompts(conc):
    """Chunking a 12K prompt into 8K-token steps costs at most the extra step's fixed costs and the decodes it
    carries (a few %) while the KV cache has room (checked up to 16 users of 12K-token prompts on one H100)."""
    on = _sim(conc, prompt=12000, output=300, chunked_prefill=True).result
    off = _sim(conc, prompt=12000, output=300, chunked_prefill=False).result
    assert on.ttft_p50_s <= off.ttft_p50_s * 1.05


def test_open_loop_is_deterministic_and_queues_past_capacity():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm")
    w = _w("llama-3.1-8b", 1000, 200)
    one = simulate_serving(m, g, 1, w, CAL, rate=5.0)
    assert one == simulate_serving(m, g, 1, w, CAL, rate=5.0)
    heavy = simulate_serving(m, g, 1, w, CAL, rate=400.0)
    assert heavy.result.ttft_p50_s > 5 * one.result.ttft_p50_s
    assert heavy.output_tokens_per_s > one.output_tokens_per_s


def test_target_concurrency_brackets_the_target():
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm")
    w = _w("llama-3.1-8b", 1000, 200)
    n = max_concurrency_for_target(m, g, 1, w, CAL, tpot_s=0.015)
    assert n >= 2
    assert simulate_serving(m, g, 1, w, CAL, concurrency=n, requests_per_client=3).result.tpot_p50_s <= 0.015
    assert simulate_serving(m, g, 1, w, CAL, concurrency=n + 1, requests_per_client=3).result.tpot_p50_s > 0.015 \
        or n + 1 > 1024
    assert max_concurrency_for_target(m, g, 2, replace(w, gpus=2, tp=1), CAL, tpot_s=0.015) == 2 * n
    with pytest.raises(InputError):
        max_concurrency_for_target(m, g, 1, w, CAL)


def test_speculative_decoding_is_explicit_and_helps_at_low_load():
    base = _sim(1).result
    spec = _sim(1, speculation=Speculation(k=3, acceptance=0.7)).result
    assert Speculation(k=3, acceptance=0.7).tokens_per_step() == pytest.approx((1 - 0.7**4) / 0.3)
    assert spec.tpot_p50_s < base.tpot_p50_s


def test_one_simulation_is_fast():
    _sim(64)
    t0 = time.perf_counter()
    for _ in range(5):
        _sim(64)
    assert (time.perf_counter() - t0) / 5 < 0.05


def test_serve_to_50_users_figures():
    """"Serve Llama-3.1-8B to 50 users": the recommender's serving options carry TTFT and per-user speed at that
    load, and the analysis gives the concurrency limit for a TPOT target on the leading option."""
    from advisor.analysis.limits import serving_load
    from advisor.recommend.recommender import recommend
    from advisor.workload import Constraints

    w = Workload(model="llama-3.1-8b", concurrency=50, prompt_tokens=1000, output_tokens=300, context=4096)
    rec = recommend(w, Constraints())
    opt = next(o for o in rec.options if o.fits)
    load = opt.throughput["under_load"]
    assert load["ttft_s"] > 0 and 0 < load["per_user_tokens_per_s"] < opt.throughput["decode_tokens_per_s"] * 1.01
    got = serving_load(CAT.model("llama-3.1-8b"), CAT.gpu(opt.gpu), opt, 50, [], tpot_target_s=0.05)
    assert got is not None and got["max_concurrency_for_target"] >= 1
    assert got["ttft_s"] == pytest.approx(load["ttft_s"], rel=0.5)


def test_web_chart_reads_the_simulation():
    from ui.web.panels import option_tokens_per_s

    opt = {"throughput": {"decode_tokens_per_s_total": 2000.0, "under_load": {"total_tokens_per_s": 1500.0}}}
    assert option_tokens_per_s(opt) == 1500.0
    assert option_tokens_per_s({"throughput": {"decode_tokens_per_s_total": 2000.0}}) == 2000.0


def test_past_kv_capacity_requests_queue_and_tpot_stays_flat():
    """Llama-3.3-70B BF16 on 2 × H100 holds about eight 5,500-token requests: beyond that, new requests wait (TTFT
    grows with every added user) while the running batch, and so TPOT, stays put (within a few %, as NIM's sweep
    shows past saturation: ITL 92.91 → 92.86 → 93.06 ms at 100 → 150 → 200 users)."""
    m, g = CAT.model("llama-3.3-70b"), CAT.gpu("h100-sxm")
    w = _w("llama-3.3-70b", 5000, 500, gpus=2, tp=2)
    runs = [simulate_serving(m, g, 2, w, CAL, concurrency=c).result for c in (12, 20, 28)]
    assert runs[0].ttft_p50_s < runs[1].ttft_p50_s < runs[2].ttft_p50_s
    assert max(r.tpot_p50_s for r in runs) <= 1.05 * min(r.tpot_p50_s for r in runs)
