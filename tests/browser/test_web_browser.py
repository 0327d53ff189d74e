"""The web chat in headless Chromium: a Chinese and an English question, the chart and the table, a refinement,
the language toggle, export, and a script message that must not run. Marked `browser` (see conftest)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS, submit, wait_answered


def _ask(page, text):
    """Type a question, press Enter, wait until the answer for it has arrived (no pending step left)."""
    bots = page.locator("#chat .message-row.bot-row, #chat .bot")
    before = page.locator("#chat").inner_text()
    submit(page, text)
    wait_answered(
        page,
        """([before]) => { const c = document.querySelector('#chat');
                           return c && c.innerText !== before && !c.querySelector('.pending, [aria-busy=true]')
                                  && /GiB|\\?|？/.test(c.innerText.slice(Math.max(0, before.length - 50))); }""",
        [before], "web-ask-timeout")
    page.wait_for_timeout(300)
    return bots


def test_chinese_and_english_turns_chart_table_refinement_export(page):
    expect(page.locator("#mode-badge")).to_contain_text("deterministic")
    # English question: answer with numbers, steps, chart, table
    _ask(page, "Serve Llama 3 70B in INT4 with 8k context for 50 users")
    chat = page.locator("#chat")
    expect(chat).to_contain_text(re.compile(r"\d+(\.\d+)? GiB"))
    group = chat.locator(".thought-group").filter(has_text="How this was computed").last
    expect(group).to_be_visible()  # the tool steps, folded under one element
    expect(chat).not_to_contain_text("estimate_memory")
    group.locator("[role=button]").first.click()
    expect(chat).to_contain_text("estimate_memory")  # unfolded: the steps, each collapsible
    table = page.locator("#options-table")
    expect(table).to_contain_text(re.compile(r"\d+× "))
    expect(page.locator("#memory-chart canvas, #memory-chart svg").first).to_be_visible()
    first_table = table.inner_text()
    page.screenshot(path=str(ARTIFACTS / "web-chat-en.png"))
    # refinement in the same conversation
    _ask(page, "what about 8-bit weights instead?")
    expect(chat).to_contain_text(re.compile(r"INT8|int8|8-bit"))
    expect(table).not_to_have_text(first_table)
    # export the current recommendation
    with page.expect_download() as dl:
        page.locator("#export-md").click()
    md = open(dl.value.path(), encoding="utf-8").read()
    assert md.startswith("# GPU recommendation") and "what about 8-bit" in md and "GiB" in md
    with page.expect_download() as dl:
        page.locator("#export-json").click()
    doc = json.loads(open(dl.value.path(), encoding="utf-8").read())
    assert doc["options"] and doc["units"]["memory"] == "bytes"
    assert doc["quote"]["request"][-2:] == ["Serve Llama 3 70B in INT4 with 8k context for 50 users",
                                            "what about 8-bit weights instead?"]  # the whole request
    # the print-ready quote and its PDF (printed by Chromium on the server when first asked for)
    with page.expect_download() as dl:
        page.locator("#export-html").click()
    assert open(dl.value.path(), encoding="utf-8").read().startswith("<!doctype html>")
    with page.expect_download(timeout=60_000) as dl:
        page.locator("#export-pdf").click()
    assert open(dl.value.path(), "rb").read(5) == b"%PDF-"
    # the turn's JSON (its own gr.JSON subclass) is drawn by Gradio's JSON viewer when the accordion opens
    page.get_by_text("Raw result (JSON)", exact=True).first.click()
    expect(page.locator("#raw-json")).to_contain_text("per_gpu_bytes")
    # interface in Chinese, then a Chinese question
    page.get_by_text("中文", exact=True).click()
    expect(page.locator("#options-table")).to_contain_text("方案")
    expect(page.locator("#mode-badge")).to_contain_text("确定性")
    _ask(page, "部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，国内")
    expect(chat).to_contain_text(re.compile(r"[\u4e00-\u9fff].*GiB", re.S))
    expect(page.locator("#context-plot canvas, #context-plot svg").first).to_be_attached()
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / "web-chat.png"), full_page=True)


def test_script_in_a_message_does_not_run(page):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    _ask(page, "<img src=x onerror=\"window.__xss=1;alert(1)\"><script>alert(2)</script> Llama 3 8B inference?")
    expect(page.locator("#chat")).to_contain_text("<script>alert(2)</script>")
    assert page.evaluate("window.__xss === undefined") and dialogs == []
    assert page.locator("#chat img[src=x]").count() == 0


def test_a_question_in_chinese_switches_an_english_page(page):
    """The answer comes in the question's language; the page's labels and panels follow it, not only the chat."""
    expect(page.locator("#options-table")).not_to_contain_text("方案")
    _ask(page, "用 2 张 4090 跑 Qwen2.5-32B 的 AWQ 量化版，10 个人用，够吗？")
    expect(page.locator("#options-table")).to_contain_text("方案")  # the table's headers in Chinese
    expect(page.locator("#mode-badge")).to_contain_text("确定性")
    assert page.locator("input[type=radio][value=zh]").is_checked()
    _ask(page, "And on one H100 instead?")  # an English question switches it back
    expect(page.locator("#mode-badge")).to_contain_text("deterministic")
