"""What comes before an answer: fixed notes, names the catalog does not know, what is known so far,
and the clarifying question for a slot (with the default it would use).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.conversation.dialog.load import rate_concurrency
from advisor.conversation.dialog.machine import (
    DEFAULT_MODEL,
    SRC_CODING_CONTEXT,
    DialogState,
    coding_context,
    coding_use,
    default_weights,
)
from advisor.conversation.reader.extract import MAX_CHARS, Slots
from advisor.conversation.reader.lang import say
from advisor.conversation.reader.names import not_a_language_model
from advisor.conversation.reader.slots import DeviceMention
from advisor.conversation.render.book import SRC_DEFAULT, SRC_USER, Book
from advisor.conversation.render.labels import (
    format_label,
    mention_text,
    model_name,
    region_label,
    slot_value,
    task_label,
)
from advisor.workload import DEFAULT_CONTEXT, default_context
from knowledge.devices import load_devices
from knowledge.messages import t

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

SRC_DEVICES = "knowledge.devices (knowledge/data/devices/devices.yaml, cited)"


def summary(state: DialogState, lang: str, catalog: Catalog, book: Book) -> str:
    s = state.slots
    parts: list[str] = []
    if s.model:
        parts.append(model_name(catalog, s.model))
    if s.task or s.task_generic:
        parts.append(task_label(s.task, lang) if s.task else t("summary.finetune", lang)
                     if s.task_generic == "finetune" else t("summary.training", lang))
    if s.weights:
        parts.append(format_label(s.weights, lang))
    if s.context:
        parts.append(t("summary.context", lang, value=book.tokens("context", s.context, SRC_USER, lang)))
    if s.concurrency:
        parts.append(book.num("concurrency", s.concurrency, "sequences", SRC_USER, suffix=t("summary.concurrent", lang)))
    if s.train_tokens:
        parts.append(book.tokens("training tokens", s.train_tokens, SRC_USER, lang))
    if s.budget:
        parts.append(t("summary.budget", lang, value=book.money("budget", s.budget, s.currency or "USD", SRC_USER)))
    if s.region:
        parts.append(region_label(s.region, lang))
    if s.existing:
        parts.append(t("summary.existing", lang, value=mention_text(book, s.existing, lang, catalog, "your GPUs")))
    if s.candidates:
        parts.append(t("summary.candidates", lang, value=", ".join(
            mention_text(book, m, lang, catalog, f"candidate {i}") for i, m in enumerate(s.candidates))))
    if s.deadline_s:
        parts.append(t("summary.deadline", lang,
                       value=slot_value(book, "deadline_s", s.deadline_s, lang, catalog, "deadline")))
    return t("list.comma", lang).join(parts)


def question_text(slot: str | None, state: DialogState, lang: str, catalog: Catalog | None = None, book: Book | None = None) -> str:
    """The clarifying question for `slot`, with the default it would use."""
    book = book or Book()
    s = state.slots
    if slot == "model":
        default = model_name(catalog, DEFAULT_MODEL) if catalog is not None else "Qwen2.5-7B"
        return t("question.model", lang, default=default)
    if slot == "task":
        if s.task_generic == "train":
            return t("question.training_kind", lang)
        name = model_name(catalog, s.model) if catalog is not None and s.model else t("question.the_model", lang)
        return t("question.task", lang, name=name)
    if slot == "concurrency":
        if s.min_tokens_per_s and (s.task or "inference") == "inference":  # the streams a stated total rate implies
            streams = rate_concurrency(s)[0]
            derived = book.num("concurrency from the total rate", streams, "sequences", "total tokens/s × time per token",
                               suffix="")
            return t("question.concurrency", lang, default=derived)
        one = book.num("default concurrency", 1, "sequences", SRC_DEFAULT, suffix="")
        return t("question.concurrency", lang, default=one)
    if slot == "context" and (s.task or s.task_generic) not in (None, "inference"):
        ctx = book.tokens("default context", DEFAULT_CONTEXT, SRC_DEFAULT, lang)
        return t("question.sequence_length", lang, default=ctx)
    if slot == "context" and coding_use(s):  # a coding use's 32K, as the answer assumed
        ctx = book.tokens("default context", coding_context(s), SRC_CODING_CONTEXT, lang)
        return t("question.context", lang, default=ctx)
    if slot == "context":  # the model's own default (a reasoning model writes long answers), as the answer assumed
        spec = catalog.find_model(s.model) if catalog is not None and s.model else None
        ctx = book.tokens("default context", default_context(spec), "advisor.workload.default_context", lang)
        return t("question.context", lang, default=ctx)
    if slot == "weights":
        native = default_weights(s.model).upper()
        options = [f for f in ("BF16", "FP8", "INT8") if f != native]
        return t("question.weights", lang, native=native, others=t("list.sep", lang).join(options))
    if slot == "region":
        return t("question.region", lang, default=t("question.region_default", lang))
    if slot in ("budget", "output_tokens", "train_tokens", "deadline"):
        return t(f"question.{slot}", lang)
    return ""


def render_note(key: str, book: Book, lang: str) -> str:
    """A fixed sentence from `lang.MESSAGES`, its numbers recorded."""
    if not key:
        return ""
    if key == "truncated":
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
        key = "preamble.not_language_model" if not_a_language_model(word) else "preamble.unknown_model"
        out.append(t(key, lang, name=word))
    for word in slots.unknown_gpus:
        if slots.capacity is not None:  # the user gave its specs: sized from them, as given (inline_specs)
            key = "preamble.unknown_gpu_given" if slots.bandwidth is not None else "preamble.unknown_gpu_given_memory"
            out.append(t(key, lang, name=word))
            continue
        out.append(t("preamble.unknown_gpu", lang, name=word))
    return out + _stand_in(slots, lang, catalog) if stand_in else out


def device_line(device: DeviceMention, catalog: Catalog, book: Book, lang: str) -> str:
    """Where the memory of a laptop GPU or a Mac came from (knowledge.devices), with its sources; its figures are
    recorded in `book`."""
    devices = load_devices()
    if device.kind == "laptop":
        lap = next(d for d in devices.laptops if d.id == device.id)
        ids = lap.cite
        text = t("preamble.device.laptop", lang, name=lap.name, memory=lap.memory, said=device.text)
    else:
        pool = device.pool_gb or 0.0
        ids = devices.apple.cite
        share = devices.apple.share(pool)
        text = t("preamble.device.apple", lang, name=device.name, pool=f"{pool:g} GB",
                 gpu=f"{devices.apple.gpu_bytes(pool) / 2**30:.1f} GiB", frac="2/3" if share < 0.7 else "3/4",
                 limit=f"{devices.apple.small_pool_gb:g} GB")
    titles = [catalog.sources[sid].title.split(" (")[0] for sid in ids[:2] if sid in catalog.sources]
    if titles:
        text += t("preamble.device.sources", lang, titles="; ".join(titles))
    return book.text(text, f"memory of {device.name}", SRC_DEVICES)


def _stand_in(slots: Slots, lang: str, catalog: Catalog) -> list[str]:
    out: list[str] = []
    if slots.model_assumed in ("size", "closest") and slots.size_params and slots.model:
        name = model_name(catalog, slots.model)
        out.append(t("preamble.stand_in", lang, name=name))
    elif slots.model_assumed == "coding" and slots.model:  # no model named for a coding use: the coding default
        out.append(t("preamble.coding_default", lang, name=model_name(catalog, slots.model)))
    elif slots.model and slots.model_text:  # "Qwen3-Coder-30B-A3B" read as its architecture twin: said, never silent
        name = model_name(catalog, slots.model)
        typed = set(re.findall(r"[a-z]+", slots.model_text.lower()))
        extra = sorted((typed & _VARIANT_WORDS) - set(re.findall(r"[a-z]+", f"{name} {slots.model}".lower())))
        if extra:
            out.append(t("preamble.twin", lang, typed=slots.model_text, name=name))
    return out


# variant words that name another checkpoint of the same architecture (a catalog alias may map them to it)
_VARIANT_WORDS = frozenset({"coder", "math", "guard", "abliterated", "uncensored", "distill", "vl", "vision"})
