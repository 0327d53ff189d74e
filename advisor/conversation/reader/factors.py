"""An amount said as a factor of the last one: "and with 2x the GPUs?", "double the budget", "what if we double the
users?", "tokens x3?", "half the context", "卡数翻倍", "并发翻倍呢", "用户量翻一番呢", "数据量减半呢", "再加一倍数据".

The factor is read here with what it applies to (`Slots.scales`: "gpus", "budget", "users", "requests", "tokens",
"context", "epochs"); the dialog applies it to the value the last turn used (`dialog.relative`).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import DIGITS, to_number
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import NUM, Text

# what a factor applies to, in the words people use for it (a prompt's or an answer's tokens and a rate in tokens/s
# are no training data; "half the users online at once" is a peak share, read by reader.usage)
_NOT_RATE = r"(?!\s*(?:/|per\s|an?\s+(?:day|hour|second)|每|/\s*s))"
_WHAT = {
    "gpus": r"gpus?|cards?|nodes?|servers?|h100s?|h200s?|b200s?|a100s?|gpu count|卡数?|显卡|机器|节点",
    "budget": r"budget|预算|经费",
    "users": r"(?:concurrent\s+)?users?(?:\s+(?:count|base|number))?|concurrency|concurrent\s+(?:requests|sessions)|people|"
             r"seats|headcount|用户(?:数量|数|量)?|"
             r"并发(?:数量|数|量)?|人数|在线人数",
    "requests": r"qps|rps|requests?(?:\s+per\s+second|\s+rate|\s+volume|\s+count)?|request\s+(?:rate|volume|count)|traffic|"
                r"请求(?:数量|数|量)?|流量|访问量",
    "tokens": rf"(?<!output )(?<!prompt )(?<!input )(?:training\s+)?(?:tokens?|data(?:set)?|corpus)(?:\s+(?:count|size))?"
              rf"{_NOT_RATE}|"
              r"samples?|examples?|训练数据|数据(?:量|集)?(?!中心)|语料|token\s*(?:数量|数|量)|样本(?:数量|数|量)?",
    "context": r"context(?:\s+(?:length|window|size))?|ctx|sequence\s+length|seq(?:uence)?\s*len(?:gth)?|"
               r"上下文(?:长度|窗口)?|序列长度",
    "epochs": r"epochs?|轮数|epoch\s*数",
}
_PEAK_AFTER = r"(?!\s*(?:are\s+|is\s+)?(?:online|active|at\s+once|at\s+the\s+same\s+time|simultaneous)|\s*(?:同时|在线))"

# the factor, before what it applies to ("double the", "twice as many", "3x the", "half the", "翻倍", "3 倍的")
_EN_TIMES = rf"(?P<n>{DIGITS})\s*(?:x|times)"
_EN_BEFORE = (rf"(?<![a-z0-9.])(?:(?P<two>double|twice|2\s*x)|(?P<three>triple|treble|thrice)|(?P<four>quadruple)|"
              rf"(?P<half>half|halve)|{_EN_TIMES})"
              r"(?:\s+(?:the|our|my|that|those|as\s+many|as\s+much|that\s+many|more|the\s+number\s+of|the\s+amount\s+of|"
              r"of|amount\s+of))*\s+")
_ZH_BEFORE = (r"(?:(?P<two>翻倍|加倍|再加一倍|加一倍|增加一倍|多一倍|双倍|翻一番)|(?P<half>减半|一半|少一半)|"
              rf"(?P<n>{NUM}|{DIGITS})\s*倍)\s*(?:的)?\s*")
# a number with a unit after "x" is an amount ("1 million samples x 512 tokens": the length of each), not a factor
_AMOUNT = r"(?:[kmbw](?![a-z])|thousand|million|billion|tokens?|词元|万|亿|千|个|条|张|块)"
# the factor, after what it applies to ("tokens x3", "users doubled", "context halved", "并发翻倍", "数据量减半",
# "用户是现在的两倍")
_AFTER = (r"\s*(?:(?P<two>doubled|doubles|double|翻倍|加倍|翻一倍|翻一番|翻了一番|翻番|增加一倍|多一倍|加一倍|扩大一倍)|"
          r"(?P<four>翻两番|quadrupled)|(?P<three>tripled|triples|triple)|"
          r"(?P<half>halved|halves|cut\s+in\s+half|in\s+half|减半|砍半|少一半|减少一半|缩小一半|降一半|打对折|对半)|"
          rf"(?:x|×|\*|乘以?)\s*(?P<n>{DIGITS}|{NUM})(?![\d.]|\s*{_AMOUNT})\s*倍?|(?P<m>{DIGITS})\s*x(?![a-z0-9])|"
          rf"(?:扩大|变成|变为|增加到|提高到|涨到|扩大到|是|为)\s*(?:现在|之前|原来|目前)?的?\s*(?P<k>{NUM}|{DIGITS})\s*倍)")
_CUT = r"(?:cut|halve)\s+(?:the\s+|our\s+|my\s+)?"  # "cut the context in half"


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for slot, what in _WHAT.items():
        peak = _PEAK_AFTER if slot == "users" else ""
        out += [(slot, re.compile(rf"{before}(?:{what})(?![a-z]){peak}")) for before in (_EN_BEFORE, _ZH_BEFORE)]
        # ("4 nodes x 8 GPUs": a count said after a count is no factor)
        out.append((slot, re.compile(rf"(?<![a-z])(?<!\d\s)(?<!\d)(?:{_CUT})?(?:{what})(?![a-z]){peak}{_AFTER}")))
    # "double it", "double that", "twice the count": the GPUs counted last
    out.append(("gpus", re.compile(r"(?<![a-z])(?P<two>double|twice)\s+(?:it|that|the count)(?![a-z])")))
    return out


_PATTERNS = _patterns()
_WORDS = {"two": 2.0, "three": 3.0, "four": 4.0, "half": 0.5}
MAX_FACTOR = 1000.0  # more is a count said after "x" ("H100 x 8"), not a factor of the last one


def factor_of(m: re.Match[str]) -> float | None:
    """The factor a match says: 2 for "double"/"翻倍", 0.5 for "half"/"减半", n for "3x"/"3 倍"/"x3"."""
    for name, value in _WORDS.items():
        if name in m.re.groupindex and m.group(name):
            return value
    for name in ("n", "m", "k"):
        if name in m.re.groupindex and m.group(name):
            return to_number(m.group(name))
    return None


def read_relative(t: Text, slots: Slots) -> None:
    """Each amount said as a factor of the last one (`slots.scales`, by what it applies to); the words are consumed."""
    for slot, rx in _PATTERNS:
        if slot in slots.scales:
            continue
        for m in t.finditer(rx):
            factor = factor_of(m)
            if factor is None or not 0 < factor <= MAX_FACTOR or factor == 1:
                continue
            slots.scales[slot] = factor
            t.consume(m.start(), m.end())
            break
