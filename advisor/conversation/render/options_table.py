"""The options table and its cells: name, layout, memory, speed, price, TCO, China market, notes
(labels, missed targets, flagged rules), the memory-only table of the dialog's own search, and the
options in the `recommend --json` shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.analysis.result import Analysis, ConfigResult
from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.render.book import SRC_RECOMMEND, SRC_THROUGHPUT, SRC_TRAINING, Book, money_of
from advisor.recommend.prices import PRICE_MAX_AGE_DAYS, stale_price

# option_tags (issue 15): 4-bit format, used-card price, near the memory limit
from advisor.recommend.recommender import option_tags, spread_over_servers, total_price
from advisor.recommend.results import purchase_line
from knowledge.catalog import load_catalog
from knowledge.errors import CatalogError
from knowledge.messages import known
from knowledge.messages import t as message
from knowledge.quantities import DAY, HOUR, MINUTE, Seconds
from rules.titles import rule_title

if TYPE_CHECKING:
    from collections.abc import Sequence

    from advisor.recommend.recommender import Option, Recommendation
    from advisor.workload import Workload
    from rules.findings import Finding


def config_name(c: ConfigResult, book: Book, lang: str) -> str:
    n = book.count(f"GPUs ({c.gpu.name})", c.count, "GPUs", "configuration evaluated")
    return f"{n}× {c.gpu.name}"


def configs_table(ev: Analysis, book: Book, lang: str) -> str:
    if len(ev.configs) < 2 and not (ev.configs and ev.configs[0].role == "fit"):
        return ""
    head = message("configs.head", lang) + "\n|---|---|---|---|---|"
    rows = []
    for c in ev.configs:
        if c.memory is None:
            rows.append(f"| {config_name(c, book, lang)} | — | — | — | {c.error} |")
            continue
        need = book.gib(f"memory per GPU on {c.gpu.name}", c.memory.per_gpu.total)
        cap = book.gib(f"usable memory of {c.gpu.name}", c.memory.usable_bytes(c.gpu), f"catalog: {c.gpu.id} memory_bytes × engine usable fraction")
        ok = message("word.yes" if c.fits else "word.no", lang)
        rows.append(f"| {config_name(c, book, lang)} | {c.layout} | {need} | {cap} | {ok} |")
    return head + "\n" + "\n".join(rows)


def options_contract(ev: Analysis) -> list[dict[str, Any]]:
    """Options in the `gpu-advisor recommend --json` shape."""
    out = []
    for c in ev.configs:
        out.append({
            "gpu": c.gpu.id, "count": c.count, "layout": c.layout,
            "per_gpu_bytes": c.memory.per_gpu.to_contract() if c.memory is not None else {},
            "fits": c.fits, "throughput": None, "price": None, "findings": [], "role": c.role,
        })
    return out


# the option labels said in words ("option.label.LABEL" in the catalogs); other labels are not shown
LABELS = ("lowest_cost", "best_value", "best_performance", "existing", "candidate", "recommended", "used")


def label_words(o: Option, lang: str, options: Sequence[Option] = ()) -> list[str]:
    """The option's labels in words; "lowest cost" says what it is lowest among when `options` holds a cheaper one
    that meets the targets but spreads PCIe cards (consumer or data-centre without a switched fabric) over servers (`advisor.recommend.recommender.spread_over_servers`, the
    criterion the ranking puts after it)."""
    import math

    def spread_and_cheaper(p: Option) -> bool:  # cheaper to buy: "lowest cost" marks the cheapest purchase
        if p is o or not p.meets_targets or (total_price(p) or math.inf) >= (total_price(o) or math.inf):
            return False
        return spread_over_servers(p, {p.gpu: load_catalog().gpu(p.gpu)})

    words = []
    for lab in o.labels:
        if lab not in LABELS:
            continue
        # "lowest cost" when a cheaper option exists but spreads PCIe cards over several servers, which the
        # recommender ranks after single-server and datacenter options (advisor.recommend.recommender._rank; R01, R47)
        compact = lab == "lowest_cost" and any(spread_and_cheaper(p) for p in options or ())
        if lab == "used" and load_catalog().gpu(o.gpu).modded:  # a memory mod is sold new, off NVIDIA's channel
            lab = "modded"
        words.append(message("option.label.lowest_cost_compact" if compact else f"option.label.{lab}", lang))
    return words


# sizing rules whose block restates a miss the answer already names (rules/sizing.py): the deadline rule is the
# missed deadline itself, not a second reason, so "ruled out by a rule" and its ⚠ tag are not added for it (review R39)
RESTATES = {"sizing-deadline-missed": "deadline", "sizing-over-budget": "budget", "sizing-over-power": "power",
            "sizing-throughput-short": "throughput", "sizing-latency-short": "latency", "sizing-does-not-fit": "fit"}


def restates(f: Finding, o: Option) -> bool:
    """Whether finding `f` only repeats a miss of option `o` that is shown anyway ("misses the deadline", "does not
    fit")."""
    miss = RESTATES.get(f.rule_id)
    return (not o.fits) if miss == "fit" else (miss is not None and miss in o.misses)


def ruled_beyond_market(o: Option) -> bool:
    """A rule other than a market one (and other than the misses shown anyway) rules `o` out: an engineering rule
    about running it (host RAM for its offload), not one about buying the cards in a region."""
    return any(f.severity == "block" and f.topic != "market" and not restates(f, o) for f in o.findings)


def market_only_block(o: Option) -> bool:
    """A configuration the person named whose only rulings (beyond the misses shown anyway) are market rules: about
    buying the cards there, not about running the job on them."""
    return "candidate" in o.labels and not ruled_beyond_market(o)


def misses(o: Option, lang: str, *, running: bool = False) -> list[str]:
    """What `o` misses, in words, each once: "ruled out by a rule" only when a block finding says more than a miss
    already listed (a market or capability rule), not when the blocking rule is the missed deadline itself.
    `running`: the question is whether a card the person named runs the job (can it, how fast), not what to buy; a
    market rule alone (an export-restricted card in China) then does not rule their question out and is said as a
    note ("but: RTX 4090 restricted in China", "但注意：…"). Asked how many to buy, it stays "ruled out"."""
    blocks = [f for f in o.findings if f.severity == "block"]
    keep = [m for m in o.misses if m != "blocked" or not blocks or any(not restates(f, o) for f in blocks)]
    named = [rule_title(f.rule_id, lang) for f in blocks if not restates(f, o)]
    market_only = running and market_only_block(o)
    key = "option.market_note" if market_only else "option.ruled_out"
    return [message(key, lang, why=message("option.ruled_out_sep", lang).join(named))
            if m == "blocked" and named else miss_words(m, lang) for m in keep]


def miss_words(miss: str, lang: str) -> str:
    """A missed target in words ("option.miss.MISS"); one the catalogs lack as its code."""
    return message(f"option.miss.{miss}", lang) if known(f"option.miss.{miss}") else miss


def low_reliability(source: Any) -> bool:
    """Whether a catalog figure rests on a source the registry marks as low reliability: its kind ends in '-low'
    (press-low: the expert-call minutes behind the 2024 China channel prices; secondary-low: unverified price
    compilations). `source` is one id or several joined by commas; ids the catalog does not know count as not low."""
    if not source:
        return False

    cat = default_catalog()
    for sid in str(source).split(","):
        try:
            if cat.source(sid.strip()).kind.endswith("-low"):
                return True
        except CatalogError:
            continue
    return False


def opt_name(o: Option, book: Book) -> str:
    n = book.count(f"GPUs ({o.gpu_name})", o.count, "GPUs", "configuration evaluated")
    return f"{n}× {o.gpu_name}"


# The engines as their projects write their names (the layout keeps the lower-case ids of the contract).
ENGINE_LABELS = {"vllm": "vLLM", "sglang": "SGLang", "megatron": "Megatron-LM", "fsdp": "FSDP", "deepspeed": "DeepSpeed",
                 "dualpipe": "DualPipe"}


def opt_layout(o: Option, lang: str, book: Book) -> str:
    """"TP 2, vLLM", "DP 8, ZeRO-3", and for serving replicas "2 replicas × TP 8, vLLM" (2 个副本 × TP 8、vLLM)."""
    lay = o.layout
    parts = []
    if lay.tp > 1 and lay.engine == "llama.cpp":  # llama.cpp splits layers, it has no TP
        n = book.count('layer-split GPUs', lay.tp, 'GPUs', SRC_RECOMMEND)
        parts.append(message("layout.layers_split", lang, count=n))
    elif lay.tp > 1:
        group = f"TP {book.count('tensor parallel degree', lay.tp, 'GPUs', SRC_RECOMMEND)}"
        parts.append(message("layout.dp_attention", lang, group=group) if lay.attention_dp else group)
    if lay.planned is not None and lay.planned.cp > 1:  # the planner's context parallelism (long sequences)
        parts.append(f"CP {book.count('context parallel degree', lay.planned.cp, 'GPUs', SRC_RECOMMEND)}")
    if lay.pp > 1:
        parts.append(f"PP {book.count('pipeline parallel degree', lay.pp, 'GPUs', SRC_RECOMMEND)}")
    if lay.replicas is not None and lay.replicas > 1:  # serving: independent engine copies, each one group above
        n = book.count('serving replicas', lay.replicas, 'replicas', SRC_RECOMMEND)
        parts = [message("layout.replicas", lang, n=n, group=" × ".join(parts) or message("layout.one_gpu", lang))]
    elif lay.dp > 1:
        parts.append(f"DP {book.count('data parallel degree', lay.dp, 'GPUs', SRC_RECOMMEND)}")
    if lay.planned is not None and lay.planned.ep > 1:  # an MoE run's experts split over EP ranks
        parts.append(f"EP {book.count('expert parallel degree', lay.planned.ep, 'GPUs', SRC_RECOMMEND)}")
    if lay.zero and lay.engine != "fsdp":  # FSDP shards fully by itself: no ZeRO stage to name
        parts.append(f"ZeRO-{book.count('ZeRO stage', lay.zero, '', SRC_RECOMMEND)}")
    if (lo := lay.layer_offload) is not None:  # llama.cpp layer offload: -ngl layers on the card, the rest in RAM
        ngl = book.count(f"GPU layers (-ngl) on 1× {o.gpu_name} with layer offload", lo.ngl, "layers", SRC_RECOMMEND)
        rest = book.count(f"layers in system RAM on 1× {o.gpu_name} with layer offload", lo.cpu_layers, "layers",
                          SRC_RECOMMEND)
        parts.append(message("layout.ngl", lang, ngl=ngl, rest=rest))
    elif lay.zero_offload != "none":
        what = f"layout.offload_what.{lay.zero_offload}"  # "optimizer" / "all", in Chinese where asked
        if lay.engine == "fsdp":  # FSDP's CPU offload: the parameter shards and the optimizer step in host RAM
            what = "layout.offload_what.fsdp"
        parts.append(message("layout.offload_to", lang, where=message(what, lang) if known(what) else lay.zero_offload))
    if lay.engine:
        parts.append(ENGINE_LABELS.get(lay.engine, lay.engine))

    parts += option_tags(o, lang)
    return message("list.sep", lang).join(parts) or message("layout.one_gpu", lang)  # "TP 2、vLLM" in Chinese


def digits_apart(a: float, b: float) -> int:
    """Decimals (1 to 3) at which two GiB figures that differ also read differently ("28.80 / 28.78", not "28.8 /
    28.8" beside "short by 0.0 GiB")."""
    d = 1
    while d < 3 and a != b and round(a, d) == round(b, d):
        d += 1
    return d


def need_and_usable(o: Option, book: Book) -> tuple[str, str]:
    """The configuration's memory per GPU and its card's usable memory, in GiB, each recorded in `book`."""
    d = digits_apart(o.per_gpu.total.gib, o.usable.gib)
    need = book.gib(f"memory per GPU on {o.count}× {o.gpu_name}", o.per_gpu.total, digits=d)
    usable = book.gib(f"usable memory of {o.gpu_name}", o.usable, f"catalog: {o.gpu} memory_bytes × engine usable fraction",
                      digits=d)
    return need, usable


def shortfall(o: Option, book: Book) -> str:
    """What the configuration lacks per GPU (need − usable), in GiB at the decimals its need and usable are said in,
    recorded in `book`."""
    return book.gib(f"shortfall per GPU on {o.count}× {o.gpu_name}", o.per_gpu.total - o.usable,
                    "computed: need − usable", digits=digits_apart(o.per_gpu.total.gib, o.usable.gib))


def opt_memory(o: Option, book: Book, lang: str) -> str:
    need, usable = need_and_usable(o, book)
    return f"{need} / {usable}"


SRC_LOAD = "advisor.estimator.serving.simulate_serving"


def user_speed(o: Option, book: Book) -> tuple[str, str] | None:
    """Output tokens/s per user and in total of a serving option, as recorded in `book`: the continuous-batching
    simulation at the asked concurrency (`throughput.under_load`, the figure the "at N users" sentence gives) when
    it ran, else the steady-state decode roofline (advisor.estimator.throughput). None for a non-serving option."""
    t = o.throughput
    if not (t and t.decode_tokens_per_s):
        return None
    ul = t.under_load
    if ul is not None and ul.per_user_tokens_per_s > 0:
        on, c = f"{o.count}× {o.gpu_name}", t.concurrency
        per = book.num(f"tokens/s per user at {c} users on {on}", ul.per_user_tokens_per_s, "tokens/s", SRC_LOAD,
                       1 if ul.per_user_tokens_per_s < 10 else 0)
        total = book.num(f"output tokens/s in total at {c} users on {on}", ul.total_tokens_per_s, "tokens/s",
                         SRC_LOAD, 0)
        return per, total
    per = book.num(f"decode tokens/s per sequence on {o.count}× {o.gpu_name}", t.decode_tokens_per_s, "tokens/s",
                   SRC_THROUGHPUT, 0 if t.decode_tokens_per_s >= 10 else 1)
    total = book.num(f"decode tokens/s total on {o.count}× {o.gpu_name}", t.decode_tokens_per_s_total or 0,
                     "tokens/s", SRC_THROUGHPUT, 0)
    return per, total


def opt_speed(o: Option, book: Book, lang: str, w: Workload) -> str:
    speed = user_speed(o, book)
    if speed is not None:  # one stream: its speed once, not "52 tokens/s per user, 52 tokens/s total"
        return message("speed.per_user" if speed[0] != speed[1] else "speed.one_user", lang, per=speed[0],
                       total=speed[1])
    tr = o.training
    if tr and tr.wall:
        days = opt_days(o, book, lang)
        hours = book.num(f"GPU-hours on {o.count}× {o.gpu_name}", tr.gpu_hours, "GPU-hours", SRC_TRAINING, 0,
                         suffix=message("speed.gpu_hours_unit", lang))
        if tr.planned and tr.planned.goodput:  # the planner's run total (training_advice.training_figures)
            g = book.num("goodput of the run total", tr.planned.goodput * 100, "%", "advisor.estimator.planner", 0)
            return message("speed.training_goodput", lang, days=days, hours=hours, goodput=g)
        return message("speed.training", lang, days=days, hours=hours)
    return "—"


def opt_days(o: Option, book: Book, lang: str) -> str:
    """The option's training wall-clock, booked: in days (one decimal below 100 days), or in hours below a day
    and minutes below an hour (a run of 40 minutes is not "0.0 days"); the option must have one."""
    return wall_text(f"training wall-clock on {o.count}× {o.gpu_name}", o.training.wall if o.training else Seconds(0.0),
                     book, lang)


def wall_text(name: str, wall: Seconds, book: Book, lang: str) -> str:
    """A training run's wall-clock booked as `name`: days, or hours below a day, minutes below an hour."""
    if wall < HOUR:
        return book.duration(name, max(wall, MINUTE), "min", SRC_TRAINING, 0, suffix=message("slot.minutes", lang))
    if wall < DAY:
        return book.duration(name, wall, "h", SRC_TRAINING, 1, suffix=message("slot.hours", lang))
    return book.duration(name, wall, "days", SRC_TRAINING, 1 if wall < DAY * 100 else 0,
                         suffix=message("slot.days", lang))


def opt_price(o: Option, book: Book, lang: str) -> str:
    """The cards' purchase with its date; a card sold by no one (AWS's A10G, a GB200 rented by the GPU) shows its
    dated cloud price per GPU-hour instead, else "no price"."""
    p = o.price
    if not p:
        return _rent_only(o, book, lang) or message("price.none", lang)
    total = book.money(f"purchase price of {o.count}× {o.gpu_name} (GPUs only)", p.per_card.amount * o.count,
                       p.per_card.currency, f"catalog price {p.source} as of {p.as_of}")
    return message("price.with_date", lang, price=total, when=price_when(o, book, lang))


def catalog_rent(gpu: Any, book: Book, currency: str, region: str = "global") -> tuple[float, Any, str] | None:
    """(the card's price per GPU-hour in `currency`, the quote, its listed price booked) from the catalog's cloud
    quotes (advisor.estimator.cost.cloud_price: the region's, the most comparable tier, newest; else the reference
    rate); None where there is none or only the person's own."""
    from advisor.estimator.calibration import load_economics  # start-up: only a rent or an unpriced row reads it
    from advisor.estimator.cost import cloud_hour_price, cloud_price  # start-up: as above

    econ = load_economics()
    quote = cloud_price(gpu, econ, region=region)
    if quote is None or quote.origin == "user":
        return None
    hour, listed, unit = cloud_hour_price(quote, econ, currency)
    rate = book.money(f"cloud price per GPU-hour of {gpu.name} ({quote.provider})", listed,
                      "CNY" if unit.startswith("CNY") else "USD",
                      f"knowledge catalog: {gpu.id} cloud ({quote.source}, {quote.date})")
    return hour, quote, rate


def _rent_only(o: Option, book: Book, lang: str) -> str:
    """"rented at $1.01 per GPU-hour (AWS, 2026-01-21)": the catalog's own cloud quote for a card with no purchase
    price (`catalog_rent`); "" when the card has none."""
    gpu = load_catalog().find_gpu(o.gpu)
    got = catalog_rent(gpu, book, "USD") if gpu is not None and gpu.cloud else None
    if got is None:
        return ""
    _hour, quote, rate = got
    return message("price.rent_only", lang, rate=rate, provider=quote.provider, when=str(quote.date))


def price_when(o: Option, book: Book, lang: str) -> str:
    """The date of the option's card price, with what weakens it: a low-reliability source (e.g. the 2024 China
    channel prices from expert-call minutes, review R40), a price older than the freshness policy
    (advisor.recommend.prices.stale_price)."""
    p = o.price
    assert p is not None
    when = p.as_of
    if low_reliability(p.source):
        when += message("list.comma", lang) + message("price.low_reliability", lang)
    if stale_price(o):
        years = book.num("freshness limit of card prices", PRICE_MAX_AGE_DAYS / 365, "years",
                         "advisor.recommend.prices.PRICE_MAX_AGE_DAYS", 0, suffix="")
        when += message("list.comma", lang) + message("price.stale", lang, years=years)
    return when


def opt_purchase(o: Option, book: Book, lang: str) -> str:
    """The option's full purchase in one phrase, as `Recommendation.lead_summary` words it (advisor.recommend.results
    .purchase_line: cards and servers, the TCO over the horizon; owned cards costed by power and operation only),
    with the cards' price date. Its amounts are recorded under the names the cost section uses."""
    src = "advisor.estimator.cost.estimate_tco"
    total = o.tco.purchase.total if o.tco is not None else None
    if total and "existing" not in o.labels:
        money_of(book, f"full purchase of {o.count}× {o.gpu_name} (GPUs and servers)", total, src)
    if o.tco is not None:
        opt_tco(o, book, lang)
    if o.price and "existing" not in o.labels:
        opt_price(o, book, lang)  # the cards alone, named as the tables name them
    text = book.text(purchase_line(o, lang), f"purchase of {o.count}× {o.gpu_name}", src)
    p = o.price
    if "existing" in o.labels or p is None or not p.as_of:
        return text
    return message("purchase.card_prices_as_of", lang, purchase=text, when=price_when(o, book, lang))


def opt_notes(o: Option, lang: str, options: Sequence[Option] = ()) -> str:
    bits = label_words(o, lang, options)
    if not o.fits:
        bits.append(message("notes.does_not_fit", lang))
    bits += misses(o, lang) if o.fits else []
    flagged = [f for f in o.findings if f.severity in ("block", "warn") and not restates(f, o)]
    flagged.sort(key=lambda f: f.severity != "block")
    bits += [f"⚠ {rule_title(f.rule_id, lang)}" for f in flagged[:2]]  # the id stays in the findings section
    return message("list.comma", lang).join(bits)


def china_status(status: str, lang: str) -> str:
    """A card's China-market status in words ("licence_required": licence required); a status the catalogs lack
    as given."""
    return message(f"china.status.{status}", lang) if known(f"china.status.{status}") else status


def china_cell(o: Option, lang: str) -> str:
    spec = default_catalog().find_gpu(o.gpu)
    if spec is None:
        return "—"
    status = china_status(spec.china.status, lang)
    when = spec.china.as_of.isoformat()
    return message("china.status_as_of", lang, status=status, when=when)


def opt_tco(o: Option, book: Book, lang: str) -> str:
    if o.tco is None:
        return "—"
    return money_of(book, f"TCO of {o.count}× {o.gpu_name}", o.tco.tco, "advisor.estimator.cost.estimate_tco")


def options_table(opts: list[Option], book: Book, lang: str, w: Workload, region: str | None = None) -> str:
    speed = message("options.col.training_time" if w.is_training else "options.col.decode_speed", lang)
    with_tco = any(o.tco is not None for o in opts)
    years = next((o.tco.years for o in opts if o.tco is not None), None)
    cols = [message("options.col.configuration", lang), message("options.col.layout", lang),
            message("options.col.memory", lang), speed, message("options.col.price", lang)]
    if with_tco:
        y = book.num("TCO years", float(years or 3), "years", "advisor.estimator.cost.estimate_tco", 0, suffix="")
        cols.append(message("options.col.tco", lang, years=y))
    if region == "cn":
        cols.append(message("options.col.china", lang))
    cols.append(message("options.col.notes", lang))
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)
    rows = []
    for o in opts:
        cells = [opt_name(o, book), opt_layout(o, lang, book), opt_memory(o, book, lang), opt_speed(o, book, lang, w),
                 opt_price(o, book, lang)]
        if with_tco:
            cells.append(opt_tco(o, book, lang))
        if region == "cn":
            cells.append(china_cell(o, lang))
        cells.append(opt_notes(o, lang, opts))
        rows.append("| " + " | ".join(cells) + " |")
    return head + "\n" + "\n".join(rows)


def compact_rows(shown: list[Option], others: list[Option], rec: Recommendation) -> list[Option]:
    """The configurations the first screen shows: the user's own, then what works, at most three."""
    rows = list(shown[:3])
    pool = [o for o in others if o.fits] or (list(rec.closest) if not shown and not others else [])
    for o in pool:
        if len(rows) >= 3 or (len(rows) >= 2 and shown):
            break
        if not any((o.gpu, o.count) == (r.gpu, r.count) for r in rows):
            rows.append(o)
    return rows
