"""A `ui.quote.document.Quote` as Markdown (to paste) and as print-ready HTML (A4, to print or turn into a PDF with
`ui.quote.pdf`). Both show the same sections in the same order; the HTML escapes every text it shows."""

from __future__ import annotations

import html
import re
from typing import Any

from knowledge.messages import known
from knowledge.messages import t as message
from ui.quote.document import PriceLine, Quote, money_words
from ui.web.messages import escape_html, safe_markdown

# words that mark an assumption as an engine or implementation detail: the appendix keeps it, the first pages do not
TECHNICAL = ("vllm", "engine", "nvidia-smi", "llama.cpp", "kv cache", "sequence(s)", "`", "tp ", "gguf", "cuda")


def t(key: str, lang: str, **fmt: Any) -> str:
    """The quote page's phrase `key` (knowledge/messages: "quote.page.KEY") in `lang`."""
    return message(f"quote.page.{key}", lang, **fmt)


def _severity(severity: str, lang: str) -> str:
    key = f"severity.{severity}"
    return message(key, lang) if known(key) else severity


def _when(q: Quote) -> str:
    return q.generated_at.strftime("%Y-%m-%d %H:%M UTC")


def _made(q: Quote) -> str:
    return t("made", q.lang, when=_when(q), asof=q.prices_as_of or "–", valid=q.valid_until)


def plain_assumptions(q: Quote, limit: int = 6) -> list[str]:
    """The assumptions a customer reads on the first pages: none that names an engine or implementation detail
    (`TECHNICAL`), at most `limit`; the appendix lists them all."""
    return [a for a in q.assumptions if not any(w in a.lower() for w in TECHNICAL)][:limit]


def _amount(p: PriceLine) -> str:
    if p.currency in ("CNY", "USD"):
        return money_words(p.amount, p.currency)
    value = f"{p.amount:,.2f}" if abs(p.amount) < 100 else f"{p.amount:,.0f}"
    return f"{value} {p.currency}".strip()


def _price_cells(p: PriceLine) -> list[str]:
    return [p.item, _amount(p), p.condition, p.as_of or "–", p.reliability or "–", p.source or "–"]


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def quote_markdown(q: Quote) -> str:
    """The quote as Markdown: what a customer reads first (request, requirements, the recommended configuration
    with its full price, alternatives, key assumptions and risks), then the technical appendix (full ranking,
    memory, dated prices and sources, launch hints, findings with their rule ids, every assumption)."""
    lang = q.lang
    out = [f"# {t('title', lang)}", "", _made(q), ""]
    if q.request:
        out += [f"## {t('request', lang)}", ""]
        out += [f"{i}. " + escape_html(msg).replace("\n", " ") for i, msg in enumerate(q.request, 1)] + [""]
    if q.job:
        out += [f"## {t('job', lang)}", "", *[f"- {w}" for w in q.job], ""]
    out += [f"## {t('constraints', lang)}", "", *([f"- {w}" for w in q.constraints] or [f"- {t('none', lang)}"]), ""]
    if q.configuration:
        out += [f"## {t('config', lang)}", "", f"**{q.configuration}**", ""]
    if q.alternatives:
        out += [f"## {t('alternatives', lang)}", "", "| " + t("alt_head", lang) + " |", "|---|---|---|---|---|"]
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in q.alternatives] + [""]
    elif q.configuration:
        out += [f"## {t('alternatives', lang)}", "", t("no_alternatives", lang), ""]
    plain = plain_assumptions(q)
    if plain or q.risks:
        out += [f"## {t('assumptions_risks', lang)}", "", *[f"- {a}" for a in plain], *[f"- ⚠ {r}" for r in q.risks],
                ""]
    out += ["---", "", f"## {t('appendix', lang)}", "", t("appendix_note", lang, gen=q.generator), ""]
    if q.headline:
        out += [f"### {t('headline', lang)}", "", q.headline, ""]
    if q.table["data"]:
        out += [f"### {t('options', lang)}", "", "| " + " | ".join(q.table["headers"]) + " |",
                "|" + "---|" * len(q.table["headers"])]
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in q.table["data"]] + [""]
    if q.memory:
        head = t("memory_head", lang)
        out += [f"### {t('memory', lang)}", "", f"| {head} |", "|---|---|"]
        out += [f"| {part} | {gib:,.2f} |" for part, gib in q.memory] + ["", t("gib", lang), ""]
    if q.prices:
        out += [f"### {t('prices', lang)}", "", "| " + t("price_head", lang) + " |", "|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(_md_cell(c) for c in _price_cells(p)) + " |" for p in q.prices] + [""]
        if q.stale_prices:
            out += [t("stale", lang, items=", ".join(q.stale_prices)), ""]
    if q.launch_hints:
        out += [f"### {t('hints', lang)}", ""]
        out += [f"- {name}: `{hint.replace('`', '')}`" for name, hint in q.launch_hints] + [""]
    if q.findings:
        out += [f"### {t('findings', lang)}", ""]
        for f in q.findings:
            line = f"- **{_severity(f.severity, lang)} · {f.title}** — {f.message}"
            small = [*f.sources] + ([message("finding.as_of", lang, when=f.as_of)] if f.as_of else [])
            small.append(f"{t('rule', lang)} `{f.rule_id}`")
            out.append(line + "  \n  _" + "; ".join(small) + "_")
        out.append("")
    if q.sources:
        out += [f"### {t('sources', lang)}", "", *[f"- {s}" for s in q.sources], ""]
    if q.assumptions:
        out += [f"### {t('assumptions', lang)}", "", *[f"- {a}" for a in q.assumptions], ""]
    return safe_markdown("\n".join(out).rstrip() + "\n")


PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans CJK SC", "Noto Sans", "DejaVu Sans", sans-serif; font-size: 10pt; line-height: 1.4;
       color: #111; max-width: 182mm; margin: 0 auto; overflow-wrap: break-word; word-break: normal;
       hyphens: manual; }
h1 { font-size: 16pt; margin: 0 0 4pt; } h2 { font-size: 12pt; margin: 10pt 0 4pt; border-bottom: 1px solid #999; }
h3 { font-size: 10.5pt; margin: 8pt 0 3pt; }
p.made { color: #444; font-size: 9pt; } p.config { font-weight: bold; font-size: 11pt; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; margin: 4pt 0; font-size: 8.5pt; }
th, td { border: 1px solid #bbb; padding: 2pt 3pt; vertical-align: top; text-align: left; }
th { background: #eee; }
code, .url { font-size: 8pt; white-space: pre-wrap; overflow-wrap: anywhere; }
li { margin: 2pt 0; } .small { color: #444; font-size: 8.5pt; }
tr, li { break-inside: avoid; }
section.appendix { break-before: page; }
section.appendix table { font-size: 8pt; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


_URL = re.compile(r"(https?://\S+)")


def _e_url(text: Any) -> str:
    """Escaped text whose URLs may break anywhere (they have no spaces); words elsewhere never break."""
    return "".join(f'<span class="url">{_e(part)}</span>' if _URL.fullmatch(part) else _e(part)
                   for part in _URL.split(str(text)))


# column widths (% of the page) by column count: ranked options (9), prices (6), alternatives (5), memory (2)
WIDTHS = {9: (4, 13, 20, 7, 7, 9, 13, 14, 13), 6: (17, 11, 9, 11, 9, 43), 5: (24, 19, 20, 19, 18), 2: (60, 40)}


def _table(headers: list[str], rows: list[list[Any]] | list[tuple[str, ...]]) -> str:
    widths = WIDTHS.get(len(headers))
    cols = ("<colgroup>" + "".join(f'<col style="width:{w}%">' for w in widths) + "</colgroup>") if widths else ""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e_url(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{cols}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _list(items: Any, tag: str = "ul") -> str:
    return f"<{tag}>" + "".join(f"<li>{_e_url(i)}</li>" for i in items) + f"</{tag}>"


def quote_html(q: Quote) -> str:
    """The quote as a self-contained, print-ready HTML page (A4, no scripts, no outside resources): the customer's
    pages first, then the technical appendix on a new page."""
    lang = q.lang
    parts = [f"<h1>{_e(t('title', lang))}</h1>", f"<p class=made>{_e(_made(q))}</p>"]
    if q.request:
        parts.append(f"<h2>{_e(t('request', lang))}</h2>" + _list(q.request, "ol"))
    if q.job:
        parts.append(f"<h2>{_e(t('job', lang))}</h2>" + _list(q.job))
    parts.append(f"<h2>{_e(t('constraints', lang))}</h2>" + _list(q.constraints or (t("none", lang),)))
    if q.configuration:
        parts.append(f"<h2>{_e(t('config', lang))}</h2><p class=config>{_e(q.configuration)}</p>")
    if q.alternatives:
        parts.append(f"<h2>{_e(t('alternatives', lang))}</h2>" + _table(t("alt_head", lang).split(" | "),
                                                                         list(q.alternatives)))
    elif q.configuration:
        parts.append(f"<h2>{_e(t('alternatives', lang))}</h2><p>{_e(t('no_alternatives', lang))}</p>")
    plain = plain_assumptions(q)
    if plain or q.risks:
        parts.append(f"<h2>{_e(t('assumptions_risks', lang))}</h2>" + _list([*plain, *[f"⚠ {r}" for r in q.risks]]))
    app = [f"<h2>{_e(t('appendix', lang))}</h2><p class=small>{_e(t('appendix_note', lang, gen=q.generator))}</p>"]
    if q.headline:
        app.append(f"<h3>{_e(t('headline', lang))}</h3><p>{_e(q.headline)}</p>")
    if q.table["data"]:
        app.append(f"<h3>{_e(t('options', lang))}</h3>" + _table(q.table["headers"], q.table["data"]))
    if q.memory:
        app.append(f"<h3>{_e(t('memory', lang))}</h3>"
                   + _table(t("memory_head", lang).split(" | "),
                            [[p, f"{g:,.2f}"] for p, g in q.memory]) + f"<p class=small>{_e(t('gib', lang))}</p>")
    if q.prices:
        app.append(f"<h3>{_e(t('prices', lang))}</h3>"
                   + _table(t("price_head", lang).split(" | "), [_price_cells(p) for p in q.prices]))
        if q.stale_prices:
            app.append(f"<p class=small>{_e(t('stale', lang, items=', '.join(q.stale_prices)))}</p>")
    if q.launch_hints:
        app.append(f"<h3>{_e(t('hints', lang))}</h3><ul>"
                   + "".join(f"<li>{_e(n)}: <code>{_e(h)}</code></li>" for n, h in q.launch_hints) + "</ul>")
    if q.findings:
        items = []
        for f in q.findings:
            small = [*f.sources] + ([message("finding.as_of", lang, when=f.as_of)] if f.as_of else [])
            small.append(f"{t('rule', lang)} {f.rule_id}")
            items.append(f"<li><b>{_e(_severity(f.severity, lang))} · {_e(f.title)}</b> — {_e(f.message)}"
                         f"<br><span class=small>{_e_url('; '.join(small))}</span></li>")
        app.append(f"<h3>{_e(t('findings', lang))}</h3><ul>" + "".join(items) + "</ul>")
    if q.sources:
        app.append(f"<h3>{_e(t('sources', lang))}</h3>" + _list(q.sources))
    if q.assumptions:
        app.append(f"<h3>{_e(t('assumptions', lang))}</h3>" + _list(q.assumptions))
    parts.append('<section class="appendix">' + "\n".join(app) + "</section>")
    return (f"<!doctype html><html lang=\"{message('html.lang', lang)}\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(t('title', lang))}</title><style>{PRINT_CSS}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")
