"""Money a person states beside a cost question, read and used (audit of the money inputs):

1. an electricity price ("$0.12/kWh", "12 cents per kWh", "0.8元/度", "电价 1 块", "每度电 0.6 元", "€0.20/kWh") replaces
   the catalog's dated one in the power a year, the TCO, the rent-or-buy verdict, the cost per token and the quote,
   and the answer says so;
2. "$3.50/gpu/hr" is a price per GPU even beside "8x H200 server" ("$98/hour for an 8-GPU p5 instance" stays an
   instance's price);
3. "2x 8xB200 nodes" is 2 servers of 8 (16 GPUs), not 8 servers;
4. a rent-or-buy verdict rents at the quote the TCO compares (on-demand first), and says when that is a spot price.

The expected figures are hand arithmetic from the catalog's own inputs (TDP, platform watts, PUE), not the code's:
energy a year = (GPUs × TDP + servers × platform W) × 8760 h × PUE; power a year = energy × the stated price. The
phrasings marked "held out" were written after the readers, to check they are read in general.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.rental import read_rate
from advisor.conversation.session import Conversation
from advisor.estimator.calibration import load_economics
from advisor.estimator.cost import estimate_tco
from knowledge.catalog import load_catalog
from knowledge.errors import InputError

CAT = load_catalog()
ECON = load_economics()
RATE = float(ECON.exchange_rate_cny_per_usd.value)


def _slots(text: str, lang: str = "en") -> Any:
    return extract(text.lower(), CAT, lang=lang)


def _turn(*texts: str, lang: str = "en") -> Any:
    conv = Conversation(driver="deterministic", lang=lang)
    turn = None
    for text in texts:
        turn = conv.respond(text)
    return turn


def _number(turn: Any, pattern: str) -> float:
    found = [n.value for n in turn.numbers if re.search(pattern, n.name)]
    assert found, (pattern, [n.name for n in turn.numbers])
    return float(found[0])


def _energy_kwh(gpu_id: str, count: int) -> float:
    """(GPUs × TDP + servers × platform W) × 8760 h × PUE, by hand from the catalog and economics.yaml."""
    gpu = CAT.gpu(gpu_id)
    tier = ECON.server_tiers["hgx-8" if gpu.interface in ("sxm", "oam") else "pcie-server-8"]
    servers = -(-count // tier.max_gpus)
    return (count * gpu.tdp_w + servers * tier.power_w) * 8760 * float(ECON.pue.value) / 1000


# ---------------------------------------------------------------------------------------------------------------
# 1. the electricity price: read


@pytest.mark.parametrize(("text", "lang", "amount", "currency", "other"), [
    ("3 year TCO for 2x 8xB200 nodes incl power at $0.12/kWh", "en", 0.12, "USD", None),
    ("we pay $0.25/kWh, 3yr TCO 8x H200 server vs renting at $3.50/gpu/hr", "en", 0.25, "USD", None),
    ("electricity costs us 12 cents per kWh, TCO of 8 H100", "en", 0.12, "USD", None),
    ("power at €0.20/kWh for 4 H100", "en", 0.20, None, "EUR"),
    ("一台8卡H100服务器一年电费多少，电价按0.8元/度", "zh", 0.8, "CNY", None),
    ("按 1 块钱一度电，4090 服务器 8 卡一年电费多少", "zh", 1.0, "CNY", None),
    ("电价 1 块，8卡H100一年电费", "zh", 1.0, "CNY", None),
    ("每度电 0.6 元，8卡H100三年TCO", "zh", 0.6, "CNY", None),
    # held out
    ("our utility charges 9.5 cents/kWh; 3-year cost of owning 16 H100?", "en", 0.095, "USD", None),
    ("power costs $0.18 per kilowatt-hour here, TCO for 4 A100", "en", 0.18, "USD", None),
    ("electricity rate: $0.07, what's the 5 year TCO of 8 B200", "en", 0.07, "USD", None),
    ("with energy at 11¢/kWh what do 8 H200 cost to run a year", "en", 0.11, "USD", None),
    ("we pay 0.8 yuan/kWh for 8 H100", "en", 0.8, "CNY", None),
    ("电费一度0.9元，8卡A800三年总成本", "zh", 0.9, "CNY", None),
    ("工业用电每度 0.65 元，算一下 8 卡 H20 的 TCO", "zh", 0.65, "CNY", None),
    ("我们这边电价才五毛，8卡4090一年电费", "zh", 0.5, "CNY", None),
    ("一度电一块二，L20 8卡一年电费", "zh", 1.2, "CNY", None),
    ("1元/千瓦时", "zh", 1.0, "CNY", None),
])
def test_an_electricity_price_is_read_not_taken_as_a_budget(text: str, lang: str, amount: float, currency: str | None,
                                                           other: str | None) -> None:
    s = _slots(text, lang)
    assert s.electricity is not None, text
    assert s.electricity.amount == pytest.approx(amount)
    assert (s.electricity.currency, s.electricity.other) == (currency, other)
    assert s.budget is None  # "$0.12" was read as a $0.12 budget before


@pytest.mark.parametrize(("text", "lang"), [
    ("8卡H100每天用电200度", "zh"),  # energy used, not a price
    ("我一度以为 8 张 H100 就够了", "zh"),  # "一度" = once
    ("budget $50k for 4 L40S", "en"),
    ("rent H100 at $2/hr", "en"),
    ("power at 0.12", "en"),  # no currency, no kWh: not read as a tariff
])
def test_no_electricity_price_where_none_is_said(text: str, lang: str) -> None:
    assert _slots(text, lang).electricity is None


def test_an_implausible_price_per_kwh_is_said_back_not_replaced() -> None:
    turn = _turn("TCO of 8 H100 at $5/kWh")
    assert "electricity price" in turn.answer and "3/kWh" in turn.answer
    zh = _turn("8卡H100一年电费，电价50元/度", lang="zh")
    assert "电价" in zh.answer and "20/kWh" in zh.answer and "每年电费约" not in zh.answer
    again = _turn("3-year TCO of 8x H100", "and at $5/kWh?")  # a follow-up of a price answer too
    assert "electricity price" in again.answer and "total cost of ownership" not in again.answer


# ---------------------------------------------------------------------------------------------------------------
# 1. the electricity price: the cost model


def test_estimate_tco_takes_the_stated_price_in_its_own_currency() -> None:
    h100 = CAT.gpu("h100-sxm")
    base = estimate_tco(h100, 8, ECON, currency="USD", years=3)
    usd = estimate_tco(h100, 8, ECON, currency="USD", years=3, electricity=0.12)
    cny = estimate_tco(h100, 8, ECON, currency="USD", years=3, electricity=0.8, electricity_currency="CNY")
    kwh = _energy_kwh("h100-sxm", 8)
    assert base.energy_kwh_per_year == pytest.approx(kwh)
    assert usd.power_per_year.amount == pytest.approx(kwh * 0.12)
    assert cny.power_per_year.amount == pytest.approx(kwh * 0.8 / RATE)  # at the dated exchange rate
    assert usd.tco.amount - base.tco.amount == pytest.approx(3 * kwh * (0.12 - float(ECON.electricity_price["USD"].value)))
    stated = [p for p in cny.prices if p.name == "electricity"]
    assert [(p.value, p.unit, p.source) for p in stated] == [(0.8, "CNY/kWh", "user input")]  # recorded as said
    with pytest.raises(InputError):
        estimate_tco(h100, 8, ECON, currency="CNY", electricity=5.0, electricity_currency="USD")  # > $3/kWh


# ---------------------------------------------------------------------------------------------------------------
# 1. the electricity price: every answer that shows power, TCO, rent-or-buy or cost per token


@pytest.mark.parametrize(("text", "lang", "gpu", "count", "price_usd", "said"), [
    ("一台8卡H100服务器一年电费多少，电价按0.8元/度", "zh", "h100-sxm", 8, 0.8 / RATE, "0.8 元/kWh"),
    ("按 1 块钱一度电，4090 服务器 8 卡一年电费多少", "zh", "rtx-4090", 8, 1.0 / RATE, "1 元/kWh"),
    ("how much is electricity per year for an 8x H100 server if we pay 0.8 yuan per kWh", "en", "h100-sxm", 8,
     0.8 / RATE, "¥0.8/kWh"),
    # held out
    ("8卡L20一年电费多少？我们电价 0.55 元/度", "zh", "l20", 8, 0.55 / RATE, "0.55 元/kWh"),
    ("yearly power bill for 8 H200 at 14 cents per kWh?", "en", "h200-sxm", 8, 0.14, "$0.14/kWh"),
])
def test_the_electricity_a_year_is_at_the_stated_price(text: str, lang: str, gpu: str, count: int, price_usd: float,
                                                      said: str) -> None:
    turn = _turn(text, lang=lang)
    lead = turn.answer.split("\n\n")[0]
    bill = _number(turn, r"^electricity per year of")
    currency_rate = RATE if lang == "zh" else 1.0  # the Chinese answer is in yuan
    assert bill == pytest.approx(_energy_kwh(gpu, count) * price_usd * currency_rate, rel=1e-6)
    assert said in lead
    assert ("按你给的电价" if lang == "zh" else "at your") in lead
    assert "0.0895" not in turn.answer and "0.64 元" not in turn.answer  # the catalog's dated price is not used


@pytest.mark.parametrize(("text", "lang", "gpu", "count", "years", "price", "said"), [
    ("3 year TCO for 2x 8xB200 nodes incl power at $0.12/kWh", "en", "b200", 16, 3, 0.12, "$0.12/kWh"),
    ("每度电 0.6 元，8卡H100三年TCO", "zh", "h100-sxm", 8, 3, 0.6, "0.6 元/kWh"),
    # held out
    ("5-year total cost of ownership of 8 A100 80GB with electricity at $0.15 per kWh", "en", "a100-80g-sxm", 8, 5,
     0.15, "$0.15/kWh"),
    ("两台8卡H20服务器三年总拥有成本，电价0.7元/千瓦时", "zh", "h20", 16, 3, 0.7, "0.7 元/kWh"),
])
def test_the_tco_is_at_the_stated_price(text: str, lang: str, gpu: str, count: int, years: int, price: float,
                                       said: str) -> None:
    turn = _turn(text, lang=lang)
    currency = "CNY" if lang == "zh" else "USD"
    base = estimate_tco(CAT.gpu(gpu), count, ECON, currency=currency, years=years)
    tco = _number(turn, r"^TCO of")
    dated = float(ECON.electricity_price[currency].value)
    assert tco - base.tco.amount == pytest.approx(years * _energy_kwh(gpu, count) * (price - dated), rel=1e-6)
    assert said in turn.answer and ("按你给的电价" if lang == "zh" else "at your") in turn.answer


def test_a_follow_up_changes_the_price_of_the_tco_asked_before() -> None:
    turn = _turn("3-year TCO of 8x H100", "and at 12 cents per kWh?")
    base = estimate_tco(CAT.gpu("h100-sxm"), 8, ECON, currency="USD", years=3)
    dated = float(ECON.electricity_price["USD"].value)
    assert _number(turn, r"^TCO of") - base.tco.amount == pytest.approx(3 * _energy_kwh("h100-sxm", 8) * (0.12 - dated))
    assert "$0.12/kWh" in turn.answer


def test_a_price_in_euros_is_taken_without_an_exchange_rate_and_said_so() -> None:
    turn = _turn("electricity per year for 8 H100 at €0.20/kWh?")
    assert _number(turn, r"^electricity per year of") == pytest.approx(_energy_kwh("h100-sxm", 8) * 0.20)
    assert "EUR 0.20/kWh" in turn.answer and "no exchange rate" in turn.answer
    zh = _turn("8卡H100一年电费多少，电价0.2欧元/度", lang="zh")
    assert "未做汇率换算" in zh.answer


@pytest.mark.parametrize(("text", "lang", "price", "said"), [
    ("we pay $0.25/kWh, 3yr TCO 8x H200 server vs renting at $3.50/gpu/hr", "en", 0.25, "$0.25/kWh"),
    # held out
    ("8卡H200买还是租划算？用三年，电价0.9元/度", "zh", 0.9, "0.9 元/kWh"),
    ("is it cheaper to rent 8 H200 or buy them for 3 years? electricity here is 30 cents/kWh", "en", 0.30,
     "$0.30/kWh"),
])
def test_the_rent_or_buy_verdict_owns_at_the_stated_price(text: str, lang: str, price: float, said: str) -> None:
    turn = _turn(text, lang=lang)
    verdict = next(p for p in turn.answer.split("\n\n") if "**" in p and ("cheaper" in p or "便宜" in p))
    purchase = _number(turn, r"^purchase of 8× ")
    own = _number(turn, r"^power and operations a month of 8× .* owned")
    ops = float(ECON.operations_fraction_per_year.value)
    assert own == pytest.approx((_energy_kwh("h200-sxm", 8) * price + ops * purchase) / 12, rel=1e-6)
    assert said in verdict


def test_a_sized_job_costs_power_at_the_stated_price() -> None:
    turn = _turn("serve llama 3.1 70b for 50 users on H100s, electricity is $0.15/kWh, what's the cost per million "
                 "tokens?")
    opt = turn.options[0]
    tco = opt["tco"]
    assert tco["power_per_year"]["amount"] == pytest.approx(tco["energy_kwh_per_year"] * 0.15)
    assert "at your $0.15/kWh" in turn.answer.split("\n\n")[0]  # the cost-per-token lead
    assert "power:" in turn.answer and "at your $0.15/kWh)" in turn.answer  # the cost section
    zh = _turn("部署 Qwen2.5-72B 推理，20 并发，国内，电价 0.6 元/度，每百万 token 成本多少", lang="zh")
    ztco = zh.options[0]["tco"]
    assert ztco["power_per_year"]["amount"] == pytest.approx(ztco["energy_kwh_per_year"] * 0.6)
    assert "0.6 元/kWh" in zh.answer


def test_the_quote_prices_power_at_the_stated_price() -> None:
    from datetime import UTC, datetime  # start-up: only this test builds a quote

    from ui.quote.document import build_quote
    from ui.quote.render import quote_markdown

    asked = ["部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，预算 30 万元，国内，电价 0.6 元/度"]
    md = quote_markdown(build_quote(_turn(*asked, lang="zh"), questions=asked, lang="zh",
                                    generated_at=datetime(2026, 12, 3, tzinfo=UTC)))
    assert "电价按你给的 0.6 元/kWh" in md and re.search(r"\| 电价 \| 0\.60 元/kWh \|.*你给的数字", md)


# ---------------------------------------------------------------------------------------------------------------
# 2. a price per GPU-hour is per GPU, whatever instance is named beside it


@pytest.mark.parametrize(("text", "lang", "amount"), [
    ("we pay $0.25/kWh, 3yr TCO 8x H200 server vs renting at $3.50/gpu/hr", "en", 3.5),
    ("8x H100 server, or rent at $2.50 per gpu per hour", "en", 2.5),
    ("renting a 8xH100 node at $2.2/GPU-h", "en", 2.2),
    ("8卡H200服务器，每卡每小时 18 元租", "zh", 18.0),
    # held out
    ("8x H100 node rented at $3 per GPU-hour", "en", 3.0),
    ("整机 8 卡 4090 按 2 元/卡时", "zh", 2.0),
    ("an 8-GPU B200 box on Lambda is $4.99/GPU/hr, worth renting?", "en", 4.99),
])
def test_a_rate_per_gpu_hour_is_not_divided_by_the_instance(text: str, lang: str, amount: float) -> None:
    rate = _slots(text, lang).rent_rate
    assert rate is not None and rate.amount == pytest.approx(amount) and rate.instance_amount is None


def test_an_instance_price_stays_one() -> None:
    rate, _, _ = read_rate("$98/hour for an 8-gpu p5 instance", "en")
    assert rate is not None and rate.amount == pytest.approx(98 / 8) and rate.gpus == 8


def test_the_rent_answer_is_at_the_rate_per_gpu() -> None:
    turn = _turn("we pay $0.25/kWh, 3yr TCO 8x H200 server vs renting at $3.50/gpu/hr")
    lead = turn.answer.split("\n\n")[0]
    assert "At your $3.50 per GPU-hour" in lead and "divided by" not in lead
    assert "$20,440 a month" in lead  # 8 × 730 h × $3.50


# ---------------------------------------------------------------------------------------------------------------
# 3. servers × GPUs per server


@pytest.mark.parametrize(("text", "lang", "count"), [
    ("3 year TCO for 2x 8xB200 nodes", "en", 16),
    ("2 x 8xH100 servers", "en", 16),
    ("two 8×H200 nodes", "en", 16),
    ("2台8卡H100", "zh", 16),
    ("8x H100 node", "en", 8),
    ("4x 8-GPU servers of H100", "en", 32),
    # held out
    ("3 x 8xA100 boxes", "en", 24),
    ("2x8xH100 nodes", "en", 16),
    ("两台8卡H200服务器", "zh", 16),
    ("4x 8-GPU H100 servers", "en", 32),
])
def test_servers_of_eight(text: str, lang: str, count: int) -> None:
    s = _slots(text, lang)
    assert [c.count for c in s.candidates] == [count]


def test_the_tco_of_two_nodes_prices_two_servers() -> None:
    turn = _turn("3 year TCO for 2x 8xB200 nodes incl power at $0.12/kWh")
    assert "2 servers with 16× NVIDIA B200" in turn.answer
    assert "8 servers" not in turn.answer and "64×" not in turn.answer


# ---------------------------------------------------------------------------------------------------------------
# 4. the rent-or-buy verdict's quote


def test_a_spot_price_in_a_long_verdict_is_said_to_be_one() -> None:
    turn = _turn("rent vs buy 8x RTX 5090 for 3 years at 90% utilization")
    verdict = turn.answer.split("\n\n")[0]
    assert "spot price" in verdict and "may be interrupted" in verdict
    assert "no on-demand quote" in verdict  # the catalog has RunPod's spot price only for the RTX 5090 (knowledge/data/gpus)
    # the A100 80GB SXM4 has AWS's on-demand p4de price (2026-01-21): a three-year verdict rents at it, not at a spot one
    a100 = _turn("rent vs buy 8x A100 80GB for 3 years at 90% utilization").answer.split("\n\n")[0]
    assert "p4de.24xlarge" in a100 and "spot price" not in a100, a100
    zh = _turn("8张 RTX 5090 用三年，利用率90%，租还是买", lang="zh")
    assert "竞价实例价格" in zh.answer.split("\n\n")[0]


@pytest.mark.parametrize(("text", "gpu", "provider", "price"), [
    # the catalog has a cheaper spot quote for both (RunPod), and an on-demand one the verdict must use
    ("rent or buy 8 H100 PCIe for 3 years?", "h100-pcie", "RunPod", 2.79),
    ("is it cheaper to rent or buy 4 L40S over 2 years", "l40s", "AWS (g6e.xlarge, us-east-1)", 1.861),
])
def test_an_on_demand_quote_is_preferred_to_a_cheaper_spot_one(text: str, gpu: str, provider: str,
                                                              price: float) -> None:
    spot = min(q.usd_per_hour for q in CAT.gpu(gpu).cloud if q.tier == "spot")
    assert spot < price  # the cheapest quote is spot: the verdict must not take it
    verdict = _turn(text).answer.split("\n\n")[0]
    assert f"Rent at {provider}'s ${price:.2f} per GPU-hour" in verdict
    assert "spot" not in verdict
