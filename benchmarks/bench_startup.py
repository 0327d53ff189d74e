"""Start-up of the scriptable commands against a bare `python -c "import pydantic"`, paired in one run.

    .venv/bin/python benchmarks/bench_startup.py [--repeat 20] [--only estimate,gpus]
    .venv/bin/python benchmarks/bench_startup.py --against /tmp/before   # another checkout, in the same rounds

Issue 18's target: `estimate --json`, `throughput --json`, `gpus --json` ≤ 2× `import pydantic` and under 0.12 s;
`recommend --json` ≤ 3×. Each round runs every command once as a fresh process, in turn (so a load spike on the
shared machine hits all of them alike), `python -m ui.cli.entry …` with this checkout first on the path and a private,
warm catalog/table snapshot cache (the state after a first run). Two ways users run it, each with its own
rounds: "pyc": byte-code written once to a throw-away $PYTHONPYCACHEPREFIX and reused (an installed package);
"no-pyc": PYTHONDONTWRITEBYTECODE=1, every project module compiled again on each start (a source checkout in a
read-only place, and this sandbox). Printed per command and mode: median, p90 and best wall time in ms, and the
median's ratio to the median of `import pydantic` of the same rounds; then the median CPU time (user + system of
the child) and its ratio, which a busy shared machine distorts less than wall time; `python -c pass` is the
interpreter's floor. The target is judged on wall time.
`--against DIR` (e.g. `git archive COMMIT | tar -x -C DIR`) runs that checkout's commands in the same rounds.
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


def _cmd(name: str, root: Path) -> list[str]:
    """The command of `name` for the checkout at `root` (before the package layout the CLI was `ui.cli`)."""
    cmd = COMMANDS[name]
    if cmd[:3] == CLI and not (root / "ui" / "cli" / "entry.py").exists():
        return [sys.executable, "-m", "ui.cli", *cmd[3:]]
    return cmd
BASELINE = "import pydantic"

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    BASELINE: [sys.executable, "-c", "import pydantic"],
    "estimate": [*CLI, "estimate", "--model", "llama-3-70b", "--context", "8192", "--tp", "2", "--gpus", "2",
                 "--gpu", "h100-sxm", "--json"],
    "throughput": [*CLI, "throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--concurrency", "32", "--json"],
    "gpus": [*CLI, "gpus", "--json"],
    "recommend": [*CLI, "recommend", "--model", "qwen2.5-32b", "--concurrency", "30", "--region", "cn", "--json"],
}
TARGET = {"estimate": (2.0, 0.12), "throughput": (2.0, 0.12), "gpus": (2.0, 0.12), "recommend": (3.0, None)}
MODES = ("pyc", "no-pyc")


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=env["PYTHONPATH"], env=env, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({code}): {err.read().decode().strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def _env(mode: str, tmp: Path, root: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root), "GPU_ADVISOR_CACHE_DIR": str(tmp / "cache")}
    env.pop("GPU_ADVISOR_NO_CACHE", None)
    if mode == "pyc":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    else:  # no byte-code read or written: an empty prefix hides any __pycache__ that `make` compiled
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "no-pycache")
    return env


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=20, help="rounds per mode (default 20)")
    p.add_argument("--only", default="", help="comma-separated command names besides the two baselines")
    p.add_argument("--against", metavar="DIR", type=Path, help="another checkout, timed in the same rounds")
    args = p.parse_args(argv)
    names = [n for n in COMMANDS if n in ("python -c pass", BASELINE) or not args.only or n in args.only.split(",")]
    trees = {"this": ROOT} if args.against is None else {"this": ROOT, "against": args.against.resolve()}
    cells = [(label, n) for n in names for label in (trees if COMMANDS[n][:3] == CLI else ["this"])]
    load = os.getloadavg()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f}; {args.repeat} alternating rounds per mode; warm snapshot cache; milliseconds"
          + (f"; against = {trees['against']}" if args.against else ""))
    print(f"{'command':16} {'tree':7} {'mode':7} {'median':>7} {'p90':>7} {'best':>7} {'× pydantic':>10} "
          f"{'CPU':>6} {'× CPU':>6}  target (wall)")
    failed = False
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-startup-") as tmp_name:
        for mode in MODES:
            envs = {label: _env(mode, Path(tmp_name) / mode / label, root) for label, root in trees.items()}
            for label, name in cells:  # untimed: byte-code, snapshot cache and page cache warmed
                _run(_cmd(name, trees[label]), envs[label])
            samples: dict[tuple[str, str], list[tuple[float, float]]] = {c: [] for c in cells}
            for _ in range(args.repeat):
                for label, name in cells:
                    samples[(label, name)].append(_run(_cmd(name, trees[label]), envs[label]))
            base = statistics.median(w for w, _ in samples[("this", BASELINE)])
            base_cpu = statistics.median(c for _, c in samples[("this", BASELINE)])
            for label, name in cells:
                values = [w for w, _ in samples[(label, name)]]
                cpu = statistics.median(c for _, c in samples[(label, name)])
                med = statistics.median(values)
                ratio = med / base
                target = ""
                if name in TARGET:
                    limit, absolute = TARGET[name]
                    ok = ratio <= limit and (absolute is None or med <= absolute)
                    failed |= not ok and label == "this"
                    target = (f"≤ {limit:g}×" + (f" and < {absolute * 1e3:.0f} ms" if absolute else "")
                              + (": met" if ok else ": NOT met"))
                print(f"{name:16} {label:7} {mode:7} {med * 1e3:7.1f} {_p90(values) * 1e3:7.1f} "
                      f"{min(values) * 1e3:7.1f} {ratio:10.2f} {cpu * 1e3:6.0f} {cpu / base_cpu:6.2f}  {target}",
                      flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
