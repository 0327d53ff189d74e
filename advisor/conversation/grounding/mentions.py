"""The numbers a reader would take as claims in a text, each with its possible readings in SI units.

`extract(text)` finds the quantities ("141.1 GB", "8× H100", "¥20万", "35 tokens/s", "85%", "2B tokens") and
gives each its readings (`Candidate`): "80G" may be GB or GiB, "32k" may be 32,000 or 32,768, "70B" may be 70e9
parameters or a model name. GiB/GB/MiB, TFLOPS, tokens/s, ms/s/h/days, %, k/M/B/万/亿, $/¥ are converted;
1 GiB = 2^30 B, 1 GB = 1e9 B. A number printed with "≈", "约", "about" is marked approximate.

Not claims: dates and years, list markers and ordinals ("1.", "第1步", "Option 2"), N-bit precisions ("4-bit"),
digits inside identifiers ("H100", "Qwen2.5", "Llama-3-70B", "Q4_K_M").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable

from knowledge.quantities import GIB  # the gate imports it from here too
from knowledge.structs import Value

YEAR_S = 365.25 * 86400
MONTH_S = YEAR_S / 12


class Candidate(Value):
    """One reading of a printed number: `value` in SI units of `dim`; `factor` = SI per printed unit."""

    dim: str
    value: float
    factor: float = 1.0


class Mention(Value):
    """A number in the text with its readings."""

    text: str
    start: int
    end: int
    number: float
    decimals: int  # printed decimal places of `number` in its own unit (negative for 1.4e11 style)
    approx: bool
    candidates: tuple[Candidate, ...]



_NUM = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:[eE]([+-]?\d{1,3}))?")

_MASKS = [
    re.compile(r"\b(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])(?:[-/.](?:0?[1-9]|[12]\d|3[01]))?\b"),  # 2025-01-15
    re.compile(r"(?:19|20)\d\d\s?年(?:\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?)?"),  # 2024年10月
    re.compile(r"\d{1,2}\s?月\s?\d{1,2}\s?[日号]"),
    re.compile(r"(?i)\b(?:Q[1-4]|H[12])\s?(?:19|20)\d\d\b"),
    re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(?:\d{1,2},\s*)?(?:19|20)\d\d\b"),
    re.compile(r"(?m)^[ \t>]*(?:[-*+][ \t]+)?(?:#+[ \t]*)?\(?\d{1,2}[.)、：:](?=[ \t\u3000]|[^\d\x00-\x7f]|$)"),  # list markers
    re.compile(r"[(（\[]\d{1,2}[)）\]]"),  # (1) [2] footnotes
    re.compile(r"(?i)\b(?:option|step|tier|case|scenario|plan|choice|approach|phase|stage|level|rank|no\.|#)\s?\d{1,2}\b"),
    re.compile(r"(?:第|方案|选项|步骤|档位?|级别|阶段)\s?\d{1,2}"),
    re.compile(r"\d+\s?(?:-\s?)?(?:bits?|位(?!置|数)|比特)(?![A-Za-z0-9])", re.I),  # 4-bit, 8 bit, 4位
    re.compile(r"\b(?:2|10)\s?\^\s?\d+"),  # 2^30, 10^9
    re.compile(r"(?<![\d.])1\s?(?:KiB|MiB|GiB|TiB|KB|MB|GB|TB)\s?[=≈]"),  # "1 GiB = 2^30 bytes" (unit definitions)
    re.compile(r"(?i)\b(?:RTX|GTX|TITAN|Quadro|Tesla|Radeon|Instinct|Ascend|Atlas|Arc|Gaudi)\s?(?:Pro\s?)?\d{2,5}[A-Za-z]*"),
    re.compile(r"昇腾\s?\d{2,4}[A-Za-z]*"),
    re.compile(r"(?i)\b(?:llama|qwen|deepseek|mistral|mixtral|gemma|phi|glm|chatglm|baichuan|yi|internlm|gpt|bloom|opt|falcon)[\s-]?\d+(?:\.\d+)?(?=[\s-]|$)"),
    re.compile(r"(?i)\b(?:v|version|版本)\s?\d+(?:\.\d+)+"),
    re.compile(r"\d+(?:\.\d+){2,}"),  # 0.6.3 versions
    re.compile(r"\bPCIe\s?(?:Gen\s?)?\d(?:\.\d)?", re.I),
    re.compile(r"(?i)\b(?:gen|generation|ZeRO|stage|NVLink)\s?-?\d\b"),
    re.compile(r"(?i)\b(?:top|p)\s?-?\d{1,2}\b"),
]

_APPROX = re.compile(r"(?:~|≈|∼|约|大约|大概|左右|近|about|around|approx\.?|approximately|roughly|nearly|almost|circa|some)\s*$", re.I)
_APPROX_AFTER = re.compile(r"^\s*(?:左右|上下)")

_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "sixteen": 16, "single": 1, "a pair of": 2, "dual": 2, "quad": 4,
}
_CN_DIGITS = {"一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_WORD_GPUS = re.compile(
    r"(?i)\b(" + "|".join(sorted(map(re.escape, _WORD_NUMBERS), key=len, reverse=True)) + r")[\s-]+(?=(?:[A-Z]{1,3}\d{2,4}|RTX|GPUs?\b|cards?\b|nodes?\b|servers?\b))"
)
_CN_GPUS = re.compile(r"([一二两俩三四五六七八九十])\s?(?=(?:张|块|台|个节点|节点|卡|路))")

_BYTE_PREFIX = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BIN_PREFIX = {"K": 2**10, "k": 2**10, "M": 2**20, "G": 2**30, "T": 2**40, "P": 2**50}
_FLOP_PREFIX = {"K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}

_SP = r"[ \t\u00a0\u202f]?"

# multipliers that may stand between the number and its unit: (regex, factors)
_MULT = [
    (re.compile(r"(?:百万|million|mn)(?![A-Za-z0-9])", re.I), (1e6,)),
    (re.compile(r"千万"), (1e7,)),
    (re.compile(r"(?:billion|bn)(?![A-Za-z0-9])", re.I), (1e9,)),
    (re.compile(r"trillion(?![A-Za-z0-9])", re.I), (1e12,)),
    (re.compile(r"thousand(?![A-Za-z0-9])", re.I), (1e3,)),
    (re.compile(r"万亿"), (1e12,)),
    (re.compile(r"亿"), (1e8,)),
    (re.compile(r"万"), (1e4,)),
    (re.compile(r"千(?!瓦)"), (1e3,)),
]

_CURRENCY_SUFFIX = [
    (re.compile(r"(?:元|块钱|人民币|RMB|CNY)(?![A-Za-z0-9])"), "CNY"),
    (re.compile(r"(?:美元|美金|USD|dollars?)(?![A-Za-z0-9])", re.I), "USD"),
]
_CURRENCY_PREFIX = [
    (re.compile(r"(?:US\$|\$|USD\s?)$"), "USD"),
    (re.compile(r"(?:¥|CNY\s?|RMB\s?|人民币\s?)$"), "CNY"),
]

_TIME_UNITS = [
    (r"GPU[-\s·]?(?:hours?|hrs?|h)(?![A-Za-z0-9])|GPU\s?小时|卡时|卡·时|GPU时", 3600.0),
    (r"(?:ms|毫秒|milliseconds?|msec)(?![A-Za-z0-9])", 1e-3),
    (r"(?:µs|us|微秒|microseconds?)(?![A-Za-z0-9])", 1e-6),
    (r"(?:s|sec|secs|seconds?|秒)(?![A-Za-z0-9/])", 1.0),
    (r"(?:min|mins|minutes?|分钟)(?![A-Za-z0-9])", 60.0),
    (r"(?:h|hr|hrs|hours?|小时|个小时)(?![A-Za-z0-9])", 3600.0),
    (r"(?:days?|天)(?![A-Za-z0-9])", 86400.0),
    (r"(?:weeks?|wks?|周|个星期|星期)(?![A-Za-z0-9])", 7 * 86400.0),
    (r"(?:months?|个月)(?![A-Za-z0-9])", MONTH_S),
    (r"(?:years?|yrs?|年)(?![A-Za-z0-9])", YEAR_S),
]
_TIME_UNITS_RE = [(re.compile(_SP + "(?:" + p + ")", re.I if "GPU" not in p else 0), f) for p, f in _TIME_UNITS]

_TOKS_PER_S = re.compile(
    _SP + r"(?:tokens?|toks?|t)\s?(?:/|per\s|每)\s?(?:s|sec|second|秒)(?![A-Za-z0-9])|" + _SP + r"tokens?/秒|" + _SP + r"(?:tps|tok/s)(?![A-Za-z0-9])",
    re.I,
)
_BYTES = re.compile(_SP + r"([kKMGTP])(i)?([Bb])(/s|/秒|ps)?(?![A-Za-z0-9])")
_FLOPS = re.compile(_SP + r"([KkMGTPE])(?:FLOPS|FLOP/s|FLOPs|flops|OPS|ops|TOPS)(?![A-Za-z0-9])")
_FLOPS2 = re.compile(_SP + r"(?:FLOPS|FLOP/s)(?![A-Za-z0-9])")
_POWER = [
    (re.compile(_SP + r"(?:kWh|千瓦时|度电)(?![A-Za-z0-9])"), "kWh", 1.0),
    (re.compile(_SP + r"MWh(?![A-Za-z0-9])"), "kWh", 1e3),
    (re.compile(_SP + r"(?:kW|千瓦)(?![A-Za-z0-9])"), "W", 1e3),
    (re.compile(_SP + r"MW(?![A-Za-z0-9])"), "W", 1e6),
    (re.compile(_SP + r"(?:W|watts?|瓦)(?![A-Za-z0-9])"), "W", 1.0),
]
_BYTE_WORD = re.compile(_SP + r"(?:bytes?|字节)(?![A-Za-z0-9])", re.I)
_G_ALONE = re.compile(_SP + r"G(?![A-Za-z0-9])")
_PERCENT = re.compile(_SP + r"(?:%|percent|个百分点|百分点)")
_GPU_COUNT = re.compile(_SP + r"(?:×|x|X|\*)(?=\s?(?:[A-Z]{1,3}\d|RTX|GTX|Tesla|MI\d|Ascend|昇腾|GPU|卡|card|NVIDIA|Nvidia|AMD|"
                        r"Intel|Huawei|华为|GeForce))|" + _SP + r"(?:张|块|卡)|" + _SP + r"(?:GPUs?|cards?|accelerators?)(?![A-Za-z0-9])")
_NODE_COUNT = re.compile(_SP + r"(?:台|个节点|节点|机)|" + _SP + r"(?:nodes?|servers?|machines?|boxes)(?![A-Za-z0-9])", re.I)
_TIMES = re.compile(_SP + r"(?:×|x|X|倍|times)(?![A-Za-z0-9])")
_COUNT_WORDS = re.compile(
    _SP + r"(?:tokens?|params?|parameters?|参数|个参数|users?|用户|并发|concurrent|sequences?|seqs?|requests?|请求|layers?|层|heads?|experts?|专家|steps?|epochs?|GPU-?s)(?![A-Za-z0-9])",
    re.I,
)
_GPU_AFTER = re.compile(r"[ \t]?(?=(?:[A-Z]{1,3}\d{2,4}[A-Za-z]*|RTX|GTX|Tesla|MI\d{3}|Ascend|昇腾)\b)")
_LETTER_AFTER = re.compile(r"[A-Za-z_]")


def normalise(text: str) -> str:
    """NFKC (full-width digits and ％/＄/￥ to ASCII), keeping offsets stable for one-char changes."""
    out = []
    for ch in text:
        n = unicodedata.normalize("NFKC", ch)
        out.append(n if len(n) == 1 else ch)
    return "".join(out)


def _masked(text: str) -> str:
    chars = list(text)
    for pattern in _MASKS:
        for m in pattern.finditer(text):
            for i in range(m.start(), m.end()):
                if chars[i].isdigit():
                    chars[i] = "#"
    return "".join(chars)


def _left_token_has_letters(text: str, start: int) -> bool:
    """True when the number continues an identifier to its left ("Llama-3", "gpt-4o", "Q4_K")."""
    i = start - 1
    if i < 0 or text[i] not in "-_./":
        return False
    j = i
    while j >= 0 and (text[j].isascii() and (text[j].isalnum() or text[j] in "-_./#")):
        j -= 1
    token = text[j + 1:start]
    return any(c.isalpha() for c in token)


def _currency_before(text: str, start: int) -> str | None:
    window = text[max(0, start - 8):start]
    for pattern, cur in _CURRENCY_PREFIX:
        if pattern.search(window):
            return cur
    return None


def _skip_space(text: str, pos: int) -> int:
    return pos + 1 if text[pos:pos + 1] in (" ", "\t", "\u00a0", "\u202f") else pos


_LETTER_MULT = re.compile(r"([kKMBT])(?![A-Za-z0-9])")
_LETTER_FACTORS = {"k": (1e3,), "K": (1e3,), "M": (1e6,), "B": (1e9,), "T": (1e12,)}


Reading = tuple[list[Candidate], int, bool]  # (candidates, end of the unit, skip the number)
Reader = Callable[[str, int, float], Reading | None]


def _readings(text: str, end: int, x: float, currency: str | None) -> Reading:
    """Readings of number `x` whose digits end at `end`: (candidates, end of the unit, skip). Money and
    multiplier words first, then the units in `_UNIT_READERS` order; a number glued to an unknown word or part of
    a version is skipped, and one without a unit is a bare number ("any")."""
    found = _money_readings(text, end, x, currency)
    if found is not None:
        return found
    for read in _UNIT_READERS:
        found = read(text, end, x)
        if found is not None:
            return found
    if _GPU_AFTER.match(text, end):
        return [Candidate("gpus", x, 1.0)], end, False
    if _LETTER_AFTER.match(text, end):
        return [], end, True  # digits glued to an unknown word: an identifier ("4090D", "3090s")
    if text[end:end + 1] == "." and text[end + 1:end + 2].isdigit():
        return [], end, True  # a version number
    return [Candidate("any", x, 1.0)], end, False


def _money_readings(text: str, end: int, x: float, currency: str | None) -> Reading | None:
    """Money and multiplier words: "¥20万", "$50k", "50万元", "3.5 million USD", "70亿参数"."""
    pos = end
    word_mult: tuple[float, ...] | None = None
    for pattern, factors in _MULT:
        m = pattern.match(text, _skip_space(text, end))
        if m:
            word_mult, pos = factors, m.end()
            break
    letter = _LETTER_MULT.match(text, end) if word_mult is None else None
    suffix_currency = None
    for pattern, suffix in _CURRENCY_SUFFIX:
        m = pattern.match(text, _skip_space(text, letter.end() if letter else pos))
        if m:
            suffix_currency, pos = suffix, m.end()
            break
    cur = currency or suffix_currency
    if cur is not None:
        mult: tuple[float, ...] = word_mult or (_LETTER_FACTORS[letter.group(1)] if letter else (1.0,))
        if letter and suffix_currency is None:
            pos = letter.end()
        return [Candidate(cur, x * f, f) for f in mult], pos, False
    if word_mult is None:
        return None
    for pattern, dims in ((_TOKS_PER_S, ("tokens/s",)), (_COUNT_WORDS, ("count",))):
        m = pattern.match(text, pos)
        if m:
            return _scaled(x, dims, word_mult), m.end(), False
    return _scaled(x, ("money", "count"), word_mult), pos, False


def _scaled(x: float, dims: tuple[str, ...], factors: tuple[float, ...]) -> list[Candidate]:
    """`x` times each factor, in each dimension (dimension by dimension)."""
    return [Candidate(dim, x * f, f) for dim in dims for f in factors]


def _unit(pattern: re.Pattern[str], *readings: tuple[str, float]) -> Reader:
    """A reader for a unit with fixed readings: (dimension, SI factor per printed unit) each."""
    def read(text: str, end: int, x: float) -> Reading | None:
        m = pattern.match(text, end)
        return ([Candidate(dim, x * factor, factor) for dim, factor in readings], m.end(), False) if m else None

    return read


def _bytes(text: str, end: int, x: float) -> Reading | None:
    """"80 GB", "3.35 TB/s", "24 GiB" (not "kb": kilobits are no claim here)."""
    m = _BYTES.match(text, end)
    if not m or (m.group(3) == "b" and m.group(1) in "kK" and not m.group(2)):
        return None
    prefix, binary, _, rate = m.groups()
    factor = (_BIN_PREFIX if binary else _BYTE_PREFIX)[prefix]
    return [Candidate("B/s" if rate else "bytes", x * factor, factor)], m.end(), False


def _flops(text: str, end: int, x: float) -> Reading | None:
    m = _FLOPS.match(text, end)
    if not m:
        return None
    factor = _FLOP_PREFIX[m.group(1)]
    return [Candidate("flop/s", x * factor, factor)], m.end(), False


def _letter_multiplier(text: str, end: int, x: float) -> Reading | None:
    """"1.2k tokens/s", "32k tokens" (1e3 or 1024), "70B params", "1T" (count or bytes)."""
    m = _LETTER_MULT.match(text, end)
    if not m:
        return None
    letter = m.group(1)
    factors = (1e3, 1024.0) if letter in "kK" else _LETTER_FACTORS[letter]
    mt = _TOKS_PER_S.match(text, m.end())
    if mt:
        return _scaled(x, ("tokens/s",), factors), mt.end(), False
    cands = _scaled(x, ("count",), factors)
    if letter == "B":
        cands.append(Candidate("bytes", x, 1.0))
    if letter == "T":
        cands += [Candidate("bytes", x * 1e12, 1e12), Candidate("bytes", x * 2**40, 2**40)]
    cands.append(Candidate("count", x, 1.0))  # the "70" of "Llama 3 70B"
    mc = _COUNT_WORDS.match(text, m.end())
    return cands, (mc.end() if mc else m.end()), False


_UNIT_READERS: tuple[Reader, ...] = (
    _bytes, _unit(_BYTE_WORD, ("bytes", 1.0)), _flops, _unit(_FLOPS2, ("flop/s", 1.0)),
    _unit(_TOKS_PER_S, ("tokens/s", 1.0)), _letter_multiplier,
    _unit(_G_ALONE, ("bytes", 1e9), ("bytes", GIB)),  # "80G" (Chinese usage): GB or GiB
    *(_unit(pattern, (dim, factor)) for pattern, dim, factor in _POWER),
    _unit(_PERCENT, ("ratio", 0.01), ("count", 1.0)),
    _unit(_TIME_UNITS_RE[0][0], ("s", 3600.0)),  # "GPU-hours" before "GPUs"
    _unit(_GPU_COUNT, ("gpus", 1.0)), _unit(_NODE_COUNT, ("nodes", 1.0)),
    *(_unit(pattern, ("s", factor)) for pattern, factor in _TIME_UNITS_RE),
    _unit(_TIMES, ("count", 1.0)), _unit(_COUNT_WORDS, ("count", 1.0)),
)


def extract(text: str) -> list[Mention]:
    """The numeric claims in `text` with their readings (see module docstring for what is skipped)."""
    text = normalise(text)
    scan = _masked(text)
    mentions: list[Mention] = []
    for m in _NUM.finditer(scan):
        start, end = m.span()
        if _left_token_has_letters(scan, start):
            continue
        whole, frac, exp = m.group(1), m.group(2) or "", m.group(3)
        x = float(whole.replace(",", "") + frac)
        decimals = len(frac) - 1 if frac else 0
        if exp is not None:
            x *= 10 ** int(exp)
            decimals -= int(exp)
        if not math.isfinite(x):
            continue
        currency = _currency_before(text, start)
        cands, unit_end, skip = _readings(text, end, x, currency)
        if skip or not cands:
            continue
        # bare years are not claims
        if [c.dim for c in cands] == ["any"] and not frac and 1990 <= x <= 2100 and exp is None:
            continue
        before = text[max(0, start - 16):start]
        if currency:
            before = before[: len(before) - 4]
        approx = bool(_APPROX.search(before)) or bool(_APPROX_AFTER.match(text, unit_end))
        mentions.append(Mention(text[start:unit_end].strip(), start, unit_end, x, decimals, approx, tuple(cands)))
    # "two H100s", "两张 4090"
    for pattern, table in ((_WORD_GPUS, _WORD_NUMBERS), (_CN_GPUS, _CN_DIGITS)):
        for m in pattern.finditer(text):
            word = m.group(1).lower() if pattern is _WORD_GPUS else m.group(1)
            value = float(table[word])
            after = text[m.end():m.end() + 4]
            dim = "nodes" if re.match(r"(?:台|个节点|节点|nodes?|servers?)", after, re.I) else "gpus"
            mentions.append(Mention(m.group(0).strip(), m.start(), m.end(), value, 0, False, (Candidate(dim, value, 1.0),)))
    mentions.sort(key=lambda mm: mm.start)
    return mentions
