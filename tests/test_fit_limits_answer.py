"""Issue 28: "will this fine-tune fit on my card?" near the card's limit says so in the first lines — the spare
memory at the micro-batch and sequence asked, whether one more sequence per micro-batch fits, and the longest
sequence — in both languages, with the numbers of the analysis (each a full estimate), not re-derived here."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation
from advisor.estimator.fit_limits import training_fit_limits
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog
from knowledge.structs import replace

CASES = [
    ("LoRA fine-tune Llama-3.1-8B on one RTX 4090 with 2k sequences, will it fit?", "en", "llama-3.1-8b", "lora", 2048),
    ("在一张 4090 上用 2k 序列对 Llama-3.1-8B 做 LoRA 微调，放得下吗？", "zh", "llama-3.1-8b", "lora", 2048),
]


@pytest.mark.parametrize("question, lang, model, task, context", CASES)
def test_near_the_limit_the_first_lines_say_how_near(question: str, lang: str, model: str, task: str,
                                                     context: int) -> None:
    cat = load_catalog()
    turn = Conversation(driver="deterministic", lang=lang).respond(question)
    first = turn.answer.split("\n\n", 1)[0]
    w = Workload(model=model, task=task, context=context)  # type: ignore[arg-type]
    gpu = cat.gpu("rtx-4090")
    fl = training_fit_limits(cat.model(model), w, gpu)
    assert fl.fits and fl.largest_batch < 2  # the case is near the limit (else no line is due)
    spare = f"{fl.spare.n / 2**30:.1f} GiB"
    assert spare in first and str(fl.largest_context) in first, first
    assert ("micro-batch 2 does not" in first) if lang == "en" else ("每批 2 条放不下" in first and "micro-batch" not in first), first
    # the spare memory is the card's usable memory minus the need the same line states
    need, usable = (float(x) for x in re.findall(r"([\d.]+) GiB", first)[:2])
    assert abs((usable - need) - fl.spare.n / 2**30) <= 0.11
    # one more sequence per micro-batch really does not fit; the longest sequence fits and 256 more do not
    assert estimate_memory(cat.model(model), replace(w, batch=2), gpu).headroom_bytes(gpu).n < 0
    longer = replace(w, context=fl.largest_context + 256)
    assert estimate_memory(cat.model(model), longer, gpu).headroom_bytes(gpu).n < 0


def test_room_to_spare_adds_no_limit_line() -> None:
    turn = Conversation(driver="deterministic", lang="en").respond(
        "LoRA fine-tune Qwen2.5-0.5B on one H100 with 2k sequences, will it fit?")
    assert "Close to the limit" not in turn.answer
