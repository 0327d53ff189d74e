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

CAT = load_catalog()
CAL = load_calibration()
PROPS = settings(max_examples=30, deadline=None, derandomize=True, database=None)
GBIT = 1e9 / 8  # bytes/s in one Gb/s


def as_pcie_server(gpu_id: str):
    """The same card (same FLOPS, memory, PCIe generation) in a server of PCIe cards: no NVLink, no baseboard."""
    g = CAT.gpu(gpu_id)
    return g.model_copy(update={"interface": "pcie", "link_kind": "none", "nvlink_bytes_per_s": 0.0,
                                "nvlink": "none", "form_factor": "PCIe dual-slot"})


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
def test_baseboard_servers_have_one_nic_per_gpu_of_their_generation(gid, gbit):
    # DGX-1: 4 × 100 Gb/s EDR for 8 GPUs; DGX A100: 8 × 200 Gb/s HDR; DGX H100/B200: 8 × 400 Gb/s NDR
    bw, desc = inter_node_bytes_per_s(CAT.gpu(gid), 8, CAL)
    assert bw == pytest.approx(gbit * GBIT)
    assert "per GPU" in desc


@pytest.mark.parametrize("gid", ["rtx-4090", "l20", "l40s", "a100-40g-pcie"])
@pytest.mark.parametrize("per_node", [5, 8])
def test_pcie_servers_share_one_figure(gid, per_node):
    # one 200 Gb/s NIC for the whole server (Fire-Flyer 2), shared by the job's GPUs in it
    bw, desc = inter_node_bytes_per_s(CAT.gpu(gid), per_node, CAL)
    assert bw == pytest.approx(200 * GBIT / per_node)
    assert "per server" in desc


def test_the_chosen_figures_are_stated_in_the_assumptions():
    m = CAT.model("llama-3.1-70b")
    hgx = estimate_train_time(m, CAT.gpu("h20"), 16, 2e9, CAL, task="lora", seq_len=4096)
    pcie = estimate_train_time(m, CAT.gpu("rtx-4090"), 16, 2e9, CAL, task="lora", seq_len=4096)
    one = estimate_train_time(m, CAT.gpu("rtx-4090"), 8, 2e9, CAL, task="lora", seq_len=4096)
    assert any("baseboard" in a and "400 Gb/s" in a for a in hgx.assumptions), hgx.assumptions
    assert any("PCIe servers" in a and "200 Gb/s" in a for a in pcie.assumptions), pcie.assumptions
    assert not any("servers" in a for a in one.assumptions)  # one server: no network assumed


def test_the_same_card_in_pcie_servers_is_slower_across_servers():
    """Equal FLOPS and memory: an H100 on an HGX baseboard against the same chip in 8-card PCIe servers. Inside one
    server the PCIe copy pays PCIe instead of NVLink; across servers its GPUs share one 200 Gb/s network instead of
    one 400 Gb/s NIC each, and the full fine-tune's FSDP traffic no longer hides behind compute."""
    m = CAT.model("llama-3-8b")
    for n in (16, 32):
        hgx = estimate_train_time(m, CAT.gpu("h100-sxm"), n, 1e10, CAL, task="full", seq_len=4096)
        pcie = estimate_train_time(m, as_pcie_server("h100-sxm"), n, 1e10, CAL, task="full", seq_len=4096)
        assert hgx.compute_s_per_step == pytest.approx(pcie.compute_s_per_step)  # same chip, same compute
        assert pcie.communication_s_per_step > hgx.communication_s_per_step
        assert pcie.tokens_per_s < hgx.tokens_per_s


def test_inter_node_time_from_line_rates():
    """16 × RTX 4090 in two PCIe servers moving 100 GB: the network share is 200 Gb/s / 8 at 92 % NCCL efficiency
    for the half that crosses servers; inside a server 7/8 over PCIe 4.0 x16 through host memory."""
    v = 100e9
    t, desc = data_parallel_seconds(CAT.gpu("rtx-4090"), 16, v, CAL)
    inter = v * (1 / 2) / (200 * GBIT / 8 * 0.92)
    intra = v * 7 / 8 / (31.5e9 * 0.7 * 0.5)
    assert t == pytest.approx(max(inter, intra), rel=1e-9)
    assert "2 servers" in desc


@PROPS
@given(gid=st.sampled_from([g.id for g in CAT.gpus if server_class(g) == "baseboard" and g.vendor == "NVIDIA"]),
       mid=st.sampled_from(["llama-3-8b", "qwen2.5-72b", "gpt2"]),
       task=st.sampled_from(["pretrain", "full", "lora"]), n=st.integers(9, 128))
def test_a_pcie_server_is_never_faster_than_a_baseboard_at_equal_flops(gid, mid, task, n):
    m = CAT.model(mid)
    hgx = estimate_train_time(m, CAT.gpu(gid), n, 1e10, CAL, task=task, seq_len=2048)
    pcie = estimate_train_time(m, as_pcie_server(gid), n, 1e10, CAL, task=task, seq_len=2048)
    assert pcie.tokens_per_s <= hgx.tokens_per_s * (1 + 1e-12)
