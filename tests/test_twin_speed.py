"""A speed asked of a card whose default memory size cannot hold the job, where a larger size of the same card can:
"Ollama on a Mac Studio M3 Ultra with Qwen3-235B-A22B Q4: tokens per second?" had said the 256 GB machine holds it
and given no speed at all. The sentence about the larger machine now gives its speed (its own decode estimate)."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer


@pytest.mark.parametrize(("text", "lang", "pattern"), [
    ("Ollama on a Mac Studio M3 Ultra with Qwen3-235B-A22B Q4: tokens per second?", "en",
     r"Mac Studio M3 Ultra 256GB.{0,80}holds it.{0,80}runs it at about \d+ tokens/s per user"),
    ("Mac Studio M3 Ultra 跑 Qwen3-235B-A22B Q4 每秒多少 token？", "zh",
     r"Mac Studio M3 Ultra 256GB.{0,60}放得下.{0,60}每路约 \d+ tokens/s"),
])
def test_larger_twin_gives_its_speed(text: str, lang: str, pattern: str) -> None:
    assert re.search(pattern, answer(text, lang).splitlines()[0])


def test_no_speed_when_none_asked() -> None:
    first = answer("Can a Mac Studio M3 Ultra run DeepSeek-V3 at Q4?").splitlines()[0]
    assert "512GB" in first and "tokens/s" not in first
