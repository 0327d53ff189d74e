"""The number grammar: amounts in Chinese or English text read as quantities with a dimension.

    quantities("一万五个用户，上下文三万二，预算 fifty grand")
      -> [15000 users, 32000 tokens (context), 50000 money USD]

Pieces, each a pure function:

* `cn_numeral` — Chinese numerals with 十/百/千/万/亿 and 两, including the spoken ellipsis where the digit after the
  last unit counts one unit lower: 三万二 = 32,000, 两千五 = 2,500, 一万五 = 15,000, 三百五 = 350 (but 一万零五 =
  10,005: 零 marks a gap, so no ellipsis). 亿 = 10⁸, 万 = 10⁴ (decimal scales).
* `en_number` — English number words: "fifty" = 50, "thirty-two thousand" = 32,000, "one hundred and twenty" = 120.
* `rewrite` — the message with those spelled-out amounts in digits, so the extractor's patterns (written for
  digits) read them; a Chinese numeral ending on a bare scale (两万, 七百亿) is left as it is (the patterns read
  that shape), and "N grand" becomes "$N000".
* `quantities` — every amount with its scale (k/M/B/T, 万/千/亿, thousand/million/billion), currency (¥ 元 万元 RMB,
  $ USD dollars grand), range ("50-100", "50到100") and sign, typed by the word beside it: tokens, users, money,
  bytes (GB = 10⁹, GiB = 2³⁰, TB = 10¹²), params, days, percent, gpus. A card's model number is not an amount:
  spans named in `skip` (catalog card names) and `CARD_LIKE` ("910B", "H20", "B300", "RTX 5090") are passed over.
"""

from __future__ import annotations

import re

from advisor.conversation.reader.loose import rewrite_loose
from knowledge.structs import Value

# --- Chinese numerals ---------------------------------------------------------------------------------------------
_CN_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
             "八": 8, "九": 9}
_CN_SMALL = {"十": 10, "百": 100, "千": 1000}
_CN_BIG = {"万": 10_000, "亿": 100_000_000}
CN_CHARS = "".join(_CN_DIGIT) + "".join(_CN_SMALL) + "".join(_CN_BIG)


def _section(text: str, elide_after: int | None) -> int | None:
    """A numeral below 10,000 ("两千五" = 2500); `elide_after`: the unit that came before this section (万 → a
    bare trailing digit counts thousands: the 二 of 三万二)."""
    total, digit, last_unit, gap = 0, None, elide_after, False
    for ch in text:
        if ch in _CN_DIGIT:
            if digit is not None:
                return None  # "五五" is not a numeral
            digit = _CN_DIGIT[ch]
            gap = gap or digit == 0
            if digit == 0:
                digit = None
        elif ch in _CN_SMALL:
            unit = _CN_SMALL[ch]
            total += (1 if digit is None else digit) * unit
            digit, last_unit = None, unit
        else:
            return None
    if digit is not None:
        if last_unit is not None and last_unit >= 100 and not gap:
            total += digit * last_unit // 10  # spoken ellipsis: 两千五 = 2500, 三百五 = 350
        else:
            total += digit
    return total


def cn_numeral(text: str) -> int | None:
    """A Chinese numeral's value (see the module doc); None when `text` is not one."""
    if not text or any(ch not in CN_CHARS for ch in text):
        return None
    total, rest = 0, text
    prev_big: int | None = None
    for big_ch in ("亿", "万"):
        if big_ch in rest:
            head, rest = rest.split(big_ch, 1)
            if big_ch in rest:
                return None
            value = _section(head, None) if head else 1
            if value is None and head:
                value = cn_numeral(head)  # 一千五百万 = (一千五百) 万
            if value is None:
                return None
            total += value * _CN_BIG[big_ch]
            prev_big = _CN_BIG[big_ch]
    if rest:
        elide = prev_big if prev_big and len(rest) == 1 and rest in _CN_DIGIT and rest not in "零〇" else None
        if elide:
            return total + _CN_DIGIT[rest] * elide // 10  # 三万二 = 32000, 一万五 = 15000
        tail = _section(rest, None)
        if tail is None:
            return None
        total += tail
    return total


# --- English number words -----------------------------------------------------------------------------------------
_EN_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000,
              "trillion": 1_000_000_000_000}
_EN_WORD = "|".join(sorted([*_EN_UNITS, *_EN_TENS, *_EN_SCALES], key=len, reverse=True))
EN_NUMBER = re.compile(rf"(?<![a-z])(?:a\s+)?(?:{_EN_WORD})(?:(?:\s+and\s+|[\s-]+)(?:{_EN_WORD}))*(?![a-z])", re.I)


def en_number(text: str) -> int | None:
    """English number words: "fifty" = 50, "thirty-two thousand" = 32000, "a hundred" = 100; None otherwise."""
    words = [w for w in re.split(r"[\s-]+", text.lower().strip()) if w and w != "and"]
    if words and words[0] == "a" and len(words) > 1 and words[1] in _EN_SCALES:
        words[0] = "one"
    if not words:
        return None
    total, current = 0, 0
    for w in words:
        if w in _EN_UNITS:
            current += _EN_UNITS[w]
        elif w in _EN_TENS:
            current += _EN_TENS[w]
        elif w == "hundred":
            current = (current or 1) * 100
        elif w in _EN_SCALES:
            total += (current or 1) * _EN_SCALES[w]
            current = 0
        else:
            return None
    return total + current


# --- rewriting spelled-out amounts in digits ----------------------------------------------------------------------
_CN_RUN = re.compile(rf"[{CN_CHARS}]+")
_KEEP_SMALL = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "a"}  # "ZeRO-3" is a name


def _rewrite_cn(m: re.Match[str], full: bool = False) -> str:
    run = m.group(0)
    value = cn_numeral(run)
    if value is None or (run[0] not in _CN_DIGIT and run[0] != "十"):
        return run  # "千万" (by all means), "万一" (in case) are words, not amounts
    if full:
        return str(value)
    has_big_tail = any(b in run[:-1] for b in _CN_BIG)  # 一万五, 三万二, 一亿五千万
    small_ellipsis = len(run) >= 3 and run[-1] in _CN_DIGIT and run[-2] in "百千"  # 两千五, 三百五
    return str(value) if has_big_tail or small_ellipsis else run


def _rewrite_en(m: re.Match[str]) -> str:
    text = m.group(0)
    words = [w for w in re.split(r"[\s-]+", text.lower()) if w and w != "and"]
    if all(w in _KEEP_SMALL for w in words) or words[0] in _EN_SCALES:
        return text  # "one H100", "a 4090", "two cards" (the extractor reads these), "8 billion" (a scale)
    lead = ""
    if words[0] == "a" and words[1] not in _EN_SCALES:  # "a thirty-two thousand token context"
        lead, text = text[:2], text[2:].lstrip()
    value = en_number(text)
    return lead + text if value is None else lead + str(value)


_GRAND = re.compile(r"(?<![\w.$])(\d+(?:\.\d+)?)\s*(?:grand|g's)(?![a-z])", re.I)


def rewrite(text: str, full: bool = False) -> str:
    """`text` with spelled-out amounts in digits: "三万二" → "32000", "fifty grand" → "$50000", loose amounts as
    the value `loose` reads ("a few hundred" → "300", "一两张" → "2张"); `full` also
    rewrites the numerals the extractor reads itself (两万, 四张)."""
    out = _CN_RUN.sub(lambda m: _rewrite_cn(m, full), rewrite_loose(text))
    out = EN_NUMBER.sub(_rewrite_en, out)
    return _GRAND.sub(lambda m: f"${float(m.group(1)) * 1000:g}", out)


# --- quantities ---------------------------------------------------------------------------------------------------
class Quantity(Value):
    """An amount read from text: `value` in the dimension's base unit (tokens, users, money in `currency`, bytes,
    params, days, percent, gpus), `hi` the top of a range, `span` the (start, end) of the typed words."""

    value: float
    dimension: str  # tokens | users | money | bytes | params | days | percent | gpus | count
    text: str
    span: tuple[int, int]
    currency: str | None = None
    hi: float | None = None


CARD_LIKE = re.compile(
    r"(?:昇腾|ascend|atlas|华为)\s*\d{3}[a-z]?|(?<![a-z0-9])(?:rtx\s*(?:pro\s*)?\d{3,4}(?:\s*(?:ti|super|d))?|"
    r"[ahlbvt]\d{2,3}[a-z]?|mi\d{3}[a-z]?|gb\d{2,3}|gtx\s*\d{3,4}|\d{3}[a-z](?=\s*(?:卡|显卡|npu|芯片|card|gpu)))(?![a-z0-9])",
    re.I)

_NUM = r"(?P<sign>[-−])?(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)"
_SCALES_RX = r"万亿|千亿|百亿|十亿|亿|千万|百万|十万|万|千|thousand|million|billion|trillion|bn|mn|[kmbtw](?![a-z])"
_SCALE_WORD = rf"(?P<scale>{_SCALES_RX})"
_AMOUNT = re.compile(
    rf"(?P<pre>[¥￥$]|us\$|usd\s*|rmb\s*|cny\s*)?{_NUM}\s*{_SCALE_WORD}?"
    rf"(?:\s*(?:-|~|到|至|to)\s*(?P<hi>\d+(?:,\d{{3}})*(?:\.\d+)?)(?![\d.])\s*(?P<hiscale>{_SCALES_RX})?"
    # "8k-32k", "50-100", "50 到 100k"; not "70B to 50 users" (a scaled amount, then a bare one: two amounts)
    rf"(?(scale)(?(hiscale)|(?!))))?",
    re.I)
_SCALES = {"k": 1e3, "thousand": 1e3, "千": 1e3, "w": 1e4, "万": 1e4, "十万": 1e5, "百万": 1e6, "m": 1e6,
           "mn": 1e6, "million": 1e6, "千万": 1e7, "亿": 1e8, "b": 1e9, "bn": 1e9, "billion": 1e9, "十亿": 1e9,
           "百亿": 1e10, "千亿": 1e11, "万亿": 1e12, "t": 1e12, "trillion": 1e12}
_AFTER = [  # (pattern on the words after the amount, dimension, currency)
    (re.compile(r"\s*(?:个\s*)?(?:tokens?|词元)", re.I), "tokens", None),
    (re.compile(r"\s*(?:个|位|名)?\s*(?:并发|用户|人|员工|同事|工程师|路)|\s*(?:concurrent\s+)?(?:users?|people|"
                r"engineers?|developers?|employees?|staff|seats?|sessions?|customers?|students?|clients?|"
                r"concurrent)(?![a-z])", re.I), "users", None),
    (re.compile(r"\s*(?:元|块钱|人民币|rmb|cny)", re.I), "money", "CNY"),
    (re.compile(r"\s*(?:usd|dollars?|bucks|美元|美金)", re.I), "money", "USD"),
    (re.compile(r"\s*(?:个\s*)?(?:gib)(?![a-z])", re.I), "bytes", "GiB"),
    (re.compile(r"\s*(?:个\s*)?(?:gb|g)(?![a-z])", re.I), "bytes", "GB"),  # "两个 G"
    (re.compile(r"\s*(?:tb)(?![a-z])", re.I), "bytes", "TB"),
    (re.compile(r"\s*(?:参数|params?|parameters?)", re.I), "params", None),
    (re.compile(r"\s*(?:days?|天|日)(?![a-z])", re.I), "days", None),
    (re.compile(r"\s*(?:weeks?|周|星期)(?![a-z])", re.I), "days", "week"),
    (re.compile(r"\s*(?:hours?|hrs?|小时)(?![a-z])", re.I), "days", "hour"),
    (re.compile(r"\s*(?:months?|个月)(?![a-z])", re.I), "days", "month"),
    (re.compile(r"\s*(?:%|percent|％)", re.I), "percent", None),
    (re.compile(r"\s*(?:x\s|张|块|片|台)?\s*(?:卡|显卡|gpus?|cards?|accelerators?)(?![a-z])", re.I), "gpus", None),
    (re.compile(r"\s*(?:张|块|片)", re.I), "gpus", None),
]
_BYTES = {"GiB": 2**30, "GB": 1e9, "TB": 1e12}
_DAYS = {"week": 7.0, "hour": 1 / 24, "month": 30.0}


_CONTEXT_BEFORE = re.compile(r"(?:上下文|context|ctx|序列长度|prompts?|提示词?|输入|输出|output)[^,.;，。；\d]{0,12}$", re.I)
_CONTEXT_AFTER = re.compile(r"\s*(?:的)?\s*(?:上下文|context|ctx)", re.I)
_BARE_CARD = re.compile(r"[1-5]0[5-9]0")  # 3090, 4090, 5090, 4060, …: a consumer card's number, not a count


def _typed(value: float, scale: str | None, after: str, pre: str, before: str) -> tuple[str, float, str | None, int]:
    """(dimension, value in its base unit, currency) of an amount from the words after and before it."""
    pre = pre.strip().lower()
    if pre:
        return "money", value, "CNY" if pre in ("¥", "￥", "rmb", "cny") else "USD", 0
    ctx_after = _CONTEXT_AFTER.match(after)
    if ctx_after or (_CONTEXT_BEFORE.search(before) and not re.match(r"\s*(?:[a-z%]|元)", after)):
        binary = scale is not None and scale.lower() in ("k", "千") and value < 2e6
        n = ctx_after.end() if ctx_after else 0
        return "tokens", value * 1.024 if binary else value, None, n  # "8k context" = 8192; "上下文三万二" = 32000
    for pattern, dim, extra in _AFTER:
        hit = pattern.match(after)
        if hit:
            if dim == "bytes":
                return dim, value * _BYTES[extra or "GB"], None, hit.end()
            if dim == "days":
                return dim, value * _DAYS.get(extra or "", 1.0), None, hit.end()
            return dim, value, extra if dim == "money" else None, hit.end()
    if (scale and scale.lower() in ("b", "bn", "billion")) or scale in ("亿", "千亿", "百亿", "十亿"):
        return "params", value, None, 0  # "70B", "700亿" beside nothing else: a model size
    return "count", value, None, 0


def quantities(text: str, skip: list[tuple[int, int]] | None = None) -> list[Quantity]:
    """Every amount in `text` (after `rewrite`), typed (see the module doc). Spans in `skip` and card-like names
    are not amounts."""
    s = rewrite(text, full=True)
    blocked = list(skip or []) + [m.span() for m in CARD_LIKE.finditer(s)]
    out: list[Quantity] = []
    for m in _AMOUNT.finditer(s):
        if any(a <= m.start("num") < b for a, b in blocked):
            continue
        if m.start() > 0 and re.match(r"[a-z.]", s[m.start() - 1], re.I) and not m.group("pre"):
            continue  # "qwen2.5", "fp8": a digit inside a word
        scale, hiscale = m.group("scale"), m.group("hiscale")
        lo_scale, hi_scale = (scale or hiscale or "").lower(), (hiscale or scale or "").lower()
        value = float(m.group("num").replace(",", "")) * _SCALES.get(lo_scale, 1.0)
        if m.group("sign"):
            value = -value
        hi = float(m.group("hi").replace(",", "")) * _SCALES.get(hi_scale, 1.0) if m.group("hi") else None
        scale = scale or hiscale
        after = s[m.end():m.end() + 24]
        dim, base, currency, unit_len = _typed(value, scale, after, m.group("pre") or "",
                                               s[max(0, m.start() - 24):m.start()])
        if dim == "count" and not scale and _BARE_CARD.fullmatch(m.group("num")):
            continue  # "4090 两张": the card's name
        if dim == "count" and re.search(r"预算|budget|花|spend|afford", s[max(0, m.start() - 16):m.start()]):
            dim, currency = "money", "CNY" if re.search(r"[\u4e00-\u9fff]", s) else "USD"  # "预算 20万"
        factor = base / value if value else 1.0
        out.append(Quantity(value=base, dimension=dim, text=s[m.start():m.end() + unit_len].strip(),
                            span=(m.start(), m.end() + unit_len),
                            currency=currency, hi=None if hi is None else hi * factor))
    return out


__all__ = ["CARD_LIKE", "EN_NUMBER", "Quantity", "cn_numeral", "en_number", "quantities", "rewrite"]
