"""What a hosted API charges for a model's tokens, from the dated, cited quotes of knowledge/data/api_prices.yaml
(:mod:`knowledge.api_prices`): the quotes for one model, cheapest first at a stated input:output mix, and the bill
for a number of tokens — the other side of the self-hosting cost per million tokens (advisor.estimator.cost).

    blended price / 1M tokens = (r × input price + output price) / (r + 1)        r = input tokens per output token
                                                                                 (3 for the usual 3:1 mix)
    bill = (input − cached) × input price + cached × cached-input price + output × output price, per 10⁶ tokens
           (cached input at the input price where the provider publishes no cached price)
    a quote listed in the other currency: × or ÷ the caller's CNY-per-USD rate (economics.yaml's, dated)

Prices are pay-as-you-go list prices as of each quote's `as_of` date; batch, off-peak and promotional prices are not
in the table. No I/O beyond reading the cached table when none is passed.
"""

from __future__ import annotations

import datetime as dt
import math

from knowledge.api_prices import ApiPrice, ApiPriceTable, load_api_prices
from knowledge.errors import InputError
from knowledge.quantities import Money
from knowledge.structs import Value

# input tokens per output token of the mix quotes are ranked at: 3:1, the blend price comparisons commonly use
DEFAULT_INPUT_PER_OUTPUT = 3.0
CURRENCIES = ("USD", "CNY")


class ApiQuote(Value):
    """One endpoint's prices in the currency asked for, with the quote as listed (`price`: provider, date, source)."""

    price: ApiPrice
    currency: str  # of the figures below
    input_per_m: float
    output_per_m: float
    cached_input_per_m: float | None
    blended_per_m: float  # at the input:output mix of the lookup
    converted: bool  # listed in the other currency and converted at the caller's rate

    @property
    def provider(self) -> str:
        return self.price.provider

    @property
    def as_of(self) -> dt.date:
        return self.price.as_of

    @property
    def source(self) -> str:
        return self.price.source


def _check_currency(currency: str) -> None:
    if currency not in CURRENCIES:
        raise InputError(f"unknown currency {currency!r}", field="currency", accepted="CNY, USD")


def _check_count(value: float, field: str) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
        raise InputError(f"{field} must be a finite number ≥ 0, got {value!r}", field=field)


def blended_price(input_per_m: float, output_per_m: float, input_per_output: float = DEFAULT_INPUT_PER_OUTPUT) -> float:
    """Price per million tokens of a mix with `input_per_output` input tokens per output token:
    (r × input + output) / (r + 1)."""
    _check_count(input_per_output, "input_per_output")
    return (input_per_output * input_per_m + output_per_m) / (input_per_output + 1.0)


def _convert(amount: float | None, listed: str, currency: str, cny_per_usd: float) -> float | None:
    if amount is None or listed == currency:
        return amount
    return amount * cny_per_usd if listed == "USD" else amount / cny_per_usd


def quote_in(price: ApiPrice, currency: str, *, input_per_output: float = DEFAULT_INPUT_PER_OUTPUT,
             cny_per_usd: float | None = None) -> ApiQuote:
    """`price` in `currency`: as listed, or converted at `cny_per_usd` (required when the currencies differ)."""
    _check_currency(currency)
    listed = price.currency
    if listed != currency and cny_per_usd is None:
        raise InputError(f"{price.provider} lists {price.api_model} in {listed}: give cny_per_usd to convert it",
                         field="cny_per_usd")
    rate = 1.0 if cny_per_usd is None else cny_per_usd
    if listed != currency and not (math.isfinite(rate) and rate > 0):
        raise InputError(f"cny_per_usd must be a positive number, got {cny_per_usd!r}", field="cny_per_usd")
    inp = _convert(price.input_per_m, listed, currency, rate)
    out = _convert(price.output_per_m, listed, currency, rate)
    assert inp is not None and out is not None
    cached = _convert(price.cached_input_per_m, listed, currency, rate)
    return ApiQuote(price=price, currency=currency, input_per_m=inp, output_per_m=out, cached_input_per_m=cached,
                    blended_per_m=blended_price(inp, out, input_per_output), converted=listed != currency)


def api_quotes(model_id: str, currency: str, table: ApiPriceTable | None = None, *,
               input_per_output: float = DEFAULT_INPUT_PER_OUTPUT, cny_per_usd: float | None = None) -> list[ApiQuote]:
    """The hosted-API quotes for `model_id` (a catalog id, or a closed model's api_model such as "gpt-4o-mini"),
    cheapest blended price first at `input_per_output` input tokens per output token (then provider, endpoint).

    Without `cny_per_usd` only the quotes listed in `currency` come back; with it, those listed in the other
    currency too, converted (`converted=True`). An unknown id gives an empty list. `table`: the loaded table
    (default: the package's, knowledge.api_prices.load_api_prices())."""
    _check_currency(currency)
    _check_count(input_per_output, "input_per_output")
    rows = (table or load_api_prices()).quotes
    hits = [q for q in rows if q.model == model_id or (q.closed and q.api_model == model_id)]
    quotes = [quote_in(q, currency, input_per_output=input_per_output, cny_per_usd=cny_per_usd)
              for q in hits if q.currency == currency or cny_per_usd is not None]
    return sorted(quotes, key=lambda q: (q.blended_per_m, q.price.provider, q.price.api_model))


def api_cost(quote: ApiQuote, input_tokens: float, output_tokens: float, cached_input_tokens: float = 0.0) -> Money:
    """The bill for `input_tokens` (of which `cached_input_tokens` hit the provider's prompt cache) and
    `output_tokens` at `quote`: per-million prices × tokens / 10⁶, cached input at the cached-input price where the
    provider publishes one, else at the input price."""
    for value, field in ((input_tokens, "input_tokens"), (output_tokens, "output_tokens"),
                         (cached_input_tokens, "cached_input_tokens")):
        _check_count(value, field)
    if cached_input_tokens > input_tokens:
        raise InputError(f"cached_input_tokens ({cached_input_tokens:g}) exceed input_tokens ({input_tokens:g})",
                         field="cached_input_tokens")
    cached_price = quote.cached_input_per_m if quote.cached_input_per_m is not None else quote.input_per_m
    amount = ((input_tokens - cached_input_tokens) * quote.input_per_m + cached_input_tokens * cached_price
              + output_tokens * quote.output_per_m) / 1e6
    return Money(amount=amount, currency=quote.currency)  # type: ignore[arg-type]
