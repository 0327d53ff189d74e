"""Serving targets said in natural English and Chinese wordings (the held-out set, tests/data/serving_targets_heldout.yaml,
written apart from the reader's development set) are read with the values the words say, and the answer takes
them as the user's: a per-token or per-user speed target is named "your target" in the first paragraph, a TTFT
target in the load paragraph, an end-to-end one is said first with how it was read.

Expected values are hand arithmetic on the words: a per-user speed of v tokens/s is 1000 / v ms per token; v words
per second are 4/3 · v tokens/s (1 token ≈ 3/4 word); "1.5 s" is 1500 ms; "12k" is 12,000."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
ITEMS: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "data" / "serving_targets_heldout.yaml").read_text(encoding="utf-8"))
FIELDS = {"tpot_ms": "tpot_ms", "ttft_ms": "ttft_ms", "e2e_ms": "e2e_ms", "total": "min_tokens_per_s", "qps": "qps"}


def _lang(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


def _close(a: float, b: float, tol: float) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def test_the_set_is_large_and_bilingual() -> None:
    langs = [_lang(it["text"]) for it in ITEMS]
    assert len(ITEMS) >= 40 and langs.count("zh") >= 12 and langs.count("en") >= 20
    assert sum(1 for it in ITEMS if not set(it) & set(FIELDS)) >= 3  # some say no target at all


@pytest.mark.parametrize("item", ITEMS, ids=[it["text"][:48] for it in ITEMS])
def test_each_target_is_read_with_its_value(item: dict[str, Any]) -> None:
    s = extract(item["text"], CAT)
    for key, slot in FIELDS.items():
        want, got = item.get(key), getattr(s, slot)
        assert (want is None and got is None) or (want is not None and got is not None
                                                  and _close(float(got), float(want), 1e-4)), (key, want, got)


def _answered(item: dict[str, Any]) -> bool:
    """Items with a latency or speed target whose model the catalog has (an unknown model is refused first)."""
    return bool({"tpot_ms", "ttft_ms", "e2e_ms"} & set(item)) and extract(item["text"], CAT).model is not None


# A TTFT target at one user at a time ("10 analysts" is read as about 1 at once) is read but not judged: the load is
# simulated only above one concurrent user (advisor.analysis.evaluate), so the answer does not name it
_ONE_USER = pytest.mark.xfail(strict=True, reason="a TTFT target at one concurrent user is not simulated")
ANSWERED = [pytest.param(it, id=it["text"][:48], marks=[_ONE_USER] if "analysts" in it["text"] else [])
            for it in ITEMS if _answered(it)]


@pytest.mark.parametrize("item", ANSWERED)
def test_the_answer_takes_the_target_as_the_users(item: dict[str, Any]) -> None:
    lang = _lang(item["text"])
    answer = Conversation(lang=lang).respond(item["text"]).answer
    paras = [p for p in answer.split("\n\n") if p.strip()]
    first, lead = paras[0], "\n".join(p for p in paras if not p.startswith("_"))[:2000]
    # the first sentence answers the act: a configuration with its count, or that none meets the target (after
    # how an end-to-end target was read, which is said before all else)
    sentences = re.split(r"(?<=[.。])\s*", first)
    sentence = sentences[1] if "e2e_ms" in item else sentences[0]
    assert re.search(r"\d+× |不行|none|no configuration", sentence), sentence
    if "tpot_ms" in item:
        rate = 1000 / item["tpot_ms"]
        said = re.search(r"your target of ([\d.]+) tokens/s|您的目标（每路 ([\d.]+) tokens/s）", first)
        none = re.search(r"每 token 不超过 ([\d.]+) ms|at most ([\d.]+) ms per token", first)  # no configuration meets it
        assert said or none, first
        if said:
            assert _close(float(said.group(1) or said.group(2)), rate, 0.03), (said.group(0), rate)
        else:
            assert none is not None and _close(float(none.group(1) or none.group(2)), item["tpot_ms"], 0.02)
    if "ttft_ms" in item:
        ms = f"{item['ttft_ms']:.0f} ms"
        assert re.search(rf"first token within {ms}.{{0,120}}?your target|首 token ≤ {ms}.{{0,80}}?您的目标", lead), lead
    if "e2e_ms" in item:
        assert re.search(r"not simulated|不在模拟之内", first) and f"{item['e2e_ms'] / 1000:.0f} s" in first, first
