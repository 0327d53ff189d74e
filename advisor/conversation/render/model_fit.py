"""The answer to "which model can I run on my card?": the largest catalog models that fit, each at the most precise
format that fits and its memory per GPU (advisor.analysis.model_fit), the largest at the checkpoint's own precision,
and a table. The words are in knowledge/messages (`model_fit.*`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.model_fit import ModelFit, is_coding
from advisor.conversation.render.book import Book
from advisor.conversation.render.compose import finish_turn
from advisor.conversation.turn import Turn
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.conversation.dialog.machine import DialogState
    from knowledge.schemas import GpuSpec

SHOWN = 8  # rows of the table
LEAD = 3  # models named in the first sentence
FORMAT_NAMES = {"bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "mxfp4": "MXFP4", "awq-int4": "AWQ-INT4",
                "q8_0": "Q8_0", "q4_k_m": "Q4_K_M"}
SRC_PARAMS = "knowledge.params.param_counts"


def _fmt(name: str) -> str:
    return FORMAT_NAMES.get(name, name.upper())


def _params(book: Book, f: ModelFit, lang: str) -> str:
    total = book.num(f"parameters of {f.model.name}", f.params / 1e9, "B", SRC_PARAMS, 0 if f.params >= 1e11 else 1,
                     suffix="B")
    if f.active < f.params:
        active = book.num(f"active parameters of {f.model.name}", f.active / 1e9, "B", SRC_PARAMS, 1, suffix="B")
        return t("model_fit.params_active", lang, total=total, active=active)
    return total


def _gib(book: Book, f: ModelFit, on: str) -> str:
    return book.gib(f"memory per GPU of {f.model.name} at {_fmt(f.weights)} on {on}", f.per_gpu_bytes)


def model_fit_turn(fits: list[ModelFit], gpu: GpuSpec, count: int, context: int, coding: bool,
                   state: DialogState, lang: str) -> Turn:
    """The Turn: the largest models that fit first (coding models first when asked for code), then a table."""
    book = Book()
    on = f"{count}× {gpu.name}"
    usable = book.gib(f"usable memory per GPU of {gpu.name}", fits[0].usable_bytes if fits else gpu.memory_bytes * 0.9)
    ctx = book.tokens("context sized for", context, "default context of a model-fit question", lang)
    extra = {"kind": "model_fit", "intent": "which_model"}
    if not fits:
        return finish_turn(t("model_fit.none", lang, on=on, usable=usable, ctx=ctx), lang, state, book, extra=extra)
    wanted = [f for f in fits if is_coding(f.model)] if coding else fits
    items = [t("model_fit.item", lang, name=f.model.name, params=_params(book, f, lang), fmt=_fmt(f.weights),
               gib=_gib(book, f, on)) for f in (wanted[:LEAD] or fits[:LEAD])]
    which = t("model_fit.which_coding" if coding and wanted else "model_fit.which_models", lang)
    lines = [t("model_fit.head", lang, which=which, on=on, usable=usable, ctx=ctx,
               items=t("model_fit.join", lang).join(items))]
    if coding and not wanted:
        lines.append(t("model_fit.no_coding", lang))
    full = next((f for f in wanted or fits if f.full_precision), None)
    if full is not None and full not in (wanted[:LEAD] or fits[:LEAD]):
        lines.append(t("model_fit.full", lang, fmt=_fmt(full.weights), name=full.model.name,
                       params=_params(book, full, lang), gib=_gib(book, full, on)))
    lines.append(t("model_fit.note", lang))
    rows = [f"| {f.model.name} | {_params(book, f, lang)} | {_fmt(f.weights)} | {_gib(book, f, on)} |"
            for f in (wanted + [f for f in fits if f not in wanted])[:SHOWN]]
    lines.append("\n".join([t("model_fit.table_head", lang), *rows]))
    return finish_turn("\n\n".join(lines), lang, state, book, extra=extra)
