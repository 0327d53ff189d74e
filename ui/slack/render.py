"""Turn → Slack message (Block Kit), as pure functions. No Slack client, no I/O.

The options as a table block (or, where Slack refuses tables, one section of fields per option), the findings with
their sources, the answer itself (`ui.slack.text`: escaped, Markdown → mrkdwn, split to Slack's limits), the
"open in the web app" button and the mode. `render_turn` checks its own output against Block Kit's limits
(`check_limits`) before returning. Slack's text functions are importable from here too, under the names the bot
and the tests have always used.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from advisor.conversation.render.firstscreen import split_details
from knowledge.messages import known, t
from knowledge.quantities import memory_text
from ui.citations import source_without_path
from ui.slack.text import (
    DETAILS_CHARS,
    MAX_BLOCKS,
    MAX_BUTTON_URL,
    MAX_CONTEXT_ELEMENTS,
    MAX_FALLBACK_TEXT,
    MAX_FIELD_TEXT,
    MAX_FIELDS,
    MAX_FINDINGS,
    MAX_HEADER_TEXT,
    MAX_OPTIONS,
    MAX_SECTION_TEXT,
    MAX_TABLE_CELLS,
    MAX_TABLE_ROWS,
    SUMMARY_CHARS,
    TableStyle,
    cut_lines,
    detect_lang,
    drop_tables,
    escape,
    md_to_mrkdwn,
    plain,
    split_mrkdwn,
    split_summary,
    summarize,
    truncate,
)
from ui.turn_like import TurnLike
from ui.turn_like import get_field as _get

__all__ = [
    "DETAILS_CHARS",
    "MAX_BLOCKS",
    "MAX_BUTTON_URL",
    "MAX_CONTEXT_ELEMENTS",
    "MAX_FALLBACK_TEXT",
    "MAX_FIELDS",
    "MAX_FIELD_TEXT",
    "MAX_FINDINGS",
    "MAX_HEADER_TEXT",
    "MAX_OPTIONS",
    "MAX_SECTION_TEXT",
    "MAX_TABLE_CELLS",
    "MAX_TABLE_ROWS",
    "SUMMARY_CHARS",
    "TableStyle",
    "check_limits",
    "clamp_blocks",
    "context",
    "cut_lines",
    "detect_lang",
    "drop_tables",
    "escape",
    "finding_lines",
    "findings_blocks",
    "fmt_gib",
    "fmt_money",
    "fmt_rate",
    "md_to_mrkdwn",
    "option_rows",
    "options_blocks",
    "plain",
    "render_text",
    "render_turn",
    "section",
    "split_mrkdwn",
    "split_summary",
    "summarize",
    "text_blocks",
    "truncate",
    "web_button",
    "web_url_for",
    "words",
]


# ------------------------------------------------------------------------------------------------- wording

# The labels of the Slack blocks (knowledge/messages: "slack.word.KEY"), per language once.
_WORD_KEYS = ("options", "rank", "gpu", "count", "layout", "memory", "fits", "decode", "price", "yes", "no", "findings", "questions", "open", "mode_llm", "mode_det", "truncated", "as_of", "per_seq", "total", "source", "more_options")
_BY_LANG: dict[str, dict[str, str]] = {}

_SEVERITY_ICON = {"block": ":no_entry:", "warn": ":warning:", "info": ":information_source:"}


def words(lang: str) -> dict[str, str]:
    """The labels in `lang` ("zh", else English)."""
    lang = "zh" if lang == "zh" else "en"
    found = _BY_LANG.get(lang)
    if found is None:
        found = _BY_LANG[lang] = {key: t(f"slack.word.{key}", lang) for key in _WORD_KEYS}
    return found


# --------------------------------------------------------------------------------------------- formatting

def fmt_gib(n_bytes: Any) -> str:
    """Bytes → "61.2 GiB" (1 GiB = 2^30 bytes)."""
    try:
        return memory_text(float(n_bytes), "GiB", grouped=True)
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


def _gpu_name(option: Mapping[str, Any]) -> str:
    gpu = option.get("gpu")
    if isinstance(gpu, Mapping):
        return str(gpu.get("name") or gpu.get("id") or "?")
    return str(option.get("gpu_name") or gpu or "?")


def _layout(option: Mapping[str, Any], lang: str = "en") -> str:
    """The layout's fields as `name=value`, named in `lang` (a field whose name is empty there is left out: the
    recommender's English one-line summary repeats the fields)."""
    layout = option.get("layout")
    if isinstance(layout, Mapping):
        shown = []
        for k, v in layout.items():
            if v in (None, "", 1) and k not in ("tp", "pp"):
                continue
            name = t(f"slack.layout.{k}", lang) if known(f"slack.layout.{k}") else k
            value = t(f"slack.layout_value.{v}", lang) if isinstance(v, str) and known(f"slack.layout_value.{v}") else v
            if name:
                shown.append(f"{name}={value}")
        return t("list.comma", lang).join(shown) or "–"
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
            str(i), _gpu_name(opt), "–" if opt.get("count") is None else str(opt["count"]), _layout(opt, lang),
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
            line += f"\n      _{escape(w['source'])}: {escape(source_without_path(str(source), lang))}_"
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


def web_url_for(base_url: str, query: str = "", workload: Mapping[str, Any] | None = None,
                conversation_id: str | None = None) -> str | None:
    """Link to the web app showing the same question; None when `base_url` is not an http(s) URL.

    With `conversation_id` (the thread's stored conversation) the link opens that conversation (`c`); otherwise
    the query string carries `q` (the question) so the web app can pre-fill it; the URL is cut to Slack's
    3000-character button limit by shortening `q`.
    """
    if not base_url or not re.match(r"^https?://[^\s<>|]+$", base_url.strip(), re.IGNORECASE):
        return None
    base = base_url.strip()
    if conversation_id:
        return base + ("&" if "?" in base else "?") + urllib.parse.urlencode({"c": conversation_id})
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

def render_turn(turn: TurnLike, *, web_url: str | None = None, query: str = "", style: TableStyle = "table",
                conversation_id: str | None = None) -> tuple[str, list[dict[str, Any]]]:
    """(fallback text, blocks) for one Turn: summary, clarifying questions, ranked options, findings, note, mode, link.

    `turn` is an `advisor.conversation.turn.Turn` (or anything with the same attributes/keys).
    """
    lang = "zh" if _get(turn, "lang", "en") == "zh" else "en"
    w = words(lang)

    answer = str(_get(turn, "answer", "") or "")
    options = list(_get(turn, "options", []) or [])
    questions = [str(q) for q in (_get(turn, "questions", []) or []) if str(q).strip()]
    findings = list(_get(turn, "findings", []) or [])
    first, sections = split_details(answer)
    if sections:  # the first screen here; the sections (findings among them) go to the thread reply
        answer, findings = first, []

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

    url = web_url_for(web_url or "", query, conversation_id=conversation_id)
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
