"""Turn → Slack message (Block Kit), as pure functions. No Slack client, no I/O.

Slack's mrkdwn treats `&`, `<` and `>` as control characters: `<!channel>` pings a channel and `<url|text>` shows
`text` for any URL (Slack formatting docs, docs.slack.dev/messaging/formatting-message-text). Every piece of text
that did not come from this module's own code is therefore escaped (`escape`), Markdown links become
"text (url)" so the real address is always visible, and `@channel`/`@here`/`@everyone` get a word joiner so no
client turns them into pings. Mentions and links are never built from model or user text.

Limits respected (docs.slack.dev/reference/block-kit/blocks): at most 50 blocks per message, section text at most
3000 characters, at most 10 section fields of at most 2000 characters, context at most 10 elements, header text
at most 150 characters, one table block per message with at most 100 rows of at most 20 cells, button URLs at
most 3000 characters. `render_turn` checks its own output against these (`check_limits`) before returning.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
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


# ------------------------------------------------------------------------------------------------- wording

_WORDS = {
    "en": {
        "options": "Ranked options",
        "rank": "#", "gpu": "GPU", "count": "Count", "layout": "Layout", "memory": "Memory/GPU",
        "fits": "Fits", "decode": "Decode tok/s", "price": "Price",
        "yes": "yes", "no": "no",
        "findings": "Findings",
        "questions": "To refine the answer",
        "open": "Open in the web app",
        "mode_llm": "mode: LLM ({model})", "mode_det": "mode: deterministic (no LLM)",
        "truncated": "…the answer was shortened to fit Slack; the web app shows all of it.",
        "as_of": "as of {date}",
        "per_seq": "{v} per sequence", "total": "{v} total",
        "source": "source",
        "more_options": "…and {n} more options.",
    },
    "zh": {
        "options": "候选方案（按推荐排序）",
        "rank": "#", "gpu": "GPU", "count": "数量", "layout": "并行", "memory": "每卡显存",
        "fits": "放得下", "decode": "解码 tok/s", "price": "价格",
        "yes": "是", "no": "否",
        "findings": "提示与依据",
        "questions": "还需要确认",
        "open": "在网页版中查看",
        "mode_llm": "模式：LLM（{model}）", "mode_det": "模式：确定性规则（无 LLM）",
        "truncated": "……回答较长，已截断以适应 Slack；网页版可查看全文。",
        "as_of": "截至 {date}",
        "per_seq": "每序列 {v}", "total": "合计 {v}",
        "source": "来源",
        "more_options": "……另有 {n} 个方案。",
    },
}

_SEVERITY_ICON = {"block": ":no_entry:", "warn": ":warning:", "info": ":information_source:"}


def words(lang: str) -> dict[str, str]:
    return _WORDS["zh" if lang == "zh" else "en"]


# --------------------------------------------------------------------------------------------- formatting

def fmt_gib(n_bytes: Any) -> str:
    """Bytes → "61.2 GiB" (1 GiB = 2^30 bytes)."""
    try:
        return f"{float(n_bytes) / 2**30:,.1f} GiB"
    except (TypeError, ValueError):
        return "–"


def fmt_rate(value: Any) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_money(price: Any) -> str:
    """{amount, currency} → "60,000 USD" (currency always explicit)."""
    if not isinstance(price, Mapping) or price.get("amount") is None:
        return "–"
    try:
        amount = float(price["amount"])
    except (TypeError, ValueError):
        return "–"
    return f"{amount:,.0f} {price.get('currency', '')}".strip()


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _gpu_name(option: Mapping[str, Any]) -> str:
    gpu = option.get("gpu")
    if isinstance(gpu, Mapping):
        return str(gpu.get("name") or gpu.get("id") or "?")
    return str(option.get("gpu_name") or gpu or "?")


def _layout(option: Mapping[str, Any]) -> str:
    layout = option.get("layout")
    if isinstance(layout, Mapping):
        text = ", ".join(f"{k}={v}" for k, v in layout.items() if v not in (None, "", 1) or k in ("tp", "pp"))
        return text or "–"
    return str(layout or "–")


def _fits(option: Mapping[str, Any], w: Mapping[str, str]) -> str:
    fits = option.get("fits")
    return "–" if fits is None else (w["yes"] if fits else w["no"])


def _memory(option: Mapping[str, Any]) -> str:
    per_gpu = option.get("per_gpu_bytes")
    total = per_gpu.get("total") if isinstance(per_gpu, Mapping) else per_gpu
    cap = option.get("gpu_memory_bytes") or option.get("capacity_bytes") or option.get("memory_bytes")
    text = fmt_gib(total)
    return f"{text} / {fmt_gib(cap)}" if cap else text


def _decode(option: Mapping[str, Any]) -> str:
    tp = option.get("throughput")
    if not isinstance(tp, Mapping):
        return "–"
    total = tp.get("decode_tokens_per_s_total")
    per_seq = tp.get("decode_tokens_per_s")
    if total is not None:
        return fmt_rate(total)
    return fmt_rate(per_seq)


def _price(option: Mapping[str, Any], w: Mapping[str, str]) -> str:
    price = option.get("price")
    text = fmt_money(price)
    date = price.get("as_of") or price.get("date") if isinstance(price, Mapping) else None
    return f"{text} ({w['as_of'].format(date=date)})" if date and text != "–" else text


def option_rows(options: Sequence[Mapping[str, Any]], lang: str = "en") -> list[list[str]]:
    """Header row plus one row per option: #, GPU, count, layout, memory per GPU, fits, decode tok/s, price."""
    w = words(lang)
    header = [w["rank"], w["gpu"], w["count"], w["layout"], w["memory"], w["fits"], w["decode"], w["price"]]
    rows = [header]
    for i, opt in enumerate(options, 1):
        rows.append([
            str(i), _gpu_name(opt), "–" if opt.get("count") is None else str(opt["count"]), _layout(opt),
            _memory(opt), _fits(opt, w),
            _decode(opt), _price(opt, w),
        ])
    return rows


# ------------------------------------------------------------------------------------------------- blocks

def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(text, MAX_SECTION_TEXT)}]}


def text_blocks(mrkdwn: str, max_blocks: int = 8) -> list[dict[str, Any]]:
    """Sections holding `mrkdwn` (already escaped), each within the section text limit."""
    return [section(c) for c in split_mrkdwn(mrkdwn)[:max_blocks]]


def options_blocks(options: Sequence[Mapping[str, Any]], lang: str = "en",
                   style: TableStyle = "table") -> list[dict[str, Any]]:
    """The ranked options as a Block Kit `table` block (style "table") or as one fields section per option."""
    if not options:
        return []
    w = words(lang)
    shown = list(options)[:MAX_OPTIONS]
    rows = option_rows(shown, lang)
    blocks: list[dict[str, Any]] = [section(f"*{escape(w['options'])}*")]
    if style == "table":
        blocks.append({
            "type": "table",
            "column_settings": [{"align": "right"}, {"align": "left", "is_wrapped": True}, {"align": "right"},
                                {"align": "left"}, {"align": "right"}, {"align": "center"}, {"align": "right"},
                                {"align": "right", "is_wrapped": True}],
            "rows": [[{"type": "raw_text", "text": plain(c, 200) or "–"} for c in r] for r in rows],
        })
    else:
        head = rows[0]
        for r in rows[1:]:
            title = f"*{escape(r[0])}. {escape(r[1])} × {escape(r[2])}*"
            fields = [{"type": "mrkdwn", "text": truncate(f"*{escape(head[j])}*\n{escape(r[j])}", MAX_FIELD_TEXT)}
                      for j in range(3, len(r))]
            blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": title}, "fields": fields[:MAX_FIELDS]})
    if len(options) > len(shown):
        blocks.append(context(escape(w["more_options"].format(n=len(options) - len(shown)))))
    return blocks


def finding_lines(findings: Iterable[Any], lang: str = "en") -> list[str]:
    """One escaped mrkdwn line per finding: icon, rule id, message in `lang`, source and "as of" date."""
    w = words(lang)
    lines, seen = [], set()
    for f in findings:
        rule_id = str(_get(f, "rule_id", "") or "")
        message = (_get(f, "message_zh") if lang == "zh" else None) or _get(f, "message", "") or ""
        if (rule_id, message) in seen:
            continue
        seen.add((rule_id, message))
        icon = _SEVERITY_ICON.get(str(_get(f, "severity", "info")), ":information_source:")
        line = f"{icon} `{escape(rule_id)}` {escape(message)}"
        source = _get(f, "source", "")
        if source:
            line += f"\n      _{escape(w['source'])}: {escape(source)}_"
        as_of = _get(f, "as_of")
        if as_of:
            line += f" ({escape(w['as_of'].format(date=as_of))})"
        lines.append(line)
    return lines


def findings_blocks(findings: Sequence[Any], lang: str = "en") -> list[dict[str, Any]]:
    lines = finding_lines(list(findings)[:MAX_FINDINGS], lang)
    if not lines:
        return []
    w = words(lang)
    return text_blocks(f"*{escape(w['findings'])}*\n" + "\n".join(lines), max_blocks=4)


def web_url_for(base_url: str, query: str = "", workload: Mapping[str, Any] | None = None) -> str | None:
    """Link to the web app showing the same question; None when `base_url` is not an http(s) URL.

    The query string carries `q` (the question) so the web app can pre-fill it; the URL is cut to Slack's
    3000-character button limit by shortening `q`.
    """
    if not base_url or not re.match(r"^https?://[^\s<>|]+$", base_url.strip(), re.IGNORECASE):
        return None
    base = base_url.strip()
    if not query:
        return base[:MAX_BUTTON_URL]
    sep = "&" if "?" in base else "?"
    q = query
    while True:
        url = base + sep + urllib.parse.urlencode({"q": q})
        if len(url) <= MAX_BUTTON_URL or not q:
            return url if len(url) <= MAX_BUTTON_URL else base[:MAX_BUTTON_URL]
        q = q[: int(len(q) * 0.8)]


def web_button(url: str, lang: str = "en") -> dict[str, Any]:
    return {"type": "actions", "elements": [{
        "type": "button", "action_id": "open_web_app",
        "text": {"type": "plain_text", "text": plain(words(lang)["open"], 75)}, "url": url,
    }]}


# ------------------------------------------------------------------------------------------------- a Turn

def render_turn(turn: Any, *, web_url: str | None = None, query: str = "", style: TableStyle = "table",
                ) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for one Turn: summary, clarifying questions, ranked options, findings, note, mode, link.

    `turn` is an `advisor.conversation.turn.Turn` (or anything with the same attributes/keys).
    """
    lang = "zh" if _get(turn, "lang", "en") == "zh" else "en"
    w = words(lang)
    from ui.slack_details import first_screen, has_details

    answer = str(_get(turn, "answer", "") or "")
    options = list(_get(turn, "options", []) or [])
    questions = [str(q) for q in (_get(turn, "questions", []) or []) if str(q).strip()]
    findings = list(_get(turn, "findings", []) or [])
    if has_details(answer):  # the first screen here; the sections (findings among them) go to the thread reply
        answer, findings = first_screen(answer), []

    shortened = False
    if options:  # summary, then the options table, then the rest of the answer without its tables
        head_md, rest_md = split_summary(answer)
        details, shortened = cut_lines(md_to_mrkdwn(drop_tables(rest_md)), DETAILS_CHARS)
        blocks: list[dict[str, Any]] = text_blocks(md_to_mrkdwn(head_md), max_blocks=1)
        shortened = shortened or len(split_mrkdwn(md_to_mrkdwn(head_md))) > 1
        blocks += options_blocks(options, lang, style)
        blocks += text_blocks(details, max_blocks=1)
    else:
        body = md_to_mrkdwn(answer)
        blocks = text_blocks(body, max_blocks=8)
        shortened = len(split_mrkdwn(body)) > 8

    if questions:
        shown = "\n".join((b.get("text") or {}).get("text", "") for b in blocks)
        listed = [q for q in questions if md_to_mrkdwn(q.strip()) not in shown]
        if listed:
            lines = "\n".join("• " + md_to_mrkdwn(q) for q in listed[:5])
            blocks += text_blocks(f"*{escape(w['questions'])}*\n{lines}", max_blocks=2)

    blocks += findings_blocks(findings, lang)

    notes = []
    note = str(_get(turn, "note", "") or "")
    if note:
        notes.append(escape(truncate(note, 500)))
    model = _get(turn, "model_name")
    mode = _get(turn, "mode", "deterministic")
    notes.append(escape(w["mode_llm"].format(model=model or "?") if mode == "llm" else w["mode_det"]))
    if shortened:
        notes.append(escape(w["truncated"]))
    blocks.append(context("  ·  ".join(notes)))

    url = web_url_for(web_url or "", query)
    if url:
        blocks.append(web_button(url, lang))

    blocks = clamp_blocks(blocks, lang)
    fallback = truncate(md_to_mrkdwn(summarize(answer, MAX_FALLBACK_TEXT - 100)) or escape(w["options"]),
                        MAX_FALLBACK_TEXT)
    return fallback, blocks


def render_text(markdown: str, *, note: str = "") -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for a plain reply written by the bot (help, errors, limits)."""
    body = md_to_mrkdwn(markdown)
    blocks = text_blocks(body, max_blocks=6)
    if note:
        blocks.append(context(escape(note)))
    return truncate(body, MAX_FALLBACK_TEXT), clamp_blocks(blocks, detect_lang(markdown))


def clamp_blocks(blocks: list[dict[str, Any]], lang: str = "en") -> list[dict[str, Any]]:
    """At most 50 blocks and one table: drop the overflow, keep the trailing link button, say it was shortened."""
    seen_table = False
    kept = []
    for b in blocks:
        if b.get("type") == "table":
            if seen_table:
                continue
            seen_table = True
        kept.append(b)
    if len(kept) <= MAX_BLOCKS:
        return kept
    tail = [kept[-1]] if kept[-1].get("type") == "actions" else []
    room = MAX_BLOCKS - 1 - len(tail)
    return kept[:room] + [context(escape(words(lang)["truncated"]))] + tail


def check_limits(blocks: Sequence[Mapping[str, Any]]) -> list[str]:
    """Problems with `blocks` against Slack's documented limits (empty when all is well)."""
    problems = []
    if len(blocks) > MAX_BLOCKS:
        problems.append(f"{len(blocks)} blocks > {MAX_BLOCKS}")
    tables = 0
    for i, b in enumerate(blocks):
        kind = b.get("type")
        if kind == "section":
            text = (b.get("text") or {}).get("text", "")
            if len(text) > MAX_SECTION_TEXT:
                problems.append(f"block {i}: section text {len(text)} > {MAX_SECTION_TEXT}")
            if not text and not b.get("fields"):
                problems.append(f"block {i}: empty section")
            fields = b.get("fields") or []
            if len(fields) > MAX_FIELDS:
                problems.append(f"block {i}: {len(fields)} fields > {MAX_FIELDS}")
            problems += [f"block {i}: field text > {MAX_FIELD_TEXT}" for f in fields
                         if len(f.get("text", "")) > MAX_FIELD_TEXT]
        elif kind == "context":
            elements = b.get("elements") or []
            if not elements or len(elements) > MAX_CONTEXT_ELEMENTS:
                problems.append(f"block {i}: context with {len(elements)} elements")
            problems += [f"block {i}: context text > {MAX_SECTION_TEXT}" for e in elements
                         if len(e.get("text", "")) > MAX_SECTION_TEXT]
        elif kind == "header":
            if len((b.get("text") or {}).get("text", "")) > MAX_HEADER_TEXT:
                problems.append(f"block {i}: header text > {MAX_HEADER_TEXT}")
        elif kind == "table":
            tables += 1
            rows = b.get("rows") or []
            if not rows or len(rows) > MAX_TABLE_ROWS:
                problems.append(f"block {i}: table with {len(rows)} rows")
            problems += [f"block {i}: table row with {len(r)} cells" for r in rows if len(r) > MAX_TABLE_CELLS]
            problems += [f"block {i}: empty table cell" for r in rows for c in r
                         if c.get("type") == "raw_text" and not str(c.get("text", "")).strip()]
        elif kind == "actions":
            for e in b.get("elements") or []:
                if len(e.get("url", "")) > MAX_BUTTON_URL:
                    problems.append(f"block {i}: button url > {MAX_BUTTON_URL}")
    if tables > 1:
        problems.append(f"{tables} table blocks > 1")
    return problems
