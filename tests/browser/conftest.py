"""Headless Debian Chromium (/usr/bin/chromium, never downloaded) driven by playwright, against `gpu-advisor web`."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from tests.web_server import WebServer

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).parent == Path(__file__).parent:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def web_url():
    with WebServer(name="web-server-browser") as url:
        yield url


@pytest.fixture(scope="session")
def browser_context():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    profile = tempfile.mkdtemp(prefix="gpu-advisor-chromium-")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1440, "height": 1000}, accept_downloads=True, locale="en-US")
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(autouse=True)
def _no_remembered_language(request):
    """The page remembers its language in a cookie (issue 30): each test that shares the session's browser starts
    without it, as a first visit in the browser's language (en-US)."""
    if "browser_context" in request.fixturenames:
        request.getfixturevalue("browser_context").clear_cookies()


def _timeout_error() -> type[Exception]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # (playwright is optional: importorskip above)
    return PlaywrightTimeout


def submit(page, text: str, *, button: bool = False) -> None:
    """Type a question and press Enter (or click Send, with `button`); the box empties when the page has taken it.
    Sent once more when it has not after 10 s: on a loaded machine the first press can arrive before the page's
    handlers are bound."""
    box = page.locator("#ask textarea")
    empty = "() => document.querySelector('#ask textarea').value === ''"
    for attempt in range(2):
        box.fill(text)
        if button:
            page.locator("#send").click()
        else:
            box.press("Enter")
        try:
            page.wait_for_function(empty, timeout=10_000)
            return
        except _timeout_error():  # the question was not taken
            if attempt:
                raise


def wait_answered(page, script: str, arg, name: str, timeout_ms: int = 60_000) -> None:
    """page.wait_for_function(script, arg); on a timeout the page's screenshot goes to tests/artifacts/<name>.png
    and the chat's text into the failure message, so that a failure seen only in CI can be read afterwards."""
    try:
        page.wait_for_function(script, arg=arg, timeout=timeout_ms)
    except _timeout_error() as exc:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
        chat = page.locator("#chat").inner_text() if page.locator("#chat").count() else "(no #chat)"
        raise AssertionError(f"no answer after {timeout_ms} ms ({exc.__class__.__name__}); chat: {chat[-600:]!r}") from exc


@pytest.fixture
def page(browser_context, web_url):
    page = browser_context.new_page()
    page.set_default_timeout(20_000)
    page.goto(web_url)
    page.locator("#ask textarea").wait_for()
    yield page
    page.close()
