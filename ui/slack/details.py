"""An answer's collapsible sections (advisor.conversation.render.firstscreen.details) for Slack, as pure functions.

Slack has no collapsible text, so the message carries the first screen and the sections go into one reply in the
message's thread: each section's title as a bold line, then its body (Markdown → escaped mrkdwn, tables as
monospace blocks). Nothing here talks to Slack; `ui.slack.app` posts the reply.
"""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.firstscreen import split_details
from ui.slack import render

MAX_DETAIL_BLOCKS = 40  # of Slack's 50 per message, leaving room for the context line


def first_screen(answer: str) -> str:
    """The answer without its collapsible sections."""
    return split_details(answer or "")[0]


def has_details(answer: str) -> bool:
    return bool(split_details(answer or "")[1])


def details_reply(turn: Any) -> tuple[str, list[dict[str, Any]]] | None:
    """(fallback text, blocks) of the thread reply holding the answer's sections, or None when it has none."""
    lang = "zh" if getattr(turn, "lang", "en") == "zh" else "en"
    _, sections = split_details(str(getattr(turn, "answer", "") or ""))
    if not sections:
        return None
    blocks: list[dict[str, Any]] = []
    for title, body in sections:
        blocks += render.text_blocks(f"*{render.escape(title)}*\n" + render.md_to_mrkdwn(body), max_blocks=4)
    shortened = len(blocks) > MAX_DETAIL_BLOCKS
    blocks = blocks[:MAX_DETAIL_BLOCKS]
    label = "详情" if lang == "zh" else "Details"
    names = "、".join(t for t, _ in sections) if lang == "zh" else ", ".join(t for t, _ in sections)
    note = (f"{label}：{names}" if lang == "zh" else f"{label}: {names}")
    if shortened:
        note += "（已截断）" if lang == "zh" else " (shortened)"
    blocks.append(render.context(render.escape(note)))
    return render.truncate(f"{label}: {names}", render.MAX_FALLBACK_TEXT), render.clamp_blocks(blocks, lang)
