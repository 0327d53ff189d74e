"""The quote as PDF: its print-ready HTML (`ui.quote.render.quote_html`) printed by headless Chromium
(`chromium --headless --print-to-pdf`, Debian's /usr/bin/chromium; no browser is ever downloaded).

Chromium runs with a throw-away profile, no network use beyond the local file, and a time limit; a missing browser
or a failed print is a clear `AdvisorError`, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from knowledge.errors import AdvisorError

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PRINT_TIMEOUT_S = 60.0


def find_chromium() -> str | None:
    """$GPU_ADVISOR_CHROMIUM, else the first Chromium on PATH, else None."""
    explicit = os.environ.get("GPU_ADVISOR_CHROMIUM", "").strip()
    if explicit:
        return explicit if Path(explicit).exists() else None
    return next((p for p in (shutil.which(n) for n in CHROMIUM_NAMES) if p), None)


def html_to_pdf(html_text: str, out_path: str | Path, *, chromium: str | None = None,
                timeout_s: float = PRINT_TIMEOUT_S) -> Path:
    """Write the PDF of `html_text` to `out_path` (A4, as the page's @page rule says, no header or footer)."""
    browser = chromium or find_chromium()
    if not browser:
        raise AdvisorError.from_key("errors.no_chromium", field="chromium")
    out = Path(out_path).resolve()
    work = Path(tempfile.mkdtemp(prefix="gpu-advisor-pdf-"))
    try:
        page = work / "quote.html"
        page.write_text(html_text, encoding="utf-8")
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={work / 'profile'}", "--no-pdf-header-footer", "--print-to-pdf-no-header",
               f"--print-to-pdf={out}", page.as_uri()]
        try:
            done = subprocess.run(cmd, capture_output=True, timeout=timeout_s, check=False)
        except subprocess.TimeoutExpired:
            raise AdvisorError.from_key("errors.chromium_timeout", field="chromium", seconds=timeout_s) from None
        if done.returncode != 0 or not out.exists() or out.stat().st_size == 0:
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise AdvisorError.from_key("errors.chromium_failed", field="chromium", code=done.returncode,
                                        detail=tail[0][:200])
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)
