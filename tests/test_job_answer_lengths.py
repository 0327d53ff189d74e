"""A batch job's answers by what the job makes of its items, when no length is said. "Process 10 million documents
of 1k tokens each with Qwen2.5-7B for classification" had been timed with 195-token answers (a chat turn's, 3.1 days on
4× L40S); a classification answers with a label (advisor.workload.LABEL_OUTPUT_TOKENS) and a translation is about as
long as its source. Each is stated in the answer's assumptions; a length the person says wins."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.workload import LABEL_OUTPUT_TOKENS
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "kind"), [
    ("I need to process 10 million documents of 1k tokens each with Qwen2.5-7B for classification. How long on 4 L40S?",
     "en", "label"),
    ("Run sentiment analysis over 2 million reviews of 300 tokens with Llama-3.1-8B on one H100, how long?", "en", "label"),
    ("Tag 5M support tickets of 200 tokens with Qwen2.5-7B on an L4, how long will it take?", "en", "label"),
    ("1000 万条 1k token 的文档用 Qwen2.5-7B 做分类，4 张 L40S 要跑多久？", "zh", "label"),
    ("200 万条评论做情感分析，每条 300 token，Llama-3.1-8B 单卡 H100 要多久？", "zh", "label"),
    ("Translate 500k documents of 1k tokens with Qwen2.5-7B on 2 L40S, how long?", "en", "translation"),
    ("把 50 万篇 1k token 的文档翻译成英文，Qwen2.5-7B 两张 L40S 要多久？", "zh", "translation"),
    # the answers are text, not labels: a summary beside the classification, or no batch job at all
    ("Summarise and classify 1M support tickets of 800 tokens with Qwen2.5-14B on 2 H100s — how long?", "en", None),
    ("Summarise 1M articles of 3k tokens with Qwen2.5-7B on 4 L40S, how long?", "en", None),
])
def test_job_answer_read(text: str, lang: str, kind: str | None) -> None:
    assert extract(text, CAT, lang=lang).job_answer == kind


def test_label_answers_time_the_job_and_are_stated() -> None:
    text = ("I need to process 10 million documents of 1k tokens each with Qwen2.5-7B for classification. "
            "How long on 4 L40S?")
    lines = answer(text).splitlines()
    assert f"1000 tokens in and {LABEL_OUTPUT_TOKENS} tokens out" in lines[0]
    assert f"answers of {LABEL_OUTPUT_TOKENS} tokens (a label each" in "\n".join(lines[:3])
    chat = answer("I need to run 10 million documents of 1k tokens each through Qwen2.5-7B. How long on 4 L40S?")
    hours = {k: float(re.search(r"about ([\d.]+) (hours|days)", s).group(1)) * (24 if "days" in s.split("**")[1] else 1)
             for k, s in (("label", lines[0]), ("chat", chat.splitlines()[0]))}
    assert hours["label"] < hours["chat"]  # 16-token answers take less time than 195-token ones


def test_said_length_wins() -> None:
    first = answer("Classify 1M tickets of 500 tokens into 20 tokens each with Llama-3.1-8B on an L40S, how long?")
    assert "500 tokens in and 20 tokens out" in first.splitlines()[0]


def test_translation_answers_as_long_as_source_zh() -> None:
    first = answer("把 50 万篇 1k token 的文档翻译成英文，Qwen2.5-7B 两张 L40S 要多久？", "zh").splitlines()
    assert "输出 1000 tokens" in first[0] and "译文与原文等长" in "\n".join(first[:3])


def test_label_job_states_its_length_instead_of_asking() -> None:
    out = answer("Classify 200k support tickets with Llama-3.1-8B, about 500 tokens each. How long on one H100?")
    assert "500 tokens in and 16 tokens out" in out.splitlines()[0]
    assert "output length" not in out.split("Next question:")[-1][:120]


@pytest.mark.parametrize("text", ["Classify 1M support tickets with Llama-3.1-8B on one H100, how long?",
                                  "Translate 200k articles with Qwen2.5-7B on an L40S, how long?"])
def test_without_the_items_length_the_answer_length_is_still_asked(text: str) -> None:
    """No item length said: the answers' length does not follow from the job (a translation is as long as its
    source), so it is timed with a chat turn's and asked, not assumed silently as known."""
    out = answer(text)
    assert "195 tokens out" in out.splitlines()[0]
    assert "output length" in out.split("Next question:")[1][:120]
