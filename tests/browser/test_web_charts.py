"""The charts of issue 30 in headless Chromium at 1280×800 and 390×844, English and Chinese: the price-vs-throughput
chart labels every point with its configuration (labels not overlapping one another), keeps its legend inside the
drawing and its x tick labels apart on the phone; the memory chart's legend names the current turn's parts (KV cache
for serving; weights, gradients, optimizer states, activations for training after "New conversation") in the
interface's language, switching with it, inside the drawing; a market answer that sizes nothing shows neither chart.
Screenshots: tests/artifacts/charts-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_web_page_defects import CASES, QUESTION, TRAINING, _answer, fresh_page  # noqa: F401
from ui.web.messages import PART_LABELS

MARKET = {"en": "Can I still buy H100 in China?", "zh": "国内现在还能买 H100 吗？"}
OTHER = {"en": "zh", "zh": "en"}
TOGGLE = {"en": "English", "zh": "中文"}
COST_TAB = {"en": "Price vs throughput", "zh": "价格与吞吐"}

BOXES = """(sel) => [...document.querySelectorAll(sel)].filter(e => e.getBoundingClientRect().width > 0).map(e => {
  const r = e.getBoundingClientRect(); return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom, text: e.textContent}; })"""


def _boxes(page, sel):
    return page.evaluate(BOXES, sel)


def _overlaps(boxes, slack=0.5):
    """Pairs of boxes that overlap by more than `slack` px each way."""
    return [(a["text"], b["text"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
            if min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > slack
            and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack]


def _inside(inner, outer):
    return (inner["x0"] >= outer["x0"] - 0.5 and inner["x1"] <= outer["x1"] + 0.5
            and inner["y0"] >= outer["y0"] - 0.5 and inner["y1"] <= outer["y1"] + 0.5)


def _parts(lang, *names):
    return [PART_LABELS[n][lang] for n in names]


def _check_cost_chart(page, lang, size, step):
    tab = page.locator("#result-col button[role='tab']", has_text=COST_TAB[lang])
    if tab.count():
        tab.click()
    else:  # a phone's narrow tab bar puts it under "More tabs"
        page.locator("#result-col .overflow-menu > button").click()
        page.locator("#result-col .overflow-dropdown button", has_text=COST_TAB[lang]).click()
    svg = page.locator("#cost-plot svg")
    expect(svg).to_be_visible()
    svg.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"charts-{size}-{lang}-{step}-cost.png"))
    frame = _boxes(page, "#cost-plot svg")[0]
    block = _boxes(page, "#cost-plot")[0]
    labels = _boxes(page, "#cost-plot .point-label")
    legend = _boxes(page, "#cost-plot .legend-item")
    ticks = _boxes(page, "#cost-plot .x-tick")
    assert len(labels) >= 2 and len(labels) == len(legend) == len(_boxes(page, "#cost-plot .point")), labels
    assert all("×" in b["text"] for b in labels), [b["text"] for b in labels]  # "4× RTX 4090"
    table = page.locator("#options-table").inner_text()
    for b in labels:  # the configuration of a row of this turn's table
        # a long name is cut with "…" (its start is still the table's name)
        assert b["text"].split("× ", 1)[1].split(" (")[0].rstrip("…") in table, (b["text"], table[:300])
    assert not _overlaps(labels), _overlaps(labels)
    for b in legend + labels + ticks:  # nothing cut off: inside the drawing and the drawing inside its panel
        assert _inside(b, frame), (b, frame)
    assert _inside(frame, block), (frame, block)
    assert 2 <= len(ticks) <= 5 and not _overlaps(ticks, slack=0), ticks
    if size == "phone":
        assert min(b["y1"] - b["y0"] for b in labels) >= 10, "point labels too small to read on the phone"
    return [b["text"] for b in labels]


def _memory_legend(page):
    return page.locator("#memory-chart").inner_text()


@pytest.mark.parametrize("fresh_page", CASES, indirect=True, ids=[f"{s}-{lang}" for s, lang in CASES])
def test_charts_describe_the_turn(fresh_page):  # noqa: F811 (the imported fixture)
    size, lang, page, url = fresh_page
    page.goto(url)
    page.locator("#ask textarea").wait_for()
    expect(page.locator("#cost-plot svg")).to_have_count(0)  # nothing drawn before a question

    _answer(page, QUESTION[lang], lang)
    kv, grads = _parts(lang, "kv_cache", "gradients")
    expect(page.locator("#memory-chart")).to_contain_text(kv)  # drawn once the panel refresh is in
    legend = _memory_legend(page)
    assert kv in legend and grads not in legend, legend
    serving = _check_cost_chart(page, lang, size, "serving")

    # the interface's language switches the legend and the chart's words with it
    other = OTHER[lang]
    page.locator("#ui-lang label", has_text=TOGGLE[other]).click()
    expect(page.locator("#memory-chart")).to_contain_text(_parts(other, "kv_cache")[0])
    page.wait_for_timeout(500)
    assert kv not in _memory_legend(page) or kv == _parts(other, "kv_cache")[0]
    title = page.locator("#cost-plot .x-title").text_content()
    assert ("采购价" in title) == (other == "zh"), title
    page.locator("#ui-lang label", has_text=TOGGLE[lang]).click()
    expect(page.locator("#memory-chart")).to_contain_text(kv)

    # "New conversation", then a training question: the training parts, no KV cache, this turn's options
    page.locator("#new-conversation").click()
    expect(page.locator("#chat .message-row")).to_have_count(0)
    _answer(page, TRAINING[lang], lang)
    expect(page.locator("#memory-chart")).to_contain_text(grads)
    legend = _memory_legend(page)
    for part in _parts(lang, "weights", "gradients", "optimizer_states", "activations"):
        assert part in legend, (part, legend)
    assert kv not in legend, legend
    page.locator("#memory-chart").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / f"charts-{size}-{lang}-training-memory.png"))
    frame, items = _boxes(page, "#memory-chart svg")[0], _boxes(page, "#memory-chart .legend-item")
    assert len(items) >= 5 and all(_inside(b, frame) for b in items), (items, frame)  # the legend is not cut off
    assert _inside(frame, _boxes(page, "#memory-chart")[0])
    assert not _overlaps(_boxes(page, "#memory-chart .bar-label"), slack=0)  # the bars' names apart
    training = _check_cost_chart(page, lang, size, "training")
    assert training != serving

    # a market answer in a new conversation sizes nothing: no chart at all, not an empty one with a full legend
    page.locator("#new-conversation").click()
    expect(page.locator("#chat .message-row")).to_have_count(0)
    _answer(page, MARKET[lang], lang)
    expect(page.locator("#memory-chart")).to_be_hidden()
    expect(page.locator("#cost-plot svg")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / f"charts-{size}-{lang}-market.png"), full_page=True)
