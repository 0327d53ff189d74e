"""The web chat's export files (Markdown, JSON, print-ready HTML, PDF): written per recommendation, or reserved and
written on their first download (`ExportStore(lazy=True)`, `LazyExports`)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import threading
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from knowledge.errors import AdvisorError
from ui.quote.pdf import html_to_pdf

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger(__name__)



class ExportStore:
    """Each recommendation's export files (Markdown and JSON) in their own sub-folder of one folder; folders older
    than `max_age_s` are pruned.

    The download buttons serve the files from Gradio's cache: a file outside it is hashed and copied there on every
    turn, so the app keeps this folder inside it (`gradio_export_dir`). There the store can also be `lazy`: a turn
    only reserves the two paths (`reserve`) and the files are rendered and written when one of them is first
    requested (`materialize`, called by the `_LazyExports` middleware before Gradio serves the file) — most turns
    are never exported, and rendering and writing them cost ~1 ms of a ~5 ms deterministic turn."""

    MAX_PENDING = 4096  # reserved exports kept (each holds its turn); the oldest are dropped first

    def __init__(self, root: str | None = None, max_age_s: float = 3600.0, *, lazy: bool = False) -> None:
        self.root = Path(root or tempfile.mkdtemp(prefix="gpu-advisor-export-")).resolve()
        self.root.mkdir(parents=True, exist_ok=True)
        self.max_age_s = max_age_s
        self.lazy = lazy
        self._last_prune = 0.0
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, tuple[float, Callable[[], tuple[str, ...]], str]] = OrderedDict()
        if lazy:
            _LAZY_STORES.add(self)

    def write(self, markdown: str, json_text: str, html_text: str | None = None,
              stem: str = "gpu-advisor-quote") -> tuple[str, str]:
        self._prune()
        return self._write(self.root / uuid.uuid4().hex, stem, markdown, json_text, html_text)

    def reserve(self, render: Callable[[], tuple[str, ...]], stem: str = "gpu-advisor-quote") -> tuple[str, str]:
        """Paths for the export `render()` will produce as (Markdown, JSON[, HTML]) texts: written now unless
        `lazy`, else on the first request for any of its files."""
        if not self.lazy:
            markdown, json_text, *html = render()
            return self.write(markdown, json_text, html[0] if html else None, stem=stem)
        self._prune()
        token = uuid.uuid4().hex
        with self._lock:
            self._pending[token] = (time.time(), render, stem)
            while len(self._pending) > self.MAX_PENDING:
                self._pending.popitem(last=False)
        folder = self.root / token
        return str(folder / f"{stem}.md"), str(folder / f"{stem}.json")

    def materialize(self, path: str) -> bool:
        """Write the reserved export that `path` names, if it is still pending; True when it was written now. A
        requested PDF is printed from the export's HTML (`ui.quote.pdf`, seconds) on its first request only."""
        target = Path(path)
        if target.parent.parent != self.root:
            return False
        with self._lock:  # one writer per export; a second request waits here until the files exist
            entry = self._pending.get(target.parent.name)
            written = entry is not None
            if entry is not None:
                _, render, stem = entry
                try:
                    self._write(target.parent, stem, *render())
                finally:
                    self._pending.pop(target.parent.name, None)
            page = target.with_suffix(".html")
            if target.suffix == ".pdf" and not target.exists() and page.exists():
                try:
                    html_to_pdf(page.read_text(encoding="utf-8"), target)
                    written = True
                except AdvisorError:  # no Chromium here: Gradio answers 404, the HTML is still there to print
                    log.exception("could not print the quote to PDF")
        return written

    @staticmethod
    def _write(folder: Path, stem: str, markdown: str, json_text: str, html_text: str | None = None) -> tuple[str, str]:
        """Write the export's files; the print-ready HTML (when rendered) beside the Markdown (`extra_paths`)."""
        folder.mkdir(exist_ok=True)
        md = folder / f"{stem}.md"
        js = folder / f"{stem}.json"
        md.write_text(markdown, encoding="utf-8")
        js.write_text(json_text, encoding="utf-8")
        if html_text is not None:
            (folder / f"{stem}.html").write_text(html_text, encoding="utf-8")
        return str(md), str(js)

    def extra_paths(self, md_path: str | None) -> tuple[str | None, str | None]:
        """(print-ready HTML, PDF) of the export whose Markdown is `md_path`; the PDF only from a lazy store (it is
        printed when first requested), so none is offered where files must exist before they are linked."""
        if not md_path:
            return None, None
        md = Path(md_path)
        return str(md.with_suffix(".html")), (str(md.with_suffix(".pdf")) if self.lazy else None)

    def _prune(self) -> None:
        now = time.time()
        with self._lock:
            if now - self._last_prune < 60:
                return
            self._last_prune = now
            for token in [t for t, (made, _, _) in self._pending.items() if now - made > self.max_age_s]:
                del self._pending[token]
        for child in self.root.iterdir():
            try:
                if now - child.stat().st_mtime > self.max_age_s:
                    shutil.rmtree(child, ignore_errors=True)
            except OSError:
                pass


_LAZY_STORES: weakref.WeakSet[ExportStore] = weakref.WeakSet()


def materialize_export(path: str) -> bool:
    """Write the pending lazy export that `path` names (any store of this process); True when written now."""
    return any(store.materialize(path) for store in list(_LAZY_STORES))


def gradio_export_dir() -> tuple[str, bool]:
    """A folder inside Gradio's file cache ($GRADIO_TEMP_DIR, else <tmp>/gradio, as `gradio.utils` resolves it),
    and whether it is known to be inside it: files returned from there are served as they are, without Gradio
    hashing and copying each one (measured: 8 ms of CPU per turn for the two export files), which is also what lets
    them be written lazily."""
    try:
        from gradio.utils import get_upload_folder  # optional dependency: gradio (web extra), ImportError handled

        return str(Path(get_upload_folder()) / "gpu-advisor-exports"), True
    except ImportError:  # the structure of gradio.utils changed: the files are copied, as for any other folder
        base = Path(os.environ.get("GRADIO_TEMP_DIR") or Path(tempfile.gettempdir()) / "gradio").resolve()
        return str(base / "gpu-advisor-exports"), False


class LazyExports:
    """ASGI middleware: before Gradio serves a file (`GET …/file=<path>`), write it if it is a lazy export still
    pending (`ExportStore.materialize`); every other request passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http" and scope.get("method") in ("GET", "HEAD") and _LAZY_STORES:
            path = str(scope.get("path", ""))
            if "/file=" in path:
                try:
                    materialize_export(path.split("/file=", 1)[1])
                except OSError:
                    log.exception("could not write an export file")  # Gradio then answers 404
        await self.app(scope, receive, send)
