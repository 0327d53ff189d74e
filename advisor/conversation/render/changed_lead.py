"""A configuration the person named that holds the job only in another weight format, asked for its users or its
speed at a load: "max concurrency for Qwen2.5-32B on an L40S?", "Qwen2.5-32B on two 3090s for 10 users, how fast?".
The answer opens with the users or the speed in the format that holds it (Analysis.changed_config and its load),
then the shortfall as asked."""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.book import SRC_USER, Book
from advisor.conversation.render.firstscreen import Lead
from advisor.conversation.render.labels import option_format
from advisor.conversation.render.load_lead import format_changed, users_lead
from advisor.conversation.render.options_table import need_and_usable, opt_name, shortfall
from advisor.conversation.render.turns_lead import asks_pace, pace_figures, turns_held
from knowledge.messages import t
from knowledge.structs import replace


def changed_format_lead(ev: Any, book: Book, lang: str, *, users: bool) -> Lead | None:
    """"Max concurrency for Qwen2.5-32B on an L40S, TTFT under 500 ms?" (`users`) or "… on two 3090s for 10 users,
    how fast is each?" (a speed asked) when the card holds the weights only in another format: the users the changed
    configuration serves, or its speed at the users asked (its load, Analysis.changed_load), said first, led by the
    format ("With FP8 weights: 1× L40S serves at most 8 …"), then the shortfall as asked. None otherwise."""
    o, load = ev.changed_config, ev.changed_load
    named = ev.named_config
    if o is None or not load or named is None or named.fits or not (users or asks_pace(ev)):
        return None
    if ev.limits is None or ev.limits.option is not named or ev.limits.max_load > 0:
        return None  # it holds some users as asked: those are the answer (users_lead), not another format's
    if o.sized_workload is None or o.sized_workload.weights == ev.workload.weights:
        return None  # the change is not a weight format (fewer users, an FP8 KV cache): the verdict leads
    if not users and turns_held(ev, named) is not None:
        return None  # the users' chat turns in that format, at the users asked, lead (firstscreen.option_lead)
    led = users_lead(o, replace(ev, load=load), book, lang) if users else _changed_pace(o, load, book, lang)
    if led is None:
        return None
    need, usable = need_and_usable(named, book)
    short = shortfall(named, book)
    fmt = option_format(named, lang)  # the format it was judged in (the checkpoint's own when none was said)
    led.text = (format_changed(ev, book, lang) + led.text + t("sentence.gap", lang)
                + t("lead.users.as_asked", lang, fmt=fmt, short=short, need=need, usable=usable))
    return led


def _changed_pace(o: Any, load: dict[str, Any], book: Book, lang: str) -> Lead | None:
    """"**2× RTX 3090 serve 10 concurrent users at 21 tokens/s each (48 ms per token), first token after 150 ms**":
    the speed of the changed configuration at the users asked, the bold of a speed lead."""
    if not load.get("per_user_tokens_per_s") or not load.get("tpot_s"):
        return None
    users, on = int(load["concurrency"]), f"{o.count}× {o.gpu_name}"
    per, tpot, ttft = pace_figures(load, on, book)
    text = t("lead.changed_pace", lang, name=opt_name(o, book),
             n=book.count("concurrency", users, "sequences", SRC_USER), per=per, tpot=tpot, ttft=ttft)
    return Lead(text, "with_changes", f"tokens/s per user at {users} users on {on}")
