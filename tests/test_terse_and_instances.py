"""Two readings found by asking new questions. "70b fp8 h100 how many" had read the 8 of "fp8" as eight H100s and
answered "8× H100" at BF16; a number glued to letters before a card's name ("fp8", "int4") is a format, not a count.
"How many g6e.12xlarge instances to serve Llama-3.1-70B to 100 users?" had answered "Not as asked" about one instance;
a count asked of instances is a count of servers the size of the instance (4 L40S, 8 H100), as "how many 4-GPU
servers" is."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "weights", "gpu", "count"), [
    ("70b fp8 h100 how many", "fp8", "h100-sxm", None),
    ("qwen 7b int8 4090 ok?", "int8", "rtx-4090", None),
    ("two 4090s for 70b int4", "int4", "rtx-4090", 2),
    ("4x H100 for Llama-3.1-70B", None, "h100-sxm", 4),
    ("用8张H100训练 Llama-3.1-8B", None, "h100-sxm", 8),
])
def test_format_digits_are_no_count(text: str, weights: str | None, gpu: str, count: int | None) -> None:
    slots = extract(text, CAT, lang="zh" if "张" in text else "en")
    assert slots.weights == weights
    assert [(c.gpu, c.count) for c in slots.candidates] == [(gpu, count)]


def test_terse_fp8_question_sizes_fp8() -> None:
    first = answer("70b fp8 h100 how many").splitlines()[0]
    assert first.startswith("You need 1× NVIDIA H100"), first


@pytest.mark.parametrize(("text", "lang", "pattern"), [
    ("How many g6e.12xlarge instances to serve Llama-3.1-70B to 100 users?", "en", r"^\*\*\d+ servers?\*\* \(4-GPU nodes\)"),
    ("How many p5.48xlarge instances do I need to serve DeepSeek-V3 to 200 users?", "en",
     r"^\*\*2 servers\*\* \(8-GPU nodes\): 16× NVIDIA H100"),
    ("部署 DeepSeek-V3 给 200 人用，需要几台 p5.48xlarge？", "zh", r"^\*\*需要 \d+ 台服务器\*\*（每台最多 8 张卡）"),
])
def test_instances_asked_are_counted_as_servers(text: str, lang: str, pattern: str) -> None:
    first = answer(text, lang).splitlines()[0]
    assert re.search(pattern, first), first


def test_instances_said_keep_their_cards() -> None:
    slots = extract("Serve Llama-3.1-70B on 2x g6e.12xlarge for 50 users, speed?", CAT, lang="en")
    assert [(c.gpu, c.count) for c in slots.candidates] == [("l40s", 8)] and slots.server_size is None
