"""Start-up cost of the `gpu-advisor` CLI: wall time and CPU time per command, cold and warm catalog cache.

    .venv/bin/python benchmarks/bench_cli.py [--repeat 10] [--only gpus,estimate] [--no-imports]
    .venv/bin/python benchmarks/bench_cli.py --against /tmp/before     # before/after, runs interleaved

Each command runs as a fresh process, `python -m ui.cli.entry ...` with the checkout first on the path (the console
script `gpu-advisor` does the same work). "cold": the catalog snapshot cache is emptied before every run (the YAML
files are parsed and validated, and the snapshot is written); "warm": the snapshot written by a previous run is
read. Both use a throw-away cache directory ($GPU_ADVISOR_CACHE_DIR), never the user's. Byte-code is written to a
throw-away $PYTHONPYCACHEPREFIX and warmed by one untimed run, as for an installed package (this sandbox sets
PYTHONDONTWRITEBYTECODE, which recompiles every project module on each start; --no-bytecode measures that).
Printed per command: p50 and best wall time over N runs, and p50 CPU time (user + system of the child process).
`python -c pass` and `help` (`--help`) give the floor: the interpreter with the venv's site-packages, and the CLI module.
`--against DIR` times another checkout (e.g. `git archive COMMIT | tar -x -C DIR`) with the same interpreter, its
runs alternating with this one's so that both see the same load on a shared machine.
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
CLI = [sys.executable, "-m", "ui.cli.entry"]

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "help": [*CLI, "--help"],
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
MODES = ("cold", "warm")


def _run_once(cmd: list[str], root: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # like wait(), plus the child's resource usage
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} in {root} failed ({code}): {err.read().decode().strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def environment(root: Path, cache: Path, pycache: Path | None) -> dict[str, str]:
    """The child's environment: `root` first on the path, a private snapshot cache, optionally byte-code."""
    env = {**os.environ, "GPU_ADVISOR_CACHE_DIR": str(cache), "PYTHONPATH": str(root)}
    env.pop("GPU_ADVISOR_NO_CACHE", None)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def bench(cmd: list[str], repeat: int, trees: dict[str, Path], tmp: Path, pycache: Path | None,
          ) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(tree, mode) -> (p50 wall, min wall, p50 CPU) in seconds; the trees' runs alternate."""
    envs = {(label, mode): environment(root, tmp / label / mode, pycache)
            for label, root in trees.items() for mode in MODES}
    for (label, mode), env in envs.items():
        shutil.rmtree(env["GPU_ADVISOR_CACHE_DIR"], ignore_errors=True)
        _run_once(cmd, trees[label], env)  # byte-code compiled, files in the page cache; the warm snapshot
    samples: dict[tuple[str, str], list[tuple[float, float]]] = {k: [] for k in envs}
    for _ in range(repeat):
        for (label, mode), env in envs.items():
            if mode == "cold":
                shutil.rmtree(env["GPU_ADVISOR_CACHE_DIR"], ignore_errors=True)
            samples[(label, mode)].append(_run_once(cmd, trees[label], env))
    return {k: (statistics.median(w for w, _ in v), min(w for w, _ in v), statistics.median(c for _, c in v))
            for k, v in samples.items()}


def heaviest_imports(name: str, env: dict[str, str], top: int) -> list[tuple[int, str]]:
    """(cumulative µs, module) of the slowest top- and first-level imports of one command, warm cache."""
    _run_once(COMMANDS[name], ROOT, env)
    cmd = [sys.executable, "-X", "importtime", *COMMANDS[name][1:]]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    rows: list[tuple[int, str]] = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self_us, cum_us, mod = line[len("import time:"):].split("|")
        depth = (len(mod) - len(mod.lstrip()) - 1) // 2  # one space, then two per level
        if depth <= 1:  # deeper ones are inside these and would be counted twice
            rows.append((int(cum_us), mod.strip()))
    return sorted(rows, reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--only", default="", help="comma-separated command names (default: all)")
    p.add_argument("--against", metavar="DIR", type=Path, help="another checkout to time alongside this one")
    p.add_argument("--no-imports", action="store_true", help="skip the -X importtime profiles")
    p.add_argument("--no-bytecode", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as the environment has it")
    args = p.parse_args(argv)
    names = [n for n in COMMANDS if not args.only or n in args.only.split(",")]
    trees = {"this": ROOT} if args.against is None else {"before": args.against.resolve(), "this": ROOT}
    load = os.getloadavg()
    pyc = "as the environment has it" if args.no_bytecode else "cached"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; {args.repeat} runs per cell; byte-code {pyc}; milliseconds")
    head = " ".join(f"{m + ' ' + c:>9}" for m in MODES for c in ("p50", "min", "CPU"))
    print(f"{'command':16} {'checkout':8} {head}")
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-bench-") as tmp_name:
        tmp = Path(tmp_name)
        pycache = None if args.no_bytecode else tmp / "pycache"
        for name in names:
            result = bench(COMMANDS[name], args.repeat, trees, tmp, pycache)
            for label in trees:
                cells = " ".join(f"{v * 1e3:9.0f}" for mode in MODES for v in result[(label, mode)])
                print(f"{name:16} {label:8} {cells}", flush=True)
        if not args.no_imports:
            env = environment(ROOT, tmp / "this" / "warm", pycache)
            for name in (n for n in IMPORT_PROFILES if n in names):
                print(f"\nheaviest imports of `{name}` (cumulative ms, warm cache, one run):")
                for cum, mod in heaviest_imports(name, env, 10):
                    print(f"  {cum / 1e3:7.1f}  {mod}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
