"""What a real small model does with the agent: llama.cpp's server with SmolLM2-135M-Instruct (Q4_1), on the CPU.

    .venv/bin/python benchmarks/bench_agent_llamacpp.py [--rounds N]

Each round asks the same questions (English and Chinese; feasibility and how-many) in three ways: non-streamed
with tool_choice=auto (the server's function-calling format), streamed without tools, streamed with
tool_choice=auto. Each turn runs in-process through `Conversation(driver="llm")` and ends either grounded (mode
"llm": the grounding gate and the answer-first check passed) or with the deterministic answer and its note; the
reason for each fallback is counted. Prints counts, and turn times (p50 / max) per way.
Skips (exit 0) when llama-cpp-python[server] or the GGUF is missing (`make llamacpp`).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = [
    ("Will Llama-3-8B fit on one RTX 4090?", "en"),
    ("70B 模型 4bit 量化后 28GB 显存够吗", "zh"),
    ("How many H100 GPUs do I need to serve Llama-3-70B to 20 users?", "en"),
    ("部署 Qwen2.5-32B 需要几张 4090？", "zh"),
]
WAYS = {"tool calls": (False, "auto"), "streamed text": (True, None), "streamed + tool_choice": (True, "auto")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    from tests.llamacpp_server import LlamaServer, advisor_env, missing

    why = missing()
    if why:
        print(f"skipped: {why}")
        return 0
    from advisor.conversation.llm.settings import Settings
    from advisor.conversation.session import Conversation

    server = LlamaServer(name="bench-llamacpp")
    with server as base_url:
        print(f"llama_cpp.server answering after {server.started_s:.1f} s", flush=True)
        rows: dict[str, list[tuple[str, float]]] = collections.defaultdict(list)
        reasons: collections.Counter[str] = collections.Counter()
        for _ in range(args.rounds):
            for way, (stream, tool_choice) in WAYS.items():
                settings = Settings.from_env(advisor_env(base_url, stream=stream, tool_choice=tool_choice))
                for question, lang in QUESTIONS:
                    start = time.monotonic()
                    turn = Conversation(driver="llm", settings=settings, lang=lang).respond(question)
                    seconds = time.monotonic() - start
                    outcome = "grounded" if turn.mode == "llm" else "fallback"
                    rows[way].append((outcome, seconds))
                    if outcome == "fallback":
                        reasons[turn.note.split("(", 1)[-1].split(")")[0] if lang == "en" else turn.note] += 1
                    print(f"  {way:<24} {outcome:<9} {seconds:6.1f} s  {question[:50]}", flush=True)
    print(f"\nSmolLM2-135M-Instruct Q4_1 on llama_cpp.server (CPU, {os.cpu_count()} cores), {args.rounds} round(s)")
    for way, items in rows.items():
        times = sorted(s for _, s in items)
        grounded = sum(o == "grounded" for o, _ in items)
        print(f"  {way:<24} {grounded}/{len(items)} grounded   turn p50 {times[len(times) // 2]:.1f} s   "
              f"max {times[-1]:.1f} s")
    for reason, n in reasons.most_common():
        print(f"  fallback ×{n}: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
