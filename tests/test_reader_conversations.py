"""Conversations over every act (half Chinese, a dozen multi-turn), each answer checked against arithmetic done
here from published figures: weights = published parameter count × bytes per weight; KV cache = 2 × layers ×
KV heads × head size × bytes × context × sequences (the models' own config.json values, typed below); rent =
the job's GPU-hours × each provider's dated hourly price; a month of serving = count × 730 h × price."""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.dialog.machine import default_catalog
from advisor.conversation.session import Conversation

# config.json values (num_hidden_layers, num_key_value_heads, head size = hidden_size / num_attention_heads)
SHAPES = {"qwen2.5-7b": (28, 4, 128), "qwen2.5-14b": (48, 8, 128), "qwen2.5-32b": (64, 8, 128),
          "llama-3.1-8b": (32, 8, 128), "llama-3.1-70b": (80, 8, 128), "qwen2.5-72b": (80, 8, 128),
          "mistral-7b": (32, 8, 128)}
BYTES = {"bf16": 2.0, "fp16": 2.0, "fp8": 1.0, "int8": 1.0}

# (id, lang, turns, checks of the last turn)
CONVS: list[tuple[str, str, list[str], dict[str, Any]]] = [
    # feasibility on one card: weights and KV cache from the published shapes
    ("f-en-1", "en", ["Can Qwen2.5-7B run on a single RTX 4090?"],
     {"act": "feasibility", "verdict": "yes", "weights": ("qwen2.5-7b", "bf16"), "kv": ("qwen2.5-7b", 4096, 1)}),
    ("f-en-2", "en", ["Will Llama-3.1-8B fit on one L4 with 8k context?"],
     {"act": "feasibility", "weights": ("llama-3.1-8b", "bf16"), "kv": ("llama-3.1-8b", 8192, 1),
      "user_input": ["context"]}),
    ("f-en-3", "en", ["Is one H100 enough for Qwen2.5-14B with 16 users at 8k context?"],
     {"act": "feasibility", "verdict": "yes", "weights": ("qwen2.5-14b", "bf16"), "kv": ("qwen2.5-14b", 8192, 16),
      "user_input": ["context", "concurrency"]}),
    ("f-en-4", "en", ["Mistral-7B in FP8 on an L40S - does it fit?"],
     {"act": "feasibility", "verdict": "yes", "weights": ("mistral-7b", "fp8")}),
    ("f-en-5", "en", ["Llama-3.1-8B on one RTX 4080 in FP16?"], {"act": "feasibility", "verdict": "with_changes"}),
    ("f-zh-1", "zh", ["一张 4090 能跑 Qwen2.5-7B 吗？"],
     {"act": "feasibility", "verdict": "yes", "weights": ("qwen2.5-7b", "bf16"), "kv": ("qwen2.5-7b", 4096, 1)}),
    ("f-zh-2", "zh", ["单卡 L4 跑 llama-3.1-8b，上下文 8k，放得下吗"],
     {"act": "feasibility", "weights": ("llama-3.1-8b", "bf16"), "kv": ("llama-3.1-8b", 8192, 1),
      "user_input": ["context"]}),
    ("f-zh-3", "zh", ["一张 H100 跑 qwen2.5-14b，16 路并发，8k 上下文，够吗"],
     {"act": "feasibility", "verdict": "yes", "kv": ("qwen2.5-14b", 8192, 16), "user_input": ["context", "concurrency"]}),
    ("f-zh-4", "zh", ["L40S 跑 mistral-7b fp8 可以吗"], {"act": "feasibility", "weights": ("mistral-7b", "fp8")}),
    ("f-zh-5", "zh", ["一张 4080 跑 llama-3.1-8b fp16 行不行"], {"act": "feasibility", "verdict": "with_changes"}),
    ("f-zh-6", "zh", ["上下文三万二，一张 H100 跑 qwen2.5-7b 行吗"],
     {"act": "feasibility", "kv": ("qwen2.5-7b", 32000, 1), "user_input": ["context"]}),
    # which / how many / how much / how long
    ("w-en-1", "en", ["Serve Qwen2.5-72B to 50 users with 8k context"],
     {"act": "which", "user_input": ["context", "concurrency"]}),
    ("w-en-2", "en", ["We need Llama-3.1-70B for a team of 40 engineers, prompts up to 8,000 tokens"],
     {"act": "which", "state": {"headcount": 40, "concurrency": None}}),  # Dec 5: people, 10 % at once
    ("w-en-3", "en", ["Recommend GPUs for Qwen2.5-32B, twenty users, thirty-two thousand tokens of context"],
     {"act": "which", "state": {"concurrency": 20, "context": 32000}}),
    ("w-zh-1", "zh", ["部署 Qwen2.5-72B 给 50 个人用，8k 上下文"], {"act": "which", "user_input": ["context"],
                                                        "first_has": ["中国大陆"]}),
    ("w-zh-2", "zh", ["一万五个用户用 qwen2.5-7b，推荐配置"], {"act": "which", "state": {"concurrency": 15000}}),
    ("w-zh-3", "zh", ["部署 llama-3-8b 给二十个人用，预算两万五"], {"act": "which", "state": {"budget": 25000}}),
    ("n-en-1", "en", ["How many H100s do I need for Llama-3.1-70B with 100 users?"], {"act": "how_many"}),
    ("n-en-2", "en", ["How many GPUs to serve Qwen2.5-72B at 32k context?"], {"act": "how_many"}),
    ("n-zh-1", "zh", ["Qwen2.5-72B 推理要几张 H100？"], {"act": "how_many"}),
    ("n-zh-2", "zh", ["部署 llama-3.1-70b 给 100 人用需要多少张卡"], {"act": "how_many"}),
    ("m-en-1", "en", ["How much would it cost to serve Llama-3.1-70B for 50 users?"], {"act": "how_much"}),
    ("m-zh-1", "zh", ["部署 qwen2.5-72b 给 50 人用大概多少钱"], {"act": "how_much"}),
    ("t-en-1", "en", ["How long to fine-tune Llama-3.1-8B with LoRA on 100M tokens on one A100?"], {"act": "how_long"}),
    ("t-zh-1", "zh", ["LoRA 微调 llama-3.1-8b，一亿 tokens，一张 4090 要几天"], {"act": "how_long"}),
    # compare: both sides named in the first lines
    ("c-en-1", "en", ["Either one H100 or four 4090s for Qwen2.5-32B?"],
     {"act": "compare", "first_has": ["H100", "4090"], "roles": [("h100-sxm", "compared", 1), ("rtx-4090", "compared", 4)]}),
    ("c-en-2", "en", ["L40S vs A6000 for serving Qwen2.5-14B?"], {"act": "compare", "first_has": ["L40S", "A6000"]}),
    ("c-zh-1", "zh", ["一张 H100 还是四张 4090 跑 qwen2.5-32b 好"],
     {"act": "compare", "first_has": ["H100", "4090"], "roles": [("h100-sxm", "compared", 1), ("rtx-4090", "compared", 4)]}),
    ("c-zh-2", "zh", ["L40S 和 A6000 对比一下，部署 qwen2.5-14b"], {"act": "compare", "first_has": ["L40S", "A6000"]}),
    # market and legality: status and date first
    ("k-en-1", "en", ["Can I still buy H100 in China?"], {"act": "market", "market_first": "h100-sxm"}),
    ("k-en-2", "en", ["Is it legal to ship A100s to Shanghai?"], {"act": "legality", "market_first": "a100-80g-sxm"}),
    ("k-zh-1", "zh", ["国内现在还能买 H100 吗？有什么替代？"], {"act": "market", "market_first": "h100-sxm"}),
    ("k-zh-2", "zh", ["在北京采购 A800 合规吗"], {"act": "legality", "market_first": "a800-80g-sxm"}),
    ("k-zh-3", "zh", ["H20 是不是被出口管制了"], {"act": "legality", "market_first": "h20"}),
    # rent: the job's GPU-hours × dated hourly prices first
    ("r-en-1", "en", ["How much to rent H100s to fine-tune Llama-3.1-8B with LoRA on 1B tokens?"],
     {"act": "rent_vs_buy", "rent": True}),
    ("r-en-2", "en", ["Should we rent cloud GPUs or buy for serving Qwen2.5-72B to 50 users?"],
     {"act": "rent_vs_buy", "rent": True}),
    ("r-zh-1", "zh", ["租 H100 微调 llama-3.1-8b 要多少钱，10 亿 tokens，LoRA"], {"act": "rent_vs_buy", "rent": True}),
    ("r-zh-2", "zh", ["部署 qwen2.5-72b，租云服务器划算还是自己买卡划算"], {"act": "rent_vs_buy", "rent": True}),
    # claims
    ("q-en-1", "en", ["The guide says a 70B model in 4-bit only needs 28GB, is that right?"], {"act": "claim"}),
    ("q-zh-1", "zh", ["文章说 70B 模型 4bit 只要 28GB 显存，对吗？"], {"act": "claim"}),
    ("q-en-2", "en", ["I read that the RTX 4090 has 48 GB of memory"], {"act": "claim"}),
    ("q-zh-2", "zh", ["网上说 4090 有 48GB 显存"], {"act": "claim"}),
    # claims that name no guide: the verdict first, with the figure computed from the shapes above
    ("q-en-3", "en", ["a 32k KV cache is only a couple of GB for Llama-3.1-70B, right?"],
     {"act": "claim", "first_starts": "**No**", "kv_first": ("llama-3.1-70b", 32768)}),
    ("q-zh-3", "zh", ["Llama-3.1-70B 32k 上下文的 KV 缓存只要 2GB 左右，对吧？"],
     {"act": "claim", "first_starts": "**不对**", "kv_first": ("llama-3.1-70b", 32768)}),
    ("q-en-4", "en", ["MoE models only need memory for their active experts, right?"],
     {"act": "claim", "first_starts": "**No**"}),
    ("q-zh-4", "zh", ["MoE 模型只需要激活专家的显存，对吗？"], {"act": "claim", "first_starts": "**不对**"}),
    # capability
    ("a-en-1", "en", ["What can you do?"], {"act": "capability"}),
    ("a-zh-1", "zh", ["你能做什么？"], {"act": "capability"}),
    # unknown names first, never a stand-in
    ("u-en-1", "en", ["Gemma 4 31B on a 4090?"], {"unknown_first": "Gemma 4 31B", "no_model": True}),
    ("u-en-2", "en", ["Rubin CPX for Llama-3.1-405B?"], {"unknown_first": "Rubin CPX"}),
    ("u-en-3", "en", ["Can I run DeepSeek-V4 on a single H100 80GB?"], {"unknown_first": "DeepSeek-V4", "no_model": True}),
    ("u-zh-1", "zh", ["华为昇腾 950PR 能跑 Qwen2.5-72B 吗"], {"unknown_first": "昇腾 950PR"}),
    ("u-zh-2", "zh", ["GLM-5.2 推理要几张 H20？"], {"unknown_first": "GLM-5.2", "no_model": True}),
    ("u-zh-3", "zh", ["MiniMax-M3 能在一张 H100 上跑吗"], {"unknown_first": "MiniMax-M3", "no_model": True}),
    # exclusions honoured
    ("x-en-1", "en", ["We can't buy A100, and no 4090 D either. Which GPUs for Llama-3.1-70B serving?"],
     {"act": "which", "not_in_options": ["a100-80g-sxm", "a100-80g-pcie", "rtx-4090d"]}),
    ("x-zh-1", "zh", ["部署 qwen2.5-72b，H100 和 H800 都买不到，推荐什么卡"],
     {"act": "which", "not_in_options": ["h100-sxm", "h800-sxm"]}),
    # multi-turn: what-if changes one thing, explain keeps the job
    ("mt-en-1", "en", ["Serve Qwen2.5-7B for 10 users on one H100", "what if 50 users?"],
     {"act": "what_if", "state": {"concurrency": 50}, "kv": ("qwen2.5-7b", 4096, 50)}),
    ("mt-en-2", "en", ["Serve Qwen2.5-7B for 10 users on one H100", "and with 8k context?"],
     {"act": "what_if", "state": {"concurrency": 10, "context": 8192}, "kv": ("qwen2.5-7b", 8192, 10)}),
    ("mt-en-3", "en", ["Serve Qwen2.5-7B for 10 users on one H100", "why does each extra user cost so much memory?"],
     {"act": "explain", "state": {"concurrency": 10}}),
    ("mt-en-4", "en", ["Serve Llama-3.1-8B for 4 users on one L40S", "what about FP8 instead?"],
     {"act": "what_if", "state": {"concurrency": 4, "weights": "fp8"}, "weights": ("llama-3.1-8b", "fp8")}),
    ("mt-en-5", "en", ["Hi", "Can Qwen2.5-7B run on a single RTX 4090?"], {"act": "feasibility", "verdict": "yes"}),
    ("mt-en-6", "en", ["Serve Qwen2.5-14B for 8 users on one H100", "explain the KV cache number"],
     {"act": "explain", "state": {"concurrency": 8}}),
    # Dec 5: "给 10 个人用" is the people who use it (headcount), sized for 10 % of them at once (ceil: 1, 5)
    ("mt-zh-1", "zh", ["部署 qwen2.5-7b 给 10 个人用，一张 H100", "那换成 50 个人呢"],
     {"act": "what_if", "state": {"headcount": 50}, "kv": ("qwen2.5-7b", 4096, 5)}),
    ("mt-zh-2", "zh", ["部署 qwen2.5-7b 给 10 个人用，一张 H100", "上下文改成 8k 呢"],
     {"act": "what_if", "state": {"headcount": 10, "context": 8192}, "kv": ("qwen2.5-7b", 8192, 1)}),
    ("mt-zh-3", "zh", ["部署 qwen2.5-7b 给 10 个人用，一张 H100", "为什么每多一个用户显存就涨这么多？"],
     {"act": "explain", "state": {"headcount": 10}}),
    ("mt-zh-4", "zh", ["用一张 L40S 给 4 个人部署 llama-3.1-8b", "换成 fp8 呢"],
     {"act": "what_if", "state": {"headcount": 4, "weights": "fp8"}, "weights": ("llama-3.1-8b", "fp8")}),
    ("mt-zh-5", "zh", ["你好", "一张 4090 能跑 Qwen2.5-7B 吗？"], {"act": "feasibility", "verdict": "yes"}),
    ("mt-zh-6", "zh", ["部署 qwen2.5-14b 给 8 个人用，一张 H100", "这个显存是怎么算出来的"],
     {"act": "explain", "state": {"headcount": 8}}),
]

_PUBLISHED = {"qwen2.5-7b": 7.61e9, "qwen2.5-14b": 14.7e9, "llama-3.1-8b": 8.03e9, "mistral-7b": 7.24e9}  # model cards
# input embedding + output head (vocab_size × hidden_size each, untied): kept in BF16 when the rest is FP8/INT8
_EMBED = {"llama-3.1-8b": 2 * 128256 * 4096, "mistral-7b": 2 * 32000 * 4096}


def _first_paragraph(answer: str) -> str:
    return answer.strip().split("\n\n")[0]


def _amounts(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+(?:\.\d+)?)", text)]


def check_rent(turn: Any, req: dict[str, Any]) -> None:
    """The answer opens with the rent-or-buy verdict (or, for a question about renting alone, the rental cost), and
    the rental paragraph, first or second, prices the job's GPU-hours at the dated quotes of a rentable card."""
    catalog = default_catalog()
    paragraphs = turn.answer.strip().split("\n\n")
    assert paragraphs[0].startswith(("**Renting", "**Buying is cheaper", "**租", "**买更便宜")), paragraphs[0]
    first = next(p for p in paragraphs[:2] if p.startswith(("**Renting**", "**租用**")))
    for opt in turn.options:
        card = catalog.find_gpu(opt["gpu"])
        # a China-market version (RTX 4090 D, 5090 D V2) is rented as the card it is cut down from (rent.variant)
        base = card.china.china_variant_of if card is not None and card.china is not None else None
        gpu = card if card is None or card.cloud or not base else catalog.find_gpu(base)
        if gpu is not None and gpu.cloud:
            break
    else:
        pytest.fail("no rentable option")
    hours = opt["throughput"].get("gpu_hours") or opt["count"] * 8760 / 12
    zh = turn.lang == "zh"
    prices = [q.cny_per_hour if zh and q.cny_per_hour else q.usd_per_hour * (7.1287 if zh else 1.0) for q in gpu.cloud]
    expected = [hours * p for p in prices]
    shown = _amounts(first)
    assert any(abs(s - e) <= 0.01 * e + 1 for e in expected for s in shown), (first, expected)


def check_market(turn: Any, gpu_id: str) -> None:
    """Legality and availability first: the catalog's China status and its date in the first sentence."""
    gpu = default_catalog().find_gpu(gpu_id)
    assert gpu is not None and gpu.china is not None
    first = _first_paragraph(turn.answer)
    assert gpu.china.as_of.isoformat() in first or (gpu.china.restricted_since and
                                                           gpu.china.restricted_since.isoformat() in first), first


@pytest.mark.parametrize(("cid", "lang", "turns", "checks"), CONVS, ids=[c[0] for c in CONVS])
def test_conversation(cid: str, lang: str, turns: list[str], checks: dict[str, Any]) -> None:
    conv = Conversation(lang=lang)
    for text in turns:
        turn = conv.respond(text)
    req = turn.extra.get("request") or {}
    if "act" in checks:
        assert req.get("act") == checks["act"], (req.get("act"), turn.answer[:300])
    if "verdict" in checks:
        assert turn.extra.get("answer_verdict") == checks["verdict"], turn.answer[:300]
    mem = turn.memory or {}
    if "weights" in checks:
        model, fmt = checks["weights"]
        assert mem.get("count") == 1, mem
        embed = _EMBED.get(model, 0) if BYTES[fmt] < 2 else 0
        assert mem["weights"] == pytest.approx((_PUBLISHED[model] - embed) * BYTES[fmt] + embed * 2, rel=0.03)
    if "kv" in checks:
        model, ctx, seqs = checks["kv"]
        layers, heads, dim = SHAPES[model]
        assert mem.get("count") == 1, mem
        assert mem["kv_cache"] == pytest.approx(2 * layers * heads * dim * 2 * ctx * seqs, rel=0.001)
    for name in checks.get("user_input", []):
        sources = {n.source for n in turn.numbers if n.name == name}
        assert "user input" in sources and "dialog default" not in sources, (name, sources)
    for slot, value in checks.get("state", {}).items():
        assert getattr(conv.state.slots, slot) == value, (slot, getattr(conv.state.slots, slot))
    for word in checks.get("first_has", []):
        assert word in "\n".join(turn.answer.split("\n\n")[:3]), turn.answer[:400]
    for gpu, role, count in checks.get("roles", []):
        assert any(h["gpu"] == gpu and h["role"] == role and h["count"] == count for h in req["hardware"]), req
    if "first_starts" in checks:
        assert turn.answer.startswith(checks["first_starts"]), turn.answer[:300]
    if "kv_first" in checks:
        model, ctx = checks["kv_first"]
        layers, heads, dim = SHAPES[model]
        gib = 2 * layers * heads * dim * 2 * ctx / 2**30
        assert f"{gib:.1f} GiB" in _first_paragraph(turn.answer), (gib, turn.answer[:300])
    if checks.get("rent"):
        check_rent(turn, req)
    if "market_first" in checks:
        check_market(turn, checks["market_first"])
    if "unknown_first" in checks:
        first_sentence = re.split(r"[.;](?:\s|$)|[。；]", turn.answer.strip(), maxsplit=1)[0]  # not "Qwen3.5"
        assert checks["unknown_first"] in first_sentence, turn.answer[:300]
    if checks.get("no_model"):
        assert conv.state.slots.model is None  # no stand-in model
    for gpu in checks.get("not_in_options", []):
        assert all(o["gpu"] != gpu for o in turn.options), [o["gpu"] for o in turn.options]


def test_the_set_covers_every_act_in_both_languages() -> None:
    acts = {c[3].get("act") for c in CONVS} - {None}
    assert acts >= {"feasibility", "how_many", "how_long", "how_much", "which", "compare", "market", "legality",
                    "rent_vs_buy", "claim", "explain", "what_if", "capability"}
    assert len(CONVS) >= 60 and sum(c[1] == "zh" for c in CONVS) >= 30 and sum(len(c[2]) > 1 for c in CONVS) >= 10
