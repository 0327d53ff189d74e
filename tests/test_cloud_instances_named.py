"""A cloud instance named instead of a card ("on AWS g5", "2x p5.48xlarge", "g6e.12xlarge 能跑吗") is its card, from
the instance table (knowledge/data/cloud_offers.yaml): the size's card count times the instances said, or no count
for a bare family. A bare family with no cloud in sight ("p5 latency") is no card, and a card named in words wins."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from knowledge.cloud_offers import load_cloud_offers
from tests.answer_text import answer

CAT = load_catalog()


def _read(text: str) -> list[tuple[str, int | None]]:
    lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
    return [(c.gpu, c.count) for c in extract(text.lower(), CAT, lang=lang).candidates]


@pytest.mark.parametrize(("text", "expected"), [
    ("serve Mistral-7B on AWS g5 for 10 users", [("a10g", None)]),
    ("Llama-3.1-70B on 2x p5.48xlarge", [("h100-sxm", 16)]),
    ("Qwen2.5-32B on a g6e.12xlarge", [("l40s", 4)]),
    ("EC2 p4d for Llama-3.1-70B training", [("a100-40g-sxm", None)]),
    ("g5.xlarge 能跑 Qwen2.5-7B 吗", [("a10g", 1)]),
    ("两台 p5en.48xlarge 部署 DeepSeek-V3", [("h200-sxm", 16)]),
])
def test_an_instance_is_its_card(text: str, expected: list[tuple[str, int | None]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("p5 latency for Llama 8B on an L4", [("l4", 1)]),  # no cloud word: "p5" is no instance
    ("H100 on AWS p5", [("h100-sxm", None)]),  # a card named in words wins
    ("what is the g6 of my model", []),
])
def test_no_instance_is_read_where_none_is_named(text: str, expected: list[tuple[str, int | None]]) -> None:
    assert _read(text) == expected


def test_every_size_of_the_table_reads_as_its_card_and_count() -> None:
    """The table itself, row by row: "1x <instance> on AWS" is that many of its card."""
    for o in load_cloud_offers().offers:
        assert _read(f"Llama-3.1-8B on 1x {o.instance} on {o.provider}") == [(o.gpu, o.gpus)], o.instance


def test_a_g5_answers_as_the_a10g() -> None:
    first = answer("Can a g5.xlarge run Qwen2.5-7B?").split("\n")[0]
    assert "1× NVIDIA A10G fits" in first, first


def test_renting_an_instance_is_priced_by_the_hour_with_no_missing_purchase() -> None:
    body = answer("serve Mistral-7B on AWS g5 for 10 users, monthly cost?")
    first = body.split("\n")[0]
    assert "g5." in first and "per GPU-hour" in first, first
    assert "cannot be priced" not in body.split("_Assumed")[0], body[:800]
