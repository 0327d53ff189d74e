"""A change of load said in one breath: "going from 50 to 100 users", "at 100 users than at 50", "用户从 50 增加到
100", "并发从 20 提高到 80". The new load is the concurrency asked about; the one it starts from is kept
(`Slots.load_from`) so the answer can give both (advisor.analysis.load_answers.load_change). Three or more loads
listed ("as concurrency goes 1, 8, 32, 128", "at 1/10/100 users", "并发 1、8、32、128 时") are a ladder
(`Slots.load_ladder`), each simulated (load_answers.load_ladder); the concurrency is the largest."""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import read as read_number
from advisor.conversation.reader.ranges import check
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text

_N = r"\d[\d,]*"
_WHO = (r"(?:concurrent\s+|simultaneous\s+|parallel\s+)?(?:users?|requests?|sessions?|people|streams?|clients?|"
        r"chats?|conversations?|agents?)")
_ZH_WHO = r"(?:用户|并发|请求|人数|在线人数|并发数|并发量|路并发)"
_ZH_UP = r"(?:增加|提高|提升|涨|扩|加|翻倍|上升|增长|降|减少|减|下降|提|升|拉|调|变|改)\w{0,2}?到"
_CHANGES = [
    # "from 50 to 100 users", "going from 50 users to 100", "scale from 20 to 80 concurrent requests"
    re.compile(rf"(?<![a-z])from\s+(?P<a>{_N})\s*(?:{_WHO}\s+)?(?:down\s+|up\s+)?to\s+(?P<b>{_N})\s*{_WHO}(?![a-z])"),
    re.compile(rf"(?<![a-z])from\s+(?P<a>{_N})\s*{_WHO}\s+to\s+(?P<b>{_N})(?![\d,])"),
    # "double the users from 50 to 100", "concurrency from 16 to 64"
    re.compile(rf"(?:{_WHO}|concurrency|load)\s+(?:goes\s+|go\s+|grows?\s+|rises?\s+)?from\s+(?P<a>{_N})\s+to\s+"
               rf"(?P<b>{_N})(?![\d,])"),
    # "at 100 users than at 50", "at 100 users compared with 50"
    re.compile(rf"(?<![a-z])at\s+(?P<b>{_N})\s*{_WHO}\s+(?:than|vs\.?|versus|compared\s+(?:to|with))\s+(?:at\s+)?"
               rf"(?P<a>{_N})(?![\d,])"),
    # "用户从 50 增加到 100", "并发从 20 个提高到 80 个"
    re.compile(rf"{_ZH_WHO}\s*(?:数|量)?\s*从\s*(?P<a>{_N})\s*(?:个|位|路|人)?\s*{_ZH_UP}\s*(?P<b>{_N})"),
    # "从 50 个用户增加到 100 个"
    re.compile(rf"从\s*(?P<a>{_N})\s*(?:个|位|路|名)?\s*{_ZH_WHO}\s*{_ZH_UP}\s*(?P<b>{_N})"),
]


# "if traffic triples from 30 users", "double the users from 50", "用户从 50 翻倍": a factor of the load said
_FACTOR_WORDS = {"doubles": 2, "double": 2, "doubled": 2, "doubling": 2, "triples": 3, "triple": 3, "tripled": 3,
                 "tripling": 3, "quadruples": 4, "quadruple": 4, "quadrupled": 4, "翻倍": 2, "翻一番": 2, "翻两番": 4}
_FACTOR = r"(?P<f>doubl(?:es|e|ed|ing)|tripl(?:es|e|ed|ing)|quadrupl(?:es|e|ed)|(?<![\d.])(?P<n>\d+(?:\.\d+)?)\s*[x×])"
_FACTORS = [
    re.compile(rf"(?:{_WHO}|traffic|load|concurrency|demand)\s+(?:grows?\s+|goes\s+up\s+|increases?\s+)?{_FACTOR}\s+"
               rf"from\s+(?P<a>{_N})(?![\d,])"),
    re.compile(rf"{_FACTOR}\s+(?:the\s+)?(?:{_WHO}|traffic|load|concurrency)\s+from\s+(?P<a>{_N})(?![\d,])"),
    re.compile(rf"{_ZH_WHO}\s*(?:数|量)?\s*从\s*(?P<a>{_N})\s*(?:个|位|路|人)?\s*(?P<f>翻倍|翻一番|翻两番)"),
]


# three or more loads in a row: "1, 8, 32, 128", "1/8/32/128", "1, 10 and 100", "1、8、32、128"
# A list starts where no number or separator comes before it and has at most 12 loads: a search over "1,1,1,…"
# then tries each start once instead of backtracking from every position (quadratic on long input)
_LIST = (r"(?<![\d,/、，])(?P<list>\d+(?:\s*(?:,|/|、|，)\s*(?:and\s+|or\s+)?\d+){1,10}\s*(?:,|/|、|，)?\s*"
         r"(?:and|or|to|和|到|与)?\s*\d+)(?![\d.])")  # (thousands separators were read by Text: "1,000" is 1000 here)
_LOAD_WORD = rf"(?:{_WHO}|concurrency|concurrent|load|batch(?:\s+sizes?)?|并发数?|并发量|路并发|用户数?|个用户|路|个并发)"
_LADDERS = [
    # "as concurrency goes 1, 8, 32, 128", "concurrency of 1/8/32", "at batch sizes 1, 4, 16 and 64"
    re.compile(rf"{_LOAD_WORD}\s*(?:goes|going|grows|rises|increases|of|at|=|:|from|levels?|in)?\s*(?:through\s+|over\s+)?{_LIST}"
               rf"(?![\d,.]|\s*(?:k|tokens?|gb|ms|s\b|x|×))"),
    # "at 1, 8, 32 and 128 users", "1/8/32/128 并发", "1、8、32、128 路"
    re.compile(rf"{_LIST}\s*{_LOAD_WORD}"),
]


def read_load_ladder(t: Text, slots: Slots) -> None:
    """Three or more loads listed with a load word: the distinct ones within the concurrency's range, ascending, as
    `Slots.load_ladder`, and the largest as the concurrency (the configuration is sized for it)."""
    for rx in _LADDERS:
        m = rx.search(t.s)
        if m is None:
            continue
        values = sorted({int(v) for v in re.findall(r"\d+", m.group("list"))
                         if int(v) >= 1 and check("concurrency", int(v)) is None})
        if len(values) < 3:
            continue
        slots.load_ladder, slots.concurrency = tuple(values), values[-1]
        t.consume(m.start(), m.end())
        return


def read_load_change(t: Text, slots: Slots) -> None:
    """The first change of load said: its new value as the concurrency, the old one as `load_from` (both within
    the concurrency's range; a change to the same number is no change). A factor said ("triples from 30") gives the
    new value as the old times the factor."""
    for rx in _FACTORS:
        m = rx.search(t.s)
        if m is None:
            continue
        a = read_number(m.group("a").replace(",", ""))
        n = m.groupdict().get("n")
        f = float(n) if n else _FACTOR_WORDS.get(m.group("f"), 0)
        if not a or f <= 1 or check("concurrency", a) is not None or check("concurrency", round(a * f)) is not None:
            continue
        slots.concurrency, slots.load_from = round(a * f), int(a)
        t.consume(m.start(), m.end())
        return
    for rx in _CHANGES:
        m = rx.search(t.s)
        if m is None:
            continue
        a, b = read_number(m.group("a").replace(",", "")), read_number(m.group("b").replace(",", ""))
        if not a or not b or a == b or check("concurrency", a) is not None or check("concurrency", b) is not None:
            continue
        slots.concurrency, slots.load_from = int(b), int(a)
        t.consume(m.start(), m.end())
        return
