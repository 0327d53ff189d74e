"""What the web chat shows, as pure functions of a `Turn` (no Gradio here, so all of it is testable offline).

Chat messages are plain dicts in Gradio's "messages" format: `{"role", "content", "metadata"}`; a message whose
metadata has a `title` is drawn as a collapsible step. Tables are `{"headers": [...], "data": [[...]]}`, chart data
are lists of row dicts (the app turns them into DataFrames). Memory is shown in GiB (1 GiB = 2^30 bytes) and the
unit is always written out; money keeps its currency and, where the catalog gives one, its "as of" date.

Every figure here is read from the turn (estimator/recommender results); nothing is computed from assumptions
except unit conversion and headroom = capacity − total.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

GIB = 2**30  # bytes

# Longest message the chat accepts, in characters (the reply says so); longer ones are refused before any work.
MAX_MESSAGE_CHARS = 20_000
# How much of a refused or very long message is echoed back in the chat.
ECHO_CHARS = 300

LANGS = ("en", "zh")

# ---------------------------------------------------------------------------------------------------------------
# Interface labels

LABELS: dict[str, dict[str, str]] = {
    "title": {"en": "GPU Advisor", "zh": "GPU 选型顾问"},
    "subtitle": {
        "en": "Which GPUs, how many, and what they cost for an LLM job — every number computed and cited.",
        "zh": "大模型推理、微调、预训练该用哪种 GPU、几张、花多少钱——每个数字都有计算过程和出处。",
    },
    "chat": {"en": "Conversation", "zh": "对话"},
    "input": {"en": "Your question", "zh": "你的问题"},
    "placeholder": {
        "en": "Describe the job: model, task, precision, context, users, budget, region… (Enter to send)",
        "zh": "描述任务：模型、推理/微调/预训练、精度、上下文、并发、预算、地区……（回车发送）",
    },
    "send": {"en": "Send", "zh": "发送"},
    "new": {"en": "New conversation", "zh": "新对话"},
    "examples": {"en": "Examples (click one, then press Enter)", "zh": "示例（点击后按回车）"},
    "result": {"en": "Result of the latest recommendation", "zh": "最近一次推荐的结果"},
    "memory_chart": {"en": "Memory per GPU (GiB) against capacity", "zh": "单卡显存占用（GiB）与显存容量"},
    "options": {"en": "Ranked options", "zh": "候选方案排名"},
    "findings": {"en": "Findings and sources", "zh": "规则提示与出处"},
    "context_plot": {"en": "Memory per GPU vs context length", "zh": "单卡显存随上下文长度变化"},
    "cost_plot": {"en": "Price vs throughput across options", "zh": "各方案价格与吞吐"},
    "export_md": {"en": "Download quote (Markdown)", "zh": "下载报价单（Markdown）"},
    "export_json": {"en": "Download result (JSON)", "zh": "下载结果（JSON）"},
    "export_html": {"en": "Print-ready quote (HTML)", "zh": "打印版报价单（HTML）"},
    "export_pdf": {"en": "Quote as PDF", "zh": "报价单 PDF"},
    "raw": {"en": "Raw result (JSON)", "zh": "原始结果（JSON）"},
    "no_result": {
        "en": "No recommendation yet: ask a question and the memory chart, options and findings appear here.",
        "zh": "还没有推荐结果：提问后，这里会显示显存图、候选方案和规则提示。",
    },
    "no_findings": {"en": "No findings for this recommendation.", "zh": "本次推荐没有规则提示。"},
    "working": {"en": "Working…", "zh": "计算中……"},
    "how_computed": {"en": "How this was computed ({n} tool call{s})", "zh": "计算过程（{n} 次工具调用）"},
    "how_computed_body": {"en": "The estimator and recommender calls behind this answer; open one for its arguments "
                          "and result.", "zh": "这个回答背后的估算与推荐调用；展开可查看参数和结果。"},
    "mode_llm": {"en": "Mode: LLM agent · model `{model}`", "zh": "模式：大模型智能体 · 模型 `{model}`"},
    "mode_det": {
        "en": "Mode: deterministic dialog (no language model configured; answers come straight from the estimator)",
        "zh": "模式：确定性对话（未配置大模型；答案直接来自估算器）",
    },
    "mode_fallback": {
        "en": "Mode: deterministic answer (the model `{model}` was not used for this turn)",
        "zh": "模式：确定性回答（本轮未使用模型 `{model}`）",
    },
    # replies to bad input
    "empty": {
        "en": "Please type a question — for example: “Llama 3 70B inference, 32k context, 50 users, budget ¥2M”.",
        "zh": "请输入问题，例如：“Llama 3 70B 推理，32k 上下文，50 并发，预算 200 万元”。",
    },
    "too_long": {
        "en": "That message is {n:,} characters long; the limit is {limit:,}. Please send just the question "
        "(model, task, precision, context, users, budget) — the conversation continues.",
        "zh": "这条消息有 {n:,} 个字符，上限是 {limit:,}。请只发送问题本身（模型、任务、精度、上下文、并发、预算），"
        "对话可以继续。",
    },
    "no_words": {
        "en": "I could not find a question in that message (it has no letters or digits). Describe the job in words, "
        "e.g. “Qwen2.5-72B, 4-bit, 8k context, 20 users”.",
        "zh": "这条消息里没有文字或数字，我找不到问题。请用文字描述任务，例如：“Qwen2.5-72B，4bit，8k 上下文，20 并发”。",
    },
    "error": {
        "en": "Sorry — something went wrong while answering ({kind}). Nothing was lost: rephrase the question or "
        "ask again, and the conversation continues.",
        "zh": "抱歉，回答时出了错（{kind}）。对话没有丢失：请换个说法或再问一次，对话会继续。",
    },
    "truncated_echo": {"en": "… ({n:,} characters in all)", "zh": "……（共 {n:,} 个字符）"},
    "memory_caption": {
        "en": "Bars: per-GPU memory of each option, stacked by part; “free” tops the bar up to the card's capacity. "
        "1 GiB = 2^30 bytes.",
        "zh": "柱形：每个方案的单卡显存，按组成堆叠；“剩余”补足到显卡容量。1 GiB = 2^30 字节。",
    },
}


def label(key: str, lang: str = "en", **fmt: Any) -> str:
    """The interface string `key` in `lang` ("en" or "zh"), formatted with `fmt`."""
    text = LABELS[key].get(lang if lang in LANGS else "en") or LABELS[key]["en"]
    return text.format(**fmt) if fmt else text


PART_LABELS: dict[str, dict[str, str]] = {
    "weights": {"en": "weights", "zh": "权重"},
    "kv_cache": {"en": "KV cache", "zh": "KV 缓存"},
    "activations": {"en": "activations", "zh": "激活"},
    "gradients": {"en": "gradients", "zh": "梯度"},
    "optimizer_states": {"en": "optimizer states", "zh": "优化器状态"},
    "overhead": {"en": "overhead", "zh": "运行时开销"},
    "free": {"en": "free (to capacity)", "zh": "剩余（至容量）"},
}
PARTS = ("weights", "kv_cache", "activations", "gradients", "optimizer_states", "overhead")

SEVERITY_MARK = {"block": "⛔ block", "warn": "⚠️ warn", "info": "ℹ️ info"}
SEVERITY_MARK_ZH = {"block": "⛔ 阻断", "warn": "⚠️ 警告", "info": "ℹ️ 提示"}

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


# the answer's collapsible sections (advisor.conversation.firstscreen.details): exactly these four tags, no attributes
_DISARMED_SECTION = re.compile(r"&lt;(/?(?:details|summary))>")


def echo_user_text(text: str, lang: str = "en") -> str:
    """The user's message as shown in the chat: HTML shown literally, very long messages cut to `ECHO_CHARS`."""
    text = text if isinstance(text, str) else ""
    if len(text) > ECHO_CHARS * 2:
        return escape_html(text[:ECHO_CHARS]) + label("truncated_echo", lang, n=len(text))
    return escape_html(text)


# ---------------------------------------------------------------------------------------------------------------
# Chat messages


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Attribute or key `name` of a pydantic object or a dict."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


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
    meta: dict[str, Any] = {"title": label("how_computed", lang, n=count, s="" if count == 1 else "s"),
                            "id": STEPS_GROUP_ID, "status": "pending" if pending else "done"}
    if duration_s is not None and duration_s >= 0 and not pending:
        meta["duration"] = round(float(duration_s), 4)
    return {"role": "assistant", "content": label("how_computed_body", lang), "metadata": meta}


def steps_messages(steps: Sequence[Any], lang: str = "en", pending: bool = False, turn_no: int = 0) -> list[dict[str, Any]]:
    """The turn's tool steps under one collapsed group (`steps_group_message`); nothing when there are none.
    Each turn's group has its own id (`turn_no`: several turns in one chat), so nesting never mixes turns."""
    if not steps:
        return []
    durations = [d for s in steps if isinstance(d := _get(s, "duration_s", None), (int, float))]
    group = steps_group_message(len(steps), lang, sum(durations) if durations else None, pending)
    gid = f"{STEPS_GROUP_ID}-{turn_no}"
    group["metadata"]["id"] = gid
    return [group, *(step_message(s, i, parent=gid) for i, s in enumerate(steps, 1))]


def step_message(step: Any, index: int, parent: str | None = None) -> dict[str, Any]:
    """A tool call as a collapsible step: title "🛠️ name", body = arguments (JSON) and the result summary,
    duration in seconds in the metadata (Gradio shows it next to the title); nested under `parent` (the
    steps group's id) when given."""
    name = str(_get(step, "name", "tool"))
    ok = bool(_get(step, "ok", True))
    args = _get(step, "arguments", {}) or {}
    summary = str(_get(step, "summary", "") or "")
    body = "```json\n" + json.dumps(args, ensure_ascii=False, indent=1, default=str)[:4000] + "\n```"
    if summary:
        body += "\n\n" + safe_markdown(summary)
    meta: dict[str, Any] = {"title": f"🛠️ {name}" if ok else f"⚠️ {name} (failed)", "id": f"step-{index}",
                            "status": "done"}
    if parent:
        meta["id"] = f"{parent}-{index}"
        meta["parent_id"] = parent
    duration = _get(step, "duration_s", None)
    if isinstance(duration, (int, float)) and duration >= 0:
        meta["duration"] = round(float(duration), 4)
    return {"role": "assistant", "content": body, "metadata": meta}


def answer_markdown(turn: Any) -> str:
    """The final answer of a turn, with its note (e.g. a fallback) and clarifying questions, HTML disarmed."""
    text = str(_get(turn, "answer", "") or "")
    questions = [q for q in (_get(turn, "questions", []) or []) if q and str(q) not in text]
    if questions:
        text += "\n\n" + "\n".join(f"- {q}" for q in questions)
    note = str(_get(turn, "note", "") or "")
    if note:
        text += f"\n\n> {note}"
    return safe_markdown(text.strip())


def mode_badge(mode: str | None, model_name: str | None, lang: str = "en", fallback: bool = False) -> str:
    """The mode indicator: LLM with the model's name, or deterministic."""
    if mode == "llm":
        return "**" + label("mode_llm", lang, model=_plain(model_name or "?")) + "**"
    if fallback and model_name:
        return "**" + label("mode_fallback", lang, model=_plain(model_name)) + "**"
    return "**" + label("mode_det", lang) + "**"


def _plain(text: str) -> str:
    return re.sub(r"[`<>\n]", "", str(text))[:80]


# ---------------------------------------------------------------------------------------------------------------
# Options table, memory chart, plots


def number_or_none(value: Any) -> float | None:
    """`value` as a float when it is an int or float (not a bool), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def fmt_gib(nbytes: Any) -> str:
    v = number_or_none(nbytes)
    return "–" if v is None else f"{v / GIB:,.1f}"


def fmt_rate(value: Any) -> str:
    v = number_or_none(value)
    if v is None:
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_money(amount: Any, currency: str | None, as_of: str | None = None) -> str:
    v = number_or_none(amount)
    if v is None:
        return "–"
    text = f"{v:,.0f} {currency or ''}".strip()
    return f"{text} (as of {as_of})" if as_of else text


def option_tokens_per_s(option: Mapping[str, Any]) -> float | None:
    """The option's headline throughput in tokens/s: total decode for serving, training tokens/s for training."""
    tp = option.get("throughput") or {}
    if not isinstance(tp, Mapping):
        return number_or_none(tp)
    for key in ("decode_tokens_per_s_total", "tokens_per_s", "decode_tokens_per_s", "tokens_per_s_total"):
        v = number_or_none(tp.get(key))
        if v is not None:
            return v
    return None


def _money(value: Any) -> tuple[float | None, str | None]:
    """(amount, currency) from a number or an {"amount", "currency"} dict."""
    if isinstance(value, Mapping):
        return number_or_none(value.get("amount")), value.get("currency")
    return number_or_none(value), None


def option_price(option: Mapping[str, Any]) -> tuple[float | None, str | None, str | None]:
    """(amount, currency, as_of) of one GPU of the option, as the recommender gives it (`price` is per card)."""
    price = option.get("price")
    if isinstance(price, Mapping):
        return number_or_none(price.get("amount")), price.get("currency"), price.get("as_of")
    return number_or_none(price), None, None


def option_purchase(option: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(amount, currency) of buying the whole configuration: the TCO's purchase total (GPUs plus the rest of the
    server, as `advisor.recommend.total_price`), else GPU price × count; None when the catalog has no price."""
    tco = option.get("tco")
    if isinstance(tco, Mapping) and isinstance(tco.get("purchase"), Mapping):
        amount, currency = _money(tco["purchase"].get("total"))
        if amount is not None:
            return amount, currency or tco.get("currency")
    unit, currency, _ = option_price(option)
    count = option.get("count")
    if unit is None or not isinstance(count, int):
        return None, None
    return unit * count, currency


def option_tco(option: Mapping[str, Any]) -> tuple[float | None, str | None, Any]:
    """(amount, currency, years) of the option's total cost of ownership, when the recommender adds one."""
    tco = option.get("tco")
    if isinstance(tco, Mapping):
        for key in ("tco", "total", "amount", "total_cost"):
            amount, currency = _money(tco.get(key))
            if amount is not None:
                return amount, currency or tco.get("currency"), tco.get("years")
        return None, None, None
    return number_or_none(tco), None, None


LABEL_NAMES = {
    "lowest_cost": {"en": "lowest cost", "zh": "成本最低"},
    "best_value": {"en": "best value", "zh": "性价比最高"},
    "best_performance": {"en": "best performance", "zh": "性能最好"},
    "existing": {"en": "your GPUs", "zh": "现有显卡"},
}


def option_label(option: Mapping[str, Any], lang: str = "en") -> str:
    """The recommender's names for the option's place in the ranking (lowest cost, best value, …)."""
    labels = option.get("labels")
    if isinstance(labels, (list, tuple)) and labels:
        return ", ".join(LABEL_NAMES.get(str(x), {}).get(lang) or str(x).replace("_", " ") for x in labels)
    for key in ("label", "kind", "tier"):
        if option.get(key):
            return str(option[key])
    return "–"


def option_name(option: Mapping[str, Any]) -> str:
    """"2× NVIDIA H100 SXM" style name of an option."""
    count = option.get("count")
    gpu = str(option.get("gpu_name") or option.get("gpu") or "?")
    return f"{count}× {gpu}" if count else gpu


def option_short(option: Mapping[str, Any]) -> str:
    """"2× H100 SXM": count and the card's display name without the vendor prefix, short enough for a chart
    axis (the catalog id only when the option has no display name)."""
    count = option.get("count")
    gpu = re.sub(r"^(NVIDIA|AMD|GeForce)\s+", "", str(option.get("gpu_name") or option.get("gpu") or "?"))
    return f"{count}× {gpu}" if count else gpu


def _fits_text(fits: Any, lang: str) -> str:
    if fits is True:
        return "yes" if lang == "en" else "是"
    if fits is False:
        return "NO" if lang == "en" else "否"
    return "–"


def _layout_text(layout: Any) -> str:
    """"TP 4", "TP 2 × PP 2", "DP 8, ZeRO-3", "1 GPU" from a layout dict; text layouts as given."""
    if isinstance(layout, Mapping):
        def n(key: str) -> int:
            v = layout.get(key)
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0

        shard = " × ".join(f"{name} {n(key)}" for key, name in (("tp", "TP"), ("pp", "PP")) if n(key) > 1)
        extra = [f"DP {n('dp')}"] if n("dp") > 1 else []
        extra += [f"ZeRO-{n('zero')}"] if n("zero") > 0 else []
        if layout.get("offload") not in (None, "", "none"):
            extra.append(f"offload {layout['offload']}")
        text = ", ".join(x for x in [shard, *extra] if x)
        return text or "1 GPU"
    return str(layout) if layout not in (None, "") else "–"


TABLE_HEADERS = {
    "en": ["#", "Option", "GPU × count (layout)", "GiB/GPU", "Fits", "Tokens/s", "Purchase", "TCO",
           "GPU price (as of)"],
    "zh": ["#", "方案", "GPU × 数量（并行）", "单卡 GiB", "放得下", "tokens/s", "采购价", "总拥有成本",
           "单卡价格（日期）"],
}


def options_table(options: Sequence[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    """Rows of the ranked-options table (`gr.Dataframe` value), in the recommender's order. Tokens/s is the
    option's headline throughput (total decode for serving, training tokens/s for training); Purchase is the
    whole configuration (`option_purchase`), GPU price is one card with the catalog's date."""
    rows = []
    for i, opt in enumerate(options or [], 1):
        if not isinstance(opt, Mapping):
            continue
        per_gpu = opt.get("per_gpu_bytes") or {}
        amount, currency, as_of = option_price(opt)
        price = fmt_money(amount, currency)
        if amount is not None and as_of:
            price += f" ({as_of})"
        purchase, purchase_cur = option_purchase(opt)
        tco, tco_cur, years = option_tco(opt)
        tco_text = fmt_money(tco, tco_cur or currency)
        if tco is not None and years:
            y = f"{years:g}" if isinstance(years, (int, float)) else str(years)
            tco_text += f" / {y} y" if lang == "en" else f" / {y} 年"
        rows.append([
            i,
            option_label(opt, lang),
            option_name(opt) + (f" ({layout})" if (layout := _layout_text(opt.get("layout"))) != "–" else ""),
            fmt_gib(per_gpu.get("total") if isinstance(per_gpu, Mapping) else None),
            _fits_text(opt.get("fits"), lang),
            fmt_rate(option_tokens_per_s(opt)),
            fmt_money(purchase, purchase_cur or currency),
            tco_text,
            price,
        ])
    return {"headers": list(TABLE_HEADERS.get(lang, TABLE_HEADERS["en"])), "data": rows}


def capacity_bytes(source: Mapping[str, Any] | None) -> float | None:
    """A card's memory in bytes from the first capacity key a result carries, else None."""
    if not isinstance(source, Mapping):
        return None
    for key in ("capacity_bytes", "capacity", "memory_bytes", "gpu_memory_bytes"):
        v = number_or_none(source.get(key))
        if v is not None and v > 0:
            return v
    return None


def _parts(source: Mapping[str, Any] | None) -> dict[str, float]:
    """Bytes per memory part from a per-GPU breakdown (flat, or nested under "per_gpu_bytes"/"parts")."""
    if not isinstance(source, Mapping):
        return {}
    for nest in ("per_gpu_bytes", "parts", "breakdown"):
        if isinstance(source.get(nest), Mapping):
            source = {**source, **source[nest]}
    return {p: float(source[p]) for p in PARTS if number_or_none(source.get(p)) is not None and float(source[p]) > 0}


def memory_chart_rows(turn: Any, lang: str = "en", limit: int = 5,
                      capacity_of: Callable[[str], float | None] | None = None) -> list[dict[str, Any]]:
    """Stacked-bar rows {"option", "part", "GiB", "order"}: per-GPU memory of each ranked option by part, topped
    up with "free" to the card's capacity (capacity − total, only when positive). The capacity comes from the
    option, else from `turn.memory` (first option), else from `capacity_of(gpu id)` (the catalog). Falls back to
    `turn.memory` alone when the options carry no per-GPU bytes."""
    memory = _get(turn, "memory", None)
    options = [o for o in (_get(turn, "options", []) or []) if isinstance(o, Mapping)][:limit]
    bars: list[tuple[str, dict[str, float], float | None]] = []
    for i, opt in enumerate(options, 1):
        parts = _parts(opt.get("per_gpu_bytes"))
        if not parts:
            continue
        cap = capacity_bytes(opt) or (capacity_bytes(memory) if i == 1 else None)
        if cap is None and capacity_of is not None and opt.get("gpu"):
            cap = capacity_of(str(opt["gpu"]))
        total = number_or_none((opt.get("per_gpu_bytes") or {}).get("total")) or sum(parts.values())
        bars.append((f"{i}. {option_short(opt)}", {**parts, "_total": total}, cap))
    if not bars and isinstance(memory, Mapping) and _parts(memory):
        parts = _parts(memory)
        total = number_or_none(memory.get("total")) or sum(parts.values())
        bars.append((str(memory.get("label") or memory.get("gpu") or "1."), {**parts, "_total": total},
                     capacity_bytes(memory)))
    rows: list[dict[str, Any]] = []
    for name, parts, cap in bars:
        total = parts.pop("_total")
        bar = [{"option": name, "part": PART_LABELS[part][lang], "GiB": round(parts[part] / GIB, 3), "order": order}
               for order, part in enumerate(PARTS) if part in parts]
        if cap is not None and cap > total:
            bar.append({"option": name, "part": PART_LABELS["free"][lang], "GiB": round((cap - total) / GIB, 3),
                        "order": len(PARTS)})
        rows.extend(reversed(bar))  # the chart stacks the first row on top: weights end up at the bottom
    return rows


def cost_throughput_rows(options: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Scatter rows {"option", "price", "currency", "tokens_per_s"} (price = purchase of the whole configuration)
    for options that have both a price and a throughput; all in one currency (the first priced option's),
    others left out rather than converted."""
    rows: list[dict[str, Any]] = []
    currency = None
    for i, opt in enumerate(options or [], 1):
        if not isinstance(opt, Mapping):
            continue
        amount, cur = option_purchase(opt)
        rate = option_tokens_per_s(opt)
        if amount is None or rate is None:
            continue
        currency = currency or cur
        if cur != currency:
            continue
        rows.append({"option": f"{i}. {option_short(opt)}", "price": amount, "currency": cur or "",
                     "tokens_per_s": round(rate, 2)})
    return rows


# Context lengths swept for the memory-vs-context plot, in tokens (cut to the model's maximum context).
SWEEP_CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)
SWEEP_NAMES = {"total": {"en": "total per GPU", "zh": "单卡合计"}, "capacity": {"en": "capacity", "zh": "显存容量"},
               "requested": {"en": "requested context", "zh": "所需上下文"}}


def sweep_contexts(max_context: int | None, requested: int | None = None) -> tuple[int, ...]:
    """The plot's x values: powers of two from 1k up to the model's maximum context (itself included), plus the
    requested context; all of `SWEEP_CONTEXTS` up to 128k when the maximum is unknown."""
    top = int(max_context) if max_context else 131072
    ctxs = {c for c in SWEEP_CONTEXTS if c <= top} | {top}
    if requested:
        ctxs.add(int(requested))
    return tuple(sorted(ctxs))


def context_sweep_rows(
    context: int,
    estimate: Callable[[int], Mapping[str, Any] | None],
    capacity_bytes: float | None,
    lang: str = "en",
    contexts: Iterable[int] = SWEEP_CONTEXTS,
) -> list[dict[str, Any]]:
    """Line rows {"context", "series", "GiB"} of per-GPU memory against context length. `estimate(ctx)` must return
    the estimator's per-GPU bytes ({"total", "kv_cache", …}) for the same workload at `ctx` tokens; contexts where it
    returns None are skipped. The capacity line is drawn when known; the KV-cache line only when it is not zero
    throughout (training has none); the requested context is marked by a vertical line from 0 to the top of the
    plot (series "requested context")."""
    lang = lang if lang in LANGS else "en"
    ctxs = sorted({int(c) for c in contexts} | ({int(context)} if context else set()))
    total_name, cap_name = SWEEP_NAMES["total"][lang], SWEEP_NAMES["capacity"][lang]
    kv_name = PART_LABELS["kv_cache"][lang]
    rows: list[dict[str, Any]] = []
    kv_rows: list[dict[str, Any]] = []
    for ctx in ctxs:
        per_gpu = estimate(ctx)
        if not isinstance(per_gpu, Mapping) or number_or_none(per_gpu.get("total")) is None:
            continue
        rows.append({"context": ctx, "series": total_name, "GiB": round(float(per_gpu["total"]) / GIB, 3)})
        if number_or_none(per_gpu.get("kv_cache")) is not None:
            kv_rows.append({"context": ctx, "series": kv_name, "GiB": round(float(per_gpu["kv_cache"]) / GIB, 3)})
        if capacity_bytes:
            rows.append({"context": ctx, "series": cap_name, "GiB": round(capacity_bytes / GIB, 3)})
    if any(r["GiB"] > 0 for r in kv_rows):
        rows.extend(kv_rows)
    if context and rows:
        top = max(r["GiB"] for r in rows)
        name = f"{SWEEP_NAMES['requested'][lang]} ({int(context):,})"
        rows += [{"context": int(context), "series": name, "GiB": 0.0},
                 {"context": int(context), "series": name, "GiB": top}]
    return rows


def money_axis_title(rows: Sequence[Mapping[str, Any]], lang: str = "en") -> str:
    """The price axis title with the currency of the plotted rows ("price (CNY)"); rows are in one currency
    (`cost_throughput_rows`)."""
    base = {"en": "purchase price", "zh": "采购价"}[lang if lang in LANGS else "en"]
    currency = next((str(r.get("currency")) for r in rows if r.get("currency")), "")
    return f"{base} ({currency})" if currency else base


# ---------------------------------------------------------------------------------------------------------------
# Findings


def finding_dicts(turn: Any) -> list[dict[str, Any]]:
    """The turn's findings as dicts; when the turn has none, the options' findings (first occurrence of each id)."""
    found = []
    for f in _get(turn, "findings", []) or []:
        found.append(f.model_dump() if hasattr(f, "model_dump") else dict(f))
    if not found:
        seen = set()
        for opt in _get(turn, "options", []) or []:
            for f in (opt.get("findings") or []) if isinstance(opt, Mapping) else []:
                d = f.model_dump() if hasattr(f, "model_dump") else dict(f)
                if d.get("rule_id") not in seen:
                    seen.add(d.get("rule_id"))
                    found.append(d)
    return found


_REPO_PATH = re.compile(r"\s*\((?:\.\./)?(?:shared/)?(?:seeds|reference|knowledge)/[^()]*\)")


def source_without_path(citation: str) -> str:
    """A rendered citation without the repository file it points to ("… (seeds/000_….txt)"): people get the
    title, section and date; the file stays in the sources registry."""
    return _REPO_PATH.sub("", citation).strip()


def findings_markdown(turn: Any, lang: str = "en") -> str:
    """Findings as a Markdown list: severity and the rule's short title in `lang` (rules.titles), the message,
    then in small print the source, the "as of" date and the rule id (for looking the rule up)."""
    from rules.titles import rule_title

    items = finding_dicts(turn)
    if not items:
        return label("no_findings", lang)
    marks = SEVERITY_MARK_ZH if lang == "zh" else SEVERITY_MARK
    lines = []
    for f in items:
        msg = (f.get("message_zh") if lang == "zh" else None) or f.get("message") or ""
        rule_id = _plain(f.get("rule_id", ""))
        line = f"- **{marks.get(f.get('severity'), f.get('severity', ''))} · {_plain(rule_title(rule_id, lang))}** — {msg}"
        extra = []
        if f.get("source"):
            extra.append(("source: " if lang == "en" else "出处：") + source_without_path(str(f["source"])))
        if f.get("as_of"):
            extra.append(("as of " if lang == "en" else "截至 ") + str(f["as_of"]))
        extra.append(("rule " if lang == "en" else "规则 ") + f"`{rule_id}`")
        if extra:
            line += "  \n  _" + "; ".join(extra) + "_"
        lines.append(line)
    return safe_markdown("\n".join(lines))


def has_result(turn: Any) -> bool:
    """True when the turn carries a recommendation or a memory breakdown worth showing beside the chat."""
    return bool(_get(turn, "options", None) or _get(turn, "memory", None))


# ---------------------------------------------------------------------------------------------------------------
# Export


def workload_view(workload: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload fields, constraint fields) from `Turn.workload`, flat or nested as {"workload", "constraints"}."""
    if not isinstance(workload, Mapping):
        return {}, {}
    if isinstance(workload.get("workload"), Mapping) or isinstance(workload.get("constraints"), Mapping):
        return dict(workload.get("workload") or {}), dict(workload.get("constraints") or {})
    return dict(workload), {}


def export_markdown(turn: Any, *, question: str = "", questions: Sequence[str] = (), lang: str = "en",
                    generated_at: datetime | None = None) -> str:
    """The quote a sales engineer can paste (ui.quote): the whole request (`questions`, else `question`), job and
    constraints in words, ranked options, memory of the first option, dated prices with their condition, findings
    once each with sources by title and date, assumptions and the validity date. Memory in GiB (2^30 bytes)."""
    from ui.quote import build_quote
    from ui.quote_render import quote_markdown

    asked = list(questions) or ([question] if question else [])
    return quote_markdown(build_quote(turn, questions=asked, lang=lang, generated_at=generated_at))


def export_html(turn: Any, *, questions: Sequence[str] = (), lang: str = "en",
                generated_at: datetime | None = None) -> str:
    """The same quote as print-ready HTML (A4; `ui.quote_pdf.html_to_pdf` prints it to PDF)."""
    from ui.quote import build_quote
    from ui.quote_render import quote_html

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


def export_json(turn: Any, *, question: str = "", questions: Sequence[str] = (), lang: str | None = None,
                generated_at: datetime | None = None) -> str:
    """The current recommendation as JSON: the `ask --json` contract plus options, memory, workload, steps, and
    `quote` (ui.quote: the whole request, constraints in words, dated prices with condition, validity date).
    Memory in bytes, throughput in tokens/s, money with an explicit currency (DESIGN.md contract units)."""
    from ui.quote import build_quote

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
        "steps": [s.model_dump() if hasattr(s, "model_dump") else dict(s) for s in _get(turn, "steps", []) or []],
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
