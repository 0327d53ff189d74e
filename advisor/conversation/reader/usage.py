"""How much the hardware is used and for how long: the hours a rented card runs and the horizon of a rent-or-buy
comparison ("8 hours a day", "每天用 8 小时", "weekdays only", "about 200 hours a month", "用半年", "for 18 months").

    read_usage("4x H100, 8 hours a day, weekdays only, for half a year")
      -> Usage(hours_month=173.8, per_gpu=True, text="8 hours a day, weekdays only", horizon_months=6, …)

Hours a month = hours a day × days a month, days a month = 365 / 12 = 30.42 (every day) or 5 × 52 / 12 = 21.67
(weekdays); a week's hours × 52 / 12; a month's hours as said. "Business hours" / "9 to 5" / "工作时间" is 8 h on
weekdays; "24/7" / "around the clock" / "全天" is 24 h every day; a share of the time ("60% of the time", "利用率 60%",
"六成时间在用", reader.usage_share) is that share of HOURS_PER_MONTH (0.6 × 730 h = 438 h). "N GPU-hours a month" is the whole job's hours
(not per card). The horizon: "for / over N months|years", "用 / 租 N 个月|年", "半年" (6 months).

Pure functions over the lower-cased message with its amounts in digits (`quantity.rewrite`).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import DAYS_PER_MONTH, HOURS_PER_MONTH, cn_int, to_number
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text
from advisor.conversation.reader.usage_share import read_share
from knowledge.structs import Value

WEEKDAYS_PER_MONTH = 5 * 52 / 12  # 21.67: Monday to Friday
WEEKS_PER_MONTH = 52 / 12  # 4.33

_NUMBER = (r"\d+(?:\.\d+)?|[一二两三四五六七八九十]{1,3}|(?<![a-z])(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
           r"twelve|sixteen|twenty)(?![a-z])")
_N, _N2, _N3 = (rf"(?P<{g}>{_NUMBER})" for g in ("n", "n2", "n3"))
_H = r"(?:hours?|hrs?|h|小时|个小时|钟头)"
_PER_DAY = re.compile(
    rf"{_N}\s*(?:-|to|~|到)?\s*(?:\d+\s*)?{_H}\s*(?:a|per|each|every|/|一|每)\s*(?:day|night|workday|weekday|天|日)(?![a-z])|"
    rf"(?:每天|一天|每日|日均|天天|每个工作日|工作日每天)\s*(?:只|就|大概|大约|约|差不多)?\s*(?:用|跑|运行|使用|开|开机|工作|租)?\s*"
    rf"(?:约|大概|大约|差不多)?\s*{_N2}\s*{_H}|"
    rf"{_N3}\s*{_H}\s*(?:per|a|/)\s*(?:work(?:ing)?\s*)?day")
_PER_WEEK = re.compile(rf"{_N}\s*(?:gpu[\s-]*)?{_H}\s*(?:a|per|each|every|/)\s*week(?![a-z])|"
                       rf"(?:每周|一周|每星期)\s*(?:约|大概|大约|差不多)?\s*(?:用|跑|运行|使用|开)?\s*(?:约|大概|大约)?\s*{_N2}\s*{_H}")
_PER_MONTH = re.compile(rf"{_N}\s*(?P<gpu>gpu[\s-]*)?{_H}\s*(?:a|per|each|every|/)\s*month(?![a-z])|"
                        rf"(?:每月|每个月|一个月|月均)\s*(?:约|大概|大约|差不多)?\s*(?:用|跑|运行|使用|开)?\s*(?:约|大概|大约)?\s*{_N2}\s*(?P<gpu2>gpu\s*)?{_H}")
_WEEKDAYS = re.compile(r"weekdays?(?: only)?|business days|working days|work days|mon(?:day)?\s*(?:-|to|through|–)\s*"
                       r"fri(?:day)?|(?:5|five) days a week|工作日|周一到周五|周一至周五|每周五天|一周五天|不含周末|周末不用|"
                       r"no weekends|not (?:on )?weekends")
_DAYS_A_WEEK = re.compile(rf"{_N}\s*days?\s*(?:a|per|each|every|/)\s*week|(?:每周|一周)\s*(?:用|跑)?\s*{_N2}\s*天")
_DAYS_A_MONTH = re.compile(rf"{_N}\s*days?\s*(?:a|per|each|every|/)\s*month|(?:每月|一个月)\s*(?:用|跑)?\s*{_N2}\s*天")
_OFFICE = re.compile(r"business hours|office hours|working hours|work hours|9\s*(?:-|to|–)+\s*5(?![\d.])|nine[\s-]*to[\s-]*five|工作时间|上班时间|"
                     r"白天上班")
_ALWAYS = re.compile(r"24\s*/\s*7|24x7|around the clock|round the clock|all day(?: and night)?|nonstop|non-stop|"
                     r"continuously|always on|全天候|全天|24\s*小时(?!\s*(?:内|以内|之内))|不间断|一直开着|常开|不停机")
# a count asked just before a period ("how many H100s for 60 days"): in a training question a deadline, not a
# rent-or-buy horizon (amounts.read_deadline_and_years reads it as the deadline)
COUNT_ASKED_BEFORE = re.compile(r"how many\b[^.?!;]{0,40}$")
_TRAINING_WORD = re.compile(r"train|fine[\s-]?tun|预训练|训练|微调|\d\s*[tb]\s*tokens")
_HORIZON = re.compile(
    r"(?:(?<![a-z])(?:for|over|during|next|about|roughly|around)\s+(?:the\s+(?:next\s+)?|a\s+period\s+of\s+)?"
    r"(?:(?:just|only|about|around|roughly|maybe|another)\s+)?(?:an?\s+(?=\d))?"
    r"(?P<n>\d+(?:\.\d+)?|half\s+a|a|one|two|three|four|five|six|seven|eight|nine|ten)\s*-?\s*"
    r"(?P<u>months?|years?|yrs?|weeks?|wks?|days?)(?![a-z]))|"
    r"(?:用|租|租用|跑|使用|用上|为期|共|总共|租期|周期|训练|训|微调|部署|运行|项目)\s*(?P<zn>\d+(?:\.\d+)?|半|[一二两三四五六七八九十]{1,3})\s*(?:个)?\s*(?P<zu>月|年|周|星期|礼拜|天)|"
    # "三个月多少钱", "一年要多少钱": a period followed by the question of its cost
    r"(?<![\d一二两三四五六七八九十])(?P<zn2>\d+(?:\.\d+)?|[一二两三四五六七八九十]{1,3})\s*(?:个)?\s*(?P<zu2>月|年)"
    r"(?=\s*(?:下来|总共|一共|共|要|大概|得)?\s*(?:多少钱|多少|费用|租金|成本|花多少|花费))")
_ANNUAL = re.compile(r"annual(?:ly)?|yearly|per year|a year|each year|每年|一年|全年|年租")
_HALF_YEAR = re.compile(r"half a year|six months|半年")


_SMALL = {"a": 1.0, "one": 1.0, "一": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0, "seven": 7.0,
          "eight": 8.0, "nine": 9.0, "ten": 10.0}


class Usage(Value):
    """The usage a message states: hours a month (per card, or the whole job's when `per_gpu` is False), the words
    they were read from, and the horizon in months (None: not said)."""

    hours_month: float | None = None
    per_gpu: bool = True
    text: str = ""
    horizon_months: float | None = None
    horizon_text: str = ""
    spans: tuple[tuple[int, int], ...] = ()
    share: float | None = None  # the share of the time said ("60% of the time"): hours_month = share × 730 h


def _num(m: re.Match[str], *names: str) -> float | None:
    for name in names:
        try:
            got = m.group(name)
        except IndexError:
            continue
        if got:
            return to_number(got)
    return None


def read_usage(s: str) -> Usage:
    """The usage stated in `s` (lower case, amounts in digits; see the module doc); every field None when none."""
    spans: list[tuple[int, int]] = []
    words: list[str] = []
    hours_month: float | None = None
    per_gpu = True
    month = _PER_MONTH.search(s)
    day = _PER_DAY.search(s)
    week = _PER_WEEK.search(s)
    if month and (v := _num(month, "n", "n2")) and 0 < v <= 744:
        hours_month, per_gpu = v, not (month.group("gpu") or month.group("gpu2"))
        spans.append(month.span())
        words.append(month.group(0))
    elif week and (v := _num(week, "n", "n2")) and 0 < v <= 168:
        hours_month = v * WEEKS_PER_MONTH
        spans.append(week.span())
        words.append(week.group(0))
    else:
        per_day: float | None = None
        if day and (v := _num(day, "n", "n2", "n3")) and 0 < v <= 24:
            per_day = v
            spans.append(day.span())
            words.append(day.group(0))
        office = _OFFICE.search(s)
        if per_day is None and office:
            per_day = 8.0
            spans.append(office.span())
            words.append(office.group(0))
        days = None
        weekdays = _DAYS_A_WEEK.search(s) or None
        if weekdays and (v := _num(weekdays, "n", "n2")) and 0 < v <= 7:
            days = v * WEEKS_PER_MONTH
        elif (wd := _WEEKDAYS.search(s)) or office:
            days = WEEKDAYS_PER_MONTH
            weekdays = wd
        elif (dm := _DAYS_A_MONTH.search(s)) and (v := _num(dm, "n", "n2")) and 0 < v <= 31:
            days, weekdays = v, dm
        if weekdays is not None:
            spans.append(weekdays.span())
            words.append(weekdays.group(0))
        always = _ALWAYS.search(s)
        if per_day is None and always and days is None:
            per_day = 24.0
            spans.append(always.span())
            words.append(always.group(0))
        if per_day is None and days is not None:
            per_day = 24.0  # "weekdays only" without the hours: a card rented for its days runs them through
        if per_day is not None:
            hours_month = per_day * (days if days is not None else DAYS_PER_MONTH)
    share = read_share(s) if hours_month is None else None
    if share is not None:  # "60% of the time": that share of a month around the clock, each card
        hours_month = share.share * HOURS_PER_MONTH
        spans.append(share.span)
        words.append(share.text)
    horizon: float | None = None
    horizon_text = ""
    h = _HORIZON.search(s)
    if h and COUNT_ASKED_BEFORE.search(s[:h.start()]) and _TRAINING_WORD.search(s):
        h = None  # "pretrain it: how many H100s for 60 days?": the time the count finishes in (amounts: a deadline)
    if h:
        raw = (h.group("n") or h.group("zn") or h.group("zn2") or "").strip()
        unit = h.group("u") or h.group("zu") or h.group("zu2") or ""
        n = (0.5 if raw in ("半", "half a") or raw.startswith("half") else _SMALL.get(raw) or float(cn_int(raw) or 0)
             if not raw[:1].isdigit() else float(raw))
        # "for a week", "for 10 days", "租两周": a short rental, in months of DAYS_PER_MONTH days
        months = n * (12 if unit.startswith(("y", "年")) else 7 / DAYS_PER_MONTH if unit.startswith(("w", "周", "星", "礼"))
                      else 1 / DAYS_PER_MONTH if unit.startswith(("d", "天")) else 1)
        if 0 < months <= 240:
            horizon, horizon_text = months, h.group(0).strip()
            start = h.start("n") if h.group("n") else h.start("zn") if h.group("zn") else h.start("zn2")
            spans.append((start, h.end()))  # the verb ("租") stays
    elif (annual := _ANNUAL.search(s)) and re.search(r"rent|租|cloud|云", s):  # "annual cost of renting": 12 months
        horizon, horizon_text = 12.0, annual.group(0)
    elif (half := _HALF_YEAR.search(s)) and (re.search(r"用|租|跑|训|调|for|over|rent|use", s[max(0, half.start() - 12):half.start()])
                                             or re.match(r"\s*(?:的|下来|内|里|左右)?\s*(?:[，。,.?？！!；;]|$)", s[half.end():])):
        # "用半年", "租半年", "微调 qwen2.5-32b 半年" (the period closing the clause)
        horizon, horizon_text = 6.0, half.group(0)
        spans.append(half.span())
    return Usage(hours_month=hours_month, per_gpu=per_gpu, text=", ".join(dict.fromkeys(w.strip() for w in words)),
                 horizon_months=horizon, horizon_text=horizon_text, spans=tuple(spans),
                 share=share.share if share is not None else None)




_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9}
# "1M tokens a day", "30 million tokens per month", "500k tok/day", "每天 100 万 token" (digits after rewrite_numbers)
_VOLUME = re.compile(r"(?P<n>\d+(?:\.\d+)?)\s*(?P<s>k|m|mm|b|bn|thousand|million|billion)?\s*(?:output\s+)?"
                     r"(?:tokens?|toks?)\s*(?:a|an|per|/|each|every)\s*(?P<u>day|month|hour|hr)(?![a-z])", re.I)
_VOLUME_ZH = re.compile(r"(?:每|一|日均|平均每)(?P<u>天|日|月|小时)\s*(?:要|需要|大概|大约|约)?\s*(?:生成|输出|处理|跑|消耗)?\s*"
                        r"(?:的量)?\s*(?:约|大概|大约)?\s*(?P<n>\d+(?:\.\d+)?|[零一二两三四五六七八九十百千]+)\s*(?P<s>万|亿)?\s*(?:个)?\s*tokens?")
_VOLUME_PER_DAY = {"day": 1.0, "天": 1.0, "日": 1.0, "": 1.0, "month": 1 / DAYS_PER_MONTH, "月": 1 / DAYS_PER_MONTH, "hour": 24.0,
            "hr": 24.0, "小时": 24.0}


def read_token_volume(t: Text, slots: Slots) -> None:
    """A token volume over time ("1M tokens a day", "30M tokens per month", "每天 100 万 token"): tokens a day
    (a month is DAYS_PER_MONTH days), its words blanked so the token readers do not take it for a training set."""
    m = _VOLUME.search(t.s)
    if m:
        n = float(m.group("n")) * _SCALE.get((m.group("s") or "").lower(), 1.0)
    elif (z := _VOLUME_ZH.search(t.s)) is not None:
        m = z
        n = (to_number(z.group("n")) or 0.0) * {"万": 1e4, "亿": 1e8}.get(z.group("s") or "", 1.0)
    else:
        return
    per_day = n * _VOLUME_PER_DAY[m.group("u").lower()]  # ("10M tokens an hour": 240M a day)
    if per_day > 0:
        slots.tokens_per_day = per_day
        t.consume(m.start(), m.end())


def read_usage_slots(t: Text, slots: Slots) -> None:
    """The extractor's reader: the usage and horizon into `slots`, their words blanked (so "8 hours a day" is not
    read as an 8-hour deadline)."""
    got = read_usage(t.s)
    if got.hours_month is not None:
        slots.usage_hours_month, slots.usage_per_gpu, slots.usage_text = got.hours_month, got.per_gpu, got.text
        slots.usage_share = got.share
    if got.horizon_months is not None:
        slots.horizon_months, slots.horizon_text = got.horizon_months, got.horizon_text
        years = got.horizon_months / 12
        if years == int(years) and 1 <= years <= 15:
            slots.tco_years = int(years)  # "over 3 years": the cost horizon of the purchase as well
    for start, end in got.spans:
        t.consume(start, end)


__all__ = ["DAYS_PER_MONTH", "HOURS_PER_MONTH", "WEEKDAYS_PER_MONTH", "Usage", "read_token_volume", "read_usage",
           "read_usage_slots"]
