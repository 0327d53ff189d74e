"""`gpu-advisor gpus` / `gpu-advisor models`: the JSON contract of DESIGN.md, tables with units, `show` with
sources, one-line errors with exit status 2, and no heavy imports."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from knowledge.catalog import PACKAGE_DATA
from ui.cli.entry import main

ROOT = Path(__file__).resolve().parent.parent
GPU_KEYS = {"id", "name", "aliases", "memory_bytes", "bandwidth_bytes_per_s", "bf16_dense_flops", "tdp_w",
            "nvlink_bytes_per_s"}
MODEL_KEYS = {"id", "name", "aliases", "params", "active_params"}


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _cli(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ui.cli.entry", *argv], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_gpus_json_contract(capsys):
    code, out, _ = _run(capsys, "gpus", "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) >= 40
    for row in rows:
        assert GPU_KEYS <= set(row)
    g = {r["id"]: r for r in rows}
    assert g["h100-sxm"]["bf16_dense_flops"] == pytest.approx(989.4e12)
    assert g["rtx-4090"]["nvlink_bytes_per_s"] == 0
    assert g["a100-80g-sxm"]["memory_bytes"] == 80 * 2**30
    assert "4090" in g["rtx-4090"]["aliases"]


def test_models_json_contract(capsys):
    code, out, _ = _run(capsys, "models", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    assert len(rows) >= 30
    for row in rows.values():
        assert MODEL_KEYS <= set(row)
    assert rows["llama-2-7b"]["params"] == 6_738_415_616
    assert rows["llama-2-7b"]["active_params"] == 6_738_415_616
    assert rows["mixtral-8x7b"]["active_params"] < rows["mixtral-8x7b"]["params"]


def test_gpu_table_has_units_and_dense_note(capsys):
    code, out, _ = _run(capsys, "gpus")
    assert code == 0
    header = out.splitlines()[0]
    for unit in ("GiB", "TB/s", "TFLOPS", "W"):
        assert unit in header
    assert "dense" in out and "rtx-2080ti-22g" in out


def test_min_memory_filter(capsys):
    _, out, _ = _run(capsys, "gpus", "--json", "--min-memory", "48")
    rows = json.loads(out)
    assert rows and all(r["memory_bytes"] >= 48 * 2**30 for r in rows)
    assert "rtx-4090" not in {r["id"] for r in rows} and "l20" in {r["id"] for r in rows}


def test_region_cn_shows_dated_status_and_substitutes(capsys):
    _, out, _ = _run(capsys, "gpus", "--region", "cn")
    line = next(row for row in out.splitlines() if row.startswith("rtx-4090 "))
    assert "restricted since 2023-10-17" in line and "rtx-4090d" in line
    a800 = next(row for row in out.splitlines() if row.startswith("a800-80g-sxm"))
    assert "restricted since 2023-10-17" in a800
    assert "not legal advice" in out


def test_show_gpu_prints_every_field_with_sources(capsys):
    code, out, _ = _run(capsys, "gpus", "show", "4090")
    assert code == 0
    assert "165.2 TFLOPS dense (BF16/FP16, FP32 accumulate)" in out
    assert "330.3 TFLOPS dense (FP16, FP16 accumulate)" in out
    assert "[ada-wp" in out and "Sources:" in out and "https://" in out
    assert "2023-10-17" in out and "rtx-4090d" in out
    for field in ("memory_bytes", "bandwidth_bytes_per_s", "tdp_w", "nvlink_bytes_per_s", "pcie_gen"):
        assert field in out


def test_show_gpu_json_includes_sources(capsys):
    _, out, _ = _run(capsys, "gpus", "show", "A800", "--json")
    data = json.loads(out)
    assert data["id"] == "a800-80g-sxm"
    assert data["china"]["restricted_since"] == "2023-10-17"
    for ids in data["cite"].values():
        assert all(i in data["sources"] for i in ids)


def test_show_model(capsys):
    code, out, _ = _run(capsys, "models", "show", "Qwen2.5-72B-Instruct")
    assert code == 0
    assert "72,706,203,648" in out and "qwen2.5-72b-config" in out
    _, out, _ = _run(capsys, "models", "show", "deepseek-r1", "--json")
    data = json.loads(out)
    assert data["active_params"] < data["params"] and data["sources"]


def test_unknown_id_did_you_mean_exit_2(capsys):
    code, out, err = _run(capsys, "gpus", "show", "rtx 4091")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "did you mean" in err and "rtx-4090" in err
    code, _, err = _run(capsys, "models", "show", "llama-2-71b")
    assert code == 2 and "llama-2-70b" in err


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as info:
        main(["gpus", "--region", "eu"])
    assert info.value.code == 2
    assert "--region" in capsys.readouterr().err
    code, _, err = _run(capsys, "gpus", "--min-memory", "-4")
    assert code == 2 and "--min-memory" in err
    code, _, err = _run(capsys, "gpus", "show", "a", "b")
    assert code == 2 and "usage" in err


def test_no_gradio_or_langchain_import():
    probe = ("import sys, io, contextlib\n"
             "from ui.cli.entry import main\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    assert main(['gpus', '--json']) == 0 and main(['models']) == 0 and main(['gpus', 'show', 'h20']) == 0\n"
             "heavy = [m for m in sys.modules if m.split('.')[0] in ('gradio', 'langchain', 'langchain_openai', 'openai', 'slack_bolt', 'durable')]\n"
             "print(heavy)\n")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_bad_data_file_one_line_exit_2(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(PACKAGE_DATA, data)
    path = data / "gpus" / "h20.yaml"
    entry = yaml.safe_load(path.read_text())
    entry["memory_bytes"] = "ninety-six"
    path.write_text(yaml.safe_dump(entry, allow_unicode=True))
    result = _cli("gpus", env={"GPU_ADVISOR_DATA": str(data)})
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "gpus/h20.yaml" in result.stderr and "memory_bytes" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_start_up_time():
    t0 = time.perf_counter()
    result = _cli("gpus", "--json")
    elapsed = time.perf_counter() - t0
    assert result.returncode == 0
    assert elapsed < 5.0, f"gpu-advisor gpus --json took {elapsed:.2f} s"
