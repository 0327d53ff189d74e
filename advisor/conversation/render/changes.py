"""Changes: what changed since the last answer (slots, memory need, the leading option), and what would make
a configuration work (the recommender's checked changes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis, top_option
from advisor.conversation.dialog.machine import Change, DialogState, default_weights
from advisor.conversation.render import book as sources  # the provenance labels: sources.SRC_USER, …
from advisor.conversation.render.book import Book
from advisor.conversation.render.headline import top_config
from advisor.conversation.render.labels import region_label, slot_label, slot_value, task_label
from advisor.conversation.render.options_table import opt_name
from advisor.workload import DEFAULT_CONTEXT
from knowledge.messages import known, t
from knowledge.quantities import Bytes, Seconds

if TYPE_CHECKING:
    from advisor.recommend.recommender import Change as RecChange
    from advisor.recommend.recommender import Option, Recommendation
    from knowledge.catalog import Catalog


def changes_block(changes: list[Change], state: DialogState, ev: Analysis, book: Book, lang: str, catalog: Catalog) -> str:
    if not changes or not state.answered:
        return ""
    parts = []
    for ch in changes:
        if not known(f"slot.label.{ch.slot}"):
            continue
        if ch.old is None and ch.slot == "context" and state.last_workload.get("context") == ch.new:
            continue  # the context set now is the one the last answer used already (a model's own default: 32k)
        if ch.old is None and _default_of(ch.slot, ev, lang) == ch.new:
            continue  # said now, as the last answer had assumed it ("inference (default) → inference")
        if ch.old is None and ch.slot == "context" and state.last_workload.get("context"):
            old = book.tokens("previous context", int(state.last_workload["context"]), "previous turn", lang)
        elif ch.old is None and ch.slot == "train_tokens" and state.last_workload.get("train_tokens"):
            # the tokens the last answer was timed for (its default, or its samples at the sequence length)
            old = book.tokens("previous training tokens", float(state.last_workload["train_tokens"]), "previous turn", lang)
        elif ch.old is None and ch.slot in ("weights", "context", "concurrency", "task", "region"):
            old = _effective(ch.slot, ev, book, lang, catalog)
        else:
            old = slot_value(book, ch.slot, ch.old, lang, catalog, "previous")
        new = slot_value(book, ch.slot, ch.new, lang, catalog, "new")
        if ch.slot == "budget":  # an amount in the currency it is priced in ("$400,000"), not the bare float
            cur = ev.constraints.currency
            old = book.money("previous budget", ch.old, cur, "previous turn") if ch.old else old
            new = book.money("new budget", ch.new, cur, sources.SRC_USER) if ch.new else new
        if not old.strip():
            old = t("changes.none", lang)
        if ch.factor:  # "double the tokens": the factor said beside the new value
            new += t("changes.factor", lang, factor=f"{ch.factor:g}")
        parts.append(f"{slot_label(ch.slot, lang)} {old} → {new}")
    if not parts:
        return ""
    text = t("changes.head", lang, changes=t("clause.sep", lang).join(parts))
    kept = state.last_numbers.get("need_total")  # bytes, as the dialog state stores numbers
    before = Bytes.of(kept) if kept is not None else None
    if before is not None and ev.need is not None and abs(ev.need.per_gpu.total - before) > before * 0.0005:
        # ev.need is the job on one unsharded device: the total to spread over the GPUs, not what one GPU holds
        old = book.gib("previous total memory need (unsharded)", before, "previous turn: " + sources.SRC_MEMORY)
        new = book.gib("total memory need (unsharded)", ev.need.per_gpu.total)
        delta = abs(ev.need.per_gpu.total - before).ratio(before) * 100 if before else 0.0
        up = ev.need.per_gpu.total > before
        pct = book.num("increase in memory" if up else "decrease in memory", delta, "%",
                       "computed from the two estimates", 0, suffix="").replace(" ", "") + "%"
        pct = ("+" if up else "−") + pct
        text += t("changes.need", lang, old=old, new=new, change=pct)
    text += _top_change(state, ev, book, lang)
    text += t("sentence.end", lang)
    return text


def _top_change(state: DialogState, ev: Analysis, book: Book, lang: str) -> str:
    """How the leading option moved since the last answer: configuration and speed (recommender answers)."""
    before = state.last_workload or {}
    if ev.recommendation is None or not before.get("top_gpu"):
        return ""
    top = top_option(ev)
    if top is None:
        return ""
    out = ""
    if (before["top_gpu"], before["top_count"]) != (top.gpu, top.count):
        old = f"{book.count('previous GPU count', before['top_count'], 'GPUs', 'previous turn')}× {before['top_name']}"
        out += t("changes.leading", lang, old=old, new=opt_name(top, book))
    last = state.last_numbers
    speed = shown_total_speed(ev, top)
    if speed and last.get("top_tokens_per_s") and round(speed) != round(last["top_tokens_per_s"]):
        old = book.num("previous total decode speed", last["top_tokens_per_s"], "tokens/s", "previous turn: " + sources.SRC_THROUGHPUT, 0)
        new = book.num(f"total tokens/s shown on {top.count}× {top.gpu_name}", speed, "tokens/s", sources.SRC_THROUGHPUT, 0)
        out += t("changes.decode_speed", lang, old=old, new=new)
    wall = top.training.wall if top.training else None
    if wall and last.get("top_wall_s") and round(wall.s / 8640) != round(float(last["top_wall_s"]) / 8640):
        # (said in days to one decimal: a change under 0.1 day would read "4.1 days → 4.1 days")
        old = book.duration("previous training time", Seconds(last["top_wall_s"]), "days",
                            "previous turn: " + sources.SRC_TRAINING, 1, suffix=t("slot.days", lang))
        new = book.duration(f"training wall-clock on {top.count}× {top.gpu_name}", wall, "days", sources.SRC_TRAINING, 1,
                            suffix=t("slot.days", lang))
        out += t("changes.training_time", lang, old=old, new=new)
    return out


def shown_total_speed(ev: Analysis, top: Option) -> float:
    """The total output tokens/s the answer shows for its leading option: the simulated load's (the answer's load
    line, else the option's row under load), else the decode roofline's for one user; one figure per fact, so "what
    changed" compares what the two answers said."""
    load = ev.load or {}
    if load.get("total_tokens_per_s") and (load.get("concurrency") or 0) > 1:
        return float(load["total_tokens_per_s"])
    t = top.throughput
    if t is None:
        return 0.0
    if t.under_load is not None and t.under_load.total_tokens_per_s:
        return float(t.under_load.total_tokens_per_s)
    return float(t.decode_tokens_per_s_total or 0.0)


def _default_of(slot: str, ev: Analysis, lang: str) -> object:
    """The value a slot's default had in the last answer (`_effective` says it), to compare with one said now."""
    if slot == "task":
        return "inference"
    if slot == "weights" and ev.workload.task == "inference":
        return default_weights(ev.workload.model)
    if slot == "concurrency":
        return 1
    if slot == "region":
        return "cn" if lang == "zh" else "global"
    return None


def _effective(slot: str, ev: Analysis, book: Book, lang: str, catalog: Catalog) -> str:
    """The default a slot had before the user set it ("BF16 (default)")."""
    if slot == "weights":
        default = default_weights(ev.workload.model).upper() if ev.workload.task == "inference" else "BF16"
    elif slot == "context":
        default = book.tokens("previous context", DEFAULT_CONTEXT, sources.SRC_DEFAULT, lang)
    elif slot == "concurrency":
        default = book.count("previous concurrency", 1, "sequences", sources.SRC_DEFAULT)
    elif slot == "task":
        default = task_label("inference", lang)
    else:  # the region default build_constraints applies: mainland China for Chinese users
        default = region_label("cn" if lang == "zh" else "global", lang)
    return t("changes.default", lang, value=default)


def key_numbers(ev: Analysis) -> dict[str, float]:
    out: dict[str, float] = {}
    if ev.need is not None:
        out["need_total"] = float(ev.need.per_gpu.total.n)
    top = top_config(ev)
    if top is not None and top.memory is not None:
        out["top_total"] = float(top.memory.per_gpu.total.n)
        out["top_count"] = float(top.count)
    return out


def rec_changes(rec: Recommendation, book: Book, lang: str, own_only: bool = False) -> str:
    """The recommender's checked changes; `own_only` keeps those checked on the user's own hardware."""
    changes = [ch for ch in rec.changes if getattr(ch, "for_existing", False) or not own_only]
    if not changes:
        return ""
    return _checked_changes(t("changes.would_work", lang), changes, book, lang)


def _checked_changes(title: str, changes: list[RecChange], book: Book, lang: str, of: str = "") -> str:
    """`title` and one line per checked change, in the user's language. Changes checked on the user's own cards
    say so, unless they are all about `of` (one configuration the user named)."""
    zh = lang == "zh"
    lines = [title]
    for ch in changes:
        text = ch.message_zh if zh and ch.message_zh else ch.message
        if getattr(ch, "for_existing", False) and not of:
            text = t("changes.own_hardware", lang, change=text)
        lines.append("- " + book.text(text, f"change ({ch.kind})" + (f" for {of}" if of else ""), sources.SRC_RECOMMEND))
    return "\n".join(lines)


def named_changes(ev: Analysis, book: Book, lang: str) -> str:
    """What would make the one configuration the user named work (the recommender's changes checked on it)."""
    assert ev.named_config is not None  # compose shows these changes only with their configuration
    name = opt_name(ev.named_config, book)
    return _checked_changes(t("changes.would_make_work", lang, name=name), ev.named_changes, book, lang, of=name)
