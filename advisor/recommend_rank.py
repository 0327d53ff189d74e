"""Ranking the options that meet every target three ways: lowest cost (the TCO over the horizon), best value (the
most throughput per unit of money; training: the least money × time) and best performance (the highest total
tokens/s; training: the shortest wall-clock).
"""

from __future__ import annotations

from advisor.recommend_prices import cost_of, total_price
from advisor.recommend_results import Option
from knowledge.schemas import GpuSpec


def spread_consumer(o: Option, gpus: dict[str, GpuSpec]) -> bool:
    """Consumer or workstation cards spread over several servers: no NVLink switch, no peer-to-peer, PCIe and
    Ethernet between machines (rules risk-consumer-multi-node, sizing-pcie-tensor-parallel)."""
    return o.nodes > 1 and gpus[o.gpu].segment in ("consumer", "workstation")


def rank(options: list[Option], training: bool, gpus: dict[str, GpuSpec]) -> list[Option]:
    """Label lowest_cost, best_value and best_performance among the options that meet every target.

    Cost is the TCO over the horizon (purchase + power + operations), so a cheap card that needs twice the servers
    and power does not win on its sticker price; consumer cards spread over several servers rank after any option
    that fits in one server or uses datacenter parts; an option near its memory limit (`NEAR_CAPACITY`) is not the
    lowest-cost or best-value pick while another has room. The user's own cards come first, then the labelled
    options, then the rest by cost."""
    ok = [o for o in options if o.meets_targets]
    priced = [o for o in ok if total_price(o)]
    compact = any(not spread_consumer(o, gpus) for o in priced)
    roomy = any(not o.near_capacity for o in priced)

    def perf(o: Option) -> float:
        return -float(o.training["wall_s"]) if training else float(o.throughput.get("decode_tokens_per_s_total", 0.0))

    def value(o: Option) -> float:
        money = cost_of(o)
        return 1.0 / (money * o.training["wall_s"]) if training else perf(o) / money

    def spread(o: Option) -> bool:
        return compact and spread_consumer(o, gpus)

    def tight(o: Option) -> bool:  # near its memory limit while another option has room: not the cheap pick
        return roomy and o.near_capacity

    picks: list[tuple[str, Option]] = []
    if priced:
        picks.append(("lowest_cost", min(priced, key=lambda o: (spread(o), tight(o), cost_of(o), -perf(o)))))
        picks.append(("best_value", max(priced, key=lambda o: (not spread(o), not tight(o), value(o)))))
    if ok:
        picks.append(("best_performance", max(ok, key=lambda o: (perf(o), -cost_of(o)))))
    for label, o in picks:
        if label not in o.labels:
            o.labels.append(label)
    labelled: list[Option] = []
    for _, o in picks:
        if all(o is not x for x in labelled):  # identity: pydantic's == compares every field
            labelled.append(o)
    taken = {id(o) for o in labelled}
    existing = [o for o in options if "existing" in o.labels and id(o) not in taken]
    taken |= {id(o) for o in existing}
    rest = sorted((o for o in ok if id(o) not in taken), key=lambda o: (spread(o), tight(o), cost_of(o), -perf(o)))
    return existing + labelled + rest
