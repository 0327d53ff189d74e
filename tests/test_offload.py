"""llama.cpp partial offload (advisor/estimator/offload.py): published -ngl measurements within ±30%, the layer
split and RAM, the CLI (`--offload layers`, `--ngl`, `--host-bandwidth`, `--host-ram`) and its bad input.

Rows and sources: benchmarks/speed_validation.yaml `offload:` (llmfit RTX 2080 community runs; InventiveHQ's RTX 5060
Ti -ngl sweep); `python benchmarks/validate_speed.py` prints them in their own table.
"""

from __future__ import annotations

import json
import statistics

import pytest

from advisor.estimator.calibration import load_calibration
from advisor.estimator.offload import Host, default_host, offload_for
from advisor.workload import Workload
from benchmarks.validate_speed import TOLERANCE, predict_all
from knowledge.catalog import load_catalog
from knowledge.errors import InputError
from ui.cli.entry import main

ROWS = predict_all(kinds=("offload",))
CAT = load_catalog()
CALIB = load_calibration()


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_offload_row_within_30_percent(row):
    assert TOLERANCE["offload"] == 0.30
    assert abs(row.error) <= 0.30, (f"{row.id}: predicted {row.predicted:.2f} tok/s, measured {row.measured:.2f} "
                                    f"({row.error:+.1%}; source {row.source})")


def test_offload_rows_cover_several_ngl_values_and_two_hosts():
    assert len(ROWS) >= 10
    assert len({r.setting for r in ROWS if r.gpu == "rtx-5060-ti-16g"}) >= 6
    assert len({r.gpu for r in ROWS}) >= 2
    assert statistics.median(abs(r.error) for r in ROWS) <= 0.12


def _plan(model: str, gpu: str, weights: str = "q4_k_m", ngl: int | None = None, **host):
    g = CAT.gpu(gpu)
    h = default_host(g, CALIB, **host)
    return offload_for(CAT.model(model), g, 1, Workload(task="inference", weights=weights, context=4096), CALIB, h,
                       ngl=ngl)


def test_70b_q4_k_m_on_one_24gb_card():
    """llama.cpp #2496 (mirek190, RTX 3090, 70B q4_K_M): about 40 layers on the card; the rest in RAM."""
    p = _plan("llama-3.1-70b", "rtx-3090")
    assert 40 <= p.ngl <= 48 and p.cpu_layers == 80 - p.ngl and not p.output_on_gpu
    assert p.gpu_bytes_per_gpu <= CAT.gpu("rtx-3090").memory_bytes
    # Q4_K_M 70B ≈ 39.6 GiB of weights: what is not on the GPU is in RAM
    assert 15 * 2**30 < p.system_ram_bytes < 25 * 2**30
    assert 1.5 < p.decode_tokens_per_s < 4.0  # dual-channel DDR5 host class: CPU layers dominate
    assert p.cpu_part_s > 5 * p.gpu_part_s


def test_more_gpu_layers_are_faster_and_host_bandwidth_scales_the_cpu_part():
    rates = [_plan("qwen2.5-14b", "rtx-3060", ngl=n).decode_tokens_per_s for n in (0, 10, 20, 30, 40, 49)]
    assert rates == sorted(rates)
    slow = _plan("llama-3.1-70b", "rtx-4090", bandwidth_bytes_per_s=50e9)
    fast = _plan("llama-3.1-70b", "rtx-4090", bandwidth_bytes_per_s=100e9)
    assert slow.cpu_part_s == pytest.approx(2 * fast.cpu_part_s)
    assert slow.ngl == fast.ngl


def test_host_classes_are_jedec_channel_arithmetic():
    hm = CALIB.inference.host_memory
    assert hm.classes["desktop-ddr5"].bytes_per_s == pytest.approx(2 * 5600e6 * 8)  # 89.6 GB/s
    assert hm.classes["hedt-ddr4"].bytes_per_s == pytest.approx(102.4e9)
    assert "assumed" in default_host(CAT.gpu("rtx-4090"), CALIB).label
    assert default_host(CAT.gpu("rtx-4090"), CALIB, bandwidth_bytes_per_s=60e9).stated


def test_moe_decode_reads_only_the_routed_experts_it_uses():
    p = _plan("mixtral-8x7b", "rtx-4090")
    dense_equiv = _plan("llama-3.1-70b", "rtx-4090")
    assert p.cpu_layers > 0
    assert p.decode_tokens_per_s > 2 * dense_equiv.decode_tokens_per_s  # 2 of 8 experts per token


def test_a_model_that_fits_needs_no_offload():
    p = _plan("llama-3.1-8b", "rtx-4090")
    assert p.full_offload and p.ngl == 33 and p.cpu_part_s == 0


def test_no_host_memory_to_spare_is_an_input_error_in_both_languages():
    with pytest.raises(InputError) as err:
        _plan("llama-3.1-70b", "rtx-4090", ram_bytes=8 * 2**30)
    assert err.value.field == "host_ram" and "no host memory to spare" in str(err.value)
    assert "GiB" in err.value.localized("zh") and "系统内存" in err.value.localized("zh")


@pytest.mark.parametrize("kwargs,field", [({"bandwidth_bytes_per_s": 0.0}, "host_bandwidth"),
                                          ({"bandwidth_bytes_per_s": -5e9}, "host_bandwidth"),
                                          ({"bandwidth_bytes_per_s": float("nan")}, "host_bandwidth"),
                                          ({"ram_bytes": 0}, "host_ram")])
def test_bad_host_values(kwargs, field):
    with pytest.raises(InputError) as err:
        default_host(CAT.gpu("rtx-4090"), CALIB, **kwargs)
    assert err.value.field == field and "accepted" in str(err.value) and err.value.message_zh


def test_ngl_beyond_the_layer_count():
    with pytest.raises(InputError) as err:
        _plan("llama-3.1-70b", "rtx-4090", ngl=82)
    assert err.value.field == "ngl" and "0 … 81" in str(err.value) and "0 … 81" in err.value.localized("zh")
    assert _plan("llama-3.1-70b", "rtx-4090", ngl=0).gpu_layers == 0


def test_explicit_host_object():
    h = Host("test", 40e9, 64 * 2**30, stated=True)
    p = offload_for(CAT.model("qwen2.5-14b"), CAT.gpu("rtx-3060"), 1, Workload(task="inference", weights="q4_k_m"),
                    CALIB, h, ngl=20)
    assert p.host is h and p.gpu_layers == 20 and p.fits


# ---------------------------------------------------------------- CLI


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


BASE = ("--model", "llama-3.1-70b", "--gpu", "rtx-4090", "--weights", "q4_k_m")


def test_cli_throughput_offload_json(capsys):
    code, out, err = run(capsys, "throughput", *BASE, "--offload", "layers", "--host-bandwidth", "76.8", "--json")
    assert code == 0, err
    data = json.loads(out)
    for key in ("decode_tokens_per_s", "decode_tokens_per_s_total", "prefill_tokens_per_s", "ttft_s", "bound",
                "formulas"):
        assert key in data
    off = data["offload"]
    assert off["ngl"] + off["cpu_layers"] == 80 and off["host_bandwidth_bytes_per_s"] == pytest.approx(76.8e9)
    assert data["bound"] == "host-memory" and off["system_ram_bytes"] > 10 * 2**30


def test_cli_estimate_offload_human(capsys):
    code, out, err = run(capsys, "estimate", *BASE, "--offload", "layers", "--host-ram", "64")
    assert code == 0, err
    assert "-ngl" in out and "system RAM" in out and "of 64 GiB" in out and "tokens/s" in out


def test_cli_ngl_alone_implies_offload(capsys):
    code, out, err = run(capsys, "throughput", *BASE, "--ngl", "40", "--json")
    assert code == 0, err
    assert json.loads(out)["offload"]["gpu_layers"] == 40


@pytest.mark.parametrize("extra,needle", [
    (("--ngl", "82"), "--ngl 82 is beyond"),
    (("--ngl", "-1"), "--ngl"),
    (("--host-bandwidth", "0"), "--host-bandwidth"),
    (("--host-bandwidth", "-10"), "--host-bandwidth"),
    (("--host-bandwidth", "nan"), "--host-bandwidth"),
    (("--host-ram", "8"), "no host memory to spare"),
    (("--host-ram", "0"), "--host-ram"),
    (("--offload", "layers", "--concurrency", "4"), "batch 1"),
])
def test_cli_bad_offload_input_is_one_line_exit_2(capsys, extra, needle):
    code, out, err = run(capsys, "throughput", *BASE, *extra)
    assert code == 2 and out == ""
    assert needle in err and "accepted" in err and len(err.strip().splitlines()) == 1, err


def test_cli_estimate_offload_needs_a_gpu_and_inference(capsys):
    code, _, err = run(capsys, "estimate", "--model", "llama-3.1-70b", "--offload", "layers")
    assert code == 2 and "--gpu" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "estimate", *BASE[:4], "--task", "lora", "--offload", "layers")
    assert code == 2 and "--task" in err


def test_gpu_memory_at_each_ngl_matches_the_measured_vram():
    """InventiveHQ's sweep also reports VRAM used at each -ngl: the GPU side of the split (layers with their 4096-token
    KV, CUDA context, compute buffer) within 15% (−ngl 0, only the CUDA context: +13%; 8 … 40 layers: ≤ 3%)."""
    from benchmarks.validate_speed import gpu, load_rows, model

    rows = [r for r in load_rows()["offload"] if "vram_mib" in r]
    assert len(rows) >= 6
    for r in rows:
        p = offload_for(model(r["model"]), gpu(r["gpu"]), 1,
                        Workload(task="inference", weights=r["weights"], context=r["context"]), CALIB,
                        Host("row", r["host_gbs"] * 1e9, stated=True), ngl=r["ngl"])
        got = p.gpu_bytes_per_gpu / 2**20
        tol = 0.15 if r["ngl"] == 0 else 0.05
        assert abs(got / r["vram_mib"] - 1) <= tol, (r["id"], round(got), r["vram_mib"])


def test_auto_ngl_leaves_llama_cpps_fit_margin():
    """-ngl as llama.cpp's --fit picks it: 1 GiB stays free on the card (-fitt default 1024 MiB)."""
    p = _plan("llama-3.1-70b", "rtx-4090")
    free = CAT.gpu("rtx-4090").memory_bytes - p.gpu_bytes_per_gpu
    per_layer = (p.gpu_weights_bytes + p.gpu_kv_bytes) / p.gpu_layers
    assert 2**30 <= free < 2**30 + per_layer
