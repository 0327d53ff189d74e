"""A training job's budget a month ("$100k a month for rented H100s, pre-train a 7B: how long?"): the cards that month
rents around the clock, the plan kept within them.

    rate   = the stated price per GPU-hour of the card, else its catalog cloud quote (advisor.estimator.cost.cloud_price)
    n      = ⌊budget a month ÷ (rate × 730 h)⌋        (730 h = 8760 h / 12: a month around the clock)
    search = whole 8-GPU servers within n (n itself below one server)

A serving budget a month is spent on copies of a configuration instead (advisor.analysis.load_answers.budget_users),
searched among the cards a cloud rents out (`rentable_cards`) when none is named.

A rented training run is paid by the GPU-hour, so for a card named without a count the count with the fewest
GPU-hours is the cheapest (`cheapest_rented`): the smallest count that fits may lean on CPU offload and take several
times the GPU-hours of twice as many cards without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import HOURS_PER_MONTH, cloud_hour_price, cloud_price
from advisor.recommend.prices import stated_quote
from knowledge.structs import replace

if TYPE_CHECKING:
    from advisor.analysis.steps import Step
    from advisor.recommend.recommender import Option
    from advisor.workload import Constraints, Workload
    from knowledge.catalog import Catalog

SERVER = 8  # GPUs per server a rented training cluster comes in


def rent_cap(constraints: Constraints, catalog: Catalog) -> tuple[Constraints, dict[str, Any] | None]:
    """(`constraints` kept within the cards a month's budget rents, what it rents) for one named card; unchanged and
    None when no budget a month, no single card named, or not even one card rented; unchanged with `no_quote` when
    neither the person nor the catalog prices renting the card."""
    budget = constraints.monthly_rent_budget
    if not budget or len(constraints.candidates) != 1:
        return constraints, None
    gpu = catalog.gpu(constraints.candidates[0])
    econ = load_economics()
    quote = stated_quote(constraints, gpu) or cloud_price(gpu, econ, region=constraints.region)
    if quote is None:  # nobody's price to divide by: the answer asks for the person's own
        return constraints, {"gpu": gpu.id, "gpu_name": gpu.name, "no_quote": True}
    rate = cloud_hour_price(quote, econ, constraints.currency)[0]
    rented = int(budget // (rate * HOURS_PER_MONTH)) if rate > 0 else 0
    if rented < 1:
        return constraints, None
    per_node, nodes = (SERVER, rented // SERVER) if rented >= SERVER else (rented, 1)
    capped = replace(constraints, max_gpus_per_node=min(constraints.max_gpus_per_node, per_node),
                     max_nodes=min(constraints.max_nodes, nodes))
    return capped, {"gpu": gpu.id, "gpu_name": gpu.name, "rented": rented, "within": per_node * nodes, "rate": rate,
                    "provider": None if quote.origin == "user" else quote.provider,
                    "as_of": quote.date.isoformat() if quote.date else None}


def rentable_cards(catalog: Catalog, region: str = "global") -> tuple[str, ...]:
    """The cards a budget a month can rent: those with a dated cloud quote from a provider in `region` (a mainland-China
    user rents from mainland clouds, billed in yuan), else, when no card has one there, any dated quote in the catalog
    or economics.yaml's reference (not whole machines)."""
    local = tuple(g.id for g in catalog.gpus if any(q.region == region for q in g.cloud) and not g.is_machine)
    if local:
        return local
    refs = load_economics().cloud_reference
    return tuple(g.id for g in catalog.gpus if (g.cloud or refs.get(g.id)) and not g.is_machine)


def cheapest_rented(workload: Workload, constraints: Constraints, found: Option, steps: list[Step]) -> Option:
    """Of `found` (the search's smallest fitting count of a card named without one) and 2, 4 and 8 times as many of
    that card within a server, the training run with the fewest GPU-hours — what renting by the hour charges for —
    when it saves over 10 %; `found` otherwise (and for anything but a rented fine-tuning run)."""
    from advisor.analysis.named import evaluate_named  # start-up: only a rented training run tries more cards
    from advisor.analysis.request import NamedConfig  # start-up: likewise

    if (constraints.buy_or_rent != "rent" or not workload.is_training or found.training is None
            or not found.training.gpu_hours):
        return found
    sizes = [k * found.count for k in (2, 4, 8) if k * found.count <= constraints.max_gpus_per_node]
    tried = evaluate_named(workload, constraints, [NamedConfig(gpu=found.gpu, count=n) for n in sizes], steps) \
        if sizes else []
    runs = [o for o in tried if o.fits and o.training is not None and o.training.gpu_hours]
    best = min(runs, key=lambda o: (o.training.gpu_hours, o.count), default=None)  # type: ignore[union-attr]
    if best is None or best.training is None or best.training.gpu_hours > 0.9 * found.training.gpu_hours:
        return found
    return replace(best, labels=[lab for lab in best.labels if lab != "candidate"])
