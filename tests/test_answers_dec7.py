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


# --- a batch job with a deadline and no card: hardware sized for the job's rate, then cut to what the deadline needs ----

def test_a_batch_job_with_a_deadline_and_no_card_is_sized_for_it() -> None:
    """1M documents of 3k tokens on Llama-3.1-70B within 24 hours had been timed on the one-user lead, 8× RTX 4090
    (25.7 days) and answered with 208 of them. The card is now chosen for the job's rate (λ = requests ÷ deadline)
    and its count cut to copies that meet the deadline at a full batch."""
    text = answer("We need to summarise 1 million documents of about 3k tokens each with Llama-3.1-70B within 24 "
                  "hours. What hardware?")
    lead = first_paragraph(text)
    assert lead.startswith("**To finish within 24 hours"), lead
    assert "RTX" not in lead, lead
    cards = number(r"(\d+)× [^×]* in all", lead)
    rate = number(r"([\d.]+) requests per second each", lead)
    copies = number(r"(\d+) copies of", lead)
    assert copies * rate * 24 * 3600 >= 1_000_000 > (copies - 1) * rate * 24 * 3600  # the fewest copies that make it
    assert cards <= 16, lead


def test_a_batch_job_in_chinese_is_sized_to_its_deadline() -> None:
    lead = first_paragraph(answer("用 Qwen2.5-72B 在 24 小时内处理 100 万条文档，每条 2k token，输出 300 token，需要什么硬件？",
                                  "zh"))
    assert lead.startswith("**要在 24 小时内跑完"), lead
    assert number(r"共 (\d+) 张", lead) < number(r"约需 [\d.]+ 小时（(\d+)×", lead.replace("**", "")), lead


@pytest.mark.parametrize("text, lang, prompt, output", [
    ("batch job: classify 200k support tickets (500 tokens each, 10-token label) with qwen2.5-7b. how long on one l4?",
     "en", 500, 10),
    ("summarise 50k articles of 2k tokens into 200-token summaries with llama-3.1-8b", "en", 2000, 200),
    ("用 qwen2.5-7b 给 10 万条评论打标签，每条 300 token，输出 5 个 token 的标签，一张 l20 要多久", "zh", 300, 5),
])
def test_the_length_of_a_label_or_summary_is_the_output(text: str, lang: str, prompt: int, output: int) -> None:
    s = extract(text, CAT, lang=lang)
    assert (s.prompt_tokens, s.output_tokens) == (prompt, output), s


def test_five_hundred_summaries_are_a_count_not_a_length() -> None:
    s = extract("write 500 summaries with llama-3.1-8b on an h100", CAT, lang="en")
    assert s.output_tokens is None, s
