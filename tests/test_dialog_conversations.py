"""The conversation test set (tests/conversations/*.yaml), run through the deterministic dialog.

Each conversation is a list of turns; each turn says something and states what must hold afterwards:

    kind:        question (a blocking clarifying question), answer (a recommendation/verdict), no_change
    pending:     the slot the turn asks about (blocking question or the "next question" of an answer); null = none
    slots:       the conversation's slots after the turn (only the listed ones are compared;
                 existing: {gpu, count}; candidates: [gpu ids] or [[gpu, count], ...])
    changed:     slots the turn changed (the answer reports them)
    verdict:     fits / does_not_fit / some_fit / none_fit — on the user's own configurations
    claim:       too_low / weights_only / plausible — on a quoted guide claim
    contains / not_contains: substrings of the answer (case-insensitive)
    lang:        language of the answer (default: the file's `lang`)
    options_min: at least this many options

Every turn of every conversation must also be grounded: each number in the answer matches a value in
`Turn.numbers` (checked with the agent's grounding gate, unit conversions included), or the user's own text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.session import Conversation
from advisor.conversation.turn import Turn
from knowledge.structs import dump

HERE = Path(__file__).parent / "conversations"


def _load() -> list[tuple[str, str, dict[str, Any]]]:
    cases = []
    for path in sorted(HERE.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        for conv in doc["conversations"]:
            cases.append((path.stem, doc.get("lang", "en"), conv))
    return cases


CASES = _load()


def _check_slots(conv: Conversation, expected: dict[str, Any], where: str) -> None:
    slots = conv.state.slots
    for name, want in expected.items():
        got = getattr(slots, name)
        if name == "existing" and want is None:
            assert got is None, f"{where}: existing hardware {got}, expected none"
        elif name == "existing":
            assert got is not None, f"{where}: no existing hardware, expected {want}"
            assert got.gpu == want["gpu"], f"{where}: existing gpu {got.gpu} != {want['gpu']}"
            if "count" in want:
                assert got.count == want["count"], f"{where}: existing count {got.count} != {want['count']}"
        elif name == "candidates":
            if want and isinstance(want[0], list):
                assert [[m.gpu, m.count] for m in got] == want, f"{where}: candidates {got}"
            else:
                assert [m.gpu for m in got] == want, f"{where}: candidates {[m.gpu for m in got]} != {want}"
        elif isinstance(want, float) or (isinstance(want, int) and not isinstance(want, bool) and isinstance(got, float)):
            assert got == pytest.approx(want), f"{where}: {name} = {got}, expected {want}"
        else:
            assert got == want, f"{where}: {name} = {got!r}, expected {want!r}"


def _grounded(turn: Turn, said: str, where: str) -> None:
    pool = grounding.Pool.of([{"numbers": [dump(n) for n in turn.numbers]}], texts=[said])
    for n in turn.numbers:  # each number also as it would be printed with its unit ("4×", "18.2 days")
        pool.add_text(f"{n.value!r} {n.unit}")
        pool.add_text(f"{n.value!r}{n.unit}")
    report = grounding.check(turn.answer, pool)
    assert report.ok, f"{where}: numbers not in Turn.numbers: {[m.text for m in report.ungrounded]}\n{turn.answer}"


def test_the_set_is_big_enough_and_bilingual():
    langs = [lang for _, lang, _ in CASES]
    turns = sum(len(conv["turns"]) for _, _, conv in CASES)
    assert len(CASES) >= 60 and turns >= 60
    assert abs(langs.count("zh") - langs.count("en")) <= 4
    kinds = {conv.get("category") for _, _, conv in CASES}
    assert {"underspecified", "fully_specified", "follow_up", "sales", "guide_claim", "nonsense",
            "injection"} <= kinds
    ids = [conv["id"] for _, _, conv in CASES]
    assert len(ids) == len(set(ids)), "conversation ids must be unique"


@pytest.mark.parametrize("file,lang,conv", CASES, ids=[c["id"] for _, _, c in CASES])
def test_conversation(file: str, lang: str, conv: dict[str, Any]) -> None:
    c = Conversation(driver="deterministic")
    for i, turn_spec in enumerate(conv["turns"]):
        said = turn_spec.get("say", "")
        if turn_spec.get("repeat"):
            said = said * int(turn_spec["repeat"])
        where = f"{conv['id']} turn {i + 1} ({said[:40]!r})"
        turn = c.respond(said)
        expect = turn_spec.get("expect", {})
        assert turn.answer.strip(), f"{where}: empty answer"
        assert turn.mode == "deterministic"
        assert turn.note != "error", f"{where}: the turn failed: {turn.answer}"
        assert turn.lang == expect.get("lang", lang), f"{where}: answered in {turn.lang}"
        kind = expect.get("kind")
        if kind:
            assert turn.extra.get("kind") == kind, f"{where}: kind {turn.extra.get('kind')}, expected {kind}\n{turn.answer}"
            if kind == "question":
                assert len(turn.questions) == 1, f"{where}: one question at a time"
            if kind == "answer":
                assert turn.numbers, f"{where}: an answer without computed numbers"
        if "pending" in expect:
            assert turn.extra.get("pending") == expect["pending"], (
                f"{where}: pending {turn.extra.get('pending')}, expected {expect['pending']}")
            assert bool(turn.questions) == (expect["pending"] is not None)
        _check_slots(c, expect.get("slots", {}), where)
        for slot in expect.get("changed", []):
            assert slot in turn.extra.get("changed", []), f"{where}: {slot} not reported as changed"
        if "verdict" in expect:
            assert turn.extra.get("verdict") == expect["verdict"], f"{where}: verdict {turn.extra.get('verdict')}\n{turn.answer}"
        if "claim" in expect:
            assert turn.extra.get("claim_verdict") == expect["claim"], f"{where}: claim {turn.extra.get('claim_verdict')}"
        if "options_min" in expect:
            assert len(turn.options) >= expect["options_min"], f"{where}: {len(turn.options)} options"
        text = turn.answer.lower()
        for s in expect.get("contains", []):
            assert s.lower() in text, f"{where}: {s!r} missing from the answer\n{turn.answer}"
        for s in expect.get("not_contains", []):
            assert s.lower() not in text, f"{where}: {s!r} must not be in the answer\n{turn.answer}"
        _grounded(turn, said, where)
