"""A request rate said with a configuration ("3 requests per second: will it keep up?", "can one H100 do 100 rps?"):
whether the configuration's output at the load the rate makes (Little's law, dialog.machine.build_constraints) comes
out as fast as the requests ask for it, rate × output tokens a request (`Constraints.requests_per_s`,
`min_tokens_per_s`), in the person's terms."""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.book import SRC_USER, Book
from advisor.conversation.render.options_table import SRC_LOAD, miss_words, misses
from knowledge.messages import t


def _asked(qps: float, need: float, book: Book, lang: str) -> tuple[str, str]:
    """The rate as said (whole numbers whole, "0.5", "2.5") and the output it asks for, booked."""
    digits = 0 if qps >= 10 or qps == int(qps) else 2 if qps < 1 else 1
    said = book.num("request rate", qps, "requests/s", SRC_USER, digits, suffix=t("lead.rate.unit", lang))
    return said, book.num("output the stated request rate needs (requests/s × output tokens)", need, "tokens/s",
                          "requests/s × output tokens a request", 0)


def misses_but_rate(o: Any, ev: Any, lang: str) -> list[str]:
    """`misses` of a configuration the person named, less the missed total throughput where a request rate was said:
    `rate_kept` says that one in the person's terms."""
    missing = misses(o, lang, running=True)
    if getattr(ev.constraints, "requests_per_s", None):
        return [m for m in missing if m != miss_words("throughput", lang)]
    return missing


def rate_kept(o: Any, ev: Any, book: Book, lang: str, *, after_but: bool = False) -> str:
    """"3 requests per second: will it keep up?": whether `o`'s output at the load the rate makes (Little's law) comes
    out as fast as the requests ask for it (the stated rate × output tokens a request, `Constraints.min_tokens_per_s`,
    judged on the total the search judged); "" where no rate was said or `o` has no speed."""
    c = ev.constraints
    qps, total = getattr(c, "requests_per_s", None), c.min_tokens_per_s
    tput = o.throughput
    if not qps or not total or tput is None or not tput.decode_tokens_per_s:
        return ""
    got = tput.judged_total
    out = book.num(f"total output tokens/s on {o.count}× {o.gpu_name}", got, "tokens/s", "estimator: throughput", 0)
    said, need = _asked(qps, total, book, lang)
    key = "lead.rate.kept" if got >= total else "lead.rate.short_too" if after_but else "lead.rate.short"
    return t(key, lang, qps=said, got=out, need=need)


def rate_as_turns(o: Any, ev: Any, turns: dict[str, Any], book: Book, lang: str,
                  who: str) -> tuple[str, str, str] | None:
    """A request rate said of a configuration that holds its users' chat turns but not their whole contexts: whether
    its output at that load (Analysis.turns_load, the simulation) keeps up with the rate's (requests/s × output
    tokens a request), as (text, verdict, deciding); None without a stated rate."""
    qps, need_v = getattr(ev.constraints, "requests_per_s", None), ev.constraints.min_tokens_per_s
    if not qps or not need_v or not turns.get("total_tokens_per_s"):
        return None
    on = f"{o.count}× {o.gpu_name}"
    users = int(turns["concurrency"])
    got_v = float(turns["total_tokens_per_s"])
    got = book.num(f"total output tokens/s at {users} users on {on}", got_v, "tokens/s", SRC_LOAD, 0)
    said, need = _asked(qps, need_v, book, lang)
    per = book.num(f"tokens/s per user at {users} users on {on}", float(turns["per_user_tokens_per_s"]), "tokens/s",
                   SRC_LOAD, 0)
    n = book.count(f"requests at once at {users} users on {on}", users, "sequences", SRC_LOAD)
    turn = book.count("tokens of one chat turn (prompt + output)", int(turns.get("turn_tokens") or 0), "tokens",
                      "advisor.workload.CHAT_PROMPT_TOKENS + the output tokens")
    kept = got_v >= need_v
    text = t("lead.rate.turns_kept" if kept else "lead.rate.turns_short", lang, who=who, qps=said, got=got, need=need,
             n=n, per=per, turn=turn)
    return text, "yes" if kept else "no", f"total output tokens/s at {users} users on {on}"
