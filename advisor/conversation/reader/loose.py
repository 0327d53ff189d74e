"""Amounts people say loosely, read as a number with the range they cover (never dropped, never silently exact).

    find("a few hundred users and a couple of GB")
      -> [Loose("a few hundred", 300, 200, 500), Loose("a couple of", 2, 2, 3)]
    rewrite_loose("几十个用户，一两张卡") -> "30个用户，2张卡"

The value used is stated in the answer with its range ("read 'a few hundred' as 300 (200–500)"):

* a pair of neighbouring numerals (一两, 两三, 三五, 七八, and with a unit 两三百, 一两万) is the top of the pair (a
  demand sized for its top, a count of cards read as the most said), the range from the bottom;
* a vague count is a representative value inside its range: "a couple (of)" 2 (2–3), "a few" 3 (2–5), "a handful"
  5 (3–7), "several" 5 (3–9), "几" / "数" 3 (2–9), "十几" 15 (11–19), "二十几" 25 (21–29), "十来" 10 (10–12), "二十来" / "20来" 20 (20–24),
  "上百" 100 (100–199); times a scale word after it ("a few hundred" 300 (200–500), "几十" 30 (20–90), "几万");
  "dozens of" 36 (24–96), "hundreds of" 300 (200–900), "thousands of" 3000 (2000–9000);
* two number words joined by "or" / "to" ("two or three H100s") are a pair as above;
* exact words that the number grammar lacks: "a dozen" 12, "half a dozen" 6, "half a million" 500,000, "a quarter
  of a million" 250,000 (exact: low = high).
"""

from __future__ import annotations

import re

from knowledge.messages import t
from knowledge.structs import Value

_EN_SCALE = {"hundred": 100, "thousand": 1000, "k": 1000, "million": 1_000_000, "billion": 1_000_000_000,
             "dozen": 12}
_CN_DIGIT = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_CN_SCALE = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "十万": 100_000, "百万": 1_000_000, "千万": 10_000_000,
             "亿": 100_000_000}
_VAGUE_EN = {"a couple of": (2, 2, 3), "a couple": (2, 2, 3), "couple of": (2, 2, 3), "a few": (3, 2, 5),
             "a handful of": (5, 3, 7), "several": (5, 3, 9), "a few dozen": (36, 24, 60)}

_SCALE_EN = r"(?:\s+(?P<scale>hundred|thousand|million|billion|dozen)|\s*(?P<k>k)(?![a-z]))?"
# what a loose amount counts must follow (one word may stand between: "a few hundred concurrent users"), so "a few
# questions" or "several options" stay words
_UNIT_EN = (r"(?=\s*(?:[a-z-]+\s+)?(?:users?|people|persons|engineers?|developers?|employees?|staff|colleagues|customers?|"
            r"students?|seats?|sessions?|requests?|concurrent|agents?|members?|gpus?|cards?|nodes?|servers?|machines?|"
            r"boxes|accelerators?|[a-z]{1,3}\d{2,4}[a-z]?s?|\d{4}s?|gb|gib|tb|g|tokens?|words?|documents?|docs|pages|"
            r"hours?|days?|weeks?|months?|years?|dollars|bucks|grand|k|thousand|million|billion)(?![a-z]))")
_EN = re.compile(
    rf"(?<![a-z])(?P<half>half\s+a|a\s+quarter\s+of\s+a)\s+(?P<hscale>dozen|hundred|thousand|million|billion)(?![a-z])|"
    rf"(?<![a-z])(?P<dozen>a|one)\s+dozen(?![a-z]){_UNIT_EN}|"
    rf"(?<![a-z])(?P<many>dozens|hundreds|thousands|millions)\s+of(?![a-z]){_UNIT_EN}|"
    rf"(?<![a-z])(?P<vague>a\s+couple(?:\s+of)?|couple\s+of|a\s+few|a\s+handful\s+of|several)(?![a-z]){_SCALE_EN}"
    rf"{_UNIT_EN}",
    re.I)
_SMALL_EN = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_WORD = "|".join(_SMALL_EN)
_PAIR_EN = re.compile(rf"(?<![a-z0-9.])(?P<a>{_WORD}|\d{{1,3}})\s+(?:or|to)\s+(?P<b>{_WORD})(?![a-z])" + _UNIT_EN, re.I)
_MANY = {"dozens": (36, 24, 96), "hundreds": (300, 200, 900), "thousands": (3000, 2000, 9000),
         "millions": (3_000_000, 2_000_000, 9_000_000)}
_UNIT_CN = r"(?=\s*(?:个|张|块|台|位|名|人|路|天|周|星期|个月|月|年|小时|卡|元|块钱|k|w|g|gb|t|b|张卡|并发|用户|tokens?|条|亿|万|千|百|十))"
_CN = re.compile(
    r"(?P<pair>一两|两三|二三|三四|三五|四五|五六|六七|七八|八九)(?:(?P<pscale>十万|百万|千万|十|百|千|万|亿)|" + _UNIT_CN + ")|"
    r"(?P<tens>[二三四五六七八九])?十几(?P<tscale>万|亿)?|"
    r"(?:几|数)(?P<vscale>十万|百万|千万|十|百|千|万|亿)|"
    r"(?:(?P<ltens>[二两三四五六七八九])?(?P<lai>十|百|千|万)|(?<![\d.])(?P<dlai>[1-9]\d*0))来"
    r"(?=\s*(?:个|张|块|台|位|名|号|人|天|小时))|"  # "二十来号人", "20来个人"
    r"上(?P<up>百|千|万)(?=\s*(?:个|张|块|台|位|名|人|号|天|小时|万|亿|gb|g|元|块))")


class Loose(Value):
    """A loosely said amount: the words, the value used, and the range the words cover (`low` == `high`: exact)."""

    text: str
    value: float
    low: float
    high: float
    span: tuple[int, int]
    written: str = ""  # how the rewrite writes it, when not the value's digits ("一两万" → "2万": the scale word kept)

    @property
    def exact(self) -> bool:
        return self.low == self.high


def _en(m: re.Match[str]) -> Loose | None:
    text, span = m.group(0), m.span()
    if m.group("half"):
        scale = _EN_SCALE[m.group("hscale").lower()]
        v = scale * (0.5 if m.group("half").lower().startswith("half") else 0.25)
        return Loose(text, v, v, v, span)
    if m.group("dozen"):
        return Loose(text, 12, 12, 12, span)
    if m.group("many"):
        v, lo, hi = _MANY[m.group("many").lower()]
        return Loose(text, v, lo, hi, span)
    key = re.sub(r"\s+", " ", m.group("vague").lower())
    v, lo, hi = _VAGUE_EN[key]
    scale_word = (m.group("scale") or m.group("k") or "").lower()
    scale = _EN_SCALE.get(scale_word, 1)
    return Loose(text, v * scale, lo * scale, hi * scale, span)


def _cn(m: re.Match[str]) -> Loose:
    text, span = m.group(0), m.span()
    if m.group("pair"):
        a, b = (_CN_DIGIT[c] for c in m.group("pair"))
        scale = _CN_SCALE.get(m.group("pscale") or "", 1)
        big = (m.group("pscale") or "")[-1:] in ("万", "亿")  # "2万" reads as money or a count; "3百" would not
        return Loose(text, b * scale, a * scale, b * scale, span,
                     f"{b * scale // _CN_SCALE[m.group('pscale')[-1]]}{m.group('pscale')[-1]}" if big else "")
    if "十几" in text:
        tens = _CN_DIGIT[m.group("tens")] if m.group("tens") else 1
        scale = _CN_SCALE.get(m.group("tscale") or "", 1)
        return Loose(text, (tens * 10 + 5) * scale, (tens * 10 + 1) * scale, (tens * 10 + 9) * scale, span)
    if m.group("vscale"):
        scale = _CN_SCALE[m.group("vscale")]
        return Loose(text, 3 * scale, 2 * scale, 9 * scale, span)
    if m.group("lai") or m.group("dlai"):  # "十来" 10 (10–12), "二十来"/"20来" 20 (20–24): a little over the round number
        if m.group("dlai"):
            base = float(m.group("dlai"))
        else:
            base = _CN_DIGIT[m.group("ltens")] * _CN_SCALE[m.group("lai")] if m.group("ltens") else _CN_SCALE[m.group("lai")]
        return Loose(text, base, base, base * 1.2, span)
    scale = _CN_SCALE[m.group("up")]
    return Loose(text, scale, scale, 2 * scale - 1, span)


def find(text: str) -> list[Loose]:
    """Every loosely said amount in `text`, in order (see the module doc)."""
    found = [x for m in _EN.finditer(text) if (x := _en(m)) is not None]
    for m in _PAIR_EN.finditer(text):  # "two or three H100s": the top of the pair, the range from the bottom
        a = _SMALL_EN.get(m.group("a").lower()) or int(m.group("a"))
        b = _SMALL_EN[m.group("b").lower()]
        if a < b:
            found.append(Loose(m.group(0), b, a, b, m.span()))
    found += [_cn(m) for m in _CN.finditer(text)]
    return sorted(found, key=lambda x: x.span)


def _digits(v: float) -> str:
    return f"{v:g}" if v < 1e6 else f"{int(v)}"


def rewrite_loose(text: str) -> str:
    """`text` with each loose amount replaced by the digits of its value ("a few hundred users" → "300 users"); a
    Chinese pair keeps the unit after it ("一两张卡" → "2张卡")."""
    out, at = [], 0
    for x in find(text):
        start, end = x.span
        if start < at:
            continue
        out.append(text[at:start])
        sep = " " if x.text[:1].isascii() and end < len(text) and text[end:end + 1].isalpha() and \
            text[end:end + 1].isascii() else ""
        out.append((x.written or _digits(x.value)) + sep)
        at = end
    out.append(text[at:])
    return "".join(out)


def phrase(x: Loose, lang: str) -> str:
    """How the answer says what it read: "“a few hundred” read as 300 (200–500)"."""
    rng = "" if x.exact else t("loose.range", lang, low=_digits(x.low), high=_digits(x.high))
    return t("loose.read_as", lang, text=x.text, value=_digits(x.value), range=rng)


__all__ = ["Loose", "find", "phrase", "rewrite_loose"]
