"""A request rate said over a minute, hour or day ("1000 requests per minute", "每分钟 600 个请求", "50k queries a
day", "3000 rpm") is a rate per second; the concurrency it implies is Little's law L = λ·W with W one request's
decoding time at the per-token target (195 output tokens × 40 ms = 7.8 s unless stated), not one second."""

from __future__ import annotations

import math
import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(("text", "qps"), [
    ("we need to serve 1000 requests per minute of Llama 3.1 8B, how many L4?", 1000 / 60),
    ("每分钟 600 个请求，Qwen2.5-7B 要几张 4090", 10.0),
    ("50k queries a day on Llama 3.1 8B", 50_000 / 86_400),
    ("3000 rpm for Qwen2.5-72B on H100", 50.0),
    ("每天 10 万次调用，部署 Qwen2.5-14B", 100_000 / 86_400),
    ("10k requests per hour, Qwen2.5-7B on L40S", 10_000 / 3_600),
    ("20 qps on llama 3.1 8b", 20.0),
])
def test_a_rate_over_a_period_is_per_second(text: str, qps: float) -> None:
    assert extract(text, load_catalog()).qps == pytest.approx(qps)


@pytest.mark.parametrize(("text", "lang", "qps", "tpot_s"), [
    ("we need to serve 1000 requests per minute of Llama 3.1 8B, how many L4?", "en", 1000 / 60, 0.040),
    ("20 qps on llama 3.1 8b with 50 ms per token, how many H100?", "en", 20.0, 0.050),
    ("每分钟 600 个请求，Qwen2.5-7B 要几张 4090", "zh", 10.0, 0.040),
])
def test_the_concurrency_is_littles_law_at_the_target(text: str, lang: str, qps: float, tpot_s: float) -> None:
    answer = Conversation(lang=lang).respond(text).answer
    m = re.search(r"(?:KV cache of|是) (\d+) (?:sequences|路序列)", answer) or re.search(
        r"(?:At (\d+) concurrent users|(\d+) 路并发时)", answer)
    assert m, answer[:400]
    conc = int(next(g for g in m.groups() if g))
    assert conc == math.ceil(round(qps * 195 * tpot_s, 6)), conc
