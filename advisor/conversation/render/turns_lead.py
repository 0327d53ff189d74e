"""A named configuration that holds its users' chat turns but not their whole default contexts: "50 users of
Llama-3.1-8B on one 4090, what speed does each get?". The memory verdict counts every user at the whole 4,096-token
context the answer assumes (50 × 4,096 tokens of KV: 42 GiB); an engine that pages its KV cache keeps only what the
requests have written, so the card serves the 50 as long as their conversations stay short. The answer opens with
the simulated load at the users asked (Analysis.turns_load, advisor.analysis.load_answers.turns_load), then says
how many whole contexts fit and what holds them all."""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.book import SRC_RECOMMEND, Book, source_of
from advisor.conversation.render.labels import format_label, option_format
from advisor.conversation.render.options_table import ENGINE_LABELS, SRC_LOAD, need_and_usable
from knowledge.messages import t
from knowledge.quantities import Seconds


def asks_pace(ev: Any) -> bool:
    """Whether the question asks how fast (speed, first token, an answer's time: "what speed does each get?", "卡不卡"):
    the chat-turn load leads. Asked whether it fits or can serve them, the memory verdict on whole contexts leads and
    the chat-turn load follows it (turns_intro)."""
    return bool(getattr(ev, "asks_speed", False) or getattr(ev, "asks_ttft", False) or getattr(ev, "asks_e2e", False)
                or getattr(ev, "asks_p99", False))  # "what's the p99 latency …?": a tail latency is a pace too


def turns_held(ev: Any, o: Any) -> dict[str, Any] | None:
    """The load of Analysis.turns_load when it was simulated on `o` (the configuration named), else None."""
    load: dict[str, Any] | None = getattr(ev, "turns_load", None)
    if not load or load.get("gpu") != o.gpu or load.get("count") != o.count:
        return None
    return load


def turns_option(ev: Any) -> Any:
    """The configuration named that Analysis.turns_load was simulated on, else None."""
    return next((o for o in getattr(ev, "user_options", ()) if turns_held(ev, o) is not None), None)


def turns_text(o: Any, ev: Any, load: dict[str, Any], book: Book, lang: str, who: str, whole: int) -> str:
    """"**Yes, for chat turns: one card serves 50 concurrent users, 34 tokens/s each …** (vLLM pages the KV cache
    …). Not 50 whole 4096-token contexts: 8 of them fit at once …" with the change that holds them all, when the
    recommender found one in another weight or cache format."""
    users = int(load["concurrency"])
    on = f"{o.count}× {o.gpu_name}"
    n = book.count("concurrency", users, "sequences", source_of(ev, "concurrency"))
    per_v = load["per_user_tokens_per_s"]
    per, tpot, ttft = pace_figures(load, on, book)
    pct = 99 if getattr(ev, "asks_p99", False) and load.get("ttft_p99_s") else 95  # "p99 首字延迟多少？": that tail
    p95 = book.duration(f"p{pct} time to first token at {users} users on {on}",
                        Seconds(load.get(f"ttft_p{pct}_s") or load["ttft_s"]), "ms", SRC_LOAD, 0)
    book.add(f"KV cache tokens beside the weights on {on}", load["kv_tokens"], "tokens", SRC_LOAD)
    kv = f"{int(load['kv_tokens']):,} tokens"
    held = book.count(f"chat turns the KV cache holds at once on {on}", load["held"], "sequences", SRC_LOAD)
    turn = book.num("tokens of one chat turn (prompt + output)", load["turn_tokens"], "tokens", SRC_RECOMMEND)
    fit = book.count(f"whole-context sequences that fit on {on}", whole, "sequences", SRC_RECOMMEND)
    need, usable = need_and_usable(o, book)
    if lang == "zh" and who[-1:].isascii():
        who += " "  # "2× NVIDIA H100 SXM5 80GB 可同时服务", "一张卡可同时服务"
    target = (load.get("target") or {}).get("tpot_s")
    slow = ""
    # it serves them more slowly than the per-token target, as printed ("25 tokens/s" is not slower than 25)
    if target and round(per_v) < round(1 / target, 1):
        stated = ev.constraints.max_ms_per_token is not None
        slow = t("turns.slow", lang, rate=book.target_rate(target),
                 why=t("screen.load.your_target" if stated else "screen.load.default_target", lang))
    text = t("turns.lead", lang, slow=slow, who=who, n=n, per=per, tpot=tpot, ttft=ttft, p95=p95, pct=pct,
             engine=engine_label(load), kv=kv, held=held, turn=turn)
    fmt = load.get("format")
    if fmt:  # the weights as asked leave no room for one whole context: served in the lighter format found
        label = format_label(fmt, lang)
        text = t("screen.load.changed", lang, fmt=label) + text
        return text + t("turns.whole_format", lang, n=n, ctx=ev.workload.context, fit=fit, need=need, usable=usable,
                        fmt=label, asked=option_format(o, lang))
    text += t("turns.whole_one" if whole == 1 else "turns.whole", lang, n=n, ctx=ev.workload.context, fit=fit,
              need=need, usable=usable)
    change = next((ch for ch in ev.named_changes or [] if ch.kind in ("precision", "kv")), None)
    if change is not None:
        msg = book.text(change.message_zh if lang == "zh" and change.message_zh else change.message,
                        f"change ({change.kind}) for {on}", SRC_RECOMMEND)
        text += t("turns.change", lang, msg=msg.rstrip("。."))
    return text


def pace_figures(load: dict[str, Any], on: str, book: Book) -> tuple[str, str, str]:
    """A simulated load's per-user speed, median time per output token and median time to first token on `on`, as
    printed and recorded in `book`."""
    users, per_v = int(load["concurrency"]), load["per_user_tokens_per_s"]
    return (book.num(f"tokens/s per user at {users} users on {on}", per_v, "tokens/s", SRC_LOAD, 1 if per_v < 10 else 0),
            book.duration(f"median time per output token at {users} users on {on}", Seconds(load["tpot_s"]), "ms",
                          SRC_LOAD, 0),
            book.duration(f"median time to first token at {users} users on {on}", Seconds(load["ttft_s"]), "ms",
                          SRC_LOAD, 0))


def engine_label(load: dict[str, Any]) -> str:
    """The engine a simulated load ran on, as people write it ("vLLM")."""
    engine = str(load.get("engine") or "")
    return ENGINE_LABELS.get(engine, engine)


def turns_intro(ev: Any, load: dict[str, Any], book: Book, lang: str) -> str:
    """The opening of the chat-turn load under a "no" on whole contexts ("Can our 2× 4090 serve a 70B to 8 users?"
    answers the memory first): "As chat turns of 410 tokens, the 8 users fit vLLM's paged KV cache at once (12,656
    tokens beside the weights): " before its load line."""
    users = int(load["concurrency"])
    book.add("tokens of one chat turn (prompt + output)", load["turn_tokens"], "tokens", SRC_RECOMMEND)
    book.add("KV cache tokens beside the weights", load["kv_tokens"], "tokens", SRC_LOAD)
    n = book.count("concurrency", users, "sequences", source_of(ev, "concurrency"))
    return t("turns.intro", lang, turn=f"{int(load['turn_tokens'])} tokens", n=n, engine=engine_label(load),
             kv=f"{int(load['kv_tokens']):,} tokens")
