"""Leads that answer one figure of the job: its KV cache per token, and the tokens a configuration makes in a day."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.result import Analysis
from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import Book
from advisor.conversation.render.labels import format_label
from advisor.conversation.render.options_table import opt_name
from advisor.estimator.kv_cache import kv_bytes_per_token_layer, kv_cache_bytes
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
