"""The hardware a budget buys, for "¥20,000 — what model can I run?": the configuration with the most GPU memory
the budget pays for, new (or used when asked) and sold in the region, so the model-fit answer has cards to size on.

    total(gpu, n) = n × unit price (advisor.recommend.prices.unit_price: dated catalog price, converted at the
                    dated exchange rate when the catalog has only the other currency) ≤ budget

Counts are those of one machine: 1, 2, 4 or 8 PCIe cards, whole 4- or 8-GPU baseboards of SXM/OAM modules
(advisor.recommend.rank.BASEBOARD_SIZES), one unified-memory machine (a Mac Studio is not pooled with a second one).
Only cards fast enough to chat with a model that fills them: reading the card's whole memory once takes at most
`READ_S` (decode reads every weight once per token, so a model filling the memory still makes ≥ 10 tokens/s, about
reading speed); a slow card with much memory (Ascend 310P's LPDDR4X, 204.8 GB/s for 48 GB: 0.25 s) would name models
no one would wait for. When no affordable card is that fast, all affordable cards are considered.
The most memory in all wins; then fewer cards (one 48 GB card needs no tensor parallelism), more memory bandwidth
per card (decode speed), the lower price. The cards alone are priced: a server or workstation around them is not.
"""

from __future__ import annotations

import math

from advisor.estimator.cost import end_of_life
from advisor.recommend.parts import UnitPrice
from advisor.recommend.prices import unit_price
from advisor.recommend.rank import BASEBOARD_SIZES
from advisor.recommend.search import sold_in
from knowledge.catalog import Catalog
from knowledge.schemas import GpuSpec
from knowledge.structs import Value

COUNTS = (1, 2, 4, 8)  # cards in one machine
READ_S = 0.1  # seconds to read a card's whole memory once: ≥ 10 tokens/s for a model that fills it


class BudgetPick(Value):
    """`count` × `gpu` at `price` each: `total` in the budget's currency."""

    gpu: GpuSpec
    count: int
    price: UnitPrice
    total: float


def _counts(gpu: GpuSpec) -> tuple[int, ...]:
    if gpu.is_machine:
        return (1,)
    return BASEBOARD_SIZES if gpu.interface in ("sxm", "oam") else COUNTS


def buyable_price(gpu: GpuSpec, currency: str, region: str, condition: str) -> UnitPrice | None:
    """The card's price when it can be bought in `region` in `condition` ("new": not end of life, and no community
    memory mod, which has no maker's warranty), else None."""
    if not sold_in(gpu, region) or (condition == "new" and (end_of_life(gpu) or gpu.modded)):
        return None
    price = unit_price(gpu, currency, condition)
    if price is None or (price.end_of_life and condition == "new") or price.per_card.amount <= 0:
        return None
    return price


def _affordable(gpu: GpuSpec, budget: float, currency: str, region: str, condition: str) -> list[BudgetPick]:
    price = buyable_price(gpu, currency, region, condition)
    if price is None:
        return []
    each = price.per_card.amount
    most = math.floor(budget / each + 1e-9) if math.isfinite(budget) else max(COUNTS)
    return [BudgetPick(gpu=gpu, count=n, price=price, total=n * each) for n in _counts(gpu) if n <= most]


def fast_enough(gpu: GpuSpec) -> bool:
    """Whether reading all of `gpu`'s memory once takes at most READ_S seconds."""
    return gpu.memory_bytes / gpu.bandwidth_bytes_per_s <= READ_S


def _everything_affordable(catalog: Catalog, budget: float, currency: str, region: str,
                           condition: str) -> list[BudgetPick]:
    return [p for gpu in catalog.gpus for p in _affordable(gpu, budget, currency, region, condition)]


def _most_memory(picks: list[BudgetPick]) -> BudgetPick | None:
    """The most memory in all among `picks` (fast cards first, module doc); then fewer cards, more bandwidth, less
    money."""
    if not picks:
        return None
    picks = [p for p in picks if fast_enough(p.gpu)] or picks
    return max(picks, key=lambda p: (p.count * p.gpu.memory_bytes, -p.count, p.gpu.bandwidth_bytes_per_s, -p.total))


def most_memory_within(catalog: Catalog, budget: float, currency: str, region: str = "global",
                       condition: str = "new") -> BudgetPick | None:
    """The configuration with the most GPU memory `budget` buys (module doc); None when no card is affordable."""
    return _most_memory(_everything_affordable(catalog, budget, currency, region, condition))


def cheapest_card(catalog: Catalog, currency: str, region: str = "global", condition: str = "new") -> BudgetPick | None:
    """The cheapest single card on sale in the region (what a budget below it would have to reach)."""
    picks = [p for p in _everything_affordable(catalog, math.inf, currency, region, condition) if p.count == 1]
    return min(picks, key=lambda p: p.total) if picks else None


class BudgetHardware(Value):
    """What a budget buys for the model-fit answer: the most memory (`pick`), the single card with the most memory
    when `pick` is several of another card (`single`; a card, not a whole machine), or neither with the cheapest card
    there is (`cheapest`)."""

    budget: float
    currency: str
    region: str
    pick: BudgetPick | None
    single: BudgetPick | None
    cheapest: BudgetPick | None


def budget_hardware(catalog: Catalog, budget: float, currency: str, region: str = "global",
                    condition: str = "new") -> BudgetHardware:
    """The configurations of :func:`most_memory_within` for `budget` (module doc)."""
    picks = _everything_affordable(catalog, budget, currency, region, condition)
    pick = _most_memory(picks)
    single = None
    if pick is not None and pick.count > 1:
        single = _most_memory([p for p in picks if p.count == 1 and fast_enough(p.gpu) and not p.gpu.is_machine])
        single = None if single is not None and single.gpu.id == pick.gpu.id else single
    cheapest = cheapest_card(catalog, currency, region, condition) if pick is None else None
    return BudgetHardware(budget=budget, currency=currency, region=region, pick=pick, single=single, cheapest=cheapest)
