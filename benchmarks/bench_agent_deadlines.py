"""How long a user waits for the fallback answer when the model hangs or drips, at the default settings.

    PYTHONPATH=. python benchmarks/bench_agent_deadlines.py [--repeat 3]

Runs the real ChatOpenAI client against the offline mock server (tests/mock_openai_server.py) and prints, per
case, the seconds from the user's message to the deterministic answer (Conversation.respond), with the fallback
reason the `ask --json` contract reports. Cases: a model that never sends a byte (first-byte timeout), a model
that streams one character every 0.5 s for ever (total deadline), the same without streaming, and a server that
refuses connections.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from advisor.conversation.llm import agent as agent_module  # noqa: E402
from advisor.conversation.llm.settings import Settings  # noqa: E402
from advisor.conversation.session import Conversation  # noqa: E402
from tests.mock_openai_server import MockOpenAI, drip, hang  # noqa: E402

TEXT = "Llama-3-70B inference, BF16, 8k context, 10 users"


def _one(base_url: str, **overrides: object) -> tuple[float, str]:
    agent_module.reset_breakers()
    conv = Conversation(settings=Settings(api_key="sk-bench", base_url=base_url, model="mock", **overrides))
    start = time.monotonic()
    turn = conv.respond(TEXT)
    return time.monotonic() - start, turn.fallback.reason if turn.fallback else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    d = Settings()
    print(f"defaults: first_token_timeout_s={d.first_token_timeout_s:g}  turn_timeout_s={d.turn_timeout_s:g}  "
          f"request_timeout_s={d.request_timeout_s:g} (unstreamed)  stream={d.stream}")
    with MockOpenAI([hang(1)]) as warm:  # pay the LangChain imports once, outside the figures
        _one(warm.base_url, first_token_timeout_s=0.2)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    closed_port = sock.getsockname()[1]
    sock.close()
    cases = [
        ("hanging model (no byte)", lambda: [hang(30)] * 4, {}),
        ("dripping stream (1 chunk / 0.5 s)", lambda: [drip(30, 0.5)] * 4, {}),
        ("dripping unstreamed body (1 byte / 0.5 s)", lambda: [drip(30, 0.5)] * 4, {"stream": False}),
    ]
    print(f"{'case':44} {'fallback after (s)':>20}  reason")
    for name, script, overrides in cases:
        times, reason = [], ""
        for _ in range(args.repeat):
            with MockOpenAI(script()) as srv:
                elapsed, reason = _one(srv.base_url, **overrides)
            times.append(elapsed)
        print(f"{name:44} {statistics.median(times):8.2f} (max {max(times):5.2f})  {reason}")
    times = [_one(f"http://127.0.0.1:{closed_port}/v1")[0] for _ in range(args.repeat)]
    print(f"{'connection refused':44} {statistics.median(times):8.2f} (max {max(times):5.2f})  unreachable")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
