"""Answer first, in one screen (issue 13), in headless Chromium: a Chinese and an English feasibility question show
their verdict on screen without scrolling at 1280×800 and at 390 px width, and the answer's details sections are
collapsed until clicked. Screenshots go to tests/artifacts/web-first-screen-*.png. Marked `browser` (conftest)."""

from __future__ import annotations

import importlib.util
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, submit, wait_answered

# the page's own scroll to the start of the newest answer (ui/web/page.py SCROLL_TO_ANSWER_JS, issue 15): where it
# exists the verdict must be on screen as the page leaves it; until then the test scrolls the answer's start into
# view itself, as a reader does, and checks that the first screen is then on screen
PAGE_SCROLLS = importlib.util.find_spec("ui.web.page") is not None

QUESTIONS = {
    "en": ("Can Qwen2.5-14B in FP16 fit on one RTX 4090 with 8k context?", r"^(Yes|No|Not as asked)\b",
           "Memory breakdown", "weights"),
    "zh": ("一张 RTX 4090 能跑 Qwen2.5-14B 的 FP16 吗？8k 上下文", r"^(可以|不够|按原样不行)", "显存明细", "权重"),
}
_ANSWERED = """([pattern]) => { const re = new RegExp(pattern); const c = document.querySelector('#chat');
  return c && !c.querySelector('.pending, [aria-busy=true]')
         && [...c.querySelectorAll('strong')].some(s => re.test(s.innerText.trim())); }"""
_TO_ANSWER = """([pattern]) => {
  const re = new RegExp(pattern);
  const strong = [...document.querySelectorAll('#chat strong')].filter(s => re.test(s.innerText.trim())).pop();
  const chat = document.querySelector('#chat');
  window.scrollBy(0, chat.getBoundingClientRect().top);
  let box = strong.parentElement;
  while (box && !(/(auto|scroll)/.test(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight))
    box = box.parentElement;
  if (box) box.scrollTop += strong.getBoundingClientRect().top - box.getBoundingClientRect().top - 40;
}"""
SIZES = {"1280": {"width": 1280, "height": 800}, "390": {"width": 390, "height": 844}}

# the verdict: the first bold phrase of the newest bot message; on screen = inside the window AND inside the chat's
# scrolled area, and the topmost element at its centre is the verdict itself (nothing covers it)
_ON_SCREEN = """([pattern]) => {
  const re = new RegExp(pattern);
  const strong = [...document.querySelectorAll('#chat strong')].filter(s => re.test(s.innerText.trim())).pop();
  if (!strong) return {found: false};
  const r = strong.getBoundingClientRect();
  let box = strong.parentElement;
  while (box && box !== document.body) {
    const st = getComputedStyle(box);
    if (/(auto|scroll)/.test(st.overflowY) && box.scrollHeight > box.clientHeight) break;
    box = box.parentElement;
  }
  const c = box && box !== document.body ? box.getBoundingClientRect() : {top: 0, bottom: innerHeight};
  const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + r.height / 2);
  return {found: true, text: strong.innerText, top: r.top, bottom: r.bottom, height: innerHeight,
          inWindow: r.top >= 0 && r.bottom <= innerHeight, inChat: r.top >= c.top - 1 && r.bottom <= c.bottom + 1,
          uncovered: !!hit && (hit === strong || strong.contains(hit))};
}"""


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lang", list(QUESTIONS))
def test_feasibility_verdict_above_the_fold_and_details_expand(browser_context, web_url, lang, size):
    question, verdict, section, inside = QUESTIONS[lang]
    page = browser_context.new_page()
    try:
        page.set_viewport_size(SIZES[size])
        page.set_default_timeout(20_000)
        page.goto(web_url)
        page.locator("#ask textarea").wait_for()
        submit(page, question)
        wait_answered(page, _ANSWERED, [verdict], f"web-first-screen-{lang}-{size}-timeout")
        page.wait_for_timeout(500)
        if not PAGE_SCROLLS:
            page.evaluate(_TO_ANSWER, [verdict])
            page.wait_for_timeout(200)
        where = page.evaluate(_ON_SCREEN, [verdict])
        page.screenshot(path=str(ARTIFACTS / f"web-first-screen-{lang}-{size}.png"))
        assert where["found"], f"no verdict matching {verdict!r} in the chat"
        assert where["inWindow"] and where["inChat"] and where["uncovered"], f"verdict not on screen: {where}"
        if size == "1280":  # the whole first screen, down to its question, fits the chat at 1280×800
            question_line = page.evaluate(_ON_SCREEN, [r"^(Next question|接下来想确认)"])
            assert question_line["found"] and question_line["inWindow"] and question_line["inChat"], question_line
        # the sections are collapsed, and open on click
        chat = page.locator("#chat")
        details = chat.locator("details")
        assert details.count() >= 3
        assert page.evaluate("() => [...document.querySelectorAll('#chat details')].every(d => !d.open)")
        shown = chat.inner_text()  # rendered, not shown as tags (the copy button keeps the raw text, hidden)
        assert "<details>" not in shown and "<summary>" not in shown and "&lt;" not in shown
        summary = chat.locator("summary", has_text=section).last
        summary.scroll_into_view_if_needed()
        summary.click()
        opened = chat.locator("details[open]").last
        expect(opened).to_contain_text(re.compile(inside + r".*GiB", re.S))
        opened.scroll_into_view_if_needed()
        page.wait_for_timeout(200)
        page.screenshot(path=str(ARTIFACTS / f"web-first-screen-{lang}-{size}-details.png"))
    finally:
        page.close()
