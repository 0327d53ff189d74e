"""A `ui.quote.Quote` as Markdown (to paste) and as print-ready HTML (A4, to print or turn into a PDF with
`ui.quote_pdf`). Both show the same sections in the same order; the HTML escapes every text it shows."""

from __future__ import annotations

import html
from typing import Any

from ui.quote import PriceLine, Quote
from ui.web_messages import escape_html, safe_markdown

# section titles and fixed phrases, (English, Chinese)
T: dict[str, tuple[str, str]] = {
    "title": ("GPU recommendation", "GPU 配置建议"),
    "made": ("Generated {when} by {gen}. Valid until {valid} (prices move: re-confirm with the supplier after that).",
             "生成于 {when}，{gen}。有效期至 {valid}（价格会变动，之后请向供应商重新确认）。"),
    "request": ("Request", "需求"),
    "job": ("Job", "任务"),
    "constraints": ("Constraints", "约束"),
    "headline": ("Recommendation", "推荐结论"),
    "options": ("Ranked options", "候选方案"),
    "memory": ("Memory per GPU, first option", "首选方案的单卡显存"),
    "gib": ("1 GiB = 2^30 bytes.", "1 GiB = 2^30 字节。"),
    "prices": ("Prices and dated inputs", "价格与带日期的输入"),
    "price_head": ("item | amount | condition | as of | source reliability | source",
                   "项目 | 金额 | 成色 | 日期 | 来源可靠性 | 出处"),
    "stale": ("Older than a year at quote time — get a fresh supplier quote: {items}.",
              "报价时已超过一年，请向供应商重新询价：{items}。"),
    "hints": ("Launch hints", "启动参考"),
    "findings": ("Findings", "规则提示"),
    "sources": ("Sources", "出处"),
    "assumptions": ("Assumptions", "假设"),
    "rule": ("rule", "规则"),
    "none": ("none", "无"),
}
SEVERITY = {"block": ("blocking", "阻断"), "warn": ("warning", "警告"), "info": ("note", "提示")}


def t(key: str, lang: str, **fmt: Any) -> str:
    text = T[key][1] if lang == "zh" else T[key][0]
    return text.format(**fmt) if fmt else text


def _when(q: Quote) -> str:
    return q.generated_at.strftime("%Y-%m-%d %H:%M UTC")


def _amount(p: PriceLine) -> str:
    from ui.quote import money_words

    if p.currency in ("CNY", "USD"):
        return money_words(p.amount, p.currency)
    value = f"{p.amount:,.2f}" if abs(p.amount) < 100 else f"{p.amount:,.0f}"
    return f"{value} {p.currency}".strip()


def _price_cells(p: PriceLine) -> list[str]:
    return [p.item, _amount(p), p.condition, p.as_of or "–", p.reliability or "–", p.source or "–"]


def _md_cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def quote_markdown(q: Quote) -> str:
    """The quote as Markdown: request, job and constraints in words, headline, options, memory, prices, launch
    hints, findings (each once), sources, assumptions."""
    lang = q.lang
    out = [f"# {t('title', lang)}", "", t("made", lang, when=_when(q), gen=q.generator, valid=q.valid_until), ""]
    if q.request:
        out += [f"## {t('request', lang)}", ""]
        out += [f"{i}. " + escape_html(msg).replace("\n", " ") for i, msg in enumerate(q.request, 1)] + [""]
    if q.job:
        out += [f"## {t('job', lang)}", "", *[f"- {w}" for w in q.job], ""]
    out += [f"## {t('constraints', lang)}", "", *([f"- {w}" for w in q.constraints] or [f"- {t('none', lang)}"]), ""]
    if q.headline:
        out += [f"## {t('headline', lang)}", "", f"**{q.headline}**", ""]
    if q.table["data"]:
        out += [f"## {t('options', lang)}", "", "| " + " | ".join(q.table["headers"]) + " |",
                "|" + "---|" * len(q.table["headers"])]
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in q.table["data"]] + [""]
    if q.memory:
        head = "组成 | GiB" if lang == "zh" else "part | GiB"
        out += [f"## {t('memory', lang)}", "", f"| {head} |", "|---|---|"]
        out += [f"| {part} | {gib:,.2f} |" for part, gib in q.memory] + ["", t("gib", lang), ""]
    if q.prices:
        out += [f"## {t('prices', lang)}", "", "| " + t("price_head", lang) + " |", "|---|---|---|---|---|---|"]
        out += ["| " + " | ".join(_md_cell(c) for c in _price_cells(p)) + " |" for p in q.prices] + [""]
        if q.stale_prices:
            out += [t("stale", lang, items=", ".join(q.stale_prices)), ""]
    if q.launch_hints:
        out += [f"## {t('hints', lang)}", ""]
        out += [f"- {name}: `{hint.replace('`', '')}`" for name, hint in q.launch_hints] + [""]
    if q.findings:
        out += [f"## {t('findings', lang)}", ""]
        for f in q.findings:
            sev = SEVERITY.get(f.severity, (f.severity, f.severity))
            line = f"- **{sev[1] if lang == 'zh' else sev[0]} · {f.title}** — {f.message}"
            small = [*f.sources] + ([f"as of {f.as_of}" if lang == "en" else f"截至 {f.as_of}"] if f.as_of else [])
            small.append(f"{t('rule', lang)} `{f.rule_id}`")
            out.append(line + "  \n  _" + "; ".join(small) + "_")
        out.append("")
    if q.sources:
        out += [f"## {t('sources', lang)}", "", *[f"- {s}" for s in q.sources], ""]
    if q.assumptions:
        out += [f"## {t('assumptions', lang)}", "", *[f"- {a}" for a in q.assumptions], ""]
    return safe_markdown("\n".join(out).rstrip() + "\n")


PRINT_CSS = """
@page { size: A4; margin: 16mm 14mm; }
* { box-sizing: border-box; }
body { font-family: "Noto Sans CJK SC", "Noto Sans", "DejaVu Sans", sans-serif; font-size: 10pt; line-height: 1.4;
       color: #111; max-width: 182mm; margin: 0 auto; overflow-wrap: anywhere; }
h1 { font-size: 16pt; margin: 0 0 4pt; } h2 { font-size: 12pt; margin: 12pt 0 4pt; border-bottom: 1px solid #999; }
p.made { color: #444; font-size: 9pt; } p.headline { font-weight: bold; font-size: 11pt; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; margin: 4pt 0; font-size: 8.5pt; }
th, td { border: 1px solid #bbb; padding: 2pt 3pt; vertical-align: top; text-align: left; overflow-wrap: anywhere; }
th { background: #eee; }
code { font-size: 8pt; white-space: pre-wrap; overflow-wrap: anywhere; }
li { margin: 2pt 0; } .small { color: #444; font-size: 8.5pt; }
tr, li { break-inside: avoid; }
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


# column widths (% of the page) of the quote's tables, by column count: ranked options (9), prices (6), memory (2)
WIDTHS = {9: (4, 11, 19, 8, 8, 9, 13, 14, 14), 6: (18, 11, 9, 11, 9, 42), 2: (60, 40)}


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    widths = WIDTHS.get(len(headers))
    cols = ("<colgroup>" + "".join(f'<col style="width:{w}%">' for w in widths) + "</colgroup>") if widths else ""
    head = cols + "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{cols}<thead><tr>{head[len(cols):]}</tr></thead><tbody>{body}</tbody></table>"


def quote_html(q: Quote) -> str:
    """The quote as a self-contained, print-ready HTML page (A4, no scripts, no outside resources)."""
    lang = q.lang
    parts = [f"<h1>{_e(t('title', lang))}</h1>",
             f"<p class=made>{_e(t('made', lang, when=_when(q), gen=q.generator, valid=q.valid_until))}</p>"]
    if q.request:
        parts.append(f"<h2>{_e(t('request', lang))}</h2><ol>" + "".join(f"<li>{_e(m)}</li>" for m in q.request)
                     + "</ol>")
    if q.job:
        parts.append(f"<h2>{_e(t('job', lang))}</h2><ul>" + "".join(f"<li>{_e(w)}</li>" for w in q.job) + "</ul>")
    parts.append(f"<h2>{_e(t('constraints', lang))}</h2><ul>"
                 + "".join(f"<li>{_e(w)}</li>" for w in (q.constraints or (t("none", lang),))) + "</ul>")
    if q.headline:
        parts.append(f"<h2>{_e(t('headline', lang))}</h2><p class=headline>{_e(q.headline)}</p>")
    if q.table["data"]:
        parts.append(f"<h2>{_e(t('options', lang))}</h2>" + _table(q.table["headers"], q.table["data"]))
    if q.memory:
        parts.append(f"<h2>{_e(t('memory', lang))}</h2>"
                     + _table(["组成", "GiB"] if lang == "zh" else ["part", "GiB"],
                              [[p, f"{g:,.2f}"] for p, g in q.memory]) + f"<p class=small>{_e(t('gib', lang))}</p>")
    if q.prices:
        parts.append(f"<h2>{_e(t('prices', lang))}</h2>"
                     + _table(t("price_head", lang).split(" | "), [_price_cells(p) for p in q.prices]))
        if q.stale_prices:
            parts.append(f"<p class=small>{_e(t('stale', lang, items=', '.join(q.stale_prices)))}</p>")
    if q.launch_hints:
        parts.append(f"<h2>{_e(t('hints', lang))}</h2><ul>"
                     + "".join(f"<li>{_e(n)}: <code>{_e(h)}</code></li>" for n, h in q.launch_hints) + "</ul>")
    if q.findings:
        items = []
        for f in q.findings:
            sev = SEVERITY.get(f.severity, (f.severity, f.severity))
            small = [*f.sources] + ([("截至 " if lang == "zh" else "as of ") + f.as_of] if f.as_of else [])
            small.append(f"{t('rule', lang)} {f.rule_id}")
            items.append(f"<li><b>{_e(sev[1] if lang == 'zh' else sev[0])} · {_e(f.title)}</b> — {_e(f.message)}"
                         f"<br><span class=small>{_e('; '.join(small))}</span></li>")
        parts.append(f"<h2>{_e(t('findings', lang))}</h2><ul>" + "".join(items) + "</ul>")
    if q.sources:
        parts.append(f"<h2>{_e(t('sources', lang))}</h2><ul>" + "".join(f"<li>{_e(s)}</li>" for s in q.sources)
                     + "</ul>")
    if q.assumptions:
        parts.append(f"<h2>{_e(t('assumptions', lang))}</h2><ul>"
                     + "".join(f"<li>{_e(a)}</li>" for a in q.assumptions) + "</ul>")
    return (f"<!doctype html><html lang=\"{'zh-CN' if lang == 'zh' else 'en'}\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(t('title', lang))}</title><style>{PRINT_CSS}</style></head><body>"
            + "\n".join(parts) + "</body></html>\n")
