"""Copies of the model served side by side. "We currently run 2 replicas of Llama-3.1-70B on H100s; if we move to 4
replicas, how many GPUs total?" had answered "You need 2× H100" (one copy): replicas were not read. They are the
serving DP (vLLM's data-parallel deployment): the count is replicas × the GPUs one copy needs."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.recommend.search import replica_layouts, replica_pairs
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "replicas"), [
    ("We currently run 2 replicas of Llama-3.1-70B on H100s; if we move to 4 replicas, how many GPUs total?", "en", 4),
    ("Llama-3.1-70B on H100s, 4 copies of the model, how many GPUs in total?", "en", 4),
    ("We need 2 copies of Llama-3.1-8B on RTX 4090s for redundancy, how many cards?", "en", 2),
    ("Serve Llama-3.1-8B as three replicas on L40S", "en", 3),
    ("Llama-3.1-70B 部署 4 个副本，需要多少张 H100？", "zh", 4),
    ("把副本从 2 个扩到 4 个，需要多少张 H100？模型是 Llama-3.1-70B", "zh", 4),
    ("副本数 6，Qwen2.5-7B，用 L20", "zh", 6),
    ("Qwen2.5-72B 要部署三个副本，用 H20 需要多少张？", "zh", 3),
])
def test_replicas_read(text: str, lang: str, replicas: int) -> None:
    slots = extract(text, CAT, lang=lang)
    assert slots.replicas == replicas and slots.pinned_layout is None and slots.gpu_count is None


@pytest.mark.parametrize("text", [
    "How many copies of the dataset do I need for Llama-3.1-8B?",
    "Train Llama-3.1-8B on 8 H100 with DP 8, how long for 10B tokens?",
])
def test_no_replicas(text: str) -> None:
    assert extract(text, CAT, lang="en").replicas is None


def test_replicas_of_a_group_said_make_the_count() -> None:
    slots = extract("Serve Llama-3.1-70B on H100s as 4 replicas of TP 2: how many GPUs?", CAT, lang="en")
    assert slots.gpu_count == 8


def test_replica_layouts_split_the_count_evenly() -> None:
    model = CAT.model("llama-3.1-70b")
    assert [(lay.tp, lay.pp, lay.dp) for lay in replica_layouts(model, 8, 1, 4)] == [(2, 1, 4)]
    assert [(lay.tp, lay.pp, lay.dp) for lay in replica_layouts(model, 6, 1, 2)] == [(1, 3, 2)]  # no TP 3
    assert replica_layouts(model, 8, 1, 3) == []
    assert replica_pairs(4, 8, 64)[:4] == [(4, 1), (8, 1), (16, 2), (32, 4)]


@pytest.mark.parametrize(("text", "lang", "opening"), [
    ("We currently run 2 replicas of Llama-3.1-70B on H100s; if we move to 4 replicas, how many GPUs total?", "en",
     "You need 8× NVIDIA H100 SXM5 80GB: 68.7 GiB per GPU of 72.0 GiB usable (4 replicas × TP 2"),
    ("Serve Llama-3.1-8B as 3 replicas on L40S, 60 users: how many cards?", "en",
     "You need 3× NVIDIA L40S"),
    ("DeepSeek-V3 as 2 replicas on H200, how many GPUs?", "en", "You need 16× NVIDIA H200 SXM 141GB"),
    ("把副本从 2 个扩到 4 个，需要多少张 H100？模型是 Llama-3.1-70B", "zh", "需要 8× NVIDIA H100 SXM5 80GB"),
])
def test_the_count_is_replicas_times_one_copy(text: str, lang: str, opening: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert first.startswith(opening), first


def test_a_speed_target_with_replicas_widens_each_copy() -> None:
    first = answer("Serve Llama-3.1-8B as 2 replicas on L4s, 100 users with at least 30 tokens/s each: how many L4s?",
                   "en").split("\n")[0]
    assert "2 replicas × TP" in first and "30 tokens/s per user" in first, first


@pytest.mark.parametrize(("text", "lang", "line"), [
    ("8 H100s serving Llama-3.1-70B as 3 replicas?", "en",
     "8× NVIDIA H100 SXM5 80GB cannot serve Llama-3.1-70B as 3 replicas: 8 GPUs do not split into 3 equal copies "
     "(accepted: a count that is a multiple of 3, e.g. 3, 6 or 12, or a number of replicas that divides 8)"),
    ("8 张 H100 部署 Llama-3.1-70B，3 个副本，行吗？", "zh",
     "8× NVIDIA H100 SXM5 80GB 没法把 Llama-3.1-70B 部署成 3 个副本：8 张卡分不成 3 份相同的副本（可接受：卡数是 3 的倍数，"
     "如 3、6、12；或能整除 8 的副本数）"),
])
def test_a_count_that_does_not_split_into_the_replicas_says_so(text: str, lang: str, line: str) -> None:
    assert answer(text, lang).split("\n")[0] == line
