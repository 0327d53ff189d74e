"""Serving engines' own KV-cache arithmetic (advisor/estimator/engine_memory.py) against published start-up logs
within 10% (rows and sources: benchmarks/engine_memory_validation.yaml), and the engines' semantics: vLLM's
--gpu-memory-utilization is a fraction of the whole GPU, --kv-cache-memory-bytes overrides it, blocks and
"Maximum concurrency" follow from the KV bytes; SGLang's mem_fraction_static is (weights + KV) / total."""

from __future__ import annotations

import statistics

import pytest

from advisor.estimator.engine_memory import (
    VLLM_RELEASES,
    sglang_kv_budget,
    sglang_mem_fraction_static,
    visible_bytes,
    vllm_kv_budget,
)
from benchmarks.validate_engine_memory import TOLERANCE, load_rows, predict_all
from knowledge.catalog import load_catalog
from knowledge.errors import InputError

ROWS = predict_all()
CHECKED = [r for r in ROWS if r.checked]
CAT = load_catalog()
GIB = 2**30


@pytest.mark.parametrize("row", CHECKED, ids=[f"{r.id}:{r.quantity}" for r in CHECKED])
def test_published_log_figure_within_10_percent(row):
    assert TOLERANCE == 0.10
    assert abs(row.error) <= TOLERANCE, (f"{row.id} {row.quantity}: predicted {row.predicted:,.2f}, logged "
                                         f"{row.measured:,.2f} ({row.error:+.1%}; {row.source})")


def test_the_table_covers_blocks_gib_concurrency_and_both_engines():
    quantities = {r.quantity for r in CHECKED}
    assert {"KV GiB", "blocks", "max concurrency", "tokens", "mem_fraction_static"} <= quantities
    assert {r.engine for r in CHECKED} == {"vllm", "sglang"}
    assert len({r.id for r in CHECKED}) >= 8
    assert statistics.median(abs(r.error) for r in CHECKED) < 0.05
    unasserted = [r for r in ROWS if not r.checked]
    assert all(r.why for r in unasserted) and len(unasserted) <= 1
    assert all(r.get("source") for kind in ("vllm", "sglang", "sglang_fraction") for r in load_rows()[kind])


def _llama8b(**kw):
    return vllm_kv_budget(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), max_model_len=8192, **kw)


def test_gpu_memory_utilization_is_a_fraction_of_the_whole_gpu():
    a, b = _llama8b(gpu_memory_utilization=0.80), _llama8b(gpu_memory_utilization=0.90)
    assert b.kv_cache_bytes - a.kv_cache_bytes == pytest.approx(0.10 * visible_bytes(CAT.gpu("h100-sxm")), abs=2)
    assert a.weights_bytes == b.weights_bytes  # weights are inside the fraction, not on top of it


def test_current_default_is_092_and_the_older_09():
    assert VLLM_RELEASES["current"].gpu_memory_utilization == 0.92
    assert VLLM_RELEASES["v1-0.9"].gpu_memory_utilization == 0.9
    assert _llama8b().fraction == 0.92


def test_kv_cache_memory_bytes_overrides_the_fraction():
    b = _llama8b(kv_cache_memory_bytes=10 * GIB, gpu_memory_utilization=0.5)
    assert b.kv_cache_bytes == 10 * GIB
    # Llama-3.1-8B: 32 layers × 2 × 8 KV heads × 128 × 2 B = 131,072 B per token; blocks of 16 tokens
    assert b.kv_bytes_per_token == 131_072 and b.num_blocks == 10 * GIB // (16 * 131_072) == 5120
    assert b.kv_tokens == 81_920 and b.max_concurrency == pytest.approx(10.0)
    assert b.log_line == "Maximum concurrency for 8,192 tokens per request: 10.00x"


def test_cuda_graph_memory_only_when_profiled():
    off, on = _llama8b(), _llama8b(cuda_graphs_profiled=True)
    assert off.cuda_graph_bytes == 0 and on.cuda_graph_bytes > 0
    assert off.kv_cache_bytes - on.kv_cache_bytes == on.cuda_graph_bytes


def test_tensor_parallel_shards_weights_and_kv():
    one = vllm_kv_budget(CAT.model("llama-3.1-70b"), CAT.gpu("h100-sxm"), tp=4, max_model_len=8192)
    assert one.kv_bytes_per_token == 80 * 2 * 2 * 128 * 2  # 8 KV heads / 4 per GPU
    assert one.max_concurrency > 10


def test_model_that_leaves_no_room_has_zero_blocks():
    b = vllm_kv_budget(CAT.model("llama-3.1-70b"), CAT.gpu("h100-sxm"), max_model_len=4096)
    assert b.kv_cache_bytes == 0 and b.num_blocks == 0 and b.max_concurrency == 0


def test_sglang_automatic_fraction_rule():
    # H100: gpu_mem = 80 GiB × 0.99 = 81,101 MiB; reserved = 512 + 1.5 × 8192 + 2 × 256 + 1024/8 = 13,440 MiB
    frac, chunk, bs = sglang_mem_fraction_static(CAT.gpu("h100-sxm"))
    assert (chunk, bs) == (8192, 256) and frac == pytest.approx(round((81100.8 - 13440) / 81100.8, 3))
    assert sglang_mem_fraction_static(CAT.gpu("rtx-4090"))[1:] == (2048, 24)
    assert sglang_mem_fraction_static(CAT.gpu("h100-sxm"), tp=8)[0] < frac  # larger TP reserves more
    s = sglang_kv_budget(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"))
    assert s.fraction == frac
    assert s.weights_bytes + s.kv_cache_bytes + s.non_torch_bytes == pytest.approx(frac * s.total_bytes, abs=2)


@pytest.mark.parametrize("kwargs", [{"gpu_memory_utilization": 0.0}, {"gpu_memory_utilization": 1.5},
                                    {"kv_cache_memory_bytes": 0}, {"release": "v9"}])
def test_bad_engine_arguments(kwargs):
    with pytest.raises(InputError) as err:
        _llama8b(**kwargs)
    assert err.value.accepted


# ---------------------------------------------------------------- throughput and recommend report the engine figure


def _cli(capsys, *argv):
    import json

    from ui.cli.entry import main

    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.startswith("{") else out), err


def test_throughput_json_reports_vllms_maximum_concurrency(capsys):
    code, data, err = _cli(capsys, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192",
                           "--json")
    assert code == 0, err
    em = data["engine_memory"]
    ref = vllm_kv_budget(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), max_model_len=8192)
    assert em["engine"] == "vllm" and em["fraction"] == 0.92 and em["num_blocks"] == ref.num_blocks
    assert em["max_concurrency"] == round(ref.max_concurrency, 2) and em["instances"] == 1
    assert em["log_line"] == f"Maximum concurrency for 8,192 tokens per request: {ref.max_concurrency:.2f}x"
    for key in ("decode_tokens_per_s", "decode_tokens_per_s_total", "prefill_tokens_per_s", "ttft_s", "bound"):
        assert key in data  # the DESIGN.md keys stay


def test_throughput_flags_follow_vllm_semantics(capsys):
    base = ("throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "8192", "--json")
    _, low, _ = _cli(capsys, *base, "--gpu-memory-utilization", "0.5")
    _, fixed, _ = _cli(capsys, *base, "--kv-cache-memory-bytes", str(10 * GIB), "--gpu-memory-utilization", "0.5")
    assert low["engine_memory"]["fraction"] == 0.5
    assert fixed["engine_memory"]["num_blocks"] == 5120 and fixed["engine_memory"]["max_concurrency"] == 10.0
    code, _, err = _cli(capsys, *base, "--gpu-memory-utilization", "1.5")
    assert code == 2 and "--gpu-memory-utilization" in err and "≤ 1" in err
    code, out, _ = _cli(capsys, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm")
    assert code == 0 and "vLLM at start-up: Maximum concurrency for 4,096 tokens per request" in out


def test_sglang_and_llama_cpp(capsys):
    _, sg, _ = _cli(capsys, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--engine", "sglang",
                    "--json")
    assert sg["engine_memory"]["engine"] == "sglang" and sg["engine_memory"]["fraction"] < 0.9
    _, gg, _ = _cli(capsys, "throughput", "--model", "llama-3.1-8b", "--gpu", "rtx-4090", "--weights", "q4_k_m",
                    "--json")
    assert "engine_memory" not in gg  # llama.cpp reserves no KV pool at start-up


def test_recommend_options_carry_the_engine_figure():
    from advisor.recommend.recommender import recommend
    from advisor.workload import Constraints, Workload

    rec = recommend(Workload(model="llama-3.1-8b", context=8192), Constraints(candidates=("h100-sxm",)))
    opt = rec.options[0]
    ref = vllm_kv_budget(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), tp=opt.layout.tp, max_model_len=8192)
    assert opt.throughput.engine_max_concurrency == round(ref.max_concurrency, 2)
    assert opt.to_contract()["throughput"]["engine_log_line"].startswith("Maximum concurrency for 8,192 tokens")
