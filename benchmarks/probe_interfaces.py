"""The hostile-client probe of the program interfaces (issue 31), against real servers on loopback: `gpu-advisor api`
and `gpu-advisor mcp --http` started from a checkout (default: this one; `--root /path/to/other/checkout` probes
another, e.g. the code before the fixes), each with a fresh data directory. Prints one line per probe and, with
`--json FILE`, writes the figures.

    python benchmarks/probe_interfaces.py [--root DIR] [--json out.json] [--quick]

Probes: HTTP Basic and MCP bearer brute force (then the right credential), slow headers and idle GET /mcp streams,
security headers, a flood of new `ask` conversations against a real client's follow-up, TCO inputs that made inf,
bodies that cannot be parsed, the documented bounds the server refused, loose coercion, and `ask` after a restart.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parents[1]
USER, PASSWORD, TOKEN = "probe", "probe-password-1", "probe-token-0123456789"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def server(root: Path, argv: list[str], env: dict[str, str]) -> Any:
    port = free_port()
    full = {**os.environ, "PYTHONPATH": str(root), "OPENAI_API_KEY": "", "ADVISOR_MODEL": "", **env}
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", *argv, "--port", str(port)], cwd=root, env=full,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 90
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{argv} did not start")
            time.sleep(0.1)
        yield port, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.wait(10)


def basic(user: str, password: str) -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def open_after(port: int, n: int, wait_s: float, request: bytes) -> int:
    """Connections (of n) that send `request` a line at a time, never finishing the headers, still open after
    wait_s."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        socks.append(s)
    lines = request.split(b"\r\n")
    start = time.monotonic()
    i = 0
    while time.monotonic() - start < wait_s:
        for s in socks:
            try:
                s.send(lines[i % len(lines)] + b"\r\n" if i < len(lines) else b"X-a: b\r\n")
            except OSError:
                pass
        i += 1
        time.sleep(1.0)
    alive = 0
    for s in socks:
        try:
            s.recv(1)  # b"" (closed) or an answer: the server let go
        except BlockingIOError:
            alive += 1  # nothing to read: still held open
        except OSError:
            pass
        s.close()
    return alive


def probe(root: Path, quick: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    data = tempfile.mkdtemp(prefix="probe-data-")
    env = {"GPU_ADVISOR_DATA_DIR": data, "GPU_ADVISOR_DATABASE_URL": f"sqlite:///{data}/advisor.db",
           "GPU_ADVISOR_WEB_AUTH": f"{USER}:{PASSWORD}", "GPU_ADVISOR_API_TOKEN": TOKEN}
    # 1. HTTP Basic brute force on the API
    with server(root, ["api"], env) as (port, _):
        base = f"http://127.0.0.1:{port}/api/v1"
        with httpx.Client(timeout=30) as c:
            start = time.monotonic()
            codes = Counter(c.get(base + "/gpus/h20", headers=basic(USER, f"wrong{i}")).status_code for i in range(300))
            elapsed = time.monotonic() - start
            right = c.get(base + "/gpus/h20", headers=basic(USER, PASSWORD))
            out["basic_bruteforce"] = {"codes": dict(codes), "seconds": round(elapsed, 2),
                                       "right_password_then": right.status_code,
                                       "retry_after": right.headers.get("retry-after")}
            r = c.get(base + "/gpus/h20", headers=basic(USER, PASSWORD))
            out["security_headers_api"] = sorted(k for k in r.headers if k in (
                "content-security-policy", "x-frame-options", "x-content-type-options", "referrer-policy"))
    env_open = {k: v for k, v in env.items() if k not in ("GPU_ADVISOR_WEB_AUTH", "GPU_ADVISOR_API_TOKEN")}
    # 2. MCP bearer brute force
    with server(root, ["mcp", "--http"], {**env_open, "GPU_ADVISOR_MCP_TOKEN": TOKEN}) as (port, _):
        url = f"http://127.0.0.1:{port}/mcp"
        with httpx.Client(timeout=30) as c:
            start = time.monotonic()
            codes = Counter(c.post(url, json={}, headers={"authorization": f"Bearer wrong{i}"}).status_code
                            for i in range(200))
            out["mcp_bearer_bruteforce"] = {"codes": dict(codes), "seconds": round(time.monotonic() - start, 2)}
    # 3. slow headers and idle event streams
    wait = 6.0 if quick else 14.0
    for name, argv in (("api", ["api"]), ("mcp", ["mcp", "--http"])):
        with server(root, argv, env_open) as (port, proc):
            held = open_after(port, 30, wait, b"GET /api/v1/gpus HTTP/1.1\r\nHost: x\r\nUser-Agent: probe")
            out[f"slow_headers_{name}"] = {"connections": 30, "open_after_s": wait, "still_open": held}
            if name == "mcp":
                start = time.monotonic()
                streams, statuses = [], Counter()
                for _ in range(50 if quick else 300):
                    s = socket.create_connection(("127.0.0.1", port))
                    s.settimeout(5)
                    try:
                        s.sendall(f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
                                  .encode())
                        head = s.recv(200)
                        statuses[head.split(b" ")[1].decode() if head else "closed"] += 1
                    except TimeoutError:
                        statuses["no answer"] += 1
                    except OSError:
                        statuses["connection refused (cap per address)"] += 1
                    streams.append(s)
                time.sleep(7)  # past the keep-alive timeout (5 s): what is still held is a stream
                still = 0
                for s in streams:
                    s.settimeout(0.05)
                    try:
                        while s.recv(4096):  # the rest of an answer, then b"" once the server has closed
                            pass
                    except TimeoutError:
                        still += 1  # nothing more and not closed: held open
                    except OSError:
                        pass
                    s.close()
                out["idle_streams_mcp"] = {"opened": len(streams), "statuses": dict(statuses), "held_after_7s": still,
                                           "seconds": round(time.monotonic() - start, 2)}
    # 4. a flood of new conversations vs a real client; 5-7. inf, parse errors, bounds, coercion; 8. restart
    with server(root, ["api"], env_open) as (port, proc):
        base = f"http://127.0.0.1:{port}/api/v1"
        with httpx.Client(timeout=60) as c:
            first = c.post(base + "/ask", json={"text": "部署 Llama-3.1-70B，8k 上下文，40 个并发用户，用什么显卡？"}).json()
            cid = first["conversation_id"]
            start = time.monotonic()
            n = 200 if quick else 1001
            codes = Counter(c.post(base + "/ask", json={"text": "hi"}).status_code for _ in range(n))
            follow = c.post(base + "/ask", json={"text": "那换成 FP8 呢？", "conversation_id": cid})
            fb = follow.json()
            out["ask_flood"] = {"new_conversations": n, "codes": dict(codes), "seconds": round(time.monotonic() - start, 1),
                                "follow_up_status": follow.status_code,
                                "follow_up_same_conversation": fb.get("conversation_id") == cid,
                                "follow_up_asks_for_model": any("model" in q.lower() or "模型" in q
                                                                for q in fb.get("questions", []))}
            r = c.post(base + "/tco", json={"gpu": "h100-sxm", "years": 5e-324, "utilization": 5e-324})
            out["tco_inf"] = {"status": r.status_code, "inf_in_body": "inf" in r.text.replace("info", "").lower()}
            bodies = [b'{"model": "\xff"}', b"[" * 5000, b'{"a":' * 3000, b"\xc3\x28", b'{"model":"x"' * 2]
            shapes = Counter()
            for b in bodies:
                r = c.post(base + "/estimate", content=b, headers={"content-type": "application/json"})
                shapes[f"{r.status_code} {sorted(r.json())}"] += 1
            out["unparsable_bodies"] = dict(shapes)
            checks = {
                "deadline_s 5e9 (documented max)": c.post(base + "/recommend", json={
                    "model": "llama-3.1-8b", "task": "full", "train_tokens": 1e9, "deadline_s": 5e9}),
                "electricity_price 50 CNY": c.post(base + "/tco", json={"gpu": "h100-sxm", "electricity_price": 50}),
                "gpus 1024 x nodes 1024 with gpu": c.post(base + "/estimate", json={
                    "model": "llama-3.1-8b", "gpu": "h100-sxm", "gpus": 1024, "nodes": 1024}),
                "gpus: true": c.post(base + "/estimate", json={"model": "llama-3.1-8b", "gpus": True}),
                "concurrency: '1_000'": c.post(base + "/estimate", json={"model": "llama-3.1-8b", "concurrency": "1_000"}),
                "context: '  12  '": c.post(base + "/estimate", json={"model": "llama-3.1-8b", "context": "  8192  "}),
                "gpu: ''": c.post(base + "/estimate", json={"model": "llama-3.1-8b", "gpu": ""}),
            }
            out["schema_and_coercion"] = {k: f"{r.status_code} field={r.json().get('field')}" for k, r in checks.items()}
            spec = c.get(base + "/openapi.json").json()["components"]["schemas"]
            deadline = spec["RecommendArgs"]["properties"]["deadline_s"]
            price = spec["TcoArgs"]["properties"]["electricity_price"]
            out["documented"] = {"deadline_s max": [s.get("maximum") for s in deadline.get("anyOf", [deadline])
                                                    if "maximum" in s],
                                 "electricity_price max": [s.get("maximum") for s in price.get("anyOf", [price])
                                                           if "maximum" in s],
                                 "electricity_price by currency": price.get("x-maximum-by-currency")}
        proc.kill()
        proc.wait(10)
    with server(root, ["api"], env_open) as (port, _):
        r = httpx.post(f"http://127.0.0.1:{port}/api/v1/ask", json={"text": "那换成 FP8 呢？", "conversation_id": cid},
                       timeout=60)
        body = r.json()
        out["ask_after_restart"] = {"status": r.status_code, "same_conversation": body.get("conversation_id") == cid,
                                    "asks_for_model": any("model" in q.lower() or "模型" in q
                                                          for q in body.get("questions", []))}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=HERE, help="the checkout to probe (default: this one)")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument("--quick", action="store_true", help="fewer connections and requests")
    args = parser.parse_args()
    figures = probe(args.root.resolve(), args.quick)
    for key, value in figures.items():
        print(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
