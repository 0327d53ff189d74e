"""The agent's answer-first gate (advisor/conversation/llm/lead.py) and how the agent and the session use it.

The first sentence of a model's answer must answer the question: for feasibility, how-many, how-long and how-much
questions it carries the deciding number with its unit, taken from this turn's tool results (the pools here are
built from real tool calls, so the figures are the estimator's own); a yes/no question also gets yes or no.
An answer that fails is re-asked once, then the user gets the deterministic answer, whose first screen leads with
the verdict and the deciding number, with the agent's note.
"""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402

from advisor.conversation.grounding.gate import Pool  # noqa: E402
from advisor.conversation.llm import agent as agent_module  # noqa: E402
from advisor.conversation.llm.agent import AgentDriver, AgentUnavailable  # noqa: E402
from advisor.conversation.llm.lead import asks_yes_no, check_lead, lead_sentence  # noqa: E402
from advisor.conversation.llm.settings import Settings  # noqa: E402
from advisor.conversation.render.firstscreen import first_sentences  # noqa: E402
from advisor.conversation.session import Conversation  # noqa: E402
from advisor.conversation.tools.registry import call_tool  # noqa: E402
from tests.mock_openai_server import scripted_model, tool_call  # noqa: E402

MEMORY_ARGS = {"model": "llama-3-70b", "gpu": "h100"}
FIT_QUESTION = "Will Llama-3-70B fit on one H100?"


@pytest.fixture(autouse=True)
def _no_leftover_agent_threads():
    yield
    for thread in threading.enumerate():
        if thread.name == "advisor-agent":
            thread.join(timeout=10)
    agent_module.reset_breakers()


def shown(tool: str, args: dict, name: str) -> str:
    """The display string a tool gave for its number `name` (what a faithful model copies)."""
    return next(n["display"] for n in call_tool(tool, args).numbers if n["name"] == name)


def pool_of(tool: str, args: dict) -> Pool:
    result = call_tool(tool, args)
    assert result.ok, result.error
    return Pool.of([result.data])


# --------------------------------------------------------------------------------------------------------------
# check_lead on its own
# --------------------------------------------------------------------------------------------------------------

def test_feasibility_lead_with_verdict_and_the_deciding_memory_passes() -> None:
    pool = pool_of("estimate_memory", MEMORY_ARGS)
    total = shown("estimate_memory", MEMORY_ARGS, "total per GPU")  # 134.9 GiB (144.9 GB)
    usable = shown("estimate_memory", MEMORY_ARGS, "usable on NVIDIA H100 SXM5 80GB")
    lead = check_lead(f"**No** — Llama-3-70B in BF16 needs {total} per GPU; one H100 has {usable} usable. "
                      "Two H100s would be the next step.", "feasibility", pool, yes_no=True)
    assert lead.ok and lead.verdict == "no" and total.split(" (")[0] in lead.sentence
    zh = check_lead(f"不够：Llama-3-70B 每卡需要 {total}，H100 可用 {usable}。", "feasibility", pool, yes_no=True)
    assert zh.ok and zh.verdict == "no"


def test_a_bare_verdict_sentence_is_read_with_the_next_one() -> None:
    pool = pool_of("estimate_memory", MEMORY_ARGS)
    total = shown("estimate_memory", MEMORY_ARGS, "total per GPU")
    answer = f"No. It needs {total} per GPU, more than one H100 holds."
    assert lead_sentence(answer).startswith("No. It needs")
    assert check_lead(answer, "feasibility", pool, yes_no=True).ok


@pytest.mark.parametrize("answer, reason", [
    ("Sure! Let me look at that for you. It needs 134.9 GiB per GPU.", "no_number"),
    ("Llama-3-70B is a large model. It needs 134.9 GiB per GPU.", "no_number"),
    ("No, it needs 134.9 per GPU.", "no_number"),  # a bare number is not the deciding number with its unit
    ("No — it needs 99.0 GiB per GPU.", "no_number"),  # not a figure the tools gave
    ("It needs 134.9 GiB per GPU.", "no_verdict"),  # a yes/no question left without yes or no
    ("", "empty"),
])
def test_feasibility_leads_that_do_not_answer_fail(answer: str, reason: str) -> None:
    lead = check_lead(answer, "feasibility", pool_of("estimate_memory", MEMORY_ARGS), yes_no=True)
    assert not lead.ok and lead.reason == reason


def test_a_how_much_memory_question_needs_the_number_but_no_yes_or_no() -> None:
    assert not asks_yes_no("How much memory does Llama-3-70B need on an H100?")
    assert asks_yes_no(FIT_QUESTION) and asks_yes_no("70B 模型 4bit 量化后 28GB 显存够吗")
    pool = pool_of("estimate_memory", MEMORY_ARGS)
    assert check_lead("It needs 134.9 GiB per GPU.", "feasibility", pool, yes_no=False).ok


def test_how_many_how_long_how_much_need_their_own_dimension() -> None:
    rec = {"model": "llama-3-70b", "task": "inference"}
    rpool = pool_of("recommend", rec)
    first = call_tool("recommend", rec).data["options"][0]
    count, gpu = first["count"], first["label"].split("× ", 1)[1]
    per_gpu = shown("recommend", rec, f"option 1 ({first['label']}): memory per GPU")
    assert check_lead(f"You need {count}× {gpu}: {per_gpu} per GPU.", "how_many", rpool).ok
    # the memory alone does not answer "how many"
    assert check_lead(f"It needs {per_gpu} per GPU on the first option.", "how_many", rpool).reason == "no_number"

    train = {"model": "qwen2.5-7b", "gpu": "a100", "count": 8, "tokens": 5e9, "task": "full"}
    tpool = pool_of("train_time", train)
    days = shown("train_time", train, "wall-clock time")  # "2.0 days"
    assert check_lead(f"About {days} on 8× A100 for 5B tokens.", "how_long", tpool).ok
    assert check_lead("It depends on the MFU and the data. About 2.0 days.", "how_long", tpool).reason == "no_number"

    tco = {"gpu": "h100", "count": 8}
    mpool = pool_of("tco", tco)
    price = shown("tco", tco, "purchase, GPUs")  # "¥2,016,000 CNY"
    assert check_lead(f"The eight GPUs cost {price}, as of the catalog date.", "how_much", mpool).ok
    assert check_lead(f"Eight H100s are a big purchase. {price}.", "how_much", mpool).reason == "no_number"


def test_other_intents_only_refuse_a_preamble() -> None:
    pool = Pool()
    assert check_lead("Sure, here is my recommendation.", "which", pool).reason == "preamble"
    assert check_lead("好的，我来帮你看看。", "compare", pool).reason == "preamble"
    assert check_lead("The RTX 4090 decodes faster than the 3090.", "compare", pool).ok
    assert check_lead("OK.", "other", pool).ok  # "thanks" → "OK." is an answer


# --------------------------------------------------------------------------------------------------------------
# The agent: one re-ask, then "unanswered"
# --------------------------------------------------------------------------------------------------------------

def _driver(responses) -> tuple[AgentDriver, object]:
    model = scripted_model(responses)
    return AgentDriver(Settings(reader="agent"), chat_model=model), model


def test_an_answer_without_the_deciding_number_first_is_reasked_and_the_fix_accepted() -> None:
    total = shown("estimate_memory", MEMORY_ARGS, "total per GPU")
    usable = shown("estimate_memory", MEMORY_ARGS, "usable on NVIDIA H100 SXM5 80GB")
    buried = f"Great question! Llama-3-70B is big. It needs {total} per GPU."
    fixed = f"No — Llama-3-70B needs {total} per GPU; one H100 has {usable} usable."
    driver, model = _driver([AIMessage("", tool_calls=[tool_call("estimate_memory", MEMORY_ARGS)]), buried, fixed])
    turn = list(driver.run(None, FIT_QUESTION))[-1]
    assert turn.answer.startswith(fixed) and turn.extra["grounding"]["reasked"] is True
    assert turn.extra["intent"] == "feasibility" and turn.extra["answer_verdict"] == "no"
    reask = model.calls[-1][-1]
    assert isinstance(reask, HumanMessage) and "first sentence" in reask.content and "memory needed" in reask.content


def test_an_answer_that_never_leads_with_the_answer_is_unanswered() -> None:
    total = shown("estimate_memory", MEMORY_ARGS, "total per GPU")
    buried = f"Let me explain how memory works. It needs {total} per GPU."
    driver, _ = _driver([AIMessage("", tool_calls=[tool_call("estimate_memory", MEMORY_ARGS)]), buried, buried])
    with pytest.raises(AgentUnavailable) as info:
        list(driver.run(None, FIT_QUESTION))
    assert info.value.reason == "unanswered" and "feasibility" in info.value.detail
    assert "first sentence" in info.value.note("en") and "第一句" in info.value.note("zh")


def test_the_chinese_reask_is_in_chinese() -> None:
    driver, model = _driver(["这是一个好问题。", "这是一个好问题。"])
    with pytest.raises(AgentUnavailable) as info:
        list(driver.run(None, "Llama-3-70B 需要几张 H100？"))
    assert info.value.reason == "unanswered"
    assert "第一句" in model.calls[-1][-1].content


# --------------------------------------------------------------------------------------------------------------
# The session: the deterministic first screen with the note
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("question, lang, verdict", [
    (FIT_QUESTION, "en", "No"),
    ("Llama-3-70B 放得下一张 H100 吗？", "zh", "按原样不行"),  # not at BF16; FP8 fits on the one card (said after)
])
def test_the_session_falls_back_to_the_deterministic_first_screen(monkeypatch, question, lang, verdict) -> None:
    buried = "Let me think about that. It depends on many things."

    class Scripted(AgentDriver):
        def __init__(self, settings) -> None:
            super().__init__(Settings(reader="agent"), chat_model=scripted_model([buried, buried]))

    monkeypatch.setattr(agent_module, "AgentDriver", Scripted)
    conv = Conversation(driver="llm", lang=lang)
    turn = conv.respond(question)
    assert turn.mode == "deterministic"
    assert turn.note.startswith("The language model could not answer (its first sentence did not answer" if lang == "en"
                                else "语言模型未能作答（回答的第一句没有直接回答问题）")
    lead = first_sentences(turn.answer, 1)
    assert verdict in lead and "GiB" in lead  # the verdict and the deciding memory, in the first sentence
    assert buried not in turn.answer


# --------------------------------------------------------------------------------------------------------------
# Asking first only when no default exists (dialog.missing_blocking)
# --------------------------------------------------------------------------------------------------------------

def test_a_question_when_the_defaults_suffice_is_reasked_for_an_answer() -> None:
    total = shown("estimate_memory", MEMORY_ARGS, "total per GPU")
    usable = shown("estimate_memory", MEMORY_ARGS, "usable on NVIDIA H100 SXM5 80GB")
    ask = tool_call("ask_clarifying_question", {"slot": "context", "question": "What context length do you need?"})
    answer = f"No — Llama-3-70B needs {total} per GPU; one H100 has {usable} usable."
    driver, model = _driver([AIMessage("", tool_calls=[ask]),
                             AIMessage("", tool_calls=[tool_call("estimate_memory", MEMORY_ARGS)]), answer])
    turn = list(driver.run(None, FIT_QUESTION))[-1]
    assert turn.questions == [] and turn.answer.startswith(answer) and turn.extra["grounding"]["reasked"]
    assert "first sentence" in model.calls[1][-1].content  # the re-ask after the refused question


def test_a_plain_question_when_the_defaults_suffice_ends_unanswered() -> None:
    driver, _ = _driver(["What context length do you need?", "How many users?"])
    with pytest.raises(AgentUnavailable) as info:
        list(driver.run(None, FIT_QUESTION))
    assert info.value.reason == "unanswered" and "asked" in info.value.detail


def test_asking_first_stays_allowed_without_a_model() -> None:
    ask = tool_call("ask_clarifying_question", {"slot": "model", "question": "Which model do you want to serve?"})
    driver, _ = _driver([AIMessage("", tool_calls=[ask])])
    turn = list(driver.run(None, "How many GPUs do we need for our chatbot?"))[-1]
    assert turn.questions == ["Which model do you want to serve?"]
