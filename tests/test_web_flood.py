"""A flood of new anonymous sessions never costs a real user's conversation; memory per session is bounded.

The live test runs the real `gpu-advisor web` (subprocess, free port): a user asks, 300 new sessions arrive
from the same address (raw HTTP, as a script would send them), then the user's follow-up still answers within
the conversation they started (its workload is still known).
"""

from __future__ import annotations

import uuid

import pytest

from advisor.conversation.session import HISTORY_KEPT, Conversation
from ui.web_security import MAX_LIVE_SESSIONS, SessionCap


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_all_addresses_together_stay_below_the_session_store() -> None:
    from ui.web import MAX_SESSIONS

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
    assert conv.state.model_dump()  # the slot state (what the user told) is kept


def test_the_chat_says_when_older_messages_are_trimmed(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ui.web as web
    from tests.web_fakes import FakeConversation
    from ui.web import ChatController, ExportStore, SessionState

    monkeypatch.setattr(web, "MAX_SHOWN_MESSAGES", 6)
    ctl = ChatController(FakeConversation, exports=ExportStore(str(tmp_path)), sweep=lambda turn: None)
    state = SessionState()
    for i in range(6):
        final = list(ctl.turn(f"echo {i}", state, "en"))[-1]
    shown = [m["content"] for m in final["chatbot"]]
    assert len(shown) <= 7 and shown[-1] == "You said: echo 5"
    assert "no longer shown" in shown[0]


def test_a_flood_of_new_sessions_leaves_the_real_conversation_answering() -> None:
    gradio_client = pytest.importorskip("gradio_client")
    httpx = pytest.importorskip("httpx")
    from tests.web_server import WebServer

    with WebServer(name="web-flood", GPU_ADVISOR_WEB_WORKERS="0") as url:
        user = gradio_client.Client(url, verbose=False, download_files=False)
        first = user.predict(message="Llama-3.1-8B inference, BF16, 8k context, 10 users", ui_lang="en",
                             api_name="/chat")
        assert "Llama" in str(first[0])
        codes: dict[int, int] = {}
        with httpx.Client(timeout=10) as flood:
            for _ in range(300):
                r = flood.post(url + "gradio_api/queue/join",
                               json={"fn_index": 0, "session_hash": uuid.uuid4().hex[:11], "data": ["hi", None, "en"],
                                     "event_data": None, "trigger_id": None})
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
        follow_up = user.predict(message="and with 64 users?", ui_lang="en", api_name="/chat")
    assert codes.get(429, 0) >= 200, codes  # the address's cap (100 sessions) took the rest
    text = str(follow_up[0][-1])
    assert "64" in text and "Llama" in text, text[-600:]  # the same conversation: the model is remembered
