"""Latency targets a serving question states: time to first token ("TTFT under 1 s", "首 token 延迟 500ms 以内")
and time per output token, said as a latency ("TPOT ≤ 50 ms", "每 token 不超过 40 毫秒") or as a per-user speed
("at least 20 tokens/s per user", "每路至少 20 tokens/s", read as TPOT = 1000 / speed ms).

A target is read only beside its own words (TTFT / first token / 首 token …; TPOT / per token / 每路 …), so a bare
"500 ms" or "20 tokens/s" stays unread. Percentile words ("p95 TTFT") are kept in the words quoted; the analysis
judges the simulated median (advisor.estimator.serving.max_concurrency_for_target) and says so.
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import to_number
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import NUM, Text

_PCT = r"(?:\s*(?:p50|p90|p95|p99|median|average|mean|中位数?|平均))?"
_BOUND_EN = (r"(?:\s*(?:of|under|below|within|less than|at most|no more than|not above|<=?|≤|:|=|is|be|to|should|must|"
             r"needs?|has|have|stay|kept|keep|around|about|~))*")
_BOUND_ZH = r"(?:\s*(?:要|需要|需|得|在|控制在|保持在|不超过|不高于|低于|小于|少于|最多|<=?|≤|:|：|=))*"
_UNIT_TIME = r"(?P<unit>ms|msec|milliseconds?|毫秒|s|secs?|seconds?|秒)(?![a-z])"

_TTFT = [
    re.compile(rf"(?:ttft|time[- ]to[- ]first[- ]token|first[- ]token(?:[- ](?:latency|time|delay))?|"
               rf"首\s*(?:个\s*)?(?:token|字|包)(?:\s*(?:延迟|时延|时间|响应))?){_PCT}{_BOUND_EN}{_BOUND_ZH}\s*"
               rf"(?P<num>{NUM})\s*{_UNIT_TIME}", re.I),
    # "first token within 2 seconds", "under 500 ms to the first token", "500ms 内出首字"
    re.compile(rf"(?:under|below|within|in)\s*(?P<num>{NUM})\s*{_UNIT_TIME}\s*(?:to|for)\s*(?:the\s*)?first[- ]token",
               re.I),
    re.compile(rf"(?P<num>{NUM})\s*{_UNIT_TIME}\s*(?:以内|之内|内)\s*(?:出|返回|给出)?\s*首\s*(?:个\s*)?(?:token|字|包)", re.I),
]
_TPOT = [
    re.compile(rf"(?:tpot|itl|inter[- ]token[- ]latency|time[- ]per[- ]output[- ]token|per[- ]token[- ]latency|"
               rf"每\s*(?:个\s*)?(?:输出\s*)?token(?:\s*(?:延迟|时延|时间))?|输出延迟){_PCT}{_BOUND_EN}{_BOUND_ZH}\s*"
               rf"(?P<num>{NUM})\s*{_UNIT_TIME}", re.I),
    re.compile(rf"(?P<num>{NUM})\s*(?P<unit>ms|毫秒)\s*(?:per|/|each|every|一个|每)\s*(?:output\s*)?(?:token|个\s*token)", re.I),
]
# an end-to-end target (the whole reply): "p95 latency under 2 s", "end-to-end latency below 3 seconds",
# "响应时间 2 秒以内"; read after TTFT and TPOT, so "first token latency" and "per-token latency" are theirs
_E2E = [
    re.compile(rf"(?:(?:p50|p90|p95|p99)\s*)?(?:end[- ]to[- ]end|e2e|response|request|reply|overall|total)?\s*(?:latency|response[- ]time|"
               rf"time[- ]to[- ](?:respond|answer))(?:\s*(?:per|for each|for a|of a|of each)\s*(?:request|reply|response))?"
               rf"{_PCT}{_BOUND_EN}\s*(?P<num>{NUM})\s*{_UNIT_TIME}", re.I),
    re.compile(rf"(?:p50|p90|p95|p99)\s*(?:end[- ]to[- ]end|e2e)?\s*(?:latency)?{_BOUND_EN}\s*(?P<num>{NUM})\s*{_UNIT_TIME}",
               re.I),
    re.compile(rf"(?:端到端(?:延迟|时延)?|响应时间|响应延迟|请求延迟|整体延迟|总延迟|延迟|时延){_PCT}{_BOUND_ZH}"
               rf"(?:\s*(?:p50|p90|p95|p99))?{_BOUND_ZH}\s*(?P<num>{NUM})\s*{_UNIT_TIME}", re.I),
]
_SPEED = [
    # "at least 20 tokens/s per user", "20 tok/s for each user", "每路至少 20 tokens/s", "每个用户 30 token/秒"
    re.compile(rf"(?:at least|minimum of|min\.?|no less than|>=|≥|over|above)?\s*(?P<num>{NUM})\s*"
               rf"(?:tokens?\s*/\s*s(?:ec)?|tok/s|t/s|tokens? per second|token/秒|tokens?/秒)\s*"
               rf"(?:(?:per|for each|for every|each|/|a)\s*(?:user|request|sequence|stream|person|client)|each(?![a-z]))",
               re.I),
    re.compile(rf"(?:每路|每个用户|每用户|每个请求|每人|单路|单用户)\s*(?:的?\s*速度)?\s*(?:要|需要|至少|不低于|不少于|≥|>=|达到)*\s*"
               rf"(?P<num>{NUM})\s*(?:tokens?\s*/\s*s|tok/s|token/秒|tokens?/秒|字/秒)", re.I),
    # "每个用户每秒至少20个token", "每路每秒 30 token"
    re.compile(rf"(?:每路|每个用户|每用户|每个请求|每人|单路|单用户)\s*(?:的?\s*速度)?\s*每秒\s*(?:要|需要|至少|不低于|不少于|达到)*\s*"
               rf"(?P<num>{NUM})\s*个?\s*(?:tokens?|字|词)", re.I),
]


_RATE = r"(?:tokens?\s*/\s*s(?:ec)?|tok/s|t/s|tokens? (?:per|a) second|tokens?\s*/\s*秒|tokens?\s*每秒)"
_AMOUNT = rf"(?P<num>{NUM})\s*(?P<mult>k|千|万)?\s*"
_TOTAL = [
    # "5000 tokens/s in total", "at least 2k tok/s aggregate", "5,000 tokens/s across all users", "合计 5000 tokens/s"
    re.compile(rf"{_AMOUNT}{_RATE}\s*(?:in total|total|aggregate|overall|combined|altogether|in aggregate|"
               rf"across (?:all )?(?:the )?(?:users|requests|streams)|(?:的)?\s*总吞吐)", re.I),
    # "total throughput of 5000 tokens/s", "aggregate throughput ≥ 2k tok/s", "总吞吐 5000 token/s", "总吞吐量要达到 5000 tokens/s"
    re.compile(rf"(?:total|aggregate|overall|combined)\s*(?:output\s*)?(?:throughput|generation|decode)?{_BOUND_EN}"
               rf"(?:\s*(?:at least|>=|≥))?\s*{_AMOUNT}{_RATE}", re.I),
    re.compile(rf"(?:总吞吐量?|总输出速度|合计|总共|整体吞吐量?){_BOUND_ZH}(?:\s*(?:达到|至少|不低于|不少于))*\s*{_AMOUNT}{_RATE}", re.I),
]
_MULT = {"k": 1e3, "千": 1e3, "万": 1e4}


def read_total_throughput(t: Text, slots: Slots) -> None:
    """A total (all users together) output-throughput target ("5000 tokens/s in total", "总吞吐 5000 token/s",
    "at least 2k tok/s aggregate"), in tokens/s: `slots.min_tokens_per_s`, the recommender's Constraints field."""
    said: list[str] = []
    m = _take(t, _TOTAL, said)
    if m:
        slots.min_tokens_per_s = (to_number(m.group("num")) or 0.0) * _MULT.get((m.group("mult") or "").lower(), 1.0)
        slots.throughput_text = said[0]


def _seconds(value: float, unit: str) -> float:
    return value / 1000 if unit.lower() in ("ms", "msec", "millisecond", "milliseconds", "毫秒") else value


def _take(t: Text, patterns: list[re.Pattern[str]], said: list[str]) -> re.Match[str] | None:
    """The first match of `patterns` whose number is positive, consumed from `t` and its words quoted into `said`."""
    for rx in patterns:
        m = rx.search(t.s)
        if m:
            v = to_number(m.group("num"))
            if v and v > 0:
                said.append(t.quote(m.start(), m.end()))
                t.consume(m.start(), m.end())
                return m
    return None


def read_latency_targets(t: Text, slots: Slots) -> None:
    """TTFT and TPOT targets beside their words, in milliseconds (`slots.ttft_ms`, `slots.tpot_ms`); the words
    read go to `slots.latency_text`. A per-user speed is a TPOT target of 1000 / speed ms."""
    said: list[str] = []
    m = _take(t, _TTFT, said)
    if m:
        slots.ttft_ms = _seconds(to_number(m.group("num")) or 0.0, m.group("unit")) * 1000
    m = _take(t, _TPOT, said)
    if m:
        slots.tpot_ms = _seconds(to_number(m.group("num")) or 0.0, m.group("unit")) * 1000
    elif (m := _take(t, _SPEED, said)) is not None:
        slots.tpot_ms = 1000 / (to_number(m.group("num")) or 1.0)
    if said:
        slots.latency_text = "; ".join(said)
    e2e: list[str] = []
    if (m := _take(t, _E2E, e2e)) is not None:
        slots.e2e_ms = _seconds(to_number(m.group("num")) or 0.0, m.group("unit")) * 1000
        slots.e2e_text = e2e[0]


__all__ = ["read_latency_targets", "read_total_throughput"]
