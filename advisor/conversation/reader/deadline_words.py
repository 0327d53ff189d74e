"""A training or batch job's deadline said in words, not as a duration: "overnight", "by tomorrow", "over the weekend",
"今晚能跑完吗", "一晚上", "明天之前", "周末". Each stands for the hours below (`Slots.deadline_s`), and the words are kept
(`Slots.deadline_text`) so the answer says how they were taken ("overnight, taken as 12 hours"). A duration said with
a number ("in 2 hours", "一天之内") is read by `amounts.read_deadline_and_years`.
"""

from __future__ import annotations

import re

from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text

NIGHT_S = 12 * 3600  # "overnight", "一晚上": an evening's start to the next morning, about 12 hours
DAY_S = 24 * 3600  # "by tomorrow", "明天之前": within a day
WEEKEND_S = 48 * 3600  # "over the weekend", "周末": Saturday and Sunday, about 48 hours

# a finishing word near a Chinese time word: "今晚能跑完吗", "周末训完", "明天之前出结果", "一个周末够吗"
_DONE_ZH = r"(?:之前|以前|前|内|之内|以内)?\s*(?:能|可以|就)?\s*(?:跑完|训完|训练完|完成|搞定|出结果|结束|跑得完|训得完|够)"
_WORDS: list[tuple[re.Pattern[str], float]] = [
    (re.compile(r"(?<![a-z])(?:over\s*night|overnight|by\s+(?:tomorrow\s+)?morning|by\s+tonight|in\s+(?:one|a)\s+night)"
                rf"(?![a-z])|一(?:个)?晚上|一夜|一宿|通宵|过夜|(?:今晚|今天晚上|明早|明天早上)(?={_DONE_ZH})"), NIGHT_S),
    (re.compile(r"(?<![a-z])(?:by\s+tomorrow|until\s+tomorrow|before\s+tomorrow|by\s+(?:the\s+)?end\s+of\s+(?:the\s+)?day"
                r"|by\s+eod)(?![a-z])|明天之前|明天以前|明天前|到明天|明天(?=\s*(?:能|可以|就)?\s*(?:跑完|训完|训练完|完成|搞定|出结果))"),
     DAY_S),
    (re.compile(r"(?<![a-z])(?:over\s+(?:the|a|one)\s+weekend|(?:in|within)\s+(?:a|one|the)\s+weekend|by\s+(?:the\s+end\s+of\s+)?"
                r"(?:the\s+)?weekend|this\s+weekend|during\s+the\s+weekend)(?![a-z])|"
                rf"(?:一个|这个|这|一)?周末(?={_DONE_ZH})|(?:一个|这个)周末"), WEEKEND_S),
]


def read_deadline_words(t: Text, slots: Slots) -> None:
    """`slots.deadline_s` (and the words) from a deadline said in words, when no duration was said."""
    if slots.deadline_s is not None:
        return
    for rx, seconds in _WORDS:
        m = rx.search(t.s)
        if m:
            slots.deadline_s, slots.deadline_text = float(seconds), t.quote(m.start(), m.end())
            t.consume(m.start(), m.end())
            return
