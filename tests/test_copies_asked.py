""""8× H100 for 1,000 users: how many of these do I need?": copies of the configuration named, counted from what one
copy holds and what it serves within the per-token target; a deployment of several replicas scales by one replica
group, not by the whole; and the smaller readings found beside it ("swap TP 4 for TP 2", "1 GPU", a configuration
that cannot be sized said in the user's language)."""

from __future__ import annotations

import math
import re

import pytest

from advisor.conversation.reader.intent import asks, tp_degrees_compared
from advisor.conversation.render.scale_out import copy_unit
from tests.answer_text import answer


class _Layout:
    def __init__(self, replicas: int) -> None:
        self.replicas = replicas


class _Option:
    def __init__(self, count: int, replicas: int) -> None:
        self.count, self.layout = count, _Layout(replicas)


@pytest.mark.parametrize(("count", "replicas", "users", "limit", "expected"), [
    (24, 3, 1000, 969, (4, 8)),   # 323 a TP 8 group: 4 groups, not 2 × 24
    (8, 1, 1000, 323, (4, 8)),    # one group: copies of the whole
    (4, 4, 500, 200, (10, 1)),    # four single-GPU replicas of 50 users each
    (6, 4, 100, 40, (3, 6)),      # replicas that do not divide the cards: copies of the whole
])
def test_the_copy_unit_is_one_replica_group(count: int, replicas: int, users: int, limit: int,
                                            expected: tuple[int, int]) -> None:
    copies, each = copy_unit(_Option(count, replicas), users, limit)
    assert (copies, each) == expected
    # whatever the unit, the copies serve every user: copies × (users one copy serves) ≥ users
    per_copy = limit * each // count
    assert copies * per_copy >= users and (copies - 1) * per_copy < users


@pytest.mark.parametrize(("text", "lang"), [
    ("Llama-3.1-70B on 8 H100 for 1000 users, how many of these nodes?", "en"),
    ("We'd serve Llama-3.1-70B to 1000 concurrent users on 8 H100s per deployment. How many copies of that do we need?", "en"),
    ("8 张 H100 跑 Llama-3.1-70B，1000 个用户，需要几套？", "zh"),
    ("Llama-3.1-70B 用 8 卡 H100，1000 并发要多少套？", "zh"),
])
def test_copies_of_a_configuration_that_holds_fewer_users_lead(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    rx = (r"\*\*(\d+) copies\*\* of 8× NVIDIA H100[^(]*\((\d+) cards in (\d+) servers?\): one holds at most (\d+) of "
          r"the 1000" if lang == "en" else
          r"\*\*需要 (\d+) 套\*\* 8× NVIDIA H100[^（]*（共 (\d+) 张卡，(\d+) 台服务器）：每套在 [\d,]+ tokens 上下文下最多"
          r"装下 1000 路中的 (\d+) 路")
    m = re.search(rx, first)
    assert m, first
    copies, cards, servers, held = (int(x) for x in m.groups())
    assert copies == math.ceil(1000 / held) and cards == 8 * copies and servers == copies
    assert 100 < held < 1000
    # the default target serves no more than memory holds: its copies are at least as many
    more = re.search(r"take (\d+) copies \((\d+) cards\)|需要 (\d+) 套（共 (\d+) 张卡）", first)
    if more:
        n = int(more.group(1) or more.group(3))
        assert n >= copies and int(more.group(2) or more.group(4)) == 8 * n


@pytest.mark.parametrize(("text", "lang"), [
    ("How many 8xH100 servers do I need to serve Llama-3.1-70B to 1000 users?", "en"),
    ("1000 个用户用 Llama-3.1-70B，要几台 8 卡 H100 服务器？", "zh"),
])
def test_copies_for_the_default_target_are_in_replica_groups(text: str, lang: str) -> None:
    """A deployment of 3 × TP 8 that serves 969 within the default target is scaled by its 8-GPU group: the cards
    are a multiple of 8, and fewer than two whole copies of the 24."""
    body = answer(text, lang)
    m = re.search(r"take (\d+) copies of one of its (\d+)-GPU groups \((\d+) cards|需要 (\d+) 组这样的 (\d+) 卡部署（共 (\d+) 张卡",
                  body)
    assert m, body[:1500]
    copies, size, cards = (int(x) for x in (m.groups()[:3] if m.group(1) else m.groups()[3:]))
    assert size == 8 and cards == copies * size and cards < 48


@pytest.mark.parametrize("text", ["How many servers for Llama-3.1-8B on one H100 at 10 users?",
                                  "Which GPU for Qwen2.5-7B?"])
def test_no_copies_lead_where_one_copy_holds_the_job(text: str) -> None:
    assert "copies**" not in answer(text, "en").split("\n")[0]


@pytest.mark.parametrize(("text", "question"), [
    ("how many copies of this do I need", True), ("需要几套", True), ("要多少组这样的部署", True),
    ("how many replicas for 500 users", True), ("how many setbacks", False), ("一套房子", False),
])
def test_copies_are_a_servers_question(text: str, question: bool) -> None:
    assert asks("servers", text) is question


@pytest.mark.parametrize(("text", "tps"), [
    ("swap TP 4 for TP 2 replicas", (4, 2)),
    ("what if we trade TP 8 for TP 4?", (8, 4)),
])
def test_swapping_degrees_compares_them(text: str, tps: tuple[int, ...]) -> None:
    assert tp_degrees_compared(text) == tps


def test_a_batch_job_on_one_gpu_says_one_gpu() -> None:
    body = answer("Summarise 1000 documents of 2000 tokens with Llama-3.1-8B on one L4 rented at $0.8/h: how long "
                  "and what does it cost?", "en")
    assert "1 GPU ×" in body and "1 GPUs" not in body


@pytest.mark.parametrize(("text", "lang", "words"), [
    ("用 2 张 Atlas 300I Duo 做 Qwen2.5-7B 的 LoRA 微调", "zh", "只做推理"),
    ("LoRA fine-tune Qwen2.5-7B on 2 Atlas 300I Duo", "en", "inference-only"),
])
def test_a_configuration_that_cannot_be_sized_says_why_in_the_users_language(text: str, lang: str,
                                                                               words: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert words in first
    if lang == "zh":
        assert "cannot be sized" not in first and "inference-only" not in first


@pytest.mark.parametrize(("text", "lang"), [
    ("How many 8xH100 servers do I need to serve Llama-3.1-70B to 1000 users?", "en"),
    ("1000 个用户用 Llama-3.1-70B，要几台 8 卡 H100 服务器？", "zh"),
])
def test_servers_for_memory_also_say_the_servers_the_default_target_takes(text: str, lang: str) -> None:
    """Sized for memory (3 servers), the first sentence also gives the servers that keep every user at the default
    25 tokens/s, and they agree with the load line's copies (8-GPU groups: cards = 8 × servers)."""
    body = answer(text, lang)
    first = body.split("\n")[0]
    m = re.search(r"default interactivity target\): (\d+) servers?, (\d+) cards|默认交互目标）：(\d+) 台服务器，共 (\d+) 张卡",
                  first)
    assert m, first
    servers, cards = (int(x) for x in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    memory = int(re.search(r"\*\*(\d+) servers\*\*|\*\*需要 (\d+) 台服务器\*\*", first).group(1)
                 or re.search(r"\*\*需要 (\d+) 台服务器\*\*", first).group(1))
    assert servers > memory and cards == 8 * servers
    later = re.search(r"take (\d+) copies of one of its 8-GPU groups \((\d+) cards|需要 (\d+) 组这样的 8 卡部署（共 (\d+) 张卡",
                      body)
    assert later and int(later.group(2) or later.group(4)) == cards, body[:1500]
