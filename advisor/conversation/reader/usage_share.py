"""A share of the time the hardware is in use ("60% of the time", "about 60% busy", "half the time",
"利用率 60%", "六成时间在用", "一半时间", "闲置 40%"), as a fraction of the month.

    read_share("rent vs buy 8x h100, we'd use it like 60% of the time") -> Share(share=0.6, span=…, text="60% of the time")

The usage reader (reader.usage) turns it into hours a month: share × HOURS_PER_MONTH (730 h a card). A share said
with a time word ("of the time", "busy", "in use", "idle", "时间", "闲置") is always one; one said as
"utilization"/"利用率"/"使用率" only where renting or buying is the matter (so "利用率 40%" of a training run stays its
MFU, reader.words) and never of memory ("90% gpu memory utilization", "显存利用率"). Idle shares count the rest
(idle 40% = in use 60%).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import cn_int
from knowledge.structs import Value

_CN = r"[一二两三四五六七八九十]{1,3}"
# the amount: "60%", "60 percent", "百分之六十", "六成", "一半", "half", "a third", "two thirds", "三分之二"
_AMOUNT = re.compile(
    rf"(?<![\d.])(?P<pct>\d{{1,3}}(?:\.\d{{1,2}})?)\s*(?:%|％|percent|per cent|pct)|百分之\s*(?P<cnpct>{_CN}|\d{{1,3}})|"
    rf"(?P<tenths>[一二两三四五六七八九]|(?<![\d.])\d)\s*成(?!本|功|品|员|都|为|了)|"
    r"(?P<frac>(?<![a-z])(?:half|a third|one third|two thirds|a quarter|one quarter|three quarters)(?![a-z])|"
    r"一半|三分之一|三分之二|四分之一|四分之三)")
_PCT = re.sub(r"\(\?P<\w+>", "(?:", _AMOUNT.pattern)  # the same amount, unnamed, inside the phrases below
# a hedge before the amount, its spaces inside the optional group (a bare "\s*" would make every space a start)
_ABOUT = r"(?:(?:about|around|roughly|maybe|like|only|just|approximately|approx\.?|~|约|大概|大约|差不多|也就|只有|将近|接近)\s*)?"
# said with a time word: always a share of the time
_TIMED = re.compile(
    rf"{_ABOUT}(?:{_PCT})\s*(?:of\s+)?(?:the\s+)?(?:time|hours|month|day)(?![a-z])|"
    rf"{_ABOUT}(?:{_PCT})\s*(?:busy|in use|used|occupied|loaded|duty cycle|occupancy)(?![a-z])|"
    rf"(?:busy|in use|used|running|utili[sz]ed|occupied)\s*{_ABOUT}(?:{_PCT})\s*(?:of\s+)?(?:the\s+)?(?:time)?(?![a-z])|"
    rf"(?:duty cycle|occupancy)\s*(?:of|at|is|around|about|~|:|=)?\s*{_ABOUT}(?:{_PCT})|"
    rf"{_ABOUT}(?:{_PCT})\s*(?:左右)?\s*(?:的)?\s*时间|"
    rf"(?:时间|时长)\s*(?:占|占比|占到)?\s*{_ABOUT}(?:{_PCT})")
_IDLE = re.compile(rf"(?:idle|sits? idle|unused|闲置|空闲|空着|闲着)\s*{_ABOUT}(?:{_PCT})|"
                   rf"{_ABOUT}(?:{_PCT})\s*(?:of\s+)?(?:the\s+)?(?:time\s+)?(?:idle|unused|闲置|空闲|空着|的时间闲置|的时间空闲)")
_IDLE_AFTER = re.compile(r"\s*(?:是|都|在|it\s+)?\s*(?:sits?\s+)?(?:idle|unused|闲置|空闲|空着|闲着)")
# said as a utilisation: a share of the time where renting or buying is the matter
_UTIL = re.compile(rf"(?:utili[sz]ation|usage|use rate|利用率|使用率|占用率|负载率?)\s*(?:rate\s*)?(?:of|at|is|around|about|~|:|=|"
                   rf"在|是|为|有|能到|达到|按)?\s*{_ABOUT}(?:{_PCT})|"
                   rf"{_ABOUT}(?:{_PCT})\s*(?:的)?\s*(?:gpu\s*)?(?:utili[sz]ation|utili[sz]ed|usage|use rate|利用率|使用率|占用率|负载)")
_NOT_TIME = re.compile(r"mfu|flops|compute|算力|memory|vram|显存|内存|kv|gpu[\s_-]*memory")
_MATTER = re.compile(r"(?<![a-z])(?:rent\w*|buy\w*|purchas\w*|own\w*|lease|cloud|tco|break[\s-]*even|pay[\s-]*back)(?![a-z])|"
                     r"租|买|购|自建|回本|划算|上云|云上|成本")
# "finish in half the time", "用一半时间训完": a faster run, not the time in use
_FASTER = re.compile(r"(?:in|within|takes?|taking|took|finish\w*|done|用|花|只要|只需)\s*$")
# the value of each fraction said in words (also read by reader.at_once for the share of people on at once)
FRACTIONS = {"half": 0.5, "a half": 0.5, "一半": 0.5, "a third": 1 / 3, "one third": 1 / 3, "三分之一": 1 / 3,
             "two thirds": 2 / 3, "三分之二": 2 / 3, "a quarter": 0.25, "one quarter": 0.25, "四分之一": 0.25,
             "three quarters": 0.75, "四分之三": 0.75, "a fifth": 0.2, "one fifth": 0.2, "五分之一": 0.2,
             "a tenth": 0.1, "one tenth": 0.1, "十分之一": 0.1}


class Share(Value):
    """A share of the time in use (0 < share ≤ 1), the span it was read from and its words."""

    share: float
    span: tuple[int, int]
    text: str


def _amount(phrase: str) -> float | None:
    m = _AMOUNT.search(phrase)
    if m is None:
        return None
    if m.group("pct"):
        return float(m.group("pct")) / 100
    if m.group("cnpct"):
        raw = m.group("cnpct")
        n = float(raw) if raw.isdigit() else cn_int(raw)
        return None if n is None else n / 100
    if m.group("tenths"):
        raw = m.group("tenths")
        n = float(raw) if raw.isdigit() else cn_int(raw)
        return None if n is None else n / 10
    return FRACTIONS.get(re.sub(r"\s+", " ", m.group("frac") or ""))


def read_share(s: str) -> Share | None:
    """The share of the time in use `s` states (lower case; see the module doc), None when none."""
    found: list[tuple[re.Match[str], bool]] = [(m, False) for m in _TIMED.finditer(s)]
    found += [(m, True) for m in _IDLE.finditer(s)]
    if _MATTER.search(s):
        found += [(m, False) for m in _UTIL.finditer(s)]
    for m, idle in sorted(found, key=lambda x: (x[0].start(), not x[1])):  # idle first at one start
        if _NOT_TIME.search(s[max(0, m.start() - 16):m.end()]) or _FASTER.search(s[max(0, m.start() - 10):m.start()]):
            continue  # "90% gpu memory utilization", "算力利用率 40%", "in half the time": not the time in use
        v = _amount(m.group(0))
        if v is None or not 0 < v <= 1 or (idle and v >= 1):
            continue
        idle = idle or bool(_IDLE_AFTER.match(s, m.end()))  # "三成时间闲置", "half the time idle"
        share = 1 - v if idle else v
        return Share(share=share, span=m.span(), text=m.group(0).strip())
    return None


__all__ = ["FRACTIONS", "Share", "read_share"]
