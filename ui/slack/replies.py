"""What the Slack bot reads and says without the advisor: Slack's wire text back to what the user typed
(`clean_incoming`), the reset and help words, and the bot's own messages in English and Chinese (`Reply`)."""

from __future__ import annotations

import re
from typing import Any

from knowledge.messages import t
from knowledge.structs import Value
from ui.slack import render

_USER_MENTION = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
_CHANNEL_REF = re.compile(r"<#(C[A-Z0-9]+)(?:\|([^>]*))?>")
_SPECIAL = re.compile(r"<!([^>|]*)(?:\|([^>]*))?>")
_URL_REF = re.compile(r"<((?:https?|mailto):[^>|\s]*)(?:\|([^>]*))?>")

# The conversation layer itself understands "start over"/"重新开始" and clears its workload; the bot only needs to
# know it too, to forget the thread's question texts (used for the web link). Kept a superset of the dialog's words.
RESET = re.compile(r"^\s*(?:reset|start over|restart|new question|clear|new|重新开始|重来|重置|清空|新对话|换个问题|"
                    r"新问题|从头再来)\s*[.!。！]*\s*$", re.IGNORECASE)
HELP_WORDS = frozenset({"help", "?", "？", "帮助", "使用说明", "怎么用"})


def clean_incoming(text: str) -> str:
    """Slack's wire text → what the user typed: mentions removed, links and channels as words, entities decoded.

    User mentions (the bot's or anyone's) carry no workload information and are dropped, `<!here>`-style
    broadcasts too; `<url|label>` becomes "label (url)"; `&lt;`, `&gt;`, `&amp;` are decoded (Slack encodes only
    these three).
    """
    text = _USER_MENTION.sub(" ", text or "")
    text = _CHANNEL_REF.sub(lambda m: "#" + (m.group(2) or "channel"), text)
    text = _URL_REF.sub(lambda m: (f"{m.group(2)} ({m.group(1)})" if m.group(2) and m.group(2) != m.group(1)
                                    else m.group(1)), text)
    text = _SPECIAL.sub(lambda m: (m.group(2) or "") if m.group(1).startswith(("subteam", "date")) else " ", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = re.sub(r"[ \t\u00a0]+", " ", text)
    return "\n".join(line.strip() for line in text.split("\n")).strip()


# ----------------------------------------------------------------------------------------------- replies

class Reply(Value):
    """One message to post: fallback `text`, `blocks`, and simpler `alt_blocks` if Slack refuses the first."""

    text: str
    blocks: list[dict[str, Any]]
    alt_blocks: list[dict[str, Any]] | None = None
    lang: str = "en"
    turn: Any = None  # the Turn, when the advisor answered
    details: tuple[str, list[dict[str, Any]]] | None = None  # the answer's sections: (text, blocks) of a thread reply




def message(name: str, lang: str, **kw: Any) -> str:
    """The bot's reply `name` (knowledge/messages: "slack.reply.NAME") in `lang`."""
    return t(f"slack.reply.{name}", lang, **kw)


def text_reply(markdown: str, lang: str = "en") -> Reply:
    text, blocks = render.render_text(markdown)
    return Reply(text=text, blocks=blocks, lang=lang)


def help_reply(command: str, lang: str | None = None, lead: str = "") -> Reply:
    """Help in the user's language, or in both when it is unknown (an empty mention)."""
    langs = [lang] if lang in ("en", "zh") else ["en", "zh"]
    parts = []
    for lg in langs:
        head = message(lead, lg) + "\n\n" if lead else ""
        parts.append(head + message("help", lg, cmd=command))
    return text_reply("\n\n———\n\n".join(parts), lang or "en")

