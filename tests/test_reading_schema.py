"""The LLM reader's structured-output schema is generated from its msgspec structs (`Reading`), and the reply is
decoded by msgspec: what the hand-written schema guaranteed still holds (every key required, enums, no other keys,
one object with no references), and a bad reply is an error of one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.reader.llm import Reading, decode_reading, reading_schema
from advisor.conversation.reader.request import ACTS

ROOT = Path(__file__).resolve().parents[1]
KEYS = ["act", "model", "gpus", "task", "weights", "context_tokens", "concurrent_users", "headcount", "train_tokens",
        "budget",
        "currency", "region"]


def _objects(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [o for v in node for o in _objects(v)]
    if not isinstance(node, dict):
        return []
    return ([node] if node.get("type") == "object" else []) + [o for v in node.values() for o in _objects(v)]


def _enum(prop: dict[str, Any]) -> set[Any]:
    return {v for alt in prop.get("anyOf", [prop]) for v in alt.get("enum", [])}


def test_the_schema_keeps_what_the_hand_written_one_guaranteed() -> None:
    schema = reading_schema()
    text = json.dumps(schema)
    assert "$ref" not in text and "$defs" not in text  # one object: LangChain names it by its title
    assert schema["title"] == "Reading" and list(schema["properties"]) == KEYS
    for obj in _objects(schema):  # the reading and each card: every key required, no other key
        assert obj["additionalProperties"] is False and obj["required"] == list(obj["properties"])
    props = schema["properties"]
    assert _enum(props["act"]) == set(ACTS)
    assert _enum(props["gpus"]["items"]["properties"]["role"]) == {"owned", "candidate", "excluded", "compared"}
    assert {"inference", "lora", "qlora", "full", "pretrain"} <= _enum(props["task"])
    assert _enum(props["currency"]) == {"CNY", "USD"} and _enum(props["region"]) == {"cn", "global"}
    nullable = [k for k in KEYS if {"type": "null"} in props[k].get("anyOf", [])]
    assert nullable == [k for k in KEYS if k not in ("act", "gpus")]
    assert all(alt.get("type") == "string" for k in ("act", "task") for alt in props[k].get("anyOf", [props[k]])
               if "enum" in alt)  # each enum with its JSON type (OpenAI's strict mode)


def test_llama_cpp_turns_the_schema_into_a_grammar_that_enforces_the_enums() -> None:
    grammar = pytest.importorskip("llama_cpp.llama_grammar")
    gbnf = grammar.json_schema_to_gbnf(json.dumps(reading_schema()))
    rules = dict(line.split(" ::= ", 1) for line in gbnf.splitlines() if " ::= " in line)
    assert rules["root"].startswith('"{" space act-kv "," space model-kv "," space gpus-kv')
    assert '"\\"qlora\\""' in rules["task-0"] and '"\\"global\\""' in rules["region-0"]
    assert rules["task"] == "task-0 | null"  # the hand-written schema let any string through llama.cpp's grammar


def test_the_reply_is_decoded_and_held_to_the_message() -> None:
    text = "Serve Qwen2.5-72B to 50 users with 8k context on two H100"
    reply = {"act": "feasibility", "model": "Qwen2.5-72B", "gpus": [{"name": "H100", "role": "candidate", "count": 2}],
             "task": "serving", "weights": None, "context_tokens": 8192, "concurrent_users": 50, "headcount": None,
             "train_tokens": None, "budget": 5000, "currency": None, "region": None}
    reading, dropped = decode_reading(json.dumps(reply), text, default_catalog())
    assert isinstance(reading, Reading) and reading.gpus[0].count == 2 and reading.context_tokens == 8192
    assert reading.task is None and reading.budget is None  # not in the struct's vocabulary / not in the message
    assert dropped == ["budget 5000", "task 'serving'"]
    # a key the schema lacks (a server that ignored it) is dropped and named, as before the schema was generated
    reading, dropped = decode_reading(json.dumps({**reply, "task": None, "budget": None, "colour": "red"}), text)
    assert dropped == ["key 'colour'"] and reading.model == "Qwen2.5-72B"


@pytest.mark.parametrize(("reply", "error", "words"), [
    ('{"act": "which", "model": ', msgspec.DecodeError, "truncated"),  # cut off: not completed
    ("[]", msgspec.ValidationError, "Expected `object`, got `array`"),
    ('{"act": "which"}', msgspec.ValidationError, "missing required field `model`"),
    (json.dumps(dict.fromkeys(KEYS) | {"gpus": []}), msgspec.ValidationError, "`$.act`"),
    (json.dumps(dict.fromkeys(KEYS) | {"act": "dance", "gpus": []}), msgspec.ValidationError, "`$.act`"),
    (json.dumps(dict.fromkeys(KEYS) | {"act": "which", "gpus": [{"name": "H100", "role": "owned", "count": 1, "vram": 80}]}),
     msgspec.ValidationError, "unknown field `vram`"),
])
def test_a_bad_reply_is_an_error_of_one_line(reply: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        decode_reading(reply, "Serve Qwen2.5-72B on an H100", default_catalog())
    assert words in str(info.value) and "\n" not in str(info.value)


def test_importing_the_reader_does_not_build_the_schema() -> None:
    code = ("import advisor.conversation.reader.llm as m; print(m.reading_schema.cache_info().currsize); "
            "m.READING_SCHEMA; print(m.reading_schema.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}).stdout.split()
    assert out == ["0", "1"]
