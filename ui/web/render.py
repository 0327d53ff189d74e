"""What the web chat shows, as pure functions of a `Turn` (no Gradio here, so all of it is testable offline): the
exports (the quote as Markdown, print-ready HTML and JSON; `ui.quote.document`), the chat API's compact options, and — under
the names the app, the quote and the tests have always used — the chat's words and messages (`ui.web.messages`)
and the panels beside the chat (`ui.web.panels`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from knowledge.structs import dump
from ui.citations import source_without_path
from ui.quote.document import build_quote
from ui.quote.render import quote_html, quote_markdown
from ui.turn_like import TurnLike
from ui.turn_like import get_field as _get
from ui.web.messages import (
    ECHO_CHARS,
    EXAMPLES,
    LABELS,
    LANGS,
    MAX_MESSAGE_CHARS,
    PART_LABELS,
    PARTS,
    STEPS_GROUP_ID,
    answer_markdown,
    assistant_message,
    check_message,
    detect_lang,
    echo_user_text,
    escape_html,
    label,
    mode_badge,
    pending_message,
    safe_markdown,
    step_message,
    steps_group_message,
    steps_messages,
    user_message,
)
from ui.web.panels import (
    SWEEP_CONTEXTS,
    TABLE_COLUMNS,
    capacity_bytes,
    context_sweep_rows,
    cost_throughput_rows,
    finding_dicts,
    findings_markdown,
    fmt_gib,
    fmt_money,
    fmt_rate,
    has_result,
    memory_chart_rows,
    money_axis_title,
    number_or_none,
    option_label,
    option_name,
    option_price,
    option_purchase,
    option_short,
    option_tco,
    option_tokens_per_s,
    options_table,
    sweep_contexts,
    workload_view,
)

__all__ = [
    "COMPACT_OPTION_KEYS", "ECHO_CHARS", "EXAMPLES", "LABELS", "LANGS", "MAX_MESSAGE_CHARS",
    "PARTS", "PART_LABELS", "STEPS_GROUP_ID", "SWEEP_CONTEXTS",
    "TABLE_COLUMNS", "answer_markdown", "assistant_message", "capacity_bytes", "check_message", "compact_option",
    "context_sweep_rows", "cost_throughput_rows", "detect_lang", "echo_user_text", "escape_html", "export_html",
    "export_json", "export_markdown", "finding_dicts", "findings_markdown", "fmt_gib", "fmt_money", "fmt_rate",
    "has_result", "label", "memory_chart_rows", "mode_badge", "money_axis_title", "number_or_none", "option_label",
    "option_name", "option_price", "option_purchase", "option_short", "option_tco", "option_tokens_per_s",
    "options_table", "pending_message", "pretty_json", "safe_markdown", "source_without_path", "step_message",
    "steps_group_message", "steps_messages", "sweep_contexts", "user_message", "workload_view",
]

def export_markdown(turn: TurnLike, *, question: str = "", questions: Sequence[str] = (), lang: str = "en",
                    generated_at: datetime | None = None) -> str:
    """The quote a sales engineer can paste (ui.quote.document): the whole request (`questions`, else `question`), job and
    constraints in words, ranked options, memory of the first option, dated prices with their condition, findings
    once each with sources by title and date, assumptions and the validity date. Memory in GiB (2^30 bytes)."""
    asked = list(questions) or ([question] if question else [])
    return quote_markdown(build_quote(turn, questions=asked, lang=lang, generated_at=generated_at))


def export_html(turn: TurnLike, *, questions: Sequence[str] = (), lang: str = "en",
                generated_at: datetime | None = None) -> str:
    """The same quote as print-ready HTML (A4; `ui.quote.pdf.html_to_pdf` prints it to PDF)."""
    return quote_html(build_quote(turn, questions=list(questions), lang=lang, generated_at=generated_at))


COMPACT_OPTION_KEYS = ("gpu", "gpu_name", "count", "nodes", "layout", "per_gpu_bytes", "capacity_bytes", "fits",
                       "throughput", "price", "labels", "launch_hint", "substitutes", "meets_targets", "misses")


def compact_option(option: Mapping[str, Any]) -> dict[str, Any]:
    """An option for the chat API's turn JSON: the contract fields, throughput without its formula lines, the
    TCO reduced to its totals and the findings to their rule ids (the export JSON keeps everything)."""
    out = {k: option[k] for k in COMPACT_OPTION_KEYS if k in option}
    if isinstance(out.get("throughput"), Mapping):
        out["throughput"] = {k: v for k, v in out["throughput"].items()
                             if not isinstance(v, (list, dict)) or k == "layout"}
    purchase, currency = option_purchase(option)
    tco, tco_cur, years = option_tco(option)
    out["purchase"] = None if purchase is None else {"amount": purchase, "currency": currency}
    out["tco"] = None if tco is None else {"amount": tco, "currency": tco_cur, "years": years}
    out["finding_ids"] = [f.get("rule_id") if isinstance(f, Mapping) else getattr(f, "rule_id", None)
                          for f in option.get("findings") or []]
    return out


def export_json(turn: TurnLike, *, question: str = "", questions: Sequence[str] = (), lang: str | None = None,
                generated_at: datetime | None = None) -> str:
    """The current recommendation as JSON: the `ask --json` contract plus options, memory, workload, steps, and
    `quote` (ui.quote.document: the whole request, constraints in words, dated prices with condition, validity date).
    Memory in bytes, throughput in tokens/s, money with an explicit currency (DESIGN.md contract units)."""
    stamp = generated_at or datetime.now(UTC)
    when = stamp.isoformat(timespec="seconds")
    asked = list(questions) or ([question] if question else [])
    quote = build_quote(turn, questions=asked, lang=lang or _get(turn, "lang", None) or "en", generated_at=stamp)
    contract = turn.to_contract() if hasattr(turn, "to_contract") else {}
    doc = {
        "generated_at": when,
        "generator": "gpu-advisor web",
        "question": question,
        "mode": _get(turn, "mode", None),
        "model_name": _get(turn, "model_name", None),
        "lang": _get(turn, "lang", None),
        **contract,
        "findings": finding_dicts(turn),
        "options": list(_get(turn, "options", []) or []),
        "memory": _get(turn, "memory", None),
        "workload": _get(turn, "workload", {}) or {},
        "steps": [dump(s) if isinstance(s, msgspec.Struct) else dict(s) for s in _get(turn, "steps", []) or []],
        "units": {"memory": "bytes", "throughput": "tokens/s", "time": "seconds", "money": "see currency fields"},
        "questions": asked,
        "quote": quote.to_json(),
    }
    return pretty_json(doc)


def pretty_json(doc: Any) -> str:
    """`doc` as indented UTF-8 JSON text; values JSON lacks (dates, paths) become strings. Uses orjson (a Gradio
    dependency) when installed: the standard library's encoder falls back to pure Python whenever it indents,
    which made the export the costliest step of a deterministic web turn (about 3 ms of 9)."""
    try:
        import orjson
    except ImportError:
        return json.dumps(doc, ensure_ascii=False, indent=2, default=str)
    try:
        return orjson.dumps(doc, default=str, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits: the slow path handles it
        return json.dumps(doc, ensure_ascii=False, indent=2, default=str)
