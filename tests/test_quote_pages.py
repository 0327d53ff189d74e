"""The quote a customer receives (issue 30): at most two A4 pages before the technical appendix in both languages,
the recommended configuration with its full price (cards and servers) and TCO, alternatives, dates; no rule ids,
engine names or generator details before the appendix; owned cards in words; and no word broken in the PDF's text
(every word pypdf reads from the printed PDF is a whole word of the page). Skipped without Chromium or pypdf."""

from __future__ import annotations

import html
import re
import shutil
import unicodedata
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest

from advisor.conversation.session import new_conversation
from ui.quote.document import build_quote
from ui.quote.pdf import html_to_pdf
from ui.quote.render import quote_html, quote_markdown, t

pypdf = pytest.importorskip("pypdf")
if not shutil.which("chromium"):
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

WHEN = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
CASES = {
    "zh": ("zh", ["部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，预算 30 万元，国内", "上下文改成 16k"]),
    "en": ("en", ["Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users", "budget $400,000"]),
    "zh-owned": ("zh", ["我们有 2 张 4090，想给 8 个人部署 Qwen2.5-7B，4k 上下文"]),
    "en-owned": ("en", ["We have 2 RTX 4090 cards; serve Qwen2.5-7B to 8 users with 4k context"]),
}


@pytest.fixture(scope="module", params=list(CASES))
def printed(request, tmp_path_factory):
    lang, questions = CASES[request.param]
    conv = new_conversation(lang=None)
    for q in questions:
        turn = conv.respond(q)
    quote = build_quote(turn, questions=questions, lang=lang, generated_at=WHEN)
    page = quote_html(quote)
    path = html_to_pdf(page, tmp_path_factory.mktemp("quote") / f"{request.param}.pdf")
    texts = [unicodedata.normalize("NFKC", p.extract_text()) for p in pypdf.PdfReader(str(path)).pages]
    return request.param, quote, page, texts


# Noto CJK's ToUnicode map reads some shared glyphs as their traditional or radical twins (户 as 戶, 文 as U+2F42):
# NFKC folds the radicals back, this table the rest
TWINS = str.maketrans({"戶": "户"})


def _flat(text: str) -> str:
    return unicodedata.normalize("NFKC", "".join(text.split())).translate(TWINS)


def _front(quote, texts: list[str]) -> list[str]:
    """The pages before the one where the appendix's title stands."""
    title = _flat(t("appendix", quote.lang))
    at = next(i for i, p in enumerate(texts) if title in _flat(p))
    return texts[:at]


def test_two_pages_at_most_before_the_appendix(printed) -> None:
    _, quote, _, texts = printed
    front = _front(quote, texts)
    assert 1 <= len(front) <= 2, f"{len(front)} pages before the appendix"
    body = _flat("".join(front))
    assert _flat(t("config", quote.lang)) in body and _flat(t("alternatives", quote.lang)) in body
    assert "2026-12-03" in body and quote.valid_until.isoformat() in body  # made on, valid until
    assert quote.prices_as_of and _flat(quote.prices_as_of) in body  # prices as of


def test_no_internals_before_the_appendix(printed) -> None:
    _, quote, _, texts = printed
    body = "".join(_front(quote, texts))
    flat = _flat(body)
    for f in quote.findings:
        assert f.rule_id not in flat
    for word in ("vllm", "deterministic", "确定性", "rule`", "规则`", "knowledge/", "rules/", ".yaml", "guide-0",
                 "Guide-0", "指南（0", "--tensor-parallel"):
        assert word not in flat, word


def test_the_configuration_has_its_full_price_or_says_the_cards_are_owned(printed) -> None:
    name, quote, _, texts = printed
    flat = _flat("".join(_front(quote, texts)))
    assert _flat(quote.configuration) in flat
    zh = quote.lang == "zh"
    if name.endswith("owned"):
        owned = "2× GeForce RTX 4090（已有）" if zh else "2× GeForce RTX 4090 (already owned)"
        assert owned in quote.constraints and quote.configuration.startswith(owned)
        assert ("无需购买" if zh else "nothing to buy") in quote.configuration
        assert "rtx-4090" not in flat and "count2" not in flat
    else:
        assert re.search(r"[¥$][\d,]+", quote.configuration)
        assert ("服务器" if zh else "server") in quote.configuration
        assert ("总拥有成本" if zh else "total cost of ownership") in quote.configuration


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "title")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "title")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


WORD = re.compile(r"[A-Za-z]{2,}")


def test_no_word_is_broken_in_the_pdf(printed) -> None:
    """Every Latin word pypdf reads from the PDF is a word of the page (a word split at a line end reads as two
    fragments, 'performanc' and 'e', that the page does not have); URLs and commands may break, so their pieces
    count as the page's words too."""
    _, _, page, texts = printed
    parser = _Text()
    parser.feed(page)
    shown = html.unescape(" ".join(parser.parts))
    words = set(WORD.findall(shown))
    for token in re.findall(r"\S+", shown):
        if "/" in token or "--" in token or "://" in token:  # a URL, a path or a command: may break anywhere
            words |= {token[i:j] for i in range(len(token)) for j in range(i + 2, len(token) + 1)
                      if token[i:j].isalpha()}
    broken = sorted({w for text in texts for w in WORD.findall(text) if w not in words})
    assert not broken, broken[:20]


def test_markdown_keeps_the_same_order() -> None:
    lang, questions = CASES["en"]
    conv = new_conversation(lang=None)
    for q in questions:
        turn = conv.respond(q)
    md = quote_markdown(build_quote(turn, questions=questions, lang=lang, generated_at=WHEN))
    order = [md.index(f"## {t(k, 'en')}") for k in ("request", "config", "alternatives", "assumptions_risks",
                                                     "appendix")]
    assert order == sorted(order)
    front = md[:md.index(f"## {t('appendix', 'en')}")]
    assert "`" not in front and "rule " not in front
