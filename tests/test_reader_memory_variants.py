"""A card named with its memory said apart from the name ("a Mac Studio M3 Ultra with 512GB", "a 40GB A100") is the
catalog's variant of that memory, not the one the bare name resolves to; system RAM said beside a card is not the
card's memory. The catalog's figures (knowledge/data/gpus) are the reference: the variant read must hold the
memory the user typed."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog

CAT = load_catalog()


def _cards(text: str, lang: str = "en") -> list[str]:
    s = extract(text, CAT, lang=lang)
    return [m.gpu for m in ([s.existing] if s.existing else []) + list(s.candidates)]


def _memory_gb(gpu_id: str) -> float:
    g = CAT.gpu(gpu_id)
    total = g.unified_memory.total_bytes if g.unified_memory is not None else g.memory_bytes
    return total / 2**30


@pytest.mark.parametrize(("text", "lang", "gb"), [
    ("can a Mac Studio M3 Ultra with 512GB run deepseek r1 671b?", "en", 512),
    ("can a 512GB Mac Studio M3 Ultra run DeepSeek-R1?", "en", 512),
    ("I have a Mac Studio M3 Ultra w/ 256 GB, will Qwen3-235B fit?", "en", 256),
    ("Llama 3 70B on an A100 with 40GB?", "en", 40),
    ("would a 40GB A100 hold Qwen2.5-32B?", "en", 40),
    ("Mac Studio M3 Ultra 有 512G，能跑 DeepSeek-V3 吗", "zh", 512),
])
def test_memory_said_beside_the_name_picks_that_variant(text: str, lang: str, gb: int) -> None:
    cards = _cards(text, lang)
    assert len(cards) == 1, cards
    assert abs(_memory_gb(cards[0]) - gb) <= 0.03 * gb, (cards, _memory_gb(cards[0]))


@pytest.mark.parametrize(("text", "gpu"), [
    ("Llama 3 8B on a 4090 with 64GB RAM", "rtx-4090"),  # system RAM, and no 64 GB 4090 exists
    ("two 3090s with 24GB each for Qwen2.5-32B", "rtx-3090"),  # the card's own memory, said again
    ("Mac Studio M3 Ultra 96GB run llama 3 70b?", "mac-studio-m3-ultra-96g"),  # the size inside the name
])
def test_ram_or_the_cards_own_size_keeps_the_card(text: str, gpu: str) -> None:
    assert _cards(text) == [gpu]


@pytest.mark.parametrize(("text", "lang"), [
    ("can a 4090D with 48GB run Llama 3.1 70B in 4-bit?", "en"),
    ("48G的4090D 能跑 70B 吗", "zh"),
    ("4090D 显存 48G 的魔改卡跑 Qwen2.5-72B", "zh"),
    ("can a 5090 with 64GB run Llama 3.1 70B?", "en"),
    ("is an H100 with 96GB enough for Qwen2.5-72B?", "en"),
])
def test_a_memory_no_catalog_variant_has_is_an_unknown_card_in_either_word_order(text: str, lang: str) -> None:
    """The same reading before and after the name, in both languages: a size no card of that name has (the modded
    48 GB RTX 4090 D is not in the catalog, the 48 GB RTX 4090 is) is a card the advisor does not know, never silently
    its namesake."""
    s = extract(text, CAT, lang=lang)
    assert _cards(text, lang) == []
    assert s.unknown_gpus, s.unknown_gpus


@pytest.mark.parametrize(("text", "gpu"), [
    ("serve Llama 3.1 70B on 8x B200 180GB", "b200"),  # HGX B200's per-GPU figure: the B200 itself
    ("two 4090 48GB in total for Qwen2.5-32B", "rtx-4090"),  # the two cards' memory together
    ("an H100 with 80GB of HBM3", "h100-sxm"),
])
def test_the_cards_own_memory_said_loosely_keeps_the_card(text: str, gpu: str) -> None:
    assert _cards(text) == [gpu]
