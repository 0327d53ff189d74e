"""The versioned HTTP API against started servers (`gpu-advisor api` and the web process), with an HTTP client:
every endpoint, the OpenAPI document validated by openapi-spec-validator, auth when configured, oversized and
malformed bodies refused with the error contract."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from tests.web_server import ROOT, WebServer, free_port, offline_env  # noqa: E402


@contextlib.contextmanager
def api_server(**env: str):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "ui.cli.entry", "api", "--port", str(port)], cwd=ROOT,
                            env=offline_env(**{"GPU_ADVISOR_DATA_DIR": tempfile.mkdtemp(prefix="api-"), **env}), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"api exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("api did not start")
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/api/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def api():
    with api_server() as base, httpx.Client(base_url=base, timeout=60) as client:
        yield client


def _cli(argv: list[str]) -> dict[str, Any]:
    from ui.cli.entry import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--json"]) == 0
    return json.loads(out.getvalue())


POSTS = {
    "/estimate": ({"model": "llama-3.1-70b", "gpu": "h100-sxm", "tp": 2, "gpus": 2}, "per_gpu_bytes"),
    "/throughput": ({"model": "qwen2.5-7b", "gpu": "rtx-4090", "concurrency": 4}, "decode_tokens_per_s"),
    "/train-time": ({"model": "llama-3.1-8b", "gpu": "h100-sxm", "count": 8, "tokens": 1e9}, "gpu_hours"),
    "/tco": ({"gpu": "h100-sxm", "count": 8, "currency": "USD"}, "tco"),
    "/recommend": ({"model": "qwen2.5-32b", "region": "cn", "concurrency": 8}, "options"),
    "/check-claim": ({"query": "70B 4bit 28GB"}, "claims"),
    "/ask": ({"text": "Qwen2.5-32B 推理，要几张 4090？"}, "answer"),
}
GETS = {
    "/gpus?min_memory_gib=80&vendor=nvidia": "gpus",
    "/gpus/h20": "memory_bytes",
    "/models?moe=true": "models",
    "/models/qwen2.5-7b": "num_layers",
}


@pytest.mark.parametrize("path", sorted(POSTS))
def test_each_post_endpoint(api, path):
    body, key = POSTS[path]
    r = api.post(path, json=body)
    assert r.status_code == 200, r.text
    data = r.json()
    assert key in data and data["summary"] and isinstance(data.get("findings", []), list)


@pytest.mark.parametrize("path", sorted(GETS))
def test_each_get_endpoint(api, path):
    r = api.get(path)
    assert r.status_code == 200, r.text
    assert GETS[path] in r.json()


def test_numbers_equal_the_cli(api):
    est = api.post("/estimate", json={"model": "llama-3.1-70b", "context": 8192, "gpu": "h100-sxm", "tp": 2,
                                      "gpus": 2}).json()
    cli = _cli(["estimate", "--model", "llama-3.1-70b", "--context", "8192", "--gpu", "h100-sxm", "--tp", "2",
                "--gpus", "2"])
    assert {k: est[k] for k in cli} == cli
    thr = api.post("/throughput", json={"model": "llama-3.1-8b", "gpu": "h100-sxm", "concurrency": 16}).json()
    cli = _cli(["throughput", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--concurrency", "16"])
    assert {k: thr[k] for k in cli} == cli
    gpus = api.get("/gpus").json()
    assert gpus["gpus"] == _cli(["gpus"]) and gpus["count"] == len(gpus["gpus"])
    assert api.get("/models").json()["models"] == _cli(["models"])
    assert api.get("/gpus/h100-sxm").json()["memory_bytes"] == _cli(["gpus", "show", "h100-sxm"])["memory_bytes"]


def test_filters(api):
    big = api.get("/gpus", params={"min_memory_gib": 141}).json()["gpus"]
    assert big and all(g["memory_bytes"] >= 141 * 2**30 for g in big)
    moe = api.get("/models", params={"moe": "true"}).json()["models"]
    assert moe and all(m["moe"] for m in moe)
    small = api.get("/models", params={"max_params_b": 10}).json()["models"]
    assert small and all(m["params"] <= 10e9 for m in small)


def test_ask_continues_a_conversation(api):
    first = api.post("/ask", json={"text": "Llama-3.1-70B inference for 20 users on H100"}).json()
    more = api.post("/ask", json={"text": "and with 8-bit weights?", "conversation_id": first["conversation_id"]})
    assert more.status_code == 200 and more.json()["conversation_id"] == first["conversation_id"]
    assert first["mode"] == "deterministic" and "Llama-3.1-70B" in more.json()["answer"]


@pytest.mark.parametrize(("path", "body", "field", "accepted"), [
    ("/estimate", {"model": "llama-3.1-8b", "context": 0}, "context", "≥ 1"),
    ("/estimate", {"model": "llama-3.1-8b", "task": "dance"}, "task", "'inference', 'full', 'lora', 'qlora', "
                                                                      "'freeze' or 'pretrain'"),
    ("/recommend", {"model": "qwen2.5-32b", "region": "mars"}, "region", "'cn' or 'global'"),
    ("/tco", {"gpu": "h100-sxm", "utilization": 2}, "utilization", "≤ 1"),
    ("/train-time", {"model": "llama-3.1-8b", "gpu": "h100-sxm"}, "tokens", "a value (required)"),
    ("/ask", {"text": "x" * 4001}, "text", "at most 4000 characters or items"),
])
def test_out_of_range_fields_get_422_with_the_field_and_accepted_values(api, path, body, field, accepted):
    r = api.post(path, json=body)
    assert r.status_code == 422
    err = r.json()
    assert err["field"] == field and err["accepted"] == accepted
    assert "\n" not in err["error"] and err["error"].startswith("invalid arguments for ")


def test_unknown_ids_and_fields(api):
    r = api.post("/estimate", json={"model": "llama-9"})
    assert r.status_code == 422 and r.json()["field"] == "model" and "llama-3-8b" in r.json()["suggestions"]
    r = api.get("/gpus/h10")
    assert r.status_code == 422 and "did you mean" in r.json()["error"] and "h20" in r.json()["suggestions"]
    r = api.post("/estimate", json={"model": "llama-3.1-8b", "gpu_count": 2})
    assert r.status_code == 422 and r.json()["field"] == "gpu_count" and "gpus" in r.json()["accepted"].split(", ")
    r = api.get("/gpus", params={"colour": "green"})
    assert r.status_code == 422 and r.json()["field"] == "colour"


def test_malformed_bodies_are_rejected(api):
    for content in (b'{"model": ', b"not json", b"\xff\xfe"):
        r = api.post("/estimate", content=content, headers={"content-type": "application/json"})
        assert r.status_code == 422 and r.json()["field"] == "body", (content, r.text)
    r = api.post("/estimate", json=[1, 2])
    assert r.status_code == 422 and "Traceback" not in r.text
    r = api.post("/estimate", json={"model": "llama-3.1-8b", "context": "inf"})
    assert r.status_code == 422 and r.json()["field"] == "context"


def test_oversized_bodies_get_413(api):
    big = json.dumps({"model": "x" * 70_000}).encode()
    r = api.post("/estimate", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["field"] == "body"

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(80):
            yield b" " * 1000

    r = api.post("/estimate", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_openapi_document_validates_and_is_generated_from_the_models(api):
    from openapi_spec_validator import validate

    from advisor.conversation.tools import registry as T

    doc = api.get("/openapi.json").json()
    validate(doc)
    paths = set(doc["paths"])
    assert {"/api/v1/estimate", "/api/v1/throughput", "/api/v1/train-time", "/api/v1/tco", "/api/v1/recommend",
            "/api/v1/gpus", "/api/v1/gpus/{gpu}", "/api/v1/models", "/api/v1/models/{model}", "/api/v1/ask",
            "/api/v1/check-claim"} <= paths
    schema = doc["components"]["schemas"]["TrainTimeArgs"]
    assert set(schema["properties"]) == set(T.TrainTimeArgs.model_fields)
    assert schema["properties"]["tokens"]["maximum"] == 1e15
    assert "422" in doc["paths"]["/api/v1/estimate"]["post"]["responses"]


def test_auth_enforced_when_configured():
    with api_server(GPU_ADVISOR_WEB_AUTH="ana:s3cret-pass", GPU_ADVISOR_API_TOKEN="tok-0123456789abcdef") as base:
        body = {"model": "llama-3.1-8b"}
        anon = httpx.post(base + "/estimate", json=body, timeout=30)
        wrong = httpx.post(base + "/estimate", json=body, auth=("ana", "nope"), timeout=30)
        basic = httpx.post(base + "/estimate", json=body, auth=("ana", "s3cret-pass"), timeout=30)
        bearer = httpx.get(base + "/gpus/h20", headers={"Authorization": "Bearer tok-0123456789abcdef"}, timeout=30)
        garbage = httpx.get(base + "/gpus", headers={"Authorization": "Basic " + base64.b64encode(b"\xff").decode()},
                            timeout=30)
        spec = httpx.get(base + "/openapi.json", timeout=30)
    assert anon.status_code == 401 and anon.headers["www-authenticate"].startswith("Basic")
    assert wrong.status_code == 401 and garbage.status_code == 401 and spec.status_code == 401
    assert basic.status_code == 200 and basic.json()["per_gpu_bytes"]["total"] > 0
    assert bearer.status_code == 200


@pytest.mark.slow
def test_the_web_process_serves_the_api_behind_its_login():
    with WebServer(GPU_ADVISOR_WEB_AUTH="ana:s3cret-pass", name="web-api-v1") as url:
        anon = httpx.post(url + "api/v1/estimate", json={"model": "llama-3.1-8b"}, timeout=30)
        ok = httpx.post(url + "api/v1/estimate", json={"model": "llama-3.1-8b"}, auth=("ana", "s3cret-pass"),
                        timeout=30)
        bad = httpx.post(url + "api/v1/tco", json={"gpu": "h100-sxm", "years": 50}, auth=("ana", "s3cret-pass"),
                         timeout=30)
        page = httpx.get(url, timeout=30)  # the chat itself still answers (its own login page)
    assert anon.status_code == 401
    assert ok.status_code == 200
    assert ok.json()["per_gpu_bytes"] == _cli(["estimate", "--model", "llama-3.1-8b"])["per_gpu_bytes"]
    assert bad.status_code == 422 and bad.json()["field"] == "years"
    assert page.status_code == 200
