"""Is a card still worth buying? Its dated price set against the newest card of its kind in the catalog, per dollar.

The figures per $1,000 of the card's price (USD, the catalog's newest card price of the condition a buyer can get:
new, or used for an end-of-life card; `advisor.estimator.cost.gpu_unit_price`):

    memory     = memory_bytes / 2^30 / (price / 1000)          GiB per $1,000
    bandwidth  = bandwidth_bytes_per_s / 1e9 / (price / 1000)  GB/s per $1,000
    compute    = bf16_dense_flops / 1e12 / (price / 1000)      dense BF16 TFLOPS per $1,000

The peer ("the current card of its class") is the newest card (launch year, then dense BF16) of the same vendor,
segment and interface that is still sold, is not a China-only variant and has a card price. The verdict counts the
figures where the card gives at least as much per dollar as the peer: all three "yes", none "no", else "partly".
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import gpu_unit_price
from knowledge.catalog import Catalog
from knowledge.errors import AdvisorError
from knowledge.schemas import GpuSpec
from knowledge.structs import Value

METRICS = ("memory", "bandwidth", "compute")


class Priced(Value):
    """A card at its dated price, with what each $1,000 of it buys."""

    gpu: GpuSpec
    price_usd: float
    date: dt.date
    kind: str  # the price's kind: street, channel, launch_msrp, used (", converted from CNY" when converted)
    source: str
    per_k: dict[str, float]  # metric -> amount per $1,000 (GiB, GB/s, TFLOPS)


class ValueVerdict(Value):
    card: Priced
    peer: Priced | None  # None: the card is itself the newest priced one of its kind
    better: tuple[str, ...]  # the metrics where the card gives at least as much per dollar as the peer
    verdict: Literal["yes", "partly", "no", "newest"]


def priced(gpu: GpuSpec) -> Priced | None:
    """The card at its price in USD and its figures per $1,000; None when the catalog has no card price."""
    try:
        amount, date, kind, source = gpu_unit_price(gpu, "USD", load_economics(), "new")
    except AdvisorError:
        return None
    k = amount / 1000.0
    per_k = {"memory": gpu.memory_bytes / 2**30 / k, "bandwidth": gpu.bandwidth_bytes_per_s / 1e9 / k,
             "compute": gpu.bf16_dense_flops / 1e12 / k}
    return Priced(gpu, amount, date, kind, source, per_k)


def current_peer(gpu: GpuSpec, catalog: Catalog) -> Priced | None:
    """The newest priced card of the same vendor, segment and interface, sold and not a China variant, launched
    after `gpu`; None when there is none."""
    year = gpu.launch_year or 0
    pool = [g for g in catalog.gpus if g.id != gpu.id and g.vendor == gpu.vendor and g.segment == gpu.segment
            and g.interface == gpu.interface and g.availability == "sold" and g.china.status != "china_variant"
            and not g.modded and (g.launch_year or 0) > year]
    for g in sorted(pool, key=lambda g: (-(g.launch_year or 0), -g.bf16_dense_flops)):
        p = priced(g)
        if p is not None and "server share" not in p.kind:
            return p
    return None


def value_verdict(gpu: GpuSpec, catalog: Catalog) -> ValueVerdict | None:
    """The card's value per dollar against the current card of its class; None when the card has no price."""
    card = priced(gpu)
    if card is None:
        return None
    peer = current_peer(gpu, catalog)
    if peer is None:
        return ValueVerdict(card, None, (), "newest")
    better = tuple(m for m in METRICS if card.per_k[m] >= peer.per_k[m])
    verdict: Literal["yes", "partly", "no"] = "yes" if len(better) == len(METRICS) else "no" if not better else "partly"
    return ValueVerdict(card, peer, better, verdict)
