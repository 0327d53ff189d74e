"""The text the extractor works on, and the number pieces its readers share.

`Text` holds the message NFKC-normalised twice: `original` (case kept, for quoting back) and `s` (lower case,
what the patterns search). A reader that takes a phrase blanks it out of `s` (`consume`), so one phrase feeds
one slot and later patterns do not see it again; offsets stay those of `original`.
"""

from __future__ import annotations

import re
import unicodedata

from advisor.conversation.reader.numbers import DIGITS, to_number

# each number pattern starts with a look-behind, so a long run of digits is tried from one position only
# (without it, "9" * 4000 backtracks quadratically in every pattern that begins with a number)
CN_NUM = r"(?<![零〇一二两俩三四五六七八九十百千])[零〇一二两俩三四五六七八九十百千]+"
NUM = rf"(?:{DIGITS}|{CN_NUM})"
EN_WORD_NUM = (r"(?<![a-z])(?:a couple of|pair of|an|a|one|single|two|dual|three|four|five|six|seven|eight|nine|ten|"
               r"eleven|twelve|sixteen|twenty|thirty|forty|fifty)(?![a-z])")  # whole words: not the "a" of "extra"

_SCALE = {"k": 1e3, "thousand": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "十万": 1e5, "百万": 1e6, "m": 1e6,
          "mn": 1e6, "million": 1e6, "千万": 1e7, "亿": 1e8, "b": 1e9, "bn": 1e9, "billion": 1e9, "十亿": 1e9,
          "百亿": 1e10, "千亿": 1e11, "万亿": 1e12, "t": 1e12, "trillion": 1e12, "": 1.0}

# a model size: "70B", "1.5 billion", "700亿"; not an amount of tokens or money
SIZE = re.compile(
    rf"(?<![a-z0-9.])(?P<num>{DIGITS})\s*(?P<unit>b|bn|billion|m|million)(?![a-z0-9])(?!\s*(?:tokens?|词元|token|参数的?\s*数据|usd|dollars|美元|元|rmb|cny))"
    rf"|(?P<cnnum>{NUM})\s*(?P<cnunit>千亿|百亿|十亿|亿)\s*(?:参数|规模|级|的)?(?!\s*(?:tokens?|词元|token|元|人民币|条|字))"
)


def scaled(num: str, unit: str | None) -> float | None:
    """`num` (digits or words) times its scale word: ("20", "万") -> 200000.0; None when `num` is no number."""
    value = to_number(num)
    if value is None:
        return None
    return value * _SCALE.get((unit or "").strip().lower(), 1.0)


def size_of(m: re.Match[str]) -> float | None:
    """The parameter count a `SIZE` match says: "70b" -> 7e10, "7m" -> 7e6, "700亿" -> 7e10."""
    if m.group("num"):
        return float(m.group("num").replace(",", "")) * (1e9 if m.group("unit") in ("b", "bn", "billion") else 1e6)
    return scaled(m.group("cnnum"), m.group("cnunit"))


_LONG_DIGITS = re.compile(r"\d{25,}")


class Text:
    """The message being read: `original` (case kept) and `s` (lower case, with consumed spans blanked)."""

    def __init__(self, text: str) -> None:
        text = _LONG_DIGITS.sub(lambda m: " " * len(m.group(0)), text)  # no quantity has 25 digits
        self.original = _normalise_keep_case(text)
        self.s = self.original.lower()
        if len(self.s) != len(self.original):  # rare case-folding that changes length: show lower case
            self.original = self.s

    def consume(self, start: int, end: int) -> None:
        self.s = self.s[:start] + " " * (end - start) + self.s[end:]

    def finditer(self, pattern: re.Pattern[str] | str) -> list[re.Match[str]]:
        rx = pattern if isinstance(pattern, re.Pattern) else re.compile(pattern)
        return list(rx.finditer(self.s))

    def take(self, pattern: re.Pattern[str] | str) -> list[re.Match[str]]:
        found = self.finditer(pattern)
        for m in found:
            self.consume(m.start(), m.end())
        return found

    def quote(self, start: int, end: int) -> str:
        """The user's own words at [start, end), trimmed."""
        return self.original[start:end].strip()


# a number with thousands separators ("2,000 tokens", "1,200 prompt tokens"), read as the number
_THOUSANDS = re.compile(r"(?<![\d,.])(\d{1,3})((?:,\d{3})+)(?![\d,])")
# the Chinese comma before a number ends a clause, never a thousands group: "张量并行 16，100B token" is TP 16 and
# 100B tokens, "流水线 4，512 张 H100" PP 4 on 512 cards (NFKC would make it the "," of "16,100")
_CN_COMMA = re.compile(r"，(?=\d)")


# PyTorch's dtype names for the two training precisions ("FSDP2 with float8", "torch.bfloat16"): the names read
_DTYPES = ((re.compile(r"(?<![a-z0-9])float8(?![a-z0-9])", re.I), "fp8"),
           (re.compile(r"(?<![a-z0-9])bfloat16(?![a-z0-9])", re.I), "bf16"))


def _normalise_keep_case(text: str) -> str:
    text = unicodedata.normalize("NFKC", _CN_COMMA.sub(", ", text))
    for rx, name in _DTYPES:
        text = rx.sub(name, text)
    text = _THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), text)
    return text.replace("×", " x ").replace("✕", " x ").replace("～", "~").replace("‐", "-").replace("–", "-")


def normalise(text: str) -> str:
    """NFKC, lower case, "×" as " x ", dashes and tildes in ASCII: the form every pattern is written for."""
    return _normalise_keep_case(text).lower()
