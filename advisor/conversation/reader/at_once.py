"""Who of the people is on at once: a headcount said to be active all together ("35 students all hitting one 4080
at the same time"), the part of it that is ("40 people, 5 of them at the same time", "only about 5 use it at
once", "同时用的也就 20 来个") or the share that is ("maybe a quarter are chatting at once", "one in ten uses it
simultaneously", "大概一半同时在线").

    headcount_at_once(" using it at the same time")      -> True   (the people are the concurrency)
    all_at_once("30 students in a lab session, all at once") -> True
    subset_at_once("… but only about 5 use it at once", 40) -> 5
    share_at_once("maybe a quarter are chatting at once")   -> (0.25, span)

The concurrency reader (reader.amounts.read_concurrency) asks these in that order: the share first (it turns a
headcount into people × share), then each headcount, then, where no concurrency was said outright, a smaller
number of them on at once. A clause boundary, a number or a hedge ("never", "but only", "maybe") between a
headcount and its "at once" means the simultaneity belongs to something else ("team of 25, never all at once").
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import DIGITS, cn_int, to_number
from advisor.conversation.reader.text import NUM
from advisor.conversation.reader.usage_share import FRACTIONS

# the simultaneity said after a number or a share
_AT_EN = (r"(?:at (?:the same time|once|one time|any (?:given |one )?(?:time|moment)|peak)|simultaneously|concurrently|"
          r"in parallel|online|active|concurrent)(?![a-z])")
_AT_ZH = r"(?:同时|同一时间|在线|并发|一起用)"
# between a headcount and its "at once": no clause boundary, no number, no hedge or share
_STOP = (r"(?<![a-z])(?:never|not|rarely|seldom|hardly|but|only|though|although|maybe|perhaps|probably|of them|"
         r"of those|of us|half|quarter|third|few|some|most|many|two|three|four|five|six|seven|eight|nine|ten|"
         r"twenty|thirty|forty|fifty)(?![a-z])|n't|其中|一半|分之|成|不|没|只|也就|但")
_AT_ONCE_AFTER = re.compile(rf"^(?:(?!{_STOP})[^,.;:?!\d%，。；：？！、]){{0,60}}?"
                            rf"(?:at (?:the same time|once)|simultaneous|concurrent|in parallel|hammering|pounding|"
                            rf"hitting it|同时|一起用|在线|并发)")
_AT_ONCE_BEFORE = re.compile(r"(?:同时|同一时间|高峰|峰值|simultaneously|concurrently|at once|at peak)\s*(?:有|在线|使用|用)?\s*$")

# everyone at once, anywhere in the request ("30 students in a lab session, all at once", "上课时全部同时访问"),
# unless denied just before ("not all of them at the same time", "不会全部同时用")
_ALL = re.compile(r"(?<![a-z])(?:all|everyone|everybody|all of them|all of us)\s+(?:[a-z'’]+\s+){0,4}?"
                  r"(?:at once|at the same time|simultaneously|concurrently|in parallel)(?![a-z])|"
                  r"(?:全部|所有人|大家|全体|都)\s*(?:会|一起)?\s*同时")
_DENIED = re.compile(r"(?:never|not|n't|no|hardly|rarely|不|没|并非|不会)\s*(?:会|是)?\s*$")
_EN_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty)"
# words that make the number something else: "32 GB at once", "3 days at a time"
_NOT_PEOPLE = (r"(?:gb|gib|mb|tb|k|b|m|tokens?|toks?|gpus?|cards?|servers?|nodes?|boxes|machines|models?|days?|"
               r"hours?|weeks?|months?|years?|minutes?|seconds?|ms|x|times|percent|steps?|epochs?|layers?)")
_GAP_EN = rf"(?:(?!{_NOT_PEOPLE}(?![a-z]))[a-z'’]+\s+){{0,5}}?"
_SUBSET = [
    # "5 of them at the same time", "only about 5 use the chatbot at once", "3 or 4 concurrently", "30 are using
    # it at any given time"
    re.compile(rf"(?<![\d.,])(?P<num>{DIGITS}|{_EN_COUNT})(?:\s*(?:or|to|-|–|~)\s*(?P<num2>{DIGITS}|{_EN_COUNT}))?"
               rf"(?:\s*(?:or so|ish|-ish))?,?\s+(?:of\s+(?:them|those|these|us|the\s+[a-z]+)\s+)?{_GAP_EN}{_AT_EN}"),
    # "其中 5 个人同时用", "5 个同时在线"
    re.compile(rf"(?:其中|里面|当中|里头)?\s*(?:大概|约|大约|最多|也就|只有|差不多)?\s*(?P<num>{NUM})\s*(?:来|多|左右)?\s*"
               rf"(?:个|名|位)?\s*(?:人|用户|同事|员工|学生)?\s*(?:会)?\s*{_AT_ZH}"),
    # "同一时间顶多三四个在用", "同时最多 5 个人在线"
    re.compile(rf"{_AT_ZH}\s*(?:也就|顶多|最多|大概|约|只有|差不多|不超过|一般)?\s*(?P<num>{NUM})\s*(?:来|多|左右)?\s*"
               r"(?:个|名|位)\s*(?:人)?\s*(?:在用|在线|用)"),
    # "同时用的也就 20 来个", "在线的大概 30 人"
    re.compile(rf"{_AT_ZH}\s*(?:用|使用|访问|在线)?\s*的\s*(?:人)?\s*(?:数)?\s*(?:也就|大概|约|只有|差不多|最多|不超过|就)?\s*"
               rf"(?P<num>{NUM})\s*(?:来|多|左右)?\s*(?:个|名|位|人)"),
]

# the people the share is of may be said inside it ("half our 60 engineers", "10 percent of our 2,000 employees"):
# their number stays for the headcount reader, only the share is taken
_OF_PEOPLE = (r"(?:(?:of\s+)?(?:our|the|my|their|your|all|all of our|all the)\s+(?:[\d,]+\s+)?|of\s+[\d,]+\s+|"
              r"of\s+(?:them|those|these|us)\s+)?")
_SHARE_EN = re.compile(
    r"(?<![a-z])(?P<frac>half|a half|a quarter|one quarter|a third|one third|a fifth|one fifth|a tenth|one tenth|"
    rf"(?:one|1) (?:in|out of) (?P<den>\d+|{_EN_COUNT})|(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent))\s+"
    rf"{_OF_PEOPLE}(?:(?!{_NOT_PEOPLE}(?![a-z]))[a-z'’]+\s+){{0,7}}?{_AT_EN}")
# "only 3 of our 12 analysts use it simultaneously", "2 out of 10 people at once": the part and the whole
_PART_OF = re.compile(
    rf"(?<![\d.,])(?<!in )(?<!of )(?P<num>{DIGITS}|{_EN_COUNT})\s+(?:out\s+)?of\s+(?:(?:our|the|my|their|your|all|those|these)\s+)?"
    rf"(?P<total>{DIGITS}|{_EN_COUNT})\s+(?:(?!{_NOT_PEOPLE}(?![a-z]))[a-z'’-]+\s+){{1,7}}?{_AT_EN}")
_SHARE_ZH = re.compile(
    r"(?P<frac>一半|三分之一|四分之一|五分之一|十分之一|(?P<tenths>[一二两三四五六七八九])成|(?P<pct>\d+(?:\.\d+)?)\s*[%％])\s*(?:的)?\s*"
    rf"(?:人|用户|员工|同事|学生|客户)?\s*(?:会)?\s*{_AT_ZH}")


def headcount_at_once(after: str, before: str = "") -> bool:
    """Whether the people just named are all on at once: an "at once" word right after them in the same clause,
    with no number or hedge between ("40 people using it at the same time"), or right before them ("同时有 40 人")."""
    return bool(_AT_ONCE_AFTER.match(after) or _AT_ONCE_BEFORE.search(before))


def all_at_once(s: str) -> bool:
    """Whether the request says everyone is on at once ("…, all at once", "全部同时访问"), not denied."""
    return any(not _DENIED.search(s[max(0, m.start() - 12):m.start()]) for m in _ALL.finditer(s))


def subset_at_once(s: str, people: int) -> tuple[int, tuple[int, int]] | None:
    """The number of the `people` said to be on at once ("5 of them at the same time"), the larger of a range ("3
    or 4 concurrently"), and its span; None unless it is at least 1 and fewer than the people."""
    for rx in _SUBSET:
        for m in rx.finditer(s):
            nums = [to_number(g) for g in (m.group("num"), m.groupdict().get("num2")) if g]
            n = max((v for v in nums if v is not None), default=None)
            if n is not None and 1 <= n < people:
                return int(n), m.span()
    return None


def share_at_once(s: str) -> tuple[float, tuple[int, int]] | None:
    """The share of the people said to be on at once ("a quarter are chatting at once" → 0.25, "one in ten uses
    it simultaneously" → 0.1, "10 percent of our 2,000 employees will be active" → 0.1, "大概一半同时在线" → 0.5) and
    the span of the share's words (the people's number stays to be read); None when none is said."""
    for rx in (_SHARE_EN, _SHARE_ZH):
        m = rx.search(s)
        if m is None:
            continue
        groups = m.groupdict()
        if groups.get("pct"):
            value: float | None = float(groups["pct"]) / 100
        elif groups.get("den"):
            den = to_number(groups["den"])
            value = 1 / den if den else None
        elif groups.get("tenths"):
            tenths = cn_int(groups["tenths"])
            value = tenths / 10 if tenths else None
        else:
            value = FRACTIONS.get(re.sub(r"\s+", " ", m.group("frac")))
        if value is not None and 0 < value <= 1:
            return value, m.span("frac")
    return None


def part_of_people(s: str) -> tuple[int, int, tuple[int, int]] | None:
    """(part, whole, the part's span) when some of the people are said to be on at once as a part of them ("only 3
    of our 12 analysts use it simultaneously" → 3 of 12); None otherwise, or when the part is not the smaller."""
    m = _PART_OF.search(s)
    if m is None:
        return None
    part, whole = to_number(m.group("num")), to_number(m.group("total"))
    if part is None or whole is None or not 1 <= part < whole:
        return None
    return int(part), int(whole), m.span("num")


__all__ = ["all_at_once", "headcount_at_once", "part_of_people", "share_at_once", "subset_at_once"]
