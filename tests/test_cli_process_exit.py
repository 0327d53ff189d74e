"""The CLI run as its own process (`python -m ui.cli.entry`, the `gpu-advisor` console script): a one-shot command
ends with `os._exit` after flushing (ui.cli.entry.run_process), so nothing it printed may be lost and its exit status
must be the command's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith("GPU_ADVISOR_")}, "PYTHONPATH": str(ROOT)}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ui.cli.entry", *args], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=120)


def test_a_large_answer_into_a_pipe_arrives_whole() -> None:
    # ~150 KB of JSON into a pipe: block-buffered, so an exit without flushing would cut it short
    out = _cli("gpus", "--json")
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) > 65_536
    gpus = json.loads(out.stdout)
    assert any(g["id"] == "h100-sxm" for g in gpus)


def test_the_exit_status_is_the_commands_own() -> None:
    bad = _cli("estimate", "--model", "no-such-model", "--gpu", "h100-sxm", "--json")
    assert bad.returncode == 2
    assert bad.stderr.startswith("gpu-advisor: error:") and "Traceback" not in bad.stderr
    usage = _cli("recommend", "--concurrency", "lots")
    assert usage.returncode == 2 and "is not an integer" in usage.stderr


def test_a_reader_that_goes_away_is_no_error() -> None:
    # `gpu-advisor gpus --json | head -c 100`: the rest of the answer has nowhere to go
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "gpus", "--json"], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    head = proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert head.startswith(b"[")
    assert "Traceback" not in err and "Exception ignored" not in err


def test_the_console_script_is_the_process_entry_point() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["gpu-advisor"] == "ui.cli.entry:run_process"


def test_indented_json_is_byte_for_byte_what_json_writes() -> None:
    # ui.cli.jsonout lays out json's compact text with msgspec.json.format instead of json's pure-Python indenting
    # encoder: the same bytes, floats and escapes as json wrote them
    import math

    from knowledge.errors import AdvisorError
    from ui.cli import jsonout

    tricky = {"a": [], "b": {}, "c": [1.0, 1e-05, 2.5e20, -0.0, 10**20, "中文 \"quoted\" \\ \n\t\u2028"],
              "d": {"x": {"y": [{}, [[]], None, True, False]}}, "": "empty key", "e": 0.1 + 0.2}
    assert jsonout.dumps(tricky) == json.dumps(tricky, ensure_ascii=False, indent=2, allow_nan=False)
    out = _cli("gpus", "--json")
    data = json.loads(out.stdout)
    assert jsonout.dumps(data) == json.dumps(data, ensure_ascii=False, indent=2)
    assert jsonout.dumps(tricky, indent=None) == json.dumps(tricky, ensure_ascii=False)
    for bad in (math.nan, math.inf):
        try:
            jsonout.dumps({"x": bad})
        except AdvisorError:
            continue
        raise AssertionError(f"{bad} was written")
