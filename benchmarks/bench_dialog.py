"""Time the deterministic dialog: one whole turn (extraction, tools, rules, rendering) in-process.

    .venv/bin/python benchmarks/bench_dialog.py [--repeat N]

Each question is answered N times, each time by a fresh Conversation (so no state is reused), after one
warm-up turn that loads the catalog, the guides data and the rule engine. Prints p50 and p99 per question,
the share of the turn spent in the tool calls (from the turn's steps), and extraction alone.
Target (issue 6): a fully specified question answered in well under 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

QUESTIONS = {
    "zh fully specified (chatbot, region cn, budget)":
        "我们要上线客服机器人，Qwen2.5-32B，平时 30 并发，高峰 100，上下文 8k，国内机房，预算 50 万以内。",
    "en fully specified (named hardware)":
        "Serve Llama-3.1-8B in FP8 for 32 users at 8k context on 2× L40S, budget $30k",
    "zh own hardware (QLoRA on one 4090)":
        "我只有一张 4090，想做 14B 的 QLoRA 微调，序列长度 4k，够吗？",
    "en sales quote (3 servers, deadline)":
        "Customer wants LoRA fine-tuning of Llama-3.1-70B on 2B tokens within two weeks. "
        "We sell 8×H20, 8×L20 and 8×RTX 4090 servers.",
    "zh guide claim":
        "文章说 70B 模型 4bit 量化只要 28GB 显存，那一张 5090 就够了吧？",
    "en open search (no hardware named)":
        "Serve Qwen2.5-72B in AWQ for 50 users at 16k context",
    "en clarifying question only":
        "What GPU do I need for a 70B model?",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    from advisor.conversation.reader.extract import extract
    from advisor.conversation.session import Conversation
    from knowledge.catalog import load_catalog

    t0 = time.perf_counter()
    Conversation(driver="deterministic").respond(next(iter(QUESTIONS.values())))
    print(f"warm-up (catalog, guides, rule engine, regex index): {(time.perf_counter() - t0) * 1000:.0f} ms\n")
    catalog = load_catalog()

    print(f"{'question':52} {'p50 ms':>8} {'p99 ms':>8} {'tools p50':>10} {'extract':>8}  kind")
    worst_p50 = 0.0
    for label, text in QUESTIONS.items():
        totals, tools, extracts = [], [], []
        kind = ""
        for _ in range(args.repeat):
            conv = Conversation(driver="deterministic")
            start = time.perf_counter()
            turn = conv.respond(text)
            totals.append((time.perf_counter() - start) * 1000)
            tools.append(sum(s.duration_s for s in turn.steps) * 1000 if turn.steps else 0.0)
            kind = turn.extra.get("kind", "")
            e0 = time.perf_counter()
            extract(text, catalog)
            extracts.append((time.perf_counter() - e0) * 1000)
        p50 = statistics.median(totals)
        worst_p50 = max(worst_p50, p50 if kind == "answer" else 0.0)
        print(f"{label:52} {p50:8.1f} {percentile(totals, 0.99):8.1f} {statistics.median(tools):10.1f} "
              f"{statistics.median(extracts):8.1f}  {kind}")
    print(f"\nslowest answer p50: {worst_p50:.1f} ms (target: well under 100 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
