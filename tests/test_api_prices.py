"""Hosted-API prices (knowledge/data/api_prices.yaml, knowledge.api_prices, advisor.estimator.api_cost): the data is
dated and cited, names catalog models, prices are positive and output is not cheaper than input; the lookups rank
the cheapest blend first and a month of tokens is billed as worked out by hand."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from pathlib import Path

import pytest
import yaml

from advisor.estimator.api_cost import api_cost, api_quotes, blended_price, quote_in
from advisor.estimator.calibration import load_economics
from knowledge.api_prices import API_PRICES_FILE, ApiPrice, load_api_prices, parse_api_prices
from knowledge.catalog import load_catalog
from knowledge.errors import CatalogError, InputError

CAT = load_catalog()
TABLE = load_api_prices()
RATE = load_economics().exchange_rate_cny_per_usd.value
# Quotes whose output price is below their input price, though the provider publishes both: none in this snapshot
# (flat-priced endpoints, output = input, are common and allowed). A new exception is added here with its reason.
OUTPUT_BELOW_INPUT: set[tuple[str, str]] = set()


def test_api_prices_are_dated_and_every_source_exists():
    assert len(TABLE.quotes) >= 200
    for q in TABLE.quotes:
        assert dt.date(2025, 1, 1) <= q.as_of <= dt.date.today(), q
        assert q.source in CAT.sources, f"{q.provider} {q.api_model}: source {q.source!r} is not in sources/*.yaml"
        src = CAT.sources[q.source]
        assert src.retrieved is not None and q.as_of <= src.retrieved
        if src.published is not None:  # the quote carries the date of the snapshot it was read from
            assert q.as_of == src.published, (q.api_model, q.source)
    assert TABLE.source_ids() <= set(CAT.sources)


def test_api_price_models_are_catalog_ids_and_closed_ones_name_none():
    catalog_ids = {m.id for m in CAT.models}
    unknown = TABLE.model_ids() - catalog_ids
    assert not unknown, f"not catalog model ids: {sorted(unknown)}"
    closed = [q for q in TABLE.quotes if q.closed]
    assert closed and all(q.model is None for q in closed)
    assert {q.api_model for q in closed} >= {"gpt-4o-mini", "gpt-4.1", "claude-sonnet-4-5", "gemini-2.5-flash"}
    # one quote per (model, provider, endpoint, currency)
    keys = Counter((q.model or q.api_model, q.provider, q.api_model, q.currency) for q in TABLE.quotes)
    assert [k for k, n in keys.items() if n > 1] == []


def test_api_prices_are_positive_and_output_is_not_below_input():
    for q in TABLE.quotes:
        assert q.input_per_m > 0 and q.output_per_m > 0, q
        if q.cached_input_per_m is not None:
            assert 0 < q.cached_input_per_m <= q.input_per_m, q
        if (q.provider, q.api_model) not in OUTPUT_BELOW_INPUT:
            assert q.output_per_m >= q.input_per_m, f"{q.provider} {q.api_model}: output below input"


def test_api_price_coverage_of_the_models_people_compare():
    usd = ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.3-70b", "qwen2.5-72b", "qwen3-32b",
           "qwen3-235b-a22b", "deepseek-v3", "deepseek-r1", "deepseek-v3.2", "gpt-oss-20b", "gpt-oss-120b",
           "mixtral-8x7b", "kimi-k2", "glm-4.6", "minimax-m2"]
    cny = ["deepseek-v3.2", "qwen2.5-72b", "qwen3-235b-a22b", "qwen3-32b", "kimi-k2", "glm-4.7", "minimax-m2"]
    assert [m for m in usd if not api_quotes(m, "USD")] == []
    assert [m for m in cny if not api_quotes(m, "CNY")] == []
    providers = {q.provider for q in TABLE.quotes}
    assert {"Together AI", "Fireworks AI", "DeepInfra", "Groq", "DeepSeek", "Moonshot AI", "AWS Bedrock",
            "Google Vertex AI", "Alibaba Cloud Bailian (DashScope, China)"} <= providers


def test_api_quotes_come_cheapest_blended_first():
    for model in sorted(TABLE.model_ids()):
        for currency in ("USD", "CNY"):
            blends = [q.blended_per_m for q in api_quotes(model, currency, cny_per_usd=RATE)]
            assert blends == sorted(blends), (model, currency)
    # Llama 3.3 70B at 3:1: DeepInfra's FP8 Turbo endpoint (0.13 in, 0.39 out → (3×0.13 + 0.39)/4 = 0.195) beats
    # OpenRouter's listing (0.13, 0.40 → 0.1975); Groq (0.59, 0.79 → 0.64) and Together (0.88 flat) come later
    quotes = api_quotes("llama-3.3-70b", "USD")
    assert (quotes[0].provider, quotes[0].price.api_model) == ("DeepInfra", "meta-llama/Llama-3.3-70B-Instruct-Turbo")
    assert quotes[0].blended_per_m == pytest.approx(0.195)
    assert quotes[1].provider == "OpenRouter" and quotes[1].blended_per_m == pytest.approx(0.1975)
    # the mix changes the order: all output (r = 0) ranks by output price alone
    by_output = api_quotes("llama-3.3-70b", "USD", input_per_output=0)
    assert [q.blended_per_m for q in by_output] == sorted(q.output_per_m for q in by_output)


def test_api_cost_of_a_month_on_groq_worked_by_hand():
    """50M tokens a day at 3:1 input:output is 37.5M input + 12.5M output a day; over 30 days 1,125M input and 375M
    output. Groq lists Llama 3.3 70B (llama-3.3-70b-versatile) at $0.59 per 1M input and $0.79 per 1M output:
    1,125 × 0.59 = $663.75 and 375 × 0.79 = $296.25, so $960.00 for the month (the blend, (3 × 0.59 + 0.79) / 4 =
    $0.64 per 1M, × 1,500M tokens gives the same $960)."""
    [groq] = [q for q in api_quotes("llama-3.3-70b", "USD") if q.provider == "Groq"]
    assert (groq.input_per_m, groq.output_per_m) == (0.59, 0.79)
    month = api_cost(groq, input_tokens=1_125e6, output_tokens=375e6)
    assert month.currency == "USD" and month.amount == pytest.approx(960.00)
    assert groq.blended_per_m == pytest.approx(0.64)


def test_api_cost_in_yuan_with_cache_hits_worked_by_hand():
    """DeepSeek's own API lists DeepSeek-V3.2 at ¥2 per 1M input (cache miss), ¥0.2 (cache hit) and ¥3 per 1M output.
    The same month, 1,125M input and 375M output: 1,125 × 2 + 375 × 3 = ¥3,375. With half the input hitting the cache:
    562.5 × 2 + 562.5 × 0.2 + 375 × 3 = 1,125 + 112.5 + 1,125 = ¥2,362.50."""
    [deepseek] = [q for q in api_quotes("deepseek-v3.2", "CNY") if q.provider == "DeepSeek"]
    assert api_cost(deepseek, 1_125e6, 375e6).amount == pytest.approx(3375.0)
    cached = api_cost(deepseek, 1_125e6, 375e6, cached_input_tokens=562.5e6)
    assert cached.currency == "CNY" and cached.amount == pytest.approx(2362.5)
    # a provider with no cached price charges cache hits as input
    [volc] = [q for q in api_quotes("deepseek-v3.2", "CNY") if q.provider == "Volcengine Ark"]
    assert volc.cached_input_per_m is None
    assert api_cost(volc, 1_125e6, 375e6, cached_input_tokens=562.5e6).amount == pytest.approx(3375.0)


def test_api_quotes_in_the_other_currency_only_with_a_rate():
    listed = api_quotes("deepseek-v3.2", "CNY")
    assert listed and all(q.price.currency == "CNY" and not q.converted for q in listed)
    both = api_quotes("deepseek-v3.2", "CNY", cny_per_usd=RATE)
    assert len(both) > len(listed)
    [usd] = [q for q in both if q.provider == "DeepSeek" and q.converted]
    assert usd.price.input_usd_per_m == 0.28 and usd.input_per_m == pytest.approx(0.28 * RATE)
    assert usd.cached_input_per_m == pytest.approx(0.028 * RATE)
    with pytest.raises(InputError):
        quote_in(usd.price, "CNY")  # a USD quote asked for in CNY without a rate


def test_closed_reference_models_are_looked_up_by_their_api_name():
    [mini] = api_quotes("gpt-4o-mini", "USD")
    assert mini.price.closed and mini.provider == "OpenAI"
    assert (mini.input_per_m, mini.cached_input_per_m, mini.output_per_m) == (0.15, 0.075, 0.60)
    assert api_quotes("no-such-model", "USD") == []


def test_api_lookup_refuses_bad_input():
    [groq] = [q for q in api_quotes("llama-3.3-70b", "USD") if q.provider == "Groq"]
    with pytest.raises(InputError):
        api_quotes("llama-3.3-70b", "EUR")
    with pytest.raises(InputError):
        api_cost(groq, -1, 10)
    with pytest.raises(InputError):
        api_cost(groq, 10, 10, cached_input_tokens=11)
    with pytest.raises(InputError):
        blended_price(1.0, 2.0, float("nan"))


@pytest.mark.parametrize(("change", "words"), [
    ({"input_cny_per_m": 2.0}, "one currency"),
    ({"output_usd_per_m": None}, "both its input and its output"),
    ({"closed": True}, "closed"),
    ({"model": None}, "closed"),
    ({"input_usd_per_m": 0}, "input_usd_per_m"),
    ({"as_of": "last year"}, "as_of"),
])
def test_api_price_loader_refuses_a_malformed_quote(tmp_path: Path, change, words):
    good = {"model": "llama-3.3-70b", "provider": "Groq", "api_model": "llama-3.3-70b-versatile",
            "input_usd_per_m": 0.59, "output_usd_per_m": 0.79, "as_of": "2026-07-24",
            "source": "litellm-prices-2026-07-24"}
    ApiPrice(**{**good, "as_of": dt.date(2026, 7, 24)})  # the unchanged quote is valid
    quote = {k: v for k, v in {**good, **change}.items() if v is not None}
    path = tmp_path / "api_prices.yaml"
    path.write_text(yaml.safe_dump({"quotes": [quote]}), encoding="utf-8")
    with pytest.raises(CatalogError, match=words):
        parse_api_prices(path)


def test_api_price_file_is_the_packaged_one():
    assert API_PRICES_FILE.name == "api_prices.yaml" and API_PRICES_FILE.parent.name == "data"
    assert parse_api_prices(API_PRICES_FILE) == TABLE
