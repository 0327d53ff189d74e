"""Training memory: ZeRO paper Figure 1, DeepSpeed's estimator outputs, Korthikanti's activation formulas, LoRA."""

from __future__ import annotations

import pytest

from advisor.estimator import training_memory as tm
from advisor.estimator.activations import korthikanti_layer_bytes, layer_activations, training_activations
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from knowledge.params import param_counts
from knowledge.structs import replace
from tests.memory_fixtures import gpt_like

GB, GIB, MIB = 1e9, 2**30, 2**20


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


# --- ZeRO paper, Figure 1: Ψ = 7.5B, N_d = 64, K = 12 -----------------------------------------------------------

@pytest.mark.parametrize("stage, published_gb", [(0, 120), (1, 31.4), (2, 16.6), (3, 1.9)])
def test_zero_paper_figure1(stage, published_gb):
    s = tm.zero_model_states(7.5e9, stage, 64, k=12)
    assert (s.weights + s.gradients + s.optimizer) / GB == pytest.approx(published_gb, rel=0.02)


def test_estimate_memory_model_states_follow_the_engine(cat):
    """Issue 28: the default engine's accounting. ZeRO 0 on 64 GPUs is HF Trainer + DDP: fp32 weights 4 + fp32
    gradients 4 + DDP's gradient buckets 4 + AdamW moments 8 = 20 B/param at the end of backward; ZeRO 1–3 run
    in DeepSpeed: 4Ψ + 16Ψ/N (stages 1, 2) and 18Ψ/N + 4·largest layer (stage 3), its estimator's figures.
    (The ZeRO paper's accounting is checked on its own Figure 1 above.)"""
    m = cat.model("llama-2-7b")
    psi = param_counts(m).total
    ll = tm.largest_layer_params(m)
    for stage, expected in [(0, (4 + 4 + 4 + 8) * psi), (1, 4 * psi + 16 * psi / 64), (2, 4 * psi + 16 * psi / 64),
                            (3, 18 * psi / 64 + 4 * ll)]:
        e = estimate_memory(m, Workload(task="full", zero=stage, gpus=8, nodes=8))
        got = e.per_gpu.weights.n + e.per_gpu.gradients.n + e.per_gpu.optimizer_states.n
        assert got == pytest.approx(expected, rel=1e-6), stage


# --- DeepSpeed estimator (docs/code-docs/source/memory.rst), t5-3b: 2851M params, 32M largest layer, 8 GPUs ----

T5_3B, T5_LL = 2851e6, 32e6


@pytest.mark.parametrize("offload, cpu_gb, gpu_gb", [(True, 127.45, 5.31), (False, 127.45, 15.93)])
def test_deepspeed_zero2_t5_3b(offload, cpu_gb, gpu_gb):
    gpu, cpu = tm.deepspeed_zero2(T5_3B, 8, 1, offload_optimizer=offload)
    assert gpu / GIB == pytest.approx(gpu_gb, rel=0.02)
    assert cpu / GIB == pytest.approx(cpu_gb, rel=0.02)


@pytest.mark.parametrize("params_off, opt_off, zero_init, cpu_gb, gpu_gb", [
    (True, True, True, 71.69, 0.12), (True, True, False, 127.45, 0.12),
    (False, True, True, 63.72, 0.78), (False, True, False, 127.45, 0.78),
    (False, False, True, 1.43, 6.09), (False, False, False, 127.45, 6.09),
])
def test_deepspeed_zero3_t5_3b_cold(params_off, opt_off, zero_init, cpu_gb, gpu_gb):
    gpu, cpu = tm.deepspeed_zero3(T5_3B, T5_LL, 8, 1, offload_params=params_off, offload_optimizer=opt_off,
                                  zero_init=zero_init)
    assert gpu / GIB == pytest.approx(gpu_gb, rel=0.02, abs=0.005)
    assert cpu / GIB == pytest.approx(cpu_gb, rel=0.02)


@pytest.mark.parametrize("params_off, opt_off, zero_init, cpu_gb, gpu_gb", [
    # HF transformers deepspeed.md: bigscience/T0_3B, 2783M params, 65M largest layer (the 32128 × 2048 shared
    # embedding; "0.25GB" is 0.245 rounded), 1 node × 1 GPU
    (True, True, True, 70.00, 0.25), (False, True, True, 62.23, 5.43),
    (False, False, True, 0.37, 46.91), (False, False, False, 15.56, 46.91),
])
def test_deepspeed_zero3_t0_3b_single_gpu(params_off, opt_off, zero_init, cpu_gb, gpu_gb):
    gpu, cpu = tm.deepspeed_zero3(2783e6, 32128 * 2048, 1, 1, offload_params=params_off, offload_optimizer=opt_off,
                                  zero_init=zero_init)
    assert gpu / GIB == pytest.approx(gpu_gb, rel=0.02)
    assert cpu / GIB == pytest.approx(cpu_gb, rel=0.02)


def test_deepspeed_t5_large_worked_example():
    # memory.rst hand-worked example: t5-large 737.67M params, 32.90M largest layer, 4 GPUs, ZeRO-3
    for po, oo, mib in [(False, False, 3291), (True, True, 125), (False, True, 477)]:
        gpu, _ = tm.deepspeed_zero3(737.67e6, 32.90e6, 4, 1, offload_params=po, offload_optimizer=oo)
        assert gpu / MIB == pytest.approx(mib, rel=0.02)


def test_estimate_memory_offload_matches_deepspeed(cat):
    m = cat.model("llama-3-8b")
    P, LL = param_counts(m).total, tm.largest_layer_params(m)
    e = estimate_memory(m, Workload(task="full", zero=3, offload="all", gpus=8))
    gpu, cpu = tm.deepspeed_zero3(P, LL, 8, 1, offload_params=True, offload_optimizer=True)
    assert e.per_gpu.weights.n + e.per_gpu.gradients.n + e.per_gpu.optimizer_states.n == pytest.approx(gpu, rel=1e-6)
    assert e.cpu.total.n == pytest.approx(cpu, rel=1e-6)
    e2 = estimate_memory(m, Workload(task="full", zero=2, offload="optimizer", gpus=8))
    gpu2, cpu2 = tm.deepspeed_zero2(P, 8, 1, offload_optimizer=True)
    assert e2.per_gpu.weights.n == pytest.approx(gpu2, rel=1e-6) and e2.cpu.total.n == pytest.approx(cpu2, rel=1e-6)
    assert e2.per_gpu.optimizer_states.n == 0 and e2.cpu.optimizer_states.n > 0


def test_optimizer_bytes_per_param(cat):
    m = cat.model("llama-2-7b")
    P = param_counts(m).total

    def states(opt: str) -> float:
        e = estimate_memory(m, Workload(task="full", optimizer=opt))
        return (e.per_gpu.weights.n + e.per_gpu.gradients.n + e.per_gpu.optimizer_states.n) / P

    assert states("adamw") == pytest.approx(16)  # 2 + 2 + 12 (ZeRO paper K = 12)
    assert states("adamw8bit") == pytest.approx(10)  # 2 + 2 + 4 master + 2 (two 8-bit moments)
    assert states("sgd") == pytest.approx(12)  # 2 + 2 + 4 master + 4 momentum
    assert states("adamw-bf16") == pytest.approx(8)  # bf16 weights, grads, m, v
    fp32 = estimate_memory(m, Workload(task="full", weights="fp32"))
    assert (fp32.per_gpu.weights.n + fp32.per_gpu.gradients.n + fp32.per_gpu.optimizer_states.n) / P == pytest.approx(16)


# --- activations (Korthikanti et al. 2022) ---------------------------------------------------------------------

@pytest.mark.parametrize("s, b, h, a", [(2048, 1, 12288, 96), (4096, 2, 4096, 32), (1024, 4, 2048, 16)])
def test_layer_activations_reproduce_korthikanti(s, b, h, a):
    m = gpt_like(h, a)
    la = layer_activations(m, s, b, flash=False, dropout=True, moe_layer=False)
    assert la.per_gpu(1, False, "none") == pytest.approx(s * b * h * (34 + 5 * a * s / h))
    for t in (2, 4, 8):
        assert la.per_gpu(t, False, "none") == pytest.approx(korthikanti_layer_bytes(s, b, h, a, t, "none"))
        assert la.per_gpu(t, True, "none") == pytest.approx(korthikanti_layer_bytes(s, b, h, a, t, "sp"))
        assert la.per_gpu(t, False, "selective") == pytest.approx(korthikanti_layer_bytes(s, b, h, a, t, "selective"))
        assert la.per_gpu(t, True, "selective") == pytest.approx(korthikanti_layer_bytes(s, b, h, a, t, "sp+selective"))


def test_worked_number_70b_layer():
    # validation_public.md §2: a 70B model (h 8192, a 64) at s = 8192, b = 1 stores 23.8 GB per layer with no
    # recompute — Korthikanti's sbh(34 + 5as/h) in bytes. (The same note's GPT-3 figures, 555 MB and 4.03 GB,
    # are twice the paper's byte formula, so they are not used.)
    s, b, h, a = 8192, 1, 8192, 64
    la = layer_activations(gpt_like(h, a), s, b, flash=False, dropout=True, moe_layer=False)
    assert la.per_gpu(1, False, "none") / GB == pytest.approx(23.8, rel=0.01)


def test_flash_attention_removes_score_term():
    m = gpt_like(4096, 32)
    eager = layer_activations(m, 4096, 1, flash=False, dropout=False, moe_layer=False)
    flash = layer_activations(m, 4096, 1, flash=True, dropout=False, moe_layer=False)
    assert eager.scores == 2 * 32 * 4096 * 4096  # softmax output without dropout: 2as²b
    assert flash.scores == 0


def test_recompute_modes_order(cat):
    m = cat.model("llama-2-7b")
    none = training_activations(m, 4096, 1, flash=False, recompute="none").total
    sel = training_activations(m, 4096, 1, flash=False, recompute="selective").total
    full = training_activations(m, 4096, 1, flash=False, recompute="full").total
    assert full < sel < none
    # full recompute keeps 2sbh per layer plus one layer's working set plus logits
    t = training_activations(m, 4096, 1, recompute="full")
    assert t.stored == 2 * 4096 * 4096 * 32


def test_swiglu_gqa_adaptation(cat):
    # Llama-2-7B (SwiGLU f = 11008, MHA) per layer with FlashAttention, no dropout:
    # 2sbh·(2 + 2 norms) + 2sb(q+k+v+o) + 4sba + 8sbf
    m = cat.model("llama-2-7b")
    s, b, h, f, a = 4096, 1, 4096, 11008, 32
    la = layer_activations(m, s, b, flash=True, dropout=False, moe_layer=False)
    expected = 2 * s * b * h * 4 + 2 * s * b * 4 * h + 4 * s * b * a + 8 * s * b * f
    assert la.per_gpu(1, False, "none") == pytest.approx(expected)
    gqa = cat.model("llama-3-8b")  # 8 KV heads: K and V shrink
    assert layer_activations(gqa, s, b, flash=True, dropout=False, moe_layer=False).split < \
        layer_activations(replace(gqa, num_kv_heads=32), s, b, flash=True, dropout=False,
                          moe_layer=False).split


# --- LoRA / QLoRA / freeze ----------------------------------------------------------------------------------------

def test_lora_params_llama2_7b(cat):
    # r(d_in + d_out) per matrix. Attention (q,k,v,o; 4096×4096 each), r = 8: 32 layers × 4 × 8 × 8192 = 8,388,608
    m = cat.model("llama-2-7b")
    assert tm.lora_params(m, 8, "attention") == 32 * 4 * 8 * 8192
    # all-linear adds gate/up (4096→11008) and down: + 32 × 3 × 8 × 15104
    assert tm.lora_params(m, 8, "all-linear") == 32 * 4 * 8 * 8192 + 32 * 3 * 8 * (4096 + 11008)
    # PEFT prints "trainable params: 4,194,304" for Llama-2-7B with r=8 on q_proj,v_proj — half of q,k,v,o
    assert tm.lora_params(m, 8, "attention") // 2 == 4_194_304


def test_lora_rank_bounds(cat):
    m = cat.model("llama-2-7b")
    with pytest.raises(InputError) as exc:
        tm.lora_params(m, 5000)
    assert exc.value.field == "lora_rank" and "4096" in str(exc.value)


def test_qlora_smaller_than_lora_smaller_than_full(cat):
    m = cat.model("llama-2-7b")
    q = estimate_memory(m, Workload(task="qlora")).per_gpu.total.n
    lo = estimate_memory(m, Workload(task="lora")).per_gpu.total.n
    full = estimate_memory(m, Workload(task="full")).per_gpu.total.n
    assert q < lo < full


def test_freeze_tuning_trains_last_blocks(cat):
    m = cat.model("llama-2-7b")
    e = estimate_memory(m, Workload(task="freeze"))
    per_block = (param_counts(m).total - param_counts(m).embedding - param_counts(m).by_group["lm_head"]) / 32
    assert e.trainable_params == pytest.approx(2 * per_block, rel=0.001)


def test_moe_total_vs_active(cat):
    m = cat.model("mixtral-8x7b")
    e = estimate_memory(m, Workload(task="inference"))
    assert e.params > 46e9 and 12e9 < e.active_params < 13.5e9  # 46.7B total, 12.9B active (Mistral AI)
    assert e.per_gpu.weights.n == pytest.approx(2 * e.params, rel=0.001)  # all experts are resident


def test_zero3_partitions_the_frozen_lora_base() -> None:
    """DeepSpeed ZeRO-3 partitions every parameter, frozen ones included: LoRA on Llama-3.1-70B over 8 GPUs keeps
    1/8 of the bf16 base per GPU plus the gathered largest layer (the 128,256 × 8,192 embedding), not all of it."""
    from advisor.estimator.formats import weight_bytes
    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    m = load_catalog().model("llama-3.1-70b")
    base = weight_bytes(m, "bf16")
    z2 = estimate_memory(m, Workload(model=m.id, task="lora", gpus=8, zero=2))
    z3 = estimate_memory(m, Workload(model=m.id, task="lora", gpus=8, zero=3))
    assert z2.per_gpu.weights.n >= base
    expected = base / 8 + 128_256 * 8_192 * 2
    adapters = z3.per_gpu.weights.n - expected
    assert 0 <= adapters < 0.01 * base  # only the fp32 adapters on top
