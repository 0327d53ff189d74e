"""The price-vs-throughput chart as an inline SVG drawn here, not by the browser's plotting library: each point is
labelled with its configuration ("4× H200"), the labels are placed clear of one another where the plot has room,
the legend (rank, colour, configuration) sits inside the drawing below the axes, and the axes carry at most five
ticks in compact units ("$12k", "1.2 万 CNY" in Chinese), so a phone's narrow column does not overlap them.

Input: `ui.web.panels.cost_throughput_rows` ({"option": "1. 4× H200", "price", "currency", "tokens_per_s"}), all in
one currency. A scale is logarithmic when its values span more than `LOG_SPAN`× (a 4× RTX 3090 box and a B200
server differ ~30× in price), else linear from zero. No rows: an empty string (the page hides the chart).
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from knowledge.messages import t as message
from ui.web.panels import money_axis_title

W = 340  # the drawing's width in its own units; the page scales it to the column (CSS max-width below)
FONT = 13
PLOT_LEFT, PLOT_RIGHT, PLOT_TOP, PLOT_HEIGHT = 46, 10, 14, 220
LOG_SPAN = 8.0
MAX_TICKS = 5
COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
          "#bab0ac")
SPEED_AXIS = "tokens/s"  # the y axis in every language: a unit
SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥"}


def text_width(text: str, size: float = FONT) -> float:
    """Estimated drawn width of `text`, on the wide side: CJK, full-width characters, "×" and "…" (full-width in the
    Chinese fonts a zh page draws with) one em, others 0.62 em (sans-serif digits and capitals)."""
    return sum(size if ord(c) > 0x2E80 or c in "×…" else 0.62 * size for c in text)


def short_config(name: str) -> str:
    """A configuration's name for a chart label: without the vendor's brand words and the parenthetical form factor
    ("4× NVIDIA B200 (HGX, 180GB)" → "4× B200"); the legend or tooltip keeps the whole name."""
    for word in ("NVIDIA ", "GeForce ", "AMD Instinct ", "Huawei ", "Intel ", "Apple "):
        name = name.replace(word, "")
    return re.sub(r"\s*\([^)]*\)", "", name).strip()


def fit_text(text: str, max_width: float, size: float = FONT) -> str:
    """`text` cut at the end with "…" so its estimated width stays within `max_width` (long catalog names such as
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition 96GB" in a phone-wide legend)."""
    if text_width(text, size) <= max_width:
        return text
    cut = text
    while cut and text_width(cut + "…", size) > max_width:
        cut = cut[:-1]
    return cut.rstrip() + "…"


def compact(value: float, lang: str = "en") -> str:
    """A short axis number: 1.2k, 35k, 1.5M in English; 1.2k and, from ten thousand, 3.5万 / 1.2亿 in Chinese."""
    def short(v: float) -> str:
        return f"{v:.1f}".rstrip("0").rstrip(".") if v < 10 else f"{v:.0f}"

    a = abs(value)
    if lang == "zh" and a >= 1e4:
        return short(value / 1e8) + "亿" if a >= 1e8 else short(value / 1e4) + "万"
    if a >= 1e6:
        return short(value / 1e6) + "M"
    if a >= 1e3:
        return short(value / 1e3) + "k"
    return short(value)


def money_tick(value: float, currency: str, lang: str) -> str:
    """"$12k" (the currency's symbol in front when it has one); "12k" otherwise (the axis title names it)."""
    symbol = SYMBOLS.get(currency, "")
    return f"{symbol}{compact(value, lang)}" if symbol else compact(value, lang)


def linear_ticks(hi: float, count: int = MAX_TICKS) -> list[float]:
    """0 and round steps (1, 2, 2.5 or 5 × 10^k) up to at least `hi`, at most `count` ticks."""
    hi = hi if hi > 0 else 1.0
    raw = hi / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    n = math.ceil(hi / step - 1e-9)
    return [i * step for i in range(n + 1)]


def log_ticks(lo: float, hi: float, count: int = MAX_TICKS) -> list[float]:
    """1-2-5 × 10^k ticks from the decade below `lo` to the one above `hi`, thinned (first the 2s, then the 5s,
    then every other decade) to at most `count` inside the range."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for mantissas in ((1, 2, 5), (1, 5), (1,)):
        ticks = [m * 10.0 ** e for e in range(a, b + 1) for m in mantissas]
        ticks = [t for t in ticks if lo / 1.0001 <= t <= hi * 1.0001]
        if len(ticks) <= count:
            return ticks or [10.0 ** a]
    decades = [10.0 ** e for e in range(a, b + 1) if lo / 1.0001 <= 10.0 ** e <= hi * 1.0001]
    step = math.ceil(len(decades) / count)
    return decades[::step]


class Scale:
    """Value → drawing coordinate over [lo, hi] onto [start, end]; logarithmic when the values span > LOG_SPAN×."""

    def __init__(self, values: Sequence[float], start: float, end: float) -> None:
        lo, hi = min(values), max(values)
        self.log = lo > 0 and hi / lo > LOG_SPAN
        if self.log:
            self.lo, self.hi = lo / 1.35, hi * 1.35  # room for the points' labels at both ends
            self.ticks = log_ticks(self.lo, self.hi)
        else:
            self.ticks = linear_ticks(hi * 1.08)
            self.lo, self.hi = 0.0, self.ticks[-1]
        self.start, self.end = start, end

    def __call__(self, v: float) -> float:
        if self.log:
            f = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            f = (v - self.lo) / ((self.hi - self.lo) or 1.0)
        return self.start + f * (self.end - self.start)


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _overlap(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def place_labels(points: Sequence[tuple[float, float, str]], area: Box, size: float = FONT) -> list[Box]:
    """A box for each point's label: the first of eight spots around the point (right, left, above, below, then the
    diagonals) that stays inside `area` and clear of the labels placed so far and of every point; where none is
    clear, the spot with the least overlap. Points are placed in the order given (the ranking's)."""
    r, gap, h = 4.5, 4.0, 1.5 * size  # a CJK font's line box is ~1.45 em tall
    dots = [(x - r, y - r, x + r, y + r) for x, y, _ in points]
    placed: list[Box] = []
    for x, y, text in points:
        w = text_width(text, size)
        spots = [(x + gap + r, y - h / 2), (x - gap - r - w, y - h / 2), (x - w / 2, y - r - gap - h),
                 (x - w / 2, y + r + gap), (x + r, y - r - h), (x + r, y + r), (x - r - w, y + r),
                 (x - r - w, y - r - h)]
        for k in (1, 2, 3, 4, 5):  # farther out, above and below (drawn with a leader line to the point)
            spots += [(x - w / 2, y - r - gap - h - k * h), (x - w / 2, y + r + gap + k * h),
                      (x + r, y - r - h - k * h), (x + r, y + r + k * h), (x - r - w, y + r + k * h),
                      (x - r - w, y - r - h - k * h)]
        def cost_of(sx: float, sy: float, w: float = w) -> tuple[float, Box]:
            box = (sx, sy, sx + w, sy + h)
            outside = (max(0.0, area[0] - box[0]) + max(0.0, box[2] - area[2]) + max(0.0, area[1] - box[1])
                       + max(0.0, box[3] - area[3])) * h * 4
            pad = (box[0] - 1.5, box[1] - 1.5, box[2] + 1.5, box[3] + 1.5)  # a little air between labels
            return outside + sum(_overlap(pad, o) for o in placed) + sum(_overlap(box, d) for d in dots), box

        best: tuple[float, Box] | None = None
        for sx, sy in spots:
            found = cost_of(sx, sy)
            if best is None or found[0] < best[0]:
                best = found
            if found[0] == 0:
                break
        assert best is not None
        if best[0] > 0:  # crowded: the clear spot anywhere in the area nearest the point (a leader line joins them)
            grid = [(area[0] + i * w / 4, area[1] + j * h / 2) for i in range(int((area[2] - area[0]) // (w / 4)) + 1)
                    for j in range(int((area[3] - area[1]) // (h / 2)) + 1)]
            clear = [box for c, box in (cost_of(gx, gy) for gx, gy in grid) if c == 0]
            if clear:
                best = (0.0, min(clear, key=lambda b: math.hypot((b[0] + b[2]) / 2 - x, (b[1] + b[3]) / 2 - y)))
        placed.append(best[1])
    return placed


def legend_items(names: Sequence[str], top: float, colors: Sequence[str] = COLORS) -> tuple[list[str], float]:
    """Legend items (swatch and "1. 4× H200") flowed into rows across the drawing's width; returns the SVG
    elements and the height used."""
    out, x, y, row_h = [], float(PLOT_LEFT - 40), top, FONT + 8
    room = W - 4 - (PLOT_LEFT - 40) - 28  # the widest a name may be drawn on one row
    for i, full in enumerate(names):
        name = fit_text(full, room)
        w = 14 + text_width(name) + 14
        if x + w > W - 4 and x > PLOT_LEFT - 40:
            x, y = float(PLOT_LEFT - 40), y + row_h
        color = colors[i % len(colors)]
        out.append(f'<g class="legend-item"><circle cx="{x + 5:.1f}" cy="{y + FONT / 2 + 1:.1f}" r="5" '
                   f'fill="{color}"/><text x="{x + 14:.1f}" y="{y + FONT:.1f}">{html.escape(name)}'
                   f'<title>{html.escape(full)}</title></text></g>')
        x += w
    return out, (y - top) + row_h if names else 0.0


def cost_chart_html(rows: Sequence[Mapping[str, Any]], lang: str = "en") -> str:
    """The chart as an `<svg>` (inside a div for the page's CSS), or "" when no option has a price and a
    throughput. The axis titles name the currency and say when a scale is logarithmic."""
    rows = [r for r in rows if isinstance(r.get("price"), (int, float)) and isinstance(r.get("tokens_per_s"),
                                                                                          (int, float))
            and r["price"] > 0 and r["tokens_per_s"] > 0]
    if not rows:
        return ""
    lang = "zh" if lang == "zh" else "en"
    log = message("web.chart.log_scale", lang)
    currency = str(rows[0].get("currency") or "")
    x0, x1, y0, y1 = PLOT_LEFT, W - PLOT_RIGHT, PLOT_TOP, PLOT_TOP + PLOT_HEIGHT
    xs = Scale([float(r["price"]) for r in rows], x0, x1)
    ys = Scale([float(r["tokens_per_s"]) for r in rows], y1, y0)
    parts: list[str] = [f'<rect class="plot-area" x="{x0}" y="{y0}" width="{x1 - x0}" height="{y1 - y0}" '
                        'fill="none" stroke="#ccc"/>']
    for t in xs.ticks:
        x, tick = xs(t), money_tick(t, currency, lang)
        half = text_width(tick) / 2
        at = min(max(x, half + 2), W - half - 2)  # the first and last stay inside the drawing
        parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" stroke="#eee"/>'
                     f'<text class="x-tick" x="{at:.1f}" y="{y1 + FONT + 4}" text-anchor="middle">'
                     f'{html.escape(tick)}</text>')
    for t in ys.ticks:
        y = ys(t)
        parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#eee"/>'
                     f'<text class="y-tick" x="{x0 - 5}" y="{y + FONT / 2 - 1:.1f}" text-anchor="end">'
                     f'{html.escape(compact(t, "en"))}</text>')
    x_title = money_axis_title(rows, lang) + (log if xs.log else "")
    y_title = SPEED_AXIS + (log if ys.log else "")
    parts.append(f'<text class="x-title" x="{(x0 + x1) / 2:.1f}" y="{y1 + 2 * FONT + 10}" text-anchor="middle">'
                 f'{html.escape(x_title)}</text>')
    parts.append(f'<text class="y-title" transform="translate(12 {(y0 + y1) / 2:.1f}) rotate(-90)" '
                 f'text-anchor="middle">{html.escape(y_title)}</text>')
    names = [str(r.get("option") or "?") for r in rows]
    configs = [n.split(". ", 1)[1] if ". " in n and n.split(". ", 1)[0].isdigit() else n for n in names]
    # a point's label: the configuration without the vendor's words, cut to half the plot's width (the legend and
    # the tooltip give the whole name)
    configs = [fit_text(short_config(c), (x1 - x0) / 2) for c in configs]
    points = [(xs(float(r["price"])), ys(float(r["tokens_per_s"])), c) for r, c in zip(rows, configs, strict=True)]
    boxes = place_labels(points, (x0 + 1, y0 + 1, x1 - 1, y1 - 1))
    for i, ((x, y, config), box, r) in enumerate(zip(points, boxes, rows, strict=True)):
        tip = f"{names[i]}: {float(r['price']):,.0f} {currency}, {float(r['tokens_per_s']):,.0f} tokens/s"
        parts.append(f'<g class="point"><title>{html.escape(tip)}</title><circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" '
                     f'fill="{COLORS[i % len(COLORS)]}" stroke="#fff"/></g>')
        cx, cy = min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])
        if math.hypot(cx - x, cy - y) > 12:  # a label set away from its point: a thin line joins them
            parts.append(f'<line class="leader" x1="{x:.1f}" y1="{y:.1f}" x2="{cx:.1f}" y2="{cy:.1f}" '
                         f'stroke="{COLORS[i % len(COLORS)]}" stroke-width="0.8"/>')
        parts.append(f'<text class="point-label" x="{box[0]:.1f}" y="{box[1] + 1.17 * FONT:.1f}">{html.escape(config)}</text>')
    legend, legend_h = legend_items(names, y1 + 2 * FONT + 22)
    height = y1 + 2 * FONT + 22 + legend_h + 4
    body = "".join(parts) + f'<g class="legend">{"".join(legend)}</g>'
    return (f'<div class="cost-chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height:.0f}" '
            f'role="img" aria-label="{html.escape(x_title)} / {html.escape(y_title)}" font-size="{FONT}" '
            f'font-family="sans-serif" fill="currentColor" style="width:100%;max-width:420px;height:auto;'
            f'display:block">{body}</svg></div>')
