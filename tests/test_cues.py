"""The bilingual cue helper (advisor.conversation.reader.cues.words): Chinese cues anywhere, English cues as whole words."""

from __future__ import annotations

from advisor.conversation.reader.cues import words


def test_chinese_cues_match_inside_a_sentence_english_ones_only_whole() -> None:
    cue = words(zh=r"多少钱|报价", en=r"price|cost")
    assert cue.search("这套配置多少钱？")
    assert cue.search("what is the price of 4x h100")
    assert cue.search("cost: 20k")
    assert not cue.search("a costume party")  # "cost" inside a longer word
    assert not cue.search("priceless")
    assert cue.pattern == r"多少钱|报价|(?<![a-z])(?:price|cost)(?![a-z])"
