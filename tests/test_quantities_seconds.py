"""knowledge.quantities.Seconds: durations keep their unit across layers.

Checked against hand arithmetic (1 h = 3,600 s, 1 day = 86,400 s, 1 s = 1,000 ms) and against published figures
read by hand, never against the module's own constants.
"""

from __future__ import annotations

import pytest

from knowledge.quantities import Seconds


def test_conversions_by_hand() -> None:
    # a 38 ms time per output token is 0.038 s; 1 / 0.038 s = 26.3 tokens/s per user
    tpot = Seconds.of(38, "ms")
    assert tpot.s == pytest.approx(0.038, abs=1e-15)
    assert tpot.ms == pytest.approx(38.0, abs=1e-12)
    # Llama 3 405B's pre-training: 30.84 M H100-hours on 16,384 GPUs (Meta's model card) is 1,882 h = 78.4 days
    wall = Seconds.of(30.84e6 / 16_384, "h")
    assert wall.hours == pytest.approx(1882.32, abs=0.01)
    assert wall.days == pytest.approx(78.43, abs=0.01)
    assert wall.s == pytest.approx(6_776_367, rel=1e-6)
    # 2 days = 172,800 s = 2,880 min; 90 min = 5,400 s = 1.5 h
    assert Seconds.of(2, "days").s == 172_800 and Seconds.of(2, "days").to("min") == 2_880
    assert Seconds.of(90, "min").s == 5_400 and Seconds.of(90, "min").hours == 1.5
    assert Seconds(0.25).to("ms") == 250 and Seconds(7_200).to("h") == 2 and Seconds(43_200).to("days") == 0.5


def test_text_always_names_the_unit_in_both_languages() -> None:
    assert Seconds.of(38, "ms").text("ms", 0) == "38 ms"
    assert Seconds(8_640).text("h") == "2.4 h"  # 8,640 s / 3,600 = 2.4 h
    assert Seconds(1_411_200).text("days") == "16.3 days"  # 1,411,200 s / 86,400 = 16.33 days
    assert Seconds(1_411_200).text("days", lang="zh") == "16.3 天"
    assert Seconds(8_640).text("h", lang="zh") == "2.4 小时"
    assert Seconds(0.5).text("s", 2, lang="zh") == "0.50 秒"
    assert Seconds.of(38, "ms").text("ms", 0, lang="zh") == "38 ms"  # milliseconds are "ms" in Chinese answers too
    assert Seconds.of(1_234, "days").text("days", 0, grouped=True) == "1,234 days"
    assert Seconds(90).text("min", 1) == "1.5 min"


def test_arithmetic_keeps_the_unit() -> None:
    ttft = Seconds.of(180, "ms") + Seconds.of(20, "ms")
    assert type(ttft) is Seconds and ttft.ms == pytest.approx(200)
    assert (Seconds(10) - Seconds(4)).s == 6 and (-Seconds(3)).s == -3
    assert (Seconds(1.5) * 4).s == 6 and (2 * Seconds(1.5)).s == 3
    # a 10-day run against a 30-day deadline: a third of it
    assert Seconds.of(10, "days").ratio(Seconds.of(30, "days")) == pytest.approx(1 / 3)
    assert Seconds(1) < Seconds(2) <= Seconds(2) and Seconds(3) > Seconds(2) >= Seconds(2)
    assert max(Seconds(1), Seconds.of(2, "days")) == Seconds(172_800)
    assert sorted([Seconds(3), Seconds(1)]) == [Seconds(1), Seconds(3)]
    assert not Seconds(0) and Seconds(0.001)


@pytest.mark.parametrize("op", [
    lambda d: d + 1, lambda d: 1 + d, lambda d: d - 0.5, lambda d: 0.5 - d,
    lambda d: d < 1, lambda d: d <= 1.0, lambda d: d > 1, lambda d: d >= 1,
    lambda d: d.ratio(2.0),  # type: ignore[arg-type]
])
def test_a_bare_number_is_refused_with_the_fix(op: object) -> None:
    with pytest.raises(TypeError, match=r"give the number a unit \(Seconds\(x\).*Seconds\.of\(x, 'ms'\)"):
        op(Seconds(2))  # type: ignore[operator]


def test_no_division_and_no_multiplying_two_durations() -> None:
    with pytest.raises(TypeError):
        Seconds(86_400) / 86_400  # type: ignore[operator]  # the hand conversion: .days
    with pytest.raises(TypeError, match="cannot multiply Seconds by Seconds"):
        Seconds(2) * Seconds(3)  # type: ignore[operator]
    assert Seconds(2) != 2.0  # never equal to a bare number


def test_the_answers_and_the_tools_format_durations_through_the_type() -> None:
    from advisor.conversation.render.book import Book
    from advisor.conversation.tools.format import dur, fmt_seconds

    # the tools pick the unit that reads best: 38.4 ms, 95 s, 50 min, 2.4 hours (8,640 s), 16.3 days (1,411,200 s)
    assert [fmt_seconds(Seconds(x)) for x in (0.0384, 0.004, 95, 3_000, 8_640, 1_411_200)] == [
        "38 ms", "4.00 ms", "95.0 s", "50.0 min", "2.4 hours", "16.3 days"]
    assert fmt_seconds(0.0384) == "38 ms"  # a bare number is seconds there (a tool number's unit "s")
    n = dur("time to first token", Seconds.of(250, "ms"), "test")
    assert n["value"] == 0.25 and n["unit"] == "s" and n["display"] == "250 ms"
    # an answer shows a duration in the unit asked and records it in that unit for the grounding gate
    book = Book()
    assert book.duration("wall", Seconds(1_411_200), "days", "test", 1, suffix="天") == "16.3 天"
    assert book.duration("ttft", Seconds(0.0384), "ms", "test", 0) == "38 ms"
    assert book.duration("run", Seconds(8_640), "h", "test", 1) == "2.4 hours"
    assert [(x.value, x.unit) for x in book.numbers] == [(pytest.approx(16.333333), "days"), (pytest.approx(38.4), "ms"),
                                                         (pytest.approx(2.4), "hours")]
