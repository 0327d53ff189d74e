"""Two models compared on the same cards ("Qwen3-30B-A3B vs Qwen3-32B on a 4090 — which is faster?",
"对比一下 Qwen2.5-72B 和 Llama-3.1-70B 在两张 H100 上"): both sides sized, both numbers in the first sentence.

Each model runs through `estimate_throughput` (advisor.estimator.throughput: decode is a roofline over the bytes
read per token — the *active* parameters' weights plus the KV cache — against the card's bandwidth, with the
calibrated efficiency) on the same card, count, context and concurrency, at the first weight format both fit in:
the job's (the checkpoint's own when unsaid), then FP8 where the card runs it, then AWQ-INT4. The faster model leads,
with both per-user speeds and their ratio; when no format fits both, the first sentence says which one fits.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from advisor.conversation.dialog.machine import default_weights
from advisor.conversation.reader.intent import asks
from advisor.conversation.render.book import Book
from advisor.conversation.render.options_table import SRC_LOAD
from advisor.conversation.turn import Step
from knowledge.messages import t
from knowledge.params import param_counts
from rules.titles import rule_title

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

SRC = "estimate_throughput (advisor.estimator.throughput)"
_FALLBACK_FORMATS = ("fp8", "awq-int4")


def _speed(data: dict[str, Any]) -> float | None:
    return next((float(n["value"]) for n in data.get("numbers", []) if n["name"] == "decode speed per sequence"), None)


def _run(model: str, gpu: str, count: int, weights: str, job: dict[str, Any], steps: list[Step]) -> dict[str, Any] | None:
    args = {"model": model, "gpu": gpu, "count": count, "weights": weights, "context": int(job.get("context") or 4096),
            "concurrency": int(job.get("concurrency") or 1)}
    # start-up: the tool layer (its pydantic argument schemas) loads only when two models are compared
    from advisor.conversation.tools.registry import call_tool

    result = call_tool("estimate_throughput", args)
    steps.append(Step(name="estimate_throughput", arguments=args, ok=result.ok,
                      summary=str(result.data.get("summary", "")) if result.ok else str(result.data.get("error", ""))))
    return result.data if result.ok else None


def compare_models(models: list[str], gpu: str, count: int, job: dict[str, Any], lang: str, catalog: Catalog,
                   steps: list[Step]) -> tuple[str, Book] | None:
    """The comparison paragraph (first sentence: the faster model, both speeds) and the numbers it shows; None when
    a model or the card is not in the catalog or the tools refuse both."""
    specs = [catalog.find_model(m) for m in models[:2]]
    card = catalog.find_gpu(gpu)
    if card is None or any(s is None for s in specs):
        return None
    a, b = specs[0], specs[1]
    assert a is not None and b is not None

    first = str(job.get("weights") or default_weights(a.id))
    formats = [first, *(f for f in _FALLBACK_FORMATS if f != first and (f != "fp8" or card.fp8_dense_flops))]
    chosen: tuple[str, dict[str, Any], dict[str, Any]] | None = None
    fits_one: tuple[str, str] | None = None
    for fmt in formats:
        ra, rb = _run(a.id, card.id, count, fmt, job, steps), _run(b.id, card.id, count, fmt, job, steps)
        if ra is None or rb is None:
            continue
        if ra.get("fits") and rb.get("fits"):
            chosen = (fmt, ra, rb)
            break
        if fits_one is None and (ra.get("fits") or rb.get("fits")):
            fits_one = (a.name if ra.get("fits") else b.name, fmt)
    book = Book()
    where = f"{count}× {card.name}"
    if chosen is None:
        if fits_one is None:
            text = t("compare_models.neither", lang, where=where,
                     tried=t("list.sep", lang).join(f.upper() for f in formats))
        else:
            name, fmt = fits_one
            text = t("compare_models.only_one", lang, name=name, where=where, fmt=fmt.upper())
        return text, book
    fmt, ra, rb = chosen
    sa, sb = _speed(ra), _speed(rb)
    if sa is None or sb is None:
        return None
    (win, win_s), (lose, lose_s) = sorted(((a, sa), (b, sb)), key=lambda x: -x[1])
    ws = book.num(f"{win.name} decode speed per user", win_s, "tokens/s", SRC)
    ls = book.num(f"{lose.name} decode speed per user", lose_s, "tokens/s", SRC)
    ratio = book.num("speed ratio", win_s / lose_s, "×", SRC, 1, suffix="")

    wa, la = (book.num(f"{m.name} active parameters", param_counts(m).active / 1e9, "B params",
                       "knowledge.params.param_counts (catalog architecture)", 1, suffix="B") for m in (win, lose))
    if win_s < 1.05 * lose_s:  # within 5 %: the estimate cannot tell them apart
        return t("compare_models.same_speed", lang, where=where, fmt=fmt.upper(), win=win.name, ws=ws,
                 lose=lose.name, ls=ls), book
    why_fmt = "" if fmt == first else t("compare_models.first_does_not_fit", lang, first=first.upper())
    return t("compare_models.faster", lang, win=win.name, where=where, fmt=fmt.upper(), why_fmt=why_fmt, ws=ws,
             lose=lose.name, ls=ls, ratio=ratio, wa=wa, la=la), book


__all__ = ["compare_models"]


# --- two card configurations: the verdict on the criterion asked ----------------------------------------------------
def faster_asked(text: str) -> bool:
    """Whether a comparison asks which is faster ("how much faster", "哪个快", "tokens/s") or how long each takes."""
    return bool(_FASTER.search(text.lower()))


# "how long each?", "各要多久": the times asked of each, which is the speed comparison's answer
_FASTER = re.compile(r"faster|quicker|speed|throughput|tokens/s|shorter|sooner|less time|time sav|how long|更快|哪个快|速度|快|"
                     r"缩短|多久|多长时间|几天|"
                     r"(?:节省|省|少)(?:了|下)?(?:多少|几)?(?:时间|天)", re.I)
_VALUE = re.compile(r"cost[\s-]*effective|better value|bang for|worth|划算|性价比|值得", re.I)
_CHEAPER = re.compile(r"cheaper|cheapest|less expensive|costs? less|便宜|省钱|少花", re.I)
_TCO = re.compile(r"\btco\b|total cost of ownership|cost of ownership|总拥有成本|拥有成本|全周期成本", re.I)


def cards_verdict(options: list[dict[str, Any]], text: str, lang: str, catalog: Catalog, book: Book,
                  named: list[dict[str, Any]] | None = None, deadline: bool = False,
                  capacity: dict[str, Any] | None = None) -> str | None:
    """The first sentence of "which is faster / cheaper / better value, A or B?" over the two configurations sized
    (both fit): faster = higher decode tokens/s per user (estimate_throughput); cheaper = lower purchase (the TCO's
    cards + server); per token = lower owned cost per million output tokens (`_per_token_verdict`); better value =
    lower purchase per token/s of total decode throughput at the stated load.
    With no criterion named, the faster and the cheaper one in one sentence (`_speed_and_price`). None when fewer
    than two sized configurations fit."""
    criterion = bool(_FASTER.search(text) or _VALUE.search(text) or _CHEAPER.search(text) or asks("token_cost", text))
    wanted = {(h["gpu"], h.get("count")) for h in named or [] if h.get("gpu") and h.get("role") == "compared"}
    if wanted:  # the configurations the question names, not the changes the answer suggests beside them
        options = [o for o in options if (o["gpu"], o.get("count")) in wanted
                   or ((o["gpu"], None) in wanted and "candidate" in (o.get("labels") or []))]
    else:  # "GPUs from 256 to 512" with no card: the counts said, on the card the analysis took (count_said)
        said = [o for o in options if "candidate" in (o.get("labels") or [])]
        options = said if len(said) >= 2 else options
    options = list({(o["gpu"], o.get("count")): o for o in options}.values())

    def name(o: dict[str, Any]) -> str:
        gpu = catalog.find_gpu(str(o["gpu"]))
        return f"{int(o.get('count') or 1)}× {gpu.name if gpu else o['gpu']}"

    trained = _training_verdict(options, name, book, lang, deadline, faster=bool(_FASTER.search(text)))
    if trained is not None:
        return trained
    if _TCO.search(text) and not _FASTER.search(text):
        owned = _tco_verdict(options, name, book, lang)
        if owned is not None:
            return owned
    fit = [o for o in options if o.get("fits") and (o.get("throughput") or {}).get("decode_tokens_per_s")][:2]
    if len(fit) == 1 and len(options) >= 2:
        others = t("list.sep", lang).join(name(o) for o in options if o is not fit[0])
        return t("compare.only_fits", lang, fit=name(fit[0]), others=others)
    if len(fit) < 2:
        return None

    if not criterion:  # "H100 or H200 for …?": speed and purchase side by side, in one verdict
        return _speed_and_price(fit, name, book, lang)
    if _FASTER.search(text):
        a, b, x, y, r = _faster(fit, name, book)
        return t("compare.faster", lang, a=name(a), b=name(b), x=x, y=y, r=r) + _ruled_out(a, name(a), lang)
    if asks("token_cost", text):  # "cheaper per token", "每百万 token 成本": the owned cost per token
        per_token = _per_token_verdict(fit, name, book, lang, capacity, catalog)
        if per_token is not None:
            return per_token
    priced = [(o, p) for o in fit if (p := _purchase(o)) is not None]
    if len(priced) < 2 or priced[0][1][1] != priced[1][1][1]:
        return None
    cur = priced[0][1][1]
    if _VALUE.search(text):
        def total(o: dict[str, Any]) -> float:
            """Total tokens/s at the stated load, else at full load (the most it holds; one user leaves it idle)."""
            full = (capacity or {}).get(f"{o.get('gpu')}:{o.get('count')}") or {}
            one = int((o.get("throughput") or {}).get("concurrency") or 1) <= 1
            return float(full["total"]) if one and full.get("total") else _speeds(o)[1]

        def per(o: dict[str, Any], p: tuple[float, str]) -> float:
            return p[0] / total(o)

        (a, pa), (b, pb) = sorted(priced, key=lambda x: per(*x))
        x = book.money(f"purchase per token/s of total decode on {name(a)}", per(a, pa), cur, "purchase / total tokens/s")
        y = book.money(f"purchase per token/s of total decode on {name(b)}", per(b, pb), cur, "purchase / total tokens/s")
        full = all((capacity or {}).get(f"{o.get('gpu')}:{o.get('count')}") and
                   int((o.get("throughput") or {}).get("concurrency") or 1) <= 1 for o in (a, b))
        return t("compare.better_value", lang, a=name(a), b=name(b), x=x, y=y,
                 at=t("compare.at_full_load", lang) if full else "") + _ruled_out(a, name(a), lang)
    if _CHEAPER.search(text):
        (a, pa), (b, pb) = sorted(priced, key=lambda x: x[1][0])
        x = book.money(f"purchase of {name(a)}", pa[0], cur, "advisor.estimator.cost.estimate_tco")
        y = book.money(f"purchase of {name(b)}", pb[0], cur, "advisor.estimator.cost.estimate_tco")
        return t("compare.cheaper", lang, a=name(a), b=name(b), x=x, y=y) + _ruled_out(a, name(a), lang)
    return None


def _per_token_verdict(fit: list[dict[str, Any]], name: Any, book: Book, lang: str,
                       capacity: dict[str, Any] | None = None, catalog: Catalog | None = None) -> str | None:
    """"Which is cheaper per token?": the lower owned cost per million output tokens (advisor.estimator.cost:
    the TCO over its years ÷ the tokens generated at the asked load running around the clock, ×1e6); with no load
    stated, each at full load (`capacity`: the most sequences it holds, analysis.limits.capacity), where a serving
    box earns its keep, not at one user. None when either has no such figure or they are in different currencies."""
    full = [(o, c, int(k["max_concurrency"])) for o in fit
            if (k := (capacity or {}).get(f"{o.get('gpu')}:{o.get('count')}")) and (c := k.get("cost_per_million"))
            and c.get("amount")]
    if len(full) >= 2 and full[0][1]["currency"] == full[1][1]["currency"] \
            and all(int((o.get("throughput") or {}).get("concurrency") or 1) <= 1 for o in fit):
        (a, ca, na), (b, cb, nb) = sorted(full[:2], key=lambda x: float(x[1]["amount"]))
        src = "advisor.analysis.limits.capacity (cost per million tokens at full load, owned)"
        x = book.money(f"owned cost per million output tokens at full load on {name(a)}", float(ca["amount"]),
                       str(ca["currency"]), src)
        y = book.money(f"owned cost per million output tokens at full load on {name(b)}", float(cb["amount"]),
                       str(cb["currency"]), src)
        ka = book.count(f"most concurrent sequences on {name(a)}", na, "sequences", src)
        kb = book.count(f"most concurrent sequences on {name(b)}", nb, "sequences", src)
        return t("compare.per_token.full", lang, a=name(a), b=name(b), x=x, y=y, na=ka, nb=kb) \
            + _ruled_out(a, name(a), lang)
    per = [(o, c) for o in fit
           if (c := ((o.get("tco") or {}).get("cost_per_million_tokens") or {}).get("owned")) and c.get("amount")]
    if len(per) < 2 or per[0][1]["currency"] != per[1][1]["currency"]:
        return _rented_per_token(fit, name, book, lang, catalog) if catalog is not None else None
    (a, ca), (b, cb) = sorted(per[:2], key=lambda x: float(x[1]["amount"]))
    src = "advisor.estimator.cost.estimate_tco (cost per million tokens, owned)"
    x = book.money(f"owned cost per million output tokens on {name(a)}", float(ca["amount"]), str(ca["currency"]), src)
    y = book.money(f"owned cost per million output tokens on {name(b)}", float(cb["amount"]), str(cb["currency"]), src)
    da, db = ((o.get("price") or {}).get("as_of") for o in (a, b))
    dated = t("compare.per_token.dated", lang, a=name(a), b=name(b), da=da, db=db) if da and db else ""
    return t("compare.per_token", lang, a=name(a), b=name(b), x=x, y=y) + dated + _ruled_out(a, name(a), lang)


def _rented_per_token(fit: list[dict[str, Any]], name: Any, book: Book, lang: str, catalog: Catalog) -> str | None:
    """Cost per token when a card has no dated purchase price (MI325X): renting both, each at its catalog cloud quote
    (cost.cloud_price, the quote the TCO's rent side uses): price per GPU-hour × GPUs ÷ tokens an hour at this load ×
    10⁶ (cost.per_million_tokens), said as rented; None when either has no quote or no speed."""
    from advisor.estimator.calibration import load_economics  # start-up: only an unpriced card's per-token cost
    from advisor.estimator.cost import (  # start-up: likewise, renting priced per token
        cloud_hour_price,
        cloud_price,
        per_million_tokens,
        tokens_made,
    )

    econ = load_economics()
    currency = next((str(p[1]) for o in fit if (p := _purchase(o))), "USD")
    rented = []
    for o in fit[:2]:
        gpu, total = catalog.find_gpu(str(o.get("gpu", ""))), _speeds(o)[1]
        quote = cloud_price(gpu, econ) if gpu is not None else None
        if quote is None or not total:
            return None
        hour = cloud_hour_price(quote, econ, currency)[0] * int(o.get("count") or 1)
        rented.append((o, per_million_tokens(hour, tokens_made(total, 1.0)), quote.provider))
    if len(rented) < 2:
        return None
    (a, ca, pa), (b, cb, pb) = sorted(rented, key=lambda x: x[1])
    src = "advisor.estimator.cost (GPUs × price per GPU-hour ÷ tokens an hour at this load × 10⁶, catalog cloud quote)"
    x = book.money(f"rented cost per million output tokens on {name(a)} ({pa})", ca, currency, src)
    y = book.money(f"rented cost per million output tokens on {name(b)} ({pb})", cb, currency, src)
    unpriced = [name(o) for o in fit if not _purchase(o)]
    why = t("compare.per_token.no_price", lang, names=t("list.sep", lang).join(unpriced)) if unpriced else ""
    return t("compare.per_token.rented", lang, a=name(a), b=name(b), x=x, y=y) + why + _ruled_out(a, name(a), lang)


def _training_verdict(options: list[dict[str, Any]], name: Any, book: Book, lang: str, deadline: bool = False,
                      faster: bool = False) -> str | None:
    """Training jobs on the named configurations ("we sell 8×H20, 8×L20 and 8×RTX 4090: which do we quote?"): the
    one to quote is the cheapest to buy of those that fit and meet the deadline (the fastest when none is priced);
    when none meets it, that first, with the fastest; each other configuration's time, or that it does not fit.
    `deadline`: the question stated one. `faster`: the question asks which is faster or how much ("512 or 1024
    H100s, how much faster?"): the fastest against the slowest, the ratio of their wall-clock times and the GPU-hours
    each takes (what the speed-up costs in scaling efficiency). None when no option is a training run."""
    timed = [o for o in options if "wall_s" in (o.get("throughput") or {})]
    runs = [o for o in options if o in timed or not o.get("fits")]  # a configuration that does not fit has no time
    if not timed or len(runs) < 2 or len(runs) != len(options):
        return None
    fit = sorted((o for o in runs if o.get("fits") and o["throughput"].get("wall_s")),
                 key=lambda o: float(o["throughput"]["wall_s"]))
    if not fit:
        return None

    short = float(fit[-1]["throughput"]["wall_s"]) < 86400  # every run under a day: all in hours, one unit

    def days(o: dict[str, Any]) -> str:
        if short:
            hrs = float(o["throughput"]["wall_s"]) / 3600
            return book.num(f"training wall-clock on {name(o)}", hrs, "hours", SRC, 1, suffix=t("slot.hours", lang))
        wall = float(o["throughput"]["wall_s"]) / 86400
        return book.num(f"training wall-clock on {name(o)}", wall, "days", SRC, 1 if wall < 100 else 0,
                        suffix=t("slot.days", lang))

    if len(fit) == len(runs) >= 2 and len({o["gpu"] for o in fit}) == 1 and not deadline:
        # "would doubling from 512 to 1024 H100s halve the time?": one card at two counts is a question of scaling
        scaled = _scaling_verdict(fit, name, days, book, lang)
        if scaled is not None:
            return scaled + _ruled_out(fit[0], name(fit[0]), lang)
    if faster and len(fit) >= 2 and not deadline:
        a, b = fit[0], fit[-1]
        ratio = float(b["throughput"]["wall_s"]) / float(a["throughput"]["wall_s"])
        r = book.num(f"training speed {name(a)} / {name(b)}", ratio, "ratio", "ratio of the two wall-clock times", 1,
                     suffix="")

        def hours(o: dict[str, Any]) -> str:
            return book.num(f"GPU-hours on {name(o)}", float(o["throughput"]["gpu_hours"]), "GPU-hours", SRC, 0,
                            suffix="")

        return t("compare.train.faster", lang, a=name(a), da=days(a), b=name(b), db=days(b), r=r, ha=hours(a),
                 hb=hours(b)) + _ruled_out(a, name(a), lang)
    meets = [o for o in fit if "deadline" not in (o.get("misses") or [])]
    deadline = deadline or any("deadline" in (o.get("misses") or []) for o in runs)
    others = [t("compare.train.other", lang, name=name(o), days=days(o)) for o in fit]
    others += [t("compare.train.no_fit", lang, name=name(o)) for o in runs if o not in fit]
    if deadline and not meets:
        return t("compare.train.none_meets", lang, a=name(fit[0]), days=days(fit[0]),
                 rest=t("list.sep", lang).join(others[1:]))
    pick = min(meets, key=lambda o: (_purchase(o) or (math.inf, ""))[0]) if meets else fit[0]
    paid = _purchase(pick)
    cost = book.money(f"purchase of {name(pick)}", paid[0], paid[1], "advisor.estimator.cost.estimate_tco") \
        if paid else "—"
    key = "compare.train.quote_deadline" if deadline else "compare.train.quote"
    rest = [o for i, o in enumerate(others) if i >= len(fit) or fit[i] is not pick]
    return t(key, lang, a=name(pick), days=days(pick), cost=cost, rest=t("list.sep", lang).join(rest)) \
        + _ruled_out(pick, name(pick), lang)


def _tco_verdict(options: list[dict[str, Any]], name: Any, book: Book, lang: str) -> str | None:
    """"Compare …, 3-year TCO": the configuration with the lowest total cost of ownership over the TCO's years
    (advisor.estimator.cost: purchase + power + operations) among those that fit, with each other one's TCO or that it
    does not fit; None when fewer than two fitting ones have a TCO in one currency."""
    def tco(o: dict[str, Any]) -> tuple[float, str, float] | None:
        c = o.get("tco") or {}
        total = c.get("tco") or {}
        return (float(total["amount"]), str(total.get("currency")), float(c.get("years") or 0)) \
            if o.get("fits") and total.get("amount") else None

    priced = sorted(((o, v) for o in options if (v := tco(o)) is not None), key=lambda x: x[1][0])
    if len(priced) < 2 or len({v[1] for _, v in priced}) != 1:
        return None

    def money(o: dict[str, Any], v: tuple[float, str, float]) -> str:
        return book.money(f"TCO of {name(o)} over {v[2]:g} years", v[0], v[1], "advisor.estimator.cost.estimate_tco")

    (a, va), rest = priced[0], priced[1:]
    years = book.num("years of the TCO", va[2], "years", "advisor.estimator.cost.estimate_tco", 0, suffix="")
    others = [t("compare.tco.other", lang, name=name(o), x=money(o, v)) for o, v in rest]
    others += [t("compare.train.no_fit", lang, name=name(o)) for o in options if not o.get("fits")]
    head = t("compare.tco", lang, a=name(a), x=money(a, va), years=years, rest=t("list.sep", lang).join(others))
    note = _ruled_out(a, name(a), lang)
    allowed = [(o, v) for o, v in rest if not _blocking(o)]
    if note and allowed:  # the cheapest is ruled out in the region: the cheapest one a buyer can have, too
        b, vb = allowed[0]
        note += t("compare.tco.allowed", lang, b=name(b), x=money(b, vb))
    return head + note


def _purchase(o: dict[str, Any]) -> tuple[float, str] | None:
    """(amount, currency) of an option's purchase (the TCO's cards + servers), None when it has no price."""
    total = ((o.get("tco") or {}).get("purchase") or {}).get("total") or {}
    return (float(total["amount"]), str(total.get("currency", "USD"))) if total.get("amount") else None


def _blocking(o: dict[str, Any]) -> list[str]:
    """The ids of the rules that rule the option out (its "block" findings)."""
    return [str(f.get("rule_id")) for f in o.get("findings") or [] if f.get("severity") == "block"]


def _ruled_out(o: dict[str, Any], name: str, lang: str) -> str:
    """The winner of a comparison that a rule rules out (a card restricted in the region): said right after the
    verdict, by the rules' titles; "" otherwise."""
    rules = [rule_title(rule, lang) for rule in _blocking(o)]
    return t("compare.ruled_out", lang, name=name, rules=t("list.sep", lang).join(rules)) if rules else ""


def _speed_and_price(fit: list[dict[str, Any]], name: Any, book: Book, lang: str) -> str | None:
    """"A or B for this job?" with no criterion: which one is faster (decode tokens/s per user, and the ratio) and
    which one costs less to buy (cards + servers), said as one verdict ("faster and cheaper", or the trade-off);
    None when the two are not priced in one currency."""
    pa, pb = (_purchase(o) for o in _by_speed(fit))
    a, b, x, y, r = _faster(fit, name, book)
    if pa is None or pb is None or pa[1] != pb[1]:  # not both priced: the speed verdict alone, never none at all
        sa, sb = (_speeds(o)[0] for o in (a, b))
        key = "compare.as_fast" if sa <= sb * (1 + SAME_SPEED) else "compare.faster"
        return t(key, lang, a=name(a), b=name(b), x=x, y=y, r=r) + _ruled_out(a, name(a), lang)
    ma = book.money(f"purchase of {name(a)}", pa[0], pa[1], "advisor.estimator.cost.estimate_tco")
    mb = book.money(f"purchase of {name(b)}", pb[0], pb[1], "advisor.estimator.cost.estimate_tco")
    key = "compare.faster_and_cheaper" if pa[0] <= pb[0] else "compare.trade_off"
    return t(key, lang, a=name(a), b=name(b), x=x, y=y, r=r, pa=ma, pb=mb) + _ruled_out(a, name(a), lang)


SAME_SPEED = 0.05  # within 5 %: about as fast (the roofline's own error is larger)


def _speeds(o: dict[str, Any]) -> tuple[float, float, str]:
    """(tokens/s per user, in total, their source) of a serving option as its row in the table shows them: the
    continuous-batching simulation at the asked load when it ran (`under_load`), else the decode roofline. A verdict
    that read the roofline beside a table of simulated figures said "25 against 23 tokens/s" over rows of 23 and 19."""
    th = o["throughput"]
    load = th.get("under_load") or {}
    if float(load.get("per_user_tokens_per_s") or 0.0) > 0:
        return float(load["per_user_tokens_per_s"]), float(load["total_tokens_per_s"]), SRC_LOAD
    return float(th["decode_tokens_per_s"]), float(th.get("decode_tokens_per_s_total") or th["decode_tokens_per_s"]), SRC


def _by_speed(fit: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The two configurations, the faster (tokens/s per user, as the table shows it) first."""
    return sorted(fit, key=lambda o: -_speeds(o)[0])


def _faster(fit: list[dict[str, Any]], name: Any, book: Book) -> tuple[dict[str, Any], dict[str, Any], str, str, str]:
    """The faster and the slower configuration, their per-user speeds and the ratio, each recorded in `book`."""
    a, b = _by_speed(fit)
    (sa, _, src_a), (sb, _, src_b) = _speeds(a), _speeds(b)
    x = book.num(f"tokens/s per user on {name(a)}", sa, "tokens/s", src_a, 0 if sa >= 10 else 1, suffix="tokens/s")
    y = book.num(f"tokens/s per user on {name(b)}", sb, "tokens/s", src_b, 0 if sb >= 10 else 1, suffix="tokens/s")
    r = book.num(f"speed ratio {name(a)} / {name(b)}", sa / sb, "ratio", "ratio of the two speeds", 1, suffix="")
    return a, b, x, y, r


def one_card_counts(options: list[dict[str, Any]], named: list[dict[str, Any]] | None) -> bool:
    """Whether the question names one card at two or more counts ("from 512 to 1024 H100s") and each is a training
    run that fits (the options the answer adds beside them do not count)."""
    asked = {(h["gpu"], int(h.get("count") or 1)) for h in named or [] if h.get("gpu") and h.get("count")}
    if len(asked) < 2 or len({g for g, _ in asked}) != 1:
        return False
    runs = [o for o in options if (o["gpu"], int(o.get("count") or 1)) in asked]
    return len(runs) == len(asked) and all(o.get("fits") and (o.get("throughput") or {}).get("wall_s") for o in runs)


def _scaling_verdict(fit: list[dict[str, Any]], name: Callable[[dict[str, Any]], str],
                     days: Callable[[dict[str, Any]], str], book: Book, lang: str) -> str | None:
    """One card at two or more counts, each planned for the same run ("would doubling from 512 to 1024 H100s halve
    the time?"): the fewest against the most, their wall-clocks, the speed-up beside the ratio of the GPUs, their
    quotient (scaling efficiency: 100 % halves the time when the GPUs double) and each run's GPU-hours. None when
    the counts are equal."""
    by_count = sorted(fit, key=lambda o: int(o.get("count") or 1))
    a, b = by_count[0], by_count[-1]
    na, nb = int(a.get("count") or 1), int(b.get("count") or 1)
    if na == nb:
        return None
    pair = f"{name(b)} vs {name(a)}"
    gpus = nb / na
    speedup = float(a["throughput"]["wall_s"]) / float(b["throughput"]["wall_s"])
    g = book.num(f"ratio of GPUs {pair}", gpus, "ratio", "computed: the two counts", 2, suffix="")
    sp = book.num(f"speed-up {pair}", speedup, "ratio", "computed: ratio of the two wall-clock times", 2, suffix="")
    eff = book.num(f"scaling efficiency {pair}", 100 * speedup / gpus, "%", "computed: speed-up ÷ ratio of GPUs", 0)

    def hours(o: dict[str, Any]) -> str:
        return book.num(f"GPU-hours on {name(o)}", float(o["throughput"]["gpu_hours"]), "GPU-hours", SRC, 0, suffix="")

    return t("compare.train.scaling", lang, na=name(a), nb=name(b), da=days(a), db=days(b), g=g, sp=sp, eff=eff,
             ha=hours(a), hb=hours(b))
