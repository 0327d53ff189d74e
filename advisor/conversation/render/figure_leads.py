"""Leads that answer one figure of the job: its KV cache per token, the KV cache a configuration holds, the tokens
it makes in a day, and its power draw and electricity."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import Book
from advisor.conversation.render.labels import format_label
from advisor.conversation.render.options_table import ENGINE_LABELS, opt_days, opt_layout, opt_name
from advisor.conversation.render.power_price import at_your_price
from advisor.estimator.kv_cache import kv_bytes_per_token_layer, kv_cache_bytes
from knowledge.catalog import load_catalog
from knowledge.messages import t
from knowledge.quantities import UNIT_BYTES, Bytes

if TYPE_CHECKING:
    from advisor.recommend.results import Option


SRC_KV = "advisor.estimator.kv_cache.kv_cache_bytes (K and V of every layer; sliding-window layers capped)"


def kv_token_lead(ev: Analysis, book: Book, lang: str) -> fs.Lead:
    """"How much KV cache does it use per token?": one token's K and V over every layer (one GPU, no TP split), then
    one sequence of the context asked or assumed. Bytes per token and layer = 2 (K, V) × KV heads × head dim × bytes
    (MLA: the compressed latent and its rope key), advisor.estimator.kv_cache."""
    model, w = ev.model, ev.workload
    per_token = kv_cache_bytes(model, 1, kv=w.kv)
    per_seq = kv_cache_bytes(model, w.context, kv=w.kv)
    unit = "MiB" if per_token >= 2**20 else "KiB"
    token = book.num(f"KV cache per token of {model.name} ({w.kv})", per_token / UNIT_BYTES[unit], unit, SRC_KV,
                     0 if per_token / UNIT_BYTES[unit] >= 100 else 1)
    layer = book.num(f"KV cache per token per layer of {model.name} ({w.kv})",
                     kv_bytes_per_token_layer(model, w.kv) / 2**10, "KiB", SRC_KV, 1)
    seq = book.gib(f"KV cache of one {w.context}-token sequence of {model.name}", Bytes(per_seq), SRC_KV, 2)
    ctx = book.tokens("context", w.context, SRC_KV, lang)
    text = t("lead.kv_token", lang, model=model.name, token=token, layer=layer, layers=model.num_layers,
             fmt=format_label(w.kv, lang), ctx=ctx, seq=seq)
    return fs.Lead(text, None, f"KV cache per token of {model.name} ({w.kv})")


SRC_DAY = "analysis.limits.capacity: output tokens/s at full load (estimate_throughput) × 86,400 s"


def tokens_per_day_lead(o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"How many tokens a day?": the output tokens/s at full load (as many sequences of the context as the memory
    holds, analysis.limits.capacity) × 86,400 s, running around the clock; None without that capacity."""
    lim = ev.limits if ev.limits is not None and ev.limits.option is o and not ev.limits.training else None
    if lim is not None and lim.at_max and lim.max_load > 0:  # the configuration named: its own stretch
        total, most = float(lim.at_max["total"]), lim.max_load
    else:
        cap = ev.capacity.get((o.gpu, o.count)) if o.fits else None
        if not cap:
            return None
        total, most = float(cap["total"]), int(cap["max_concurrency"])
    on = f"{o.count}× {o.gpu_name}"
    day = book.tokens(f"output tokens a day at full load on {on}", total * 86_400, SRC_DAY, lang)
    tps = book.num(f"output tokens/s in total at full load on {on}", total, "tokens/s", SRC_DAY, 0)
    n = book.count(f"concurrent sequences at full load on {on}", most, "sequences", SRC_DAY)
    ctx = book.tokens("context", ev.workload.context, SRC_DAY, lang)
    text = t("lead.tokens_per_day", lang, day=day, name=opt_name(o, book), tps=tps, n=n, ctx=ctx)
    return fs.Lead(text, None, f"output tokens a day at full load on {on}")


SRC_KV_POOL = ("advisor.estimator.engine_memory.engine_kv_budget (vLLM / SGLang start-up: memory fraction − weights − "
               "activations − runtime) or the memory estimate's headroom ÷ KV bytes per token per GPU")


def kv_capacity_lead(o: Option, ev: Analysis, book: Book, lang: str) -> fs.Lead | None:
    """"What's the KV cache capacity in tokens on 2× H100?": the tokens of KV cache one copy of the model holds on
    the configuration, as vLLM and SGLang reserve it at start-up (`engine_kv_budget`: their memory fraction of
    the card less weights, activations and runtime; the figure their logs print as "GPU KV cache size"), else the
    memory estimate's headroom over the KV bytes of one token on one GPU; and how many requests of the context that
    is at once. None when the configuration does not hold the model."""
    from advisor.estimator.engine_memory import engine_kv_budget  # start-up: only this question reads the engines
    from knowledge.catalog import load_catalog

    est = o.memory_estimate
    if not o.fits or est is None:
        return None
    model, w, lay = ev.model, o.sized_workload or ev.workload, o.layout
    ctx = max(1, w.context)
    dpa = bool(lay.attention_dp)
    gpu = load_catalog().gpu(o.gpu)
    engine = lay.engine or "vllm"  # (a serving option always names its engine)
    budget = engine_kv_budget(engine, model, gpu, tp=lay.tp, weights=lay.weights, kv=lay.kv,
                              max_model_len=ctx, attention_dp=dpa) if lay.pp <= 1 else None
    per_token = max(1, est.kv_bytes_per_token.n)
    if budget is not None and budget.kv_tokens > 0:
        tokens, pool = budget.kv_tokens, Bytes(budget.kv_cache_bytes)
        how = t("lead.kv_capacity.engine", lang, engine=ENGINE_LABELS.get(engine, engine),
                frac=f"{budget.fraction:.2f}")
    else:
        pool = est.kv_free_bytes(gpu)
        if pool.n <= 0:
            return None
        tokens, how = est.kv_capacity_tokens(gpu), t("lead.kv_capacity.estimate", lang)
    copies = max(1, lay.dp or 1)
    on = f"{o.count}× {o.gpu_name}"
    total = book.tokens(f"tokens of KV cache on {on}", tokens * copies, SRC_KV_POOL, lang)
    gib = book.gib(f"KV cache per GPU on {on}", pool, SRC_KV_POOL)
    unit = "MiB" if per_token >= 2**20 else "KiB"
    each = book.num(f"KV cache per token per GPU on {on}", per_token / UNIT_BYTES[unit], unit, SRC_KV,
                    0 if per_token / UNIT_BYTES[unit] >= 100 else 1)
    n = book.count(f"requests of the context at once on {on}", tokens * copies // ctx, "sequences", SRC_KV_POOL)
    text = t("lead.kv_capacity", lang, name=opt_name(o, book), total=total, lay=opt_layout(o, lang, book),
             gib=gib, each=each, how=how, n=n, ctx=book.tokens("context", ctx, SRC_KV_POOL, lang))
    return fs.Lead(text, None, f"tokens of KV cache on {on}")


SRC_POWER = "advisor.estimator.cost.estimate_tco: (count × TDP + servers × platform W) × utilisation × 8760 h × PUE"


def power_lead(o: Option, book: Book, lang: str) -> fs.Lead | None:
    """"What is its power draw, and the electricity a year?": the average power at the wall, the option's yearly
    energy over 8760 h (estimate_tco: GPUs' TDP and the servers' platform power × utilisation × PUE), the GPUs'
    TDP alone, and the electricity bill a year; None without a TCO."""
    tco = o.tco
    if tco is None or not tco.energy_kwh_per_year:
        return None
    on = f"{o.count}× {o.gpu_name}"
    kw = book.num(f"average power at the wall of {on} (PUE included)", tco.energy_kwh_per_year / 8760.0, "kW", SRC_POWER,
                  1)
    kwh = book.num(f"energy a year of {on}", tco.energy_kwh_per_year, "kWh", SRC_POWER, 0, suffix="")
    gpu_w = book.num(f"GPU TDP of {on}", load_catalog().gpu(o.gpu).tdp_w * o.count, "W", "catalog: GpuSpec.tdp_w", 0)
    cost = book.money(f"electricity a year for {on}", tco.power_per_year.amount, tco.power_per_year.currency, SRC_POWER)
    text = t("lead.power", lang, name=opt_name(o, book), kw=kw, kwh=kwh, gpu_w=gpu_w, cost=cost) + at_your_price(
        tco.prices, book, lang)  # the person's tariff, when they stated one
    tr = o.training
    if tr is not None and tr.wall and tco.power_per_year.amount:  # a training run: its own energy and bill too
        share = tr.wall.s / (8760.0 * 3600)
        run_kwh = book.num(f"energy of the training run on {on}", tco.energy_kwh_per_year * share, "kWh",
                           SRC_POWER + " × run wall-clock ÷ 8760 h", 0, suffix="")
        run_cost = book.money(f"electricity of the training run on {on}", tco.power_per_year.amount * share,
                              tco.power_per_year.currency, SRC_POWER + " × run wall-clock ÷ 8760 h")
        text = t("lead.power.run", lang, name=opt_name(o, book), kw=kw, days=opt_days(o, book, lang), kwh=run_kwh,
                 cost=run_cost) + t("sentence.gap", lang) + text.replace("**", "")
    return fs.Lead(text, None, f"average power at the wall of {on} (PUE included)")
