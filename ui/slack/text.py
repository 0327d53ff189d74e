"""Slack's text, as pure functions: Block Kit's limits, escaping for mrkdwn, and Markdown → mrkdwn (headings,
tables, links, emphasis), split at line ends into section-sized pieces.

Slack's mrkdwn treats `&`, `<` and `>` as control characters: `<!channel>` pings a channel and `<url|text>` shows
`text` for any URL (Slack formatting docs, docs.slack.dev/messaging/formatting-message-text). Every piece of text
that did not come from this project's own code is therefore escaped (`escape`), Markdown links become
"text (url)" so the real address is always visible, and `@channel`/`@here`/`@everyone` get a word joiner so no
client turns them into pings. Mentions and links are never built from model or user text.

Limits (docs.slack.dev/reference/block-kit/blocks): at most 50 blocks per message, section text at most 3000
characters, at most 10 section fields of at most 2000 characters, context at most 10 elements, header text at most
150 characters, one table block per message with at most 100 rows of at most 20 cells, button URLs at most 3000
characters.
"""

from __future__ import annotations

import re
from typing import Any

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_CONTEXT_ELEMENTS = 10
MAX_HEADER_TEXT = 150
MAX_TABLE_ROWS = 100
MAX_TABLE_CELLS = 20
MAX_BUTTON_URL = 3000
MAX_FALLBACK_TEXT = 3000  # the notification/fallback `text`; Slack truncates `text` at 40 000 characters
SUMMARY_CHARS = 1500  # "short summary" when options follow it
DETAILS_CHARS = 2800  # the rest of such an answer (tables dropped), in one section
MAX_OPTIONS = 8
MAX_FINDINGS = 12

_WORD_JOINER = "\u2060"
_BROADCAST = re.compile(r"@(channel|here|everyone)\b", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

TableStyle = str  # "table" (Block Kit table block) or "fields" (one section with fields per option)


# --------------------------------------------------------------------------------------------------- escaping

def escape(text: str) -> str:
    """Escape text for Slack mrkdwn: `&`→`&amp;`, `<`→`&lt;`, `>`→`&gt;`, and defuse @channel/@here/@everyone."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _BROADCAST.sub(lambda m: "@" + _WORD_JOINER + m.group(1), text)


def plain(text: Any, limit: int = 200) -> str:
    """Text for plain_text/raw_text elements: no angle brackets, no control characters, at most `limit` chars."""
    s = "".join(ch for ch in str(text) if ch in "\n\t" or ch >= " ")
    s = s.replace("<", "‹").replace(">", "›")
    s = _BROADCAST.sub(lambda m: "@" + _WORD_JOINER + m.group(1), s)
    return truncate(s, limit)


def truncate(text: str, limit: int, marker: str = "…") -> str:
    """`text` cut to at most `limit` characters, ending in `marker` when cut."""
    return text if len(text) <= limit else text[: max(0, limit - len(marker))] + marker


def detect_lang(text: str) -> str:
    """"zh" when the text contains CJK ideographs, else "en"."""
    return "zh" if _CJK.search(text or "") else "en"


# -------------------------------------------------------------------------------------- Markdown → mrkdwn

_FENCE = re.compile(r"^\s*```")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+")
_LINK = re.compile(r"!?\[([^\]\n]*)\]\(\s*((?:[^()\s]|\([^()\s]*\))+)(?:\s+\"[^\"]*\")?\s*\)")
_BOLD = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![*\w])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")


def _link(m: re.Match[str]) -> str:
    label, url = m.group(1).strip(), m.group(2).strip()
    if not re.match(r"^https?://", url, re.IGNORECASE):
        return label  # javascript:, data:, relative links: keep only the words
    return f"{label} ({url})" if label and label != url else url


def _inline(line: str) -> str:
    """Convert one escaped Markdown line (outside code) to mrkdwn."""
    parts = re.split(r"(`[^`\n]*`)", line)  # leave inline code alone
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
            continue
        part = _LINK.sub(_link, part)
        part = _BOLD.sub(lambda m: "\x00" + m.group(2) + "\x00", part)
        part = _ITALIC.sub(lambda m: "_" + m.group(1) + "_", part)
        part = _STRIKE.sub(lambda m: "~" + m.group(1) + "~", part)
        out.append(part.replace("\x00", "*"))
    return "".join(out)


def md_to_mrkdwn(markdown: str) -> str:
    """Markdown (as the conversation layer writes it) → escaped Slack mrkdwn.

    Headings become bold lines, `**b**` → `*b*`, `*i*` → `_i_`, `~~s~~` → `~s~`, bullets → "•", `[t](url)` →
    "t (url)" (non-http links keep only their text), Markdown tables become a monospace code block.
    """
    lines = escape(markdown.replace("\r\n", "\n").replace("\r", "\n")).split("\n")
    out: list[str] = []
    in_code = False
    table: list[str] = []

    def flush_table() -> None:
        if table:
            out.append("```")
            out.extend(_table_text(table))
            out.append("```")
            table.clear()

    for line in lines:
        if _FENCE.match(line):
            flush_table()
            in_code = not in_code
            out.append("```")
            continue
        if in_code:
            out.append(line)
            continue
        if _TABLE_ROW.match(line):
            if not _TABLE_RULE.match(line):
                table.append(line)
            continue
        flush_table()
        heading = _HEADING.match(line)
        if heading:
            text = _inline(heading.group(1)).replace("*", "")
            out.append(f"*{text}*" if text else "")
            continue
        bullet = _BULLET.match(line)
        if bullet:
            line = bullet.group(1) + "• " + line[bullet.end():]
        out.append(_inline(line))
    flush_table()
    if in_code:
        out.append("```")
    return "\n".join(out).strip("\n")


def _table_text(rows: list[str]) -> list[str]:
    """Markdown table rows → aligned monospace lines (cells keep their escaped text)."""
    cells = [[c.strip().replace("**", "") for c in r.strip().strip("|").split("|")] for r in rows]
    width = max(len(r) for r in cells)
    cells = [r + [""] * (width - len(r)) for r in cells]
    widths = [max(len(r[i]) for r in cells) for i in range(width)]
    return ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in cells]


# ----------------------------------------------------------------------------------------------- splitting

def _hard_split(line: str, step: int) -> list[str]:
    """Cut one long line into pieces of at most `step` characters, preferring spaces, never inside an `&…;` entity."""
    pieces = []
    while len(line) > step:
        cut = line.rfind(" ", step // 2, step)
        cut = step if cut <= 0 else cut + 1
        entity = re.search(r"&[a-z]{0,4}$", line[:cut])
        if entity:
            cut = entity.start()
        pieces.append(line[:cut])
        line = line[cut:]
    return pieces + [line]


def split_mrkdwn(text: str, limit: int = MAX_SECTION_TEXT) -> list[str]:
    """Split mrkdwn into chunks of at most `limit` characters, at line ends (long lines at spaces).

    A code fence that spans a cut is closed at the end of one chunk and reopened at the start of the next.
    """
    if len(text) <= limit:
        return [text] if text.strip() else []
    chunks: list[str] = []
    current: list[str] = []
    in_code = False

    def close() -> None:
        nonlocal current
        body = "\n".join(current) + ("\n```" if in_code else "")
        if body.strip() and body.strip() not in ("```", "```\n```"):
            chunks.append(body)
        current = ["```"] if in_code else []

    for line in text.split("\n"):
        for piece in _hard_split(line, limit - 8):
            size = len("\n".join(current)) + (1 if current else 0) + len(piece) + 4  # 4: a closing fence
            if current and size > limit:
                close()
            current.append(piece)
            if _FENCE.match(piece):
                in_code = not in_code
    close()
    return chunks


def split_summary(markdown: str, limit: int = SUMMARY_CHARS) -> tuple[str, str]:
    """(opening, rest) of an answer: the opening is its paragraphs up to the first table, heading or code block
    after the first paragraph, at most `limit` characters (a longer first paragraph is cut at a space, " …")."""
    paragraphs = re.split(r"\n\s*\n", markdown.strip())
    taken: list[str] = []
    for para in paragraphs:
        first = para.lstrip().split("\n", 1)[0]
        starts_section = bool(_HEADING.match(first) or _TABLE_ROW.match(first) or _FENCE.match(first))
        if taken and starts_section:
            break
        if taken and sum(len(p) + 2 for p in taken) + len(para) > limit:
            break
        taken.append(para)
    rest = "\n\n".join(paragraphs[len(taken):])
    head = "\n\n".join(taken)
    if len(head) > limit:
        cut = head[:limit].rsplit(" ", 1)[0]
        rest = head[len(cut):].lstrip() + ("\n\n" + rest if rest else "")
        head = cut + " …"
    return head, rest


def summarize(markdown: str, limit: int = SUMMARY_CHARS) -> str:
    """The opening of an answer (see `split_summary`)."""
    return split_summary(markdown, limit)[0]


def drop_tables(markdown: str) -> str:
    """Markdown without its tables (when the options table block shows the same rows)."""
    kept = [line for line in markdown.split("\n") if not _TABLE_ROW.match(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def cut_lines(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut at a line end to at most `limit` characters; (text, whether it was cut)."""
    if len(text) <= limit:
        return text, False
    cut = text[:limit].rsplit("\n", 1)[0] if "\n" in text[:limit] else text[: limit - 1]
    if cut.count("```") % 2:
        cut += "\n```"
    return cut.rstrip() + "\n…", True

