"""The page defects of issue 30, in headless Chromium at 1280×800 and 390×844, English and Chinese (the browser's
own language set to each): the page loads at its top with the title, the language toggle, the input and "New
conversation" in view; the browser's language (navigator.languages) picks the interface language on the first visit and a reload keeps
it (cookie and ?lang=); no English label and no rule id in the Chinese view; the user's question stays in view
when the answer arrives; the chat's trash icon starts a new conversation (a follow-up no longer continues the old
one) and the memory chart's legend then describes the new turn. Screenshots: tests/artifacts/page-*.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, submit

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
LOCALES = {"en": "en-US", "zh": "zh-CN"}
SEND = {"en": "Send", "zh": "发送"}
QUESTION = {"en": "Serve Qwen2.5-14B to 20 users with 8k context — which GPUs and what will it cost?",
            "zh": "给 20 个用户部署 Qwen2.5-14B，8k 上下文，用什么卡，多少钱？"}
TRAINING = {"en": "LoRA fine-tune Llama-3.1-8B with 4k sequences — which GPU?",
            "zh": "用 LoRA 微调 Llama-3.1-8B，4k 序列长度，用什么卡？"}
FOLLOW_UP = {"en": "and in FP8?", "zh": "那换成 FP8 呢？"}
# English the issue found in the Chinese view, and the page's own English labels
ENGLISH = ["candidate", "street", "workstation-2", "(1 GPU)", "lowest cost", "best value", "best performance",
           "used cards", "recommended", "named by you", "rule ", "New conversation", "Send"]
IN_VIEW = """(sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, vh: innerHeight, h: r.height}; }"""
LAST_QUESTION = """() => { const rows = [...document.querySelectorAll('#chat .message-row.user-row')];
  const r = rows.length ? rows[rows.length - 1].getBoundingClientRect() : null;
  const log = document.querySelector('#chat .bubble-wrap').getBoundingClientRect();
  return r && {top: r.top, bottom: r.bottom, vh: innerHeight, logTop: log.top, logBottom: log.bottom}; }"""


BROWSER_LANGUAGE_JS = """(() => { const langs = LANGS;
  Object.defineProperty(navigator, 'language', {get: () => langs[0]});
  Object.defineProperty(navigator, 'languages', {get: () => langs}); })();"""


@pytest.fixture
def fresh_page(browser_context, web_url, request):
    """A first visit (no cookie: tests/browser/conftest.py clears them) from a browser whose language is the test's
    (navigator.languages as a zh-CN or en-US browser reports it)."""
    size, lang = request.param
    width, height = SIZES[size]
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.add_init_script(BROWSER_LANGUAGE_JS.replace("LANGS", repr([LOCALES[lang], lang])))
    page.set_default_timeout(30_000)
    yield size, lang, page, web_url
    page.close()


def _in_view(page, sel):
    box = page.evaluate(IN_VIEW, sel)
    assert box is not None, sel
    return box["h"] > 0 and box["top"] >= -1 and box["bottom"] <= box["vh"] + 1


def _answer(page, text, lang):
    submit(page, text, button=True)
    expect(page.locator("#chat .pending")).to_have_count(0, timeout=60_000)
    page.wait_for_function("() => document.querySelectorAll('#chat .message-row.bot-row').length > 0")
    page.wait_for_timeout(900)  # the scroll after the answer and the panel refresh


CASES = [(s, lang) for s in SIZES for lang in LOCALES]


@pytest.mark.parametrize("fresh_page", CASES, indirect=True, ids=[f"{s}-{lang}" for s, lang in CASES])
def test_page_defects(fresh_page):
    size, lang, page, url = fresh_page
    page.goto(url)
    page.locator("#ask textarea").wait_for()
    expect(page.locator("#send")).to_have_text(SEND[lang])  # the browser's language on the first visit
    page.wait_for_timeout(1200)
    page.screenshot(path=str(ARTIFACTS / f"page-{size}-{lang}-load.png"))
    assert page.evaluate("window.scrollY") == 0, "the page did not load at its top"
    for sel in ("#header", "#ui-lang", "#ask textarea", "#new-conversation"):
        assert _in_view(page, sel), f"{size} {lang}: {sel} is not in view at load"

    _answer(page, QUESTION[lang], lang)
    q = page.evaluate(LAST_QUESTION)  # the question (at least its last line) stays in the chat's view
    assert q and q["bottom"] >= q["logTop"] + 20 and q["top"] <= q["logBottom"] and 0 < q["bottom"] <= q["vh"], \
        f"{size} {lang}: the question scrolled out of view {q}"
    page.screenshot(path=str(ARTIFACTS / f"page-{size}-{lang}-answer.png"))
    shown = page.locator("body").inner_text()
    from rules.meta import all_rules

    ids = [r.id for r in all_rules() if re.search(rf"(?<![\w-]){re.escape(r.id)}(?![\w-])", shown)]
    assert not ids, f"rule ids shown to people: {ids}"
    if lang == "zh":
        side = page.locator("#result-col").inner_text() + page.locator("#chat").inner_text()
        left = [w for w in ENGLISH if w in side]
        assert not left, f"English in the Chinese view: {left}"

    page.reload()
    page.locator("#ask textarea").wait_for()
    expect(page.locator("#send")).to_have_text(SEND[lang])  # a reload keeps the language
    if lang == "zh":
        assert "lang=zh" in page.url

    # the trash icon starts a new conversation: the follow-up no longer continues the old job
    _answer(page, QUESTION[lang], lang)
    page.locator("#chat button[aria-label='Clear'], #chat button[aria-label='清空对话']").first.click()
    expect(page.locator("#chat .message-row")).to_have_count(0)
    _answer(page, FOLLOW_UP[lang], lang)
    reply = page.locator("#chat .message-row.bot-row").last.inner_text()
    assert "Qwen2.5-14B" not in reply, "the follow-up continued the cleared conversation"

    # a training question after "New conversation": the memory chart's legend names the training parts
    page.locator("#new-conversation").click()
    expect(page.locator("#chat .message-row")).to_have_count(0)
    _answer(page, TRAINING[lang], lang)
    page.screenshot(path=str(ARTIFACTS / f"page-{size}-{lang}-training.png"), full_page=True)
    legend = page.locator("#memory-chart").inner_text()
    kv, grads = ("KV 缓存", "梯度") if lang == "zh" else ("KV cache", "gradients")
    assert grads in legend and kv not in legend, legend
