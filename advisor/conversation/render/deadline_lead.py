"""A training run against a deadline. "Is it doable overnight on a 4090?", "can it finish in 2 hours?", "周末能训完吗"
are answered on the deadline first: **No**, with the time the run takes and the fewest of that card the answer found
that finish within it, or **Yes**, with its time; then the memory (`deadline_lead`). A run that fits but is past the
deadline (the stated one, else the recommender's 30-day default) in an answer that leads with its memory is followed by
the cards that meet it (`slow_training`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_USER, Book
from advisor.conversation.render.options_table import need_and_usable, opt_days, opt_layout, opt_name
from advisor.recommend.assumptions import DEFAULT_TRAINING_DEADLINE
from knowledge.messages import t
from knowledge.quantities import DAY, Seconds

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.recommend.results import Option


def faster_within(o: Option, top: Option | None, ev: Analysis, limit: Seconds) -> Option | None:
    """The fewest of `o`'s card, among the configurations the answer evaluated, that hold the job and finish within
    `limit`; None when none does."""
    pool = [top, *ev.alternatives, *(ev.recommendation.options if ev.recommendation else [])]
    faster = sorted((x for x in pool if x is not None and x.gpu == o.gpu and x.count > o.count and x.fits
                     and x.training and x.training.wall <= limit), key=lambda x: x.count)
    return faster[0] if faster else None


def slow_training(o: Option, top: Option | None, ev: Analysis, book: Book, lang: str) -> str:
    """"Is one H20 good for pre-training a 7B on 100B tokens?": it fits, but past the deadline (the stated one, else
    the recommender's 30-day default) — then the fewest of that card the answer offers that finish within it;
    "" otherwise."""
    deadline = ev.constraints.deadline_s
    limit = Seconds(deadline) if deadline else DEFAULT_TRAINING_DEADLINE
    if not (o.fits and o.training and o.training.wall > limit):
        return ""
    faster = faster_within(o, top, ev, limit)
    if faster is None:
        return ""
    why = t("lead.slow_training.yours" if deadline else "lead.slow_training.default", lang,
            days=f"{DEFAULT_TRAINING_DEADLINE.days:g}")
    return t("lead.slow_training", lang, name=opt_name(faster, book), days=opt_days(faster, book, lang), why=why)


def deadline_lead(o: Option, top: Option | None, ev: Analysis, book: Book, lang: str,
                  said: str | None = None) -> fs.Lead | None:
    """The verdict on a stated training deadline for the configuration `o` asked about, then its memory; None when
    no deadline was stated, the job is no training or `o` does not hold it (the shortfall is the answer then).
    `said`: the deadline's words ("overnight"), said with the hours they were taken as."""
    deadline = ev.constraints.deadline_s
    if not (deadline and ev.workload.is_training and o.fits and o.training and o.training.wall.s > 0):
        return None
    limit = Seconds(deadline)
    within = _limit(limit, book, lang, in_days=not said)
    asked = t("lead.deadline.words", lang, said=said, limit=within) if said else \
        t("lead.deadline.yours", lang, limit=within)
    name, took = opt_name(o, book), opt_days(o, book, lang)
    if o.training.wall <= limit:
        text, verdict = t("lead.deadline.meet", lang, took=took, name=name, deadline=asked), "yes"
    else:
        faster = faster_within(o, top, ev, limit)
        text = t("lead.deadline.miss", lang, took=took, name=name, deadline=asked, limit=within,
                 faster=opt_name(faster, book), days=opt_days(faster, book, lang)) if faster is not None else \
            t("lead.deadline.miss_none", lang, took=took, name=name, deadline=asked, limit=within)
        verdict = "no"
    need, usable = need_and_usable(o, book)
    text += t("sentence.gap", lang) + t("lead.fits_too", lang, need=need, usable=usable, lay=opt_layout(o, lang, book))
    return fs.Lead(text, verdict, f"training wall-clock on {o.count}× {o.gpu_name}")


def deadline_goal(o: Option, ev: Analysis, book: Book, lang: str) -> str:
    """"Pretrain a 70B on 15T tokens: how many H100s for 60 days?": the time the count takes, said in the count's
    sentence when it meets the stated deadline (" to finish in 57.6 days, within your deadline of 60 days"); ""
    without a deadline or a training time, or past it (the deadline lead says that)."""
    deadline = ev.constraints.deadline_s
    if not (deadline and ev.workload.is_training and o.fits and o.training and 0 < o.training.wall.s <= deadline):
        return ""
    within = t("lead.deadline.yours", lang, limit=_limit(Seconds(deadline), book, lang, in_days=True))
    return t("screen.count.goal_deadline", lang, took=opt_days(o, book, lang), deadline=within)


def _limit(limit: Seconds, book: Book, lang: str, in_days: bool) -> str:
    """The deadline as said back: in days when it is whole days of two or more ("2 days") and `in_days`, else in
    hours (a deadline said in words, "over the weekend", is said in the hours it was taken as)."""
    if in_days and limit >= DAY * 2 and (limit.s / DAY.s).is_integer():
        return book.duration("your deadline", limit, "days", SRC_USER, 0, suffix=t("slot.days", lang))
    return book.duration("your deadline", limit, "h", SRC_USER, 0 if (limit.s / 3600).is_integer() else 1,
                         suffix=t("slot.hours", lang))
