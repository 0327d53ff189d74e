"""The web chat in LLM mode, end to end and offline, through its public API (`gradio_client`, api_name="/chat").

`gpu-advisor web` runs in a subprocess with OPENAI_API_KEY=test, OPENAI_BASE_URL=<mock>/v1, ADVISOR_MODEL=mock-model;
its model is tests/mock_openai_server.py on 127.0.0.1 in this process, scripted per test: first a real tool call,
then an answer whose numbers are copied from that tool's result (computed here with `call_tool`, so the app's
grounding gate passes on its own computation). Checked: the mode indicator (LLM and the model's name), the tool
step as a collapsible "thought" (Gradio metadata title/status/duration, arguments in the body) shown while the turn
runs and kept above the answer, the turn JSON (mode "llm", steps, numbers), the conversation history reaching the
model on a follow-up, and the fallbacks (HTTP 500s; an invented number twice) to the deterministic answer with
its note and a "deterministic answer" mode.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque

import pytest

from tests.mock_openai_server import MockOpenAI, message, status, tool_calls
from tests.web_server import WebServer

gradio_client = pytest.importorskip("gradio_client")
pytest.importorskip("langchain_openai")

from advisor.conversation.grounding import gate as grounding  # noqa: E402
from advisor.conversation.llm.agent import AgentUnavailable  # noqa: E402
from advisor.conversation.tools.registry import call_tool  # noqa: E402
from ui.web import render as R  # noqa: E402

MODEL = "mock-model"
MEMORY_ARGS = {"model": "llama-3-70b", "gpu": "h100"}
RECOMMEND_ARGS = {"model": "llama-3-8b", "context": 8192, "concurrency": 10}
# Each mock reply waits this long, so the page's throttled stream (ui.web.chat.STREAM_INTERVAL_S = 0.1 s) sends an
# update with the finished tool step before the answer arrives.
REPLY_DELAY_S = 0.25


class Replies:
    """The mock's script for the current test: each reply after REPLY_DELAY_S; an empty script answers 500."""

    def __init__(self) -> None:
        self.items: deque[dict] = deque()

    def __call__(self, body: dict) -> dict:
        time.sleep(REPLY_DELAY_S)
        try:
            return self.items.popleft()
        except IndexError:
            return status(500, {"error": {"message": "mock script exhausted", "type": "mock_error"}})


@pytest.fixture(scope="module")
def mock():
    replies = Replies()
    with MockOpenAI(responder=replies) as srv:
        srv.replies = replies
        yield srv


@pytest.fixture(scope="module")
def url(mock):
    env = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": mock.base_url, "ADVISOR_MODEL": MODEL,
           "ADVISOR_BACKOFF_INITIAL_S": "0.01", "ADVISOR_REQUEST_TIMEOUT_S": "10", "ADVISOR_TURN_TIMEOUT_S": "20",
           "ADVISOR_READER": "agent"}  # the scripted tool loop
    with WebServer(name="web-server-llm", **env) as base:
        yield base


@pytest.fixture
def script(mock):
    """Queue this test's replies; afterwards every one must have been used (the app asked the model)."""
    mock.replies.items.clear()
    mock.requests.clear()
    yield mock.replies.items.extend
    left = list(mock.replies.items)
    mock.replies.items.clear()
    assert not left, f"the app did not ask the model for {left}"


def _shown(args: dict, name: str) -> dict[str, str]:
    return {n["name"]: n["display"] for n in call_tool(name, args).numbers}


def _memory_answer() -> str:
    s = _shown(MEMORY_ARGS, "estimate_memory")
    return (f"Llama-3-70B needs {s['total per GPU']} per GPU in BF16, so one H100 "
            f"({s['NVIDIA H100 SXM5 80GB memory']}) does not fit: {s['shortfall per GPU']} short.")


def _recommend_answer() -> str:
    s = _shown(RECOMMEND_ARGS, "recommend")
    first = next(k for k in s if k.startswith("option 1 (")).split("): ")[0] + "): "  # whatever the tool ranked first
    name = first[len("option 1 ("):-3]
    return (f"Take {name}: {s[first + 'memory per GPU']} per GPU of {s[first + 'GPU memory']}, "
            f"{s[first + 'decode speed, all sequences']} for all 10 users at 8k context.")


def _grounded(answer: str, name: str, args: dict) -> str:
    """The answer, after checking here that the app's grounding gate will accept it (a clear failure if not)."""
    report = grounding.check(answer, grounding.Pool.of([call_tool(name, args).data]))
    assert report.ok, [m.text for m in report.ungrounded]
    return answer


def _client(url):
    return gradio_client.Client(url, verbose=False, download_files=False)


def _ask(client, text, ui_lang="en"):
    """(updates streamed while the turn ran, final outputs by name)."""
    job = client.submit(message=text, ui_lang=ui_lang, api_name="/chat")
    updates = list(job)
    keys = ("chat", "mode", "export_md", "export_json", "raw")
    return updates, dict(zip(keys, job.result()))


def _text(msg) -> str:
    content = msg["content"]
    return "".join(c.get("text", "") for c in content) if isinstance(content, list) else str(content)


def _title(msg) -> str | None:
    return (msg.get("metadata") or {}).get("title")


def _this_turn(chat: list[dict]) -> list[dict]:
    """The assistant messages after the last user message."""
    last_user = max(i for i, m in enumerate(chat) if m["role"] == "user")
    return chat[last_user + 1:]


def _is_group(msg) -> bool:
    """The one collapsed "how this was computed" element the turn's tool steps are nested under."""
    meta = msg.get("metadata") or {}
    return str(meta.get("id", "")).startswith(R.STEPS_GROUP_ID) and not meta.get("parent_id")


def _step_titles(msgs: list[dict]) -> list[str | None]:
    """Titles of the messages, the steps group left out (the steps themselves are nested under it)."""
    return [_title(m) for m in msgs if not _is_group(m)]


def _step_args(msg) -> dict:
    block = re.search(r"```json\n(.*?)\n```", _text(msg), re.S)
    assert block, _text(msg)
    return json.loads(block.group(1))


def test_llm_turn_streams_the_tool_step_then_the_grounded_answer(url, mock, script):
    answer = _grounded(_memory_answer(), "estimate_memory", MEMORY_ARGS)
    script([tool_calls(("estimate_memory", MEMORY_ARGS)), message(answer)])
    start = time.monotonic()
    updates, out = _ask(_client(url), "How much memory does Llama-3-70B need on an H100?")
    elapsed = time.monotonic() - start

    # mode indicator and turn JSON
    assert out["mode"] == R.mode_badge("llm", MODEL, "en") and MODEL in out["mode"] and "LLM" in out["mode"]
    raw = out["raw"]
    assert raw["mode"] == "llm" and raw["model_name"] == MODEL and not raw["note"]
    assert [(s["name"], s["arguments"], s["ok"]) for s in raw["steps"]] == [("estimate_memory", MEMORY_ARGS, True)]
    assert raw["steps"][0]["duration_s"] > 0
    ref = {n["name"]: n["value"] for n in call_tool("estimate_memory", MEMORY_ARGS).numbers}
    assert {n["name"]: n["value"] for n in raw["numbers"]}.items() <= ref.items() and raw["numbers"]
    assert raw["memory"] and raw["memory"]["total"] == ref["total per GPU"]

    # the chat: the step as a collapsible thought (title, status, duration; arguments in its body), then the answer
    group, step, final = _this_turn(out["chat"])
    assert _is_group(group) and group["metadata"]["title"].startswith("How this was computed (1 tool call)")
    meta = step["metadata"]
    assert meta["parent_id"] == group["metadata"]["id"]
    assert meta["title"] == "🛠️ estimate_memory" and meta["status"] == "done"
    assert meta["duration"] == round(raw["steps"][0]["duration_s"], 4)
    assert _step_args(step) == MEMORY_ARGS
    assert not _title(final) and _text(final).startswith(answer)
    assert "`sizing-does-not-fit`" in _text(final)  # findings appended from rule metadata, not by the model

    # streamed: "working" first, then the finished step while the model was still writing, then the answer
    turns = [_this_turn(u[0]) for u in updates]
    assert [_title(m) for m in turns[0]] == [R.label("working", "en")]
    assert any(_step_titles(t) == ["🛠️ estimate_memory", R.label("working", "en")] for t in turns)
    assert elapsed < 15

    # what the model saw: our key, the tools, then the tool's result
    first, second = mock.completions
    assert first["headers"]["authorization"] == "Bearer test" and first["body"]["model"] == MODEL
    assert "estimate_memory" in {t["function"]["name"] for t in first["body"]["tools"]}
    tool_msg = second["body"]["messages"][-1]
    assert tool_msg["role"] == "tool" and json.loads(tool_msg["content"])["ok"] is True


def test_follow_up_sends_the_history_and_fills_the_options(url, mock, script):
    first_answer = _grounded(_memory_answer(), "estimate_memory", MEMORY_ARGS)
    second_answer = _grounded(_recommend_answer(), "recommend", RECOMMEND_ARGS)
    script([tool_calls(("estimate_memory", MEMORY_ARGS)), message(first_answer),
            tool_calls(("recommend", RECOMMEND_ARGS)), message(second_answer)])
    client = _client(url)
    _ask(client, "How much memory does Llama-3-70B need on an H100?")
    _, out = _ask(client, "And which GPU for Llama 3 8B, 8k context, 10 users?")
    # the model's third call (the follow-up's first) carries the earlier question and answer
    sent = json.dumps(mock.completions[2]["body"]["messages"], ensure_ascii=False)
    assert "How much memory does Llama-3-70B need on an H100?" in sent and first_answer in sent
    raw = out["raw"]
    assert raw["mode"] == "llm" and [s["name"] for s in raw["steps"]] == ["recommend"]
    ref = call_tool("recommend", RECOMMEND_ARGS).artifact["options"]
    assert [(o["gpu"], o["count"]) for o in raw["options"]] == [(o["gpu"], o["count"]) for o in ref]
    chat = out["chat"]
    assert [m["role"] for m in chat if not _is_group(m)] == ["user", "assistant", "assistant", "user", "assistant",
                                                             "assistant"]
    assert _step_titles(chat) == [None, "🛠️ estimate_memory", None, None, "🛠️ recommend", None]
    assert sum(map(_is_group, chat)) == 2  # one steps group per turn
    assert _text(chat[-1]).startswith(second_answer) and out["export_md"]  # a recommendation: export offered


def _deterministic(text: str):
    from advisor.conversation.session import Conversation

    return Conversation(driver="deterministic").respond(text)


def test_server_errors_fall_back_to_the_deterministic_answer_in_chinese(url, mock, script):
    script([status(500), status(500)])  # the call and its one retry (max_retries = 1)
    question = "部署 Llama-3-70B 推理，BF16，8k 上下文，10 并发"
    _, out = _ask(_client(url), question, ui_lang="zh")
    assert len(mock.completions) == 2
    assert out["mode"] == R.mode_badge("deterministic", MODEL, "zh", fallback=True) and MODEL in out["mode"]
    raw = out["raw"]
    note = AgentUnavailable("server_error").note("zh")
    assert raw["mode"] == "deterministic" and raw["note"] == note
    ref = _deterministic(question)
    assert raw["answer"] == ref.answer and ref.options  # the page shows what the deterministic dialog answers
    final = _this_turn(out["chat"])[-1]
    assert _text(final).startswith(R.safe_markdown(ref.answer)) and _text(final).endswith("> " + note)
    steps = [m for m in _this_turn(out["chat"]) if _title(m) and not _is_group(m)]
    assert [_title(m) for m in steps] == [f"🛠️ {s['name']}" for s in raw["steps"]] and steps


def test_an_invented_number_twice_falls_back_without_the_models_steps(url, mock, script):
    script([tool_calls(("estimate_memory", MEMORY_ARGS)), message("Llama-3-70B needs 123.4 GiB per GPU."),
            message("Sorry: it needs 123.4 GiB per GPU.")])
    question = "How much memory does Llama-3-70B need on an H100?"
    _, out = _ask(_client(url), question)
    assert len(mock.completions) == 3
    reask = mock.completions[2]["body"]["messages"][-1]
    assert reask["role"] == "user" and "123.4" in reask["content"]  # the grounding gate's one re-ask
    raw = out["raw"]
    assert raw["mode"] == "deterministic" and raw["note"] == AgentUnavailable("ungrounded").note("en")
    assert out["mode"] == R.mode_badge("deterministic", MODEL, "en", fallback=True)
    assert raw["answer"] == _deterministic(question).answer
    shown = _this_turn(out["chat"])
    assert not any("123.4" in _text(m) for m in shown)
    # the steps above the answer are the ones that produced it (the model's abandoned call is not among them)
    assert [t for t in _step_titles(shown) if t] == [f"🛠️ {s['name']}" for s in raw["steps"]]
