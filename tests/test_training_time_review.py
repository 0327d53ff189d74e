"""Training time after the pre-release review (docs/review.md R03, R04, R41): the network between servers by server
class, ZeRO-3 gathers per micro-batch, optimizer-offload time, and the calibrated MFU as a best case checked against
a published large run. Independent references are computed here from datasheet figures, not read back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.estimator.calibration import load_calibration
from advisor.estimator.training import (
    data_parallel_seconds,
    estimate_train_time,
    inter_node_bytes_per_s,
    server_class,
)
from knowledge.catalog import load_catalog
from knowledge.structs import replace

CAT = load_catalog()
CAL = load_calibration()
PROPS = settings(max_examples=30, deadline=None, derandomize=True, database=None)
GBIT = 1e9 / 8  # bytes/s in one Gb/s

# Independent inputs for the hand-worked references below (not read from the catalog or the estimator):
# - PCIe 4.0 x16, one direction: 16 GT/s × 16 lanes × 128/130 encoding / 8 = 31.5 GB/s (PCI-SIG PCIe 4.0 spec).
# - NVLink 4 on H100 SXM: 900 GB/s both directions, 450 GB/s each way (NVIDIA H100 datasheet).
# - The calibrated efficiencies, each cited in knowledge/data/calibration.yaml: 0.7 of a PCIe link (TensorRT-LLM
#   L40S TP rows), 0.5 more for GeForce cards without P2P (through host memory), 0.68 of NVLink, 0.92 of a NIC
#   (nccl-tests), host CPU Adam 1.8 B parameters/s per server (DeepSpeed issue 6834).
# - Parameter counts by hand from the models' config.json (meta-llama/Llama-3.1-70B, meta-llama/Llama-2-7b-hf):
#   Llama-3.1-70B: 80 layers × (q, o 8192×8192; k, v 8192×1024; gate, up, down 8192×28672; 2 norms of 8192)
#   + embedding and untied head 2 × 128,256 × 8192 + final norm 8192 = 70,553,706,496 (the safetensors total).
#   Llama-2-7B: 32 × (4 × 4096² + 3 × 4096 × 11,008 + 2 × 4096) + 2 × 32,000 × 4096 + 4096 = 6,738,415,616.
PCIE4 = 16e9 * 16 * 128 / 130 / 8  # 31.51 GB/s
P_70B = 80 * (2 * 8192 * 8192 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192) + 2 * 128256 * 8192 + 8192
P_7B = 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 2 * 32000 * 4096 + 4096
HAND = 2e-3  # tolerance of the hand references: PCIe's 31.51 GB/s against the catalog's rounded 31.5 GB/s


def as_pcie_server(gpu_id: str):
    """The same card (same FLOPS, memory, PCIe generation) in a server of PCIe cards: no NVLink, no baseboard."""
    g = CAT.gpu(gpu_id)
    return replace(g, interface="pcie", link_kind="none", nvlink_bytes_per_s=0.0, nvlink="none", form_factor="PCIe dual-slot")


# ------------------------------------------------------------------------------------------------------------
# R03: the network between servers depends on the server class


@pytest.mark.parametrize("gid", ["h100-sxm", "h20", "h800-sxm", "b200", "a100-80g-sxm", "a800-80g-sxm", "mi300x",
                                 "v100-32g-sxm2"])
def test_baseboard_modules_are_hgx_class(gid):
    assert server_class(CAT.gpu(gid)) == "baseboard"


@pytest.mark.parametrize("gid", ["rtx-4090", "rtx-5090", "l20", "l40s", "a10", "rtx-6000-ada", "a100-40g-pcie",
                                 "h100-pcie", "h100-nvl"])
def test_pcie_cards_are_pcie_servers(gid):
    assert server_class(CAT.gpu(gid)) == "pcie"


@pytest.mark.parametrize("gid,gbit", [("h100-sxm", 400), ("h20", 400), ("b200", 400), ("mi300x", 400),
                                      ("a100-80g-sxm", 200), ("a800-80g-sxm", 200), ("v100-32g-sxm2", 50)])
@pytest.mark.parametrize("per_node", [5, 8])
def test_baseboard_servers_have_one_nic_per_gpu_of_their_generation(gid, gbit, per_node):
    # DGX-1: 4 × 100 Gb/s EDR for 8 GPUs; DGX A100: 8 × 200 Gb/s HDR; DGX H100/B200: 8 × 400 Gb/s NDR
    bw, desc = inter_node_bytes_per_s(CAT.gpu(gid), per_node, CAL)
    assert bw == pytest.approx(per_node * gbit * GBIT)
    assert "one per GPU" in desc


@pytest.mark.parametrize("gid", ["rtx-4090", "l20", "l40s", "a100-40g-pcie"])
@pytest.mark.parametrize("per_node", [5, 8])
def test_pcie_servers_share_one_figure(gid, per_node):
    # one 200 Gb/s NIC for the whole server (Fire-Flyer 2), whatever the number of GPUs in it
    bw, desc = inter_node_bytes_per_s(CAT.gpu(gid), per_node, CAL)
    assert bw == pytest.approx(200 * GBIT)
    assert "per server" in desc


def test_the_chosen_figures_are_stated_in_the_assumptions():
    m = CAT.model("llama-3.1-70b")
    hgx = estimate_train_time(m, CAT.gpu("h20"), 16, 2e9, CAL, task="lora", context=4096)
    pcie = estimate_train_time(m, CAT.gpu("rtx-4090"), 16, 2e9, CAL, task="lora", context=4096)
    one = estimate_train_time(m, CAT.gpu("rtx-4090"), 8, 2e9, CAL, task="lora", context=4096)
    assert any("baseboard" in a and "400 Gb/s" in a for a in hgx.assumptions), hgx.assumptions
    assert any("PCIe servers" in a and "200 Gb/s" in a for a in pcie.assumptions), pcie.assumptions
    assert not any("servers" in a for a in one.assumptions)  # one server: no network assumed


def test_the_same_card_in_pcie_servers_is_slower_across_servers():
    """Equal FLOPS and memory: an H100 on an HGX baseboard against the same chip in 8-card PCIe servers. Inside one
    server the PCIe copy pays PCIe instead of NVLink; across servers its GPUs share one 200 Gb/s network instead of
    one 400 Gb/s NIC each, and the full fine-tune's FSDP traffic no longer hides behind compute."""
    m = CAT.model("llama-3-8b")
    for n in (16, 32):
        hgx = estimate_train_time(m, CAT.gpu("h100-sxm"), n, 1e10, CAL, task="full", context=4096)
        pcie = estimate_train_time(m, as_pcie_server("h100-sxm"), n, 1e10, CAL, task="full", context=4096)
        assert hgx.compute_s_per_step == pytest.approx(pcie.compute_s_per_step)  # same chip, same compute
        assert pcie.communication_s_per_step > hgx.communication_s_per_step
        assert pcie.tokens_per_s < hgx.tokens_per_s


def test_inter_node_time_from_line_rates():
    """16 × RTX 4090 in two PCIe servers, rings over 100 GB of buffers: each GPU receives 15/16 of them over PCIe 4.0
    x16 through host memory (no P2P: 31.5 GB/s × 0.7 × 0.5), each server receives 15/16 through its one 200 Gb/s
    NIC at 92 % NCCL efficiency; the slower sets the time. Worked by hand:
    PCIe 93.75 GB / 11.03 GB/s = 8.50 s; network 93.75 GB / 23.0 GB/s = 4.08 s → 8.50 s."""
    assert P_70B == 70_553_706_496 and P_7B == 6_738_415_616  # the hand counts match the published totals
    t, desc = data_parallel_seconds(CAT.gpu("rtx-4090"), 16, 100e9, CAL)
    assert 93.75e9 / (PCIE4 * 0.7 * 0.5) > 93.75e9 / (25e9 * 0.92)  # PCIe is the slower
    assert t == pytest.approx(93.75e9 / (PCIE4 * 0.7 * 0.5), rel=HAND) and t == pytest.approx(8.50, abs=0.01)
    assert "2 servers" in desc
    # 16 × H100 on two HGX servers: each GPU 93.75 GB over NVLink 4 at 450 GB/s × 0.68 = 306 GB/s (0.306 s); each
    # server 8 × 400 Gb/s = 400 GB/s × 0.92 = 368 GB/s (0.255 s): NVLink is the slower, 0.306 s
    t, _ = data_parallel_seconds(CAT.gpu("h100-sxm"), 16, 100e9, CAL)
    assert t == pytest.approx(93.75e9 / 306e9, rel=HAND) and t == pytest.approx(0.306, abs=0.001)


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus if server_class(g) == "baseboard" and g.vendor == "NVIDIA"]),
       mid=st.sampled_from(["llama-3-8b", "qwen2.5-72b", "gpt2"]),
       task=st.sampled_from(["pretrain", "full", "lora"]), n=st.integers(9, 128))
def test_a_pcie_server_is_never_faster_than_a_baseboard_at_equal_flops(gid, mid, task, n):
    m = CAT.model(mid)
    hgx = estimate_train_time(m, CAT.gpu(gid), n, 1e10, CAL, task=task, context=2048)
    pcie = estimate_train_time(m, as_pcie_server(gid), n, 1e10, CAL, task=task, context=2048)
    assert pcie.tokens_per_s <= hgx.tokens_per_s * (1 + 1e-12)


# ------------------------------------------------------------------------------------------------------------
# R03: ZeRO-3 gathers the parameters in every micro-batch

# micro-batch sizes of the llm-foundry rows in benchmarks/speed_validation.yaml (MicroBatchSize column of
# scripts/train/benchmarking/README.md at 061f2c7c); Megatron-Bridge Llama-3-8B runs MBS 1
PUBLISHED_MICRO_BATCH = {
    "mpt-70b-h100-64": 8, "mpt-70b-h100-32": 2, "mpt-30b-h100-8": 3, "mpt-13b-h100-8": 2, "mpt-7b-h100-8": 6,
    "mpt-1b-h100-8": 14, "mpt-70b-a100-64": 8, "mpt-30b-a100-8": 3, "mpt-13b-a100-8": 2, "mpt-7b-a100-8": 6,
    "mpt-7b-a100-8-s4096": 16, "mpt-70b-a100-40g-128": 4, "mpt-7b-a100-40g-8": 12, "mpt-3b-h100-fp8-8": 10,
    "megatron-llama3-8b-h100-8": 1, "megatron-llama3-8b-b200-8": 1,
}


def _training_rows():
    from benchmarks.validate_speed import load_rows

    return load_rows()["training"]


def _validation_model(mid: str):
    from benchmarks.validate_speed import model

    return model(mid)


def test_story2_16_rtx4090_from_first_principles():
    """LoRA Llama-3.1-70B on 16 × RTX 4090 (two PCIe servers), micro-batch 1 × 4096, full recomputation, ZeRO-3:
    per 16,384-token step 4 micro-batches × 3 gathers of the 16-bit base (2 × 70.55 B bytes each); the PCIe links
    through host memory are slower than the servers' 200 Gb/s, and the traffic outlasts the compute.

    Compute by hand (Narayanan et al. 2021 counting): LoRA with full recomputation runs the base's matmuls three
    times (forward, recomputed forward, activation gradients, no weight gradients) = 6 FLOPs per non-embedding
    parameter (70,553,706,496 − 128,256 × 8192 = 69,503,033,344) = 417.02 GFLOP, and the attention scores and values
    (2 matmuls × 2 FLOPs × 80 layers × 8192 × the mean causal span (4096 + 1)/2) four times = 21.48 GFLOP: 438.50
    GFLOP per token. At the RTX 4090's 165.2 TFLOPS dense BF16 (Ada whitepaper, FP32 accumulate) × the calibrated
    45 %: 16,384 × 438.50e9 / 74.34e12 = 96.6 s. Traffic: 12 gathers × 141.1 GB × 15/16 over 11.03 GB/s of PCIe =
    144.0 s (the network's 23 GB/s takes 69.0 s), so a step takes 144.0 s and each GPU trains 113.8 tokens/s."""
    m, g = CAT.model("llama-3.1-70b"), CAT.gpu("rtx-4090")
    est = estimate_train_time(m, g, 16, 2e9, CAL, task="lora", context=4096, micro_batch=1)
    flops_per_token = 6 * (P_70B - 128256 * 8192) + 4 * (2 * 2 * 80 * 8192 * (4096 + 1) / 2)
    compute = 16384 * flops_per_token / (165.2e12 * 0.45)
    comm = 4 * 3 * 2 * P_70B * 15 / 16 / (PCIE4 * 0.7 * 0.5)
    assert compute == pytest.approx(96.6, abs=0.05) and comm == pytest.approx(144.0, rel=HAND)
    assert est.compute_s_per_step == pytest.approx(compute, rel=1e-4)  # the same counting: float rounding only
    assert est.communication_s_per_step == pytest.approx(comm - compute, rel=5 * HAND)  # exposed part of 144.0 s
    assert est.tokens_per_s_per_gpu == pytest.approx(16384 / comm, rel=HAND)
    assert any("3 all-gathers" in f and "1 × 4096" in f for f in est.formulas), est.formulas


@pytest.mark.parametrize("zero,recompute,gathers", [(3, "full", 3), (3, "selective", 2), (3, "none", 2),
                                                    (2, "full", 0), (1, "full", 0)])
def test_gathers_per_micro_batch_fire_only_for_zero3(zero, recompute, gathers):
    est = estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu("l20"), 16, 1e9, CAL, task="full", context=4096,
                              recompute=recompute, zero=zero)
    lines = [f for f in est.formulas if "all-gathers" in f]
    if gathers:
        assert lines and f"{gathers} all-gathers" in lines[0] and "4 micro-batch(es)" in lines[0]
        assert any(f"gathered {gathers}× in every micro-batch" in a for a in est.assumptions)
    else:
        assert not lines


def test_smaller_micro_batches_gather_more_often():
    """Story 2's 32 × RTX 4090: at micro-batch 1 × 4096 the ZeRO-3 gathers run 4× per 16,384-token step and are
    exposed; at 4 × 4096 (one gather per step, what the estimate assumed before the review) they hide."""
    m, g = CAT.model("llama-3.1-70b"), CAT.gpu("rtx-4090")
    small = estimate_train_time(m, g, 32, 2e9, CAL, task="lora", context=4096, micro_batch=1)
    large = estimate_train_time(m, g, 32, 2e9, CAL, task="lora", context=4096, micro_batch=4)
    assert small.communication_s_per_step > 0 == large.communication_s_per_step
    assert small.wall > 1.3 * large.wall


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus]), mid=st.sampled_from(["llama-3-8b", "qwen2.5-72b", "gpt2"]),
       task=st.sampled_from(["pretrain", "full", "lora"]), zero=st.sampled_from([1, 2, 3]),
       n=st.integers(1, 64), seq=st.sampled_from([512, 2048, 4096, 6000]), b=st.integers(1, 16),
       extra=st.integers(1, 16))
def test_a_larger_micro_batch_is_never_slower_per_token(gid, mid, task, zero, n, seq, b, extra):
    m, g = CAT.model(mid), CAT.gpu(gid)
    a = estimate_train_time(m, g, n, 1e10, CAL, task=task, context=seq, zero=zero, micro_batch=b)
    c = estimate_train_time(m, g, n, 1e10, CAL, task=task, context=seq, zero=zero, micro_batch=b + extra)
    assert c.tokens_per_s >= a.tokens_per_s * (1 - 1e-12)


def test_bad_micro_batch_is_refused():
    from knowledge.errors import InputError

    with pytest.raises(InputError) as err:
        estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu("h100-sxm"), 8, 1e9, CAL, micro_batch=0)
    assert err.value.field == "micro_batch"


@pytest.mark.parametrize("rid", ["mpt-70b-h100-64", "mpt-70b-h100-32", "mpt-70b-a100-64", "mpt-70b-a100-40g-128"])
def test_network_model_is_not_slower_than_the_measured_multi_node_runs(rid):
    """MPT-70B with FSDP across 4–16 servers at the published micro-batch: the ring traffic of one micro-batch (2
    gathers, the recompute gather, 1 reduce-scatter of 2 × 64.9 B bytes) must fit in the time the run took for that
    micro-batch. (With every GPU's traffic on its own NIC instead of the server's eight, the 32 × H100 row at
    micro-batch 2 would need ~7.8 s of network per 4.6 s micro-batch — impossible.)"""
    from advisor.estimator.training import collective_bytes
    from knowledge.params import param_counts

    row = next(r for r in _training_rows() if r["id"] == rid)
    m, g = _validation_model(row["model"]), CAT.gpu(row["gpu"])
    micro_tokens = PUBLISHED_MICRO_BATCH[rid] * row["seq"]
    measured_s = micro_tokens / row["measured_tps_per_gpu"]
    per_micro, _, _ = collective_bytes(param_counts(m).total, "pretrain", 3, row["recompute"])
    comm_s, _ = data_parallel_seconds(g, row["count"], per_micro, CAL)
    assert comm_s < measured_s, f"{rid}: {comm_s:.2f} s of collectives per {measured_s:.2f} s micro-batch"


def test_validation_rows_hold_at_their_published_micro_batches():
    """The asserted rows run at micro-batch 1 in benchmarks/validate_speed.py (the most gathers); at the micro-batch
    each run used they stay within 25 % with the same constants."""
    for row in _training_rows():
        if row["id"] not in PUBLISHED_MICRO_BATCH:
            continue
        m, g = _validation_model(row["model"]), CAT.gpu(row["gpu"])
        est = estimate_train_time(m, g, row["count"], 1e9, CAL, context=row["seq"], task="pretrain",
                                  recompute=row["recompute"], precision=row["precision"],
                                  micro_batch=PUBLISHED_MICRO_BATCH[row["id"]])
        err = est.tokens_per_s_per_gpu / row["measured_tps_per_gpu"] - 1
        assert abs(err) <= 0.25, f"{row['id']}: {err:+.1%}"


# ------------------------------------------------------------------------------------------------------------
# R41: optimizer offload costs host time


def test_offload_time_from_first_principles():
    """Full fine-tune of Llama-2-7B on one RTX 4090 with the optimizer offloaded: per 16,384-token step the host
    updates all 6.74 B parameters at 1.8 B/s (DeepSpeedCPUAdam, measured) and PCIe 4.0 x16 carries 2 B of gradient
    down and 2 B of parameter up per parameter at 70 % of 31.5 GB/s; nothing of it hides behind compute.
    By hand: 6,738,415,616 / 1.8e9 = 3.744 s of host Adam + 4 × 6.738 GB / 22.06 GB/s = 1.222 s of PCIe = 4.966 s."""
    m, g = CAT.model("llama-2-7b"), CAT.gpu("rtx-4090")
    base = estimate_train_time(m, g, 1, 1e9, CAL, task="full", context=4096, zero=0)
    off = estimate_train_time(m, g, 1, 1e9, CAL, task="full", context=4096, zero=2, offload="optimizer")
    expected = P_7B / 1.8e9 + 4 * P_7B / (PCIE4 * 0.7)
    assert expected == pytest.approx(4.966, abs=0.002)
    assert off.offload_s_per_step == pytest.approx(expected, rel=HAND)
    assert base.offload_s_per_step == 0
    assert off.tokens_per_s_per_gpu == pytest.approx(16384 / (base.compute_s_per_step + expected), rel=HAND)
    assert any(f.startswith("offload") for f in off.formulas)
    assert not any(f.startswith("offload") for f in base.formulas)
    assert any("CPU Adam" in a for a in off.assumptions) and not any("CPU Adam" in a for a in base.assumptions)


def test_offload_is_shared_by_the_gpus_of_a_server():
    """2 × RTX 4090 (review q08, ZeRO-3 + optimizer offload): each GPU moves its half of the gradients and
    parameters over its own link, but both halves are updated by the same host CPUs.
    By hand: 3.744 s of host Adam + 0.611 s of PCIe = 4.355 s; on 16 GPUs in two servers each host updates half
    (1.872 s) and each link carries a sixteenth (0.076 s) = 1.948 s."""
    m, g = CAT.model("llama-2-7b"), CAT.gpu("rtx-4090")
    off = estimate_train_time(m, g, 2, 1e9, CAL, task="full", context=4096, zero=3, offload="optimizer")
    assert off.offload_s_per_step == pytest.approx(P_7B / 1.8e9 + 4 * P_7B / 2 / (PCIE4 * 0.7), rel=HAND)
    assert off.offload_s_per_step == pytest.approx(4.355, abs=0.005)
    # over two servers each host updates half
    off16 = estimate_train_time(m, g, 16, 1e9, CAL, task="full", context=4096, zero=3, offload="optimizer")
    assert off16.offload_s_per_step == pytest.approx(P_7B / 2 / 1.8e9 + 4 * P_7B / 16 / (PCIE4 * 0.7), rel=HAND)
    assert off16.offload_s_per_step == pytest.approx(1.948, abs=0.005)


def test_lora_offloads_only_the_adapters():
    """LoRA rank 16 on all linear layers of Llama-3.1-70B: r × (in + out) per projection, by hand per layer
    q, o 16 × 16,384; k, v 16 × 9216; gate, up, down 16 × 36,864 = 2,588,672; × 80 layers = 207,093,760 adapter
    parameters (0.29 % of the base). Host Adam 0.115 s + PCIe 4 × 207.1 MB / 8 GPUs / 22.06 GB/s = 0.005 s."""
    m, g = CAT.model("llama-3.1-70b"), CAT.gpu("rtx-4090")
    off = estimate_train_time(m, g, 8, 2e9, CAL, task="lora", context=4096, offload="optimizer")
    a = 80 * 16 * (2 * (8192 + 8192) + 2 * (8192 + 1024) + 3 * (8192 + 28672))
    assert a == 207_093_760
    assert off.offload_s_per_step == pytest.approx(a / 1.8e9 + 4 * a / 8 / (PCIE4 * 0.7), rel=HAND)
    assert off.offload_s_per_step < 0.05 * off.compute_s_per_step


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus]), mid=st.sampled_from(["llama-3-8b", "qwen2.5-72b", "gpt2"]),
       task=st.sampled_from(["pretrain", "full", "lora", "qlora"]), zero=st.sampled_from([0, 1, 2, 3]),
       n=st.integers(1, 64), b=st.integers(1, 8))
def test_offload_is_never_faster(gid, mid, task, zero, n, b):
    m, g = CAT.model(mid), CAT.gpu(gid)
    runs = [estimate_train_time(m, g, n, 1e10, CAL, task=task, context=2048, zero=zero, micro_batch=b, offload=o)
            for o in ("none", "optimizer", "all")]
    assert runs[0].tokens_per_s >= runs[1].tokens_per_s * (1 - 1e-12)
    assert runs[1].tokens_per_s >= runs[2].tokens_per_s * (1 - 1e-12)


def test_bad_offload_is_refused():
    from knowledge.errors import InputError

    with pytest.raises(InputError) as err:
        estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu("h100-sxm"), 8, 1e9, CAL, offload="nvme")
    assert err.value.field == "offload" and "optimizer" in err.value.accepted


# ------------------------------------------------------------------------------------------------------------
# R04: the calibrated MFU is a best case, and says so; cross-check against a published large run

# Touvron et al. 2023 (Llama 2), Table 2: A100-80GB GPU-hours of pre-training on 2.0T tokens, 4k context, 4M-token
# global batches, on Meta's RSC (InfiniBand) and production (RoCE) clusters, 200 Gb/s per GPU, 400 W / 350 W caps
LLAMA2_GPU_HOURS = {"llama-2-7b": 184_320, "llama-2-13b": 368_640, "llama-2-70b": 1_720_320}


@pytest.mark.parametrize("mid", sorted(LLAMA2_GPU_HOURS))
def test_prediction_is_a_best_case_against_llama2(mid):
    """Documented bound: the prediction lies below Meta's published GPU-hours and within 2× of them. The gap
    (1.47–1.63×; Meta's implied MFU 0.40–0.44 against our 0.64–0.65) is the distance between tuned single-job
    benchmark rows (llm-foundry MPT-7B on 8 A100: 64 % MFU) and a months-long production run: restarts after
    failures, checkpointing, evaluation, a 350 W power cap on part of the fleet (A100 SXM: 400 W), one 4,096-token
    sequence per GPU per step on ~1,000 GPUs, 2023 software. The assumptions state the 1.5–1.6× figure."""
    m = CAT.model(mid)
    est = estimate_train_time(m, CAT.gpu("a100-80g-sxm"), 1024, 2e12, CAL, context=4096, task="pretrain")
    ratio = LLAMA2_GPU_HOURS[mid] / est.gpu_hours
    assert 1.0 < ratio <= 2.0, f"{mid}: published {LLAMA2_GPU_HOURS[mid]:,} vs predicted {est.gpu_hours:,.0f}"
    assert round(ratio, 1) in (1.5, 1.6)  # the range the assumption text quotes
    assert any("1.5–1.6×" in a and "Llama 2" in a for a in est.assumptions)
    # the published figure implies an MFU of 6·N·D / (GPU-hours × peak) ≈ 0.4: below what llm-foundry's tuned
    # single-node A100 rows reach (0.51–0.64) — so the calibration is the upper end
    implied = est.flops_per_token * 2e12 / (LLAMA2_GPU_HOURS[mid] * 3600 * CAT.gpu("a100-80g-sxm").bf16_dense_flops)
    assert 0.35 < implied < est.mfu


@pytest.mark.parametrize("gid,precision,phrase", [("a100-80g-sxm", "bf16", "a best case"),
                                                  ("h100-sxm", "bf16", "a best case"),
                                                  ("h100-sxm", "fp8", "a best case"),
                                                  ("rtx-4090", "bf16", "stated prior"),
                                                  ("l20", "bf16", "stated prior")])
def test_mfu_source_says_where_the_mfu_comes_from(gid, precision, phrase):
    est = estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu(gid), 8, 1e9, CAL, precision=precision)
    assert phrase in est.mfu_source
    if phrase == "a best case":
        assert "llm-foundry/Megatron" in est.mfu_source and "multi-node runs reach less" in est.mfu_source


def test_a_user_mfu_carries_no_best_case_caveat():
    est = estimate_train_time(CAT.model("llama-3-8b"), CAT.gpu("h100-sxm"), 8, 1e9, CAL, mfu=0.35)
    assert est.mfu_source == "user override"
    assert not any("best case" in a for a in est.assumptions)
