"""The memory chart as an inline SVG drawn here: one stacked bar per ranked option (per-GPU GiB by part, weights at
the bottom, "free" topping the bar up to the card's capacity), the options' names wrapped under their bars, and a
legend of only the parts this turn's bars have, flowed into rows inside the drawing (a phone's column cannot cut it
off), in the rows' language. Input: `ui.web.panels.memory_chart_rows` ({"option", "part", "GiB", "order"}).
No rows: an empty string (the page hides the chart).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from ui.web.cost_chart import (
    FONT,
    PLOT_LEFT,
    PLOT_TOP,
    W,
    compact,
    fit_text,
    legend_items,
    linear_ticks,
    short_config,
    text_width,
)

PLOT_HEIGHT = 190
BAR_FONT = 11


def wrap(text: str, width: float, size: float = BAR_FONT, lines: int = 5) -> list[str]:
    """`text` broken between words into at most `lines` lines of about `width`; the last one takes the rest, cut
    with "…" to the width (a long name such as "RTX PRO 6000 Blackwell Max-Q Workstation Edition 96GB" would
    otherwise run under its neighbours' labels)."""
    out: list[str] = []
    for word in text.split():
        if out and len(out) <= lines and text_width(out[-1] + " " + word, size) <= width:
            out[-1] += " " + word
        elif len(out) < lines:
            out.append(word)
        else:
            out[-1] += " " + word
    if out:
        out[-1] = fit_text(out[-1], width, size)
    return out


def memory_chart_html(rows: Sequence[Mapping[str, Any]], colors: Mapping[str, str], *, title: str = "",
                      caption: str = "", y_title: str = "GiB") -> str:
    """The chart (title, SVG, caption) as HTML, or "" when there are no bars. `colors` maps each part's label (in
    the rows' language) to its colour, in the order the legend lists them."""
    bars: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        if isinstance(r.get("GiB"), (int, float)) and r["GiB"] > 0:
            bars.setdefault(str(r.get("option")), []).append(r)
    if not bars:
        return ""
    x0, x1, y0, y1 = PLOT_LEFT, W - 8, PLOT_TOP, PLOT_TOP + PLOT_HEIGHT
    top = max(sum(float(p["GiB"]) for p in parts) for parts in bars.values())
    ticks = linear_ticks(top * 1.02)
    scale = (y1 - y0) / (ticks[-1] or 1.0)
    out = [f'<line x1="{x0}" y1="{y1}" x2="{x1}" y2="{y1}" stroke="#bbb"/>']
    for t in ticks:
        y = y1 - t * scale
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text class="y-tick" x="{x0 - 5}" y="{y + FONT / 2 - 1:.1f}" text-anchor="end">'
                   f'{html.escape(compact(t))}</text>')
    out.append(f'<text class="y-title" transform="translate(12 {(y0 + y1) / 2:.1f}) rotate(-90)" '
               f'text-anchor="middle">{html.escape(y_title)}</text>')
    slot = (x1 - x0) / len(bars)
    bar_w = min(56.0, slot * 0.62)
    label_lines = 0
    for i, (name, parts) in enumerate(bars.items()):
        cx, base = x0 + slot * (i + 0.5), float(y1)
        for p in sorted(parts, key=lambda p: p.get("order", 0)):
            h = float(p["GiB"]) * scale
            tip = f"{name} · {p.get('part')}: {float(p['GiB']):,.1f} GiB"
            out.append(f'<rect class="segment" x="{cx - bar_w / 2:.1f}" y="{base - h:.1f}" width="{bar_w:.1f}" '
                       f'height="{h:.1f}" fill="{colors.get(str(p.get("part")), "#999")}" stroke="#fff" '
                       f'stroke-width="0.5"><title>{html.escape(tip)}</title></rect>')
            base -= h
        lines = wrap(short_config(name), slot - 4)
        label_lines = max(label_lines, len(lines))
        spans = "".join(f'<tspan x="{cx:.1f}" dy="{BAR_FONT + 3 if k else BAR_FONT + 4}">{html.escape(line)}</tspan>'
                        for k, line in enumerate(lines))
        out.append(f'<text class="bar-label" y="{y1}" text-anchor="middle" font-size="{BAR_FONT}">{spans}</text>')
    present = {str(r.get("part")) for parts in bars.values() for r in parts}
    names = [part for part in colors if part in present]
    legend, legend_h = legend_items(names, y1 + label_lines * (BAR_FONT + 3) + 14, [colors[n] for n in names])
    height = y1 + label_lines * (BAR_FONT + 3) + 14 + legend_h + 4
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height:.0f}" role="img" '
           f'aria-label="{html.escape(title)}" font-size="{FONT}" font-family="sans-serif" fill="currentColor" '
           f'style="width:100%;max-width:420px;height:auto;display:block">{"".join(out)}'
           f'<g class="legend">{"".join(legend)}</g></svg>')
    head = f'<div class="chart-title">{html.escape(title)}</div>' if title else ""
    foot = f'<p class="chart-caption">{html.escape(caption)}</p>' if caption else ""
    return f'<div class="memory-chart">{head}{svg}{foot}</div>'
