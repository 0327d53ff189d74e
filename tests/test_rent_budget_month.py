"""A budget said per month ("$40k a month", "每月预算 30 万") is a rental spend, not a purchase: what it rents around
the clock (730 h a month) at the stated or the catalog's price per GPU-hour, and the users (serving) or the cards a
training run may use (analysis.load_answers.budget_users, analysis.rent_budget). It had been read as a purchase
budget ("A budget of $40,000 buys nothing that runs Llama-3.1-70B") or as one card's rent a month ("your $137 per
GPU-hour")."""

from __future__ import annotations

import math

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()
MONTH_H = 8760 / 12


def first_paragraph(text: str) -> str:
    return text.split("\n\n")[0]


@pytest.mark.parametrize("text, lang, amount", [
    ("We have a budget of $40k per month to rent H100s at $2.5/h.", "en", 40_000),
    ("$40k/month budget for serving", "en", 40_000),
    ("monthly budget of $60,000 for Llama 70B", "en", 60_000),
    ("We can spend $15k monthly on GPUs", "en", 15_000),
    ("We have $100k a month for rented H100s", "en", 100_000),
    ("每月租卡预算 30 万元，H100 每卡每小时 15 元", "zh", 300_000),
    ("预算30万/月", "zh", 300_000),
    ("月预算 20 万，租 H20", "zh", 200_000),
    ("一个月 5 万预算租 4090", "zh", 50_000),
])
def test_a_budget_a_month_is_read_as_one(text: str, lang: str, amount: float) -> None:
    s = extract(text.lower(), CAT, lang=lang)
    assert s.budget == amount and s.budget_monthly, s


@pytest.mark.parametrize("text, lang", [
    ("budget $500k for a server", "en"),
    ("$100k budget, power costs $3k a month", "en"),
    ("预算 50 万买服务器", "zh"),
    ("每月电费 2 万，预算 100 万买服务器", "zh"),
])
def test_a_purchase_budget_stays_one(text: str, lang: str) -> None:
    s = extract(text.lower(), CAT, lang=lang)
    assert s.budget and not s.budget_monthly, s


def test_a_month_of_budget_is_no_rent_rate_but_one_cards_month_is() -> None:
    """$100k a month is no card's rent (that would be $137 an hour); $1,800 a month per GPU is ($2.47 an hour)."""
    assert extract("we have $100k a month for rented h100s", CAT, lang="en").rent_rate is None
    rate = extract("renting h100 costs us $1,800 a month per gpu", CAT, lang="en").rent_rate
    assert rate is not None and rate.amount == pytest.approx(1800 / MONTH_H)


def test_serving_a_month_at_a_stated_rate_rents_that_many_cards() -> None:
    """$40,000 ÷ ($2.50 × 730 h) = 21.9: 21 H100s, laid out as copies that fit within them; the answer opens with the
    month's cards, not with the rent of the one configuration sized for one user."""
    text = answer("We have a budget of $40k per month to rent H100s at $2.5/h. How many users of Llama-3.1-70B "
                  "can we serve?")
    lead = first_paragraph(text)
    assert number(r"rents (\d+)× NVIDIA H100", lead) == math.floor(40_000 / (2.5 * MONTH_H)), lead
    copies = number(r"As (\d+) copies", lead)
    per = number(r"copies of (\d+)× NVIDIA H100", lead)
    assert copies * per <= 21
    assert number(r"GPUs for \$([\d,]+) a month", lead) == pytest.approx(copies * per * 2.5 * MONTH_H, abs=1)
    users = number(r"serve about (\d+) concurrent users", lead)
    assert users == copies * number(r"each copy at most (\d+)", lead)
    assert users > 100  # 20-odd H100s hold hundreds of 4k-token chats of a 70B model
    assert "buys nothing" not in text


def test_a_month_without_a_rate_uses_a_dated_catalog_quote() -> None:
    lead = first_paragraph(answer("Our cloud budget is $25k a month. Serving Qwen2.5-72B to our team, what can we get?"))
    m_rate = number(r"at \$([\d.]+) per GPU-hour \(", lead)
    assert "as of 20" in lead, lead
    cards = number(r"rents (\d+)×", lead)
    assert cards == math.floor(25_000 / (m_rate * MONTH_H))
    assert number(r"for \$([\d,]+) a month", lead) <= 25_000


def test_chinese_month_budget_with_a_yuan_rate() -> None:
    """¥300,000 ÷ (¥15 × 730 h) = 27.4: 27 H100s."""
    lead = first_paragraph(answer("每月租卡预算 30 万元，H100 每卡每小时 15 元，Qwen2.5-72B 能服务多少并发用户？", "zh"))
    assert number(r"可全天候租 (\d+) 张", lead) == 27, lead
    assert number(r"约可同时服务 (\d+) 路", lead) > 50


@pytest.mark.parametrize("text, lang", [
    ("Monthly GPU spend cap is $30,000; we rent A100s at $1.5/hr. How many concurrent users for Llama 3.1 8B?", "en"),
    ("一个月租卡最多花 8 万，租 4090 跑 Qwen2.5-14B，能撑多少人同时用？", "zh"),
])
def test_paraphrased_month_budgets_lead_with_what_they_rent(text: str, lang: str) -> None:
    lead = first_paragraph(answer(text, lang))
    assert ("a month rents" in lead) if lang == "en" else ("可全天候租" in lead), lead


def test_a_training_run_on_a_month_budget_stays_within_its_cards() -> None:
    """$100,000 ÷ ($2.69 RunPod H100 × 730 h) = 50.9: 50 H100s, whole servers 48; the run is planned on at most 48."""
    text = answer("We have $100k a month for rented H100s. Pre-train a 7B on 1T tokens, how long will it take?")
    lead = first_paragraph(text)
    rate = number(r"at \$([\d.]+) per GPU-hour", lead)
    rented = number(r"rents (\d+)× NVIDIA H100", lead)
    assert rented == math.floor(100_000 / (rate * MONTH_H))
    used = number(r"on (\d+)× NVIDIA H100 SXM5 80GB for 1 T tokens", lead)
    assert used <= rented and used % 8 == 0, lead
    assert "$137" not in text


def test_a_training_month_budget_with_no_price_for_the_card_asks_for_one() -> None:
    lead = first_paragraph(answer("每月预算 50 万租 H20，预训练一个 7B 模型，1T token，要多久？", "zh"))
    assert "没有" in lead and "租用价格" in lead, lead
    priced = first_paragraph(answer("每月预算 50 万租 H20，每卡每小时 8 元，预训练一个 7B 模型，1T token，要多久？", "zh"))
    assert number(r"可全天候租 (\d+) 张", priced) == math.floor(500_000 / (8 * MONTH_H)), priced


@pytest.mark.parametrize("text, lang, cap", [
    ("budget $2/hr, what's the best gpu i can rent to serve mistral small 24b", "en", 2.0),
    ("what can I rent for under $3 an hour to run qwen 32b", "en", 3.0),
    ("每小时预算 20 元，租什么卡跑 Qwen2.5-32B", "zh", 20.0),
    ("每小时不超过 20 元，租什么卡跑 Qwen2.5-32B", "zh", 20.0),
    ("With ~$3/hr we want to host gemma 3 27b, which card to rent?", "en", 3.0),
])
def test_a_ceiling_an_hour_is_no_price(text: str, lang: str, cap: float) -> None:
    s = extract(text.lower(), CAT, lang=lang)
    assert s.rent_cap_hour == cap and s.rent_rate is None, s


def test_a_price_an_hour_stays_a_price() -> None:
    s = extract("rent h100 at $2.5/hr to serve llama 3.1 8b", CAT, lang="en")
    assert s.rent_rate is not None and s.rent_rate.amount == 2.5 and s.rent_cap_hour is None


def test_an_hourly_ceiling_rents_within_it() -> None:
    """"Budget $2/hr, best GPU I can rent": the copies that serve the most within $2 an hour, said per hour (it had
    recommended buying 4× RTX 5060 Ti)."""
    lead = first_paragraph(answer("budget $2/hr, what's the best gpu i can rent to serve mistral small 24b"))
    assert lead.startswith("**$2.00 an hour rents"), lead
    assert number(r"for \$([\d.]+) an hour", lead) <= 2.0
    with_load = first_paragraph(answer("what can I rent for under $3 an hour to run qwen 32b for 20 users?"))
    assert number(r"is \$([\d.]+) an hour, within your \$3.00 an hour", with_load) <= 3.0, with_load


def test_a_month_budget_with_a_load_leads_with_the_rent() -> None:
    lead = first_paragraph(answer("每月租卡预算 5 万，Qwen2.5-72B，50 个并发，怎么配？", "zh"))
    assert lead.startswith("**全天候租用的话"), lead
    assert number(r"每月 ¥([\d,]+)，在您每月 ¥50,000 的预算之内", lead) <= 50_000


@pytest.mark.parametrize("text, lang", [
    ("we have $30k a month for cloud GPUs, how many H100s can we keep running 24/7?", "en"),
    ("monthly cloud budget $30k, how many H100s?", "en"),
    ("we can spend $30k/month renting H100s, how many can we run 24/7?", "en"),
])
def test_how_many_cards_a_month_keeps_running(text: str, lang: str) -> None:
    """$30,000 ÷ ($2.69 × 730 h) = 15.3: 15 H100s around the clock (it had said $30,000 does not buy one H100)."""
    lead = first_paragraph(answer(text, lang))
    rate = number(r"at \$([\d.]+) per GPU-hour", lead)
    assert number(r"keeps (\d+)× NVIDIA H100", lead) == math.floor(30_000 / (rate * MONTH_H)), lead
    assert "does not buy" not in lead


def test_how_many_cards_a_month_in_yuan_and_without_a_quote() -> None:
    lead = first_paragraph(answer("每月租金预算 10 万元，能租几张 4090？", "zh"))
    rate = number(r"每 GPU 小时 ¥([\d.]+)", lead)
    assert number(r"可全天候租 (\d+) 张", lead) == math.floor(100_000 / (rate * MONTH_H)), lead
    none = first_paragraph(answer("每月租金预算 10 万元，租 910B 能租几张？", "zh"))
    assert "没有出租" in none, none


def test_a_training_month_budget_without_a_card_rents_and_costs_the_run() -> None:
    """"我们每月租卡预算 20 万，做 Qwen2.5-72B 的 LoRA 微调": among cards clouds rent, the run's own rent (GPU-hours ×
    rate) against the month's budget, first; it had been a purchase quote of 8× A40."""
    lead = first_paragraph(answer("我们每月租卡预算 20 万，做 Qwen2.5-72B 的 LoRA 微调", "zh"))
    assert lead.startswith("**租用的话"), lead
    gh = number(r"共 ([\d,]+) GPU 小时", lead)
    rate = number(r"每 GPU 小时 ¥([\d.]+)", lead)
    assert number(r"，共 ¥([\d,]+)；", lead) == pytest.approx(gh * rate, rel=0.01)
