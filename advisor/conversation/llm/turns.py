"""The Turn an agent run ends with: the checked answer with its findings appended from rule metadata, or the
clarifying question the model asked; the numbers, options, memory and workload come from this turn's tool results.

The model's text is shown without raw HTML, images, links or URLs (`sanitize`): citations come from the rules'
metadata only. Findings are listed once each, most severe first, at most `FINDINGS_SHOWN` in the text.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.llm import prompts
from advisor.conversation.llm.lead import LeadCheck
from advisor.conversation.llm.state import TurnState
from advisor.conversation.tools.results import ToolResult, to_number
from advisor.conversation.turn import Number, Turn
from knowledge.messages import t
from rules.findings import Finding

FINDINGS_SHOWN = 8  # in the answer text; Turn.findings keeps them all
_SEVERITY_ORDER = {"block": 0, "warn": 1, "info": 2}
_TAG = re.compile(r"<[^>\n]{0,200}>")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]{0,200})\]\((?:[^)]*)\)")
_URL = re.compile(r"(?i)\b(?:https?|ftp|javascript|data|file):[^\s)>\]]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def sanitize(text: str) -> str:
    """Model text without raw HTML, images, links or URLs (citations come from rule metadata only)."""
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _URL.sub("", text)
    text = _TAG.sub("", text)
    return text.strip()


def answer_turn(answer: str, report: grounding.Report, st: TurnState, model_name: str, *, reasked: bool,
                intent: str = "other", lead: LeadCheck | None = None) -> Turn:
    """The checked answer: the numbers it used (else all the tools gave), the findings appended."""
    ok_results = [r for r in st.results if r.ok]
    findings = _findings(ok_results)
    numbers = [to_number(ref) for ref in report.refs if {"name", "value", "unit"} <= set(ref)]
    if not numbers:
        numbers = _all_numbers(ok_results)
    body = sanitize(answer)
    if findings:
        body += _render_findings(findings, st.lang)
    return Turn(answer=body, lang=st.lang, mode="llm", numbers=numbers,
                findings=findings, options=_options(ok_results), memory=_memory(ok_results),
                steps=[r.step() for r in st.results], workload=_workload(ok_results), model_name=model_name,
                extra={"grounding": {"checked": len(report.matched), "reasked": reasked},
                       "model_calls": st.model_calls, "tool_calls": st.tool_calls, "tokens": st.tokens,
                       "intent": intent, "answer_verdict": lead.verdict if lead is not None else None})


def question_turn(result: ToolResult, st: TurnState, model_name: str) -> Turn:
    """The model's clarifying question (`ask_clarifying_question`): its wording when every number in it is checked
    and it is in the user's language, else ours; the slot's default is said."""
    lang = st.lang
    slot = prompts.SLOTS[result.data["slot"]]
    question = result.data["question"].strip()
    allowed = grounding.Pool.of([r.data for r in st.results if r.ok and r.name != "ask_clarifying_question"],
                                prompts.slot_texts())
    if not grounding.check(question, allowed).ok or (lang == "zh") != bool(_CJK.search(question)):
        question = slot.question(lang)  # the model's wording had unchecked numbers: use ours
    elif slot.default_en and not re.search(r"default|默认|預設", question, re.I):
        question = t("question.with_default", lang, question=question, default=slot.default(lang))
    question = sanitize(question)
    return Turn(answer=question, lang=lang, mode="llm", questions=[question],
                steps=[r.step() for r in st.results], workload=_workload([r for r in st.results if r.ok]),
                model_name=model_name,
                extra={"slot": slot.name, "model_calls": st.model_calls, "tool_calls": st.tool_calls,
                       "tokens": st.tokens})


def plain_question_turn(text: str, st: TurnState, model_name: str) -> Turn:
    """A question the model asked in plain text (no tool call)."""
    question = sanitize(text)
    return Turn(answer=question, lang=st.lang, mode="llm", questions=[question], steps=[], model_name=model_name,
                extra={"model_calls": st.model_calls, "tool_calls": 0, "tokens": st.tokens})


def _findings(results: list[ToolResult]) -> list[Finding]:
    """This turn's findings, without repeats, most severe first (stable within a severity)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for r in results:
        for f in r.findings:
            key = (f.rule_id, f.message)
            if key not in seen:
                seen.add(key)
                out.append(f)
    return sorted(out, key=lambda f: _SEVERITY_ORDER.get(f.severity, 3))


def _render_findings(findings: list[Finding], lang: str) -> str:
    lines = ["\n\n" + t("llm.findings.head", lang)]
    for f in findings[:FINDINGS_SHOWN]:
        tail = f" — {f.source}" if f.source else ""
        if f.as_of:
            tail += t("llm.findings.as_of", lang, date=f.as_of)
        lines.append(f"- [{f.severity}] `{f.rule_id}`: {f.text(lang)}{tail}")
    if len(findings) > FINDINGS_SHOWN:
        more = len(findings) - FINDINGS_SHOWN
        lines.append(t("llm.findings.more", lang, n=more))
    return "\n".join(lines)


def _all_numbers(results: list[ToolResult], cap: int = 40) -> list[Number]:
    out: list[Number] = []
    seen: set[tuple[str, float]] = set()
    for r in results:
        for n in r.numbers:
            key = (n["name"], n["value"])
            if key not in seen:
                seen.add(key)
                out.append(to_number(n))
    return out[:cap]


def _options(results: list[ToolResult]) -> list[dict[str, Any]]:
    for r in reversed(results):
        if r.name == "recommend" and r.artifact.get("options"):
            return list(r.artifact["options"])
    return []


def _memory(results: list[ToolResult]) -> dict[str, Any] | None:
    for r in reversed(results):
        if r.name in ("estimate_memory", "recommend") and r.artifact.get("memory"):
            return dict(r.artifact["memory"])
    return None


def _workload(results: list[ToolResult]) -> dict[str, Any]:
    for r in reversed(results):
        if r.name in ("recommend", "estimate_memory", "estimate_throughput", "train_time", "compare_gpus", "tco"):
            inputs = r.data.get("inputs")
            if isinstance(inputs, dict):
                return dict(inputs)
    return {}
