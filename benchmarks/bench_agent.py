"""Time the LLM driver's own machinery (no real model): tools, the grounding gate, and whole agent turns.

    .venv/bin/python benchmarks/bench_agent.py [--repeat N]

- each tool through `call_tool` (validation, estimator/recommender/rules, result building);
- `grounding.check` of a realistic Chinese answer (a table of three options) against a recommend result;
- a whole agent turn in-process with a scripted fake chat model (tool call, answer, grounding, findings);
- a whole turn over real HTTP against the local OpenAI-compatible mock server (ChatOpenAI, JSON and SSE).
Prints p50/p99 in milliseconds. The model's own latency is not included: this is the overhead we add.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOOL_CALLS = {
    "lookup_gpu": {"gpu": "h100"},
    "lookup_model": {"model": "llama-3-70b"},
    "estimate_memory": {"model": "llama-3-70b", "gpu": "h100", "tp": 2, "gpus": 2},
    "estimate_throughput": {"model": "llama-3-70b", "gpu": "h100", "count": 2, "tp": 2, "gpus": 2},
    "train_time": {"model": "llama-3.1-70b", "gpu": "h20", "count": 8, "tokens": 2e9, "task": "lora"},
    "compare_gpus": {"gpus": ["h20", "a800", "rtx 4090"], "model": "llama-3-70b", "count": 8},
    "tco": {"gpu": "h20", "count": 8, "years": 3, "model": "qwen2.5-32b"},
    "recommend": {"model": "qwen2.5-32b", "context": 8192, "concurrency": 30, "region": "cn", "budget": 500000,
                  "currency": "CNY"},
    "explain_rule_or_claim": {"query": "70B 4bit 28GB"},
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    fn()  # warm-up
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return percentile(samples, 0.5), percentile(samples, 0.99)


def row(label: str, p50: float, p99: float) -> None:
    print(f"  {label:<52} {p50:8.2f} {p99:8.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    n = args.repeat

    from langchain_core.messages import AIMessage

    from advisor.conversation.grounding import gate as grounding
    from advisor.conversation.llm.agent import AgentDriver
    from advisor.conversation.llm.settings import Settings
    from advisor.conversation.tools.registry import call_tool
    from tests.mock_openai_server import MockOpenAI, message, scripted_model, tool_call, tool_calls

    print(f"{'':<54} {'p50 ms':>8} {'p99 ms':>8}")
    print("tools (call_tool):")
    for name, arguments in TOOL_CALLS.items():
        result = call_tool(name, arguments)
        if not result.ok:
            print(f"  {name:<52} error: {result.error}")
            continue
        row(f"{name} ({len(result.content()):,} chars to the model)", *timed(lambda: call_tool(name, arguments), n))

    rec = call_tool("recommend", TOOL_CALLS["recommend"])
    rows = rec.data.get("options") or rec.data.get("closest_not_fitting") or []
    answer = "**推荐：" + (rows[0]["label"] if rows else "?") + "**\n\n" + "\n".join(
        f"| {r['label']} | " + " | ".join(s.split(': ', 1)[1] for s in r["numbers"]) + " |" for r in rows)
    pool = grounding.Pool.of([rec.data])
    report = grounding.check(answer, pool)
    print(f"\ngrounding ({len(grounding.extract(answer))} numbers in the answer, {len(pool)} pool values, "
          f"ok={report.ok}):")
    row("Pool.of(recommend result)", *timed(lambda: grounding.Pool.of([rec.data]), n))
    row("check(answer, pool)", *timed(lambda: grounding.check(answer, pool), n))

    ref = call_tool("estimate_memory", TOOL_CALLS["estimate_memory"])
    total = next(x["display"] for x in ref.numbers if x["name"] == "total per GPU")
    text = f"Llama-3-70B needs {total} per GPU on 2× H100."

    def fake_turn() -> None:
        model = scripted_model([AIMessage("", tool_calls=[tool_call("estimate_memory", TOOL_CALLS["estimate_memory"])]),
                                text])
        list(AgentDriver(Settings(), chat_model=model).run(None, "Llama-3-70B on two H100?"))

    print("\nwhole agent turns (model latency excluded):")
    row("fake chat model: tool call + answer + grounding", *timed(fake_turn, n))
    for stream in (False, True):
        script = [tool_calls(("estimate_memory", TOOL_CALLS["estimate_memory"])), message(text)]
        with MockOpenAI(script * (max(5, n // 2) + 2)) as srv:
            driver = AgentDriver(Settings(api_key="sk-bench", base_url=srv.base_url, model="mock", stream=stream))

            def http_turn(driver: AgentDriver = driver) -> None:
                list(driver.run(None, "Llama-3-70B on two H100?"))

            row(f"ChatOpenAI over HTTP to the mock server ({'SSE' if stream else 'JSON'}, 2 requests)",
                *timed(http_turn, max(5, n // 2)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
