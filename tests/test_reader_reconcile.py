"""LLM mode: a structured reading with the wrong act (or the wrong model) does not change the first sentence. The
offline reader's act wins when it was read from a cue word of the message, and its model when the message names
it as the catalog does (`reader.request.reconcile`); an act the offline reader only guessed from the job's shape
is the model's to decide. Against the local OpenAI-compatible mock server (real HTTP, offline)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.llm.settings import Settings
from advisor.conversation.reader.llm import llm_read
from advisor.conversation.session import Conversation
from tests.mock_openai_server import MockOpenAI, message


def reading(**over: Any) -> str:
    base: dict[str, Any] = {"act": "which", "model": None, "gpus": [], "task": None, "weights": None,
                            "context_tokens": None, "concurrent_users": None, "headcount": None, "train_tokens": None,
                            "budget": None,
                            "currency": None, "region": None}
    base.update(over)
    return json.dumps(base)


def settings(url: str) -> Settings:
    return Settings(api_key="sk-test", base_url=url, model="mock-model", stream=False, request_timeout_s=5)


WRONG_ACT = [  # (lang, message, the act the message asks, the wrong act the model reads, the model's other fields)
    ("en", "How long would a LoRA fine-tune of Llama-3.1-8B on 1B tokens take on 8 H100s?", "how_long", "which",
     {"model": "Llama-3.1-8B", "task": "lora", "train_tokens": 1e9, "gpus": [{"name": "H100", "role": "candidate",
                                                                              "count": 8}]}),
    ("en", "How many days to LoRA-tune Llama-3.1-8B with 1B tokens on 8x H100?", "how_long", "feasibility",
     {"model": "Llama-3.1-8B", "task": "lora", "train_tokens": 1e9}),
    ("zh", "Qwen2.5-72B 给 50 个人用，8k 上下文，要几张 H100？", "how_many", "market",
     {"model": "Qwen2.5-72B", "concurrent_users": 50, "context_tokens": 8192,
      "gpus": [{"name": "H100", "role": "candidate", "count": None}]}),
    ("zh", "部署 Qwen2.5-72B，50 人同时用，上下文 8k，需要多少张 H100", "how_many", "which",
     {"model": "Qwen2.5-72B", "concurrent_users": 50, "context_tokens": 8192}),
    ("en", "How many H100s do I need to serve Qwen2.5-72B to 50 users at 8k context?", "how_many", "explain",
     {"model": "Qwen2.5-72B", "concurrent_users": 50, "context_tokens": 8192}),
    ("en", "Should we rent or buy 8 H100s to serve Llama 3.1 70B?", "rent_vs_buy", "how_many",
     {"model": "Llama-3.1-70B", "gpus": [{"name": "H100", "role": "candidate", "count": 8}]}),
    ("zh", "Llama 3.1 70B 用 8 张 H100，租还是买划算？", "rent_vs_buy", "feasibility",
     {"model": "Llama-3.1-70B", "gpus": [{"name": "H100", "role": "candidate", "count": 8}]}),
]


@pytest.mark.parametrize(("lang", "text", "act", "wrong", "fields"), WRONG_ACT, ids=[w[1][:40] for w in WRONG_ACT])
def test_a_cue_read_act_wins_over_a_contradicting_model_act(lang: str, text: str, act: str, wrong: str,
                                                           fields: dict[str, Any]) -> None:
    with MockOpenAI([message(reading(act=wrong, **fields))]) as srv:
        turn = Conversation(lang=lang, settings=settings(srv.base_url)).respond(text)
        assert len(srv.requests) == 1  # answered from the reading: an "explain" misread is not sent to the tool loop
    req = turn.extra["request"]
    assert turn.mode == "llm" and req["reader"] == "llm"
    assert req["act"] == act and req["act_from"] == "cue", req
    assert f"act: model {wrong}, offline {act}" in req["note"]
    offline = Conversation(lang=lang, driver="deterministic").respond(text)
    assert offline.extra["request"]["act"] == act
    # the first sentence is the one the question's act gets offline (same job, same numbers)
    assert turn.answer.split("\n\n")[0] == offline.answer.split("\n\n")[0]


def test_an_act_guessed_from_the_shape_is_the_models_to_decide() -> None:
    text = "Serve Qwen2.5-72B to 50 users with 8k context"  # no question word: "which" only from the job's shape
    offline = llm_read(text, None, default_catalog(), "en")
    assert offline.act == "which" and offline.act_from == "shape"
    with MockOpenAI([message(reading(act="how_many", model="Qwen2.5-72B", concurrent_users=50,
                                     context_tokens=8192))]) as srv:
        req = llm_read(text, settings(srv.base_url), default_catalog(), "en")
    assert req.act == "how_many" and req.act_from == "model" and "act:" not in req.note


@pytest.mark.parametrize(("lang", "text", "named", "misread"), [
    ("en", "Can Qwen2.5-7B run on one RTX 4090?", "qwen2.5-7b", "Qwen2.5-72B"),
    ("en", "is a single 4090 enough for qwen2.5 7b", "qwen2.5-7b", "Qwen2.5-72B"),
    ("zh", "一张 4090 能跑 Qwen2.5-7B 吗？", "qwen2.5-7b", "Qwen2.5-72B"),
])
def test_the_named_model_wins_over_a_misread_one(lang: str, text: str, named: str, misread: str) -> None:
    with MockOpenAI([message(reading(act="feasibility", model=misread,
                                     gpus=[{"name": "RTX 4090", "role": "candidate", "count": 1}]))]) as srv:
        turn = Conversation(lang=lang, settings=settings(srv.base_url)).respond(text)
    req = turn.extra["request"]
    assert next(s for s in req["subjects"] if s["kind"] == "model")["id"] == named
    # a name the message does not contain is dropped by grounding; one it contains loses to the named model
    assert f"offline {named} (named) kept" in req["note"] or f"dropped: model '{misread}'" in req["note"]
    offline = Conversation(lang=lang, driver="deterministic").respond(text)
    assert turn.answer.split("\n\n")[0] == offline.answer.split("\n\n")[0]


def test_a_misread_model_that_is_in_the_message_loses_to_the_named_one() -> None:
    text = "We used Qwen2.5-72B before; can Qwen2.5-7B run on one RTX 4090 instead?"
    offline = llm_read(text, None, default_catalog(), "en")
    named = next(s.id for s in offline.subjects if s.kind == "model")
    wrong = "Qwen2.5-72B" if named == "qwen2.5-7b" else "Qwen2.5-7B"
    with MockOpenAI([message(reading(act="feasibility", model=wrong))]) as srv:
        req = llm_read(text, settings(srv.base_url), default_catalog(), "en")
    assert next(s.id for s in req.subjects if s.kind == "model") == named
    assert f"offline {named} (named) kept" in req.note


HELD_OUT = [  # written before the rule was tuned on WRONG_ACT; reported, not tuned
    ("en", "What would 4 H100s cost for serving Llama 3.1 70B?", "how_much", "which",
     {"model": "Llama-3.1-70B", "gpus": [{"name": "H100", "role": "candidate", "count": 4}]}),
    ("zh", "微调 Qwen2.5-7B，LoRA，5 亿 tokens，两张 4090 要训练多久？", "how_long", "how_many",
     {"model": "Qwen2.5-7B", "task": "lora", "train_tokens": 5e8}),
    ("en", "Is it legal to ship H100s to China?", "legality", "feasibility",
     {"gpus": [{"name": "H100", "role": "candidate", "count": None}]}),
    ("zh", "H20 现在国内还能买到吗？", "market", "which", {"gpus": [{"name": "H20", "role": "candidate", "count": None}]}),
]


def test_held_out_wrong_model_acts() -> None:
    failed = []
    for lang, text, act, wrong, fields in HELD_OUT:
        with MockOpenAI([message(reading(act=wrong, **fields))]) as srv:
            req = llm_read(text, settings(srv.base_url), default_catalog(), lang)
        if req.act != act:
            failed.append((text, req.act))
    assert not failed, failed
