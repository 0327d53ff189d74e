"""Bilingual cue patterns: Chinese words match anywhere, English words only whole.

    words(zh="多少钱|报价", en="price|cost")  ==  re.compile("多少钱|报价|(?<![a-z])(?:price|cost)(?![a-z])")

Chinese is written without spaces, so a Chinese cue has no word boundary to respect; an English cue must not be a
piece of a longer word of the lower-cased text ("cost" is not in "costume"). The cue tables of `intent` and the
extractor use this one rule instead of spelling the look-arounds out in each pattern.
"""

from __future__ import annotations

import re


def words(zh: str, en: str) -> re.Pattern[str]:
    """`zh` (regex alternatives) anywhere, or `en` (regex alternatives) as whole words of lower-case text."""
    return re.compile(f"{zh}|(?<![a-z])(?:{en})(?![a-z])")
