"""The web chat's words and messages, as pure functions: the interface labels in English and Chinese, the input
checks, text made safe to render (raw HTML disarmed), the chat messages in Gradio's "messages" format
(`{"role", "content", "metadata"}`; a message whose metadata has a `title` is drawn as a collapsible step) and the
mode badge.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from knowledge.messages import pair, t, table
from ui.turn_like import TurnLike, get_field

if TYPE_CHECKING:
    from advisor.conversation.turn import Step

# Longest message the chat accepts, in characters (the reply says so); longer ones are refused before any work.
MAX_MESSAGE_CHARS = 20_000
# How much of a refused or very long message is echoed back in the chat.
ECHO_CHARS = 300

LANGS = ("en", "zh")

# ---------------------------------------------------------------------------------------------------------------
# Interface labels

# The page's labels by key, {"en": …, "zh": …}, read from the message catalogs ("web.label.KEY").
LABELS: dict[str, dict[str, str]] = {key.removeprefix("web.label."): dict(zip(LANGS, pair(key), strict=True))
                                     for key in table("en") if key.startswith("web.label.")}


def label(key: str, lang: str = "en", **fmt: Any) -> str:
    """The interface string `key` in `lang` ("en" or "zh"), formatted with `fmt`."""
    return t(f"web.label.{key}", lang, **fmt)


# The memory parts' names in the chart, from the message catalogs ("web.part.PART").
PART_LABELS: dict[str, dict[str, str]] = {key.removeprefix("web.part."): dict(zip(LANGS, pair(key), strict=True))
                                          for key in table("en") if key.startswith("web.part.")}
PARTS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead", "reference_model")


# Example prompts: inference, fine-tuning, pre-training, a sales quote and a guide-claim check, in both languages.
EXAMPLES: list[str] = [
    "部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，50 并发，预算 100 万元，国内采购",
    "Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users — which GPUs?",
    "用 LoRA 微调 Llama 3 8B，4k 上下文，手上有两张 3090，够吗？",
    "QLoRA fine-tune of Qwen2.5-32B on a single card: what do I need?",
    "预训练一个 7B 模型，1T tokens，三个月内完成，需要多少张 H800？",
    "Pre-train a 13B model on 300B tokens with H100s: how many GPUs and how long?",
    "客户要部署 DeepSeek-R1-Distill-Qwen-32B 做客服，20 并发，预算 30 万元，请出一份报价",
    "Quote for a customer: Llama 3.1 8B chatbot, 200 users, budget $60k USD, global",
    "指南说 70B FP16 推理大约需要 70GB 显存，对吗？",
    "The guide says a 70B model in 4-bit needs about 28 GB — is that right?",
]

# ---------------------------------------------------------------------------------------------------------------
# Input checks and safe text


def detect_lang(text: str, default: str = "en") -> str:
    """"zh" when the text contains CJK ideographs, "en" when it has Latin letters, else `default`."""
    if re.search(r"[\u3400-\u9fff\uf900-\ufaff]", text or ""):
        return "zh"
    if re.search(r"[A-Za-z]", text or ""):
        return "en"
    return default


def _has_words(text: str) -> bool:
    """True when the text has at least one letter or digit (any script); emoji and punctuation alone do not count."""
    return any(unicodedata.category(ch)[0] in ("L", "N") for ch in text)


def check_message(text: str | None, lang: str = "en") -> str | None:
    """A clear reply for a message the chat will not pass on (empty, too long, no words); None when it is fine."""
    text = text if isinstance(text, str) else ""
    if not text.strip():
        return label("empty", lang)
    if len(text) > MAX_MESSAGE_CHARS:
        return label("too_long", lang, n=len(text), limit=MAX_MESSAGE_CHARS)
    if not _has_words(text):
        return label("no_words", lang)
    return None


_FENCE = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")


def escape_html(text: str) -> str:
    """Make raw HTML show as text: `&`, `<`, `>` become entities (used for the user's own words)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def safe_markdown(text: str) -> str:
    """Markdown from a model or a tool with raw HTML disarmed: outside code spans/blocks every `<` becomes `&lt;`
    (so no tag, script or event handler survives) and images are reduced to their alt text (no fetches to outside
    hosts). Code spans keep their text, which Markdown already shows literally. The one exception: the bare tags
    `<details>`, `</details>`, `<summary>`, `</summary>` (no attributes) stay, so an answer's sections collapse."""
    parts = _FENCE.split(text or "")
    out = []
    for i, part in enumerate(parts):
        if i % 2:  # a code span or block
            out.append(part)
        else:
            out.append(_DISARMED_SECTION.sub(r"<\1>", _IMAGE.sub(lambda m: m.group(1), part).replace("<", "&lt;")))
    return "".join(out)


# the answer's collapsible sections (advisor.conversation.render.firstscreen.details): exactly these four tags, no attributes
_DISARMED_SECTION = re.compile(r"&lt;(/?(?:details|summary))>")


def echo_user_text(text: str, lang: str = "en") -> str:
    """The user's message as shown in the chat: HTML shown literally, very long messages cut to `ECHO_CHARS`."""
    text = text if isinstance(text, str) else ""
    if len(text) > ECHO_CHARS * 2:
        return escape_html(text[:ECHO_CHARS]) + label("truncated_echo", lang, n=len(text))
    return escape_html(text)


# ---------------------------------------------------------------------------------------------------------------
# Chat messages


def user_message(text: str, lang: str = "en") -> dict[str, Any]:
    return {"role": "user", "content": echo_user_text(text, lang)}


def assistant_message(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": safe_markdown(text)}


def pending_message(lang: str = "en") -> dict[str, Any]:
    return {"role": "assistant", "content": "", "metadata": {"title": label("working", lang), "status": "pending"}}


STEPS_GROUP_ID = "how-computed"


def steps_group_message(count: int, lang: str = "en", duration_s: float | None = None,
                        pending: bool = False) -> dict[str, Any]:
    """The one collapsed "how this was computed" element the turn's tool steps nest under (Gradio nests a
    message whose metadata `parent_id` names this one's `id`); its duration is the steps' sum."""
    meta: dict[str, Any] = {"title": label("how_computed", lang, n=count),
                            "id": STEPS_GROUP_ID, "status": "pending" if pending else "done"}
    if duration_s is not None and duration_s >= 0 and not pending:
        meta["duration"] = round(float(duration_s), 4)
    return {"role": "assistant", "content": label("how_computed_body", lang), "metadata": meta}


def steps_messages(steps: Sequence[Any], lang: str = "en", pending: bool = False, turn_no: int = 0) -> list[dict[str, Any]]:
    """The turn's tool steps under one collapsed group (`steps_group_message`); nothing when there are none.
    Each turn's group has its own id (`turn_no`: several turns in one chat), so nesting never mixes turns."""
    if not steps:
        return []
    durations = [d for s in steps if isinstance(d := get_field(s, "duration_s", None), (int, float))]
    group = steps_group_message(len(steps), lang, sum(durations) if durations else None, pending)
    gid = f"{STEPS_GROUP_ID}-{turn_no}"
    group["metadata"]["id"] = gid
    return [group, *(step_message(s, i, parent=gid) for i, s in enumerate(steps, 1))]


def step_message(step: Step | Mapping[str, Any], index: int, parent: str | None = None) -> dict[str, Any]:
    """A tool call as a collapsible step: title "🛠️ name", body = arguments (JSON) and the result summary,
    duration in seconds in the metadata (Gradio shows it next to the title); nested under `parent` (the
    steps group's id) when given."""
    name = str(get_field(step, "name", "tool"))
    ok = bool(get_field(step, "ok", True))
    args = get_field(step, "arguments", {}) or {}
    summary = str(get_field(step, "summary", "") or "")
    body = "```json\n" + json.dumps(args, ensure_ascii=False, indent=1, default=str)[:4000] + "\n```"
    if summary:
        body += "\n\n" + safe_markdown(summary)
    meta: dict[str, Any] = {"title": f"🛠️ {name}" if ok else f"⚠️ {name} (failed)", "id": f"step-{index}",
                            "status": "done"}
    if parent:
        meta["id"] = f"{parent}-{index}"
        meta["parent_id"] = parent
    duration = get_field(step, "duration_s", None)
    if isinstance(duration, (int, float)) and duration >= 0:
        meta["duration"] = round(float(duration), 4)
    return {"role": "assistant", "content": body, "metadata": meta}


def answer_markdown(turn: TurnLike) -> str:
    """The final answer of a turn, with its note (e.g. a fallback) and clarifying questions, HTML disarmed."""
    text = str(get_field(turn, "answer", "") or "")
    questions = [q for q in (get_field(turn, "questions", []) or []) if q and str(q) not in text]
    if questions:
        text += "\n\n" + "\n".join(f"- {q}" for q in questions)
    note = str(get_field(turn, "note", "") or "")
    if note:
        text += f"\n\n> {note}"
    return safe_markdown(text.strip())


def mode_badge(mode: str | None, model_name: str | None, lang: str = "en", fallback: bool = False) -> str:
    """The mode indicator: LLM with the model's name, or deterministic."""
    if mode == "llm":
        return "**" + label("mode_llm", lang, model=plain_text(model_name or "?")) + "**"
    if fallback and model_name:
        return "**" + label("mode_fallback", lang, model=plain_text(model_name)) + "**"
    return "**" + label("mode_det", lang) + "**"


def plain_text(text: object) -> str:
    """`text` for one line of Markdown: no backticks, angle brackets or newlines, at most 80 characters."""
    return re.sub(r"[`<>\n]", "", str(text))[:80]
