"""The web chat's turn logic, settings and request limits, without a server (conversation replaced by a double)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from knowledge.errors import InputError
from knowledge.structs import dump
from tests.web_fakes import GIB, FakeConversation
from ui.web import render as R
from ui.web.app import (
    ChatController,
    ExportStore,
    SessionState,
    WebSettings,
    _BodyLimit,
    conversation_mode,
    settings_from,
)


def _no_sweep(turn):
    return None


@pytest.fixture
def ctl(tmp_path):
    return ChatController(FakeConversation, exports=ExportStore(str(tmp_path)), sweep=_no_sweep)


def _run(ctl, text, state=None, lang="en"):
    updates = list(ctl.turn(text, state, lang))
    return updates, updates[-1]


def _texts(history):
    return [m["content"] for m in history]


def test_fast_turn_is_one_update_with_answer_exports_and_panels(ctl):
    state = SessionState()
    updates, final = _run(ctl, "Llama 70B for 50 users", state)
    assert len(updates) == 1  # deterministic turns take milliseconds: no intermediate updates to pay for
    history = final["chatbot"]
    assert [m["role"] for m in history] == ["user", "assistant", "assistant", "assistant"]
    group, step = history[1]["metadata"], history[2]["metadata"]  # the steps, collapsed under one element
    assert group["title"].startswith("How this was computed (1 tool call)") and group["status"] == "done"
    assert step["title"] == "🛠️ recommend" and step["status"] == "done" and step["parent_id"] == group["id"]
    assert history[-1]["content"].startswith("Turn 1: **2× H100-SXM**")
    panels = ctl.panels(state, "en")
    assert panels["table"]["data"][0][2] == "2× NVIDIA H100 SXM (TP 2)"
    assert sum(r["GiB"] for r in panels["memory"] if r["option"].startswith("1.")) == pytest.approx(80.0)
    assert "Capability nvlink 4090" in panels["findings"]  # the title; issue 30: no rule id shown to people
    md, js = Path(final["export_md"]), Path(final["export_json"])
    assert md.read_text().startswith("# GPU recommendation") and "Llama 70B for 50 users" in md.read_text()
    assert json.loads(js.read_text())["options"][0]["per_gpu_bytes"]["total"] == 60 * GIB
    assert final["raw"]["mode"] == "deterministic" and final["raw"]["numbers"][0]["unit"] == "bytes"
    assert "deterministic" in final["mode"]


def test_slow_llm_turn_shows_pending_and_steps_as_they_come(tmp_path, monkeypatch):
    import ui.web.chat as web  # the controller reads its limits there

    class Llm(FakeConversation):
        driver = "llm"
        settings = type("S", (), {"model": "qwen-test"})()

    monkeypatch.setattr(web, "STREAM_INTERVAL_S", 0.0)
    ctl = ChatController(Llm, exports=ExportStore(str(tmp_path)), sweep=_no_sweep)
    updates, final = _run(ctl, "Llama 70B")
    assert updates[0]["chatbot"][-1]["metadata"]["status"] == "pending"
    assert updates[1]["chatbot"][-2]["metadata"]["title"] == "🛠️ recommend"  # shown while still working
    assert updates[1]["chatbot"][-3]["metadata"]["status"] == "pending"  # under a group still working
    assert updates[1]["chatbot"][-1]["metadata"]["status"] == "pending"
    assert "`qwen-test`" in final["mode"] or "qwen-test" in final["mode"]


def test_follow_up_keeps_history_and_the_same_conversation(ctl):
    state = SessionState()
    _run(ctl, "Llama 70B", state)
    conv = state.conv
    _, final = _run(ctl, "what about 8 bit?", state)
    assert state.conv is conv and conv.turns == ["Llama 70B", "what about 8 bit?"]
    assert _texts(final["chatbot"])[-1].startswith("Turn 2:") and len(final["chatbot"]) == 8  # 2 × (question, steps group, step, answer)


def test_clarifying_turn_keeps_the_last_recommendation_for_export(ctl):
    state = SessionState()
    _, first = _run(ctl, "Llama 70B", state)
    table = ctl.panels(state, "en")["table"]
    _, second = _run(ctl, "clarify please", state)
    assert second["raw"]["questions"] == ["Which model?"]
    assert second["export_md"] == first["export_md"]  # nothing new to quote: the previous quote stays
    assert ctl.panels(state, "en")["table"] == table


def test_sessions_are_isolated(ctl):
    a, b = SessionState(), SessionState()
    _run(ctl, "Llama 70B for team A", a)
    _, fb = _run(ctl, "echo team B", b)
    assert a.conv is not b.conv and b.conv.turns == ["echo team B"]
    assert not any("team A" in t for t in _texts(fb["chatbot"]))


@pytest.mark.parametrize("text", ["", "x" * 100_000, "🙂🙂🙂"])
def test_bad_input_gets_a_reply_without_reaching_the_conversation(tmp_path, text):
    made = []
    ctl = ChatController(lambda: made.append(1) or FakeConversation(), exports=ExportStore(str(tmp_path)),
                         sweep=_no_sweep)
    updates, final = _run(ctl, text)
    assert len(updates) == 1 and made == []
    reply = final["chatbot"][-1]["content"]
    assert reply == R.check_message(text, "en")
    assert len(final["chatbot"][0]["content"]) < 400  # the 100 KB message is not echoed in full


def test_script_tags_are_displayed_not_executed(ctl):
    _, final = _run(ctl, "<script>alert('x')</script> echo")
    user, answer = final["chatbot"][0]["content"], final["chatbot"][-1]["content"]
    assert "<script" not in user and "<script" not in answer
    assert "&lt;script" in user and "&lt;script" in answer


def test_a_failing_driver_gives_a_reply_and_the_conversation_goes_on(ctl):
    state = SessionState()
    _run(ctl, "Llama 70B", state)
    updates, final = _run(ctl, "boom", state)
    reply = final["chatbot"][-1]["content"]
    assert "RuntimeError" in reply and "Traceback" not in reply and "driver exploded" not in reply
    _, after = _run(ctl, "Llama 8B", state)
    assert _texts(after["chatbot"])[-1].startswith("Turn 3:")


def test_factory_failure_is_a_reply(tmp_path):
    def broken():
        raise InputError("bad settings", message_zh="设置有误")

    ctl = ChatController(broken, exports=ExportStore(str(tmp_path)), sweep=_no_sweep)
    _, final = _run(ctl, "部署 70B")
    assert final["chatbot"][-1]["content"] == "设置有误"


def test_streamed_text_deltas_are_shown(tmp_path, monkeypatch):
    import ui.web.chat as web  # the controller reads its limits there

    monkeypatch.setattr(web, "STREAM_INTERVAL_S", 0.0)

    class Streaming(FakeConversation):
        def stream(self, text):
            yield "Hello "
            yield "world"
            from advisor.conversation.turn import Turn
            yield Turn(answer="Hello world")

    ctl = ChatController(Streaming, exports=ExportStore(str(tmp_path)), sweep=_no_sweep)
    updates, final = _run(ctl, "hi there")
    assert [u["chatbot"][-1]["content"] for u in updates[:2]] == ["Hello ", "Hello world"]
    assert final["chatbot"][-1]["content"] == "Hello world"


def test_language_of_panels_follows_the_interface(ctl):
    state = SessionState()
    _run(ctl, "Llama 70B", state, lang="en")
    zh = ctl.panels(state, "zh")
    assert zh["table"]["headers"][1] == "方案" and "没有 NVLink" in zh["findings"]
    assert Path(ctl.export_files(state, "zh")[0]).read_text().startswith("# GPU 配置建议")
    empty = ctl.panels(SessionState(), "en")
    assert empty["table"]["data"] == [] and ctl.export_files(SessionState(), "en") == (None, None)


def test_mode_of_conversations():
    class Llm:
        driver = "llm"
        settings = type("S", (), {"model": "qwen2.5-72b-instruct"})()

    assert conversation_mode(Llm()) == ("llm", "qwen2.5-72b-instruct")
    assert conversation_mode(FakeConversation()) == ("deterministic", None)


def test_export_store_prunes_old_folders(tmp_path):
    store = ExportStore(str(tmp_path), max_age_s=10)
    md, _ = store.write("# q", "{}")
    old = Path(md).parent
    os.utime(old, (0, 0))
    store._last_prune = 0
    store.write("# q2", "{}")
    assert not old.exists() and len(list(tmp_path.iterdir())) == 1


# --- settings -------------------------------------------------------------------------------------------------

def test_settings_precedence_flags_over_env_over_defaults():
    assert settings_from({}) == WebSettings()
    env = {"GPU_ADVISOR_WEB_PORT": "8080", "GPU_ADVISOR_WEB_AUTH": "sales:s3cret", "GRADIO_SERVER_NAME": "0.0.0.0",
           "GPU_ADVISOR_WEB_CONCURRENCY": "4", "GPU_ADVISOR_WEB_QUEUE_SIZE": "20"}
    s = settings_from(env)
    assert (s.host, s.port, s.auth, s.concurrency, s.queue_size) == ("0.0.0.0", 8080, ("sales", "s3cret"), 4, 20)
    s = settings_from(env, host="127.0.0.1", port=9000, auth="a:b", concurrency=2, queue_size=5)
    assert (s.host, s.port, s.auth, s.concurrency, s.queue_size) == ("127.0.0.1", 9000, ("a", "b"), 2, 5)
    assert "s3cret" not in json.dumps(settings_from(env).public())


@pytest.mark.parametrize("kwargs, field", [
    ({"port": 0}, "port"), ({"port": 70000}, "port"), ({"auth": "nopassword"}, "auth"), ({"auth": ":x"}, "auth"),
    ({"concurrency": 0}, "concurrency"), ({"queue_size": -1}, "queue-size"), ({"host": "a b"}, "host"),
])
def test_bad_settings_name_the_field(kwargs, field):
    with pytest.raises(InputError) as err:
        settings_from({}, **kwargs)
    assert err.value.field == field and "accepted" in str(err.value)


def test_bad_env_value_names_the_variable():
    with pytest.raises(InputError, match="GPU_ADVISOR_WEB_PORT='eighty'"):
        settings_from({"GPU_ADVISOR_WEB_PORT": "eighty"})


def test_cli_rejects_bad_flags_with_one_line():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GPU_ADVISOR"))}
    out = subprocess.run([sys.executable, "-m", "ui.cli.entry", "web", "--port", "99999"], capture_output=True, text=True,
                         env=env, timeout=60, cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 2
    assert out.stderr.strip() == ("gpu-advisor: error: invalid port 99999 "
                                  "(accepted: an integer from 1 to 65535)")


# --- request size limit ---------------------------------------------------------------------------------------

def test_body_limit_refuses_large_requests():
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    async def echo(request):
        return PlainTextResponse(str(len(await request.body())))

    app = Starlette(routes=[Route("/", echo, methods=["POST"])],
                    middleware=[Middleware(_BodyLimit, max_bytes=100_000)])
    client = TestClient(app)
    assert client.post("/", content=b"x" * 100_000).text == "100000"
    big = client.post("/", content=b"x" * 100_001)
    assert big.status_code == 413 and "limit 100000 bytes" in big.text

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(30):
            yield b"x" * 10_000

    assert client.post("/", content=chunks()).status_code == 413
    assert client.post("/gradio_api/upload", content=b"x").status_code == 403  # no file inputs, no uploads


def test_real_conversation_panels_and_context_sweep(tmp_path):
    """With the real deterministic conversation: the sweep reproduces the first option's per-GPU total at the
    asked context (else it would not be drawn), memory grows with context, and the chart matches the option."""
    ctl = ChatController(exports=ExportStore(str(tmp_path)))
    state = SessionState()
    _run(ctl, "Serve Llama 3 70B in INT4 with 8k context for 50 users", state)
    top = state.last_result.options[0]
    panels = ctl.panels(state, "en")
    totals = {r["context"]: r["GiB"] for r in panels["context"] if r["series"] == "total per GPU"}
    assert totals[8192] == pytest.approx(top["per_gpu_bytes"]["total"] / GIB, abs=1e-3)
    ordered = [totals[c] for c in sorted(totals)]
    assert ordered == sorted(ordered) and ordered[-1] > ordered[0]
    bar = {r["part"]: r["GiB"] for r in panels["memory"] if r["option"].startswith("1.")}
    assert bar["weights"] == pytest.approx(top["per_gpu_bytes"]["weights"] / GIB, abs=1e-3)
    assert panels["table"]["data"][0][3] == f"{top['per_gpu_bytes']['total'] / GIB:,.1f}"


def _sized_option(total_scale: float = 1.0, **sized_fields):
    """An option as `Option.to_contract()` gives it: its per-GPU total from the estimator for its sized workload
    (times `total_scale`), the layout in words, and the sized workload itself (`sized_workload`)."""
    from advisor.estimator.memory import estimate_memory
    from advisor.workload import Workload
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    sized = Workload(**{"model": "llama-3-70b", "weights": "int4", "context": 8192, "concurrency": 25, "gpus": 2,
                        "tp": 2, **sized_fields})
    total = estimate_memory(catalog.model("llama-3-70b"), sized, catalog.gpu("h100-sxm")).per_gpu.total.n
    return {"gpu": "h100-sxm", "count": 2, "nodes": 1, "layout": "TP 2 × PP 1", "capacity_bytes": 80 * GIB,
            "per_gpu_bytes": {"total": total * total_scale}, "sized_workload": dump(sized, json=True)}


def test_context_sweep_is_built_from_the_options_sized_workload():
    """The memory-vs-context sweep estimates the option's own sized workload (its layout and its share of the
    users); without `sized_workload` no plot is drawn, whatever the layout's text says."""
    from advisor.conversation.turn import Turn
    from ui.web.sweep import estimator_context_sweep

    job = {"model": "llama-3-70b", "task": "inference", "context": 8192}
    option = _sized_option()
    sweep = estimator_context_sweep(Turn(answer="", options=[option], workload=job))
    assert sweep is not None
    assert sweep(8192)["total"] == option["per_gpu_bytes"]["total"]
    assert sweep(32768)["total"] > sweep(8192)["total"]
    no_key = {k: v for k, v in option.items() if k != "sized_workload"}
    assert estimator_context_sweep(Turn(answer="", options=[no_key], workload=job)) is None
    assert estimator_context_sweep(Turn(answer="", options=[{**option, "sized_workload": None}], workload=job)) is None
    off = _sized_option(total_scale=1.5)  # the estimate does not reproduce the option: no plot
    assert estimator_context_sweep(Turn(answer="", options=[off], workload=job)) is None
    unnamed = _sized_option(model=None)  # the turn's model stands in for a workload that names none
    assert estimator_context_sweep(Turn(answer="", options=[unnamed], workload=job)) is not None


def test_context_rows_from_a_sized_option(tmp_path):
    """The panel's memory-vs-context rows pass through the option's total at the asked context."""
    from advisor.conversation.turn import Turn

    option = _sized_option(tp=1, gpus=1, concurrency=10)
    turn = Turn(answer="", options=[option], workload={"model": "llama-3-70b", "context": 8192})
    rows = ChatController(exports=ExportStore(str(tmp_path))).context_rows(turn, "en")
    totals = {r["context"]: r["GiB"] for r in rows if r["series"] == "total per GPU"}
    assert totals[8192] == pytest.approx(option["per_gpu_bytes"]["total"] / GIB, abs=1e-3)
    assert ChatController(exports=ExportStore(str(tmp_path))).context_rows(
        Turn(answer="", options=[{**option, "sized_workload": None}], workload=turn.workload), "en") == []


def test_llm_mode_badge_and_fallback_note_with_an_unreachable_model(tmp_path, monkeypatch):
    """A configured but unreachable model: the badge names the model, the answer comes from the deterministic
    dialog with the conversation's note, and the badge says this turn did not use the model."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # discard port: connection refused
    monkeypatch.setenv("ADVISOR_MODEL", "qwen2.5-72b-instruct")
    monkeypatch.setenv("ADVISOR_MAX_RETRIES", "0")
    monkeypatch.setenv("ADVISOR_TURN_TIMEOUT_S", "5")
    ctl = ChatController(exports=ExportStore(str(tmp_path)), sweep=_no_sweep)
    assert ctl.startup_mode() == ("llm", "qwen2.5-72b-instruct")
    state = SessionState()
    updates, final = _run(ctl, "Serve Llama 3 8B with 4k context for 10 users", state)
    assert updates[0]["chatbot"][-1]["metadata"]["status"] == "pending"  # LLM turns show progress at once
    assert final["raw"]["mode"] == "deterministic" and final["raw"]["note"]
    assert "`qwen2.5-72b-instruct`" in final["mode"] and "not used" in final["mode"]
    assert final["raw"]["note"][:20] in final["chatbot"][-1]["content"]


def test_cli_reports_a_busy_port_in_one_line(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "GPU_ADVISOR"))}
        env["GRADIO_ANALYTICS_ENABLED"] = "False"
        # the conversation store and the catalog cache in this test's directory, never the user's ~/.local/share
        env["GPU_ADVISOR_DATA_DIR"], env["GPU_ADVISOR_CACHE_DIR"] = str(tmp_path / "data"), str(tmp_path / "cache")
        out = subprocess.run([sys.executable, "-m", "ui.cli.entry", "web", "--port", str(port)], capture_output=True,
                             text=True, env=env, timeout=120, cwd=Path(__file__).resolve().parents[1])
    assert out.returncode == 2
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith(f"gpu-advisor: error: cannot serve on 127.0.0.1:{port}") and "Traceback" not in out.stderr
    assert (tmp_path / "data" / "advisor.db").is_file()  # the store it opened is this test's


def test_app_has_no_file_inputs_and_safe_launch_settings(tmp_path):
    from ui.web.app import build_app, launch_kwargs

    demo = build_app(WebSettings(export_dir=str(tmp_path)), conversation_factory=FakeConversation)
    kinds = {c.get("type") for c in demo.config["components"]}
    assert {"chatbot", "nativeplot", "dataframe", "downloadbutton"} <= kinds
    assert not kinds & {"file", "uploadbutton", "image", "audio", "video", "multimodaltextbox", "fileexplorer"}
    chat = next(c for c in demo.config["components"] if c.get("type") == "chatbot")["props"]
    assert chat["sanitize_html"] is True and chat["allow_tags"] is False and chat["latex_delimiters"] == []
    public = [d for d in demo.config["dependencies"] if d.get("api_visibility", "public") == "public"]
    assert [d["api_name"] for d in public] == ["chat"]
    kw = launch_kwargs(WebSettings(auth=("a", "b")))
    assert kw["share"] is False and kw["show_error"] is False and kw["ssr_mode"] is False
    assert kw["auth"] == ("a", "b") and kw["max_file_size"] == 1024


def test_shown_history_is_bounded(ctl, monkeypatch):
    import ui.web.chat as web  # the controller reads its limits there

    monkeypatch.setattr(web, "MAX_SHOWN_MESSAGES", 6)
    state = SessionState()
    for i in range(5):
        _, final = _run(ctl, f"echo {i}", state)
    assert len(state.history) <= 8 and final["chatbot"][-1]["content"] == "You said: echo 4"


def test_prefill_question_from_the_slack_link() -> None:
    """The Slack bot links to `ADVISOR_WEB_URL?q=<question>`; the page puts it in the box as plain text."""
    from ui.web.app import PREFILL_MAX_CHARS, prefill_question

    assert prefill_question({"q": "  部署 Qwen2.5-72B，50 并发  "}) == "部署 Qwen2.5-72B，50 并发"
    assert prefill_question({"q": "a\x00b\x1b[31mc"}) == "ab[31mc"
    assert len(prefill_question({"q": "x" * 10_000})) == PREFILL_MAX_CHARS
    assert prefill_question({}) == "" and prefill_question({"q": ["list"]}) == ""


def test_turn_json_panel_sends_what_gradio_would_and_writes_no_files(tmp_path):
    """The turn-JSON component skips Gradio's re-validation but sends the same data as a plain `gr.JSON` (dates
    as strings, nested lists and numbers intact); building the app writes nothing beside the code (a Gradio
    component subclass would write a .pyi stub there)."""
    from datetime import datetime, timezone
    from pathlib import Path

    import gradio as gr

    import ui.web.app as web

    package = Path(web.__file__).parent
    before = sorted(p.name for p in package.iterdir())
    demo = web.build_app(WebSettings(export_dir=str(tmp_path)), conversation_factory=FakeConversation)
    assert sorted(p.name for p in package.iterdir()) == before
    raw = next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == "raw-json")
    doc = {"answer": "x", "numbers": [{"name": "n", "value": 1.5, "unit": "GiB", "source": "s"}],
           "when": datetime(2026, 1, 2, tzinfo=timezone.utc), "nested": {"a": [1, None, True, "二"]}}
    assert raw.postprocess(doc).model_dump() == gr.JSON().postprocess(doc).model_dump()
    assert raw.postprocess(None) is None and raw.postprocess([1, 2]).model_dump() == [1, 2]


def test_lazy_export_store_writes_on_first_request_only(tmp_path):
    """A lazy store reserves paths without writing; the first request for either file renders and writes both
    (once, even with two requests at the same time); paths outside the store, or not reserved, are left alone."""
    import threading

    from ui.web.app import materialize_export

    calls = []

    def render():
        calls.append(1)
        return "# quote", '{"a": 1}'

    store = ExportStore(str(tmp_path), lazy=True)
    md, js = store.reserve(render)
    assert Path(md).parent == Path(js).parent and Path(md).parent.parent == Path(tmp_path).resolve()
    assert not Path(md).exists() and not Path(js).exists() and calls == []
    assert not materialize_export(str(tmp_path / "elsewhere" / "x.md"))
    results = []
    threads = [threading.Thread(target=lambda p=p: results.append(materialize_export(p))) for p in (md, js, md)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False, False, True] and calls == [1]
    assert Path(md).read_text() == "# quote" and Path(js).read_text() == '{"a": 1}'
    eager = ExportStore(str(tmp_path / "eager"))
    md2, _ = eager.reserve(render)
    assert Path(md2).read_text() == "# quote" and not eager.materialize(md2)


def test_lazy_exports_are_forgotten_with_their_folders(tmp_path):
    store = ExportStore(str(tmp_path), max_age_s=10, lazy=True)
    md, _ = store.reserve(lambda: ("a", "b"))
    store._last_prune = 0.0
    made, render, stem = store._pending[Path(md).parent.name]
    store._pending[Path(md).parent.name] = (made - 11, render, stem)
    store._prune()
    assert not store.materialize(md) and not Path(md).exists()
