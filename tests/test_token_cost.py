""""What does a million tokens cost on …?" opens with the cost per million output tokens: owned (the TCO over the
hours it runs) and rented (the catalog's dated price per GPU-hour), at the stated load (simulated) or one request at
a time plus full load; a card with no purchase price is still costed rented, naming the cloud price and its date;
with no price at all the answer says so first, with the GPU-hours a million tokens take."""

from __future__ import annotations

import re
from typing import Any

import pytest

from advisor.conversation.reader.intent import asks
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
CNY_PER_USD = 7.1287  # economics.yaml exchange rate (2025-08-21), as the answer converts


def _ask(text: str) -> Any:
    return Conversation(driver="deterministic").respond(text)


def _money(s: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+(?:\.\d+)?)", s)]


def _option(turn: Any, gpu: str) -> dict[str, Any]:
    return next(o for o in turn.options if o["gpu"] == gpu and o["count"] == 1)


@pytest.mark.parametrize(("text", "gpu"), [
    ("How much would a million output tokens of Llama-3.1-8B cost me on an NVIDIA A10?", "a10"),
    ("What is the $/Mtok of Llama-3.1-8B on an A10?", "a10"),
    ("Llama-3.1-8B on a single A10, price per token?", "a10"),
    ("用 A10 部署 Llama-3.1-8B，每百万 token 的成本大概多少？", "a10"),
    ("A10 推理 Llama-3.1-8B，单位 token 成本是多少", "a10"),
    ("T4 上跑 Qwen2.5-7B，一百万个 token 要花多少钱", "t4"),
])
def test_a_card_without_a_purchase_price_is_costed_rented(text: str, gpu: str) -> None:
    turn = _ask(text)
    first = turn.answer.split("\n\n", 1)[0]
    spec = CAT.gpu(gpu)
    assert not spec.prices and spec.cloud  # the premise: no purchase price, dated cloud quotes
    quoted = [q for q in spec.cloud if f"${q.usd_per_hour:.2f}" in first and q.provider in first]
    assert quoted and str(quoted[0].date) in first  # which price, and its date
    # hand arithmetic: one card for one hour at the quoted rate over the tokens it makes in that hour
    tps = _option(turn, gpu)["throughput"]["decode_tokens_per_s_total"]
    rate = quoted[0].usd_per_hour * (CNY_PER_USD if turn.lang == "zh" else 1.0)
    expected = rate / (tps * 3600) * 1e6
    assert any(abs(m - expected) <= 0.01 * expected + 0.01 for m in _money(first)), (first, expected)
    assert ("no dated purchase price" in first) if turn.lang == "en" else ("没有" in first and "购买价格" in first)


@pytest.mark.parametrize(("text", "gpu", "users"), [
    ("Llama-3.1-8B on an L4 with 4 concurrent users: cost per million tokens?", "l4", 4),
    ("L4 上 Llama-3.1-8B 4 路并发，每百万 token 成本", "l4", 4),
    ("Serving Llama-3.1-8B to 6 simultaneous users on one A10, what's the cost per token?", "a10", 6),
])
def test_the_stated_load_is_the_simulated_one(text: str, gpu: str, users: int) -> None:
    turn = _ask(text)
    first = turn.answer.split("\n\n", 1)[0]
    load = _option(turn, gpu)["throughput"]["under_load"]
    assert load is not None and _option(turn, gpu)["throughput"]["concurrency"] == users
    rate = next(q.usd_per_hour for q in CAT.gpu(gpu).cloud if f"${q.usd_per_hour:.2f}" in first)
    expected = rate * (CNY_PER_USD if turn.lang == "zh" else 1.0) / (load["total_tokens_per_s"] * 3600) * 1e6
    assert any(abs(m - expected) <= 0.01 * expected + 0.01 for m in _money(first)), (first, expected)


@pytest.mark.parametrize("text", [
    "What does a million tokens of Llama-3.1-8B cost on one RTX 4090?",
    "Llama-3.1-8B 用一张 4090 推理，每百万 token 成本多少？",
])
def test_a_priced_card_gives_owned_and_rented(text: str) -> None:
    turn = _ask(text)
    first = turn.answer.split("\n\n", 1)[0]
    tco = _option(turn, "rtx-4090")["tco"]
    owned = tco["cost_per_million_tokens"]["owned"]["amount"]  # the TCO's own figure at the same load
    assert any(abs(m - owned) <= 0.01 * owned + 0.01 for m in _money(first)), (first, owned)
    assert ("owned" in first and "rented" in first) if turn.lang == "en" else ("自有" in first and "租用" in first)


@pytest.mark.parametrize(("text", "gpu"), [
    ("Mistral-7B on one A40 — what does each million tokens cost?", "a40"),
    ("cost per 1M output tokens for Qwen2.5-7B on an A30", "a30"),
    ("Llama-3.1-8B on an H100 NVL, cost per token?", "h100-nvl"),
    ("RTX PRO 5000 跑 Qwen2.5-7B 每百万 token 成本", "rtx-pro-5000-blackwell"),
    ("A30 部署 Llama-3.1-8B，token 成本多少", "a30"),
    ("A40 上跑 Mistral-7B，生成一百万个 token 要多少钱？", "a40"),
])
def test_no_price_at_all_is_said_first_with_the_gpu_hours(text: str, gpu: str) -> None:
    turn = _ask(text)
    first = turn.answer.split("\n\n", 1)[0]
    spec = CAT.gpu(gpu)
    assert not spec.prices and not spec.cloud
    assert first.startswith("**The cost per million tokens on" if turn.lang == "en" else "**无法计算")
    tps = _option(turn, gpu)["throughput"]["decode_tokens_per_s_total"]
    hours = 1e6 / (tps * 3600)  # GPU-hours a million tokens take on one card
    m = re.search(r"([\d.]+) GPU[- ](?:hours|小时)", first)
    assert m and abs(float(m.group(1)) - hours) <= 0.05 + 0.01 * hours, (first, hours)


@pytest.mark.parametrize("text", [
    "How much does an L4 cost?", "Serve Llama-3.1-8B to 10 users on an L4", "L4 多少钱一张", "训练 1B tokens 要多久",
])
def test_other_questions_are_not_read_as_a_cost_per_token(text: str) -> None:
    assert not asks("token_cost", text)


def test_the_per_million_formula_by_hand() -> None:
    from advisor.estimator.cost import per_million_tokens, tokens_made

    # 8 GPUs at $2.00 per GPU-hour = $16 an hour; 1,000 tokens/s make 3.6 M tokens an hour: $16 / 3.6 = $4.44 per M
    assert per_million_tokens(16.0, tokens_made(1000.0, 1.0)) == pytest.approx(16 / 3.6)
    # owned: ¥100,000 over 3 years around the clock at 500 tokens/s = 100,000 / (500 × 3600 × 26,280 / 1e6) = ¥2.11
    assert per_million_tokens(100_000.0, tokens_made(500.0, 3 * 8760)) == pytest.approx(2.114, abs=1e-3)


@pytest.mark.parametrize("text", ["Serve Llama 3.1 8B on one L40S: how many users at 30 ms per token?",
                                  "Qwen2.5-7B 在 4090 上每个 token 30 毫秒以内能撑几个人",
                                  "TPOT target 50 ms per token for Llama 3.1 70B on 2 H100"])
def test_a_latency_per_token_is_not_a_cost_question(text: str) -> None:
    from advisor.conversation.reader.intent import QUESTIONS

    assert not QUESTIONS["token_cost"].search(text.lower())
