"""Start-up cost of the `gpu-advisor` CLI: wall time and CPU time per command, cold and warm catalog cache.

    .venv/bin/python benchmarks/bench_cli.py [--repeat 10] [--only gpus,estimate] [--no-imports]

Each command runs as a fresh process, `python -m ui.cli ...` with this checkout first on the path (the console
script `gpu-advisor` does the same work). "cold": the catalog snapshot cache is emptied before every run (the YAML
files are parsed and validated, and the snapshot is written); "warm": the snapshot written by a previous run is
read. Both use a throw-away cache directory ($GPU_ADVISOR_CACHE_DIR), never the user's. Byte-code is written to a
throw-away $PYTHONPYCACHEPREFIX and warmed by one untimed run, as for an installed package (this sandbox sets
PYTHONDONTWRITEBYTECODE, which recompiles every project module on each start; --no-bytecode measures that).
Printed per command: p50 and best wall time over N runs, and p50 CPU time (user + system of the child process;
less sensitive than wall time to other processes on a shared machine). `python -c pass` and `--help` give the
floor: the interpreter with the venv's site-packages, and the CLI module alone.
Then `python -X importtime` of `gpus --json`, `estimate` and `recommend` (warm cache): the heaviest imports.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "ui.cli"]

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "--help": [*CLI, "--help"],
    "gpus": [*CLI, "gpus", "--json"],
    "models": [*CLI, "models", "--json"],
    "estimate": [*CLI, "estimate", "--model", "llama-3-70b", "--context", "8192", "--tp", "2", "--gpus", "2",
                 "--gpu", "h100-sxm", "--json"],
    "throughput": [*CLI, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--concurrency", "32", "--json"],
    "train-time": [*CLI, "train-time", "--model", "llama-3-8b", "--tokens", "100B", "--gpu", "h100-sxm",
                   "--count", "64", "--json"],
    "tco": [*CLI, "tco", "--gpu", "h100-sxm", "--count", "8", "--years", "3", "--currency", "USD", "--json"],
    "recommend": [*CLI, "recommend", "--model", "qwen2.5-32b", "--concurrency", "30", "--context", "8192",
                  "--region", "cn", "--json"],
}
IMPORT_PROFILES = ("gpus", "estimate", "recommend")


def _run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # like wait(), plus the child's resource usage
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({code}): {err.read().decode().strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def _clear(cache: Path) -> None:
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(parents=True)


def environment(tmp: Path, bytecode: bool) -> dict[str, str]:
    env = {**os.environ, "GPU_ADVISOR_CACHE_DIR": str(tmp / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop("GPU_ADVISOR_NO_CACHE", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def bench(name: str, repeat: int, env: dict[str, str]) -> dict[str, tuple[float, float, float]]:
    cache = Path(env["GPU_ADVISOR_CACHE_DIR"])
    out: dict[str, tuple[float, float, float]] = {}
    _run_once(COMMANDS[name], env)  # byte-code compiled, files in the page cache
    for mode in ("cold", "warm"):
        walls: list[float] = []
        cpus: list[float] = []
        _clear(cache)
        if mode == "warm":
            _run_once(COMMANDS[name], env)  # writes the snapshot
        for _ in range(repeat):
            if mode == "cold":
                _clear(cache)
            wall, cpu = _run_once(COMMANDS[name], env)
            walls.append(wall)
            cpus.append(cpu)
        out[mode] = (statistics.median(walls), min(walls), statistics.median(cpus))
    return out


def heaviest_imports(name: str, env: dict[str, str], top: int) -> list[tuple[int, str]]:
    """(cumulative µs, module) of the slowest imports of one command, warm cache."""
    _run_once(COMMANDS[name], env)
    cmd = [sys.executable, "-X", "importtime", *COMMANDS[name][1:]]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    rows: list[tuple[int, str, int]] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self_us, cum_us, mod = line[len("import time:"):].split("|")
        depth = (len(mod) - len(mod.lstrip()) - 1) // 2
        rows.append((int(cum_us), mod.strip(), depth))
    # top-level and first-level imports only: their cumulative times do not double count each other much
    shallow = [(cum, mod) for cum, mod, depth in rows if depth <= 1]
    return sorted(shallow, reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--only", default="", help="comma-separated command names (default: all)")
    p.add_argument("--no-imports", action="store_true", help="skip the -X importtime profiles")
    p.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as the environment has it")
    args = p.parse_args(argv)
    names = [n for n in COMMANDS if not args.only or n in args.only.split(",")]
    load = os.getloadavg()
    bytecode = not args.no_bytecode
    pyc = "cached" if bytecode else "as the environment has it"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; {args.repeat} runs per cell; byte-code {pyc}; milliseconds")
    print(f"{'command':16} {'cold p50':>9} {'cold min':>9} {'cold CPU':>9} {'warm p50':>9} {'warm min':>9} "
          f"{'warm CPU':>9}")
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-bench-") as tmp:
        env = environment(Path(tmp), bytecode)
        for name in names:
            r = bench(name, args.repeat, env)
            cells = [f"{v * 1e3:9.0f}" for mode in ("cold", "warm") for v in r[mode]]
            print(f"{name:16} {' '.join(cells)}", flush=True)
        if not args.no_imports:
            for name in IMPORT_PROFILES:
                if name not in names:
                    continue
                print(f"\nheaviest imports of `{name}` (cumulative ms, warm cache, one run):")
                for cum, mod in heaviest_imports(name, env, 10):
                    print(f"  {cum / 1e3:7.1f}  {mod}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
