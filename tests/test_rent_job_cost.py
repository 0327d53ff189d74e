"""A batch job rented by the GPU-hour is costed as a job: the cards it runs on × its hours × the price per GPU-hour
(stated, else the catalog's dated quote; analysis.load_answers.job_rent). It had been priced as a month of rent of
the configuration sized for one user, and a card named without a count ran the whole job on that one configuration
(16.9 days on 2× H100) instead of being sized to a day like a job with no card named."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer, number


def first_paragraph(text: str) -> str:
    return text.split("\n\n")[0]


def test_a_rented_job_with_a_deadline_costs_its_gpu_hours() -> None:
    lead = first_paragraph(answer("Summarise 1 million documents of 3k tokens with Llama-3.1-70B on H100 within 24 "
                                  "hours, rented at $2.49/h. How many GPUs and what does the job cost?"))
    assert lead.startswith("**To finish within 24 hours"), lead
    gpus = number(r"([\d,]+)× NVIDIA H100 SXM5 80GB in all", lead)
    cost = number(r"the job costs about \$([\d,.]+)", lead)
    hours = number(r"GPUs × ([\d.]+) hours", lead)
    assert number(r"costs about \$[\d,.]+: (\d+) GPUs", lead) == gpus
    assert hours <= 24
    assert cost == pytest.approx(gpus * hours * 2.49, rel=0.01)
    assert "a month" not in lead  # the job's cost, not a month of rent


def test_a_card_named_without_a_count_is_sized_to_a_day_and_costed() -> None:
    text = answer("Summarise 1 million documents of 3k tokens with Llama-3.1-70B on rented H100 at $2.49/h. "
                  "What will the job cost?")
    lead = first_paragraph(text)
    assert lead.startswith("**Sized to finish within 24 hours"), lead
    assert number(r"GPUs × ([\d.]+) hours", lead) <= 24
    assert "(your rate)" in lead


def test_a_count_said_keeps_its_cards_and_prices_them_at_a_dated_quote() -> None:
    lead = first_paragraph(answer("Summarise 1 million documents of 3k tokens with Llama-3.1-70B on 2 H100s. How long?"))
    assert "on 2× NVIDIA H100" in lead and "Sized to finish" not in lead, lead
    days = number(r"take about ([\d.]+) days", lead)
    assert number(r"2 GPUs × ([\d.]+) hours", lead) == pytest.approx(days * 24, rel=0.01)
    assert "as of 20" in lead  # the catalog's quote, dated


def test_chinese_job_at_a_yuan_rate_and_without_one() -> None:
    priced = first_paragraph(answer("用 Qwen2.5-72B 在 H20 上批量处理 50 万条数据，每条 2k token，租 H20 每卡每小时 7 元，"
                                    "要多久，多少钱？", "zh"))
    cards = number(r"(\d+) 张卡 ×", priced)
    hours = number(r"张卡 × ([\d.]+) 小时", priced)
    assert number(r"约需 ¥([\d,]+)：", priced) == pytest.approx(cards * hours * 7, rel=0.01), priced
    unpriced = first_paragraph(answer("租 H20 批量处理 50 万条数据，模型 Qwen2.5-72B，每条 2k token，总共多少钱？", "zh"))
    assert "没有" in unpriced and "租用价格" in unpriced, unpriced


def test_a_rented_fine_tune_takes_the_count_with_the_fewest_gpu_hours() -> None:
    """Full fine-tuning of an 8B on 100M tokens "on rented H100s": one H100 with the optimizer offloaded to CPU takes
    about four times the GPU-hours of 4 H100s without offload (6·N·D = 4.8e18 FLOPs is about 3 GPU-hours at the
    planner's MFU), and renting charges the GPU-hours: it had been priced on the single offloaded card ($34)."""
    text = answer("how much would it cost to finetune llama 3.1 8b full params on 100M tokens on rented H100s")
    head = text.split("\n\n")[0]
    gpu_hours = number(r"takes about ([\d.]+) GPU-hours", head)
    flops_hours = 6 * 8.03e9 * 100e6 / (989e12 * 3600)  # at 100 % MFU: 1.35 GPU-hours
    assert flops_hours < gpu_hours < 3 * flops_hours, head
    assert number(r"that is \$([\d.]+) at RunPod", head) == pytest.approx(gpu_hours * 2.69, rel=0.02)
    one = answer("how much would it cost to finetune llama 3.1 8b full params on 100M tokens on one H100")
    assert "1× NVIDIA H100" in one.split("\n\n")[0] or "1× NVIDIA H100" in one  # a count said is kept


def test_an_hour_of_rent_asked_for_several_cards_is_their_hour() -> None:
    """"How much per hour to rent enough GPUs …": the configuration's hour (count × the rate), the rate beside it;
    it had said one card's price per GPU-hour."""
    head = answer("how much per hour to rent enough GPUs to serve llama 3.1 405B in FP8 for 20 users?").split("\n\n")[0]
    n = number(r"Renting (\d+)× ", head)
    total = number(r"costs \$([\d.]+)–", head)
    each = number(r"\(\$([\d.]+)–", head)
    assert n > 1 and total == pytest.approx(n * each, rel=0.001), head


def test_dollars_a_month_asked_gives_the_month() -> None:
    head = answer("cheapest way to serve qwen3-32b at 100 req/s? give me $/month").split("\n\n")[0]
    assert re.search(r"\$[\d,]+ a month", head), head


def test_power_a_month_is_not_rent() -> None:
    head = answer("electricity cost per month for a 8x H100 server running 24/7").split("\n\n")[0]
    assert "Electricity" in head or "electricity" in head, head


def test_items_pushed_through_a_model_are_a_batch_job_costed_as_one() -> None:
    """"Push 2 million support tickets through Mistral Nemo on rented L40S": a job of requests, not 1.2B tokens of
    training data; its cost is GPUs × hours × rate (it had been a month of rent)."""
    head = answer("roughly what'd it cost us to push 2 million support tickets (~600 tokens each) through Mistral "
                  "Nemo on rented L40S boxes?").split("\n\n")[0]
    assert "2,000,000 requests" in head and "requests of 600 tokens in" in head, head
    gpus, hours, rate = (number(rx, head) for rx in (r"(\d+) GPUs ×", r"GPUs × ([\d.]+) hours", r"at \$([\d.]+) per GPU"))
    assert number(r"the job costs about \$([\d,.]+)", head) == pytest.approx(gpus * hours * rate, rel=0.02)
