"""Questions about serving and training at scale in words no earlier test had (Dec 7): the size of the servers whose
count is asked ("how many 8x H100 servers"), a headcount said as an N-person anything ("a 40-person support desk")."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()


def first_paragraph(text: str) -> str:
    return text.split("\n\n")[0]


# --- the servers asked: "8x" before the card is the server's size, not a count of servers -------------------------

@pytest.mark.parametrize("text, size", [
    ("how many 8x H100 servers to serve Llama-3.1-70B to 100 users?", 8),
    ("how many 4x L40S servers do I need for Qwen2.5-72B with 20 users?", 4),
    ("How many 8×H200 boxes would DeepSeek-V3 need for 200 users", 8),
])
def test_the_size_of_the_servers_asked_is_no_count(text: str, size: int) -> None:
    s = extract(text.lower(), CAT, lang="en")
    assert s.server_size == size and s.candidates and s.candidates[0].count is None, s


def test_servers_of_eight_for_a_70b_are_one_not_eight() -> None:
    """Llama-3.1-70B for 100 users fits one 8-GPU H100 server (4 H100 hold it in BF16); it had been answered 8
    servers, 64 cards, reading "8x" as the servers asked about."""
    lead = first_paragraph(answer("how many 8x H100 servers to serve Llama-3.1-70B to 100 users?"))
    assert number(r"\*\*(\d+) servers?\*\*", lead) == 1, lead


def test_servers_of_four_are_counted_in_fours() -> None:
    lead = first_paragraph(answer("how many 4x L40S servers do I need for Qwen2.5-72B with 20 users?"))
    assert "(4-GPU nodes)" in lead, lead


def test_owned_servers_said_with_x_are_still_counted() -> None:
    """"We have 2x H100 servers": two servers of 8 (the count is the user's, not asked)."""
    s = extract("we have 2x h100 servers, can they serve deepseek-v3?", CAT, lang="en")
    cards = (s.existing.count if s.existing else None) or (s.candidates[0].count if s.candidates else None)
    assert cards == 16 and s.server_size is None, s


# --- a headcount said as an N-person anything -------------------------------------------------------------------------

@pytest.mark.parametrize("text, people", [
    ("We run a 40-person support desk on Qwen2.5-32B; how many L40S do we need?", 40),
    ("our 120-seat call center wants Llama-3.1-8B, which GPU?", 120),
    ("a 25 person design studio wants to self-host Qwen2.5-14B", 25),
])
def test_an_n_person_anything_is_a_headcount(text: str, people: int) -> None:
    s = extract(text.lower(), CAT, lang="en")
    assert s.headcount == people and s.concurrency is None, s
