"""Load test of the web chat: N concurrent conversations (deterministic mode) through the public /chat API.

Starts `gpu-advisor web` on a free port with no API key (or targets --url). Each conversation is one session
(as one browser tab) speaking Gradio's documented HTTP API for `/chat` (`POST /gradio_api/call/chat` with a
session hash, then the event stream), all from one asyncio client so the load generator stays light on the
shared CPUs. Each conversation is a question and its refinements (English and Chinese).

Two scenarios, both with all N conversations open at once:
  paced  people: conversations open over the first `--think-max` seconds and wait `--think-min`..`--think-max`
         seconds (uniform, seeded) between an answer and the next question.
  burst  every conversation sends its first turn at the same instant and the next one as soon as an answer
         arrives (no reading or typing time): a stress test whose latency is N × the server's CPU per turn.
Reported per scenario: per-turn latency (request to final answer; p50/p95/max, seconds, also by turn number),
errors, turns/s, and the server's CPU time per turn (from /proc, when the script started the server), and with
`--store postgresql` on a throwaway cluster the PostgreSQL server's (its postmaster and backends; same 2 cores).
`--baseline` repeats both against a do-nothing Gradio app of the same shape: the framework's floor, measured on the
same machine at the same time (this machine's speed varies between runs; compare within one run).

    .venv/bin/python benchmarks/load_web.py --baseline              # 50 conversations × 3 turns, both scenarios
    .venv/bin/python benchmarks/load_web.py --scenario burst --conversations 20 --url http://127.0.0.1:7860/
    .venv/bin/python benchmarks/load_web.py --store all      # in memory, then SQLite, then PostgreSQL (issue 16)

`--store` picks where the started server keeps conversations (GPU_ADVISOR_DATABASE_URL): `memory` (none),
`sqlite` (a fresh file in a temporary data directory) or `postgresql` (`--database-url`, else a throwaway cluster
started with tests/pg_cluster.py from Debian's postgresql binaries); `all` runs the three one after another;
`--rounds N` repeats that rotation N times and ends with each round's p95 against memory's.

Target (issue 7): 0 errors and p95 under 1 s on a 2-core machine; docs/performance.md has the figures and why the
burst misses it (so does the do-nothing app). Exit status 1 on any error; with --strict also when a latency target
is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

CONVERSATIONS = [
    ["Serve Llama 3 70B in INT4 with 8k context for 50 users", "what about 8-bit weights?", "and 16k context?"],
    ["部署 Qwen2.5-72B 推理，INT4，32k 上下文，20 并发，国内", "改成 8bit 呢？", "并发改成 50"],
    ["Llama 3 8B inference, 4k context, 10 users", "what about 32 users?", "use fp8 weights"],
    ["Qwen2.5-14B 推理，8k 上下文，10 并发", "上下文改成 16k", "改成 int4"],
    ["Mistral 7B inference with 8k context", "20 concurrent users", "int8 please"],
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ADVISOR_MODEL", "ADVISOR_API_KEY", "ADVISOR_SETTINGS")}
    env["GRADIO_ANALYTICS_ENABLED"] = "False"
    return env


def start_server(port: int, *, baseline: bool = False, database_url: str = "memory") -> subprocess.Popen[bytes]:
    """`gpu-advisor web` (or, with `baseline`, the do-nothing app of `serve_baseline`) on `port`, once it answers;
    its conversations kept as `database_url` says (GPU_ADVISOR_DATABASE_URL)."""
    cmd = ([sys.executable, __file__, "--serve-baseline", str(port)] if baseline
           else [sys.executable, "-m", "ui.cli.entry", "web", "--port", str(port)])
    env = {**_server_env(), "GPU_ADVISOR_DATABASE_URL": database_url}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with status {proc.returncode}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/gradio_api/info", timeout=2)
            return proc
        except (urllib.error.URLError, OSError):
            time.sleep(0.3)
    proc.terminate()
    raise SystemExit("server did not start within 90 s")


def serve_baseline(port: int) -> None:
    """The framework's floor: a Gradio app with the same `/chat` signature, queue settings and output components as
    the web chat, whose function returns a canned two-message reply at once (no advisor, no panels, no exports).
    Its latency under the same load is what Gradio and uvicorn cost on this machine before the app does anything."""
    import gradio as gr

    from ui.web.app import GRADIO_QUEUE_ENV, WebSettings

    for name, value in GRADIO_QUEUE_ENV.items():
        os.environ.setdefault(name, value)
    settings = WebSettings()

    def chat(message: str, ui_lang: str, state: Any = None) -> tuple[Any, ...]:
        reply = [{"role": "user", "content": message}, {"role": "assistant", "content": "ok"}]
        return reply, state, "baseline", None, None, {"answer": "ok", "mode": "baseline"}

    with gr.Blocks(analytics_enabled=False) as demo:
        state = gr.State(None)
        box, lang = gr.Textbox(), gr.Textbox()
        outputs = [gr.Chatbot(), state, gr.Markdown(), gr.DownloadButton(), gr.DownloadButton(), gr.JSON()]
        box.submit(chat, [box, lang, state], outputs, api_name="chat", concurrency_limit=settings.concurrency)
    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.concurrency)
    demo.launch(server_name="127.0.0.1", server_port=port, share=False, show_error=False)


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process and its live child processes (the web chat's turn workers; Linux
    /proc), or None."""
    if pid is None:
        return None
    total, todo, seen = 0.0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in Path(f"/proc/{p}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
        except (OSError, IndexError, ValueError):
            if p == pid:
                return None
    return total


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), -(-int(q * len(ordered)) // 100)))
    return ordered[rank - 1]


class _Connection:
    """One keep-alive HTTP/1.1 connection, as a browser tab holds: a request writes its bytes and reads the whole
    response (Content-Length or chunked). Hand-written on asyncio streams so the load generator spends little of
    the CPUs it shares with the server (httpx cost ~5 ms of client CPU per turn; this ~1 ms)."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.arrivals: list[tuple[float, bytes]] = []  # (time, bytes) of the last chunked response's chunks

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        for attempt in (0, 1):  # the server may have closed an idle keep-alive connection: reconnect once
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            head = (f"{method} {self.prefix}{path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                    f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n")
            try:
                self.writer.write(head.encode() + body)
                await self.writer.drain()
                return await self._response()
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _response(self) -> tuple[int, bytes]:
        assert self.reader is not None
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await self.reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        self.arrivals = []
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while (size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)):
                chunks.append(await self.reader.readexactly(size + 2))
                self.arrivals.append((time.perf_counter(), chunks[-1][:-2]))
            while await self.reader.readuntil(b"\r\n") != b"\r\n":  # trailers
                pass
            body = b"".join(c[:-2] for c in chunks)
        else:
            body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def _turn(conn: _Connection, session: str, text: str) -> tuple[float, float, dict[str, Any]]:
    """One /chat turn over Gradio's HTTP API (`POST /gradio_api/call/chat`, then its event stream, which the server
    ends after the "complete" event); the session hash keeps the conversation, as a browser tab or a
    `gradio_client.Client` does. Returns (seconds to the "complete" event, seconds to the first event that shows
    the answer, turn JSON). The answer is shown before "complete" when the turn streams its updates (`chat`) and
    the stored controller yields the answer before the write (ui/web/store.py); with the one-update `chat_once`
    of deterministic mode both moments are the same."""
    start = time.perf_counter()
    body = json.dumps({"data": [text, "en"], "session_hash": session}, ensure_ascii=False).encode()
    status, reply = await conn.request("POST", "/gradio_api/call/chat", body)
    if status != 200:
        raise RuntimeError(f"POST /call/chat: HTTP {status}: {reply[:200]!r}")
    event_id = json.loads(reply)["event_id"]
    status, stream = await conn.request("GET", f"/gradio_api/call/chat/{event_id}")
    if status != 200:
        raise RuntimeError(f"GET /call/chat: HTTP {status}: {stream[:200]!r}")
    event, shown, text_so_far = None, None, ""
    for arrived, chunk in conn.arrivals or [(time.perf_counter(), stream)]:
        text_so_far += chunk.decode(errors="replace")
        *lines, text_so_far = text_so_far.split("\n")
        for line in lines:
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event in ("generating", "complete", "error"):
                payload = json.loads(line[5:])
                if event == "error":
                    raise RuntimeError(f"server error event: {str(payload)[:200]}")
                if shown is None and _shows_answer(payload):
                    shown = arrived - start
                if event == "complete":
                    return arrived - start, shown if shown is not None else arrived - start, payload[-1]
    raise RuntimeError("stream ended without a result")


def _shows_answer(payload: Any) -> bool:
    """Whether an update of /chat's outputs (chatbot first) ends with an answer, not a "working" line."""
    chat = payload[0] if isinstance(payload, list) and payload else None
    last = chat[-1] if isinstance(chat, list) and chat else None
    return (isinstance(last, dict) and last.get("role") == "assistant" and bool(last.get("content"))
            and (last.get("metadata") or {}).get("status") != "pending")


async def _scenario(url: str, conversations: int, turns: int, think: tuple[float, float], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    latencies: list[float] = []
    shown: list[float] = []  # to the first update showing the answer (before "saved" when the turn streams)
    by_turn: dict[int, list[float]] = {}
    errors: list[str] = []
    gate = asyncio.Event()

    async def converse(i: int, delays: list[float]) -> None:
        session = uuid.uuid4().hex
        script = CONVERSATIONS[i % len(CONVERSATIONS)]
        conn = _Connection(url)
        await gate.wait()
        try:
            for t in range(turns):
                if delays[t]:
                    await asyncio.sleep(delays[t])
                try:
                    elapsed, seen, raw = await asyncio.wait_for(_turn(conn, session, script[t % len(script)]), 120)
                    if not isinstance(raw, dict) or not raw.get("answer"):
                        raise RuntimeError(f"no answer in the reply: {str(raw)[:200]}")
                    if raw.get("note") == "error":
                        raise RuntimeError(f"error reply: {raw['answer'][:200]}")
                    latencies.append(elapsed)
                    shown.append(seen)
                    by_turn.setdefault(t, []).append(elapsed)
                except Exception as exc:  # noqa: BLE001 - counted and reported
                    errors.append(f"conversation {i} turn {t}: {type(exc).__name__}: {exc}"[:300])
                    await conn.close()
        finally:
            await conn.close()

    lo, hi = think
    plans = [[rng.uniform(0, hi) if hi else 0.0] + [rng.uniform(lo, hi) for _ in range(turns - 1)]
             for _ in range(conversations)]
    tasks = [asyncio.create_task(converse(i, plans[i])) for i in range(conversations)]
    await asyncio.sleep(0)
    wall = time.perf_counter()
    gate.set()
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - wall
    return {"latencies": latencies, "shown": shown, "by_turn": by_turn, "errors": errors, "wall_s": wall}


def run(url: str, conversations: int, turns: int, think: tuple[float, float] = (0.0, 0.0),
        seed: int = 7) -> dict[str, Any]:
    """One scenario against a running app; returns latencies (s), errors and wall time."""
    return asyncio.run(_scenario(url, conversations, turns, think, seed))


# Warm-up questions: imports, catalog, rules engine and the Gradio routes, not the scripts' own answers (each
# scenario pays for its first searches; the recommender's memo then serves the conversations that repeat them).
WARM_UP = ["Serve Qwen2.5-32B with 4k context for 5 users", "Llama 3.1 405B 推理，FP8，8k 上下文"]


def _warm_up(url: str) -> None:
    async def go() -> None:
        for text in WARM_UP:
            conn = _Connection(url)
            await _turn(conn, uuid.uuid4().hex, text)
            await conn.close()

    asyncio.run(go())


def _report(label: str, result: dict[str, Any], n: int, cpu: float | None, target: float,
            db_cpu: float | None = None) -> bool:
    """Print one scenario's figures; True when it met the target (0 errors, p95 < target)."""
    lat, errors = result["latencies"], result["errors"]
    print(f"  {label}:")
    if lat:
        print(f"    latency per turn (s): p50 {percentile(lat, 50):.3f}  p95 {percentile(lat, 95):.3f}  "
              f"max {max(lat):.3f}  mean {statistics.fmean(lat):.3f}")
        print("    by turn (s): " + "   ".join(
            f"#{t + 1} p50 {percentile(v, 50):.3f} p95 {percentile(v, 95):.3f}"
            for t, v in sorted(result["by_turn"].items())))
        if result["shown"] != lat:
            seen = result["shown"]
            print(f"    answer shown (s): p50 {percentile(seen, 50):.3f}  p95 {percentile(seen, 95):.3f}  "
                  f"max {max(seen):.3f} (the first update with the answer; the above is to the last, \"saved\")")
    line = (f"    turns ok {len(lat)}/{n}, errors {len(errors)}, wall {result['wall_s']:.2f} s, "
            f"{len(lat) / result['wall_s']:.1f} turns/s")
    if cpu is not None and lat:
        line += f", server CPU {1000 * cpu / max(1, len(lat) + len(errors)):.0f} ms/turn (with its turn workers)"
    if db_cpu is not None and lat:
        line += f", PostgreSQL server CPU {1000 * db_cpu / max(1, len(lat) + len(errors)):.1f} ms/turn"
    print(line + f", load average {os.getloadavg()[0]:.2f} (1 min, at the end)")
    for err in errors[:10]:
        print("    error:", err)
    met = bool(lat) and not errors and percentile(lat, 95) < target
    print(f"    0 errors and p95 < {target:g} s: {'met' if met else 'MISSED'}")
    return met


def _measure(url: str, proc: subprocess.Popen[bytes] | None, args: argparse.Namespace, scenarios: list[str],
             title: str, db_pid: int | None = None) -> tuple[bool, bool, dict[str, float]]:
    """Run the scenarios against one server; returns (any errors, every target met, p95 by scenario)."""
    _warm_up(url)
    print(f"{title}: {args.conversations} concurrent conversations × {args.turns} turns, {os.cpu_count()} CPUs, "
          f"{url}")
    errors, all_met, p95 = False, True, {}
    for name in scenarios:
        think = (0.0, 0.0) if name == "burst" else (args.think_min, args.think_max)
        cpu0, db0 = cpu_seconds(proc.pid if proc else None), cpu_seconds(db_pid)
        result = run(url, args.conversations, args.turns, think)
        cpu1, db1 = cpu_seconds(proc.pid if proc else None), cpu_seconds(db_pid)
        label = ("burst (no think time; a stress test)" if name == "burst"
                 else f"paced (think {think[0]:g}-{think[1]:g} s; people)")
        cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
        db_cpu = None if db0 is None or db1 is None else db1 - db0
        all_met &= _report(label, result, args.conversations * args.turns, cpu, args.p95_target, db_cpu)
        errors |= bool(result["errors"])
        if result["latencies"]:
            p95[name] = percentile(result["latencies"], 95)
            if result["shown"] != result["latencies"]:
                p95[f"{name} shown"] = percentile(result["shown"], 95)
    return errors, all_met, p95


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running app (default: start one on a free port)")
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--scenario", choices=("both", "burst", "paced"), default="both")
    parser.add_argument("--think-min", type=float, default=2.0, help="paced: seconds between answer and question")
    parser.add_argument("--think-max", type=float, default=8.0)
    parser.add_argument("--p95-target", type=float, default=1.0, help="seconds")
    parser.add_argument("--baseline", action="store_true",
                        help="also measure a do-nothing Gradio app of the same shape (the framework's floor)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a latency target is missed")
    parser.add_argument("--store", choices=(*STORES, "all"), default="memory",
                        help="where the started server keeps conversations (default memory; all: each in turn)")
    parser.add_argument("--database-url", help="--store postgresql: this server (default: a throwaway cluster)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="run the stores this many times in rotation (memory, SQLite, PostgreSQL, memory, …), so "
                             "that a busy spell on the shared machine does not fall on one store only; prints each "
                             "round's p95 against memory's")
    parser.add_argument("--serve-baseline", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_baseline:
        serve_baseline(args.serve_baseline)
        return 0
    scenarios = ["paced", "burst"] if args.scenario == "both" else [args.scenario]
    stores = list(STORES) if args.store == "all" else [args.store]
    runs = [(f"web chat (deterministic mode), store: {s}", False, s) for s in stores] * max(1, args.rounds)
    runs += [("baseline: do-nothing Gradio app", True, "memory")] if args.baseline else []
    failed = False
    rounds: list[dict[str, dict[str, float]]] = []
    with _databases(stores, args.database_url) as (urls, db_pid):
        for title, baseline, store in runs:
            if not baseline and (not rounds or store in rounds[-1]):
                rounds.append({})
            if len(runs) > 1 and not baseline:
                title += f" (round {len(rounds)})"
            proc = None
            url = None if baseline else args.url
            if not url:
                port = _free_port()
                proc = start_server(port, baseline=baseline, database_url=urls[store])
                url = f"http://127.0.0.1:{port}/"
            try:
                errors, met, p95 = _measure(url, proc, args, scenarios, title,
                                            db_pid if store == "postgresql" and not baseline else None)
                if not baseline:
                    failed |= errors or (args.strict and not met)
                    rounds[-1][store] = p95
            finally:
                if proc is not None:
                    proc.terminate()
                    proc.wait(timeout=10)
    _summary(rounds, scenarios)
    return 1 if failed else 0


def _summary(rounds: list[dict[str, dict[str, float]]], scenarios: list[str]) -> None:
    """Each round's p95 per store and scenario, and its change against memory's in the same round (issue 16's
    target: within 20 %)."""
    if not any("memory" in r and len(r) > 1 for r in rounds):
        return
    print("p95 (s) against memory's in the same round:")
    for i, by_store in enumerate(rounds, 1):
        base = by_store.get("memory", {})
        cells = []
        for store, p95 in by_store.items():
            for name in [n for s in scenarios for n in (s, f"{s} shown")]:
                if name not in p95:
                    continue
                change = f" ({100 * (p95[name] / base[name] - 1):+.0f} %)" if store != "memory" and base.get(name) else ""
                cells.append(f"{store} {name} {p95[name]:.3f}{change}")
        print(f"  round {i}: " + ", ".join(cells))


STORES = ("memory", "sqlite", "postgresql")


@contextlib.contextmanager
def _databases(stores: list[str], database_url: str | None) -> Iterator[tuple[dict[str, str], int | None]]:
    """GPU_ADVISOR_DATABASE_URL for each store: a fresh SQLite file, the given or a throwaway PostgreSQL; and the
    throwaway server's process id (its CPU time, with its backends', is reported; None for --database-url)."""
    with tempfile.TemporaryDirectory(prefix="load-web-") as tmp, contextlib.ExitStack() as stack:
        urls = {"memory": "memory", "sqlite": f"sqlite:///{Path(tmp) / 'advisor.db'}"}
        pid: int | None = None
        if "postgresql" in stores:
            if database_url:
                urls["postgresql"] = database_url
            else:
                sys.path.insert(0, str(ROOT))
                from tests.pg_cluster import PgCluster, missing_reason

                reason = missing_reason()
                if reason:
                    raise SystemExit(f"--store postgresql: {reason} (or pass --database-url)")
                cluster = PgCluster(durable=True)  # fsync on
                urls["postgresql"] = stack.enter_context(cluster)
                pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
        yield urls, pid


if __name__ == "__main__":
    raise SystemExit(main())
