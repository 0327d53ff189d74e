"""The grounding gate: every number in a model's answer must come from this turn's tool results.

`extract(text)` finds the quantities a reader would take as claims ("141.1 GB", "8× H100", "¥20万",
"35 tokens/s", "85%", "2B tokens") and gives each its possible readings in SI units (`Candidate`):
"80G" may be GB or GiB, "32k" may be 32,000 or 32,768, "70B" may be 70e9 parameters or a model name.
`Pool` holds the values of the tool results: numeric fields typed by their key (`*_bytes` → bytes,
`*tokens_per_s` → tokens/s, `amount` + `currency` → money …) and the numbers inside their strings.
`check(answer, pool)` passes when every quantity has a reading that matches a pool value of the same
dimension within the printed precision (half a unit in the last printed digit; 1 % when the answer marks it
as approximate: "≈", "约", "about"). GiB/GB/MiB, TFLOPS, tokens/s, ms/s/h/days, %, k/M/B/万/亿, $/¥ are
converted; 1 GiB = 2^30 B, 1 GB = 1e9 B.

Not checked (never claims): dates and years, list markers and ordinals ("1.", "第1步", "Option 2"),
N-bit precisions ("4-bit"), digits inside identifiers ("H100", "Qwen2.5", "Llama-3-70B", "Q4_K_M").
Source of the pattern: OWASP LLM09 "validate key outputs automatically" (reference/reliability.md A6).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

GIB = 2**30
YEAR_S = 365.25 * 86400
MONTH_S = YEAR_S / 12

# dimensions: bytes, B/s, flop/s, tokens/s, s, W, kWh, ratio, USD, CNY, money (currency unknown),
# gpus, nodes (strict counts), count (anything else dimensionless), any (a bare number)
STRICT_COUNTS = frozenset({"gpus", "nodes"})


@dataclass(frozen=True)
class Candidate:
    """One reading of a printed number: `value` in SI units of `dim`; `factor` = SI per printed unit."""

    dim: str
    value: float
    factor: float = 1.0


@dataclass(frozen=True)
class Mention:
    """A number in the text with its readings."""

    text: str
    start: int
    end: int
    number: float
    decimals: int  # printed decimal places of `number` in its own unit (negative for 1.4e11 style)
    approx: bool
    candidates: tuple[Candidate, ...]


@dataclass(frozen=True)
class Entry:
    dim: str
    value: float
    ref: Mapping[str, Any] | None = None  # the tool's Number-like dict, when the value came from one


@dataclass
class Report:
    ok: bool
    ungrounded: list[Mention] = field(default_factory=list)
    matched: list[tuple[Mention, Entry]] = field(default_factory=list)

    @property
    def refs(self) -> list[Mapping[str, Any]]:
        """The tool numbers the answer used, in order of first use, without repeats."""
        seen: set[int] = set()
        out = []
        for _, entry in self.matched:
            if entry.ref is not None and id(entry.ref) not in seen:
                seen.add(id(entry.ref))
                out.append(entry.ref)
        return out


# --------------------------------------------------------------------------------------------------------------
# Text → mentions
# --------------------------------------------------------------------------------------------------------------

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

_GPU_NAME = re.compile(
    r"(?:[A-Z]{1,3}\d{2,4}[A-Za-z]*|RTX|GTX|Tesla|Radeon|MI\d{3}|Ascend|昇腾|H\d{2,3}|A\d{2,4}|L\d{1,2}S?|B\d{3}|GPU|GPUs|cards?)\b"
)

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


def _normalise(text: str) -> str:
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
    text = _normalise(text)
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


# --------------------------------------------------------------------------------------------------------------
# Tool results → pool
# --------------------------------------------------------------------------------------------------------------

_KEY_RULES: list[tuple[re.Pattern[str], str, float]] = [
    (re.compile(r"bytes_per_s$|bandwidth"), "B/s", 1.0),
    (re.compile(r"tokens_per_s|tok_per_s|tokens_s$"), "tokens/s", 1.0),
    (re.compile(r"(?:^|_)(?:flops|ops)$|_flops|_ops$"), "flop/s", 1.0),
    (re.compile(r"bytes$|(?:^|_)bytes_|memory$|_mem$"), "bytes", 1.0),
    (re.compile(r"kwh"), "kWh", 1.0),
    (re.compile(r"(?:^|_)(?:w|watts|tdp|power)$|_w$"), "W", 1.0),
    (re.compile(r"gpu_hours|(?:^|_)hours$|_h$"), "s", 3600.0),
    (re.compile(r"(?:^|_)days$"), "s", 86400.0),
    (re.compile(r"(?:^|_)(?:years|lifetime_years)$"), "s", YEAR_S),
    (re.compile(r"(?:^|_)months$"), "s", MONTH_S),
    (re.compile(r"_ms$|(?:^|_)ms_"), "s", 1e-3),
    (re.compile(r"(?:^|_)s$|_seconds$|seconds$|_s_|deadline|latency|ttft"), "s", 1.0),
    (re.compile(r"usd"), "USD", 1.0),
    (re.compile(r"cny|rmb"), "CNY", 1.0),
    (re.compile(r"amount|price|cost|budget|capex|opex|tco|spend|savings"), "money", 1.0),
    (re.compile(r"mfu|efficiency|fraction|utili[sz]ation|ratio|share|pue|headroom_pct|_pct$|percent"), "ratio", 1.0),
    (re.compile(r"(?:^|_)(?:count|gpus|gpu_count|n_gpus|num_gpus|world_size|cards|tp|pp|dp|gpus_per_node)$"), "gpus", 1.0),
    (re.compile(r"(?:^|_)(?:nodes|servers|num_nodes)$"), "nodes", 1.0),
]

# display units a bare number in the answer may be printed in, per dimension
_DISPLAY = {
    "bytes": (1.0, 1e3, 1e6, 1e9, 1e12, 2**20, 2**30, 2**40),
    "B/s": (1e9, 1e12, 2**30, 1e6),
    "flop/s": (1e12, 1e15, 1e9, 1.0),
    "tokens/s": (1.0, 1e3),
    "s": (1.0, 1e-3, 60.0, 3600.0, 86400.0, 7 * 86400.0, MONTH_S, YEAR_S),
    "W": (1.0, 1e3),
    "kWh": (1.0, 1e3),
    "ratio": (1.0, 0.01),
    "USD": (1.0, 1e3, 1e6),
    "CNY": (1.0, 1e3, 1e4, 1e6, 1e8),
    "money": (1.0, 1e3, 1e4, 1e6, 1e8),
    "gpus": (1.0,),
    "nodes": (1.0,),
    "count": (1.0, 1e3, 1e6, 1e9, 1e12, 1e4, 1e8, 1024.0),
}

_COMPATIBLE = {
    "USD": ("USD", "money"),
    "CNY": ("CNY", "money"),
    "money": ("USD", "CNY", "money"),
    "ratio": ("ratio", "count"),
    "count": ("count", "gpus", "nodes"),
}

# units the tools write in their Number dicts
UNIT_DIMS: dict[str, tuple[str, float]] = {
    "bytes": ("bytes", 1.0), "b": ("bytes", 1.0), "bytes/s": ("B/s", 1.0), "b/s": ("B/s", 1.0),
    "flop/s": ("flop/s", 1.0), "op/s": ("flop/s", 1.0), "tokens/s": ("tokens/s", 1.0), "s": ("s", 1.0),
    "w": ("W", 1.0), "kwh": ("kWh", 1.0), "usd": ("USD", 1.0), "cny": ("CNY", 1.0), "ratio": ("ratio", 1.0),
    "%": ("ratio", 0.01), "gpu-hours": ("s", 3600.0), "hours": ("s", 3600.0), "params": ("count", 1.0),
    "tokens": ("count", 1.0), "sequences": ("count", 1.0), "flop": ("count", 1.0), "gpus": ("gpus", 1.0),
    "nodes": ("nodes", 1.0), "cny/usd": ("count", 1.0),
}

_RAW_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def dim_of_key(key: str, siblings: Mapping[str, Any] | None = None) -> tuple[str, float]:
    """Dimension and SI factor of a numeric field, from its name (and a sibling `currency`/`unit`)."""
    k = key.lower()
    if siblings:
        unit = str(siblings.get("unit", "")).strip()
        if unit and k in ("value", "amount", "min", "max"):
            if unit.lower() in UNIT_DIMS:
                return UNIT_DIMS[unit.lower()]
            found = extract(f"1 {unit}")
            if found and found[0].candidates and found[0].candidates[0].dim != "any":
                c = found[0].candidates[0]
                return c.dim, c.factor
        currency = siblings.get("currency")
        if currency in ("USD", "CNY") and re.search(r"amount|price|cost|budget|capex|opex|tco|value|total|per_", k):
            return str(currency), 1.0
    for pattern, dim, factor in _KEY_RULES:
        if pattern.search(k):
            return dim, factor
    return "count", 1.0


class Pool:
    """The values this turn's tool results hold, by dimension (SI units)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def __len__(self) -> int:
        return len(self.entries)

    def add(self, dim: str, value: float, ref: Mapping[str, Any] | None = None) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return
        self.entries.append(Entry(dim, float(value), ref))
        if dim == "bytes" and value >= GIB and float(value) % GIB == 0:
            # a capacity of exactly N GiB is sold as "N GB" (H100 80GB = 80 GiB): accept the nominal figure
            self.entries.append(Entry(dim, float(value) / GIB * 1e9, ref))

    def add_text(self, text: str) -> None:
        """Numbers inside a tool's strings: with their units, and every digit run as a bare count."""
        for mention in extract(text):
            for c in mention.candidates:
                self.add("count" if c.dim == "any" else c.dim, c.value)
        for m in _RAW_NUMBER.finditer(_normalise(text)):
            self.add("count", float(m.group(0)))

    def add_result(self, data: Any) -> None:
        """Walk a tool result (dicts, lists, numbers, strings)."""
        self._walk(data, "", None, False)

    def _walk(self, node: Any, key: str, parent: Mapping[str, Any] | None, in_bytes: bool) -> None:
        if isinstance(node, Mapping):
            ref = node if {"value", "unit"} <= set(node) and isinstance(node.get("value"), (int, float)) else None
            bytes_ctx = in_bytes or key.lower().endswith("bytes")
            for k, v in node.items():
                if ref is not None and k == "value":
                    dim, factor = dim_of_key("value", node)
                    if dim == "count" and str(node.get("unit", "")).strip().lower() in ("b", "byte", "bytes"):
                        dim = "bytes"
                    self.add(dim, v * factor, ref)
                    continue
                self._walk(v, str(k), node, bytes_ctx)
        elif isinstance(node, (list, tuple)):
            for v in node:
                self._walk(v, key, parent, in_bytes)
        elif isinstance(node, bool) or node is None:
            return
        elif isinstance(node, (int, float)):
            if in_bytes and not key.lower().endswith(("_per_s", "params", "tokens")):
                self.add("bytes", node)
                return
            dim, factor = dim_of_key(key, parent)
            self.add(dim, node * factor)
            if dim in STRICT_COUNTS:
                self.add("count", node)
        elif isinstance(node, str):
            self.add_text(node)

    @classmethod
    def of(cls, results: Iterable[Any] = (), texts: Iterable[str] = ()) -> Pool:
        pool = cls()
        for r in results:
            pool.add_result(r)
        for t in texts:
            pool.add_text(t)
        return pool

    # --- matching --------------------------------------------------------------------------------------------
    def match(self, mention: Mention) -> Entry | None:
        """The pool entry `mention` matches (entries that carry a tool Number first), or None."""
        ordered = [e for e in self.entries if e.ref is not None] + [e for e in self.entries if e.ref is None]
        for c in mention.candidates:
            tol_printed = 0.5 * 10.0 ** (-mention.decimals) * 1.0000001
            if c.dim == "any":
                for e in ordered:
                    for unit in _DISPLAY.get(e.dim, (1.0,)):
                        shown = e.value / unit
                        tol = max(tol_printed, 0.01 * abs(shown) if mention.approx else 0.0)
                        if abs(shown - c.value) <= tol:
                            return e
                continue
            dims = _COMPATIBLE.get(c.dim, (c.dim,))
            for e in ordered:
                if e.dim not in dims:
                    continue
                tol = tol_printed * c.factor
                if mention.approx:
                    tol = max(tol, 0.01 * abs(e.value))
                if abs(e.value - c.value) <= tol + 1e-12 * abs(e.value):
                    return e
        return None


def check(answer: str, pool: Pool) -> Report:
    """Every quantity in `answer` must match the pool (see module docstring)."""
    report = Report(ok=True)
    for mention in extract(answer):
        entry = pool.match(mention)
        if entry is None:
            report.ungrounded.append(mention)
        else:
            report.matched.append((mention, entry))
    report.ok = not report.ungrounded
    return report
