"""`gpu-advisor mcp` driven as a subprocess by the official SDK's own client (`ClientSession` + `stdio_client`, and
`streamable_http_client` on a loopback port): tools listed with the argument models' schemas, every tool called
with valid and invalid arguments, resources and prompts read, and the numbers equal to the CLI's `--json` for the
same inputs (computed in this process by `ui.cli.entry.main`, the CLI's own code path)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from tests.web_server import ROOT, free_port, offline_env  # noqa: E402


def _run_async(fn: Any, *args: Any) -> Any:
    """anyio.run in a thread of its own: the browser tests' Playwright (sync API) keeps an event loop running in the
    main thread for the whole session, and a second loop cannot start there."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn, *args).result()

# one valid call per tool; each result's summary must contain the given text
VALID: dict[str, tuple[dict[str, Any], str]] = {
    "estimate_memory": ({"model": "llama-3.1-70b", "gpu": "h100-sxm", "tp": 2, "gpus": 2}, "per GPU"),
    "estimate_throughput": ({"model": "qwen2.5-7b", "gpu": "rtx-4090", "concurrency": 4}, "tokens/s"),
    "train_time": ({"model": "llama-3.1-8b", "gpu": "h100-sxm", "count": 8, "tokens": 1e9}, "GPU-hours"),
    "tco": ({"gpu": "h100-sxm", "count": 8, "currency": "USD"}, "TCO"),
    "recommend": ({"model": "qwen2.5-32b", "region": "cn", "concurrency": 8}, "option"),
    "list_gpus": ({"min_memory_gib": 80, "vendor": "nvidia"}, "GPU(s) match"),
    "show_gpu": ({"gpu": "H20"}, "H20"),
    "list_models": ({"moe": True}, "model(s) match"),
    "show_model": ({"model": "deepseek r1"}, "DeepSeek-R1"),
    "check_claim": ({"query": "70B 4bit 28GB"}, "claim"),
    "ask": ({"text": "How many H100 do I need to serve Llama-3.1-70B to 20 users?"}, ""),
}

# one invalid call per tool: (arguments, the field named, a text the one-line message contains)
INVALID: dict[str, tuple[dict[str, Any], str, str]] = {
    "estimate_memory": ({"model": "llama-9"}, "model", "did you mean"),
    "estimate_throughput": ({"model": "qwen2.5-7b", "gpu": "rtx-4090", "count": 0}, "count", "greater than or equal to 1"),
    "train_time": ({"model": "llama-3.1-8b", "gpu": "h100-sxm", "tokens": -5}, "tokens", "greater than 0"),
    "tco": ({"gpu": "h100-sxm", "utilization": 1.5}, "utilization", "less than or equal to 1"),
    "recommend": ({"model": "qwen2.5-32b", "region": "mars"}, "region", "'cn' or 'global'"),
    "list_gpus": ({"min_memory_gib": -1}, "min_memory_gib", "greater than or equal to 0"),
    "show_gpu": ({"gpu": "h10"}, "gpu", "unknown gpu 'h10'; did you mean"),
    "list_models": ({"limit": 0}, "limit", "greater than or equal to 1"),
    "show_model": ({"model": "x" * 301}, "model", "at most 300 characters"),
    "check_claim": ({"query": "70B", "extra": 1}, "extra", "unknown field"),
    "ask": ({"text": "hi", "conversation_id": "not an id!"}, "conversation_id", "should match pattern"),
}


def _cli(argv: list[str]) -> dict[str, Any]:
    """`gpu-advisor ARGV --json` through the CLI's own entry point, in this process."""
    from ui.cli.entry import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--json"])
    assert code == 0, err.getvalue()
    return json.loads(out.getvalue())


# (tool, MCP arguments, CLI argv): the same inputs in both spellings
PARITY: list[tuple[str, dict[str, Any], list[str]]] = [
    ("estimate_memory", {"model": "llama-3.1-70b", "context": 8192, "batch": 4, "tp": 2, "gpus": 2, "gpu": "h100-sxm"},
     ["estimate", "--model", "llama-3.1-70b", "--context", "8192", "--batch", "4", "--tp", "2", "--gpus", "2",
      "--gpu", "h100-sxm"]),
    ("estimate_memory", {"model": "qwen2.5-32b", "task": "qlora", "context": 2048},
     ["estimate", "--model", "qwen2.5-32b", "--task", "qlora", "--context", "2048"]),
    ("estimate_memory", {"model": "llama-3.1-8b", "task": "full", "zero": 3, "gpus": 8, "optimizer": "adamw8bit"},
     ["estimate", "--model", "llama-3.1-8b", "--task", "full", "--zero", "3", "--gpus", "8", "--optimizer",
      "adamw8bit"]),
    ("estimate_memory", {"model": "qwen2.5-7b", "kv": "fp8", "context": 32768, "concurrency": 16, "gpu": "l20"},
     ["estimate", "--model", "qwen2.5-7b", "--kv", "fp8", "--context", "32768", "--concurrency", "16", "--gpu", "l20"]),
    ("estimate_memory", {"model": "deepseek-r1", "tp": 8, "gpus": 8, "gpu": "h200"},
     ["estimate", "--model", "deepseek-r1", "--tp", "8", "--gpus", "8", "--gpu", "h200"]),
    ("estimate_throughput", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "prompt_tokens": 1000, "output_tokens": 500,
                             "concurrency": 32},
     ["throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--prompt-tokens", "1000", "--output-tokens",
      "500", "--concurrency", "32"]),
    ("estimate_throughput", {"model": "llama-3.1-70b", "gpu": "h100-sxm", "count": 4, "concurrency": 8},
     ["throughput", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--count", "4", "--concurrency", "8"]),
    ("estimate_throughput", {"model": "qwen2.5-32b", "gpu": "rtx-4090", "count": 2, "weights": "awq-int4"},
     ["throughput", "--model", "qwen2.5-32b", "--gpu", "rtx-4090", "--count", "2", "--weights", "awq-int4"]),
    ("train_time", {"model": "llama-3.1-8b", "gpu": "h100-sxm", "count": 64, "tokens": 1e11},
     ["train-time", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--count", "64", "--tokens", "1e11"]),
    ("train_time", {"model": "qwen2.5-14b", "gpu": "rtx-4090", "task": "qlora", "tokens": 2e8},
     ["train-time", "--model", "qwen2.5-14b", "--gpu", "rtx-4090", "--task", "qlora", "--tokens", "2e8"]),
    ("tco", {"gpu": "h100-sxm", "count": 8, "currency": "USD", "years": 3, "utilization": 0.6},
     ["tco", "--gpu", "h100-sxm", "--count", "8", "--currency", "USD", "--years", "3", "--utilization", "0.6"]),
    ("tco", {"gpu": "rtx-4090", "count": 8, "currency": "CNY", "electricity_price": 0.8, "model": "qwen2.5-32b",
             "weights": "awq-int4", "concurrency": 32},
     ["tco", "--gpu", "rtx-4090", "--count", "8", "--currency", "CNY", "--electricity", "0.8", "--model",
      "qwen2.5-32b", "--weights", "awq-int4", "--concurrency", "32"]),
    ("recommend", {"model": "qwen2.5-32b", "concurrency": 30, "context": 8192, "region": "cn", "budget": 500000,
                   "currency": "CNY"},
     ["recommend", "--model", "qwen2.5-32b", "--concurrency", "30", "--context", "8192", "--region", "cn",
      "--budget", "500000", "--currency", "CNY"]),
    ("recommend", {"model": "llama-3.1-8b"}, ["recommend", "--model", "llama-3.1-8b"]),
]

# keys the CLI adds that the tool surface reports differently (none for these inputs; see the README)
CLI_ONLY = {"throughput"}  # tco --model: the CLI's note string "… tokens/s"; the tool reports it in `numbers`


async def _session_run(session: ClientSession) -> dict[str, Any]:
    out: dict[str, Any] = {"tools": (await session.list_tools()).tools, "valid": {}, "invalid": {}, "parity": []}
    for name, (args, _) in VALID.items():
        out["valid"][name] = await session.call_tool(name, args)
    for name, (args, _, _) in INVALID.items():
        out["invalid"][name] = await session.call_tool(name, args)
    out["unknown_tool"] = await session.call_tool("rm_rf", {})
    out["wrong_type"] = await session.call_tool("estimate_memory", {"model": "llama-3.1-8b", "context": "lots"})
    for name, args, _ in PARITY:
        out["parity"].append(await session.call_tool(name, args))
    first = out["valid"]["ask"].structured_content
    out["ask_zh"] = await session.call_tool("ask", {"text": "Qwen2.5-32B 推理，要几张 4090？"})
    out["ask_more"] = await session.call_tool("ask", {"text": "what about 8-bit weights?",
                                                      "conversation_id": first["conversation_id"]})
    out["resources"] = (await session.list_resources()).resources
    out["gpus"] = await session.read_resource("gpu-advisor://catalog/gpus")
    out["models"] = await session.read_resource("gpu-advisor://catalog/models")
    out["sources"] = await session.read_resource("gpu-advisor://sources")
    out["prompts"] = (await session.list_prompts()).prompts
    out["prompt"] = await session.get_prompt("quote_customer", {"model": "qwen2.5-72b", "budget": "1000000"})
    return out


@pytest.fixture(scope="module")
def stdio() -> dict[str, Any]:
    """One `gpu-advisor mcp` subprocess over stdio; every call of this module's tests, collected."""
    env = offline_env(PYTHONPATH=str(ROOT))
    params = StdioServerParameters(command=sys.executable, args=["-m", "ui.cli.entry", "mcp"], env=env, cwd=str(ROOT))

    async def main() -> dict[str, Any]:
        with tempfile.TemporaryFile("w+") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    info = await session.initialize()
                    out = await _session_run(session)
            errlog.seek(0)
            out["stderr"] = errlog.read()
        out["info"] = info
        return out

    return _run_async(main)


def test_lists_every_tool_with_the_argument_models_schemas(stdio):
    from advisor.conversation.tools import registry as T

    tools = {t.name: t for t in stdio["tools"]}
    assert set(tools) == set(VALID)
    assert tools["estimate_memory"].input_schema == T.EstimateMemoryArgs.model_json_schema()
    assert tools["recommend"].input_schema == T.RecommendArgs.model_json_schema()
    props = tools["train_time"].input_schema["properties"]
    assert props["tokens"]["exclusiveMinimum"] == 0 and props["tokens"]["maximum"] == 1e15
    assert tools["estimate_memory"].input_schema["properties"]["model"]["maxLength"] == 300
    assert all(t.description and len(t.description) > 40 for t in tools.values())
    assert tools["ask"].annotations.read_only_hint is False and tools["tco"].annotations.read_only_hint is True
    assert stdio["info"].server_info.name == "gpu-advisor"


@pytest.mark.parametrize("name", sorted(VALID))
def test_each_tool_answers_valid_arguments(stdio, name):
    result = stdio["valid"][name]
    body = result.structured_content
    assert result.is_error is False, result.content[0].text
    assert body["summary"] and VALID[name][1] in body["summary"]
    text = result.content[0].text
    assert text.splitlines()[0] == body["summary"] and json.loads(text.split("\n", 1)[1]) == body
    if name not in ("list_gpus", "list_models", "ask"):
        assert body["numbers"] and all({"name", "value", "unit", "source"} <= set(n) for n in body["numbers"])
        assert isinstance(body["findings"], list)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_each_tool_refuses_invalid_arguments_with_one_line(stdio, name):
    result = stdio["invalid"][name]
    _, field, text = INVALID[name]
    assert result.is_error is True
    message = result.content[0].text
    assert "\n" not in message and "Traceback" not in message and text in message, message
    assert result.structured_content["field"] == field and result.structured_content["error"] == message


def test_error_messages_name_what_is_accepted(stdio):
    unknown = stdio["invalid"]["show_gpu"].structured_content
    assert "h20" in unknown["suggestions"]
    region = stdio["invalid"]["recommend"].structured_content
    assert region["accepted"] == "'cn' or 'global'"
    extra = stdio["invalid"]["check_claim"].structured_content
    assert extra["accepted"] == "query"
    tool = stdio["unknown_tool"]
    assert tool.is_error and "unknown tool 'rm_rf'" in tool.content[0].text and "estimate_memory" in tool.content[0].text
    typed = stdio["wrong_type"]
    assert typed.is_error and typed.structured_content["field"] == "context"
    assert "valid integer" in typed.content[0].text
    assert "Traceback" not in stdio["stderr"]


@pytest.mark.parametrize("case", range(len(PARITY)), ids=[f"{p[0]}-{i}" for i, p in enumerate(PARITY)])
def test_numbers_equal_the_cli(stdio, case):
    name, _, argv = PARITY[case]
    result = stdio["parity"][case]
    assert result.is_error is False, result.content[0].text
    body = result.structured_content
    cli = _cli(argv)
    compared = [k for k in cli if k not in CLI_ONLY]
    assert len(compared) >= 5
    assert {k: body[k] for k in compared} == {k: cli[k] for k in compared}


def test_ask_in_both_languages_and_continues_a_conversation(stdio):
    en = stdio["valid"]["ask"].structured_content
    zh = stdio["ask_zh"].structured_content
    more = stdio["ask_more"].structured_content
    assert en["mode"] == "deterministic" and {"answer", "numbers", "findings", "questions"} <= set(en)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh["answer"]) and zh["conversation_id"] != en["conversation_id"]
    assert more["conversation_id"] == en["conversation_id"]
    assert "Llama-3.1-70B" in more["answer"] and "8" in more["answer"]  # the model carried over from turn one


def test_resources_are_the_catalogs_with_dates(stdio):
    from knowledge.catalog import load_catalog

    cat = load_catalog()
    assert {str(r.uri) for r in stdio["resources"]} == {"gpu-advisor://catalog/gpus", "gpu-advisor://catalog/models",
                                                        "gpu-advisor://sources"}
    gpus = json.loads(stdio["gpus"].contents[0].text)
    assert gpus["count"] == len(cat.gpus) and len(gpus["as_of"]) == 10
    h100 = next(g for g in gpus["gpus"] if g["id"] == "h100-sxm")
    assert h100["bf16_dense_flops"] == cat.gpu("h100-sxm").bf16_dense_flops and h100["prices"][0]["date"]
    models = json.loads(stdio["models"].contents[0].text)
    assert models["count"] == len(cat.models)
    sources = json.loads(stdio["sources"].contents[0].text)
    assert sources["count"] == len(cat.sources) and all("title" in s for s in sources["sources"])
    assert stdio["gpus"].contents[0].mime_type == "application/json"


def test_prompts(stdio):
    assert {p.name for p in stdio["prompts"]} == {"size_deployment", "quote_customer", "check_claim"}
    text = stdio["prompt"].messages[0].content.text
    assert "qwen2.5-72b" in text and "budget=1000000" in text and "as_of" in text


# ------------------------------------------------------------------------------------------------------------
# streamable HTTP

def _wait_port(port: int, proc: subprocess.Popen[bytes], timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError("server did not start")


@contextlib.contextmanager
def mcp_http(**env: str):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "mcp", "--http", "--port", str(port)], cwd=ROOT,
                            env=offline_env(**env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


TOKEN = "t0ken-for-the-test-suite-0123456789"


def test_streamable_http_on_loopback_with_a_bearer_token(stdio):
    import httpx
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    args = PARITY[0][1]

    async def call(url: str) -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    names = [t.name for t in (await session.list_tools()).tools]
                    return names, await session.call_tool("estimate_memory", args), \
                        await session.call_tool("show_gpu", {"gpu": "h10"})

    with mcp_http(GPU_ADVISOR_MCP_TOKEN=TOKEN) as url:
        names, ok, bad = _run_async(call, url)
        anon = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=10)
        wrong = httpx.post(url, json={}, headers={"Authorization": "Bearer nope"}, timeout=10)
    assert names == [t.name for t in stdio["tools"]]
    assert ok.structured_content == stdio["parity"][0].structured_content  # same numbers over either transport
    assert bad.is_error and "did you mean" in bad.content[0].text
    assert anon.status_code == 401 and wrong.status_code == 401 and anon.json()["field"] == "authorization"


def test_streamable_http_is_stateless():
    import httpx

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "estimate_memory", "arguments": {"model": "llama-3.1-8b"}}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    with mcp_http() as url:
        first = httpx.post(url, json=init, headers=headers, timeout=30)
        # no session id to carry: a bare tools/call on a fresh connection is answered (any replica could)
        second = httpx.post(url, json=call, headers=headers, timeout=30)
        huge = httpx.post(url, content=b"{" + b" " * 100_000 + b"}", headers={**headers, "content-type":
                                                                                 "application/json"}, timeout=30)
    assert first.status_code == 200 and "mcp-session-id" not in first.headers
    assert second.status_code == 200, second.text
    assert second.json()["result"]["structuredContent"]["per_gpu_bytes"]["total"] > 0
    assert huge.status_code == 413


def test_refuses_to_serve_beyond_loopback_without_a_token():
    proc = subprocess.run([sys.executable, "-m", "ui.cli.entry", "mcp", "--http", "--host", "0.0.0.0", "--port",
                           str(free_port())], cwd=ROOT, env=offline_env(), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "gpu-advisor: error: --host 0.0.0.0: serving MCP beyond this machine needs a bearer token in "
        "GPU_ADVISOR_MCP_TOKEN (accepted: 127.0.0.1/localhost/::1, or set GPU_ADVISOR_MCP_TOKEN)"]
