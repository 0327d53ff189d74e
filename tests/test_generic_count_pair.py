"""GPUs counted at two sizes with no card named ("Does doubling GPUs from 256 to 512 halve the training time for a
13B model?") had been answered with a recommendation of 4 RTX 5060 Ti; both counts are now runs on the card the
search leads with (said as an assumption), compared as a scaling."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "pair"), [
    ("Does doubling GPUs from 256 to 512 halve the training time for a 13B model?", "en", (256, 512)),
    ("13B 预训练，从 256 卡扩到 512 卡，时间能减半吗？", "zh", (256, 512)),
    ("going from 64 to 128 GPUs for a 7B pretrain, how much faster?", "en", (64, 128)),
    ("pretraining a 7B: from 32 GPUs to 64 GPUs, is it twice as fast?", "en", (32, 64)),
])
def test_two_counts_read(text: str, lang: str, pair: tuple[int, int]) -> None:
    s = extract(text, CAT, lang=lang)
    assert (s.gpu_count, s.gpu_count_to) == pair and not s.candidates


@pytest.mark.parametrize(("text", "lang"), [
    ("traffic from 50 to 100 users on 4 GPUs", "en"),  # users, not GPUs
    ("from 2023 to 2025 how did GPU prices change", "en"),  # years
    ("scale from 2 to 4 nodes for a 70B pretrain", "en"),  # nodes are servers
    ("scaling our H100 cluster from 512 to 1024 GPUs", "en"),  # a card named: its own two configurations
])
def test_not_a_generic_pair(text: str, lang: str) -> None:
    assert extract(text, CAT, lang=lang).gpu_count_to is None


@pytest.mark.parametrize(("text", "lang", "pair"), [
    ("going from 64 to 128 GPUs for a 7B pretrain, how much faster?", "en", {64, 128}),
    ("13B 预训练，从 256 卡扩到 512 卡，时间能减半吗？", "zh", {256, 512}),
])
def test_answered_as_scaling_on_one_card(text: str, lang: str, pair: set[int]) -> None:
    first = answer(text, lang).splitlines()[0]
    said = re.findall(r"(?<![\d.])(\d+)× (.+?)(?= finishes| \(| 约|（)", first)
    assert {int(n) for n, _ in said} == pair, first
    assert len({card for _, card in said}) == 1, first  # one card at both counts
    assert re.search(r"\d\.\d\d× as fast|\d\.\d\d 倍", first), first
