"""The quote printed to PDF by headless Chromium (ui.quote.pdf): the PDF's text (pypdf) holds the request, the
headline and the dates, every page is A4, and no text runs past the page's right edge. Skipped without
/usr/bin/chromium or pypdf (`make test` installs both)."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from datetime import datetime, timezone

import pytest

from advisor.conversation.session import new_conversation
from ui.quote.document import build_quote
from ui.quote.pdf import html_to_pdf
from ui.quote.render import quote_html

pypdf = pytest.importorskip("pypdf")
if not shutil.which("chromium"):
    pytest.skip("chromium is not installed (apt-get install chromium)", allow_module_level=True)

WHEN = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)
A4_PT = (595.28, 841.89)  # 210 × 297 mm in PostScript points


def _pdf(tmp_path, questions, lang):
    conv = new_conversation(lang=None)
    for q in questions:
        turn = conv.respond(q)
    quote = build_quote(turn, questions=questions, lang=lang, generated_at=WHEN)
    page = quote_html(quote)
    path = html_to_pdf(page, tmp_path / f"quote-{lang}.pdf")
    return quote, page, pypdf.PdfReader(str(path))


MIN_PT = 7.5  # the print CSS's smallest font is 8 pt: anything smaller means Chromium shrank a too-wide page

OVERFLOW_JS = """<script>
addEventListener('load', () => { const limit = document.body.getBoundingClientRect().right + 1; const wide = [];
  for (const el of document.body.querySelectorAll('*')) { const r = el.getBoundingClientRect();
    if (r.width && r.right > limit) wide.push(el.tagName + ':' + (el.textContent || '').trim().slice(0, 40)); }
  if (document.documentElement.scrollWidth > innerWidth) wide.push('page scrolls sideways');
  document.body.setAttribute('data-overflow', JSON.stringify(wide)); });
</script>"""


def _laid_out_too_wide(page_html: str, tmp_path) -> list[str]:
    """Elements whose right edge passes the body's (182 mm of content, the A4 page less its margins), as laid
    out by the same Chromium at A4 width (210 mm = 794 CSS px)."""
    path = tmp_path / "measure.html"
    path.write_text(page_html.replace("</body>", OVERFLOW_JS + "</body>"), encoding="utf-8")
    done = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           f"--user-data-dir={tmp_path / 'profile'}", "--window-size=794,1123",
                           "--virtual-time-budget=3000", "--dump-dom", path.as_uri()],
                          capture_output=True, timeout=60, check=True)
    m = re.search(r'data-overflow="([^"]*)"', done.stdout.decode())
    assert m, "the measuring script did not run"
    import html
    import json

    return json.loads(html.unescape(m.group(1)))


def _text_and_overflow(reader):
    """All text, and the fragments that start beyond the page's width (or left of it) or were shrunk below
    `MIN_PT` (Chromium scales a page down to fit when its content is too wide)."""
    texts, outside = [], []
    for page in reader.pages:
        width = float(page.mediabox.width)

        def visit(text, cm, tm, font, size, width=width):
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            pt = abs(size * cm[0] * tm[0]) or abs(size * cm[3] * tm[3])
            if text.strip() and (not -1 <= x <= width - 1 or 0 < pt < MIN_PT):
                outside.append((text, x, pt))

        texts.append(page.extract_text(visitor_text=visit))
    return "\n".join(texts), outside


@pytest.mark.parametrize("lang, questions", [
    ("zh", ["部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，预算 30 万元，国内", "上下文改成 16k"]),
    ("en", ["Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users", "budget $400,000"]),
])
def test_pdf_holds_request_headline_and_dates_without_overflow(tmp_path, lang, questions):
    quote, page, reader = _pdf(tmp_path, questions, lang)
    assert _laid_out_too_wide(page, tmp_path) == []
    assert all((round(float(p.mediabox.width), 0), round(float(p.mediabox.height), 0)) == (595, 842)
               for p in reader.pages)
    text, outside = _text_and_overflow(reader)
    # the PDF breaks lines where the page does; Noto CJK's ToUnicode maps some ideographs to their Kangxi-radical
    # twins (文 as U+2F42), which NFKC folds back
    def norm(t):
        return unicodedata.normalize("NFKC", "".join(t.split()))

    flat = norm(text)
    for q in questions:
        assert norm(q) in flat, q
    assert norm(quote.headline)[:40] in flat
    assert "2026-12-03" in flat and quote.valid_until.isoformat() in flat
    assert all(p.as_of in flat for p in quote.prices if p.as_of)  # every price's date
    assert not outside, outside[:5]


def test_the_overflow_checks_catch_a_too_wide_page(tmp_path):
    wide = ("<!doctype html><html><head><style>@page { size: A4; margin: 16mm 14mm; } body { font-size: 10pt; "
            "max-width: 182mm; }</style></head><body><table style='width:320mm'><tr><td style='width:300mm'>left"
            "</td><td>FARRIGHT</td></tr></table></body></html>")
    assert _laid_out_too_wide(wide, tmp_path)
    reader = pypdf.PdfReader(str(html_to_pdf(wide, tmp_path / "wide.pdf")))
    assert _text_and_overflow(reader)[1]  # shrunk to fit (or cut): flagged either way


def test_lazy_web_export_prints_the_pdf_on_first_request(tmp_path):
    from pathlib import Path

    from ui.web.app import ChatController, ExportStore, SessionState, materialize_export

    ctl = ChatController(exports=ExportStore(str(tmp_path), lazy=True), sweep=lambda turn: None)
    *_, final = ctl.turn("Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users", SessionState(), "en")
    page, pdf = ctl.exports.extra_paths(final["export_md"])
    assert not Path(pdf).exists() and materialize_export(pdf) and Path(pdf).read_bytes().startswith(b"%PDF")
    assert Path(page).exists() and not materialize_export(pdf)  # printed once
    assert "Llama 3.1 70B" in "".join(p.extract_text() for p in pypdf.PdfReader(pdf).pages)
