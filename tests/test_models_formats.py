"""Weight formats of 2025–26 checkpoints: MXFP4, NVFP4, GGUF i-quants, and where they run natively.

References: llama.cpp's published bits/weight table for Llama-3.1-8B (tools/quantize/README.md) for every GGUF file
type, the gguf package's GGML_QUANT_SIZES (the block sizes llama.cpp reads), the gpt-oss card (MXFP4 experts, one
80 GB GPU) and the GPUs' datasheet flags in the catalog (FP8 tensor cores, an FP4 figure only on Blackwell)."""

from __future__ import annotations

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.formats import (
    GGML_TYPE_BITS,
    effective_bits_per_weight,
    native_compute,
    quantised_active_share,
    weight_bytes,
)
from advisor.estimator.throughput import estimate_throughput
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.params import param_counts

CATALOG = load_catalog()


def test_block_sizes_agree_with_the_gguf_package():
    gguf = pytest.importorskip("gguf")
    sizes = {t.name: v for t, v in gguf.constants.GGML_QUANT_SIZES.items()}
    for name, bits in GGML_TYPE_BITS.items():
        block, size = sizes[name]
        assert bits == pytest.approx(size * 8 / block), name


# llama.cpp tools/quantize/README.md, meta-llama/Llama-3.1-8B, bits/weight column
LLAMA31_8B_BPW = {"iq1_s": 2.0042, "iq1_m": 2.1460, "iq2_xxs": 2.3824, "iq2_xs": 2.5882, "iq2_s": 2.7403,
                  "iq2_m": 2.9294, "iq3_xxs": 3.2548, "iq3_s": 3.6606, "iq3_m": 3.7628, "iq4_xs": 4.4597,
                  "iq4_nl": 4.6818, "q2_k": 3.1593, "q4_k_m": 4.8944, "q5_k_m": 5.7036, "q6_k": 6.5633, "q8_0": 8.5008}


@pytest.mark.parametrize("fmt,bpw", sorted(LLAMA31_8B_BPW.items()))
def test_gguf_file_types_match_llama_cpp_table(fmt, bpw):
    assert effective_bits_per_weight(CATALOG.model("llama-3.1-8b"), fmt) == pytest.approx(bpw, abs=0.0002)


def test_mxfp4_quantises_only_the_experts():
    """OpenAI's gpt-oss model card lists a 60.8 GiB checkpoint for gpt-oss-120b (MXFP4 expert weights, everything
    else BF16); rounding to 0.1 GiB allows ±0.1 %, the tolerance adds the file's small non-tensor part. Quantising
    every weight or none would miss it: 116.8 B × 4.25 bits = 57.8 GiB, × 16 bits = 217.6 GiB."""
    m = CATALOG.model("gpt-oss-120b")
    assert weight_bytes(m, "mxfp4") / 2**30 == pytest.approx(60.8, rel=2e-3)
    experts = 36 * 128 * (2880 * 5760 + 2880 * 2880)  # config.json: 36 layers × 128 experts, hidden 2880
    assert param_counts(m).by_group["experts"] - experts == 36 * 128 * (5760 + 2880)  # expert biases stay 16-bit


def test_nvfp4_is_four_and_a_half_bits_on_linear_layers():
    """Llama-3.1-8B by hand from config.json: 32 layers × (q, o 4096² each; k, v 4096 × 1024 each; gate, up, down
    4096 × 14,336 each) = 6,979,321,856 linear weights at 4.5 bits (NVFP4: 4-bit values and an FP8 scale per 16);
    the other 1,050,939,392 of its 8,030,261,248 parameters (embedding, head, norms) stay BF16: 6.028 GB."""
    m = CATALOG.model("llama-3.1-8b")
    linear = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
    assert linear == 6_979_321_856
    expected = linear * 4.5 / 8 + (8_030_261_248 - linear) * 2
    assert expected == 6_027_747_328
    assert weight_bytes(m, "nvfp4") == pytest.approx(expected, rel=1e-6)  # exact counts: float rounding only


@pytest.mark.parametrize("gpu_id,fmt,expected", [
    ("h100-sxm", "fp8", "fp8"), ("rtx-4090", "fp8", "fp8"), ("a100-80g-sxm", "fp8", None),
    ("h100-sxm", "mxfp4", None), ("h100-sxm", "nvfp4", None), ("b200", "nvfp4", "fp4"), ("b200", "mxfp4", "fp4"),
    ("rtx-5090", "nvfp4", "fp4"), ("b200", "q4_k_m", None),
])
def test_native_compute_follows_the_datasheets(gpu_id, fmt, expected):
    assert native_compute(fmt, CATALOG.gpu(gpu_id)) == expected


def test_gpt_oss_fp4_share_is_the_active_experts():
    m = CATALOG.model("gpt-oss-120b")
    c = param_counts(m)
    active_experts = c.by_group["experts"] * 4 / 128
    dense = c.by_group["attention"] + c.by_group["lm_head"]
    assert quantised_active_share(m, "mxfp4") == pytest.approx(active_experts / (active_experts + dense))


def _prefill(model_id: str, gpu_id: str, weights: str) -> tuple[float, list[str]]:
    w = Workload(task="inference", weights=weights, context=8192, prompt_tokens=8192, output_tokens=1)
    est = estimate_throughput(CATALOG.model(model_id), CATALOG.gpu(gpu_id), 1, w, load_calibration())
    return est.prefill_tokens_per_s, est.assumptions


def test_fp4_speeds_up_compute_only_where_native():
    """Prefill is compute-bound: NVFP4 beats BF16 on a B200 (FP4 tensor cores) but not on an H100, where the
    weights are dequantised to BF16 (weight-only)."""
    b200_fp4, notes = _prefill("llama-3.1-8b", "b200", "nvfp4")
    b200_bf16, _ = _prefill("llama-3.1-8b", "b200", "bf16")
    h100_fp4, h_notes = _prefill("llama-3.1-8b", "h100-sxm", "nvfp4")
    h100_bf16, _ = _prefill("llama-3.1-8b", "h100-sxm", "bf16")
    assert b200_fp4 > 1.3 * b200_bf16
    assert h100_fp4 <= h100_bf16 * 1.01
    assert any("runs FP4 natively" in a for a in notes)
    assert any("no FP4 tensor cores" in a for a in h_notes)
