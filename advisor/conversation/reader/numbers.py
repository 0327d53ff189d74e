"""Chinese scaled numbers read whole: "20万" = 200,000, "2000万" = 20,000,000, "1.5亿" = 150,000,000,
"3千" = 3,000, "两千" = 2,000, "一千五百万" = 15,000,000.

The extractor's patterns take a number followed by an optional scale character (`with_scale`) and read the
match with `read`; the value then goes through `ranges.check`, so a number too large for its slot gets the
out-of-range reply instead of being cut to its digits ("20万个用户" read as 20) or dropped.
Scales (decimal): 十 10, 百 10², 千 10³, 万 10⁴, 亿 10⁸; 万亿 = 10⁴ · 10⁸ = 10¹².
"""

from __future__ import annotations

import re

DAYS_PER_MONTH = 365 / 12  # 30.42: every day
HOURS_PER_MONTH = 24 * DAYS_PER_MONTH  # 730 h: a month around the clock (usage, rental prices per month)

_BIG = {"万": 1e4, "亿": 1e8}  # the scales that multiply whatever comes before them (一千五百 万)
_SMALL = {"十": 10.0, "百": 100.0, "千": 1e3}  # after Arabic digits only ("3千", "1.5百"); 两千 is a numeral

SCALE = r"(?:万亿|千亿|百亿|十亿|亿|千万|百万|十万|万|千)"
BIG_SCALE = r"(?:万亿|千亿|百亿|十亿|亿|千万|百万|十万|万)"  # without 千 (context: "8千" is 8k = 8192)

# a context or concurrency word just before a number: "上下文 2000万", "并发 20万" name that slot, not money
_SLOT_BEFORE = re.compile(
    r"(?:上下文(?:长度|窗口)?|序列长度|context(?:\s*(?:length|window|len))?|ctx|并发(?:数|量)?|同时在线|用户数?|users?|"
    r"日活(?:用户)?|月活(?:用户)?|dau|mau|注册用户|用户总数|用户规模)"
    r"\s*(?:改成|改为|换成|设为|是|为|要|达到|到|约|大概|of|is|=|:)?\s*$"
)


# numbers in words and digits (the extractor's patterns are built on DIGITS)
_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
             "八": 8, "九": 9, "单": 1, "双": 2}
_CN_UNIT = {"十": 10, "百": 100, "千": 1000}
_EN_NUM = {"a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "dual": 2, "pair of": 2, "three": 3, "four": 4,
           "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
           "sixteen": 16, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100, "a couple of": 2}

# digits with thousands separators, a decimal part and an exponent; the look-behind starts it at one position only
DIGITS = r"(?<!\d)\d+(?:,\d{3})*(?:\.\d+)?(?:e\+?\d{1,3}(?![a-z\d]))?"  # 1e3 read whole (not "fp8e4m3")


def cn_int(text: str) -> int | None:
    """Chinese numerals up to 9999 ("十二" = 12, "两" = 2, "二十" = 20, "一百" = 100); None when not one."""
    if not text or any(ch not in _CN_DIGIT and ch not in _CN_UNIT for ch in text):
        return None
    total, digit = 0, None
    for ch in text:
        if ch in _CN_DIGIT:
            digit = _CN_DIGIT[ch]
        else:
            total += (1 if digit is None else digit) * _CN_UNIT[ch]
            digit = None
    return total + (digit or 0)


def to_number(text: str) -> float | None:
    """'1,200' -> 1200.0, '2.5' -> 2.5, '四' -> 4.0, 'two' -> 2.0; None otherwise."""
    text = text.strip().lower()
    if not text:
        return None
    if re.fullmatch(DIGITS, text):
        return float(text.replace(",", ""))  # 1e400 is inf: out of every range (ranges.check)
    if text in _EN_NUM:
        return float(_EN_NUM[text])
    value = cn_int(text)
    return None if value is None else float(value)


def with_scale(num_pattern: str, scale: str = SCALE) -> str:
    """`num_pattern` followed by an optional scale ("20 万", "1.5亿", "3千")."""
    return rf"(?:{num_pattern})(?:\s*{scale})?"


def read(text: str) -> float | None:
    """The value of a number with optional Chinese scales; None when `text` is not one.

    read("20万") = 2e5, read("两千万") = 2e7, read("1万亿") = 1e12, read("十万") = 1e5, read("1e3") = 1e3."""
    s = re.sub(r"\s+", "", text or "")
    if not s:
        return None
    if s[-1] in _BIG:
        base = s[:-1]
        head = read(base) if base else 1.0
        return None if head is None else head * _BIG[s[-1]]
    if s[-1] in _SMALL and len(s) > 1 and re.fullmatch(r"[\d.,e+]+", s[:-1]):
        head = to_number(s[:-1])
        return None if head is None else head * _SMALL[s[-1]]
    return to_number(s)


def names_other_slot(text: str, start: int) -> bool:
    """True when the words just before `start` name the context or the concurrency (so not an amount of money)."""
    return bool(_SLOT_BEFORE.search(text[max(0, start - 24):start]))


# currency words after an amount, one list for budgets (reader.amounts) and rental prices (reader.rental): dollars
# ("bucks", "刀" in Chinese slang, not "刀片" blades) and yuan ("块" not before a card: "两块显卡" are two cards)
USD_WORDS = r"usd|us\$|dollars?|bucks|美元|美金|刀(?!片)"
CNY_WORDS = r"rmb|cny|yuan|元|块钱|块(?!(?:显卡|卡|gpu|npu|芯片|儿))|人民币"
_USD_WORD = re.compile(rf"\$|(?:{USD_WORDS})")


def currency_of(word: str) -> str:
    """"USD" for a dollar sign or word, "CNY" for any other currency word of USD_WORDS/CNY_WORDS, ¥ and ￥."""
    return "USD" if _USD_WORD.fullmatch(word) else "CNY"
