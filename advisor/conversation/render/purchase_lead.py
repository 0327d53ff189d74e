"""What to buy, first: the leading configuration's full purchase ("which GPUs?", which_lead), its price ("what will
it cost?", price_lead) and the cheapest configuration that fits ("the cheapest hardware for R1", cheapest_lead)."""

from __future__ import annotations

from typing import Any

from advisor.analysis.result import top_option
from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render.assumed_line import instance_words
from advisor.conversation.render.book import (
    SRC_USER,
    Book,
    decimals_for,
    money_of,
)
from advisor.conversation.render.firstscreen import Lead, load_option, time_lead
from advisor.conversation.render.options_table import (
    misses,
    need_and_usable,
    opt_layout,
    opt_name,
    opt_price,
    opt_purchase,
    opt_speed,
    opt_tco,
)
from advisor.conversation.render.rate_lead import rate_kept
from advisor.recommend.prices import lowest_purchase, purchase_amount
from advisor.recommend.rank import INTERACTIVE_MS_PER_TOKEN, INTERACTIVE_SOURCE
from knowledge.messages import t


def price_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"What will it cost?": the full purchase (cards and servers) and the TCO over the horizon, as
    `Recommendation.lead_summary` words it; owned cards by their running cost (power and operation) only."""
    name = opt_name(top, book)
    if not top.price and "existing" not in top.labels:  # a price the catalog does not have: said, not replaced
        if getattr(ev.constraints, "buy_or_rent", None) == "rent":
            return None  # renting asked (an AWS G5): the rent answers the cost; no purchase to be missing

        card = default_catalog().find_gpu(top.gpu)
        why = book.text(card.unpriced, f"why {top.gpu} is unpriced", f"knowledge catalog: {top.gpu}") \
            if card is not None and card.unpriced else ""
        # the catalog's reason is English text: the Chinese sentence gives its gist
        reason = t("screen.price.why", lang, why=why if lang != "zh" else t("screen.price.no_dated_quote", lang))
        return Lead(t("screen.price.none", lang, gpu=top.gpu_name, name=name)
                    + (reason if why else t("sentence.end", lang)), None, "")
    text = opt_purchase(top, book, lang)
    missing = misses(top, lang)  # a quote for cards a rule rules out (A800s bought new in China) says so first
    if missing:
        text += t("screen.but", lang, missing=t("list.sep", lang).join(missing))
    if "existing" in top.labels:
        deciding = f"TCO of {top.count}× {top.gpu_name}" if top.tco is not None else ""
    elif top.tco is not None and top.tco.purchase.total:
        deciding = f"full purchase of {top.count}× {top.gpu_name} (GPUs and servers)"
    else:
        deciding = f"purchase price of {top.count}× {top.gpu_name} (GPUs only)"
    text += t("sentence.end", lang)
    if getattr(ev, "asks_cost", False) and ev.workload.is_training:  # "the time and the price?": the time first
        took = time_lead(top, ev, book, lang, rent=False)
        text = (took.text + t("sentence.gap", lang) if took is not None else "") + text
    return Lead(text, None, deciding)

def which_lead(top: Any, ev: Any, book: Book, lang: str, key: str = "screen.which") -> Lead:
    """"Which GPUs?": the full purchase of the leading configuration first (cards, servers, 3-year TCO; issue 30),
    then its memory per GPU against the usable memory and its speed. `key`: the sentence's template (the cheapest
    configuration is worded as such, `cheapest_lead`)."""
    need, usable = need_and_usable(top, book)
    buy = opt_purchase(top, book, lang) if top.price or "existing" in top.labels else opt_name(top, book)
    c = ev.constraints
    if c.budget_covers == "gpus" and c.budget is not None and top.price and "existing" not in top.labels:
        # "a GPU under $1000": the cards' price against the budget first; the machine around them after
        total = top.tco.purchase.total if top.tco is not None else None
        buy = t("screen.which.cards", lang, name=opt_name(top, book), cards=opt_price(top, book, lang),
                budget=book.money("budget", c.budget, c.currency, SRC_USER),
                machine=money_of(book, f"full purchase of {top.count}× {top.gpu_name} (GPUs and servers)", total,
                                 "advisor.estimator.cost.estimate_tco") if total else "—")
    elif c.budget is not None and top.tco is not None and top.tco.purchase.total.currency == c.currency and \
            0 < top.tco.purchase.total.amount <= c.budget:
        # "we have $50k": the purchase said against the budget the user stated, in the first sentence
        buy += t("screen.which.within", lang, budget=book.money("budget", c.budget, c.currency, SRC_USER))
    # under a stated load the simulated speed follows on the next line (load_line): not a second figure here
    speed = "—" if ev.load and top is load_option(ev) else opt_speed(top, book, lang, ev.workload)
    tail = "" if speed == "—" else t("clause.sep", lang) + speed
    if slower_than_target(top, ev):
        tail += against_target(top, ev, book, lang)  # too slow for the target: said in the first sentence
    lay = opt_layout(top, lang, book)  # the engine and format it was sized with (a quantised path says so)
    instances = instance_words(ev, lang) if key == "screen.which" and top is top_option(ev) else ""
    if instances:  # "which EC2 instance?": the cloud's instances first, not a purchase of cards and servers
        return Lead(t("screen.which.on_cloud", lang, provider=ev.host_cloud, instances=instances, lay=lay, need=need,
                      usable=usable, tail=tail), None, f"memory per GPU on {top.count}× {top.gpu_name}")
    return Lead(t(key, lang, buy=buy, lay=lay, need=need, usable=usable, tail=tail), None,
                f"memory per GPU on {top.count}× {top.gpu_name}")

def cheapest_lead(top: Any, ev: Any, book: Book, lang: str) -> Lead | None:
    """"The cheapest hardware to run R1?": the fitting configuration with the lowest full purchase (cards and
    servers, advisor.estimator.cost.estimate_tco) first, worded as the cheapest; then the recommended one when it
    differs, with its purchase and what the cheapest lacks (near its memory limit, a target missed). None when the
    recommendation already leads with the cheapest or nothing fitting is priced. A minimum configuration asked
    ("最低配置", "minimum hardware requirements") is the cheapest of the new ones where any is priced: what one can
    buy and build, not a rig of second-hand cards."""
    rec = ev.recommendation
    if rec is None or ev.user_options:
        return None
    minimum = bool(getattr(ev, "asks_minimum", False))
    cheapest = lowest_purchase(rec.options, new_only=minimum)
    if cheapest is None:
        return None
    led = which_lead(cheapest, ev, book, lang, key="screen.minimum" if minimum else "screen.cheapest")
    four = getattr(ev, "minimum_4bit", None)
    if minimum and four is not None and purchase_amount(four) < purchase_amount(cheapest):  # 4-bit: cheaper still
        need, usable = need_and_usable(four, book)
        led.text = led.text.rstrip() + t("screen.minimum.four_bit", lang, buy=opt_purchase(four, book, lang),
                                         need=need, usable=usable)
    if top is not None and top is not cheapest and top.fits:
        lacks = misses(cheapest, lang)
        if cheapest.near_capacity:
            lacks.append(t("option.tag.near_capacity", lang))
        if "used" in cheapest.labels and "used" not in top.labels:
            lacks.append(t("option.label.used", lang))
        if top.tco is not None and cheapest.tco is not None and top.tco.tco.currency == cheapest.tco.tco.currency \
                and top.tco.tco.amount < cheapest.tco.tco.amount:  # costs more to buy, less to own
            lacks.append(t("screen.cheapest.higher_tco", lang, years=f"{top.tco.years:g}",
                           tco=opt_tco(cheapest, book, lang), other=opt_tco(top, book, lang)))
        why = t("screen.cheapest.lacks", lang, lacks=t("list.sep", lang).join(lacks)) if lacks else ""
        led.text += t("screen.cheapest.instead", lang, buy=opt_purchase(top, book, lang), why=why)
    return led


def target_ms(ev: Any) -> float:
    """The per-token target an answer judges speed against: the stated one, else the default interactivity target
    (advisor.recommend.rank.INTERACTIVE_MS_PER_TOKEN: MLPerf Inference's interactive scenario, 40 ms per token)."""
    return float(getattr(ev.constraints, "max_ms_per_token", None) or INTERACTIVE_MS_PER_TOKEN)


def slower_than_target(o: Any, ev: Any) -> bool:
    """Whether the option's time per token at the asked load (simulated where it was) is over `target_ms`; False
    where a stated total throughput, with no per-token target, is what the answer judges (`against_target`)."""
    tput = o.throughput
    c = ev.constraints
    if tput is None or not tput.decode_tokens_per_s or (c.min_tokens_per_s is not None and c.max_ms_per_token is None):
        return False
    ul = tput.under_load
    return bool((ul.tpot.ms if ul is not None and ul.tpot.s > 0 else tput.tpot.ms) > target_ms(ev))


def against_target(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"Is it fast enough / 卡不卡": the total output tokens/s against a stated total target (with no per-token one),
    else the per-user decode speed against the per-token target (`target_ms`)."""
    tput = o.throughput
    if tput is None or not tput.decode_tokens_per_s:
        return ""
    stated = getattr(ev.constraints, "max_ms_per_token", None)
    total = ev.constraints.min_tokens_per_s
    if total is not None and stated is None:  # "8,000 tokens/s in total": judged on the total, as the search judged it
        kept = rate_kept(o, ev, book, lang)
        if kept:  # a request rate said: whether it keeps up with it, in the person's words
            return kept
        rate = book.num("total throughput target", total, "tokens/s", SRC_USER, 0)
        return t("lead.speed.total_met" if tput.judged_total >= total else "lead.speed.total_short", lang, rate=rate)
    ms = target_ms(ev)
    rate = book.num("per-user speed of the target", 1000.0 / ms, "tokens/s", SRC_USER if stated else INTERACTIVE_SOURCE,
                    decimals_for(round(1000.0 / ms, 1)))
    why = t("screen.load.your_target" if stated else "screen.load.default_target", lang)
    return t("lead.speed.slow" if slower_than_target(o, ev) else "lead.speed.fast", lang, rate=rate, why=why)
