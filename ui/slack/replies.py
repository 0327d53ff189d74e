"""What the Slack bot reads and says without the advisor: Slack's wire text back to what the user typed
(`clean_incoming`), the reset and help words, and the bot's own messages in English and Chinese (`Reply`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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

@dataclass(frozen=True)
class Reply:
    """One message to post: fallback `text`, `blocks`, and simpler `alt_blocks` if Slack refuses the first."""

    text: str
    blocks: list[dict[str, Any]]
    alt_blocks: list[dict[str, Any]] | None = None
    lang: str = "en"
    turn: Any = None  # the Turn, when the advisor answered
    details: tuple[str, list[dict[str, Any]]] | None = None  # the answer's sections: (text, blocks) of a thread reply


_MESSAGES = {
    "help": {
        "en": ("I size GPUs for LLM jobs: which cards, how many, what they cost, with every number computed and "
               "cited.\n\nAsk in a message that mentions me, e.g. *Llama-3.1-70B inference, 32k context, "
               "50 concurrent users, budget 200k USD*. Reply in the same thread (mentioning me) to refine it, e.g. "
               "*what about int4?*; write *reset* to start over. In a direct message just type; the slash "
               "command `{cmd} <question>` works anywhere."),
        "zh": ("我帮你为大模型任务选 GPU：用什么卡、几张、多少钱，每个数字都有计算和出处。\n\n"
               "在消息里 @我 提问，例如 *部署 Qwen2.5-72B，32k 上下文，50 并发，预算 20 万*。"
               "在同一个帖子里继续 @我 可以调整，例如 *改成 8bit 呢？*；发送 *重新开始* 可重置。"
               "私信里直接输入即可；斜杠命令 `{cmd} 你的问题` 在任何频道都能用。"),
    },
    "empty": {
        "en": "Your message has no question in it (only a mention or whitespace).",
        "zh": "你的消息里没有问题（只有 @ 或空白）。",
    },
    "too_long": {
        "en": ("Your message is {n:,} characters long; I read at most {limit:,}. Please send the workload in "
               "a few sentences (model, task, precision, context, users, budget)."),
        "zh": "你的消息有 {n:,} 个字符，我最多读取 {limit:,} 个。请用几句话描述任务（模型、任务、精度、上下文、并发、预算）。",
    },
    "busy": {
        "en": "I'm answering many questions right now; please ask again in a minute.",
        "zh": "我现在正在处理很多问题，请一分钟后再问。",
    },
    "error": {
        "en": "Sorry, something went wrong while working this out. Your conversation is kept; please try again.",
        "zh": "抱歉，计算时出错了。对话内容已保留，请再试一次。",
    },
    "working": {"en": ":hourglass_flowing_sand: Working on it…", "zh": ":hourglass_flowing_sand: 正在计算…"},
    "not_saved": {"en": "Not saved yet: the conversation store is unavailable; it is saved when it is back.",
                  "zh": "尚未保存：对话存储暂时不可用，恢复后会保存。"},
    "corrupt": {"en": "The saved state of this thread could not be read; it starts fresh from this question.",
                "zh": "此帖子保存的状态无法读取，从这个问题重新开始。"},
    "ack": {"en": "Working on: {q}", "zh": "正在计算：{q}"},
}


def message(name: str, lang: str, **kw: Any) -> str:
    return _MESSAGES[name]["zh" if lang == "zh" else "en"].format(**kw)


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

