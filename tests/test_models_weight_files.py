"""Exact weight bytes from a safetensors index (`metadata.total_size`) and a GGUF header (gguf's writer builds a
tiny file here; bytes per tensor checked by hand against llama.cpp's block sizes: Q4_K 144 B / 256 weights,
IQ1_S 50 B / 256, Q8_0 34 B / 32, F16 2 B, F32 4 B)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from knowledge.errors import InputError
from knowledge.weight_files import read_gguf, read_safetensors_index, read_weight_file

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny_gguf(tmp_path: Path) -> Path:
    gguf = pytest.importorskip("gguf")
    path = tmp_path / "tiny.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny")
    w.add_tensor("token_embd.weight", np.zeros((4, 64), dtype=np.float32))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((8, 32), dtype=np.float16))
    # quantised tensors as raw blocks: 2 rows of one Q4_K super-block, 3 rows of one IQ1_S block, 1 row of 2 Q8_0
    w.add_tensor("blk.0.ffn_up.weight", np.zeros((2, 144), dtype=np.uint8), raw_dtype=gguf.GGMLQuantizationType.Q4_K)
    w.add_tensor("blk.0.ffn_down.weight", np.zeros((3, 50), dtype=np.uint8), raw_dtype=gguf.GGMLQuantizationType.IQ1_S)
    w.add_tensor("output.weight", np.zeros((1, 68), dtype=np.uint8), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def test_gguf_header_bytes_and_params(tiny_gguf: Path):
    info = read_gguf(tiny_gguf)
    assert info.kind == "gguf" and info.architecture == "llama" and info.name == "tiny" and info.tensors == 5
    assert info.types == {"F32": 4 * 64 * 4, "F16": 8 * 32 * 2, "Q4_K": 2 * 144, "IQ1_S": 3 * 50, "Q8_0": 68}
    assert info.total_bytes == 1024 + 512 + 288 + 150 + 68
    assert info.params == 256 + 256 + 2 * 256 + 3 * 256 + 64
    assert read_weight_file(tiny_gguf) == info  # recognised by its magic bytes, whatever the name


def test_safetensors_index_total_size(tmp_path: Path):
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 16_060_522_496},
                                 "weight_map": {"a.weight": "model-00001.safetensors", "b": "model-00002.safetensors"}}))
    info = read_safetensors_index(index)
    assert info.total_bytes == 16_060_522_496 and info.tensors == 2
    assert read_weight_file(tmp_path) == info  # a directory: its model.safetensors.index.json


@pytest.mark.parametrize("content,message", [
    ("{}", "metadata.total_size"),
    ('{"metadata": {"total_size": -1}}', "metadata.total_size"),
    ("not json", "not a GGUF file either"),
])
def test_bad_index_files_are_refused(tmp_path: Path, content: str, message: str):
    path = tmp_path / "x.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_weight_file(path)


def test_missing_file_is_refused(tmp_path: Path):
    with pytest.raises(InputError, match="cannot read weights file"):
        read_weight_file(tmp_path / "none.gguf")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "ui.cli.entry", "estimate", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)


def test_estimate_uses_the_file_size(tmp_path: Path):
    index = tmp_path / "model.safetensors.index.json"
    size = 70 * 2**30  # e.g. a checkpoint with extra tensors: 70 GiB instead of the computed 60.8 GiB
    index.write_text(json.dumps({"metadata": {"total_size": size}, "weight_map": {}}))
    out = json.loads(_cli("--model", "gpt-oss-120b", "--weights-file", str(index), "--json").stdout)
    assert out["per_gpu_bytes"]["weights"] == size
    assert out["weights_file"]["total_bytes"] == size
    assert any("read from the file" in a for a in out["assumptions"])
    tp2 = json.loads(_cli("--model", "gpt-oss-120b", "--weights-file", str(index), "--tp", "2", "--gpus", "2", "--json").stdout)
    assert size / 2 <= tp2["per_gpu_bytes"]["weights"] < size * 0.52  # halves, bar the replicated norms


def test_estimate_refuses_a_bad_weights_file(tmp_path: Path):
    bad = tmp_path / "w.bin"
    bad.write_bytes(b"\x00\x01garbage")
    r = _cli("--model", "gpt-oss-120b", "--weights-file", str(bad))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
