"""The same conversations give the same recommendations through the Slack bot as through `Conversation` directly.

Each conversation is run twice in deterministic mode: straight through `new_conversation().respond(...)`, and as a
mention followed by follow-ups in its Slack thread (real signed HTTP requests; the state goes through
`to_dict`/`from_dict` between turns, as the bot stores it). Per turn the ranked options (GPU, count), the opening of
the answer and the clarifying questions must agree. The conversations are a subset of the dialog test set
(tests/conversations/*.yaml) when it is present, plus the multi-turn cases below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.slack_support import Harness, mention, message_text
from ui.slack import render as R

CONVERSATIONS_DIR = Path(__file__).parent / "conversations"
SLACK_MAX_CHARS = 40_000
SUBSET = 12  # conversations taken from the dialog test set (every n-th, so both languages and all kinds appear)

INLINE: list[tuple[str, list[str]]] = [
    ("en-70b-refined", ["Llama 3.1 70B inference, int4, 32k context, 20 users", "what about 8bit?", "default"]),
    ("zh-72b-refined", ["部署 Qwen2.5-72B，32k 上下文，50 并发", "改成 8bit 呢？", "默认"]),
    ("en-underspecified", ["Which GPUs do I need for a chatbot?", "Llama 3 8B", "default"]),
    ("zh-lora", ["用 LoRA 微调 Qwen2.5-7B", "默认"]),
    ("en-nonsense", ["purple elephants sing quietly"]),
    ("en-start-over", ["Serve Mistral-7B for 32 users", "start over", "Llama 3.1 8B inference"]),
    ("zh-huge", ["部署 Qwen2.5-7B，10 并发。" + "啊" * 39_000]),
]


def _user_texts(case: Any) -> list[str] | None:
    """The user messages of one case of the dialog test set, for the shapes that set uses."""
    turns = case.get("turns") or case.get("conversation") or case.get("messages") if isinstance(case, dict) else case
    if turns is None and isinstance(case, dict):
        for key in ("user", "text", "question", "input", "ask"):
            if isinstance(case.get(key), str):
                return [case[key]]
    if not isinstance(turns, list):
        return None
    texts = []
    for t in turns:
        if isinstance(t, str):
            texts.append(t)
        elif isinstance(t, dict):
            text = next((t[k] for k in ("user", "text", "say", "input", "ask", "question") if isinstance(t.get(k), str)),
                        None)
            if text is None:
                return None
            texts.append(text * int(t.get("repeat") or 1))
    # Slack carries at most 40 000 characters per message: both paths get what Slack could deliver
    return [t[:SLACK_MAX_CHARS] for t in texts] or None


def _dialog_cases() -> list[tuple[str, list[str]]]:
    cases: list[tuple[str, list[str]]] = []
    for path in sorted(CONVERSATIONS_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        items = data.get("conversations") or data.get("cases") or [data] if isinstance(data, dict) else data or []
        for i, case in enumerate(items):
            texts = _user_texts(case)
            if texts and all(t.strip() for t in texts):  # an empty mention gets the bot's own help, by design
                name = case.get("id") or case.get("name") if isinstance(case, dict) else None
                cases.append((f"{path.stem}:{name or i}", texts))
    step = max(1, len(cases) // SUBSET)
    return cases[::step][:SUBSET]


CASES = INLINE + _dialog_cases()


@pytest.fixture(scope="module")
def harness():
    h = Harness()
    yield h
    h.stop()


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch):
    for k in ("OPENAI_API_KEY", "ADVISOR_API_KEY", "ADVISOR_MODEL", "OPENAI_BASE_URL", "ADVISOR_SETTINGS"):
        monkeypatch.delenv(k, raising=False)


def _gpu_names(turn: Any) -> list[tuple[str, str]]:
    from knowledge.catalog import load_catalog

    catalog = load_catalog()
    rows = []
    for opt in turn.options[: R.MAX_OPTIONS]:
        gpu = catalog.find_gpu(opt["gpu"]) if isinstance(opt.get("gpu"), str) else None
        rows.append((gpu.name if gpu else str(opt.get("gpu")), str(opt.get("count"))))
    return rows


def _slack_rows(body: dict[str, Any]) -> list[tuple[str, str]]:
    table = next((b for b in body.get("blocks") or [] if b["type"] == "table"), None)
    return [] if table is None else [(r[1]["text"], r[2]["text"]) for r in table["rows"][1:]]


def _opening(turn: Any) -> str:
    from ui.slack.details import first_screen  # the message holds the first screen; the sections go to the thread

    answer = first_screen(turn.answer)
    if turn.options:
        return R.md_to_mrkdwn(R.split_summary(answer)[0])
    return R.split_mrkdwn(R.md_to_mrkdwn(answer))[0]


@pytest.mark.parametrize("name, texts", CASES, ids=[c[0] for c in CASES])
def test_slack_gives_the_same_recommendations_as_the_conversation(harness, name, texts):
    from advisor.conversation.session import new_conversation

    direct = new_conversation()
    expected = [direct.respond(t) for t in texts]

    app = harness.bot(conversation_factory=None, placeholder_after_s=60.0)  # the real conversation layer
    root = "1700001000.000100"
    for i, text in enumerate(texts):
        ts = root if i == 0 else f"1700001000.{100 + i:06d}"
        r = harness.send(mention(text, ts=ts, thread_ts=None if i == 0 else root), f"EvConv{i}")
        assert r.status == 200
        with_details = sum(1 for t in expected[: i + 1] if "<details>" in t.answer)
        harness.mock.wait_calls("chat.postMessage", i + 1 + with_details, timeout=20)
    calls = harness.mock.calls_to("chat.postMessage")
    # issue 13: an answer's collapsible sections follow the answer as a reply in the same thread
    details = [c for c in calls if str(c.body.get("text", "")).startswith(("Details:", "详情:"))]
    posts = [c for c in calls if c not in details]
    assert len(posts) == len(texts)
    assert len(details) == sum(1 for t in expected if "<details>" in t.answer)
    assert all(c.body["thread_ts"] == root and "<details>" not in message_text(c.body) for c in details)
    for i, (turn, call) in enumerate(zip(expected, posts, strict=True)):
        body = call.body
        assert body["thread_ts"] == root
        where = f"{name} turn {i + 1} ({texts[i]!r})"
        assert _slack_rows(body) == _gpu_names(turn), where
        assert body["blocks"][0]["text"]["text"] == _opening(turn), where
        shown = message_text(body)
        for q in turn.questions:
            assert R.md_to_mrkdwn(q)[:60] in shown, where
        assert R.check_limits(body["blocks"]) == [], where
    assert app.advisor_bot.wait_idle(10)
    harness.finish_apps()


def test_the_case_list_is_not_empty():
    assert len(CASES) >= len(INLINE)


def test_llm_mode_through_slack_and_its_fallback(harness, monkeypatch):
    """With a model configured (a local OpenAI-compatible mock), the thread is answered in LLM mode; when the
    model then fails, the same thread gets the deterministic answer with the conversation's note."""
    from advisor.conversation.llm.agent import reset_breakers
    from tests.mock_openai_server import MockOpenAI, message, status

    question = "Which model would you like to serve, and for how many concurrent users?"
    with MockOpenAI([message(question)], responder=lambda body: status(500)) as llm:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("ADVISOR_READER", "agent")  # the tool loop's question, then its fallback
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("ADVISOR_MODEL", "mock-model")
        monkeypatch.setenv("ADVISOR_MAX_RETRIES", "0")
        reset_breakers()
        try:
            harness.bot(conversation_factory=None, placeholder_after_s=60.0)
            root = "1700001100.000100"
            harness.send(mention("I need GPUs for a chatbot", ts=root), "EvLlm1")
            first = harness.mock.wait_calls("chat.postMessage", 1, timeout=30)[0].body
            assert question in message_text(first)
            assert "mode: LLM (mock-model)" in message_text(first)
            harness.send(mention("Llama 3.1 8B, 20 users", ts="1700001100.000200", thread_ts=root), "EvLlm2")
            second = harness.mock.wait_calls("chat.postMessage", 2, timeout=30)[1].body
            shown = message_text(second)
            assert second["thread_ts"] == root
            assert "could not answer" in shown and "deterministic" in shown  # the fallback note
            assert any(b["type"] == "table" for b in second["blocks"])  # and a real recommendation
            assert len(llm.requests) >= 2  # the second turn did try the model (the thread kept LLM mode)
        finally:
            harness.finish_apps()
            reset_breakers()
