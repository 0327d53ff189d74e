""""What's the max batch I can run on one L40S with Mistral-7B at 2k prompts?" had answered "2000 requests take about
3.2 min": "batch" in "max batch" was read as a batch job and "2k prompts" as its 2,000 items. The largest batch is
the sequences the card holds at once, and "at 2k prompts" is their length."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize("text", [
    "What's the max batch I can run on one L40S with Mistral-7B at 2k prompts?",
    "What batch size fits on one L40S for Mistral-7B with 2k prompts?",
    "largest batch for Llama-3.1-8B on an A10G at 4k prompts?",
])
def test_the_largest_batch_is_no_job(text: str) -> None:
    slots = extract(text, CAT, lang="en")
    assert slots.job_requests is None and slots.prompt_tokens in (2000, 4000), slots


@pytest.mark.parametrize(("text", "items"), [
    ("Batch job: run 2k prompts through Mistral-7B on one L40S, how long?", 2000),
    ("Summarise 200k documents of 3k tokens each with Llama-3.1-8B on an H100: how long?", 200_000),
])
def test_a_batch_job_keeps_its_items(text: str, items: int) -> None:
    assert extract(text, CAT, lang="en").job_requests == items


def test_the_answer_gives_the_sequences_held() -> None:
    first = answer("What's the max batch I can run on one L40S with Mistral-7B at 2k prompts?", "en").split("\n")[0]
    assert first.startswith("**1× NVIDIA L40S holds at most ") and "concurrent sequences" in first, first
