"""Time the memory estimator: one estimate in-process, and `gpu-advisor estimate ... --json` as a whole process.

    .venv/bin/python benchmarks/bench_estimate.py [--repeat N]

Prints the median and best of N runs. The CLI figure includes interpreter start-up, imports and catalog loading;
it must stay well under a second (no Gradio/LangChain imports on this path).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def bench_in_process(repeat: int) -> dict[str, list[float]]:
    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    cat = load_catalog()
    cases = {
        "inference llama-3-70b TP2 vLLM": (cat.model("llama-3-70b"), Workload(tp=2, gpus=2, context=8192)),
        "inference deepseek-v3 fp8 TP8": (cat.model("deepseek-v3"), Workload(tp=8, gpus=8, context=32768)),
        "gguf q4_k_m llama-3-8b llama.cpp": (cat.model("llama-3-8b"), Workload(weights="q4_k_m", engine="llama.cpp")),
        "full ZeRO-3 llama-3-8b 8 GPUs": (cat.model("llama-3-8b"), Workload(task="full", zero=3, gpus=8)),
        "qlora qwen2.5-72b": (cat.model("qwen2.5-72b"), Workload(task="qlora", context=2048)),
    }
    times: dict[str, list[float]] = {}
    for name, (model, wl) in cases.items():
        estimate_memory(model, wl)  # warm caches (param counts are memoised per spec)
        t: list[float] = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            estimate_memory(model, wl)
            t.append(time.perf_counter() - t0)
        times[name] = t
    return times


def bench_cli(repeat: int) -> list[float]:
    exe = Path(sys.executable).with_name("gpu-advisor")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "ui.cli.entry"]
    cmd += ["estimate", "--model", "llama-3-70b", "--context", "8192", "--tp", "2", "--gpus", "2", "--json"]
    t: list[float] = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        t.append(time.perf_counter() - t0)
    return t


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    print("in-process estimate_memory (warm):")
    for name, t in bench_in_process(max(args.repeat, 20)).items():
        print(f"  {name:<36} median {statistics.median(t) * 1e3:7.2f} ms   best {min(t) * 1e3:7.2f} ms")
    t = bench_cli(args.repeat)
    print(f"CLI process `gpu-advisor estimate --json`: median {statistics.median(t):.3f} s, best {min(t):.3f} s "
          f"({args.repeat} runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
