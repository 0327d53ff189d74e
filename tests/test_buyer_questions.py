"""Fifty-two buyer questions (half in Chinese: serving, fine-tuning, quotes, the China market, renting), each read
by hand into the recommender's request, with the lead option and every label checked by rules written here from
the catalog, not from the ranking's code (issue 30):

* the lead is what an infrastructure engineer would buy: new (the catalog's `availability` is "sold", the price
  is not a used-card price), installable (PCIe cards, or SXM/OAM modules on a whole 4- or 8-GPU baseboard), sold
  in the buyer's region (China: the card's China-market status is not restricted, licence-required or not sold),
  within budget at the full purchase (cards + servers), and for chat serving with no stated target at least
  25 tokens/s for each user (MLPerf Inference's interactive 40 ms per output token) whenever any configuration
  reaches it; used cards lead only when used cards are asked for; the user's own cards lead when they have some;
* every label is true of its row: "lowest cost" is the cheapest purchase of the rows, "best performance" the
  fastest, "best value" a row that no row with memory headroom in one server beats on both money and speed, "used" exactly the second-hand rows;
* a lead on a less mainstream software stack (Gaudi SynapseAI; Ascend CANN outside China; Apple Metal as a
  multi-user server) is at least 30 % cheaper over the horizon than every mainstream (CUDA/ROCm) option offered, and
  the assumptions say so in both languages, unless the user named the cards; an inference-only card never leads a
  training job;
* the first line (Recommendation.lead_summary) names the full purchase and the TCO in the buyer's currency, or
  for owned cards says they are owned and gives the running cost, never a purchase.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from advisor.recommend.prices import stale_price
from advisor.recommend.recommender import Recommendation, recommend, total_price
from advisor.workload import Constraints, ExistingGpus, Workload
from knowledge.catalog import load_catalog

CN_NO_NEW_SALE = {"restricted", "licence_required", "not_sold"}
TPOT_MS = 40.0  # MLPerf Inference Llama 2 70B interactive: time per output token ≤ 40 ms


@dataclass(frozen=True)
class Q:
    text: str
    model: str
    task: str = "inference"
    concurrency: int = 1
    context: int | None = None
    region: str = "global"
    currency: str = "USD"
    budget: float | None = None
    condition: str = "new"
    existing: tuple[str, int] | None = None
    extra: dict[str, object] = field(default_factory=dict)

    def request(self) -> tuple[Workload, Constraints]:
        w = {"model": self.model, "task": self.task, "concurrency": self.concurrency}
        if self.context is not None:
            w["context"] = self.context
        c: dict[str, object] = {"region": self.region, "currency": self.currency, "budget": self.budget,
                                "condition": self.condition, **self.extra}
        if self.existing:
            c["existing"] = ExistingGpus(gpu=self.existing[0], count=self.existing[1])
        return Workload(**w), Constraints(**c)  # type: ignore[arg-type]


QUESTIONS = [
    # --- serving (English) ---
    Q("Serve Llama-3.1-70B to about 40 concurrent users with 8k context — which GPUs, how many, what cost?",
      "llama-3.1-70b", concurrency=40, context=8192),
    Q("We want Qwen2.5-72B for 100 internal users, 4k context, budget $300k.", "qwen2.5-72b", concurrency=100,
      context=4096, budget=300_000),
    Q("Cheapest way to serve Llama-3.1-8B to 20 users?", "llama-3.1-8b", concurrency=20, context=8192),
    Q("A support chatbot on Mistral-7B for 50 users, 4k context.", "mistral-7b", concurrency=50, context=4096),
    Q("Serve Qwen3-32B for 30 developers with 16k context.", "qwen3-32b", concurrency=30, context=16384),
    Q("Mixtral-8x7B for 16 users, 8k context, under $100k.", "mixtral-8x7b", concurrency=16, context=8192,
      budget=100_000),
    Q("Gemma-2-27B for a team of 10, 8k context.", "gemma-2-27b", concurrency=10, context=8192),
    Q("Qwen3-30B-A3B (MoE) for 64 users at 8k.", "qwen3-30b-a3b", concurrency=64, context=8192),
    Q("Serve DeepSeek-R1-Distill-Qwen-32B to 20 analysts, 32k context.", "deepseek-r1-distill-qwen-32b",
      concurrency=20, context=32768),
    Q("Run Llama-3.1-8B for one user on a workstation.", "llama-3.1-8b", concurrency=1, context=8192),
    Q("We own 2× RTX 4090; can they serve Qwen2.5-7B to 8 users?", "qwen2.5-7b", concurrency=8, context=4096,
      existing=("rtx-4090", 2)),
    # --- fine-tuning (English) ---
    Q("LoRA fine-tune Llama-3.1-8B at 4k sequence length — what should we buy?", "llama-3.1-8b", task="lora",
      context=4096),
    Q("QLoRA on Qwen2.5-32B, budget $60k.", "qwen2.5-32b", task="qlora", context=4096, budget=60_000),
    Q("Full fine-tune of Mistral-7B at 4k.", "mistral-7b", task="full", context=4096),
    Q("LoRA on Llama-3.1-70B at 4k, we have $400k.", "llama-3.1-70b", task="lora", context=4096, budget=400_000),
    # --- quotes and used cards (English) ---
    Q("Quote: the cheapest used cards that can serve Llama-3.1-70B for 10 users.", "llama-3.1-70b",
      concurrency=10, context=8192, condition="used"),
    Q("Quote a server for Qwen2.5-14B, 30 users, 8k, budget $50k.", "qwen2.5-14b", concurrency=30, context=8192,
      budget=50_000),
    Q("Quote for Llama-3-8B serving 100 users at 2k.", "llama-3-8b", concurrency=100, context=2048),
    Q("We own 4× A100 80GB SXM; fine-tune Qwen2.5-7B with LoRA.", "qwen2.5-7b", task="lora", context=4096,
      existing=("a100-80g-sxm", 4)),
    Q("For a customer in China: H100, H20 or L20 for Llama-3.1-70B, 20 users?", "llama-3.1-70b", concurrency=20,
      context=8192, region="cn", currency="CNY", extra={"candidates": ("h100-sxm", "h20", "l20")}),
    # --- renting (English) ---
    Q("Should we rent instead? Llama-3.1-8B for 20 users.", "llama-3.1-8b", concurrency=20, context=8192,
      extra={"buy_or_rent": "rent"}),
    Q("Renting GPUs to QLoRA Llama-3.1-70B — which cards?", "llama-3.1-70b", task="qlora", context=4096,
      extra={"buy_or_rent": "rent"}),
    Q("Rent for Qwen2.5-72B serving 20 users.", "qwen2.5-72b", concurrency=20, context=8192,
      extra={"buy_or_rent": "rent"}),
    # --- 中文：部署推理 ---
    Q("给 40 个并发用户部署 Llama-3.1-70B，8k 上下文，需要什么卡、多少钱？", "llama-3.1-70b", concurrency=40,
      context=8192, region="cn", currency="CNY"),
    Q("公司内部 100 人用 Qwen2.5-72B，4k 上下文，预算 300 万元。", "qwen2.5-72b", concurrency=100, context=4096,
      region="cn", currency="CNY", budget=3_000_000),
    Q("部署 Qwen2.5-7B 给 50 个客服同时用，预算 10 万。", "qwen2.5-7b", concurrency=50, context=4096, region="cn",
      currency="CNY", budget=100_000),
    Q("Qwen3-32B 给 30 个研发用，16k 上下文。", "qwen3-32b", concurrency=30, context=16384, region="cn",
      currency="CNY"),
    Q("GLM-4-9B 服务 20 人，8k。", "glm-4-9b", concurrency=20, context=8192, region="cn", currency="CNY"),
    Q("ChatGLM3-6B 部署给 10 个人用。", "chatglm3-6b", concurrency=10, context=4096, region="cn", currency="CNY"),
    Q("DeepSeek-R1-Distill-Qwen-7B 本地跑，一个人用。", "deepseek-r1-distill-qwen-7b", context=8192, region="cn",
      currency="CNY"),
    Q("我们已有 2 张 4090，能给 8 个人跑 Qwen2.5-7B 吗？", "qwen2.5-7b", concurrency=8, context=4096, region="cn",
      currency="CNY", existing=("rtx-4090", 2)),
    # --- 中文：微调 ---
    Q("用 QLoRA 微调 Qwen2.5-7B，买什么卡？", "qwen2.5-7b", task="qlora", context=4096, region="cn", currency="CNY"),
    Q("LoRA 微调 Qwen2.5-14B，预算 20 万元。", "qwen2.5-14b", task="lora", context=4096, region="cn",
      currency="CNY", budget=200_000),
    Q("全参微调 Qwen2.5-7B，4k 序列。", "qwen2.5-7b", task="full", context=4096, region="cn", currency="CNY"),
    Q("QLoRA 微调 Qwen2.5-72B。", "qwen2.5-72b", task="qlora", context=4096, region="cn", currency="CNY"),
    # --- 中文：报价、二手 ---
    Q("报价：给 30 人部署 Qwen2.5-32B，8k，预算 50 万元。", "qwen2.5-32b", concurrency=30, context=8192,
      region="cn", currency="CNY", budget=500_000),
    Q("报价：用二手卡最便宜地跑 Qwen2.5-32B，10 个用户。", "qwen2.5-32b", concurrency=10, context=8192,
      region="cn", currency="CNY", condition="used"),
    Q("报价：Qwen2.5-14B 给 100 人，4k。", "qwen2.5-14b", concurrency=100, context=4096, region="cn",
      currency="CNY"),
    # --- 中文：国内市场 ---
    Q("国内现在还能买 H100 吗？有什么替代？要跑 Llama-3.1-70B 给 20 人。", "llama-3.1-70b", concurrency=20,
      context=8192, region="cn", currency="CNY"),
    Q("国内采购：Qwen2.5-72B 服务 50 人，预算 200 万。", "qwen2.5-72b", concurrency=50, context=8192, region="cn",
      currency="CNY", budget=2_000_000),
    Q("国内能买到的卡里，跑 Mixtral-8x7B 给 16 个人用哪种？", "mixtral-8x7b", concurrency=16, context=8192,
      region="cn", currency="CNY"),
    Q("国内 LoRA 微调 Llama-3.1-70B 用什么？", "llama-3.1-70b", task="lora", context=4096, region="cn",
      currency="CNY"),
    Q("我们代理 H20、L20 和 4090D 的服务器，给客户部署 Qwen2.5-72B 20 人用，推荐哪个？", "qwen2.5-72b",
      concurrency=20, context=8192, region="cn", currency="CNY", extra={"candidates": ("h20", "l20", "rtx-4090d")}),
    # --- 中文：租用 ---
    Q("租卡给 20 人跑 Qwen2.5-7B 划算吗？", "qwen2.5-7b", concurrency=20, context=8192, region="cn", currency="CNY",
      extra={"buy_or_rent": "rent"}),
    Q("租 GPU 做 Qwen2.5-14B 的 LoRA 微调。", "qwen2.5-14b", task="lora", context=4096, region="cn",
      currency="CNY", extra={"buy_or_rent": "rent"}),
    Q("租卡部署 Qwen2.5-72B 给 30 人。", "qwen2.5-72b", concurrency=30, context=8192, region="cn", currency="CNY",
      extra={"buy_or_rent": "rent"}),
    # --- the 2025–26 cards, now priced (RTX PRO 6000 Blackwell, B300, Gaudi 3, Ascend 910B/910C, Atlas 300I Duo) ---
    Q("Serve Qwen2.5-72B to 50 users with 8k context.", "qwen2.5-72b", concurrency=50, context=8192),
    Q("Serve DeepSeek-V3 to 20 users, 8k context — what do we buy?", "deepseek-v3", concurrency=20, context=8192),
    Q("QLoRA fine-tune Qwen2.5-72B on a single workstation.", "qwen2.5-72b", task="qlora", context=4096),
    Q("在海外机房给 10 个用户部署 Llama-3.1-70B，8k 上下文，用美元报价。", "llama-3.1-70b", concurrency=10,
      context=8192),
    Q("国内 LoRA 微调 Qwen2.5-32B，买什么卡？", "qwen2.5-32b", task="lora", context=4096, region="cn",
      currency="CNY"),
    Q("国内部署 Qwen2.5-72B 给 50 人用，8k 上下文。", "qwen2.5-72b", concurrency=50, context=8192, region="cn",
      currency="CNY"),
]

# stacks vLLM and SGLang support in their own tree (vLLM's supported-hardware page: CUDA and ROCm in tree; Gaudi
# through vllm-gaudi, Ascend through vllm-ascend; Apple Metal has no vLLM backend); in mainland China CANN is the
# mainstream stack, and a Mac is a normal choice for one user's local inference
IN_TREE = {"cuda", "rocm"}
STACK_MARGIN = 0.30  # the stated preference: another stack leads only when ≥ 30 % cheaper over the horizon


def _zh(q: Q) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in q.text)


def test_the_set_is_forty_questions_half_chinese() -> None:
    assert len(QUESTIONS) >= 40
    assert sum(_zh(q) for q in QUESTIONS) * 2 >= len(QUESTIONS)


def _second_hand(o, gpu) -> bool:
    return (gpu.availability != "sold" or gpu.modded or (o.price is not None and o.price.condition == "used")
            or bool(o.price is not None and o.price.end_of_life))


def _spread(o) -> bool:
    return o.nodes > 1 and load_catalog().gpu(o.gpu).segment in ("consumer", "workstation")


def _speed(o) -> float:
    return -float(o.training.wall.s) if o.training else float(o.throughput.decode_tokens_per_s_total)


def _money(o) -> float:
    return o.tco.tco.amount if o.tco is not None else float(total_price(o) or 0.0)


def _check_lead(q: Q, rec: Recommendation) -> None:
    cat = load_catalog()
    lead = rec.options[0]
    gpu = cat.gpu(lead.gpu)
    if q.existing:
        assert "existing" in lead.labels and lead.gpu == cat.gpu(q.existing[0]).id
        return
    assert "recommended" in lead.labels
    assert lead.fits and lead.meets_targets
    if q.condition != "used":
        assert not _second_hand(lead, gpu), f"{q.text}: lead {lead.gpu_name} is second-hand"
    assert gpu.interface == "pcie" or lead.count // lead.nodes in (4, 8), f"{q.text}: bare {gpu.interface} modules"
    if q.region == "cn":
        assert gpu.china.status not in CN_NO_NEW_SALE, f"{q.text}: {gpu.name} is {gpu.china.status} in China"
    else:
        assert not gpu.china.built_for_china
    if q.task != "inference":
        assert not gpu.inference_only, f"{q.text}: {gpu.name} is an inference card"
    if "candidates" not in q.extra:
        _check_stack(q, rec)
    buy = total_price(lead)
    assert buy, f"{q.text}: the lead has no price"
    if q.budget is not None:
        assert buy <= q.budget
        servers = lead.tco.purchase.rest_of_system if lead.tco is not None else None
        assert servers and servers.amount > 0, "the budget is checked at full system cost, servers included"
    if (q.task == "inference" and "max_ms_per_token" not in q.extra and q.extra.get("buy_or_rent") != "rent"
            and "candidates" not in q.extra):  # named cards are compared as named, with no default target
        # reachable by a configuration that could lead: priced, new, sold in the region (an unpriced card that is
        # fast enough — Ascend 910C in China — cannot be recommended, so it does not keep the target)
        reachable = any(o.throughput and o.throughput.judged_tpot.ms <= TPOT_MS and total_price(o)
                        and not _second_hand(o, cat.gpu(o.gpu))
                        and (q.region != "cn" or cat.gpu(o.gpu).china.status not in CN_NO_NEW_SALE)
                        for o in rec.options + rec.closest)
        if reachable:
            assert lead.throughput.judged_tpot.ms <= TPOT_MS, f"{q.text}: lead below 25 tokens/s per user"
        stated = " ".join(rec.assumptions)
        assert "25 tokens/s" in stated and "MLPerf" in stated


def _mainstream(q: Q, stack: str) -> bool:
    return (stack in IN_TREE or (stack == "cann" and q.region == "cn")
            or (stack == "metal" and q.task == "inference" and q.concurrency <= 1))


def _check_stack(q: Q, rec: Recommendation) -> None:
    """A lead on a less mainstream stack is at least STACK_MARGIN cheaper over the horizon than every offered
    mainstream option that meets the targets, and the answer says so."""
    cat = load_catalog()
    lead = rec.options[0]
    if "existing" in lead.labels or _mainstream(q, cat.gpu(lead.gpu).stack):
        return
    rivals = [o for o in rec.options if o.meets_targets and total_price(o) and not _second_hand(o, cat.gpu(o.gpu))
              and _mainstream(q, cat.gpu(o.gpu).stack) and not _spread(o)]
    assert all(_money(lead) <= (1 - STACK_MARGIN) * _money(o) for o in rivals), \
        f"{q.text}: {lead.gpu_name} leads on {cat.gpu(lead.gpu).stack} without a {STACK_MARGIN:.0%} saving"
    assert any("software stack" in a for a in rec.assumptions) and any("软件栈" in a for a in rec.assumptions_zh)


def _check_labels(q: Q, rec: Recommendation) -> None:
    cat = load_catalog()
    rows = rec.options
    bought = [o for o in rows if "existing" not in o.labels and total_price(o)]
    for o in rows:
        gpu = cat.gpu(o.gpu)
        if "existing" not in o.labels:
            assert ("used" in o.labels) == _second_hand(o, gpu), f"{o.gpu_name}: 'used' label wrong"
        if "lowest_cost" in o.labels:
            assert all(total_price(o) <= total_price(p) for p in bought), f"{o.gpu_name} is not the cheapest to buy"
        if "best_performance" in o.labels:
            assert all(_speed(o) >= _speed(p) for p in rows if p.meets_targets)
        if "best_value" in o.labels:  # rows near their memory limit or spread over servers are compared apart
            roomy = [p for p in bought if not p.near_capacity and not _spread(p)]
            assert not any(_money(p) < _money(o) and _speed(p) > _speed(o) for p in roomy), \
                f"{o.gpu_name}: another row with room is both cheaper and faster"
    assert sum("recommended" in o.labels for o in rows) <= 1


def _check_first_line(q: Q, rec: Recommendation) -> None:
    lead = rec.options[0]
    line = rec.lead_summary("zh" if _zh(q) else "en")
    sym = "¥" if q.currency == "CNY" else "$"
    assert line.startswith(f"{lead.count}× {lead.gpu_name}")
    if q.existing:
        assert ("已有" if _zh(q) else "already owned") in line
        assert ("无需购买" if _zh(q) else "nothing to buy") in line
        assert f"{sym}{lead.tco.tco.amount:,.0f}" in line
        return
    buy = total_price(lead)
    assert buy is not None and f"{sym}{buy:,.0f}" in line
    assert f"{sym}{lead.tco.tco.amount:,.0f}" in line
    assert ("服务器" if _zh(q) else "server") in line


@pytest.mark.parametrize("q", QUESTIONS, ids=[f"q{i:02d}" for i in range(len(QUESTIONS))])
def test_buyer_question(q: Q) -> None:
    w, c = q.request()
    rec = recommend(w, c)
    assert rec.options, f"{q.text}: no option"
    _check_lead(q, rec)
    _check_labels(q, rec)
    _check_first_line(q, rec)


def test_the_stack_preference_is_stated_and_named_cards_skip_it() -> None:
    """Qwen2.5-72B for 64 users at 8k: 4× Gaudi 3 is cheaper over the horizon than the in-tree lead but by less than
    30 %, so the in-tree card leads and the answer names the cheaper Gaudi configuration and the gap; asked about
    Gaudi 3 and H200 by name, no preference is stated. In one server: over two, 16× RTX 5090 as 2 replicas × TP 8
    also meets the per-token target and is the cheapest purchase, so the stale-priced Gaudi 3 falls out of the
    shortlist. (At 50 users, since the target is judged on the simulated chat load the answer shows, 8× RTX PRO
    6000 meet it and are cheaper than the Gaudi 3: no preference to state there.)"""
    cat = load_catalog()
    w = Workload(model="qwen2.5-72b", concurrency=64, context=8192)
    rec = recommend(w, Constraints(max_nodes=1))
    lead = rec.options[0]
    gaudi = [o for o in rec.options if o.gpu == "gaudi3" and o.meets_targets]
    assert cat.gpu(lead.gpu).stack in IN_TREE and gaudi
    cheaper = min(gaudi, key=_money)
    gap = 1 - _money(cheaper) / _money(lead)
    assert 0 < gap < STACK_MARGIN
    said = next(a for a in rec.assumptions if "software stack" in a)
    assert cheaper.gpu_name in said and f"{gap:.0%}" in said and lead.gpu_name in said
    assert any(cheaper.gpu_name in a and f"{gap:.0%}" in a for a in rec.assumptions_zh)
    named = recommend(w, Constraints(candidates=("gaudi3", "h200-sxm")))
    # named cards skip the stack preference; since the price-freshness policy (Dec 5) the Gaudi 3, priced from its
    # 2024-06 launch MSRP, ranks behind the H200's 2026 price whatever the stack
    named_gaudi = next(o for o in named.options if o.gpu == "gaudi3")
    assert stale_price(named_gaudi) and not stale_price(named.options[0]) and named.options[0].gpu == "h200-sxm"
    assert not any("software stack" in a for a in named.assumptions)

