"""Answers read as the person who asked them would (2026-12-05): what was asked is what is answered.

* A prompt length said without an answer length ("8k prompts", "8k 的 prompt") is a chat request with that prompt:
  its answer is a chat turn's (advisor.workload.CHAT_OUTPUT_TOKENS, ShareGPT's mean) and the context holds both.
  Before, the context was the prompt alone, so each request had 1 token of answer and the load was all prefill:
  "TTFT for 8k prompts, Llama 3.1 8B, one A100, 16 users" came out at 11.0 s, and the Chinese phrasing was not read.
* A card the person named, asked whether it runs the job or how fast, is not "ruled out" by a market rule alone
  (an export-restricted card in China that they use or can get): the rule is said as a note. Asked how many cards to
  buy, the exclusion stays (tests/test_review_regressions.py::test_named_card_blocked_in_china_is_still_sized).
* "How many … and how fast" says the cards and their memory once; a comparison's verdict gives the speeds its table
  shows; a named card too small is answered with its larger memory size when that holds the job; "国产卡" searches
  the cards made in China; call-centre seats are people; a rental is priced at the provider named.

Real catalog, reader, estimator, simulator, rules and deterministic dialog; no network.
"""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from advisor.workload import CHAT_OUTPUT_TOKENS
from knowledge.catalog import load_catalog

CAT = load_catalog()


def _turn(text: str, lang: str | None = None):
    conv = Conversation(driver="deterministic", lang=lang) if lang else Conversation(driver="deterministic")
    return conv.respond(text)


def _job(turn) -> dict:
    return {v["name"]: v for v in turn.extra["request"]["job"]}


@pytest.mark.parametrize(("text", "lang", "prompt", "output"), [
    ("8k 的 prompt，Llama 3.1 8B 单卡 A100，16 路并发，首 token 延迟多少", "zh", 8000, None),
    ("Qwen2.5-7B 用一张 4090，4k 输入 1k 输出，8 个人同时用，速度怎么样", "zh", 4000, 1000),
    ("2k 的输入，Qwen2.5-7B 在 L40S 上能跑多快", "zh", 2000, None),
    ("Llama 3.1 8B on an L4 with 8k prompts for 4 users: how fast?", "en", 8000, None),
    ("serve Qwen2.5-7B with 1.5k-token prompts and 300-token answers on one 4090", "en", 1500, 300),
])
def test_prompt_and_answer_lengths_are_read_in_both_languages(text, lang, prompt, output):
    s = extract(text.lower(), CAT, lang=lang)
    assert (s.prompt_tokens, s.output_tokens) == (prompt, output)


@pytest.mark.parametrize("text", ["4090 的输入带宽够跑 Qwen2.5-7B 吗", "两张 3090 输入输出都是 bf16 吗"])
def test_a_card_number_before_an_input_word_is_not_a_prompt(text):
    assert extract(text.lower(), CAT, lang="zh").prompt_tokens is None


@pytest.mark.parametrize(("text", "lang"), [
    ("what's the time to first token for 8k prompts on Llama 3.1 8B with one A100 at 16 concurrent requests?", "en"),
    ("8k 的 prompt，Llama 3.1 8B 单卡 A100，16 路并发，首 token 延迟多少", "zh"),
])
def test_a_stated_prompt_gets_a_chat_answer_and_a_context_that_holds_both(text, lang):
    turn = _turn(text, lang)
    job = _job(turn)
    assert job["prompt_tokens"]["value"] == 8000 and job["prompt_tokens"]["provenance"] == "stated"
    # the context holds the prompt and a chat turn's answer, and says it was inferred from what was said
    assert job["context"]["value"] == 8000 + CHAT_OUTPUT_TOKENS
    assert job["context"]["provenance"] == "inferred"
    said = f"answers of {CHAT_OUTPUT_TOKENS} tokens" if lang == "en" else f"每次回答 {CHAT_OUTPUT_TOKENS} tokens"
    assert said in turn.answer, turn.answer[:800]
    # the first token: a prompt of 8000 tokens on an A100 (312 TFLOP/s dense BF16) takes at least
    # 2 × 8e9 × 8000 / 312e12 = 0.41 s alone; with 16 users sharing the engine it is more, but far below the 11 s
    # an all-prefill load (1-token answers) gave
    lead = turn.answer.split("\n")[0]
    assert "8000 tokens" in lead
    ttft = next(n for n in turn.numbers if n.name.startswith("median time to first token"))
    assert ttft.unit == "ms" and 410 < ttft.value < 5000, ttft


@pytest.mark.parametrize(("text", "lang", "note"), [
    ("Can I run Qwen2.5-14B on two RTX 4090 in China?", "en", "(but: RTX 4090 restricted in China)"),
    ("在国内用两张 4090 跑 Qwen2.5-14B 可以吗", "zh", "（但注意：RTX 4090 在国内受限）"),
    ("8k 的 prompt，Llama 3.1 8B 单卡 A100，16 路并发，首 token 延迟多少", "zh", "（但注意：对华出口受限"),
])
def test_a_named_card_a_market_rule_blocks_is_answered_with_a_note(text, lang, note):
    lead = _turn(text, lang).answer.split("\n")[0]
    assert note in lead, lead
    assert "ruled out" not in lead and "被规则排除" not in lead, lead


@pytest.mark.parametrize(("text", "lang", "usable", "speed"), [
    ("We want to host Llama 3.1 70B for about 50 people chatting at once on H100s. How fast will it feel?", "en",
     "GiB usable", "On them, about"),
    ("50 个人同时聊天，用 H100 部署 Llama 3.1 70B，需要几张，速度怎么样", "zh", "可用", "这样部署约"),
])
def test_how_many_and_how_fast_names_the_cards_and_their_memory_once(text, lang, usable, speed):
    """The count first, then the speed on those cards: the cards, layout and memory are not said a second time in
    the same paragraph (they were: "…51.0 GiB per GPU of 72.0 GiB usable (TP 4, vLLM)… on 4× H100 (TP 4, vLLM)…:
    51.0 GiB needed per GPU of 72.0 GiB usable")."""
    lead = _turn(text, lang).answer.split("\n")[0]
    assert lead.count(usable) == 1 and lead.count("TP 4") == 1, lead
    assert speed in lead and "tokens/s" in lead.split(speed)[1], lead


@pytest.mark.parametrize(("text", "lang"), [
    ("Compare H200 and B200 for serving Llama 3.1 405B FP8 to 100 users", "en"),
    ("A100 or L40S for Qwen2.5-32B with 40 concurrent users — which is faster?", "en"),
    ("H20 和 L20 跑 Qwen2.5-72B，同时 50 路并发，哪个更快", "zh"),
])
def test_a_comparison_verdict_gives_the_speeds_its_table_shows(text, lang):
    """"A or B?" under a stated load: the verdict's per-user speeds are the rows' (the simulation at that load),
    not the steady-state roofline beside them (which said "25 against 23 tokens/s" over rows of 23 and 19)."""
    import re

    turn = _turn(text, lang)
    lead = turn.answer.split("\n")[0]
    said = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) tokens/s", lead)][:2]
    # the rows of the configurations compared (the named cards; at one count when the speed is what is compared)
    shown = {float(round(o["throughput"]["under_load"]["per_user_tokens_per_s"])) for o in turn.options
             if o.get("fits") and (o.get("throughput") or {}).get("under_load") and "candidate" in (o.get("labels") or [])}
    assert len(said) == 2 and len(shown) >= 2, (lead, shown)
    assert set(said) <= shown, (lead, shown)


def test_memory_twins_are_the_same_card_in_larger_sizes():
    """The catalog's other memory sizes of one card, by id with memory and form-factor words left out."""
    twins = {g: [x.id for x in CAT.memory_twins(g)] for g in ("mac-studio-m3-ultra-96g", "a100-40g-pcie", "rtx-6000-ada",
                                                               "h100-sxm", "rtx-4060", "mac-studio-m3-ultra-512g")}
    assert twins["mac-studio-m3-ultra-96g"] == ["mac-studio-m3-ultra-256g", "mac-studio-m3-ultra-512g"]
    assert set(twins["a100-40g-pcie"]) == {"a100-80g-pcie", "a100-80g-sxm"}
    assert twins["rtx-6000-ada"] == []  # the RTX PRO 6000 Blackwell is another card, not a larger RTX 6000 Ada
    assert twins["h100-sxm"] == ["h100-nvl"]  # 94 GB
    assert twins["rtx-4060"] == []  # the 4060 Ti 16GB is another card
    assert twins["mac-studio-m3-ultra-512g"] == []


@pytest.mark.parametrize(("text", "lang", "twin", "said"), [
    # DeepSeek-V3 at Q4_K_M: 671 B parameters × ~4.8 bits ≈ 375 GiB of weights; the 96 GB machine lends its GPU
    # 72 GiB, the 512 GB one 384 GiB (macOS's default GPU share, catalog)
    ("Can a Mac Studio M3 Ultra run DeepSeek-V3 at Q4?", "en", "Mac Studio M3 Ultra 512GB",
     "The same card with more memory, 1× Apple Mac Studio M3 Ultra 512GB"),
    # 70B at FP16 over two cards: 2 × 70.6e9 / 2 bytes ≈ 65.7 GiB of weights per card, over a 40 GB card's 36 GiB
    # usable and under an 80 GB card's 72 GiB
    ("Will Llama 3.1 70B in FP16 fit on 2 A100 40GB?", "en", "A100 80GB", "The same card with more memory, 2× NVIDIA A100 80GB"),
    ("两张 A100 40G 能跑 Llama 3.1 70B FP16 吗", "zh", "A100 80GB", "同款更大显存的 2× NVIDIA A100 80GB"),
])
def test_a_named_card_too_small_is_answered_with_its_larger_size_when_that_holds_the_job(text, lang, twin, said):
    lead = _turn(text, lang).answer.split("\n")[0]
    assert lead.startswith("**No**" if lang == "en" and "Mac" in text else "**") and said in lead, lead
    assert lead.index(said) > lead.index("GiB"), lead  # after the verdict on the card as named


def test_no_larger_size_is_offered_when_none_holds_the_job():
    """Llama 3.1 405B at BF16 (≈ 756 GiB of weights) fits no A100 size on two cards: nothing about a larger size."""
    lead = _turn("Will Llama 3.1 405B fit on 2 A100 40GB?", "en").answer.split("\n")[0]
    assert "more memory" not in lead, lead


@pytest.mark.parametrize(("text", "lang", "concurrency", "headcount"), [
    ("我想用 Qwen3-32B 做客服机器人，100 个坐席同时用", "zh", 100, None),  # seats in use at once: a load
    ("客服中心 300 个座席，部署 Qwen2.5-72B", "zh", None, 300),  # seats: people, a share of them at once
])
def test_call_centre_seats_are_people(text, lang, concurrency, headcount):
    s = extract(text.lower(), CAT, lang=lang)
    assert (s.concurrency, s.headcount) == (concurrency, headcount)


@pytest.mark.parametrize(("turns", "lang"), [
    (["我想用 Qwen3-32B 做客服机器人，100 个坐席同时用", "用国产卡呢"], "zh"),
    (["Serve DeepSeek-R1 to 30 users on domestic Chinese accelerators"], "en"),
    (["Qwen2.5-72B 推理，20 路并发，要求信创，国产化替代方案"], "zh"),
])
def test_cards_made_in_china_asked_for_are_the_only_ones_searched(turns, lang):
    """"用国产卡呢" after a recommendation of RTX 5090 D cards gave the same answer again; now only the catalog's
    cards made in China (Huawei Ascend, Atlas) are searched, and the assumption says so."""
    conv = Conversation(driver="deterministic", lang=lang)
    for text in turns:
        turn = conv.respond(text)
    vendors = {CAT.gpu(o["gpu"]).vendor for o in turn.options}
    assert vendors == {"Huawei"}, [o["gpu"] for o in turn.options]
    said = "只考虑国产卡（Huawei）" if lang == "zh" else "cards made in China only, as you asked (Huawei)"
    assert said in turn.answer, turn.answer[:900]


def test_a_vendor_named_as_domestic_in_another_sense_is_not_read_as_china_made():
    """"the domestic market" is no hardware request; "国产" alone (a region word) keeps every vendor."""
    for text, lang in (("serve llama 3.1 8b for the domestic market, 10 users", "en"), ("国产大模型 Qwen2.5-7B 部署，10 路并发", "zh")):
        assert extract(text, CAT, lang=lang).excluded_vendors == []


@pytest.mark.parametrize(("text", "lang", "first", "unlisted"), [
    ("how much to rent 8 H100s for a week on Lambda?", "en", "at Lambda", False),
    ("rent 4 H100 on Modal per month, cost?", "en", "at Modal", False),
    ("在 AutoDL 上租 2 张 4090 一个月多少钱", "zh", "AutoDL", False),
    ("how much to rent 8 H100s for a week on CoreWeave?", "en", "CoreWeave is not in the price catalog", True),
])
def test_a_rental_priced_at_the_provider_named(text, lang, first, unlisted):
    """"…on Lambda?" was priced at the cheapest quote (RunPod) without a word about Lambda; now the named provider's
    dated quote leads, and a provider the catalog has no quote from is said so before the others."""
    answer = _turn(text, lang).answer
    head = answer.split("\n")[0]
    assert first in head, head
    if not unlisted:
        others = [p for p in ("RunPod", "Lambda", "Modal", "恒源云") if p not in first]
        assert all(head.find(first) < head.find(p) or p not in head for p in others), head


@pytest.mark.parametrize(("text", "lang", "budget", "currency"), [
    ("预算 5 万刀，部署 Qwen2.5-72B", "zh", 50_000, "USD"),  # 刀: dollars (was read as ¥50,000)
    ("500k yuan budget for Qwen2.5-72B", "en", 500_000, "CNY"),  # (was not read)
    ("budget 50k bucks, serve Llama 3.1 70B", "en", 50_000, "USD"),
    ("两块显卡，预算 2 万", "zh", 20_000, "CNY"),  # 两块显卡: two cards, not ¥2
    ("刀片服务器 8 台，预算 100 万", "zh", 1_000_000, "CNY"),  # 刀片: blades, not dollars
])
def test_budget_currency_words_are_the_rental_reader_s(text, lang, budget, currency):
    """One list of currency words for budgets and rental prices (reader.numbers.USD_WORDS / CNY_WORDS)."""
    s = extract(text.lower(), CAT, lang=lang)
    assert (s.budget, s.currency) == (budget, currency)


# rental prices per day, week or month: the hourly price is the amount over the period's hours (a month: 8760 / 12 =
# 730 h; a week 168 h; a day 24 h), computed here by hand
@pytest.mark.parametrize(("text", "lang", "per_gpu_hour", "currency"), [
    ("we rent H100s at $1,500 per GPU per month, buy or keep renting for Llama 3.1 70B?", "en", 1500 / 730, "USD"),
    ("4090 月租 2000 元，买还是租划算", "zh", 2000 / 730, "CNY"),
    ("每天 60 块租 4090 划算吗", "zh", 60 / 24, "CNY"),
    ("Lambda charges $90 per day for an A100; serve Qwen2.5-32B", "en", 90 / 24, "USD"),
    ("renting at $400 a week per GPU for our L40S fleet", "en", 400 / 168, "USD"),
    ("租一台 8 卡 H100 服务器 月租 12 万，跑 DeepSeek-R1", "zh", 120_000 / 730 / 8, "CNY"),  # the server's price / 8
    ("renting 8 H100s at $1.5k per GPU a month, should we buy?", "en", 1500 / 730, "USD"),
])
def test_a_rental_price_per_day_week_or_month_is_read_per_gpu_hour(text, lang, per_gpu_hour, currency):
    r = extract(text.lower(), CAT, lang=lang).rent_rate
    assert r is not None and r.currency == currency and r.amount == pytest.approx(per_gpu_hour, rel=1e-6), r


@pytest.mark.parametrize(("text", "lang"), [
    ("we spend $20,000 a month on the OpenAI API, would buying H100s be cheaper?", "en"),  # an API bill
    ("budget $3,000 a month for renting GPUs for Llama 3.1 8B", "en"),  # a budget
    ("预算每月 2 万，租卡跑 Qwen2.5-72B", "zh"),
    ("we process 5,000 documents a day with Llama 3.1 8B on one A100", "en"),  # no price at all
    ("电费每月 3000 元，自己买 4 张 4090 划算吗", "zh"),  # a power bill
])
def test_a_monthly_amount_that_is_no_rental_price_is_not_read_as_one(text, lang):
    assert extract(text.lower(), CAT, lang=lang).rent_rate is None


def test_the_answer_says_how_a_monthly_price_became_an_hourly_one():
    answer = _turn("we rent H100s at $1,500 per GPU per month for Llama 3.1 70B serving. Buy or keep renting?",
                   "en").answer
    assert answer.startswith("**At your $2.05 (your price per month ÷ 730 hours) per GPU-hour"), answer[:300]


def test_the_recommend_tool_takes_the_person_s_rental_price():
    """The LLM agent's and MCP's recommend tool carries a stated rental price as the dialog does (Constraints.rent):
    renting the same GPU-hours is priced at it — 4 cards × 8760 h × 3 years × $1.20 = $126,144 — where the catalog's
    cheapest dated quote is used otherwise; a price ≤ 0 is refused in one line."""
    from advisor.conversation.tools.registry import call_tool

    base = {"model": "llama-3.1-70b", "concurrency": 20, "candidates": ["h100-sxm"], "top": 1}
    mine = call_tool("recommend", {**base, "rent_per_gpu_hour": 1.2, "rent_provider": "Lambda"})
    listed = call_tool("recommend", base)
    row = mine.data["options"][0]
    assert row["count"] == 4
    rent = next(n for n in row["numbers"] if n.startswith("renting the same GPU-hours"))
    assert "(your stated price): $126,144" in rent, rent
    assert "your stated price" not in " ".join(listed.data["options"][0]["numbers"])
    bad = call_tool("recommend", {**base, "rent_per_gpu_hour": -1})
    assert not bad.ok and "rent_per_gpu_hour" in str(bad.error) and "\n" not in str(bad.error)


@pytest.mark.parametrize(("text", "lang"), [
    ("4090 月租 2000 元，跑 Qwen2.5-14B，买还是租划算", "zh"),
    ("在国内用两张 4090 跑 Qwen2.5-14B 可以吗", "zh"),
    ("50 个人同时聊天，用 H100 部署 Llama 3.1 70B，需要几张，速度怎么样", "zh"),
    ("文章说 70B 4bit 只要 28GB 显存，对吗", "zh"),
    ("we rent H100s at $1,500 per GPU per month for Llama 3.1 70B serving. Buy or keep renting?", "en"),
])
def test_bold_renders_as_bold_in_the_chat(text, lang):
    """CommonMark closes ** only when it is "right-flanking": after punctuation ("。**") it must be followed by a space
    or punctuation, so "…每月 ¥4,000。**下面…" showed its asterisks in the web chat (seen in a phone screenshot). The
    answer rendered by markdown-it (the CommonMark parser Gradio's chat uses) keeps no literal ** in its text."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").render(_turn(text, lang).answer.split("<details>")[0])
    assert "**" not in html, html[:600]


@pytest.mark.parametrize(("text", "home"), [
    ("想在本地跑 Qwen2.5-14B，一张 3060 12G 够吗", True),  # a person's own machine: the GGUF file people run
    ("我有一张 4090，想本地跑 DeepSeek-R1-Distill-Qwen-32B，行吗", True),
    ("公司想本地部署 DeepSeek-R1，200 人用", False),  # on-premises for a company is not a home machine
])
def test_running_it_locally_is_a_home_machine(text, home):
    assert bool(extract(text.lower(), CAT, lang="zh").home) is home


@pytest.mark.parametrize(("text", "lang", "opens"), [
    ("Do I need InfiniBand for 4 nodes of H100 pre-training a 70B model on 200B tokens?", "en",
     "over one 100 Gb/s Ethernet port per server it would take"),
    ("4 台 H100 服务器预训练 70B，需要 IB 网络吗", "zh", "每台服务器只有一个 100 Gb/s 以太网口时要"),
    ("Pre-training Llama 3.1 8B on 1T tokens with 64 H100 — is 100GbE between the servers enough?", "en",
     "over one 100 Gb/s Ethernet port per server it would take"),
    ("full fine-tune Qwen2.5-7B on 2 H100, do I need InfiniBand?", "en", "**No: 2× NVIDIA H100 SXM5 80GB is one server**"),
])
def test_a_network_question_is_answered_first(text, lang, opens):
    """"Do I need InfiniBand?" opened with "Yes: 32× H100 fits" before; now with the run over one 100 GbE port per
    server against the network assumed, from the same estimator (advisor.analysis.fabric)."""
    turn = _turn(text, lang)
    assert opens in turn.answer.split("\n")[0], turn.answer[:400]


def test_a_slower_network_never_shortens_a_run():
    """Property: with every server's network cut to 100 GbE the estimator's run is never shorter (the planner
    re-plans for it, so it can only lose what the faster network bought); data parallelism across 8 servers loses
    more than pipeline stages across 4."""
    from advisor.analysis.fabric import fabric_need
    from advisor.recommend.recommender import recommend
    from advisor.workload import Constraints, Workload

    slowdowns = {}
    for model, tokens, nodes in (("llama-3.1-70b", 2e11, 4), ("llama-3.1-8b", 1e12, 8), ("qwen2.5-7b", 3e11, 2)):
        w = Workload(model=model, task="pretrain", train_tokens=tokens)
        o = recommend(w, Constraints(candidates=("h100-sxm",), max_gpus_per_node=8, max_nodes=nodes,
                                     deadline_s=3650 * 86400)).options[0]
        need = fabric_need(CAT.model(model), CAT.gpu("h100-sxm"), o, w)
        assert need is not None and need.ethernet_wall_s >= need.wall_s * 0.999, (model, need)
        slowdowns[model] = need.slowdown
    # 64 H100 for an 8B model: data parallelism across 8 servers moves the gradients through the network every step
    from advisor.recommend.recommender import evaluate_configs

    w = Workload(model="llama-3.1-8b", task="pretrain", train_tokens=1e12)
    wide = evaluate_configs(w, [("h100-sxm", 64)], Constraints(max_gpus_per_node=8, max_nodes=8))[0]
    need = fabric_need(CAT.model("llama-3.1-8b"), CAT.gpu("h100-sxm"), wide, w)
    assert need is not None and need.nodes == 8 and need.slowdown > 1.05, need


@pytest.mark.parametrize(("text", "lang", "said"), [
    # Llama 3.1 8B (config.json: 32 layers, 8 KV heads of 128): 2 × 8 × 128 × 2 bytes = 4 KiB a layer, × 32 = 128 KiB
    ("How much KV cache does Llama 3.1 8B use per token?", "en", "**Llama-3.1-8B caches 128 KiB of KV per token**"),
    # Qwen2.5-72B (80 layers, 8 KV heads of 128): 4 KiB × 80 = 320 KiB; 4096 tokens × 320 KiB = 1.25 GiB
    ("Qwen2.5-72B 每个 token 的 KV 缓存多大", "zh", "**Qwen2.5-72B 每个 token 的 KV 缓存为 320 KiB**"),
    # DeepSeek-V3 (MLA, 61 layers): (512 latent + 64 rope) × 2 bytes = 1,152 B a layer, × 61 = 68.6 KiB
    ("what's the KV cache size for one token of DeepSeek-V3?", "en", "**DeepSeek-V3 caches 68.6 KiB of KV per token**"),
    # an FP8 cache: 1 byte an element, 2 KiB a layer × 80 layers = 160 KiB (asked beside a format, not a comparison)
    ("Llama 3.1 70B with an FP8 KV cache: bytes per token of KV?", "en", "**Llama-3.1-70B caches 160 KiB of KV per token**"),
])
def test_kv_cache_per_token_is_answered_first(text, lang, said):
    """It was answered with "I recommend 2× RTX 5060 Ti …"; the values are worked out above from the configs."""
    assert _turn(text, lang).answer.startswith(said)


@pytest.mark.parametrize(("text", "concurrency", "headcount"), [
    ("40 support agents using Qwen2.5-32B at once, what GPUs?", 40, None),
    ("25 call-center operators at the same time on Llama 3.1 8B", 25, None),
    ("we have 30 software engineers, serve Qwen2.5-Coder-32B", None, 30),
    ("train on 8 A100 GPUs for 3 epochs", None, None),
])
def test_people_named_by_their_role(text, concurrency, headcount):
    s = extract(text.lower(), CAT, lang="en")
    assert (s.concurrency, s.headcount) == (concurrency, headcount)


@pytest.mark.parametrize(("text", "lang", "opens"), [
    ("How many tokens per day can 1 H100 generate with Llama 3.1 8B?", "en", "**About "),
    ("what's the daily output of 8x H200 serving Llama 3.1 70B?", "en", "**About "),
    ("一张 4090 跑 Qwen2.5-7B，一天能生成多少 token", "zh", "**1× GeForce RTX 4090 满负荷全天运行，每天约生成 "),
])
def test_tokens_a_day_is_answered_first(text, lang, opens):
    """"How many tokens a day?" was answered "Yes: it fits … 163 tokens/s per user"; now the output at full load
    around the clock. The day's tokens are the total tokens/s the sentence gives × 86,400 s (checked here)."""
    import re

    lead = _turn(text, lang).answer.split("\n")[0]
    assert lead.startswith(opens), lead
    tps = float(re.search(r"(\d+) tokens/s", lead).group(1))
    scale = {"M": 1e6, "万": 1e4, "亿": 1e8}
    amount, unit = re.search(r"(\d+(?:\.\d+)?) ?(M|万|亿) tokens", lead).groups()
    assert float(amount) * scale[unit] == pytest.approx(tps * 86_400, rel=0.002), lead


def test_a_daily_volume_stated_is_not_asked():
    """"we need 1M tokens per day" states a volume: the answer sizes for it, and does not open with a capacity."""
    lead = _turn("we need 1M tokens per day with Llama 3.1 8B, what GPU?", "en").answer.split("\n")[0]
    assert "a day** on" not in lead, lead


@pytest.mark.parametrize(("text", "lang", "opens"), [
    ("What is the power draw of 8 H100s running Llama 3.1 70B, and the yearly electricity cost?", "en",
     "**8× NVIDIA H100 SXM5 80GB draws about "),
    ("8 张 4090 跑 Qwen2.5-72B，一年电费多少", "zh", "**8× GeForce RTX 4090 平均约 "),
])
def test_power_and_electricity_are_answered_first(text, lang, opens):
    """It opened with the purchase price. The kW at the wall is the year's kWh over 8760 h, and the GPUs' TDP is
    8 × 700 W for H100 SXM and 8 × 450 W for RTX 4090 (catalog), checked here."""
    import re

    lead = _turn(text, lang).answer.split("\n")[0]
    assert lead.startswith(opens), lead
    kw = float(re.search(r"约? ?(\d+(?:\.\d+)?) kW", lead).group(1))
    kwh = float(re.search(r"(\d[\d,]*) (?:kWh|度电)", lead).group(1).replace(",", ""))
    assert kw == pytest.approx(kwh / 8760, abs=0.05), lead
    assert ("5600 W" if "H100" in text else "3600 W") in lead


def test_a_power_limit_is_no_power_question():
    lead = _turn("serve llama 3.1 70b to 50 users under a 3 kW power limit", "en").answer.split("\n")[0]
    assert "at the wall" not in lead, lead


@pytest.mark.parametrize(("text", "lang", "head", "flags"), [
    ("Qwen2.5-72B AWQ 用 vLLM 部署在 2 张 L20 上，并发 20，启动命令怎么写", "zh", "**启动命令**（2× NVIDIA L20）",
     ("--tensor-parallel-size 2", "--max-num-seqs 20", "--quantization awq")),
    ("What's the vllm serve command for Llama 3.1 70B on 4 H100 with 32 users?", "en",
     "**Launch command** for 4× NVIDIA H100 SXM5 80GB", ("--tensor-parallel-size 4", "--max-num-seqs 32")),
])
def test_a_launch_command_asked_for_leads(text, lang, head, flags):
    """"启动命令怎么写" answered feasibility and kept the command in a closed section; the command now comes first,
    with the configuration's own flags, and the verdict on it follows."""
    answer = _turn(text, lang).answer
    assert answer.startswith(head), answer[:300]
    block = answer.split("```")[1]
    assert block.strip().startswith("vllm serve") and all(f in block for f in flags), block


def test_a_grace_hopper_card_the_catalog_lacks_is_said_unknown_first():
    """"GH200" was silently answered with an RTX PRO 6000 recommendation; a g[bh]NNN name is now a card word."""
    answer = _turn("is the GH200 any good for serving Gemma 3 27B to a dozen folks?", "en").answer
    assert answer.startswith("'GH200' is not a GPU in the catalog"), answer[:200]


@pytest.mark.parametrize(("text", "lang", "vendor"), [
    ("俺们打算整几块昇腾卡跑个 Qwen3-32B，给客服用，一天下来能吐多少 token 啊", "zh", "Huawei"),
    ("用华为的卡部署 DeepSeek-R1，30 人同时用", "zh", "Huawei"),
    ("serve Llama 3.1 70B on AMD GPUs for 20 users", "en", "AMD"),
])
def test_one_vendor_s_cards_asked_for_are_the_only_ones_searched(text, lang, vendor):
    """A vendor named as the kind of card ("整几块昇腾卡", "on AMD GPUs") was ignored (RTX 5090 D again); its cards
    are now the only ones searched, and no unified-memory desktop is proposed unasked (the Ryzen AI Max box was)."""
    turn = _turn(text, lang)
    gpus = [CAT.gpu(o["gpu"]) for o in turn.options]
    assert gpus and {g.vendor for g in gpus} == {vendor} and not any(g.is_machine for g in gpus), [g.id for g in gpus]


def test_a_colloquial_tokens_a_day_question_is_read():
    lead = _turn("俺们打算整几块昇腾卡跑个 Qwen3-32B，给客服用，一天下来能吐多少 token 啊", "zh").answer.split("\n")[0]
    assert "满负荷全天运行，每天约生成" in lead, lead
