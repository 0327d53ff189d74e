"""The first sentence of a training question about the run itself: its throughput and MFU ("tokens/s per GPU?"),
the plan's layout and global batch ("what parallelism?"), and the run in FP8 against BF16 ("how much faster?")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_TRAINING, SRC_USER, Book
from advisor.conversation.render.options_table import (
    ENGINE_LABELS,
    need_and_usable,
    opt_days,
    opt_layout,
    opt_name,
    wall_text,
)
from knowledge.messages import t
from knowledge.quantities import Seconds

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.recommend.results import Option
    from advisor.workload import PinnedLayout


def plan_lead(o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """"What global batch size and parallelism would you use?": the planner's layout for the configuration (its
    TP/PP/DP, ZeRO stage, recomputation), its global batch in sequences and tokens, and the micro-batch ×
    accumulation that makes it (advisor.estimator.planner: the batch searched within the family's published
    schedule and the critical-batch bound), with the run's time."""
    p = o.layout.planned
    assert p is not None
    on = f"{o.count}× {o.gpu_name}"
    ctx = max(1, ev.workload.context)
    seqs = book.num(f"global batch in sequences on {on}", p.global_batch_tokens / ctx, "sequences", SRC_TRAINING, 0,
                    suffix="")
    toks = book.tokens(f"global batch in tokens on {on}", p.global_batch_tokens, SRC_TRAINING, lang)
    mb = book.count(f"micro-batch per GPU on {on}", p.micro_batch, "sequences", SRC_TRAINING)
    acc = book.count(f"gradient accumulation steps on {on}", p.grad_accum, "steps", SRC_TRAINING)
    text = t("lead.plan", lang, name=opt_name(o, book), lay=opt_layout(o, lang, book), seqs=seqs, toks=toks,
             mb=mb, acc=acc, days=opt_days(o, book, lang), tokens=fs.train_tokens_text(ev, book, lang))
    run = o.training.planned if o.training is not None else None
    if run is not None and o.layout.pp > 1:  # a pipeline: the share of each step its bubble idles
        pct = book.num(f"pipeline bubble on {on}", 100 * run.bubble_fraction, "%", SRC_TRAINING, 1)
        sched = "DualPipe" if "dualpipe" in run.layout else "interleaved 1F1B" if p.vpp > 1 else "1F1B"
        text += t("sentence.gap", lang) + t("lead.plan.bubble", lang, pct=pct, pp=o.layout.pp, vpp=p.vpp,
                                            m=p.grad_accum, sched=sched)
    return fs.Lead(text, None, f"global batch in tokens on {on}")


def precision_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """"FP8 instead of BF16 for this run: how much faster?": the configuration's run planned in FP8 and in BF16
    (advisor.analysis.training_compare.training_precisions), the ratio of their wall-clock times and each one's tokens/s
    per GPU."""
    fp8, bf16 = ev.precision_runs
    assert fp8.training is not None and bf16.training is not None
    on = f"{fp8.count}× {fp8.gpu_name}"
    a, pa = _run_figures(fp8, "FP8", on, book, lang)
    b, pb = _run_figures(bf16, "BF16", on, book, lang)
    assert fp8.training is not None and bf16.training is not None
    ratio = bf16.training.wall.s / fp8.training.wall.s
    r = book.num(f"FP8 / BF16 training speed on {on}", ratio, "ratio", "ratio of the two wall-clock times", 2, suffix="")
    return fs.Lead(t("lead.train_precision", lang, name=opt_name(fp8, book), a=a, b=b, r=r, pa=pa, pb=pb,
                     lay=opt_layout(fp8, lang, book), tokens=fs.train_tokens_text(ev, book, lang)),
                   None, f"FP8 / BF16 training speed on {on}")


def framework_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """"Megatron, FSDP or DeepSpeed for this run?": the configuration's run planned with each framework
    (advisor.analysis.training_compare.training_frameworks), fastest first: its time, how much faster than each other, and
    every run's tokens/s per GPU and layout."""
    runs = ev.framework_runs
    best = runs[0]
    assert best.training is not None
    on = f"{best.count}× {best.gpu_name}"
    parts = []
    for o in runs:
        took, per = _run_figures(o, _engine(o), on, book, lang)
        parts.append(t("lead.framework.run", lang, engine=_engine(o), took=took, per=per, lay=opt_layout(o, lang, book)))
    first = best.training
    second = runs[1].training
    assert second is not None
    ratio = second.wall.s / first.wall.s
    r = book.num(f"speed of {_engine(best)} over {_engine(runs[1])} on {on}", ratio, "ratio",
                 "ratio of the two wall-clock times", 2, suffix="")
    # within 3 %: the planner's frameworks differ only in what they overlap and schedule, not a choice to make on speed
    key = "lead.framework.same" if ratio < 1.03 else "lead.framework"
    text = t(key, lang, engine=_engine(best), name=opt_name(best, book), r=r, other=_engine(runs[1]),
             runs=t("list.sep", lang).join(parts), tokens=fs.train_tokens_text(ev, book, lang))
    return fs.Lead(text, None, f"training frameworks compared on {on}")


def _run_figures(o: Option, label: str, on: str, book: Book, lang: str) -> tuple[str, str]:
    """One compared run's wall-clock (in days, in hours under a day) and tokens/s per GPU, recorded as `label`'s."""
    tr = o.training
    assert tr is not None
    if tr.wall.s >= 86400:
        took = book.duration(f"{label} training wall-clock on {on}", tr.wall, "days", SRC_TRAINING, 1,
                             suffix=t("slot.days", lang))
    else:
        took = book.duration(f"{label} training wall-clock on {on}", tr.wall, "h", SRC_TRAINING, 1,
                             suffix=t("slot.hours", lang))
    per = book.num(f"{label} training tokens/s per GPU on {on}", tr.tokens_per_s / o.count, "tokens/s", SRC_TRAINING,
                   0, suffix="")
    return took, per


def _engine(o: Option) -> str:
    """The training framework of an option's layout, as people name it."""
    e = o.layout.engine or ""
    return ENGINE_LABELS.get(e, e)


def train_speed_lead(o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """A training run's throughput, asked ("tokens per second per GPU?", "每卡每秒多少 token", "what MFU?"): tokens/s per
    GPU and in all, the model-FLOPs utilisation they mean (advisor.estimator.planner / training: MFU = 6·N·tokens/s ÷
    peak), the layout and memory, then what the run takes at that rate."""
    tr = o.training
    assert tr is not None
    on = f"{o.count}× {o.gpu_name}"
    per_gpu = tr.tokens_per_s / o.count
    per = book.num(f"training tokens/s per GPU on {on}", per_gpu, "tokens/s", SRC_TRAINING, 0 if per_gpu >= 100 else 1)
    total = book.num(f"training tokens/s on all {o.count} GPUs of {on}", tr.tokens_per_s, "tokens/s", SRC_TRAINING, 0)
    mfu = book.num(f"MFU on {on}", tr.mfu * 100, "%", SRC_TRAINING, 0, suffix="%")
    need, usable = need_and_usable(o, book)
    key = "lead.train_mfu" if getattr(ev, "asks_mfu", False) else "lead.train_speed"
    text = t(key if o.count > 1 else key + ".one", lang, per=per, total=total, count=o.count,
             mfu=mfu, name=opt_name(o, book), lay=opt_layout(o, lang, book), need=need, usable=usable,
             tokens=fs.train_tokens_text(ev, book, lang), days=opt_days(o, book, lang))
    return fs.Lead(text, None, f"training tokens/s per GPU on {on}")


def pinned_lines(ev: Analysis, asked: Option | None, book: Book, lang: str) -> tuple[str, str]:
    """A training layout the user pinned (advisor.analysis.pinned_layout), as (before, after) the lead: refused, the
    line that says why and what is accepted, before the answer with the layout chosen instead; kept but slower than
    the planner's own layout of the same GPUs, one sentence with both times after the lead."""
    note = ev.pinned
    if note is None:
        return "", ""
    layout = pinned_text(note.layout, book, lang)
    if note.why is not None:
        why = book.text(note.why[1] if lang == "zh" else note.why[0], f"why {note.layout.text()} cannot run on {note.on}",
                        SRC_TRAINING)
        return t("lead.pinned.refused", lang, layout=layout, name=note.on, why=why), ""
    if note.best is None or note.best_wall_s is None or asked is None or asked.training is None:
        return "", ""
    best = book.text(note.best.text(t("list.sep", lang)), f"the planner's own layout on {note.on}", SRC_TRAINING)
    theirs = wall_text(f"training wall-clock on {note.on} with the planner's own layout {note.best.text()}",
                       Seconds(note.best_wall_s), book, lang)
    return "", t("lead.pinned.slower", lang, layout=layout, mine=opt_days(asked, book, lang), best=best, theirs=theirs)


def pinned_text(pins: PinnedLayout, book: Book, lang: str) -> str:
    """The degrees the user gave, as the layout column writes them ("TP 8, PP 4"; "TP 8、PP 4"), booked as theirs."""
    return book.text(pins.text(t("list.sep", lang)), "parallel layout you gave", SRC_USER)
