"""The answer to "which model can I run on my card?": the largest catalog models that fit, each at the most precise
format that fits and its memory per GPU (advisor.analysis.model_fit), the largest at the checkpoint's own precision,
and a table. The words are in knowledge/messages (`model_fit.*`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.model_fit import ModelFit, is_coding
from advisor.conversation.render.book import Book
from advisor.conversation.render.compose import finish_turn
from advisor.conversation.render.labels import task_label
from advisor.conversation.render.preamble import device_line
from advisor.conversation.turn import Turn
from knowledge.catalog import load_catalog
from knowledge.messages import t, table
from knowledge.quantities import Seconds

if TYPE_CHECKING:
    from advisor.analysis.budget_hardware import BudgetHardware, BudgetPick
    from advisor.analysis.budget_training import TrainingBudget
    from advisor.conversation.dialog.machine import DialogState
    from knowledge.schemas import GpuSpec

SHOWN = 8  # rows of the table
LEAD = 3  # models named in the first sentence
FORMAT_NAMES = {"bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "mxfp4": "MXFP4", "awq-int4": "AWQ-INT4",
                "q8_0": "Q8_0", "q4_k_m": "Q4_K_M"}
SRC_PARAMS = "knowledge.params.param_counts"
SRC_BUDGET = "advisor.analysis.budget_hardware"


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
    return book.gib(f"memory per GPU of {f.model.name} at {_fmt(f.weights)} on {on}", f.per_gpu)


def _priced(book: Book, pick: BudgetPick, lang: str) -> dict[str, str]:
    """The placeholders of a bought configuration: on, total, price, kind, as_of."""
    p = pick.price
    kind = p.kind.split(",")[0]
    return {"on": f"{pick.count}× {pick.gpu.name}",
            "total": book.money(f"cards of {pick.count}× {pick.gpu.name}", pick.total, p.per_card.currency, SRC_BUDGET),
            "price": book.money(f"price of one {pick.gpu.name}", p.per_card.amount, p.per_card.currency, p.source),
            "kind": t(f"market.price_kind.{kind}", lang) if f"market.price_kind.{kind}" in table(lang) else kind,
            "as_of": p.as_of}


def budget_none_turn(hw: BudgetHardware, state: DialogState, lang: str) -> Turn:
    """No card is affordable: say so first, with the cheapest card there is."""
    book = Book()
    budget = book.money("budget", hw.budget, hw.currency, "user input")
    where = t("model_fit.budget_where_cn", lang) if hw.region == "cn" else ""
    extra = {"kind": "model_fit", "intent": "which_model"}
    if hw.cheapest is None:
        return finish_turn(t("model_fit.budget_none", lang, budget=budget, where=where, name="—", price="—", kind="—",
                             as_of="—"), lang, state, book, extra=extra)
    priced = _priced(book, hw.cheapest, lang)
    text = t("model_fit.budget_none", lang, budget=budget, where=where, name=hw.cheapest.gpu.name,
             price=priced["price"], kind=priced["kind"], as_of=priced["as_of"])
    return finish_turn(text, lang, state, book, extra=extra)


def model_fit_turn(fits: list[ModelFit], gpu: GpuSpec, count: int, context: int, coding: bool,
                   state: DialogState, lang: str, bought: BudgetHardware | None = None,
                   task: str = "inference", users: int = 1) -> Turn:
    """The Turn: the largest models that fit first (coding models first when asked for code), then a table. With
    `bought` (a budget and no card named), the first sentence says the budget, the models and the cards it buys.
    `users`: the concurrent sequences each model was sized for (the users said, else one)."""
    book = Book()
    n = book.count("concurrent sequences sized for", users, "sequences", "users said, else one")
    who = {"who": t("model_fit.users_many" if users > 1 else "model_fit.user_one", lang, n=n)}
    on = f"{count}× {gpu.name}"
    usable = book.gib(f"usable memory per GPU of {gpu.name}", fits[0].usable if fits else gpu.memory * 0.9)
    ctx = book.tokens("context sized for", context, "default context of a model-fit question", lang)
    extra = {"kind": "model_fit", "intent": "which_model"}
    if not fits:
        return finish_turn(t("model_fit.none", lang, on=on, usable=usable, ctx=ctx, **who), lang, state, book, extra=extra)
    wanted = [f for f in fits if is_coding(f.model)] if coding else fits
    items = [t("model_fit.item", lang, name=f.model.name, params=_params(book, f, lang), fmt=_fmt(f.weights),
               gib=_gib(book, f, on)) for f in (wanted[:LEAD] or fits[:LEAD])]
    which = t("model_fit.which_coding" if coding and wanted else "model_fit.which_models", lang)
    joined = t("model_fit.join", lang).join(items)
    if bought is not None and bought.pick is not None:
        budget = book.money("budget", bought.budget, bought.currency, "user input")
        where = t("model_fit.budget_where_cn", lang) if bought.region == "cn" else ""
        lines = [t("model_fit.budget_head", lang, budget=budget, which=which, items=joined, where=where,
                   usable=usable, ctx=ctx, **who, **_priced(book, bought.pick, lang))]
        if bought.single is not None:
            one = _priced(book, bought.single, lang)
            lines.append(t("model_fit.budget_single", lang, budget=budget, on=one["on"], price=one["price"],
                           kind=one["kind"], as_of=one["as_of"]))
    elif task != "inference":  # "the biggest model I can LoRA on a 4090": trained that way, micro-batch 1
        lines = [t("model_fit.head_train", lang, task=task_label(task, lang), on=on, usable=usable, ctx=ctx,
                   items=joined)]
    else:
        lines = [t("model_fit.head", lang, which=which, on=on, usable=usable, ctx=ctx, items=joined, **who)]
    if state.slots.device is not None and bought is None:  # a laptop GPU or a Mac: where its memory came from
        lines.append(device_line(state.slots.device, load_catalog(), book, lang))
    if coding and not wanted:
        lines.append(t("model_fit.no_coding", lang))
    full = next((f for f in wanted or fits if f.full_precision), None)
    if task == "inference" and full is not None and full not in (wanted[:LEAD] or fits[:LEAD]):
        lines.append(t("model_fit.full", lang, fmt=_fmt(full.weights), name=full.model.name,
                       params=_params(book, full, lang), gib=_gib(book, full, on)))
    lines.append(t("model_fit.note" if task == "inference" else "model_fit.note_train", lang,
                   task=task_label(task, lang), **who))
    if bought is not None and bought.pick is not None:
        lines.append(t("model_fit.budget_note", lang))
        if not bought.pick.gpu.is_machine:
            lines.append(t("model_fit.budget_cards_only", lang, n=bought.pick.count))
    rows = [f"| {f.model.name} | {_params(book, f, lang)} | {_fmt(f.weights)} | {_gib(book, f, on)} |"
            for f in (wanted + [f for f in fits if f not in wanted])[:SHOWN]]
    lines.append("\n".join([t("model_fit.table_head", lang), *rows]))
    return finish_turn("\n\n".join(lines), lang, state, book, extra=extra)


SRC_TRAIN = "advisor.analysis.budget_training"


def budget_train_turn(tb: TrainingBudget | None, budget: float, currency: str, region: str, state: DialogState,
                      lang: str) -> Turn:
    """"$500k — the biggest model we can train in a month?": the compute-optimal model size for the compute the
    budget's training cards deliver in that time (advisor.analysis.budget_training), then how it was worked out."""
    book = Book()
    extra = {"kind": "model_fit", "intent": "which_model"}
    money = book.money("budget", budget, currency, "user input")
    where = t("budget_train.where_cn", lang) if region == "cn" else ""
    if tb is None:
        return finish_turn(t("budget_train.none", lang, budget=money, where=where), lang, state, book, extra=extra)
    days = book.duration("training time", Seconds(tb.seconds), "days", "user input or the 30-day default", 0,
                         suffix=t("slot.days", lang))
    params = book.num("compute-optimal parameters", tb.params / 1e9, "B", SRC_TRAIN, 0 if tb.params >= 1e10 else 1,
                      suffix="B")
    tokens = book.tokens("compute-optimal training tokens", float(f"{tb.tokens:.3g}"), SRC_TRAIN, lang)
    flops = f"{tb.flops:.1e}".replace("e+", "e")
    book.add("training compute", tb.flops, "FLOPs", SRC_TRAIN)
    mfu = book.num("MFU assumed", tb.mfu * 100, "%", SRC_TRAIN, 0, suffix="%")
    priced = _priced(book, tb.pick, lang)
    head = t("budget_train.head", lang, budget=money, params=params, days=days, tokens=tokens, **priced, where=where)
    per_param = round(tb.tokens / tb.params, 6)  # the compute-optimal tokens per parameter the size was found for
    how = t("budget_train.how", lang, flops=flops, mfu=mfu, params=params, tokens=tokens, tpp=f"{per_param:g}",
            k=f"{6 * per_param:g}")
    note = t("budget_train.note", lang)
    return finish_turn(head + "\n\n" + how + "\n\n" + note, lang, state, book, extra=extra)

