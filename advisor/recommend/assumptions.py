"""What a recommendation must state, in English and Chinese (same order; the words are the message catalog's
"recommend" section, knowledge/messages/recommend_{en,zh}.py): the recommender's own assumptions (the
headroom that counts as fitting, how prices and TCO are taken, the layouts), the market the search kept to, the
price condition, a reasoning model's own default context, and the default training deadline.
"""

from __future__ import annotations

from advisor.recommend.prices import cost_of, total_price
from advisor.recommend.rank import STACK_MARGIN, mainstream_stack
from advisor.recommend.results import Option, Recommendation
from advisor.recommend.search import MIN_HEADROOM, Search
from advisor.workload import DEFAULT_CONTEXT, named_cards
from knowledge.messages import t
from knowledge.quantities import Seconds
from knowledge.schemas import GpuSpec

DEFAULT_TRAINING_DEADLINE = Seconds.of(30, "days")  # when none is given; stated as an assumption in the answer
DEFAULT_TRAINING_DEADLINE_S = DEFAULT_TRAINING_DEADLINE.s  # the same in the Constraints field it fills


def _both(key: str, **fields: object) -> tuple[str, str]:
    """The sentence `key` of the catalog's "recommend" section in English and in Chinese."""
    return t(key, "en", **fields), t(key, "zh", **fields)


def search_assumptions(search: Search) -> tuple[list[str], list[str]]:
    """The recommender's own assumptions, in English and Chinese (same order)."""
    w, c = search.workload, search.constraints
    pairs = [_both("recommend.headroom", headroom=MIN_HEADROOM), _both("recommend.prices", currency=c.currency),
             _both("recommend.per_node", n=c.max_gpus_per_node)]
    if not w.is_training:
        pairs.append(_both("recommend.layouts"))
    elif w.train_tokens is None:
        pairs.append(_both("recommend.default_tokens"))
    return [en for en, _ in pairs], [zh for _, zh in pairs]


def advice_assumptions(search: Search, rec: Recommendation, quantised: bool) -> list[tuple[str, str]]:
    """What the answer must state: the market the search kept to, the price condition, the default context."""
    w, c, model = search.workload, search.constraints, search.model
    out: list[tuple[str, str]] = []
    if rec.market_excluded:
        out.append(_market_assumption(c.region, rec.market_excluded))
    if c.condition == "used":
        out.append(_both("recommend.used"))
    else:
        eol = sorted({o.gpu_name for o in rec.options if o.price and o.price.end_of_life})

        def new(lang: str) -> str:
            names = t("recommend.list_sep", lang).join(eol)
            return t("recommend.new", lang, eol=t("recommend.new.eol", lang, names=names) if eol else "")

        out.append((new("en"), new("zh")))
    if not w.is_training and model.default_context and w.context == model.default_context:
        out.append(_both("recommend.reasoning_context", context=w.context, model=model.name, default=DEFAULT_CONTEXT))
    if quantised:
        out.append(_both("recommend.quantised_lead"))
    return out


def _market_assumption(region: str, names: list[str]) -> tuple[str, str]:
    """The cards left out of the search for the region's market (knowledge ChinaMarket; a Region is "cn" or
    "global")."""
    return _both(f"recommend.market.{region}", names=", ".join(names))  # the list as English writes it, in both


def deadline_assumption() -> tuple[str, str]:
    """No deadline given for a training job: the default one the search used (`DEFAULT_TRAINING_DEADLINE_S`)."""
    return _both("recommend.deadline", days=DEFAULT_TRAINING_DEADLINE.days)


def deadline_out_of_reach() -> tuple[str, str]:
    """The default deadline met by no configuration the search may build (pre-training a large model): the fastest
    configurations tried are shown with their own times instead of none."""
    return _both("recommend.deadline_out_of_reach", days=DEFAULT_TRAINING_DEADLINE.days)


_STACK_NAMES = {"synapseai": "Intel Gaudi SynapseAI", "cann": "Huawei CANN", "metal": "Apple Metal", "cuda": "CUDA",
                "rocm": "ROCm"}


def stack_assumption(search: Search, rec: Recommendation, gpus: dict[str, GpuSpec]) -> tuple[str, str] | None:
    """The stack preference (advisor.recommend.rank.prefer_mainstream), stated when an option on another stack was
    offered: the rule, and which way it went for this answer. None when the user named the cards or every
    offered option runs CUDA/ROCm (or the region's mainstream stack)."""
    w, c = search.workload, search.constraints
    if named_cards(c):
        return None
    users = 1 if w.is_training else w.concurrency

    def main(o: Option) -> bool:
        return mainstream_stack(gpus[o.gpu], c.region, users, w.is_training)

    rows = [o for o in rec.options if o.meets_targets and total_price(o) and "existing" not in o.labels]
    off = [o for o in rows if not main(o)]
    if not off:
        return None
    en, zh = _both("recommend.stack", pct=f"{STACK_MARGIN:.0%}")
    lead = next((o for o in rec.options if "recommended" in o.labels), None)
    if lead is None:
        return en, zh
    cheaper = min(off, key=cost_of)
    tail: tuple[str, str] | None = None
    if main(lead) and cost_of(cheaper) < cost_of(lead):
        gap = 1.0 - cost_of(cheaper) / cost_of(lead)
        stack = _STACK_NAMES.get(gpus[cheaper.gpu].stack, gpus[cheaper.gpu].stack)
        tail = _both("recommend.stack.kept", count=cheaper.count, gpu=cheaper.gpu_name, stack=stack, gap=gap,
                     lead_count=lead.count, lead=lead.gpu_name)
    elif not main(lead):
        stack = _STACK_NAMES.get(gpus[lead.gpu].stack, gpus[lead.gpu].stack)
        alts = [o for o in rows if main(o)]
        if alts:
            alt = min(alts, key=cost_of)
            gap = 1.0 - cost_of(lead) / cost_of(alt)
            tail = _both("recommend.stack.cheaper", count=lead.count, gpu=lead.gpu_name, stack=stack, gap=gap,
                         alt_count=alt.count, alt=alt.gpu_name)
        else:
            tail = _both("recommend.stack.alone", count=lead.count, gpu=lead.gpu_name, stack=stack)
    if tail is not None:
        en, zh = en + tail[0], zh + tail[1]
    return en + t("recommend.end", "en"), zh + t("recommend.end", "zh")
