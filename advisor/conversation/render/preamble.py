"""What comes before an answer: fixed notes, names the catalog does not know, what is known so far,
and the clarifying question for a slot (with the default it would use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.dialog.machine import DEFAULT_MODEL, DialogState, default_weights
from advisor.conversation.reader.extract import Slots
from advisor.conversation.reader.lang import say
from advisor.conversation.render.book import SRC_DEFAULT, SRC_USER, Book
from advisor.conversation.render.labels import (
    REGION,
    format_label,
    mention_text,
    model_name,
    pick,
    slot_value,
    task_label,
)
from advisor.workload import DEFAULT_CONTEXT

if TYPE_CHECKING:
    from knowledge.catalog import Catalog


def summary(state: DialogState, lang: str, catalog: Catalog, book: Book) -> str:
    s = state.slots
    parts: list[str] = []
    if s.model:
        parts.append(model_name(catalog, s.model))
    if s.task or s.task_generic:
        parts.append(task_label(s.task, lang) if s.task else ("微调" if lang == "zh" else "fine-tuning")
                     if s.task_generic == "finetune" else ("训练" if lang == "zh" else "training"))
    if s.weights:
        parts.append(format_label(s.weights, lang))
    if s.context:
        label = "上下文 " if lang == "zh" else "context "
        parts.append(label + book.tokens("context", s.context, SRC_USER, lang))
    if s.concurrency:
        parts.append(book.num("concurrency", s.concurrency, "sequences", SRC_USER, suffix="并发" if lang == "zh" else "concurrent"))
    if s.train_tokens:
        parts.append(book.tokens("training tokens", s.train_tokens, SRC_USER, lang))
    if s.budget:
        parts.append(("预算 " if lang == "zh" else "budget ") + book.money("budget", s.budget, s.currency or "USD", SRC_USER))
    if s.region:
        parts.append(pick(REGION[s.region], lang))
    if s.existing:
        parts.append(("现有 " if lang == "zh" else "you have ") + mention_text(book, s.existing, lang, catalog, "your GPUs"))
    if s.candidates:
        parts.append(("候选 " if lang == "zh" else "comparing ") + ", ".join(
            mention_text(book, m, lang, catalog, f"candidate {i}") for i, m in enumerate(s.candidates)))
    if s.deadline_s:
        parts.append(("期限 " if lang == "zh" else "deadline ") + slot_value(book, "deadline_s", s.deadline_s, lang, catalog, "deadline"))
    sep = "，" if lang == "zh" else ", "
    return sep.join(parts)


def question_text(slot: str | None, state: DialogState, lang: str, catalog: Catalog | None = None, book: Book | None = None) -> str:
    """The clarifying question for `slot`, with the default it would use."""
    book = book or Book()
    s = state.slots
    zh = lang == "zh"
    if slot == "model":
        default = model_name(catalog, DEFAULT_MODEL) if catalog is not None else "Qwen2.5-7B"
        return (f"请问是哪个模型（或多大参数量）？例如 Qwen2.5-7B、Llama-3.1-70B、DeepSeek-R1。回复“默认”按 {default} 计算。"
                if zh else f"Which model (or what size)? For example Qwen2.5-7B, Llama-3.1-70B or DeepSeek-R1. "
                f"Reply \"default\" to use {default}.")
    if slot == "task":
        if s.task_generic == "train":
            return ("哪种训练：LoRA 微调（默认）、QLoRA、全参微调，还是从头预训练？" if zh else
                    "Which kind of training: LoRA fine-tuning (default), QLoRA, full fine-tuning, or pre-training from scratch?")
        name = model_name(catalog, s.model) if catalog is not None and s.model else ("这个模型" if zh else "the model")
        return (f"{name} 用来做什么：推理部署（默认）、微调（LoRA / QLoRA / 全参）还是预训练？" if zh else
                f"What will you do with {name}: serve it (inference, the default), fine-tune it (LoRA / QLoRA / full) "
                "or pre-train it?")
    if slot == "concurrency":
        one = book.num("default concurrency", 1, "sequences", SRC_DEFAULT, suffix="")
        return (f"高峰时有多少并发请求（同时在线的用户）？默认按 {one} 路计算。" if zh else
                f"How many concurrent requests (users at the same time) at peak? Default: {one}.")
    if slot == "context" and (s.task or s.task_generic) not in (None, "inference"):
        ctx = book.tokens("default context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
        return (f"训练样本的序列长度是多少？默认 {ctx}。" if zh else
                f"What sequence length will the training samples have? Default: {ctx}.")
    if slot == "context":
        ctx = book.tokens("default context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
        return (f"每个请求的上下文长度（输入 + 输出）是多少？默认 {ctx}。" if zh else
                f"What context length per request (prompt + output)? Default: {ctx}.")
    if slot == "weights":
        native = default_weights(s.model).upper()
        options = [f for f in ("BF16", "FP8", "INT8") if f != native]
        return (f"权重用什么精度：{native}（默认，模型发布时的精度）、{'、'.join(options)}，还是 4-bit 量化（AWQ/GPTQ、GGUF Q4_K_M）？" if zh else
                f"Which precision for the weights: {native} (default, the checkpoint's own), {', '.join(options)}, "
                "or 4-bit (AWQ/GPTQ, GGUF Q4_K_M)?")
    if slot == "region":
        default = "中国大陆" if zh else "outside China"
        return (f"部署在哪里：中国大陆（只考虑国内可买到的卡）还是海外？默认：{default}。" if zh else
                f"Where will it run: mainland China (only cards sold there) or elsewhere? Default: {default}.")
    if slot == "budget":
        return ("预算大概多少（币种）？默认不设上限。" if zh else
                "Is there a budget (and currency)? Default: no limit.")
    if slot == "output_tokens":
        return ("平均每个请求输出多少 token？这会影响速度和成本估算。默认按常见对话长度。" if zh else
                "What is the average output length per request, in tokens? It sets the speed and cost figures. "
                "Default: a typical chat reply.")
    if slot == "train_tokens":
        return ("训练数据总共多少 token（数据量 × 轮数）？有了它才能估算训练时间。" if zh else
                "How many training tokens (dataset size × epochs)? With it I can estimate the training time.")
    if slot == "deadline":
        return ("训练需要在多长时间内完成？默认不设期限。" if zh else
                "By when must the training finish? Default: no deadline.")
    return ""


def render_note(key: str, book: Book, lang: str) -> str:
    """A fixed sentence from `lang.MESSAGES`, its numbers recorded."""
    if not key:
        return ""
    if key == "truncated":
        from advisor.conversation.reader.extract import MAX_CHARS

        return say("truncated", lang, n=book.count("characters read", MAX_CHARS, "characters", "extract.MAX_CHARS"))
    if key == "greeting":
        return say("greeting", lang,
                   conc=book.count("example concurrency", 100, "sequences", "example question"),
                   ctx=book.num("example context", 8, "k tokens", "example question", suffix="k"),
                   budget=book.num("example budget", 50, "万 CNY", "example question", suffix="万") if lang == "zh"
                   else book.money("example budget", 500_000, "CNY", "example question"))
    if key == "reset":
        return say("reset", lang) + "\n\n" + render_note("greeting", book, lang)
    return say(key, lang)


def notes_block(notes: list[str], book: Book, lang: str) -> str:
    return "\n".join(f"> {render_note(n, book, lang)}" for n in notes)


def unknown_lines(slots: Slots, lang: str, catalog: Catalog, *, names: bool = True, stand_in: bool = True) -> list[str]:
    """Names the catalog lacks (`names`: said first, before any answer) and the representative model a bare size
    stands for (`stand_in`)."""
    out: list[str] = []
    if not names:
        return out + _stand_in(slots, lang, catalog) if stand_in else out
    if slots.unknown_model and slots.model is None and catalog.find_model(slots.unknown_model) is None:
        word = slots.unknown_model
        out.append(f"未知的模型“{word}”：它不在我的模型目录里，我不会拿别的模型冒充它；给我它的 config.json（`gpu-advisor estimate "
                   "--config config.json`），或它的层数、hidden size、KV 头数和参数量，就能按它计算。" if lang == "zh" else
                   f"unknown model '{word}': it is not in my catalog, and I will not size another model in its place; give me "
                   "its config.json (`gpu-advisor estimate --config config.json`) or its shape (layers, hidden size, "
                   "KV heads, parameter count) and I can size it.")
    for word in slots.unknown_gpus:
        out.append(f"目录里没有“{word}”这张卡，我没有它的数据，下面不是关于它的结论；告诉我它的显存容量和显存带宽"
                   f"（GB 与 TB/s）就能按它计算（支持的显卡见 `gpu-advisor gpus`）。" if lang == "zh" else
                   f"'{word}' is not a GPU in the catalog, so nothing below is about it; tell me its memory size and "
                   "memory bandwidth (GB and TB/s) and I can size it (supported cards: "
                   "`gpu-advisor gpus`).")
    return out + _stand_in(slots, lang, catalog) if stand_in else out


def _stand_in(slots: Slots, lang: str, catalog: Catalog) -> list[str]:
    out: list[str] = []
    if slots.model_assumed in ("size", "closest") and slots.size_params and slots.model:
        name = model_name(catalog, slots.model)
        if lang == "zh":
            out.append(f"按 {name} 作为这个规模的代表模型计算（架构不同结果会有出入）。")
        else:
            out.append(f"I use {name} as the representative model of that size (other architectures differ somewhat).")
    return out
