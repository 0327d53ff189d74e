"""English questions typed the way users type them (units, typos, "2x", "$50k", "for a week", follow-ups): the
first sentence answers the act asked about the model and card named, with the stated numbers read.

Each case checks robust properties, not the wording: the act read, the model and card ids, the job values read
(context, concurrency, weights, training tokens), and what the first sentence must say (a count, a cost per
million tokens, a verdict, a speed). Numbers are checked against hand arithmetic or the catalog's cited figures.
`HELD_OUT` are paraphrases written after the fixes and never used while making them (their pass rate was measured
before and after: 14/40 on main, 38/40 after; the two misses are not here).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()


def ask(*turns: str) -> Any:
    conv = Conversation(driver="deterministic", lang="en")
    turn = None
    for text in turns:
        turn = conv.respond(text)
    return turn


def lead_of(turn: Any) -> str:
    return str(turn.answer).strip().split("\n\n")[0]


def assumed_of(turn: Any) -> str:
    return next((p for p in str(turn.answer).split("\n\n") if p.startswith("_Assumed")), "")


def _money(s: str) -> float:
    return float(s.replace("$", "").replace(",", ""))


def check(turn: Any, act: str | None, model: str | None, gpu: str | None, job: dict[str, Any], lead_rx: str) -> None:
    req = turn.extra.get("request") or {}
    lead = lead_of(turn)
    if act is not None:
        assert req.get("act") == act, (req.get("act"), lead)
    ids = {(s.get("kind"), s.get("id")) for s in req.get("subjects", [])}
    if model is not None:
        assert ("model", model) in ids, ids
    if gpu is not None:
        assert ("gpu", gpu) in ids, ids
    values = {v["name"]: v["value"] for v in req.get("job", [])}
    for name, value in job.items():
        assert values.get(name) == value, (name, values.get(name))
    assert re.search(lead_rx, lead), lead
    assert "not a GPU in the catalog" not in lead or gpu is None, lead


# (turns joined by " || ", act, model, card, job values read, what the first sentence says)
CASES = [
    # a card of the RTX 4070 family is a catalog card now, not an unknown one
    ("can a 4070 ti super run qwen3 14b?", "feasibility", "qwen3-14b", "rtx-4070ti-super", {},
     r"^\*\*(Yes|No|Not as asked)\*\*.*GeForce RTX 4070 Ti SUPER"),
    ("can a rtx 4070 run llama 3.1 8b", "feasibility", "llama-3.1-8b", "rtx-4070", {}, r"GeForce RTX 4070 has"),
    ("qwen3 8b on a 4070 super in int4?", "feasibility", "qwen3-8b", "rtx-4070-super", {"weights": "int4"},
     r"^\*\*Yes: 1× GeForce RTX 4070 SUPER fits"),
    # the cost per token, asked in several ways, leads with the cost per million tokens
    ("whats the token cost of gemma 3 27b on a rtx pro 6000 blackwell", None, "gemma-3-27b",
     "rtx-pro-6000-blackwell", {}, r"^\*\*About \$[\d.,]+ per million output tokens"),
    ("1M tokens a day of Llama 3.3 70B, what does it cost on H100?", None, "llama-3.3-70b", "h100-sxm", {},
     r"^\*\*1\.0 M tokens a day on \d+× NVIDIA H100 .* costs about \$[\d.,]+ a day rented.*per million output tokens"),
    ("$/1M tokens for qwen3 8b on L40S", None, "qwen3-8b", "l40s", {}, r"per million output tokens"),
    # a budget in any spelling is read and said against the purchase
    ("we have $50k, what's the best setup to serve llama 3.3 70b?", "which", "llama-3.3-70b", None, {},
     r"within your \$50,000 budget"),
    ("budget 50 grand for fine-tuning qwen3-32b, what should I buy?", "which", "qwen3-32b", None, {},
     r"within your \$50,000 budget"),
    # "how many?" at the end asks the count of the card named
    ("can MI325X serve llama 4 maverick in fp8, how many?", "how_many", "llama-4-maverick", "mi325x",
     {"weights": "fp8"}, r"^You need \d+× AMD Instinct MI325X"),
    ("llama 3.1 70b on H100s, how many would I need?", "how_many", "llama-3.1-70b", "h100-sxm", {},
     r"^You need \d+× NVIDIA H100"),
    # a count question stating a latency target leads with the count
    ("Serve llama 3.3 70b with TTFT under 500ms for 30 users on H100s - how many GPUs?", "how_many",
     "llama-3.3-70b", "h100-sxm", {"concurrency": 30}, r"^You need \d+× NVIDIA H100"),
    # a bare memory size in "fit on / in / within N GB"
    ("does llama 3.3 70b fit on 80GB in fp8?", "feasibility", "llama-3.3-70b", None, {"weights": "fp8"},
     r"^\*\*Yes\*\* — .*fits in 80 GB of memory"),
    ("will qwen3 32b fit in 24gb?", "feasibility", "qwen3-32b", None, {}, r"^\*\*No\*\* — .*not 24 GB"),
    ("does llama 3.3 70b fit on 80GB in fp8? || and in int4?", "what_if", "llama-3.3-70b", None, {"weights": "int4"},
     r"^\*\*Yes\*\* — .*INT4.*80 GB of memory"),
    # "what quant fits?": the most precise format that fits, first
    ("what quant of llama 3.3 70b fits in 48gb vram", None, "llama-3.3-70b", None, {},
     r"^\*\*GGUF Q4_K_M is the most precise weight format .* fits in 48 GB"),
    ("which gguf quant should I use for qwen2.5 32b on a 3090", None, "qwen2.5-32b", "rtx-3090", {},
     r"most precise weight format .* on 1× GeForce RTX 3090"),
    # llama.cpp offload asked in plain words
    ("llama 3.1 70b Q4_K_M gguf on a 3090 with offload, how fast?", None, "llama-3.1-70b", "rtx-3090",
     {"weights": "q4_k_m"}, r"layer offload.*-ngl \d+.*tokens/s"),
    # which of two cards is better, with no job: the faster first
    ("4090 vs 5090 for local llms", "compare", None, None, {}, r"^\*\*The GeForce RTX 5090 is (faster|stronger)"),
    ("MI355X vs B200 for deepseek v3 inference", "compare", "deepseek-v3", "mi355x", {},
     r"^\*\*.*(about as fast|is faster)"),
    # a rental period in weeks or days
    ("what would it cost to rent 8 B200s for a week of training?", None, None, "b200", {},
     r"^\*\*Renting 8× NVIDIA B200 .* for 1 week costs \$[\d,]+\*\*"),
    ("rent 4 H100 for 10 days, how much?", None, None, "h100-sxm", {}, r"for 10 days costs"),
]


@pytest.mark.parametrize(("turns", "act", "model", "gpu", "job", "lead_rx"), CASES, ids=[c[0][:60] for c in CASES])
def test_first_sentence_answers_the_act_asked(turns: str, act: str | None, model: str | None, gpu: str | None,
                                              job: dict[str, Any], lead_rx: str) -> None:
    check(ask(*turns.split(" || ")), act, model, gpu, job, lead_rx)


HELD_OUT = [
    ("would a 4070 ti super handle llama 3.1 8b in fp8?", "feasibility", "llama-3.1-8b", "rtx-4070ti-super",
     {"weights": "fp8"}, r"^\*\*(Yes|No|Not as asked)"),
    ("can my 4070ti run mistral 7b", "feasibility", "mistral-7b", "rtx-4070ti", {}, r"^\*\*(Yes|No|Not as asked)"),
    ("how many concurrent chats can 4x H100 take with llama 3.3 70b at 16k?", "how_many", "llama-3.3-70b",
     "h100-sxm", {"context": 16384}, r"serves at most \d+"),
    ("token cost for qwen3-14b on a single L40S", None, "qwen3-14b", "l40s", {}, r"per million output tokens"),
    ("how much per million tokens would gemma 3 27b cost me on a 4090?", None, "gemma-3-27b", "rtx-4090", {},
     r"per million output tokens"),
    ("RTX 3090 vs RTX 4090 for running local models", "compare", None, None, {}, r"^\*\*The GeForce RTX 4090 is (faster|stronger)"),
    ("a100 or h100 — which is quicker for training?", "compare", None, None, {}, r"^\*\*The NVIDIA H100 .* is (faster|stronger)"),
    ("which quantization of llama 3.1 70b fits in 64gb?", None, "llama-3.1-70b", None, {},
     r"most precise weight format .* fits in 64 GB"),
    ("does qwen3 32b fit into 48 GB?", "feasibility", "qwen3-32b", None, {}, r"^\*\*(Yes|No)\*\* — .* 48 GB"),
    ("will llama 3.1 8b run in 12gb at fp16?", "feasibility", "llama-3.1-8b", None, {"weights": "fp16"},
     r"^\*\*(Yes|No)\*\* — .* 12 GB"),
    ("we've got 100k dollars, what should we buy to serve qwen3-235b-a22b?", "which", "qwen3-235b-a22b", None, {},
     r"within your \$100,000 budget"),
    ("cost to rent 4 H100s for two weeks?", None, None, "h100-sxm", {}, r"for 2 weeks costs"),
    ("how much would renting 8 A100s for 5 days be?", None, None, "a100-80g-sxm", {}, r"for 5 days costs"),
    ("gpt-oss-120b on L40S cards — how many would we need?", "how_many", "gpt-oss-120b", "l40s", {},
     r"^You need \d+× NVIDIA L40S"),
    ("how many 4090s to serve 40 users of qwen3-14b, time to first token below 1 s?", "how_many", "qwen3-14b",
     "rtx-4090", {"concurrency": 40}, r"^You need \d+×"),
    ("does llama 3.3 70b fit in 96GB in int8? || and fp16?", None, "llama-3.3-70b", None, {"weights": "fp16"},
     r"^\*\*(Yes|No)\*\* — .* 96 GB"),
    ("4070 Ti SUPER vs 4080 SUPER for running llms", "compare", None, None, {},
     r"^\*\*The GeForce RTX 4080 SUPER is (faster|stronger)"),
    ("How fast is gemma 3 12b on a 4070?", None, "gemma-3-12b", "rtx-4070", {}, r"tokens/s|No speed to give"),
]


@pytest.mark.parametrize(("turns", "act", "model", "gpu", "job", "lead_rx"), HELD_OUT,
                         ids=[c[0][:60] for c in HELD_OUT])
def test_held_out_paraphrases(turns: str, act: str | None, model: str | None, gpu: str | None,
                              job: dict[str, Any], lead_rx: str) -> None:
    check(ask(*turns.split(" || ")), act, model, gpu, job, lead_rx)


@pytest.mark.parametrize("text", [
    "how many users can 2x H100 serve llama 3.1 70b at 30 ms per token",
    "how many concurrent users can a single L40S handle with Qwen3-8B at 8k context?",
    "How many users at 40 ms per token can 1 H100 serve with qwen3-14b?",
])
def test_a_users_answer_assumes_no_user_count(text: str) -> None:
    """The number of users is the answer: the assumptions line does not say "1 user" under "serves at most N"."""
    turn = ask(text)
    assert re.search(r"serves at most (\d+)", lead_of(turn)), lead_of(turn)
    assert not re.search(r"\b1 user\b", assumed_of(turn)), assumed_of(turn)


def test_a_card_a_market_rule_rules_out_is_not_ticked() -> None:
    """The L4 is restricted for China in the catalog (performance density over 5.92, rules/market.py): the lead
    says so beside the card asked about (a note, as the speed lead says it: the question is what running it costs)
    and the short table does not mark it ✓."""
    assert CAT.gpu("l4").china is not None and CAT.gpu("l4").china.status == "restricted"
    turn = ask("what does a million tokens cost on an L4 for qwen2.5 7b in china?")
    assert "(but: Above the export thresholds)" in lead_of(turn), lead_of(turn)
    row = next(r for r in str(turn.answer).splitlines() if r.startswith("| 1× NVIDIA L4 |"))
    assert "✓" not in row and "⛔" in row, row


def test_engine_speeds_at_a_load_are_the_load_sentence_speeds() -> None:
    """One computation: vLLM's per-user speed in the engine comparison equals the load sentence's at that load."""
    answer = str(ask("vllm vs llama.cpp for llama 3.1 8b on one H100 with 20 users, which is faster?").answer)
    engine = re.search(r"vLLM decodes about (\d+) tokens/s per user", answer)
    load = re.search(r"At 20 concurrent users\*\* on 1× NVIDIA H100[^:]*:.*?(\d+) tokens/s per user", answer)
    assert engine and load, answer[:800]
    assert engine.group(1) == load.group(1)


def test_the_cost_per_token_on_a_card_too_small_is_for_the_fewest_that_hold_it() -> None:
    """Qwen3-32B (64 GiB at BF16) does not fit one A10 (24 GB): the cost is said first for the fewest A10s that hold
    it, and it is the hand arithmetic cards × $/GPU-hour ÷ (tokens/s × 3600) × 10⁶ (an A10: no purchase price, so
    rented only)."""
    lead = lead_of(ask("what does it cost per million tokens to run qwen3 32b on an A10?"))
    m = re.search(r"does not fit on 1× NVIDIA A10 .*the cost is for (\d+)× NVIDIA A10.*\$([\d.]+) per million output "
                  r"tokens, renting.*\(([\d.]+) tokens/s\).*rented at \$([\d.]+) per GPU-hour", lead)
    assert m, lead
    count, cost, tps, rate = int(m.group(1)), float(m.group(2)), float(m.group(3)), float(m.group(4))
    assert count >= 3  # 64 GiB over 21.6 GiB usable per card
    assert cost == pytest.approx(count * rate / (tps * 3600) * 1e6, rel=0.05)  # tokens/s is rounded in the text


def test_a_rental_for_a_week_is_costed_for_its_hours() -> None:
    """8 cards × 168 hours × the catalog's dated price per GPU-hour of the provider named."""
    lead = lead_of(ask("what would it cost to rent 8 B200s for a week of training?"))
    m = re.search(r"costs \$([\d,]+)\*\* at ([^(]+?) \(", lead)
    assert m, lead
    total = _money(m.group(1))
    prices = [q.usd_per_hour for q in (CAT.gpu("b200").cloud or [])]
    assert any(total == pytest.approx(8 * 24 * 7 * p, rel=0.002) for p in prices), (total, prices)


def test_a_budget_is_not_exceeded_by_the_purchase_said_within_it() -> None:
    lead = lead_of(ask("we have $50k, what's the best setup to serve llama 3.3 70b?"))
    buy = re.search(r"\$([\d,]+) to buy", lead)
    assert buy and _money(buy.group(1)) <= 50_000 and "within your $50,000 budget" in lead, lead


def test_the_quant_named_is_the_most_precise_that_fits() -> None:
    """In the ladder the lead lists, the format named fits the usable memory and every more precise one does not."""
    lead = lead_of(ask("what quant of llama 3.3 70b fits in 48gb vram"))
    m = re.search(r"\*\*(.+?) is the most precise.*?([\d.]+) GiB needed of ([\d.]+) GiB usable \(by format: (.*)\)", lead)
    assert m, lead
    best, usable = m.group(1), float(m.group(3))
    ladder = [(f.rsplit(" ", 2)[0], float(f.rsplit(" ", 2)[1])) for f in m.group(4).split(", ")]
    names = [n for n, _ in ladder]
    assert best in names
    i = names.index(best)
    assert ladder[i][1] <= usable and all(need > usable for _, need in ladder[:i]), ladder
    # by hand: 70.6 B weights at BF16 are 131.5 GiB, far over 48 GB; the first entry of the ladder says so
    assert ladder[0][0] == "BF16" and ladder[0][1] > 70.6e9 * 2 / 2**30


@pytest.mark.parametrize(("gpu", "gib", "gbps", "bus_bits", "sms", "boost_ghz", "tensor", "tpu_fp32_tflops"), [
    # TechPowerUp database figures (knowledge/data/sources/gpus.yaml: tpu-*): data rate, bus width, SMs, boost, FP32;
    # tensor: FP16/BF16 FLOP per SM per clock with FP32 accumulate (GeForce 512, RTX workstation 1024: whitepapers)
    ("rtx-4070ti-super", 16, 21, 256, 66, 2.61, 512, 44.10),
    ("rtx-4070-super", 12, 21, 192, 56, 2.475, 512, 35.48),
    ("rtx-4070ti", 12, 21, 192, 60, 2.61, 512, 40.09),
    ("rtx-4070", 12, 21, 192, 46, 2.475, 512, 29.15),
    ("rtx-4060", 8, 17, 128, 24, 2.46, 512, 15.11),
    ("rtx-3080", 10, 19, 320, 68, 1.71, 512, 29.77),
    ("rtx-3080ti", 12, 19, 384, 80, 1.665, 512, 34.10),
    ("rtx-3070", 8, 14, 256, 46, 1.725, 512, 20.31),
    ("rtx-a5000", 24, 16, 384, 64, 1.695, 1024, 27.77),
    ("rtx-a4000", 16, 14, 256, 48, 1.56, 1024, 19.17),
])
def test_added_card_catalog_figures(gpu: str, gib: int, gbps: int, bus_bits: int, sms: int, boost_ghz: float,
                                    tensor: int, tpu_fp32_tflops: float) -> None:
    spec = CAT.gpu(gpu)
    assert spec.memory_bytes == gib * 2**30
    assert spec.bandwidth_bytes_per_s == pytest.approx(gbps * 1e9 * bus_bits / 8, rel=0.002)  # data rate × bus
    assert spec.fp32_flops == pytest.approx(tpu_fp32_tflops * 1e12, rel=0.002)
    assert spec.fp32_flops == pytest.approx(sms * 128 * 2 * boost_ghz * 1e9, rel=0.002)  # by hand
    assert spec.bf16_dense_flops == pytest.approx(sms * tensor * boost_ghz * 1e9, rel=0.002)
    tpp = spec.int8_dense_ops / 1e12 * 8  # TPP = 8-bit dense TOPS × 8 bits
    assert tpp < 4800 and spec.china is not None and spec.china.status == "available"
    for field in ("memory_bytes", "bandwidth_bytes_per_s", "fp32_flops", "bf16_dense_flops"):
        assert spec.cite.get(field), field  # every number cites a source entry
    assert all(sid in CAT.sources for ids in spec.cite.values() for sid in ids)


@pytest.mark.parametrize(("text", "gpu"), [
    ("can my 3080 run llama 3.1 8b in int8?", "rtx-3080"),
    ("rtx 3080 ti for qwen3 8b?", "rtx-3080ti"),
    ("is a 3070 enough for qwen3 4b?", "rtx-3070"),
    ("can a 4060 run gemma 3 4b", "rtx-4060"),
    ("4060 ti 16gb for qwen3 8b", "rtx-4060ti-16g"),
    ("two A5000 for llama 3.1 70b int4?", "rtx-a5000"),
    ("a4000 qwen3-8b fp16?", "rtx-a4000"),
])
def test_common_cards_are_read_as_catalog_cards(text: str, gpu: str) -> None:
    turn = ask(text)
    ids = {(s.get("kind"), s.get("id")) for s in (turn.extra.get("request") or {}).get("subjects", [])}
    assert ("gpu", gpu) in ids, ids
    assert "not a GPU in the catalog" not in str(turn.answer)
    assert re.match(r"\*\*(Yes|No|Not as asked)", lead_of(turn)), lead_of(turn)


@pytest.mark.parametrize(("text", "per_day"), [
    ("1M tokens a day of Llama 3.3 70B, what does it cost on H100?", 1e6),
    ("we generate 30 million tokens per month with qwen3 8b on an L40S, cost per token?", 30e6 / (365 / 12)),
])
def test_a_daily_volume_is_costed_as_a_day_of_the_cards(text: str, per_day: float) -> None:
    """The cards are paid for every hour: a day of rent is GPUs × $/GPU-hour × 24 (the rate the answer quotes), and
    a million tokens at that volume costs that day ÷ (tokens a day / 10⁶); the average rate is tokens a day / 86,400."""
    lead = lead_of(ask(text))
    # a volume stated by the month ("30 million tokens per month") is priced a month, the day's money beside it
    m = re.match(r"\*\*([\d.]+) M tokens a day on (\d+)× .*? costs about (?:\$[\d,.]+ a month rented around the clock "
                 r"\(\$([\d,.]+) a day, |\$([\d,.]+) a day rented around the clock \()"
                 r"\$([\d,.]+) per million tokens\).*?: that is ([\d.]+) tokens/s on average", lead)
    assert m, lead
    rate = re.search(r"rented at \$([\d.]+) per GPU-hour", lead)
    assert rate, lead
    count, day, per_m, mean = int(m.group(2)), _money(m.group(3) or m.group(4)), _money(m.group(5)), float(m.group(6))
    assert float(m.group(1)) == pytest.approx(per_day / 1e6, abs=0.05)
    assert day == pytest.approx(count * float(rate.group(1)) * 24, rel=0.01)
    assert per_m == pytest.approx(day / (per_day / 1e6), rel=0.02)
    assert mean == pytest.approx(per_day / 86400, abs=0.6)


def test_a_daily_volume_beyond_the_card_says_how_many_it_takes() -> None:
    lead = lead_of(ask("500M tokens a day of llama 3.1 8b on one L4, what's the cost per million?"))
    m = re.match(r"\*\*500 M tokens a day is more than 1× NVIDIA L4 makes\*\*: (\d+) tokens/s on average against "
                 r"(\d+) tokens/s at full load; it takes about (\d+)× NVIDIA L4", lead)
    assert m, lead
    assert int(m.group(1)) == round(500e6 / 86400)
    assert abs(int(m.group(3)) - int(m.group(1)) / int(m.group(2))) <= 1.5  # ⌈average / full load⌉ cards


@pytest.mark.parametrize(("text", "gib"), [
    ("what's the largest model I can run on a 24GB card?", 24),
    ("biggest model that fits in 48gb of vram?", 48),
])
def test_the_largest_models_for_a_bare_memory_size(text: str, gib: int) -> None:
    """Each model named fits the memory typed (its need per GPU, said beside it, is under it)."""
    lead = lead_of(ask(text))
    assert lead.startswith(f"**The largest models that fit 1× {gib} GB card**"), lead
    needs = [float(x) for x in re.findall(r": ([\d.]+) GiB per GPU", lead)]
    assert needs and all(n <= gib for n in needs), needs


def test_renting_weighed_against_a_server_leads_with_the_verdict() -> None:
    lead = lead_of(ask("cost of 8x H200 server vs renting for 3 years"))
    assert re.match(r"\*\*(Buying|Renting) is cheaper\*\* over 36 months", lead), lead


def test_offload_asked_when_the_card_holds_it_whole() -> None:
    turn = ask("qwen3 32b on a 3090 with cpu offloading, how many tok/s?")
    lead = lead_of(turn)
    assert re.match(r"\*\*About \d+ tokens/s per user", lead), lead  # the act (the speed) first
    assert "No layer offload is needed" in lead


def test_an_architecture_twin_is_said() -> None:
    """'Qwen3-Coder-30B-A3B' is sized as the catalog's Qwen3-30B-A3B-Instruct-2507 (same architecture, its catalog
    note): the answer says so instead of answering silently for another model's name."""
    turn = ask("qwen3-coder-30b-a3b on a single 3090 at 64k context?")
    assert "is sized as Qwen3-30B-A3B-Instruct-2507" in str(turn.answer)


@pytest.mark.parametrize("text", [
    "what's the best rig for llama 3.3 70b with $20k?",
    "which box should I build for qwen3 32b?",
])
def test_a_rig_question_is_a_which_question(text: str) -> None:
    turn = ask(text)
    assert (turn.extra.get("request") or {}).get("act") == "which"
    assert lead_of(turn).startswith("I recommend"), lead_of(turn)


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("finetune qwen3 14b lora on 2x4090", "rtx-4090", 2),
    ("qwen3 14b on 4x4090", "rtx-4090", 4),
    ("llama 70b on 8xH100, fits?", "h100-sxm", 8),
])
def test_a_count_glued_to_the_card_is_read(text: str, gpu: str, count: int) -> None:
    hw = [(h.get("gpu"), h.get("count")) for h in (ask(text).extra.get("request") or {}).get("hardware", [])]
    assert (gpu, count) in hw, hw


def test_a_price_per_hour_is_not_a_budget() -> None:
    limits = {v["name"]: v["value"] for v in (ask("our H100s cost $2.10/hr, what's the cost per million tokens for "
                                                  "llama 3.1 8b?").extra.get("request") or {}).get("limits", [])}
    assert "budget" not in limits, limits


def test_radeon_rx_7900_xtx_is_a_catalog_card() -> None:
    """24 GB GDDR6, 384-bit at 20 Gbps (960 GB/s); RDNA 3 WMMA 96 CUs × 512 FLOP × 2.498 GHz ≈ 122.8 TFLOPS (the FP16
    figure of its database page); launch price $999 (TweakTown); no FP8 compute on RDNA 3."""
    spec = CAT.gpu("rx-7900-xtx")
    assert spec.memory_bytes == 24 * 2**30
    assert spec.bandwidth_bytes_per_s == pytest.approx(20e9 * 384 / 8)
    assert spec.bf16_dense_flops == pytest.approx(96 * 512 * 2.498e9, rel=0.002)
    assert not spec.supports_fp8 and spec.price("USD") is not None and spec.price("USD").amount == 999
    turn = ask("how about an rx 7900 xtx for llama 3 8b?")
    assert ("gpu", "rx-7900-xtx") in {(s.get("kind"), s.get("id")) for s in turn.extra["request"]["subjects"]}
    assert re.match(r"\*\*(Yes|No|Not as asked)", lead_of(turn)), lead_of(turn)


# A second set of held-out paraphrases, written after all the fixes above and never used while making them: 4/20 on
# main, 17/20 on first run; the three misses ("5 million tokens per day … cost", "how many would it take?", "we've
# got 30k") were then fixed in general (a volume with a cost word, "how many would it take", an amount after "we've got").
HELD_OUT_2 = [
    ("is the 3080 ti able to run qwen3 8b at q8?", "feasibility", "qwen3-8b", "rtx-3080ti", {},
     r"^\*\*(Yes|No|Not as asked)"),
    ("how many 4070 ti supers do i need for llama 3.3 70b in 4 bit", "how_many", "llama-3.3-70b", "rtx-4070ti-super", {},
     r"^You need \d+× GeForce RTX 4070 Ti SUPER"),
    ("what's the per-token cost of running qwen3 32b on 2 H100s?", None, "qwen3-32b", "h100-sxm", {},
     r"per million output tokens"),
    ("we push about 5 million tokens per day through llama 3.1 70b — cost on H200?", None, "llama-3.1-70b", "h200-sxm",
     {}, r"^\*\*5\.0 M tokens a day on .* costs about"),
    ("MI300X vs H100, which card is better for LLMs in general?", "compare", None, None, {},
     r"^\*\*(The .* is (faster|stronger)|Each leads|The .* are close)"),
    ("what's the highest quant of qwen3 32b I can fit on a 4090?", None, "qwen3-32b", "rtx-4090", {},
     r"most precise weight format"),
    ("does gemma 3 27b fit within 32 GB at q8?", "feasibility", "gemma-3-27b", None, {}, r"^\*\*(Yes|No)\*\* — .* 32 GB"),
    ("How much to rent 2 H200 for 3 weeks?", None, None, "h200-sxm", {}, r"for 3 weeks costs"),
    ("deepseek r1 on MI355X, how many would it take?", "how_many", "deepseek-r1", "mi355x", {},
     r"^You need \d+× AMD Instinct MI355X"),
    ("we've got 30k, best box for fine-tuning qwen3 14b?", "which", "qwen3-14b", None, {}, r"within your \$30,000 budget"),
    ("biggest model for a 12GB card?", None, None, None, {}, r"largest models that fit 1× 12 GB card"),
    ("llama 3.1 8b on 8xL4, fits?", "feasibility", "llama-3.1-8b", "l4", {}, r"^\*\*(Yes|No|Not as asked)"),
    ("4060 vs 4060 ti 16gb for local llms", "compare", None, None, {},
     r"^\*\*The GeForce RTX 4060 Ti 16GB is (faster|stronger)"),
    ("rent vs buy for 4x A100 80GB, 12 hours a day", "rent_vs_buy", None, "a100-80g-sxm", {},
     r"^\*\*(Renting|Buying) is cheaper"),
]


@pytest.mark.parametrize(("turns", "act", "model", "gpu", "job", "lead_rx"), HELD_OUT_2,
                         ids=[c[0][:60] for c in HELD_OUT_2])
def test_second_held_out_paraphrases(turns: str, act: str | None, model: str | None, gpu: str | None,
                                     job: dict[str, Any], lead_rx: str) -> None:
    check(ask(*turns.split(" || ")), act, model, gpu, job, lead_rx)


def test_we_have_an_amount_of_users_is_no_budget() -> None:
    limits = {v["name"] for v in (ask("we have 30k users on llama 3.1 8b").extra.get("request") or {}).get("limits", [])}
    assert "budget" not in limits


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("GB200 NVL72 for Kimi K2 throughput?", "gb200", 72),  # one rack: the 72 GPUs of its NVLink domain
    ("how fast is deepseek v3 on a GB300 NVL72", "gb300", 72),
    ("2 GB200 NVL72 racks for training llama 405b on 15T tokens, how long?", "gb200", 144),
])
def test_an_nvl72_rack_is_its_gpus(text: str, gpu: str, count: int) -> None:
    hw = [(h.get("gpu"), h.get("count")) for h in (ask(text).extra.get("request") or {}).get("hardware", [])]
    assert (gpu, count) in hw, hw


def test_throughput_asked_leads_with_the_speed() -> None:
    assert re.match(r"\*\*About \d+ tokens/s per user", lead_of(ask("GB200 NVL72 for Kimi K2 throughput?")))


@pytest.mark.parametrize(("text", "name", "value"), [
    ("need to host qwen3-235b for ~40 ppl, what gpus and what'll it cost?", "headcount", 40),
    ("How much VRAM to fine-tune Qwen3-8B with full params and Adam?", "task", "full"),
])
def test_shorthand_is_read(text: str, name: str, value: Any) -> None:
    values = {v["name"]: v["value"] for v in (ask(text).extra.get("request") or {}).get("job", [])}
    assert values.get(name) == value, values
