"""A rental price the person states leads the rent answer, before the catalog's quotes ("rent H100 on AWS at
$2.5/GPU-hour…", "按每卡每小时 18 元租 4 张 4090…", "AutoDL 上 4090 一小时 2 块钱").

The held-out set (tests/data/rent_rate_heldout.json) was written before the reader, with each expected figure by
hand: month = cards × 730 h × price per GPU-hour (e.g. 1 × 730 × $2.50 = $1,825; 4 × 730 × ¥18 = ¥52,560). The
cost-section figures below are hand arithmetic too (730 h × 12 months × 3 years × $2.50 = $65,700)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.render.labels import provider_label
from advisor.conversation.session import Conversation
from tests.rent_rate_score import cases, money_in, stated

HELD_OUT = cases("heldout")
DEV = cases("dev")


def _ask(text: str, lang: str) -> tuple[str, dict[str, Any]]:
    turn = Conversation(lang=lang).respond(text)
    return turn.answer.strip(), dict(turn.extra.get("request") or {})


def _first(answer: str) -> str:
    return answer.split("\n\n")[0]


@pytest.mark.parametrize("case", HELD_OUT, ids=[c["text"][:40] for c in HELD_OUT])
def test_held_out_price_is_read_and_leads(case: dict[str, Any]) -> None:
    answer, request = _ask(case["text"], case["lang"])
    rate, currency, provider = stated(request)
    if case["rate"] is None:  # nothing said per hour: no price is made up, a budget stays a budget
        assert rate is None and provider is None
        return
    assert rate == pytest.approx(case["rate"], abs=0.005)
    assert (currency, provider) == (case["currency"], case["provider"])
    values = {v["name"]: v for v in request["limits"]}
    assert values["rent_rate"]["provenance"] == "stated" and values["rent_rate"]["text"]
    head = _first(answer)
    shown = money_in(head)
    assert any(abs(x - case["rate"]) < 0.005 for x in shown), head  # the person's own price, as theirs
    if case["month"] is not None:  # the month at that price, by hand in the set
        assert any(abs(x - case["month"]) <= 1 for x in shown), head
    if case["provider"]:  # named in the answer's language ("腾讯云" is Tencent Cloud in English)
        assert provider_label(case["provider"], case["lang"]) in head


def test_development_set_is_read() -> None:
    from advisor.conversation.dialog.machine import default_catalog
    from advisor.conversation.reader.request import read

    catalog = default_catalog()
    for case in DEV:
        rate, currency, provider = stated(read(case["text"], catalog, case["lang"]).to_json())
        if case["rate"] is None:
            assert rate is None, case["text"]
        else:
            assert rate == pytest.approx(case["rate"], abs=0.005), case["text"]
            assert (currency, provider) == (case["currency"], case["provider"]), case["text"]


def test_the_aws_example_leads_with_the_users_price_then_compares() -> None:
    answer, _ = _ask("rent H100 on AWS at $2.5/GPU-hour to serve Llama 3.1 8B to 20 users, what does a month cost?",
                     "en")
    head = _first(answer)
    assert head.startswith("**At your $2.50 per GPU-hour at AWS")
    assert "730 GPU-hours a month" in head and "$1,825 a month" in head  # 730 h × $2.50
    # AWS's own listed price (the H100's AWS quote: p5.48xlarge $55.04/h ÷ 8 = $6.88, 2026-01-21, after the June 2025
    # P5 price cut; economics.yaml's older $98.32 reference is not used where the card has its own) and the catalog's
    # quotes after
    assert "AWS's own listed price" in head and "$6.88" in head
    assert answer.index("$1,825") < answer.index("RunPod")
    assert "$65,700 rented" in answer  # the verdict at the user's price: 36 months × $1,825
    assert "renting the same GPU-hours: $65,700 (at your $2.50 per GPU-hour at AWS)" in answer  # the cost section


def test_a_provider_the_catalog_lacks_is_named_as_missing() -> None:
    answer, _ = _ask("在阿里云上租 A100，每小时 12 块，跑 Llama 3.1 8B 一个月要多少钱", "zh")
    head = _first(answer)
    assert "¥12.00" in head and "¥8,760" in head  # 730 h × ¥12
    assert "价格目录中没有阿里云" in head
    en, _ = _ask("H100 at $2.25/hr on CoreWeave, serving Mistral 7B, monthly cost?", "en")
    assert "CoreWeave is not in the price catalog" in _first(en) and "$1,642.50" not in _first(en)
    assert "$1,642" in _first(en) or "$1,643" in _first(en)  # 730 × $2.25 = $1,642.50, printed whole


def test_chinese_per_card_price_for_four_cards() -> None:
    answer, _ = _ask("按每卡每小时 18 元租 4 张 4090 跑 Qwen2.5-32B，一个月多少钱？", "zh")
    head = _first(answer)
    assert head.startswith("**按您给的每 GPU 小时 ¥18.00") and "2920 GPU 小时" in head and "¥52,560" in head
    assert "AutoDL" in answer.split("\n\n", 2)[2]  # the catalog's quotes stay, as the comparison


def test_an_instance_price_is_divided_by_its_gpus_and_rented_whole() -> None:
    answer, request = _ask("We pay $98/hour for an 8-GPU p5 instance (H100) to serve Llama 3.1 70B. Monthly cost?", "en")
    head = _first(answer)
    values = {v["name"]: v["value"] for v in request["limits"]}
    assert values["rent_rate"] == pytest.approx(12.25) and values["rent_rate_gpus"] == 8  # $98 / 8
    assert "$12.25" in head and "$71,540 a month" in head  # one whole instance: 730 h × $98
    assert "whole 8-GPU instance" in head


def test_an_instance_without_its_gpu_count_is_assumed_and_said() -> None:
    answer, request = _ask("We pay $98/hour for a p5 instance (H100) to serve Llama 3.1 70B. Monthly cost?", "en")
    assert "rent_rate" not in {v["name"] for v in request["limits"]}
    assert "its GPU count was not said" in _first(answer)


@pytest.mark.parametrize(("text", "lang", "line"), [
    ("rent H100 at $-3/hour to serve Llama 3.1 8B, monthly cost?", "en", "'$-3/hour' is not a valid rental price"),
    ("按 0 元/小时 租 4090 跑 Qwen2.5-7B 一个月多少钱", "zh", "“0 元/小时”不是有效的租用价格"),
])
def test_a_zero_or_negative_price_is_one_clear_line(text: str, lang: str, line: str) -> None:
    answer, _ = _ask(text, lang)
    assert answer.startswith(line)
    assert not re.search(r"RunPod|AutoDL|GPU-hours a month|每月 \d+ GPU 小时", answer)


def test_yen_sign_and_bare_rate() -> None:
    from advisor.conversation.reader.rental import read_rate

    r, _, _ = read_rate("rent a 4090 at ¥2/hour", "en")
    assert r is not None and (r.amount, r.currency) == (2.0, "CNY")
    r, _, _ = read_rate("rent an h100 at 2.5/hr", "en")
    assert r is not None and (r.amount, r.currency, r.currency_said) == (2.5, "USD", False)
    for text in ("8 hours a day, budget $5000", "we generate 2 million tokens per hour at $3 per 1m tokens",
                 "electricity is 0.6 元/kwh", "每天用 8 小时，预算 20 万", "$2000 for 100 hours of h100"):
        assert read_rate(text, "en")[0] is None, text  # a usage, a budget, a token or power price: no hourly rent


def test_cost_per_million_tokens_rented_at_the_users_price() -> None:
    answer, _ = _ask("rent H100 at $2.5/hr, what's the cost per million tokens for Llama 3.1 8B at 20 users?", "en")
    head = _first(answer)
    assert "rented at your $2.50 per GPU-hour" in head
    speed = float(re.search(r"\((\d+) tokens/s in total", head).group(1))  # type: ignore[union-attr]
    rented = re.search(r"\$([\d.]+) rented", head)
    assert rented is not None  # one GPU-hour at $2.50 makes speed × 3600 tokens
    assert float(rented.group(1)) == pytest.approx(2.5 / (speed * 3600) * 1e6, abs=0.006)


def test_a_stated_period_totals_at_the_users_price() -> None:
    answer, _ = _ask("rent an H100 at $2.5/hr for 6 months to serve Llama 3.1 8B, total cost?", "en")
    assert "Over 6 months that is $10,950" in _first(answer)  # 6 × 730 h × $2.50


def test_the_price_stays_for_follow_ups_and_a_new_one_replaces_it() -> None:
    conv = Conversation(lang="en")
    conv.respond("rent H100 at $2.5/hr to serve Llama 3.1 8B, monthly cost?")
    head = _first(conv.respond("what if we only use it 8 hours a day?").answer)
    assert "$2.50 per GPU-hour" in head and "$608 a month" in head  # 8 h × 365/12 days × $2.50 = $608.33
    head = _first(conv.respond("and at $2/hr?").answer)
    assert "$2.00 per GPU-hour" in head and "$487 a month" in head  # 243.33 h × $2.00 = $486.67
    zh = Conversation(lang="zh").respond("AutoDL 上 4090 一小时 2 块钱，跑 Qwen2.5-7B 一个月多少钱").answer
    assert "AutoDL自己的 GeForce RTX 4090 报价是每 GPU 小时 ¥3.00" in _first(zh)  # the catalog's dated yuan quote


def test_a_chinese_cloud_is_named_in_english_in_an_english_answer() -> None:
    answer, request = _ask("Tencent Cloud rents us an H20 for 10 yuan an hour; running Qwen2.5-32B, what's the "
                           "monthly cost?", "en")
    assert stated(request) == (10.0, "CNY", "腾讯云")
    head = _first(answer)
    assert "¥7,300 a month" in head  # 730 h × ¥10
    assert "Tencent Cloud is not in the price catalog for the NVIDIA H20 96GB" in head


def test_a_card_no_provider_lists_is_still_priced_at_the_users_rate() -> None:
    answer, _ = _ask("华为云上租 910B 每小时 10 元，跑 Qwen2.5-7B 一个月多少？", "zh")
    head = _first(answer)
    assert "¥7,300" in head  # 730 h × ¥10
    assert "目录中没有" in head and "租用报价可供对比" in head  # no catalog quote to compare with, said so
