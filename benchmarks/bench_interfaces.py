"""Per-call latency of the agent interfaces over warm servers: an MCP tool call (stdio and streamable HTTP, with
the SDK's client) and an HTTP API call (`gpu-advisor api`), for `estimate` and a few heavier operations.

    python benchmarks/bench_interfaces.py [--calls 200]

Each server is started as `gpu-advisor mcp` / `gpu-advisor mcp --http` / `gpu-advisor api` in a subprocess on a
free loopback port, warmed with 20 calls, then timed call by call from the client (round trip: request, JSON-RPC or
HTTP, validation, computation, response). Prints p50/p90/p99 in ms. Target: p50 < 20 ms for estimate.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ESTIMATE = {"model": "llama-3.1-70b", "context": 8192, "gpu": "h100-sxm", "tp": 2, "gpus": 2}
CASES = [  # (MCP tool, HTTP method and path, arguments)
    ("estimate_memory", "POST", "/estimate", ESTIMATE),
    ("estimate_memory", "POST", "/estimate", {"model": "llama-3.1-8b"}),
    ("estimate_throughput", "POST", "/throughput", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "concurrency": 16}),
    ("show_gpu", "GET", "/gpus/h100-sxm", {"gpu": "h100-sxm"}),
    ("recommend", "POST", "/recommend", {"model": "qwen2.5-32b", "region": "cn", "concurrency": 8}),
]


def _env() -> dict[str, str]:
    drop = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ADVISOR_MODEL", "GPU_ADVISOR_WEB_AUTH", "GPU_ADVISOR_MCP_TOKEN",
            "GPU_ADVISOR_API_TOKEN")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(*args: str):
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", *args, "--port", str(port)], cwd=ROOT, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{args} did not start")
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _stats(samples: list[float]) -> str:
    ms = sorted(x * 1e3 for x in samples)
    q = statistics.quantiles(ms, n=100)
    return f"p50 {statistics.median(ms):7.2f} ms   p90 {q[89]:7.2f} ms   p99 {q[98]:7.2f} ms   (n={len(ms)})"


async def _time_session(session: Any, calls: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for tool, _, _, args in CASES:
        n = calls if tool != "recommend" else max(20, calls // 5)
        for _ in range(20):
            await session.call_tool(tool, args)
        times = []
        for _ in range(n):
            t = time.perf_counter()
            result = await session.call_tool(tool, args)
            times.append(time.perf_counter() - t)
            assert not result.is_error, result.content[0].text
        out[f"{tool} {list(args.values())[0]}"] = times
    return out


async def _mcp_stdio(calls: int) -> dict[str, list[float]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.cli.entry", "mcp"], env=_env(), cwd=str(ROOT))
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await _time_session(session, calls)


async def _mcp_http(port: int, calls: int) -> dict[str, list[float]]:
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(timeout=60) as client:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await _time_session(session, calls)


def _api(port: int, calls: int) -> dict[str, list[float]]:
    import httpx

    out: dict[str, list[float]] = {}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1", timeout=60) as client:
        for tool, method, path, args in CASES:
            n = calls if tool != "recommend" else max(20, calls // 5)

            def call() -> None:
                r = client.get(path) if method == "GET" else client.post(path, json=args)
                r.raise_for_status()

            for _ in range(20):
                call()
            times = []
            for _ in range(n):
                t = time.perf_counter()
                call()
                times.append(time.perf_counter() - t)
            out[f"{method} {path} {list(args.values())[0]}"] = times
    return out


def main() -> int:
    import anyio

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    print(f"per-call latency over warm servers, {args.calls} calls each ({os.cpu_count()} CPUs)")
    print("\nMCP, stdio (gpu-advisor mcp):")
    for name, times in anyio.run(_mcp_stdio, args.calls).items():
        print(f"  {name:42} {_stats(times)}")
    with _server("mcp", "--http") as port:
        print("\nMCP, streamable HTTP, stateless (gpu-advisor mcp --http):")
        for name, times in anyio.run(_mcp_http, port, args.calls).items():
            print(f"  {name:42} {_stats(times)}")
    with _server("api") as port:
        print("\nHTTP API (gpu-advisor api):")
        for name, times in _api(port, args.calls).items():
            print(f"  {name:42} {_stats(times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
