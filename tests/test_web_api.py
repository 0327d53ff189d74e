"""The running web app through its public API (`gradio_client`, api_name="/chat"), in deterministic mode.

One `gpu-advisor web` subprocess on a free port with no API key; each `Client` is one browser session.
Outputs of /chat, in order: chat history, mode, Markdown export, JSON export, this turn's JSON (the chart, table
and plots beside the chat are drawn by a private follow-up event from the same session; see the browser tests).
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.web_server import WebServer

gradio_client = pytest.importorskip("gradio_client")

GIB = 2**30


@pytest.fixture(scope="module")
def url():
    with WebServer(name="web-server-api") as base:
        yield base


def _client(url):
    return gradio_client.Client(url, verbose=False, download_files=False)


def _ask(client, message, ui_lang="en"):
    out = client.predict(message=message, ui_lang=ui_lang, api_name="/chat")
    keys = ("chat", "mode", "export_md", "export_json", "raw")
    assert len(out) == len(keys)
    return dict(zip(keys, out))


def _text(message):
    content = message["content"]
    return "".join(c.get("text", "") for c in content) if isinstance(content, list) else str(content)


def _fetch(url, update):
    value = update["value"] if isinstance(update, dict) and "__type__" in update else update
    if isinstance(value, dict):  # FileData (download_files=False): served by the app at its url
        target = value.get("url") or url + "gradio_api/file=" + value["path"]
    else:
        target = url + "gradio_api/file=" + value
    r = httpx.get(target, timeout=10)
    assert r.status_code == 200
    return r.text


def test_only_the_chat_endpoint_is_public(url):
    api = _client(url).view_api(print_info=False, return_format="dict")
    # /open continues a stored conversation by its id (the conversation store, ui/web/store.py)
    assert list(api["named_endpoints"]) == ["/chat", "/open"] and not api["unnamed_endpoints"]
    params = [p["parameter_name"] for p in api["named_endpoints"]["/chat"]["parameters"]]
    assert params == ["message", "ui_lang"]
    params = [p["parameter_name"] for p in api["named_endpoints"]["/open"]["parameters"]]
    assert params == ["cid", "ui_lang"]


def test_english_question_refinement_and_export(url):
    client = _client(url)
    first = _ask(client, "Serve Llama 3 70B in INT4 with 8k context for 50 users")
    answer = _text(first["chat"][-1])
    assert re.search(r"\d+(\.\d+)? GiB", answer), answer
    steps = [m for m in first["chat"] if m.get("metadata") and m["metadata"].get("title")]
    assert steps and all(m["metadata"]["status"] == "done" for m in steps)
    assert "deterministic" in first["mode"]
    raw = first["raw"]
    assert raw["mode"] == "deterministic" and raw["options"]
    top = raw["options"][0]
    # the answer quotes the first option's per-GPU total in GiB (2^30 bytes), as computed by the estimator
    assert f"{top['per_gpu_bytes']['total'] / GIB:,.1f} GiB" in answer
    assert raw["memory"]["total"] == top["per_gpu_bytes"]["total"]
    # refinement: same session, precision changes, the conversation remembers the rest
    second = _ask(client, "what about 8-bit weights instead?")
    job = second["raw"]["workload"].get("workload", second["raw"]["workload"])
    assert job["weights"] in ("int8", "fp8") and job["context"] == 8192 and job["concurrency"] == 50
    assert len(second["chat"]) > len(first["chat"])
    new = second["raw"]["options"][0]
    # 8-bit weights take more memory than 4-bit in all (per-GPU share × GPUs, whatever the new layout)
    assert new["per_gpu_bytes"]["weights"] * new["count"] > top["per_gpu_bytes"]["weights"] * top["count"]
    # reserved inside Gradio's file cache (served without Gradio hashing and copying it each turn) and written
    # only when first requested
    assert "/gpu-advisor-exports/" in second["export_md"]["path"]
    from pathlib import Path

    assert not Path(second["export_md"]["path"]).exists() and not Path(second["export_json"]["path"]).exists()
    md = _fetch(url, second["export_md"])
    assert md.startswith("# GPU recommendation") and "what about 8-bit" in md and "GiB" in md
    doc = json.loads(_fetch(url, second["export_json"]))
    assert doc["units"]["memory"] == "bytes"
    assert [(o["gpu"], o["count"], o["per_gpu_bytes"]) for o in doc["options"]] == [
        (o["gpu"], o["count"], o["per_gpu_bytes"]) for o in second["raw"]["options"]]


def test_chinese_question_gets_chinese_answer_and_panels(url):
    out = _ask(_client(url), "部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，国内", ui_lang="zh")
    answer = _text(out["chat"][-1])
    assert re.search(r"[\u4e00-\u9fff]", answer) and "GiB" in answer
    assert out["raw"]["lang"] == "zh" and out["raw"]["options"] and "确定性" in out["mode"]
    assert _fetch(url, out["export_md"]).startswith("# GPU 配置建议")  # the quote in the interface language


def test_sessions_do_not_see_each_other(url):
    a, b = _client(url), _client(url)
    _ask(a, "Llama 3 8B LoRA fine-tuning, secret project alpha")
    out = _ask(b, "Mistral 7B inference, 4k context")
    assert not any("alpha" in _text(m) for m in out["chat"])
    assert sum(m["role"] == "user" for m in out["chat"]) == 1


@pytest.mark.parametrize("message, expect", [
    ("", "Please type a question"),
    ("x" * 100_000, "100,000 characters"),
    ("🙂🚀🔥", "no letters or digits"),
])
def test_bad_input_gets_a_clear_reply(url, message, expect):
    out = _ask(_client(url), message)
    reply = _text(out["chat"][-1])
    assert expect in reply and "Traceback" not in reply


def test_html_in_a_message_is_not_markup(url):
    out = _ask(_client(url), "<script>alert('x')</script><img src=x onerror=alert(1)> Llama 3 8B inference")
    for message in out["chat"]:
        assert "<script" not in _text(message) and "<img" not in _text(message)
    assert "&lt;script&gt;" in _text(out["chat"][0])


def test_parallel_sessions_all_answer(url):
    questions = ["Llama 3 8B inference, 4k context", "Qwen2.5-14B 推理，8k 上下文", "Mistral 7B QLoRA",
                 "Llama 2 13B inference, 16 users"]

    def one(q):
        return _ask(_client(url), q)

    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(one, questions))
    for q, out in zip(questions, outs):
        assert _text(out["chat"][0]) == q and _text(out["chat"][-1])


def test_request_size_limit_and_no_uploads(url):
    big = httpx.post(url + "gradio_api/queue/join", content=b"x" * 2_000_000,
                     headers={"content-type": "application/json"}, timeout=10)
    assert big.status_code == 413
    up = httpx.post(url + "gradio_api/upload", files={"files": ("a.txt", b"x")}, timeout=10)
    assert up.status_code == 403
    assert httpx.get(url + "gradio_api/file=/etc/passwd", timeout=10).status_code in (403, 404)


def test_auth_setting_requires_login():
    with WebServer(name="web-server-auth", GPU_ADVISOR_WEB_AUTH="sales:quote-2025") as base:
        with pytest.raises(Exception):
            gradio_client.Client(base, verbose=False)
        client = gradio_client.Client(base, auth=("sales", "quote-2025"), verbose=False, download_files=False)
        out = client.predict(message="Llama 3 8B inference", api_name="/chat")
        assert out[-1]["mode"] == "deterministic"
