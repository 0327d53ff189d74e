"""Citations as people read them: a rendered source ("title, section (document or URL)") without the repository
file it points to. The file stays in the sources registry and in the JSON outputs; the web panels, the quote, the
Slack findings and the CLI's text show title, section and date."""

from __future__ import annotations

import re

from rules.sources import citation_in

_REPO_PATH = re.compile(r"\s*\((?:\.\./)?(?:shared/)?(?:seeds|reference|knowledge)/[^()]*\)")


def source_without_path(citation: str, lang: str = "en") -> str:
    """`citation` without its "(seeds/000_….txt)"-style repository paths; URLs and retrieval dates stay (the date's
    kind in `lang`)."""
    text = _REPO_PATH.sub("", citation).strip()
    return citation_in(text, lang)
