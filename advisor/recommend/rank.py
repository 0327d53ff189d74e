"""Ranking the options that meet every target: the lead an infrastructure engineer would buy, and three labels
that are each true of their row — lowest cost (the cheapest purchase, cards and servers), best value (the most
throughput per unit of money over the horizon; training: the least money × time) and best performance (the
highest total tokens/s; training: the shortest wall-clock) — plus "used" on every row priced from used cards.

The lead ("recommended") is new, currently sold hardware in a form the buyer can install (`buyable_new`): not an
end-of-life or second-hand-only card (knowledge GpuSpec.availability), not priced used, not SXM/OAM modules outside
a 4- or 8-GPU baseboard; among those, the lowest money over the horizon (TCO) with the same preferences as before
(consumer cards spread over servers and options near their memory limit last). Used cards lead only when the
request asks for used cards; the user's own cards always come first. An option priced from a stale card price
(advisor.recommend.prices.stale_price: older than the freshness policy) ranks behind every currently priced one, so
it leads only when no current price meets the targets.

Software stack: a card whose stack the mainstream serving engines do not support in their own tree (Intel Gaudi's
SynapseAI and Huawei's CANN run vLLM through out-of-tree plugins, Apple Metal runs no vLLM/SGLang/TensorRT-LLM:
sources stacks-vllm-platforms, stacks-sglang, stacks-trtllm) leads only when it is at least `STACK_MARGIN`
cheaper over the horizon than the cheapest CUDA/ROCm option that meets the same targets, unless the user named the
cards. CANN is the mainstream stack in mainland China (most CUDA data-centre cards cannot be bought new there), and
a Mac is a normal choice for one user on one machine, so neither is held back there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from advisor.recommend.prices import cost_of, stale_price, total_price
from advisor.recommend.results import Option
from advisor.recommend.search import sold_in
from advisor.workload import Constraints
from knowledge.schemas import GpuSpec

# The default interactivity target for chat serving: MLPerf Inference's Llama 2 70B "Interactive" scenario allows a
# 99th-percentile time per output token of 40 ms (25 tokens/s for each user) and 450 ms to the first token
# (source mlperf-inference-interactive). Used when a serving request states no latency or throughput target.
INTERACTIVE_MS_PER_TOKEN = 40.0
INTERACTIVE_SOURCE = "mlperf-inference-interactive"
BASEBOARD_SIZES = (4, 8)  # SXM / OAM modules are sold mounted on 4- or 8-GPU baseboards (HGX, OAM UBB)
# stacks that vLLM and SGLang support in their own tree (sources stacks-vllm-platforms, stacks-sglang)
MAINSTREAM_STACKS = ("cuda", "rocm")
# a judgment, stated in every answer it applies to (not a measured figure): porting, validating and operating a
# second software stack costs engineering time that a small price gap does not repay
STACK_MARGIN = 0.30
# where no buyable option reaches the interactive target, the lead is kept within this factor of the fastest buyable
# option's time per output token (a judgment like STACK_MARGIN: a chat user notices a 2× slower stream)
SLOW_FACTOR = 2.0


def spread_over_servers(o: Option, gpus: dict[str, GpuSpec]) -> bool:
    """Cards spread over several servers without a scale-up fabric: consumer or workstation cards on any multi-server
    layout (no NVLink switch, no peer-to-peer, PCIe and Ethernet between machines), and data-centre cards without a
    switched fabric (`GpuSpec.scale_up`: L4, L40S, H100 PCIe) when one copy of the model is split across the servers (a pipeline or a training step crosses Ethernet; independent
    replicas, one per server, exchange nothing). Rules risk-consumer-multi-node, risk-pcie-multi-node: in a cluster
    the guide prefers NVLink-class cards for transfer losses and stability (GUIDE_003)."""
    if o.nodes <= 1:
        return False
    gpu = gpus[o.gpu]
    if gpu.segment in ("consumer", "workstation"):
        return True
    return not gpu.scale_up and (o.training is not None or o.layout.pp > 1)


def second_hand(o: Option, gpu: GpuSpec) -> bool:
    """Priced from used cards, or a card that is no longer sold new (end of life, second-hand only, a memory mod)."""
    return o.used_price or gpu.availability != "sold" or gpu.modded or (o.price is not None and o.price.end_of_life)


def installable(o: Option, gpu: GpuSpec) -> bool:
    """A form a buyer can install: PCIe cards in any count; SXM/OAM modules only as whole 4- or 8-GPU baseboards."""
    return gpu.interface == "pcie" or o.count // max(1, o.nodes) in BASEBOARD_SIZES


def buyable_new(o: Option, gpu: GpuSpec) -> bool:
    """New, currently sold hardware in an installable form (what the lead must be unless used cards are asked for)."""
    return not second_hand(o, gpu) and installable(o, gpu)


def leadable(o: Option, gpu: GpuSpec, c: Constraints) -> bool:
    """Hardware the recommended lead may be (the lead rule of `rank`): priced, sold in the region, and new unless
    used cards are asked for."""
    return bool(total_price(o)) and sold_in(gpu, c.region) and (c.condition == "used" or buyable_new(o, gpu))


def could_lead(o: Option, gpu: GpuSpec, c: Constraints) -> bool:
    """An option that meets the targets and could be the recommended lead (`leadable`)."""
    return o.meets_targets and leadable(o, gpu, c)


def mainstream_stack(gpu: GpuSpec, region: str = "global", users: int = 2, training: bool = False) -> bool:
    """Whether `gpu` runs a stack an infrastructure team would pick by default for this job: CUDA or ROCm anywhere;
    CANN in mainland China; Apple Metal for one user's local inference."""
    if gpu.stack in MAINSTREAM_STACKS:
        return True
    if gpu.stack == "cann":
        return region == "cn"
    return gpu.stack == "metal" and users <= 1 and not training


def prefer_mainstream(pick: Option, eligible: list[Option], gpus: dict[str, GpuSpec], order: Callable[[Option], Any],
                      region: str, users: int, training: bool) -> Option:
    """The lead after the stack preference: `pick` unless it runs an off-mainstream stack and the best mainstream
    option by the same `order` (no staler price, no slower, no more spread over servers) costs less than
    1 / (1 − STACK_MARGIN) times as much over the horizon."""
    if mainstream_stack(gpus[pick.gpu], region, users, training):
        return pick
    alts = [o for o in eligible if mainstream_stack(gpus[o.gpu], region, users, training)]
    if not alts:
        return pick
    alt = min(alts, key=order)
    if order(alt)[:3] > order(pick)[:3]:
        return pick
    return alt if cost_of(pick) > (1.0 - STACK_MARGIN) * cost_of(alt) else pick


def ms_per_token(o: Option) -> float:
    """Time per output token each user sees (serving options): the one a per-token target is judged on
    (`judged_tpot`: the simulation at the users' load where it ran, else the roofline's); infinity where the option
    has no speed."""
    ms = o.throughput.judged_tpot.ms if o.throughput else None
    return ms if ms else math.inf


def rank(options: list[Option], training: bool, gpus: dict[str, GpuSpec], used_ok: bool = False,
         region: str = "global", users: int = 2, named: bool = False, owned: tuple[str, ...] = ()) -> list[Option]:
    """Label the options that meet every target and order them: the user's own cards, the lead ("recommended"),
    the other labelled options, then the rest by money over the horizon.

    `used_ok`: the request asks for used cards, so a used or end-of-life card may lead. The lead is always a card
    a company can buy new in `region` (`sold_in`: never one restricted or licence-bound there, even when the user
    named it). `users` (concurrent users) and `named` (the user named the cards) feed the stack preference
    (`prefer_mainstream`), which named cards skip."""
    ok = [o for o in options if o.meets_targets]
    priced = [o for o in ok if total_price(o)]
    compact = any(not spread_over_servers(o, gpus) for o in priced)
    roomy = any(not o.near_capacity for o in priced)

    def perf(o: Option) -> float:
        return -o.training.wall.s if training and o.training else (o.throughput.decode_tokens_per_s_total if o.throughput else 0.0)

    def value(o: Option) -> float:
        money = cost_of(o)
        return 1.0 / (money * o.training.wall.s) if training and o.training else perf(o) / money

    def spread(o: Option) -> int:  # consumer cards over servers: not the pick, and over more servers still less so
        return o.nodes if compact and spread_over_servers(o, gpus) else 0

    def tight(o: Option) -> bool:  # near its memory limit while another option has room: not the pick
        return roomy and o.near_capacity

    def purchase(o: Option) -> float:
        return total_price(o) or 0.0

    for o in options:
        o.labels = [lab for lab in o.labels if lab in ("existing", "quantised", "candidate")]
        if "existing" not in o.labels and o.gpu not in owned and second_hand(o, gpus[o.gpu]):
            o.labels.append("used")
    eligible = [o for o in priced if "existing" not in o.labels
                and (o.gpu in owned or (sold_in(gpus[o.gpu], region) and (used_ok or buyable_new(o, gpus[o.gpu]))))]
    picks: list[tuple[str, Option]] = []
    if eligible:
        best_ms = min((ms_per_token(o) for o in eligible), default=math.inf)
        short_of_target = not training and best_ms > INTERACTIVE_MS_PER_TOKEN

        def slow(o: Option) -> bool:
            """Where no buyable option reaches the interactive target, one that takes more than SLOW_FACTOR × the
            fastest buyable option's time per token is not the pick: cheapest-that-fits would otherwise lead with
            a card a chat user waits on (4 tokens/s where 12 are buyable within budget). Where one does reach it
            (the target was not a constraint: llama.cpp setups, named cards), one that misses it is not the pick
            ("70B for a team of 20 within $50k": 4× RTX 5060 Ti at 7 tokens/s had led 2× RTX 5090 at 27)."""
            if training:
                return False
            if short_of_target:
                return ms_per_token(o) > SLOW_FACTOR * best_ms
            return ms_per_token(o) > INTERACTIVE_MS_PER_TOKEN

        def order(o: Option) -> tuple[bool, bool, int, bool, float, float]:
            return stale_price(o), slow(o), spread(o), tight(o), cost_of(o), -perf(o)

        lead = min(eligible, key=order)
        if not named:
            lead = prefer_mainstream(lead, eligible, gpus, order, region, users, training)
        picks.append(("recommended", lead))
    buy = [o for o in priced if "existing" not in o.labels]
    if buy:
        picks.append(("lowest_cost", min(buy, key=lambda o: (purchase(o), cost_of(o), -perf(o)))))
        picks.append(("best_value", max(buy, key=lambda o: (not spread(o), not tight(o), value(o)))))
    if ok:
        picks.append(("best_performance", max(ok, key=lambda o: (perf(o), -cost_of(o)))))
    for label, o in picks:
        if label not in o.labels:
            o.labels.append(label)
    existing = [o for o in options if "existing" in o.labels]
    labelled: list[Option] = []
    for _, o in picks:
        if all(o is not x for x in labelled + existing):  # identity: pydantic's == compares every field
            labelled.append(o)
    taken = {id(o) for o in labelled + existing}
    rest = sorted((o for o in ok if id(o) not in taken),
                  key=lambda o: (stale_price(o), spread(o), tight(o), cost_of(o), -perf(o)))
    return existing + labelled + rest
