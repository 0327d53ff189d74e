"""A flood of new anonymous sessions never costs a real user's conversation; memory per session is bounded.

The live test runs the real `gpu-advisor web` (subprocess, free port): a user asks, 300 new sessions arrive
from the same address (raw HTTP, as a script would send them), then the user's follow-up still answers within
the conversation they started (its workload is still known).
"""

from __future__ import annotations

import uuid

import pytest

from advisor.conversation.session import HISTORY_KEPT, Conversation
from knowledge.structs import dump
from ui.web.security import MAX_LIVE_SESSIONS, SessionCap


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_all_addresses_together_stay_below_the_session_store() -> None:
    from ui.web.app import MAX_SESSIONS

    assert MAX_LIVE_SESSIONS < MAX_SESSIONS  # so Gradio's LRU eviction never reaches a live session
    clock = Clock()
    cap = SessionCap(limit=3, total_limit=5, clock=clock)
    admitted = [cap.admit(f"10.0.0.{i}", f"s{i}-{j}") for i in range(4) for j in range(2)]
    assert admitted == [True] * 5 + [False] * 3  # 4 addresses, 2 each: the 6th live session in all is refused
    assert cap.admit("10.0.0.0", "s0-0") and cap.admit("10.0.0.2", "s2-0")  # known sessions always answer
    assert cap.live() == 5
    clock.t += 3601  # all idle now: room again
    assert cap.admit("10.0.0.9", "fresh") and cap.live() == 1


def test_conversation_history_is_bounded() -> None:
    conv = Conversation(driver="deterministic")
    for i in range(HISTORY_KEPT + 10):
        conv.respond(f"serve llama-3-8b to {i + 1} users")
    assert len(conv.history) == HISTORY_KEPT
    assert conv.history[-1][0] == f"serve llama-3-8b to {HISTORY_KEPT + 10} users"
    assert dump(conv.state)  # the slot state (what the user told) is kept


def test_the_chat_says_when_older_messages_are_trimmed(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.web.chat as web  # the controller reads its limits there
    from tests.web_fakes import FakeConversation
    from ui.web.app import ChatController, ExportStore, SessionState

    monkeypatch.setattr(web, "MAX_SHOWN_MESSAGES", 6)
    ctl = ChatController(FakeConversation, exports=ExportStore(str(tmp_path)), sweep=lambda turn: None)
    state = SessionState()
    for i in range(6):
        final = list(ctl.turn(f"echo {i}", state, "en"))[-1]
    shown = [m["content"] for m in final["chatbot"]]
    assert len(shown) <= 7 and shown[-1] == "You said: echo 5"
    assert "no longer shown" in shown[0]


def test_page_event_needs_the_pages_trigger() -> None:
    from types import SimpleNamespace as F

    from ui.web.security import page_event

    fns = {0: F(api_visibility="private", trigger_after=None, targets=[(11, "submit"), (12, "click")]),
           1: F(api_visibility="public", trigger_after=0, targets=[(None, "then")]),
           2: F(api_visibility="private", trigger_after=1, targets=[(None, "then")])}
    assert page_event(fns, {"fn_index": 1})  # public: always
    assert page_event(fns, {"fn_index": 0, "trigger_id": 12}) and page_event(fns, {"fn_index": 2, "trigger_id": 11})
    for bad in (None, 13, "12", True):
        assert not page_event(fns, {"fn_index": 0, "trigger_id": bad})
        assert not page_event(fns, {"fn_index": 2, "trigger_id": bad})


@pytest.fixture(scope="module")
def server():
    from tests.web_server import WebServer

    with WebServer(name="web-flood", GPU_ADVISOR_WEB_WORKERS="0") as url:
        yield url


def test_only_public_functions_are_callable_from_outside_the_page(server: str) -> None:
    httpx = pytest.importorskip("httpx")
    with httpx.Client(timeout=20) as raw:
        deps = raw.get(server + "config").json()["dependencies"]
        hidden = [(i, d) for i, d in enumerate(deps) if d.get("api_visibility") != "public"]
        assert {d["api_name"] for _, d in hidden} >= {"take", "reset", "relabel", "refresh", "prefill"}
        for i, d in hidden:
            event = {"fn_index": i, "session_hash": uuid.uuid4().hex[:11], "data": [None] * 3, "event_data": None}
            for path in ("gradio_api/queue/join", "gradio_api/run/predict"):
                assert raw.post(server + path, json={**event, "trigger_id": None}).status_code == 403, (path, d)
                assert raw.post(server + path, json={**event, "trigger_id": 9999}).status_code == 403, (path, d)
            for path in ("gradio_api/call/", "gradio_api/run/"):  # Gradio itself started these by name
                assert raw.post(server + path + d["api_name"], json={"data": ["x", "en"]}).status_code == 403
        assert raw.post(server + "gradio_api/call/chat", json={"data": ["Qwen2.5-7B for 10 users", "en"]}).status_code == 200
        take = next(i for i, d in hidden if d["api_name"] == "take")
        page = {"fn_index": take, "session_hash": uuid.uuid4().hex[:11], "data": ["hi", None, "en"],
                "event_data": None, "trigger_id": deps[take]["targets"][0][0]}
        assert raw.post(server + "gradio_api/queue/join", json=page).status_code == 200  # as the page sends it


def test_a_flood_of_new_sessions_leaves_the_real_conversation_answering(server: str) -> None:
    gradio_client = pytest.importorskip("gradio_client")
    httpx = pytest.importorskip("httpx")
    user = gradio_client.Client(server, verbose=False, download_files=False)
    first = user.predict(message="Llama-3.1-8B inference, BF16, 8k context, 10 users", ui_lang="en", api_name="/chat")
    assert "Llama" in str(first[0])
    codes: dict[int, int] = {}
    with httpx.Client(timeout=10) as flood:
        deps = flood.get(server + "config").json()["dependencies"]
        take = next(i for i, d in enumerate(deps) if d.get("api_name") == "take")  # what the send button starts
        trigger = deps[take]["targets"][0][0]
        for _ in range(300):  # new sessions sending a message, as the page does
            r = flood.post(server + "gradio_api/queue/join",
                           json={"fn_index": take, "session_hash": uuid.uuid4().hex[:11], "data": ["hi", None, "en"],
                                 "event_data": None, "trigger_id": trigger})
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
    follow_up = user.predict(message="and with 64 users?", ui_lang="en", api_name="/chat")
    assert codes.get(429, 0) >= 200 and codes.get(200, 0) >= 50, codes  # the address's cap (100 sessions)
    text = str(follow_up[0][-1])
    assert "64" in text and "Llama" in text, text[-600:]  # the same conversation: the model is remembered
