"""One configuration simulated at several settings of one thing, for the answers that set them side by side: with
and without speculative decoding or chunked prefill, a ladder of prompt lengths or of loads, and a change of load
(advisor.analysis.load_answers runs them; render.lead tries these leads first, load_lead.changed_line the ones on the
cards as the answer's change makes them hold the job)."""

from __future__ import annotations

from typing import Any

from advisor.conversation.render.book import Book
from advisor.conversation.render.firstscreen import Lead
from advisor.conversation.render.options_table import SRC_LOAD, opt_layout, opt_name
from knowledge.messages import t
from knowledge.quantities import Seconds


def per_user(book: Book, name: str, value: float, source: str) -> str:
    """A per-user decode speed: whole tokens/s from 10 up, one decimal below."""
    return book.num(name, value, "tokens/s", source, 0 if value >= 10 else 1)


def load_words(users: int, lang: str) -> str:
    """The load a with/without answer was simulated at: "one request at a time" or "N concurrent users"."""
    return t("screen.chunked.load_one" if users == 1 else "screen.chunked.load", lang, users=users)


def speculation_lead(ev: Any, book: Book, lang: str) -> Lead | None:
    """"Does speculative decoding help?": the per-user and total speed at the load asked without and with it
    (advisor.analysis.load_answers.speculation), with the drafting it assumes; None without the two runs."""
    got = getattr(ev, "speculation", None)
    if not got:
        return None
    o, base, spec, users = got["option"], got["base"], got["spec"], int(got["users"])
    on = f"{o.count}× {o.gpu_name} at {users} users"
    src = SRC_LOAD + " (speculation)"
    per0, per1 = float(base["per_user_tokens_per_s"]), float(spec["per_user_tokens_per_s"])
    p0 = per_user(book, f"tokens/s per user without speculation on {on}", per0, SRC_LOAD)
    p1 = per_user(book, f"tokens/s per user with speculation on {on}", per1, src)
    ratio = book.num(f"speed-up of speculation on {on}", per1 / per0 if per0 else 0.0, "×", "computed: with ÷ without",
                     2, suffix="")
    t0 = book.num(f"output tokens/s in total without speculation on {on}", float(base["total_tokens_per_s"]),
                  "tokens/s", SRC_LOAD, 0)
    t1 = book.num(f"output tokens/s in total with speculation on {on}", float(spec["total_tokens_per_s"]),
                  "tokens/s", src, 0)
    k = book.count("drafted tokens per step", int(got["k"]), "tokens", "advisor.estimator.serving_sim.Speculation")
    acc = book.num("acceptance of each drafted token", float(got["acceptance"]) * 100, "%",
                   "advisor.estimator.serving_sim.Speculation", 0, suffix="").strip() + "%"
    tps = book.num("tokens per step with speculation", float(got["tokens_per_step"]), "tokens",
                   "computed: (1 − α^(k+1)) / (1 − α)", 2, suffix="")
    text = t("screen.speculation", lang, p1=p1, p0=p0, ratio=ratio, name=opt_name(o, book),
             lay=opt_layout(o, lang, book), users=users, n=users, t1=t1, t0=t0, k=k, acc=acc, tps=tps)
    return Lead(text, None, f"speculative decoding on {on}")


def chunked_lead(ev: Any, book: Book, lang: str) -> Lead | None:
    """"Does chunked prefill help TTFT?": the first-token time (median and p95) and per-user speed at the load asked
    with chunked prefill and without (advisor.analysis.load_answers.chunked_prefill); None without the two runs."""
    got = getattr(ev, "chunked", None)
    if not got:
        return None
    o, on_, off, users = got["option"], got["on"], got["off"], int(got["users"])
    where = f"{o.count}× {o.gpu_name} at {users} users"
    src = SRC_LOAD + " (chunked prefill off)"
    f1 = book.latency(f"time to first token with chunked prefill on {where}", Seconds(float(on_["ttft_s"])), SRC_LOAD)
    f0 = book.latency(f"time to first token without chunked prefill on {where}", Seconds(float(off["ttft_s"])), src)
    q1 = book.latency(f"p95 time to first token with chunked prefill on {where}", Seconds(float(on_["ttft_p95_s"])),
                      SRC_LOAD)
    q0 = book.latency(f"p95 time to first token without chunked prefill on {where}", Seconds(float(off["ttft_p95_s"])),
                      src)
    per1, per0 = float(on_["per_user_tokens_per_s"]), float(off["per_user_tokens_per_s"])
    p1 = per_user(book, f"tokens/s per user with chunked prefill on {where}", per1, SRC_LOAD)
    p0 = per_user(book, f"tokens/s per user without chunked prefill on {where}", per0, src)
    same = abs(per1 - per0) <= 0.02 * max(per0, 1e-9) and abs(float(on_["ttft_s"]) - float(off["ttft_s"])) <= \
        0.02 * max(float(off["ttft_s"]), 1e-9)
    prompt, budget = int(on_.get("prompt_tokens") or 0), int(on_.get("step_tokens") or 0)
    if same and 0 < prompt <= budget:  # nothing to split: the whole prompt fits one step's budget
        note = t("screen.chunked.fits_budget", lang,
                 prompt=book.count(f"prompt tokens simulated on {where}", prompt, "tokens", SRC_LOAD),
                 budget=book.count(f"step token budget on {where}", budget, "tokens", SRC_LOAD))
    elif same:
        note = t("screen.chunked.one_user" if users == 1 else "screen.chunked.same", lang)
    else:
        note = t("screen.chunked.users", lang)
    text = t("screen.chunked", lang, f1=f1, f0=f0, q1=q1, q0=q0, p1=p1, p0=p0, load=load_words(users, lang),
             name=opt_name(o, book),
             lay=opt_layout(o, lang, book)) + note
    return Lead(text, None, f"chunked prefill on {where}")


def ttft_ladder_lead(ev: Any, book: Book, lang: str) -> Lead | None:
    """"How does TTFT change with prompt length?": the median (and p95) first-token time at each prompt length of
    the ladder on one configuration at the load asked (advisor.analysis.load_answers.ttft_ladder)."""
    got = getattr(ev, "ttft_ladder", None)
    if not got:
        return None
    o, users = got["option"], int(got["users"])
    where = f"{o.count}× {o.gpu_name} at {users} users"
    cells = []
    for prompt, load in got["rows"]:
        p = book.tokens(f"prompt length of the TTFT ladder on {where}", prompt, SRC_LOAD, lang)
        f = book.latency(f"median time to first token for {prompt}-token prompts on {where}",
                         Seconds(float(load["ttft_s"])), SRC_LOAD)
        q = book.latency(f"p95 time to first token for {prompt}-token prompts on {where}",
                         Seconds(float(load["ttft_p95_s"])), SRC_LOAD)
        held = int(load.get("held") or 0)
        if 0 < held < users:  # the rest wait in the queue for KV space
            n = book.count(f"requests the KV cache holds at once for {prompt}-token prompts on {where}", held,
                           "requests", SRC_LOAD)
            cells.append(t("screen.ttft_ladder.cell_queued", lang, prompt=p, ttft=f, p95=q, held=n))
        else:
            cells.append(t("screen.ttft_ladder.cell", lang, prompt=p, ttft=f, p95=q))
    text = t("screen.ttft_ladder", lang, name=opt_name(o, book), lay=opt_layout(o, lang, book), load=load_words(users, lang),
             cells=t("list.sep", lang).join(cells))
    return Lead(text, None, f"TTFT against prompt length on {where}")


def load_ladder_lead(ev: Any, book: Book, lang: str, *, changed: bool = False) -> Lead | None:
    """"How does latency change as concurrency goes 1, 8, 32, 128?": at each load listed on one configuration, the
    median first token, per-user speed and total output (advisor.analysis.load_answers.load_ladder; a wait for a free
    slot of a load past what the engine holds is in its first token). `changed`: the ladder on the named cards as the
    answer's change makes them hold the largest load (changed_line says it after the verdict on them as asked)."""
    got = getattr(ev, "load_ladder", None)
    if not got or (got["option"] is getattr(ev, "changed_config", None)) != changed:
        return None
    o = got["option"]
    on = f"{o.count}× {o.gpu_name}"
    cells = []
    for users, load in got["rows"]:
        f = book.latency(f"median time to first token on {on} at {users} users", Seconds(float(load["ttft_s"])),
                         SRC_LOAD)
        per = per_user(book, f"tokens/s per user on {on} at {users} users", float(load["per_user_tokens_per_s"]),
                        SRC_LOAD)
        tot = book.num(f"output tokens/s in total on {on} at {users} users", float(load["total_tokens_per_s"]),
                       "tokens/s", SRC_LOAD, 0)
        key = "screen.load_ladder.cell_one" if users == 1 else "screen.load_ladder.cell"
        cells.append(t(key, lang, users=users, ttft=f, per=per, tot=tot))
    text = t("screen.load_ladder", lang, name=opt_name(o, book), lay=opt_layout(o, lang, book),
             cells=t("clause.sep", lang).join(cells))
    return Lead(text, None, f"load ladder on {on}")


def load_change_lead(ev: Any, book: Book, lang: str, *, changed: bool = False) -> Lead | None:
    """"How much slower per user going from 50 to 100 users?": per-user speed, first-token time and total output at
    both loads on the same configuration (advisor.analysis.load_answers.load_change), the change in per-user speed as
    a share; None without the two runs. `changed`: the runs on the named cards as a change of format makes them hold
    the load (changed_line says them after the verdict on the cards as asked), else the runs on the answer's own."""
    got = getattr(ev, "load_change", None)
    if not got or (got["option"] is getattr(ev, "changed_config", None)) != changed:
        return None
    o, base, load, a, b = got["option"], got["base"], got["load"], int(got["from"]), int(got["to"])
    on = f"{o.count}× {o.gpu_name}"
    per0, per1 = float(base["per_user_tokens_per_s"]), float(load["per_user_tokens_per_s"])
    p0 = per_user(book, f"tokens/s per user on {on} at {a} users", per0, SRC_LOAD)
    p1 = per_user(book, f"tokens/s per user on {on} at {b} users", per1, SRC_LOAD)
    change = (per1 / per0 - 1) * 100 if per0 else 0.0
    pct = book.num(f"change in per-user speed on {on} from {a} to {b} users", abs(change), "%",
                   "computed: new ÷ old − 1", 0)
    f0 = book.latency(f"time to first token on {on} at {a} users", Seconds(float(base["ttft_s"])), SRC_LOAD)
    f1 = book.latency(f"time to first token on {on} at {b} users", Seconds(float(load["ttft_s"])), SRC_LOAD)
    t0 = book.num(f"output tokens/s in total on {on} at {a} users", float(base["total_tokens_per_s"]), "tokens/s",
                  SRC_LOAD, 0)
    t1 = book.num(f"output tokens/s in total on {on} at {b} users", float(load["total_tokens_per_s"]), "tokens/s",
                  SRC_LOAD, 0)
    how = t("screen.load_change.slower" if change < -0.5 else "screen.load_change.faster" if change > 0.5
            else "screen.load_change.same", lang, pct=pct)
    text = t("screen.load_change", lang, a=a, b=b, name=opt_name(o, book), lay=opt_layout(o, lang, book),
             p0=p0, p1=p1, how=how, f0=f0, f1=f1, t0=t0, t1=t1)
    return Lead(text, None, f"load change on {on} from {a} to {b} users")
