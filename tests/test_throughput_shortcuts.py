"""The recommender's shortcuts into the throughput roofline give what the whole estimate gives: the time to the first
token from the prefill step alone, the shape (TP group, formats, context) without estimating, the brief estimate's
figures and first formula line, and the one count of what fits beside the weights."""

from __future__ import annotations

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.kv_cache import kv_cache_bytes
from advisor.estimator.memory import estimate_memory
from advisor.estimator.throughput import estimate_throughput, serving_shape, time_to_first_token
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.quantities import Bytes
from knowledge.structs import dump

CAT = load_catalog()
CAL = load_calibration()

CASES = [  # (model, gpu, GPUs, workload fields): one GPU, a TP group, replicas, llama.cpp's layer split, lengths
    ("llama-3.1-8b", "h100-sxm", 1, {"concurrency": 8}),
    ("qwen2.5-32b", "rtx-4090", 4, {"tp": 4, "gpus": 4, "concurrency": 30, "prompt_tokens": 215, "output_tokens": 195}),
    ("llama-3-70b", "a100-80g-sxm", 8, {"tp": 4, "gpus": 8, "concurrency": 64, "context": 8192}),
    ("llama-3-8b", "rtx-3090", 2, {"weights": "q4_k_m", "engine": "llama.cpp", "concurrency": 2}),
    ("deepseek-v3", "h200", 8, {"weights": "fp8", "kv": "fp8", "concurrency": 16, "prompt_tokens": 2000}),
]


@pytest.mark.parametrize(("model", "gpu", "count", "fields"), CASES)
def test_shortcuts_agree_with_the_whole_estimate(model: str, gpu: str, count: int, fields: dict[str, object]) -> None:
    m, g = CAT.model(model), CAT.gpu(gpu)
    w = Workload(model=model, **fields)  # type: ignore[arg-type]
    full = estimate_throughput(m, g, count, w, CAL, with_capacity=False)
    assert time_to_first_token(m, g, count, w, CAL) == full.ttft.s
    shape = serving_shape(m, count, w)
    assert (shape.tp, shape.weights, shape.kv, shape.context) == (full.tp, full.weights, full.kv, full.context)
    brief = estimate_throughput(m, g, count, w, CAL, with_capacity=False, brief=True)
    assert brief.formulas == full.formulas[:1] and brief.assumptions == []
    assert {k: v for k, v in dump(brief).items() if k not in ("formulas", "assumptions")} == \
        {k: v for k, v in dump(full).items() if k not in ("formulas", "assumptions")}


def test_fit_count_by_hand() -> None:
    """Llama-3.1-8B in BF16 on one H100 at 8,192 tokens: the sequences that fit beside the weights, counted by hand
    from the estimate's own parts, and the KV tokens as the same count of one token's KV."""
    m, g = CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm")
    est = estimate_memory(m, Workload(model="llama-3.1-8b", context=8192, concurrency=1), g)
    free = est.usable_bytes(g).n - (est.per_gpu.total.n - est.per_gpu.kv_cache.n)
    one_seq = kv_cache_bytes(m, 8192, 1, "fp16", 1)
    assert one_seq == 8192 * 32 * 2 * 8 * 128 * 2  # tokens × layers × (K, V) × KV heads × head dim × 2 bytes = 1 GiB
    assert est.fit_count(g, Bytes(one_seq)) == free // one_seq > 0
    assert est.kv_capacity_tokens(g) == free // est.kv_bytes_per_token.n
    assert est.fit_count(g, Bytes(0)) == 0
    assert est.fit_count(g, Bytes(10**15)) == 0  # more than the card: none, never negative
