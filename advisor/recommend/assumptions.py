"""What a recommendation must state, in English and Chinese (same order): the recommender's own assumptions (the
headroom that counts as fitting, how prices and TCO are taken, the layouts), the market the search kept to, the
price condition, a reasoning model's own default context, and the default training deadline.
"""

from __future__ import annotations

from advisor.recommend.prices import cost_of, total_price
from advisor.recommend.rank import STACK_MARGIN, mainstream_stack
from advisor.recommend.results import Option, Recommendation
from advisor.recommend.search import MIN_HEADROOM, Search
from advisor.workload import DEFAULT_CONTEXT
from knowledge.schemas import GpuSpec

DEFAULT_TRAINING_DEADLINE_S = 30 * 86400  # when none is given; stated as an assumption in the answer


def search_assumptions(search: Search) -> tuple[list[str], list[str]]:
    """The recommender's own assumptions, in English and Chinese (same order)."""
    w, c = search.workload, search.constraints
    cur = c.currency
    pairs = [
        (f"a configuration fits when its per-GPU memory leaves ≥ {MIN_HEADROOM:.0%} of the card free (an engine "
         "that reserves 90 % of the card, as vLLM does, leaves that by itself)",
         f"每卡显存至少留出 {MIN_HEADROOM:.0%} 余量才算“装得下”（vLLM 这类只占用 90% 显存的引擎本身即留出该余量）"),
        (f"prices in {cur}: the newest dated price per card in the catalog (converted at the dated exchange rate "
         "where only the other currency is known) plus the rest of the server as the guides' tiers price it; TCO "
         "over the default years at full utilisation",
         f"价格以 {cur} 计：取目录中每张卡最新的带日期价格（只有另一币种时按带日期的汇率换算），加上按指南分档估算的"
         "整机其余部分；TCO 按默认年限、满负荷计算"),
        (f"at most {c.max_gpus_per_node} GPUs per node", f"每台服务器最多 {c.max_gpus_per_node} 张卡"),
    ]
    if not w.is_training:
        pairs.append(("tensor parallel inside a node, pipeline parallel across nodes; replicas when the heads do not "
                      "divide the GPU count",
                      "节点内张量并行、节点间流水线并行；注意力头数不能整除卡数时改为多副本"))
    elif w.train_tokens is None:
        pairs.append(("training time for a default token budget (20 tokens per parameter for pre-training, 100 M "
                      "tokens for fine-tuning): give the real budget for a real estimate",
                      "训练时间按默认 token 量估算（预训练每参数 20 token，微调 1 亿 token）：请给出实际数据量以得到准确估计"))
    return [en for en, _ in pairs], [zh for _, zh in pairs]


def advice_assumptions(search: Search, rec: Recommendation, quantised: bool) -> list[tuple[str, str]]:
    """What the answer must state: the market the search kept to, the price condition, the default context."""
    w, c, model = search.workload, search.constraints, search.model
    out: list[tuple[str, str]] = []
    if rec.market_excluded:
        out.append(_market_assumption(c.region, ", ".join(rec.market_excluded)))
    if c.condition == "used":
        out.append(("used cards asked for: priced at dated used-card prices where the catalog has them",
                    "按要求使用二手卡：有二手价的按带日期的二手价计算"))
    else:
        eol = sorted({o.gpu_name for o in rec.options if o.price and o.price.end_of_life})
        out.append(("new-card prices (a company purchase)" + (
                    f"; {', '.join(eol)}: end of life (the catalog's newest price is a used one), so priced used"
                    if eol else ""),
                    "按新卡价格计算（企业采购）" + (f"；{'、'.join(eol)} 已停产（目录中最新价格为二手价），按二手价计算"
                                           if eol else "")))
    if not w.is_training and model.default_context and w.context == model.default_context:
        out.append((f"context {w.context} tokens per sequence: {model.name} is a reasoning model whose answers run "
                    f"long (its own default, instead of {DEFAULT_CONTEXT})",
                    f"每条序列上下文按 {w.context} tokens：{model.name} 是推理模型，回答很长（采用该模型的默认值，"
                    f"而不是 {DEFAULT_CONTEXT}）"))
    if quantised:
        out.append(("the named card does not run the model at its own precision on fewer cards, so the 4-bit "
                    "configuration leads", "所选显卡无法以原精度用更少的卡运行该模型，因此首选 4-bit 量化配置"))
    return out


def _market_assumption(region: str, names: str) -> tuple[str, str]:
    """The cards left out of the search for the region's market (knowledge ChinaMarket)."""
    if region == "cn":
        return (f"region {region}: only cards sold new there are offered (left out: {names})",
                f"中国大陆地区：只推荐国内可买到新卡的型号（未纳入：{names}）")
    return (f"region {region} (outside mainland China): cards sold only in mainland China are not offered "
            f"(left out: {names})", f"中国大陆以外地区：不推荐专供中国市场的型号（未纳入：{names}）")


def deadline_assumption() -> tuple[str, str]:
    """No deadline given for a training job: the default one the search used (`DEFAULT_TRAINING_DEADLINE_S`)."""
    days = DEFAULT_TRAINING_DEADLINE_S / 86400
    return (f"no deadline given: configurations that finish within {days:g} days are preferred "
            "(give a deadline to change this)", f"未给出期限：优先选择 {days:g} 天内能完成训练的配置（可指定期限）")


def deadline_out_of_reach() -> tuple[str, str]:
    """The default deadline met by no configuration the search may build (pre-training a large model): the fastest
    configurations tried are shown with their own times instead of none."""
    days = DEFAULT_TRAINING_DEADLINE_S / 86400
    return (f"no configuration tried finishes within the default {days:g} days: the fastest ones tried are shown, "
            "each with its own time", f"所试配置都无法在默认的 {days:g} 天内完成：列出所试最快的配置及各自所需时间")


_STACK_NAMES = {"synapseai": "Intel Gaudi SynapseAI", "cann": "Huawei CANN", "metal": "Apple Metal", "cuda": "CUDA",
                "rocm": "ROCm"}


def stack_assumption(search: Search, rec: Recommendation, gpus: dict[str, GpuSpec]) -> tuple[str, str] | None:
    """The stack preference (advisor.recommend.rank.prefer_mainstream), stated when an option on another stack was
    offered: the rule, and which way it went for this answer. None when the user named the cards or every
    offered option runs CUDA/ROCm (or the region's mainstream stack)."""
    w, c = search.workload, search.constraints
    if c.candidates:
        return None
    users = 1 if w.is_training else w.concurrency

    def main(o: Option) -> bool:
        return mainstream_stack(gpus[o.gpu], c.region, users, w.is_training)

    rows = [o for o in rec.options if o.meets_targets and total_price(o) and "existing" not in o.labels]
    off = [o for o in rows if not main(o)]
    if not off:
        return None
    pct = f"{STACK_MARGIN:.0%}"
    en = (f"software stack: CUDA or ROCm (what vLLM and SGLang support in their own tree) is preferred; a card on "
          f"another stack (Gaudi SynapseAI, Ascend CANN outside China, Apple Metal as a multi-user server) leads only "
          f"when it is at least {pct} cheaper over the horizon than the cheapest CUDA/ROCm option meeting the same "
          "targets (a judgment: a second stack costs porting and validation time)")
    zh = (f"软件栈：优先 CUDA 或 ROCm（vLLM、SGLang 原生支持的平台）；其他软件栈的卡（Gaudi SynapseAI、中国以外的昇腾 "
          f"CANN、作为多用户服务器的 Apple Metal）只有在总拥有成本比满足同样目标的最便宜 CUDA/ROCm 方案低至少 {pct} "
          "时才作为首选（经验判断：多一套软件栈需要移植和验证的时间）")
    lead = next((o for o in rec.options if "recommended" in o.labels), None)
    if lead is None:
        return en, zh
    cheaper = min(off, key=cost_of)
    if main(lead) and cost_of(cheaper) < cost_of(lead):
        gap = 1.0 - cost_of(cheaper) / cost_of(lead)
        stack = _STACK_NAMES.get(gpus[cheaper.gpu].stack, gpus[cheaper.gpu].stack)
        en += (f"; {cheaper.count}× {cheaper.gpu_name} ({stack}) is {gap:.0%} cheaper, under that margin, so "
               f"{lead.count}× {lead.gpu_name} leads")
        zh += (f"；{cheaper.count}× {cheaper.gpu_name}（{stack}）便宜 {gap:.0%}，未达到该幅度，因此首选 "
               f"{lead.count}× {lead.gpu_name}")
    elif not main(lead):
        stack = _STACK_NAMES.get(gpus[lead.gpu].stack, gpus[lead.gpu].stack)
        alts = [o for o in rows if main(o)]
        if alts:
            alt = min(alts, key=cost_of)
            gap = 1.0 - cost_of(lead) / cost_of(alt)
            en += (f"; {lead.count}× {lead.gpu_name} ({stack}) leads because it is {gap:.0%} cheaper than "
                   f"{alt.count}× {alt.gpu_name}")
            zh += f"；{lead.count}× {lead.gpu_name}（{stack}）比 {alt.count}× {alt.gpu_name} 便宜 {gap:.0%}，因此作为首选"
        else:
            en += f"; no CUDA/ROCm option meets the targets, so {lead.count}× {lead.gpu_name} ({stack}) leads"
            zh += f"；没有满足目标的 CUDA/ROCm 方案，因此首选 {lead.count}× {lead.gpu_name}（{stack}）"
    return en + ".", zh + "。"
