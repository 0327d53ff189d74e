"""The web chat in LLM mode in headless Chromium: `gpu-advisor web` with its model at tests/mock_openai_server.py
(SSE streaming on), one recommendation turn. The mode badge names the model, the tool step is a collapsed
"thought" (title and duration) that expands on click to its arguments, the answer follows, and the options table
fills. Marked `browser` (see conftest); screenshot in tests/artifacts/web-chat-llm.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.mock_openai_server import MockOpenAI, message, tool_calls
from tests.web_server import WebServer

pytest.importorskip("langchain_openai")

from advisor.conversation.grounding import gate as grounding  # noqa: E402
from advisor.conversation.tools.registry import call_tool  # noqa: E402

ARGS = {"model": "llama-3-8b", "context": 8192, "concurrency": 10}


def _answer() -> tuple[str, str]:
    """(answer with numbers copied from the recommend tool's result, the first option's GPU name)."""
    result = call_tool("recommend", ARGS)
    first = result.artifact["options"][0]
    name = first["gpu_name"]
    prefix = f"option 1 ({first['count']}× {name}): "
    s = {n["name"]: n["display"] for n in result.numbers}
    text = (f"Take {first['count']}× {name}: {s[prefix + 'memory per GPU']} per GPU of {s[prefix + 'GPU memory']}, "
            f"{s[prefix + 'decode speed, all sequences']} for all 10 users at 8k context.")
    assert grounding.check(text, grounding.Pool.of([result.data])).ok, text
    return text, name


@pytest.fixture(scope="module")
def llm_page(browser_context):
    answer, _ = _answer()
    with MockOpenAI([tool_calls(("recommend", ARGS)), message(answer)]) as srv:
        env = {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": srv.base_url, "ADVISOR_MODEL": "mock-model",
               "ADVISOR_STREAM": "1", "ADVISOR_READER": "agent"}
        with WebServer(name="web-server-llm-browser", **env) as url:
            browser_context.clear_cookies()  # a language another test chose is remembered per host, not per port
            page = browser_context.new_page()
            page.set_default_timeout(20_000)
            page.goto(url)
            page.locator("#ask textarea").wait_for()
            yield page, srv
            page.close()


def test_llm_step_is_collapsed_and_expands_on_click(llm_page):
    page, srv = llm_page
    answer, gpu_name = _answer()
    expect(page.locator("#mode-badge")).to_contain_text("LLM agent")
    expect(page.locator("#mode-badge")).to_contain_text("mock-model")
    box = page.locator("#ask textarea")
    box.fill("Which GPU for Llama 3 8B, 8k context, 10 users?")
    box.press("Enter")
    chat = page.locator("#chat")
    expect(chat).to_contain_text(answer)
    assert all(r["body"]["stream"] is True for r in srv.completions) and len(srv.completions) == 2

    group = chat.locator(".thought-group").filter(has_text="How this was computed (1 tool call)")
    expect(group).to_have_count(1)  # the steps are folded under one element; open it
    group.locator("[role=button]").first.click()
    step = group.locator(".thought-group").filter(has_text="recommend")
    expect(step).to_have_count(1)
    title = step.locator("[role=button]")
    expect(title).to_contain_text(re.compile(r"recommend\s*\(\d+(\.\d+)?m?s\)"))  # name and duration
    expect(title).not_to_have_class(re.compile(r"\bexpanded\b"))  # collapsed: arguments hidden
    expect(step).not_to_contain_text('"concurrency"')
    expect(page.locator("#options-table")).to_contain_text(gpu_name)
    title.click()
    expect(title).to_have_class(re.compile(r"\bexpanded\b"))
    body = step.locator(".content")
    expect(body).to_be_visible()
    expect(body).to_contain_text('"concurrency": 10')
    expect(body).to_contain_text('"model": "llama-3-8b"')
    page.wait_for_timeout(600)  # let the expand animation finish before the screenshot
    title.evaluate("e => { e.scrollIntoView({block: 'center'}); window.scrollTo(0, 0); }")  # chat was at its end
    page.screenshot(path=str(ARTIFACTS / "web-chat-llm.png"))
