""""How does latency change as concurrency goes 1, 8, 32, 128?": three or more loads listed are read as a ladder,
each simulated on one configuration (the one named, or as the answer's change makes it hold the largest load), with
the first token, the per-user speed and the total at each."""

from __future__ import annotations

import itertools
import re

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "ladder"), [
    ("how does latency change as concurrency goes 1, 8, 32, 128?", "en", (1, 8, 32, 128)),
    ("TTFT at 1/8/32/128 users for Qwen2.5-7B on an L4?", "en", (1, 8, 32, 128)),
    ("per-user speed at 1, 10 and 100 users on 2 H100", "en", (1, 10, 100)),
    ("batch sizes 1, 4, 16 and 64 for Qwen2.5-7B on an L4", "en", (1, 4, 16, 64)),
    ("并发 1、8、32、128 时每路多少 token/s？", "zh", (1, 8, 32, 128)),
    ("100/50/10 路并发分别多快", "zh", (10, 50, 100)),
])
def test_three_or_more_loads_are_a_ladder(text: str, lang: str, ladder: tuple[int, ...]) -> None:
    s = extract(text.lower(), CAT, lang=lang)
    assert s.load_ladder == ladder and s.concurrency == max(ladder)


@pytest.mark.parametrize("text", [
    "serve 10 users on 2x H100, 4k context, 512 output",
    "prompts of 1,000, 4,000 and 16,000 tokens",
    "8, 16 or 32 GPUs for Llama-3.1-70B?",
    "from 50 to 100 users",  # two loads: a change, not a ladder
])
def test_other_lists_are_not_a_ladder(text: str) -> None:
    assert extract(text.lower(), CAT, lang="en").load_ladder is None


def _cells(first: str, lang: str) -> list[tuple[int, float, float]]:
    rx = (r"(\d+) users?: first token ([\d.]+) (m?s), ([\d.]+) tokens/s" if lang == "en"
          else r"(\d+) 路时首 token ([\d.]+) (m?s)、(?:每路 )?([\d.]+) tokens/s")
    return [(int(n), float(v) * (1 if unit == "ms" else 1000), float(per)) for n, v, unit, per in re.findall(rx, first)]


@pytest.mark.parametrize(("text", "lang"), [
    ("Llama-3.1-8B on one A100: how does latency change as concurrency goes 1, 8, 32, 128?", "en"),
    ("TTFT at 1/8/32/128 users for Qwen2.5-7B on an L4?", "en"),
    ("Llama-3.1-8B 一张 H100，并发 1、8、32、128 时每路多少 token/s？", "zh"),
])
def test_more_users_never_get_a_sooner_first_token_or_more_speed_each(text: str, lang: str) -> None:
    ladder = next(p for p in answer(text, lang).split("\n") if "by concurrent users" in p or "按并发数" in p)
    cells = _cells(ladder, lang)
    assert [n for n, _, _ in cells] == [1, 8, 32, 128], ladder
    for (_, f0, p0), (_, f1, p1) in itertools.pairwise(cells):
        assert f1 >= f0 and p1 <= p0, ladder
    totals = [float(a or b) for a, b in re.findall(r"([\d.]+) tokens/s in total|合计 ([\d.]+) tokens/s", ladder)]
    assert totals == sorted(totals), ladder  # the total grows with the load
