"""First-screen figures over the first-screen conversation set (tests/conversations/first_screen/*.yaml).

    .venv/bin/python benchmarks/bench_first_screen.py [--repeat N]

For every turn of every conversation, run through the deterministic dialog (a fresh Conversation per
conversation, after one warm-up turn that loads the catalog, the guides and the rule engine):

- lines before the first details section (non-empty lines of the first screen): median and maximum
  (targets, issue 13: median <= 12, max <= 20);
- the share of answers whose FIRST sentence carries the deciding number (the Number the lead names), per
  intent (target 100 % for feasibility, how_many, how_long and how_much);
- the deterministic turn time, p50 and p95 over all turns and repeats (target: p50 well under 100 ms).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SET = ROOT / "tests" / "conversations" / "first_screen"


def _shows(text: str, value: float) -> bool:
    nums = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]
    return any(abs(v - value) <= max(0.051, abs(value) * 0.005) for v in nums)


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="times the whole set is run for the timings")
    args = ap.parse_args()

    from advisor.conversation.reader.intent import NUMBERED
    from advisor.conversation.render import firstscreen as fs
    from advisor.conversation.session import Conversation

    convs = []
    for path in sorted(SET.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        convs += [(doc["lang"], c) for c in doc["conversations"]]
    Conversation(driver="deterministic", lang="en").respond("Serve Llama-3.1-8B for 4 users")  # warm-up

    lines: list[int] = []
    carried: dict[str, list[bool]] = defaultdict(list)
    times: list[float] = []
    for r in range(args.repeat):
        for lang, conv in convs:
            session = Conversation(driver="deterministic", lang=lang)
            for t in conv["turns"]:
                start = time.perf_counter()
                turn = session.respond(t["say"])
                times.append(time.perf_counter() - start)
                if r:
                    continue
                if turn.extra.get("kind") in ("answer", "catalog", "capabilities"):
                    lines.append(fs.first_screen_lines(turn.answer))
                intent = turn.extra.get("intent")
                if intent and (turn.extra.get("deciding") or intent in NUMBERED):
                    number = next((n for n in turn.numbers if n.name == turn.extra.get("deciding")), None)
                    carried[intent].append(number is not None and _shows(fs.first_sentences(turn.answer, 1), number.value))

    turns = sum(len(c["turns"]) for _, c in convs)
    print(f"first-screen set: {len(convs)} conversations, {turns} turns ({args.repeat} runs for the timings)")
    print(f"lines before the first details section: median {statistics.median(lines):.0f}, max {max(lines)} "
          f"over {len(lines)} answers (targets: median <= 12, max <= 20)")
    print("first sentence carries the deciding number (targets: 100 % for " + ", ".join(NUMBERED) + "):")
    print("  (intents whose lead turns on no single number - market status dates, capabilities - are not counted)")
    for intent in sorted(carried, key=lambda i: (i not in NUMBERED, i)):
        got = carried[intent]
        mark = " *" if intent in NUMBERED else ""
        print(f"  {intent:<13} {sum(got):>3}/{len(got):<3} {100 * sum(got) / len(got):5.1f} %{mark}")
    numbered = [x for i in NUMBERED for x in carried.get(i, [])]
    print(f"  numbered intents together: {100 * sum(numbered) / max(1, len(numbered)):.1f} % of {len(numbered)}")
    ms = [t * 1000 for t in times]
    print(f"deterministic turn time: p50 {_pct(ms, 0.5):.1f} ms, p95 {_pct(ms, 0.95):.1f} ms, max {max(ms):.1f} ms "
          f"over {len(ms)} turns (target: p50 well under 100 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
