"""The LLM reader against the local OpenAI-compatible mock server (real HTTP, offline): one structured-output call
fills the typed request, validated like the offline reading; anything unusable falls back to the offline reader."""

from __future__ import annotations

import json

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.llm.settings import Settings
from advisor.conversation.reader.llm import READING_SCHEMA, llm_read
from tests.mock_openai_server import MockOpenAI, message, status

TEXT = "Serve Qwen2.5-72B to 50 users with 8k context on either one H100 or four 4090s, no A100"


def reading(**over: object) -> str:
    base = {"act": "compare", "model": "Qwen2.5-72B",
            "gpus": [{"name": "H100", "role": "compared", "count": 1}, {"name": "4090", "role": "compared", "count": 4},
                     {"name": "A100", "role": "excluded", "count": None}],
            "task": "inference", "weights": None, "context_tokens": 8192, "concurrent_users": 50, "headcount": None,
            "train_tokens": None, "budget": None, "currency": None, "region": None}
    base.update(over)
    return json.dumps(base)


def settings(url: str) -> Settings:
    return Settings(api_key="sk-test", base_url=url, model="mock-model", request_timeout_s=5, stream=False)


def test_structured_call_fills_the_request() -> None:
    with MockOpenAI([message(reading())]) as srv:
        req = llm_read(TEXT, settings(srv.base_url), default_catalog(), "en")
        body = srv.requests[-1]["body"]
    assert body["response_format"]["type"] == "json_schema"  # constrained decoding asked of the server
    assert set(body["response_format"]["json_schema"]["schema"]["properties"]) == set(READING_SCHEMA["properties"])
    assert req.reader == "llm" and req.act == "compare" and req.note == ""
    assert req.subjects[0].id == "qwen2.5-72b"
    roles = [(h.gpu, h.role, h.count) for h in req.hardware]
    assert ("rtx-4090", "compared", 4) in roles and ("a100-80g-sxm", "excluded", None) in roles
    assert req.value("concurrency").value == 50 and req.value("context").value == 8192  # type: ignore[union-attr]


def test_a_name_the_catalog_lacks_stays_unknown() -> None:
    with MockOpenAI([message(reading(act="feasibility", model="GLM-5.2", gpus=[]))]) as srv:
        req = llm_read("GLM-5.2 on a 4090?", settings(srv.base_url), default_catalog(), "en")
    assert req.reader == "llm" and "GLM-5.2" in req.unknown and req.subjects[0].known is False


@pytest.mark.parametrize("reply", [message("not json at all"), message(""), message(reading(act="dance")),
                                   status(500)])
def test_unusable_answers_fall_back_to_the_offline_reader(reply: dict) -> None:
    with MockOpenAI([reply]) as srv:
        req = llm_read(TEXT, settings(srv.base_url), default_catalog(), "en")
    assert req.reader == "offline" and "read offline" in req.note
    assert req.act == "compare" and req.subjects[0].id == "qwen2.5-72b"  # the offline reading, not a guess


def test_no_model_configured_reads_offline() -> None:
    req = llm_read(TEXT, None, default_catalog(), "en")
    assert req.reader == "offline" and req.note.startswith("no model configured")
