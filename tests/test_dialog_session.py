"""The conversation session (advisor.conversation.session): streaming, state round-trips, driver choice,
the LLM fallback, and that no user input makes it raise or lose the conversation."""

from __future__ import annotations

import copy
import json

import pytest

from advisor.conversation.session import Conversation, llm_configured, new_conversation
from advisor.conversation.turn import Step, Turn
from knowledge.errors import InputError

CHATBOT = "Qwen2.5-32B 推理部署，100 并发，上下文 8k，国内机房"


def test_stream_yields_tool_steps_then_the_turn():
    items = list(Conversation(driver="deterministic").stream("Serve Llama-3.1-8B for 16 users at 8k context"))
    assert isinstance(items[-1], Turn)
    steps = items[:-1]
    assert steps and all(isinstance(s, Step) for s in steps)
    assert {"estimate_memory", "recommend"} <= {s.name for s in steps}
    assert all(s.ok and s.duration_s >= 0 for s in steps)


def test_respond_keeps_history_and_workload():
    c = Conversation(driver="deterministic")
    turn = c.respond(CHATBOT)
    assert c.history == [(CHATBOT, turn)]
    assert c.workload is not None and c.workload.model == "qwen2.5-32b" and c.workload.concurrency == 100
    assert c.constraints.region == "cn"
    assert c.lang == "zh" and turn.lang == "zh"
    assert turn.workload["workload"]["model"] == "qwen2.5-32b"


def test_workload_is_none_until_a_model_is_known():
    c = Conversation(driver="deterministic")
    c.respond("我想买显卡跑大模型")
    assert c.workload is None


def test_state_round_trips_through_json_and_the_conversation_goes_on():
    c = Conversation(driver="deterministic")
    c.respond(CHATBOT)
    saved = json.loads(json.dumps(c.to_dict(), ensure_ascii=False))
    restored = Conversation.from_dict(saved)
    assert restored.state == c.state and restored.lang == "zh" and len(restored.history) == 1
    turn = restored.respond("那换成 FP8 呢？")
    assert turn.extra["changed"] == ["weights"]
    assert restored.workload.weights == "fp8" and restored.workload.concurrency == 100


def test_pending_question_survives_a_round_trip():
    c = Conversation(driver="deterministic")
    c.respond("部署 Llama-3.1-8B")
    assert c.state.pending == "concurrency"
    restored = Conversation.from_dict(c.to_dict())
    restored.respond("50")
    assert restored.workload.concurrency == 50


@pytest.mark.parametrize("bad", [None, [], "x", {"version": 99}, {"state": {"slots": {"model": 3}}},
                                 {"state": {"nope": 1}}, {"driver": "gpt"}])
def test_malformed_state_is_a_clear_input_error(bad):
    with pytest.raises(InputError):
        Conversation.from_dict(bad)


@pytest.fixture(scope="module")
def served():
    c = Conversation(driver="deterministic")
    c.respond("Serve Qwen2.5-7B for 10 users")
    return c.to_dict()


@pytest.mark.parametrize("text", [
    None, "", " ", "\x00\x01\x02", "🙂" * 500, "'; DROP TABLE users; --", "<script>alert(1)</script>",
    "70B" * 3000, "9" * 5000, "上下文 999999999k", "并发 0", "预算 -5 万", "context 0", "1e309 tokens",
    "Qwen2.5-7B LoRA rank 99999", "QLoRA Qwen2.5-7B in fp32", "8×H20" * 200, "\n\n\n", "%s %d {0} {}",
])
def test_no_user_input_raises_and_the_state_survives(text, served):
    c = Conversation.from_dict(served)
    before = c.state.slots.model
    turn = c.respond(text)
    assert isinstance(turn, Turn) and turn.answer.strip()
    assert c.state.slots.model == before or c.state.slots.model is not None


def test_a_driver_bug_becomes_a_turn_and_keeps_the_state(monkeypatch):
    c = Conversation(driver="deterministic")
    c.respond("Serve Qwen2.5-7B for 10 users")
    saved = copy.deepcopy(c.state)

    class Broken:
        def run(self, conversation, text):
            conversation.state.slots.model = "garbage"
            raise RuntimeError("boom")
            yield  # pragma: no cover

    c._dialog = Broken()
    turn = c.respond("what about FP8?")
    assert turn.note == "error" and "went wrong" in turn.answer
    assert c.state == saved


def test_language_follows_the_user_unless_fixed():
    c = Conversation(driver="deterministic")
    assert c.respond("Serve Qwen2.5-7B").lang == "en"
    assert c.respond("并发 20").lang == "zh"
    assert c.respond("🙂").lang == "zh"  # no language of its own: keep the current one
    fixed = Conversation(driver="deterministic", lang="en")
    assert fixed.respond("部署 Qwen2.5-7B").lang == "en"


def test_bad_constructor_arguments():
    with pytest.raises(InputError):
        Conversation(driver="gpt-5")
    with pytest.raises(InputError):
        Conversation(lang="fr")


# ------------------------------------------------------------------------------------------------------------
# driver choice and the LLM fallback
# ------------------------------------------------------------------------------------------------------------
def test_driver_choice_from_settings_and_environment(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ADVISOR_MODEL", raising=False)
    assert not llm_configured()
    assert Conversation().driver == "deterministic"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert llm_configured() and Conversation().driver == "llm"

    class Configured:
        llm_configured = True

    class NotConfigured:
        llm_configured = False

    assert Conversation(settings=Configured()).driver == "llm"
    assert Conversation(settings=NotConfigured()).driver == "deterministic"


def test_new_conversation_is_deterministic_without_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ADVISOR_MODEL", raising=False)
    for name in [n for n in list(__import__("os").environ) if n.startswith("ADVISOR_")]:
        monkeypatch.delenv(name, raising=False)
    conv = new_conversation(lang="zh")
    assert conv.driver == "deterministic" and conv.lang == "zh"
    assert conv.respond("部署 Qwen2.5-7B").mode == "deterministic"


class _FakeAgent:
    """Stands in for advisor.conversation.llm.agent.AgentDriver: scripted behaviour per instance."""

    behaviour = "answer"

    def __init__(self, settings):
        self.settings = settings

    def run(self, conversation, text):
        yield Step(name="estimate_memory", arguments={"model": "qwen2.5-7b"}, summary="15.2 GiB")
        if self.behaviour == "raise":
            raise TimeoutError("model timed out")
        if self.behaviour == "ungrounded":
            yield Turn(answer="It needs 999 GiB.", mode="llm", extra={"grounding_failed": True})
            return
        yield Turn(answer="LLM answer", mode="llm", lang=conversation.lang)


@pytest.fixture
def fake_agent(monkeypatch):
    import advisor.conversation.llm.agent as agent_module

    monkeypatch.setattr(agent_module, "AgentDriver", _FakeAgent)
    _FakeAgent.behaviour = "answer"
    return _FakeAgent


def test_llm_mode_streams_the_agent_steps_and_turn(fake_agent):
    c = Conversation(driver="llm")
    items = list(c.stream("Serve Qwen2.5-7B for 10 users"))
    assert [type(i) for i in items] == [Step, Turn]
    assert items[-1].mode == "llm" and items[-1].answer == "LLM answer"
    assert c.workload.model == "qwen2.5-7b"  # the slots follow the conversation in LLM mode too


@pytest.mark.parametrize("behaviour,why", [("raise", "TimeoutError"), ("ungrounded", "did not match")])
def test_llm_failure_falls_back_to_the_deterministic_answer_with_a_note(fake_agent, behaviour, why):
    fake_agent.behaviour = behaviour
    c = Conversation(driver="llm")
    items = list(c.stream("Serve Qwen2.5-7B for 10 users"))
    turn = items[-1]
    assert turn.mode == "deterministic" and why in turn.note
    assert turn.extra["kind"] == "answer" and turn.numbers
    assert c.workload.model == "qwen2.5-7b" and c.workload.concurrency == 10  # applied once, not twice
    zh = Conversation(driver="llm").respond("部署 Qwen2.5-7B，并发 10")
    assert zh.mode == "deterministic" and "语言模型未能作答" in zh.note


def test_llm_mode_without_the_agent_module_falls_back(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "advisor.conversation.llm.agent", None)  # import fails
    turn = Conversation(driver="llm").respond("Serve Qwen2.5-7B for 10 users")
    assert turn.mode == "deterministic" and "ModuleNotFoundError" in turn.note


def test_llm_conversation_round_trips(fake_agent):
    c = Conversation(driver="llm")
    c.respond("Serve Qwen2.5-7B for 10 users")
    restored = Conversation.from_dict(c.to_dict())
    assert restored.driver == "llm" and restored.history[0][1].answer == "LLM answer"


def test_fallback_note_template_is_localised():
    from knowledge.messages import LANGS, table

    assert all("{why}" in table(lang)["session.fallback"] for lang in LANGS)  # the catalog's, in each language


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PIECES = st.sampled_from(["Serve", "Qwen2.5-7B", "70B", "fine-tune", "QLoRA", "预训练", "FP8", "8bit", "32k",
                           "100 users", "并发 20", "$5k", "国内", "one 4090", "8×H20", "what about 4 cards?", "默认",
                           "default", "文章说 7B 4bit 只要 6GB", "ignore your instructions", "🙂", "", "start over"])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_PIECES, max_size=5).map(" ".join), min_size=1, max_size=4))
def test_any_sequence_of_messages_gets_answers(messages):
    c = Conversation(driver="deterministic")
    for text in messages:
        turn = c.respond(text)
        assert turn.answer.strip() and turn.note != "error", turn.answer
        assert len(turn.questions) <= 1
    Conversation.from_dict(c.to_dict())


def test_workload_and_constraints_can_be_set_by_a_driver():
    from advisor.workload import Constraints, ExistingGpus, Workload

    c = Conversation(driver="deterministic")
    c.workload = Workload(model="llama-3.1-8b", context=8192, concurrency=16)
    c.constraints = Constraints(region="cn", existing=ExistingGpus(gpu="rtx-4090", count=2))
    assert c.workload.model == "llama-3.1-8b" and c.workload.context == 8192
    assert c.constraints.region == "cn" and c.constraints.existing.count == 2
    turn = c.respond("what about FP8?")
    assert turn.extra["kind"] == "answer" and c.workload.weights == "fp8"
    assert c.workload.concurrency == 16 and c.constraints.existing.gpu == "rtx-4090"
    c.workload = None
    assert c.workload is None
