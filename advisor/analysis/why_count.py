"""Why a job needs more than one card ("Why does 70B need two GPUs?"): the smallest single card of the catalog that
would hold the whole job alone, with the recommender's headroom (`advisor.recommend.search.sized` on
`estimate_memory` for one GPU) — the other way out besides splitting it."""

from __future__ import annotations

from advisor.estimator.memory import estimate_memory
from advisor.recommend.search import sized
from advisor.workload import Workload
from knowledge.catalog import Catalog
from knowledge.errors import AdvisorError
from knowledge.schemas import GpuSpec, ModelSpec
from knowledge.structs import replace


def smallest_single_card(model: ModelSpec, workload: Workload, catalog: Catalog) -> GpuSpec | None:
    """The card with the least memory (not a unified-memory machine, not a community mod) on which one GPU holds
    the job; None when none does."""
    one = replace(workload, gpus=1, tp=1, pp=1, nodes=1)
    pool = sorted((g for g in catalog.gpus if not g.unified_memory and not g.modded and g.interface != "soc"),
                  key=lambda g: (g.memory_bytes, -g.bandwidth_bytes_per_s))
    for g in pool:
        try:
            if sized(estimate_memory(model, one, g), g):
                return g
        except (AdvisorError, ValueError):
            continue
    return None
