"""The answers to "which model?" when none is named: the largest models that fit the card (or the memory, the laptop
GPU, the Mac) named, the models a budget's hardware runs, and the model a pre-training budget trains. Each fills the
turn from the working state; the dialog turn (`dialog.turn`) commits it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.conversation.dialog.load import serving_concurrency
from advisor.conversation.dialog.machine import DialogState, build_constraints
from advisor.conversation.reader.slots import DeviceMention
from advisor.conversation.reader.turn import CODING
from advisor.workload import DEFAULT_CONTEXT, Task
from knowledge.messages import t
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.conversation.turn import Turn
    from knowledge.catalog import Catalog
    from knowledge.schemas import GpuSpec


def model_fit(working: DialogState, text: str, lang: str, catalog: Catalog) -> Turn:
    """The largest catalog models that fit the card named (owned first), for one user at the context said or the
    default; the conversation keeps the card, and the next message may name one of the models."""
    from advisor.analysis.model_fit import models_that_fit  # start-up: `gpu-advisor ask` never loads model_fit
    from advisor.conversation.render.model_fit import model_fit_turn  # start-up: as above

    device, cap = working.slots.device, working.slots.capacity
    if device is not None and not (working.slots.existing or working.slots.candidates):
        gpu, count = device_spec(device, catalog), 1  # a laptop GPU or a Mac: its memory, said in the answer
    elif cap is not None and not (working.slots.existing or working.slots.candidates):
        # "24G显存能跑多大模型": a card known by its memory alone (GiB as typed, the sizes cards are sold in)
        base = min((g for g in catalog.gpus if g.segment == "consumer"),
                   key=lambda g: abs(g.memory_bytes - cap.bytes_if_gib))  # a card of that memory's class (its formats)
        gpu, count = replace(base, id="memory-only", name=t("model_fit.capacity_card", lang, gb=f"{cap.value:g}"),
                             aliases=(), memory_bytes=int(cap.bytes_if_gib)), working.slots.gpu_count or 1  # "2 张 24G 的卡": two
    else:
        mention = working.slots.existing or working.slots.candidates[0]
        gpu, count = catalog.gpu(mention.gpu), mention.count or 1
    context = working.slots.context or DEFAULT_CONTEXT
    coding = bool(CODING.search(text))
    trained: dict[str | None, Task] = {"lora": "lora", "qlora": "qlora", "full": "full"}  # "the biggest model I can LoRA on …"
    task = trained.get(working.slots.task, "lora" if working.slots.task_generic == "finetune" else "inference")
    users = serving_concurrency(working.slots, task)[0] if task == "inference" else 1  # "for 10 users": sized so
    turn = model_fit_turn(models_that_fit(catalog, gpu, count, context=context, coding=coding, task=task, users=users),
                          gpu, count, context, coding, working, lang, task=task, users=users)
    working.pending = None
    return turn


def device_spec(device: DeviceMention, catalog: Catalog) -> GpuSpec:
    """The GpuSpec standing for a laptop GPU or an unlisted Mac, for memory only (knowledge.devices)."""
    from knowledge.devices import laptop_spec, load_devices, mac_spec  # start-up: only this question loads it

    if device.kind == "laptop":
        return laptop_spec(next(d for d in load_devices().laptops if d.id == device.id), catalog)
    return mac_spec(device.pool_gb or 0.0, device.name, catalog)


HOW_BIG = re.compile(r"biggest|largest|how (?:big|large)|what size|最大|多大|多少参数", re.I)


def budget_train(working: DialogState, lang: str, catalog: Catalog) -> Turn:
    """A budget, pre-training and no model: the compute-optimal model the budget's training cards train in the
    stated time (default 30 days) (advisor.analysis.budget_training)."""
    from advisor.analysis.budget_training import budget_training  # start-up: only this question loads it
    from advisor.conversation.render.model_fit import budget_train_turn  # start-up: as above
    from advisor.recommend.assumptions import DEFAULT_TRAINING_DEADLINE_S  # start-up: as above

    constraints, _ = build_constraints(working, lang)
    assert constraints.budget is not None  # the caller checked that a budget was said
    seconds = working.slots.deadline_s or DEFAULT_TRAINING_DEADLINE_S
    tb = budget_training(catalog, constraints.budget, constraints.currency, constraints.region, seconds,
                         constraints.condition)
    working.pending = None
    turn = budget_train_turn(tb, constraints.budget, constraints.currency, constraints.region, working, lang)
    return turn


def budget_fit(working: DialogState, text: str, lang: str, catalog: Catalog) -> Turn:
    """A budget and no card: the configuration with the most GPU memory the budget buys new in the region
    (advisor.analysis.budget_hardware), then the largest models that fit it; said first when nothing is affordable."""
    from advisor.analysis.budget_hardware import budget_hardware  # start-up: only this question loads the pricing
    from advisor.analysis.model_fit import models_that_fit  # start-up: `gpu-advisor ask` never loads model_fit
    from advisor.conversation.render.model_fit import budget_none_turn, model_fit_turn  # start-up: as above

    constraints, _ = build_constraints(working, lang)
    assert constraints.budget is not None  # the caller checked that a budget was said
    bought = budget_hardware(catalog, constraints.budget, constraints.currency, constraints.region,
                             constraints.condition)
    working.pending = None
    if bought.pick is None:
        turn = budget_none_turn(bought, working, lang)
    else:
        gpu, count = bought.pick.gpu, bought.pick.count
        context = working.slots.context or DEFAULT_CONTEXT
        coding = bool(CODING.search(text))
        users = serving_concurrency(working.slots, "inference")[0]  # "a team of 100": its peak users
        turn = model_fit_turn(models_that_fit(catalog, gpu, count, context=context, coding=coding, users=users), gpu,
                              count, context, coding, working, lang, bought=bought, users=users)
    return turn
