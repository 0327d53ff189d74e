"""The offline reader's typed request (advisor.conversation.reader.request) against the labelled set
tests/data/reader_set.txt (benchmarks/bench_reader.py reports the same figures per field)."""

from __future__ import annotations

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.reader.request import Request, read, validate
from benchmarks.bench_reader import load, offline_reader, score


@pytest.fixture(scope="module")
def reader():  # type: ignore[no-untyped-def]
    return offline_reader()


@pytest.mark.parametrize("split", ["T", "H"])
def test_fields_exact_on_the_labelled_set(reader, split: str) -> None:  # type: ignore[no-untyped-def]
    items = [i for i in load() if i[0] == split]
    per, errors = score(reader, items)
    ok, total = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
    assert total > 100 and ok / total >= 0.95, "\n".join(errors)


def test_the_set_is_bilingual_and_has_a_held_out_part() -> None:
    items = load()
    zh = sum(any("\u4e00" <= ch <= "\u9fff" for ch in text) for _s, text, _e in items)
    held = sum(split == "H" for split, _t, _e in items)
    assert 0.4 <= zh / len(items) <= 0.6 and 0.2 <= held / len(items) <= 0.4


def test_readme_question_reads_as_stated_values() -> None:
    req = read("Serve Qwen2.5-72B to 50 users with 8k context", default_catalog(), "en")
    job = {v.name: v for v in req.job}
    assert req.act == "which"
    assert (job["concurrency"].value, job["concurrency"].provenance, job["concurrency"].text) == (50, "stated", "50 users")
    assert (job["context"].value, job["context"].provenance, job["context"].text) == (8192, "stated", "8k context")
    assert job["weights"].provenance == "default"


def test_validate_turns_an_unknown_id_into_an_unknown_name() -> None:
    data = {"act": "feasibility", "subjects": [{"kind": "model", "id": "gemma-3-27b-made-up", "text": "Gemma 3 27B"}],
            "hardware": [{"gpu": "rtx-4090", "role": "candidate", "count": 1}]}
    req = validate(data, default_catalog())
    assert isinstance(req, Request)
    assert req.subjects[0].known is False and req.subjects[0].id is None and "Gemma 3 27B" in req.unknown
    assert req.hardware[0].gpu == "rtx-4090" and req.hardware[0].known


def test_validate_refuses_an_unknown_act() -> None:
    with pytest.raises(ValueError):
        validate({"act": "dance"}, default_catalog())
