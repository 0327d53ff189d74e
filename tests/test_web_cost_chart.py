"""The price-vs-throughput chart's SVG (ui/web/cost_chart.py): compact tick words, round ticks, labels placed apart,
every point labelled with its configuration, nothing drawn without data, and the panels' charts only for the
current turn (ui/web/chat.py)."""

from __future__ import annotations

import re

import pytest

from ui.web.cost_chart import W, compact, cost_chart_html, linear_ticks, log_ticks, money_tick, place_labels

ROWS = [{"option": "1. 4× RTX 4090", "price": 10461.7, "currency": "USD", "tokens_per_s": 517.7},
        {"option": "2. 4× RTX 3090", "price": 5661.7, "currency": "USD", "tokens_per_s": 463.0},
        {"option": "3. 4× RTX 5090", "price": 10857.7, "currency": "USD", "tokens_per_s": 783.6},
        {"option": "4. 4× B200 (HGX, 180GB)", "price": 192010.0, "currency": "USD", "tokens_per_s": 1692.9},
        {"option": "5. 4× RTX 3090 Ti", "price": 6261.7, "currency": "USD", "tokens_per_s": 488.7},
        {"option": "6. 4× RTX A6000 <b>", "price": 14061.7, "currency": "USD", "tokens_per_s": 465.9}]


@pytest.mark.parametrize(("value", "lang", "text"), [
    (0, "en", "0"), (500, "en", "500"), (1500, "en", "1.5k"), (35_000, "en", "35k"), (1_200_000, "en", "1.2M"),
    (35_000, "zh", "3.5万"), (1_200_000, "zh", "120万"), (250_000_000, "zh", "2.5亿"), (2000, "zh", "2k")])
def test_compact(value, lang, text):
    assert compact(value, lang) == text


def test_money_ticks_carry_the_symbol():
    assert money_tick(50_000, "USD", "en") == "$50k"
    assert money_tick(100_000, "CNY", "zh") == "¥10万"
    assert money_tick(100_000, "XYZ", "en") == "100k"  # no symbol: the axis title names the currency


def test_ticks_are_round_and_few():
    assert linear_ticks(1700) == [0, 500, 1000, 1500, 2000]
    assert linear_ticks(0.9) == [0, 0.25, 0.5, 0.75, 1.0]
    assert log_ticks(4000, 260_000) == [5000, 10_000, 50_000, 100_000]  # 2s dropped: 1-2-5 would be 7 ticks
    assert log_ticks(1, 1e9) == [1, 100, 10_000, 1e6, 1e8]


def test_labels_apart_where_there_is_room():
    pts = [(100.0 + 3 * i, 100.0, f"{i}× RTX 4090") for i in range(5)]  # five points nearly on top of each other
    boxes = place_labels(pts, (0, 0, 400, 240))
    for i, a in enumerate(boxes):
        assert 0 <= a[0] and a[2] <= 400 and 0 <= a[1] and a[3] <= 240
        for b in boxes[i + 1:]:
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1]), (a, b)


def test_every_point_labelled_with_its_configuration():
    svg = cost_chart_html(ROWS, "en")
    labels = re.findall(r'class="point-label"[^>]*>([^<]*)<', svg)
    assert labels == ["4× RTX 4090", "4× RTX 3090", "4× RTX 5090", "4× B200", "4× RTX 3090 Ti",
                      "4× RTX A6000 &lt;b&gt;"]  # names escaped
    assert len(re.findall(r'class="legend-item"', svg)) == 6
    ticks = re.findall(r'class="x-tick"[^>]*>([^<]*)<', svg)
    assert 2 <= len(ticks) <= 5 and all(t.startswith("$") for t in ticks), ticks
    assert "purchase price (USD) (log scale)" in svg  # 5.7k to 192k: a 34× span
    xs = [float(x) for x in re.findall(r'<text class="(?:point-label|x-tick)" x="([\d.]+)"', svg)]
    assert min(xs) >= 0 and max(xs) <= W


def test_chinese_words_and_no_chart_without_data():
    svg = cost_chart_html([dict(r, currency="CNY", price=r["price"] * 7.2) for r in ROWS], "zh")
    assert "采购价 (CNY)（对数坐标）" in svg and "¥" in svg
    assert cost_chart_html([], "en") == ""
    assert cost_chart_html([{"option": "1. x", "price": None, "tokens_per_s": 3}], "en") == ""


def test_panels_draw_only_the_current_turn(tmp_path):
    """A turn that sized nothing after one that did: the table stays, the charts go (they describe the turn)."""
    from types import SimpleNamespace

    from ui.web.chat import ChatController, SessionState
    from ui.web.exports import ExportStore

    ctl = ChatController(exports=ExportStore(str(tmp_path)), sweep=lambda turn: None)
    opt = {"gpu": "h100-sxm", "gpu_name": "NVIDIA H100 SXM", "count": 2, "fits": True,
           "per_gpu_bytes": {"weights": 2**34, "kv_cache": 2**33, "total": 3 * 2**33},
           "throughput": {"decode_tokens_per_s": 900.0},
           "price": {"amount": 25_000, "currency": "USD"}, "purchase": {"amount": 60_000, "currency": "USD"}}
    sized = SimpleNamespace(options=[opt], memory=None, findings=[])
    st = SessionState()
    st.last_result = st.last_turn = sized
    p = ctl.panels(st, "en")
    assert p["memory"] and {r["part"] for r in p["memory"]} >= {"weights", "KV cache"}
    st.last_turn = SimpleNamespace(options=[], memory=None, findings=[])  # a market answer
    p = ctl.panels(st, "en")
    assert p["memory"] == [] and p["cost"] == [] and p["context"] == [] and p["table"]["data"]


def test_memory_chart_legend_names_only_the_turns_parts():
    """Training bars: the legend lists weights, gradients, optimizer states (no KV cache), in the rows' language and
    the parts' order; bar heights are GiB × the axis scale (hand check: 40 GiB with 2% headroom needs steps of 20,
    so the axis runs 0-60 and the bar is 40/60 of the plot's height)."""
    from ui.web.layout import color_map
    from ui.web.memory_chart import PLOT_HEIGHT, memory_chart_html, wrap

    rows = [{"option": "1. 1× H100 SXM", "part": p, "GiB": g, "order": o}
            for p, g, o in (("剩余（至容量）", 10.0, 6), ("优化器状态", 12.0, 4), ("梯度", 6.0, 3), ("权重", 12.0, 0))]
    svg = memory_chart_html(rows, color_map(), title="单卡显存", caption="说明", y_title="单卡 GiB")
    legend = re.findall(r'class="legend-item">.*?<text[^>]*>([^<]*)<', svg)
    assert legend == ["权重", "梯度", "优化器状态", "剩余（至容量）"] and "KV" not in svg
    heights = [float(h) for h in re.findall(r'class="segment"[^>]*height="([\d.]+)"', svg)]
    assert sum(heights) == pytest.approx(PLOT_HEIGHT * 40 / 60, abs=0.3)
    assert re.findall(r'class="y-tick"[^>]*>([^<]*)<', svg) == ["0", "20", "40", "60"]
    assert memory_chart_html([], color_map()) == ""
    assert wrap("4. 32× Tesla V100 SXM2 16GB", 50) == ["4. 32×", "Tesla", "V100", "SXM2", "16GB"]
    # a name longer than five lines: the fifth is cut to the bar's width, not run under the next bars' labels
    from ui.web.cost_chart import text_width
    long = wrap("1. 4× RTX PRO 6000 Blackwell Max-Q Workstation Edition 96GB", 60)
    assert len(long) == 5 and long[-1].endswith("…") and text_width(long[-1], 11) <= 60, long


def test_crowded_points_still_get_labels_that_do_not_overlap() -> None:
    """Three to six configurations priced and performing alike (a cluster of points): when no spot around a point
    is clear, its label goes to the nearest clear spot of the plot (with a leader line), never over another label
    (300 seeded clusters; the near spots alone left 18 of them overlapping)."""
    import random

    from ui.web.cost_chart import _overlap, place_labels

    rng = random.Random(1)
    names = ["RTX 5090 D V2", "Ascend 910C 128GB", "H20", "RTX PRO 6000 Blackwell", "L20"]
    for _ in range(300):
        n = rng.randint(3, 6)
        cx, cy = rng.uniform(60, 300), rng.uniform(20, 200)
        points = [(cx + rng.uniform(-15, 15), cy + rng.uniform(-10, 10), f"{rng.choice([1, 2, 4, 8])}× {rng.choice(names)}")
                  for _ in range(n)]
        boxes = place_labels(points, (40, 10, 380, 230))
        assert not [(i, j) for i in range(n) for j in range(i + 1, n) if _overlap(boxes[i], boxes[j]) > 0.25], points
