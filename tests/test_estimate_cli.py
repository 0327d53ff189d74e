"""`gpu-advisor estimate`: the JSON contract, human output, bad input (one line, exit 2) and start-up time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ui.cli.entry import main

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_KEYS = ["params", "active_params", "per_gpu_bytes", "cpu_bytes", "formulas", "assumptions"]
PART_KEYS = ["weights", "gradients", "optimizer_states", "activations", "kv_cache", "overhead", "reference_model",
             "total"]  # reference_model: preference training's frozen copy (added with DPO sizing)


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(["estimate", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_contract(capsys):
    rc, out, _ = _run(capsys, "--model", "llama-3-8b", "--context", "8192", "--json")
    assert rc == 0
    data = json.loads(out)
    assert list(data) == CONTRACT_KEYS
    assert list(data["per_gpu_bytes"]) == PART_KEYS and list(data["cpu_bytes"]) == PART_KEYS
    assert all(isinstance(v, int) for v in data["per_gpu_bytes"].values())
    assert data["per_gpu_bytes"]["total"] == sum(data["per_gpu_bytes"][k] for k in PART_KEYS[:-1])
    assert data["params"] == 8_030_261_248
    # KV: 2 × 32 layers × 8 heads × 128 × 2 B × 8192 tokens = 1 GiB exactly
    assert data["per_gpu_bytes"]["kv_cache"] == 2**30
    assert data["formulas"] and data["assumptions"]


def test_json_training_offload(capsys):
    rc, out, _ = _run(capsys, "--model", "llama-3-8b", "--task", "full", "--zero", "3", "--offload", "all",
                      "--gpus", "8", "--json")
    data = json.loads(out)
    assert rc == 0 and data["cpu_bytes"]["total"] > 0 and data["per_gpu_bytes"]["optimizer_states"] == 0


def test_fit_against_gpu(capsys):
    rc, out, _ = _run(capsys, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--json")
    data = json.loads(out)
    assert rc == 0 and data["fit"]["fits"] is False and data["fit"]["headroom_bytes"] < 0
    rc, out, _ = _run(capsys, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "2", "--gpus", "2")
    assert rc == 0 and "fits" in out and "GiB" in out and "0.9 × capacity" in out


def test_human_output(capsys):
    rc, out, _ = _run(capsys, "--model", "qwen2.5-7b", "--task", "qlora", "--context", "2048")
    assert rc == 0
    assert "per GPU (1 GiB = 2^30 bytes)" in out and "total" in out and "assumptions:" in out
    assert "NF4" in out or "nf4" in out


def test_config_json(tmp_path, capsys):
    cfg = {"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16, "num_attention_heads": 32,
           "num_key_value_heads": 8, "intermediate_size": 8192, "vocab_size": 128256,
           "max_position_embeddings": 131072, "tie_word_embeddings": True, "torch_dtype": "bfloat16"}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    rc, out, _ = _run(capsys, "--config", str(p), "--json")
    assert rc == 0 and json.loads(out)["params"] > 1e9


@pytest.mark.parametrize("argv, names", [
    (["--model", "no-such-model"], "model"),
    (["--model", "llama-2-7b", "--context", "0"], "--context"),
    (["--model", "llama-2-7b", "--batch", "-3"], "--batch"),
    (["--model", "qwen2.5-7b", "--task", "lora", "--lora-rank", "4000"], "lora"),
    (["--model", "llama-2-7b", "--task", "qlora", "--weights", "fp32"], "--weights"),
    (["--model", "llama-2-7b", "--tp", "64", "--gpus", "64"], "tensor parallelism"),
    (["--model", "llama-2-7b", "--tp", "3", "--gpus", "3"], "divide"),
    (["--model", "llama-2-7b", "--tp", "8", "--gpus", "4"], "--tp"),
    (["--model", "llama-2-7b", "--task", "full", "--offload", "optimizer"], "offload"),
    (["--model", "llama-2-7b", "--weights", "q9"], "--weights"),
    (["--model", "llama-2-7b", "--gpu", "no-such-gpu"], "gpu"),
])
def test_bad_input_exit_2(capsys, argv, names):
    with pytest.raises(SystemExit) as exc:
        rc = main(["estimate", *argv])
        raise SystemExit(rc)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gpu-advisor: error:")
    assert names.lower() in err.lower()
    assert "Traceback" not in err


def test_malformed_config(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    rc, _, err = _run(capsys, "--config", str(bad))
    assert rc == 2 and "not valid JSON" in err
    missing = tmp_path / "c2.json"
    missing.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096}))
    rc, _, err = _run(capsys, "--config", str(missing))
    assert rc == 2 and "missing key" in err


def test_process_starts_fast_without_heavy_imports():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = ("import sys, time; t = time.perf_counter(); from ui.cli.entry import main; "
            "rc = main(['estimate', '--model', 'llama-3-8b', '--json']); "
            "heavy = [m for m in ('gradio', 'langchain', 'langchain_core', 'slack_bolt', 'durable', 'openai') "
            "if m in sys.modules]; print(heavy, file=sys.stderr); sys.exit(rc)")
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    elapsed = time.perf_counter() - t
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "[]"
    assert json.loads(proc.stdout)["params"] > 0
    assert elapsed < 3.0  # generous for a loaded 2-core CI box; benchmarks/bench_estimate.py reports the real figure
