""""Is the A100 still worth buying?": the value verdict first (advisor.analysis.value: the card's dated price against
the newest card of its kind, per $1,000), then its age, whether it is still made, and its China-market status."""

from __future__ import annotations

from advisor.analysis.value import METRICS, Priced, ValueVerdict, priced, value_verdict
from advisor.conversation.render.book import Book
from advisor.conversation.render.options_table import china_status
from knowledge.catalog import Catalog
from knowledge.messages import t
from knowledge.schemas import GpuSpec

SRC_VALUE = "advisor.analysis.value"
_UNITS = {"memory": ("GiB", 1), "bandwidth": ("GB/s", 0), "compute": ("TFLOPS", 1)}


def value_lead(gpu: GpuSpec, catalog: Catalog, book: Book, lang: str) -> tuple[str, str] | None:
    """(lead, details) for a value question about `gpu`; None when the catalog has no price for it."""
    v = value_verdict(gpu, catalog)
    if v is None:
        return None
    card = v.card
    price = _price(card, book, lang)
    if v.peer is None:
        first = t("value.newest", lang, gpu=gpu.name, price=price, figures=_figures(v, book, lang))
    else:
        worse = tuple(m for m in METRICS if m not in v.better)
        sep = t("value.and", lang)
        first = t(f"value.{v.verdict}", lang, gpu=gpu.name, price=price, peer=v.peer.gpu.name,
                  peer_price=_price(v.peer, book, lang, "value.peer_price"), figures=_figures(v, book, lang),
                  better=sep.join(t(f"value.metric.{m}", lang) for m in v.better),
                  worse=sep.join(t(f"value.metric.{m}", lang) for m in worse))
    age = t("value.age", lang, year=gpu.launch_year or "?", availability=t(f"value.availability.{gpu.availability}", lang),
            status=china_status(gpu.china.status, lang), when=gpu.china.as_of.isoformat())
    return first + t("sentence.gap", lang) + age, _details(v, lang)


def pair_value_lead(a: GpuSpec, b: GpuSpec, book: Book, lang: str) -> str | None:
    """"5090 和 4090 哪个性价比高": the two cards' memory, bandwidth and BF16 compute per $1,000 of their dated prices
    (advisor.analysis.value.priced), which gives more of each; None when either has no price."""
    card, peer = priced(a), priced(b)
    if card is None or peer is None:
        return None
    better = tuple(m for m in METRICS if card.per_k[m] >= peer.per_k[m])
    worse = tuple(m for m in METRICS if m not in better)
    verdict = "yes" if not worse else "no" if not better else "partly"
    v = ValueVerdict(card, peer, better, verdict)  # type: ignore[arg-type]
    sep = t("value.and", lang)
    key = "value.peer_price" if verdict == "partly" else "value.price"  # inside brackets: no second pair of them
    return t(f"value.pair.{verdict}", lang, gpu=a.name, peer=b.name, price=_price(card, book, lang, key),
             peer_price=_price(peer, book, lang, "value.peer_price"), figures=_figures(v, book, lang),
             better=sep.join(t(f"value.metric.{m}", lang) for m in better),
             worse=sep.join(t(f"value.metric.{m}", lang) for m in worse))


def _price(p: Priced, book: Book, lang: str, key: str = "value.price") -> str:
    kind = p.kind.split(",")[0]
    label = t(f"market.price_kind.{kind}", lang)
    money = book.money(f"price of {p.gpu.name}", p.price_usd, "USD", f"knowledge catalog: {p.gpu.id} ({p.source})")
    return t(key, lang, money=money, kind=label, date=p.date.isoformat())


def _figures(v: ValueVerdict, book: Book, lang: str) -> str:
    """"memory 7.0 vs 5.1 GiB, … per $1,000" (or the card's own figures when it has no peer)."""
    parts = []
    for m in METRICS:
        unit, digits = _UNITS[m]
        mine = book.num(f"{m} per $1,000 of {v.card.gpu.name}", v.card.per_k[m], unit, SRC_VALUE, digits)
        if v.peer is None:
            parts.append(t("value.figure.one", lang, metric=t(f"value.metric.{m}", lang), mine=mine))
            continue
        theirs = book.num(f"{m} per $1,000 of {v.peer.gpu.name}", v.peer.per_k[m], unit, SRC_VALUE, digits)
        parts.append(t("value.figure", lang, metric=t(f"value.metric.{m}", lang), mine=mine, theirs=theirs))
    return t("value.per_k", lang, parts=t("list.sep", lang).join(parts))


def _details(v: ValueVerdict, lang: str) -> str:
    """The two cards' catalog figures and prices with their sources, as a small table."""
    rows = [v.card] + ([v.peer] if v.peer is not None else [])
    head = t("value.table.head", lang) + "\n|---|---|---|---|---|"
    lines = [f"| {p.gpu.name} | ${p.price_usd:,.0f} ({p.date.isoformat()}) | {p.gpu.memory_bytes / 2**30:.0f} GiB | "
             f"{p.gpu.bandwidth_bytes_per_s / 1e9:,.0f} GB/s | {p.gpu.bf16_dense_flops / 1e12:,.0f} TFLOPS |" for p in rows]
    sources = "; ".join(f"{p.gpu.name}: {p.source}" for p in rows)
    return head + "\n" + "\n".join(lines) + "\n\n" + t("value.sources", lang, sources=sources)
