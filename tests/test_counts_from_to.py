"""One card, then two counts of it: "把 H100 从 512 张加到 1024 张，70B 预训练能快多少？" and "scaling our H100 cluster
from 512 to 1024 GPUs" had read one configuration (512 or 1024 H100s) and answered only whether it fits. Both counts
are configurations of that card, so the answer is the scaling comparison the English "from 512 to 1024 H100s" got."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "gpu", "counts"), [
    ("把 H100 从 512 张加到 1024 张，70B 预训练能快多少？", "zh", "h100-sxm", [512, 1024]),
    ("H100 从 512 张扩到 1024 张，训练 70B 能快多少", "zh", "h100-sxm", [512, 1024]),
    ("我们的 A100 从 8 卡升级到 16 卡，训练 13B 快多少", "zh", "a100-80g-sxm", [8, 16]),
    ("We are scaling our H100 cluster from 512 to 1024 GPUs; how much faster will 70B pretraining be?", "en",
     "h100-sxm", [512, 1024]),
    ("Our H200 fleet goes from 64 to 256 cards next quarter. How much faster does Llama-3.1-70B pretraining get?",
     "en", "h200-sxm", [64, 256]),
])
def test_both_counts_are_configurations(text: str, lang: str, gpu: str, counts: list[int]) -> None:
    slots = extract(text, CAT, lang=lang)
    assert [(c.gpu, c.count) for c in slots.candidates] == [(gpu, n) for n in counts]
    assert slots.gpu_count is None


@pytest.mark.parametrize(("text", "lang"), [
    ("H100 从 2023 年到 2025 年价格降了多少？", "zh"),
    ("Our A100 cluster goes from 2 to 4 nodes, how much faster is 13B fine-tuning?", "en"),  # nodes, not GPUs
    ("H100 prices from 2023 to 2025?", "en"),
])
def test_other_from_to_is_not_two_counts(text: str, lang: str) -> None:
    slots = extract(text, CAT, lang=lang)
    assert len(slots.candidates) <= 1 and all(c.count in (None, 2, 4) for c in slots.candidates)


@pytest.mark.parametrize(("text", "lang", "said"), [
    ("把 H100 从 512 张加到 1024 张，70B 预训练能快多少？", "zh", "倍"),
    ("We are scaling our H100 cluster from 512 to 1024 GPUs; how much faster will 70B pretraining be?", "en", "as fast as"),
])
def test_answer_compares_the_two_sizes(text: str, lang: str, said: str) -> None:
    first = answer(text, lang).splitlines()[0]
    assert "1024×" in first and "512×" in first and said in first
