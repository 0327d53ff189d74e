"""What the agent sends the model (the system prompt with the workload so far, the last turns) and how it reads
the graph's last message (a clarifying question by tool, an answer's text, a question in plain text).

LangChain messages are typed loosely (`Any`): they are built here from plain strings and read by attribute, and
the conversation is read the same way (`getattr`), so a session, a stored one and a test's stand-in all serve.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from advisor.conversation.llm import prompts
from advisor.conversation.llm.settings import Settings
from advisor.conversation.llm.state import AgentUnavailable
from advisor.conversation.tools.registry import ToolResult
from knowledge.structs import dump

HISTORY_TURNS = 6  # earlier turns sent to the model (user text + final answer)
_FINDINGS_SECTION = re.compile(r"\n\n\*\*(?:Findings|规则提示)\*\*\n")


def human(text: str) -> Any:
    from langchain_core.messages import HumanMessage  # optional dependency: langchain_core only with the llm extra

    return HumanMessage(content=text)


def history(conversation: object, s: Settings) -> list[Any]:
    """The last turns as (user text, final answer) message pairs; tool messages are not replayed."""
    # optional dependency: langchain_core only with the llm extra
    from langchain_core.messages import AIMessage, HumanMessage

    out: list[Any] = []
    for item in list(getattr(conversation, "history", None) or [])[-HISTORY_TURNS:]:
        try:
            user, turn = item
        except (TypeError, ValueError):
            continue
        answer = getattr(turn, "answer", None) if not isinstance(turn, str) else turn
        if not user or not answer:
            continue
        answer = _FINDINGS_SECTION.split(str(answer))[0]  # the app's own findings block: not for the model to copy
        out.append(HumanMessage(content=str(user)[: s.max_input_chars]))
        out.append(AIMessage(content=str(answer)[:3000]))
    return out


def system_prompt(tool_names: Iterable[str]) -> str:
    """The system prompt naming the tools offered. It is the same on every turn, so that a server's prompt cache
    keeps it and the tool schemas that follow it (llama.cpp's slot and prompt cache, vLLM's prefix caching, OpenAI's
    prompt caching): the workload note, which changes from turn to turn, goes with the user's message instead."""
    return prompts.system_prompt_for(tool_names)


def latest(conversation: object, text: str, lang: str) -> Any:
    """The user's latest message, after a note of the workload and constraints understood so far (if any)."""
    summary = _workload_summary(conversation)
    return human(prompts.workload_note(summary, lang) + "\n\n" + text if summary else text)


def _workload_summary(conversation: object) -> str:
    parts = []
    try:
        w = getattr(conversation, "workload", None)
        if w is not None:
            parts.append("workload " + ", ".join(f"{k}={v}" for k, v in dump(w, exclude_defaults=True).items()))
        c = getattr(conversation, "constraints", None)
        if c is not None:
            dumped = dump(c, exclude_defaults=True)
            if dumped:
                parts.append("constraints " + ", ".join(f"{k}={v}" for k, v in dumped.items()))
    except Exception:  # noqa: BLE001 - context only; never fail the turn over it
        return ""
    return "; ".join(parts)[:800]


def question_of(final: Any) -> ToolResult | None:
    """The clarifying question the graph ended on (an `ask_clarifying_question` tool result), or None."""
    from langchain_core.messages import ToolMessage  # optional dependency: langchain_core only with the llm extra

    if isinstance(final, ToolMessage) and final.name == "ask_clarifying_question":
        result = getattr(final, "artifact", None)
        if isinstance(result, ToolResult) and result.ok:
            return result
        raise AgentUnavailable("malformed", "invalid clarifying question")
    return None


def text_of(message: Any) -> str:
    """The text of the final message; AgentUnavailable("empty") when there is none."""
    if message is None:
        raise AgentUnavailable("empty", "no messages")
    text = getattr(message, "text", None)
    if not isinstance(text, str):
        text = str(getattr(message, "content", "") or "")
    if not text.strip():
        raise AgentUnavailable("empty", "empty final message")
    return text


def is_question(text: str) -> bool:
    """The text ends with a question mark (past closing emphasis and brackets)."""
    return text.rstrip().rstrip("*_） )").endswith(("?", "？"))
