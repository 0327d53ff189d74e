"""The page as people see it, at 1280×800 and at 390 px (a phone), in English and Chinese: after sending, the
first line of the new answer is in the viewport and not under the chat's "Conversation" label; no table cell
(chat or side panel) narrower than four characters wraps; the layout stacks on the phone; screenshots in
tests/artifacts/layout-*.png. Measurements run in the page (tests/browser/layout.js)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_web_browser import _ask

MEASURE = (Path(__file__).with_name("layout.js")).read_text(encoding="utf-8")
QUESTIONS = {
    "en": ["Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users — which GPUs?",
           "what about a budget of $400,000?"],
    "zh": ["部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，预算 30 万元，国内", "上下文改成 16k 呢？"],
}
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def _measure(page, name):
    return page.evaluate(f"() => ({MEASURE}).{name}()")


@pytest.fixture
def sized_page(browser_context, web_url, request):
    width, height = SIZES[request.param]
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.set_default_timeout(20_000)
    page.goto(web_url)
    page.locator("#ask textarea").wait_for()
    yield request.param, page
    page.close()


@pytest.mark.parametrize("sized_page", list(SIZES), indirect=True)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_answer_top_in_view_and_no_cell_wraps_letter_by_letter(sized_page, lang):
    size, page = sized_page
    if lang == "zh":
        page.get_by_text("中文", exact=True).click()
        expect(page.locator("#send")).to_have_text("发送")
    for i, question in enumerate(QUESTIONS[lang]):
        _ask(page, question)
        page.wait_for_timeout(600)  # the scroll runs after the answer is drawn
        line = _measure(page, "firstLine")
        assert line, "no answer found"
        where = f"{size} {lang} turn {i + 1}: {line}"
        assert 0 <= line["top"] and line["bottom"] <= line["vh"], where  # the first line is on screen
        assert line["logTop"] <= line["top"] and line["bottom"] <= line["logBottom"], where  # inside the chat's view
        if line["labelBottom"] is not None:
            assert line["top"] >= line["labelBottom"], where  # not hidden under the "Conversation" label
    page.screenshot(path=str(ARTIFACTS / f"layout-{size}-{lang}.png"))
    cells = _measure(page, "narrowWrapped")
    assert cells["seen"] > 10 and cells["bad"] == [], cells  # the chat's and the side panel's tables were measured
    steps = page.locator("#chat .thought-group")
    assert steps.count() == len(QUESTIONS[lang])  # one collapsed "how this was computed" element per answer
    assert "estimate_memory" not in page.locator("#chat").inner_text()  # the tool steps stay folded
    if size == "desktop":  # the answer's own table (not a folded detail) shows all its columns without scrolling
        widths = page.evaluate("""() => [...document.querySelectorAll('#chat .bot-row table')]
            .filter(t => !t.closest('details')).map(t => [t.scrollWidth, t.clientWidth])""")
        assert widths and all(sw <= cw + 1 for sw, cw in widths), widths
    if size == "phone":  # stacked: the side panel is below the chat, not beside it
        chat, panel = page.locator("#chat").bounding_box(), page.locator("#result-col").bounding_box()
        assert panel["y"] >= chat["y"] + chat["height"] and panel["width"] >= 300
        assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # nothing runs off the side
        bubble = page.locator("#chat .message-row.bot-row").last.bounding_box()
        assert bubble["width"] >= 0.8 * 390, bubble  # the answer gets most of the phone's width (not 264 px of 390)
    page.screenshot(path=str(ARTIFACTS / f"layout-{size}-{lang}-full.png"), full_page=True)
