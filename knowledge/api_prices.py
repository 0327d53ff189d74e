"""Hosted-API prices per million tokens: `knowledge/data/api_prices.yaml`, typed and validated.

Each :class:`ApiPrice` is one provider endpoint's list price for a model's input, output and (where published)
cached-input tokens, in the one currency the provider bills (USD or CNY), dated (`as_of`: the date of the snapshot
quoted) and cited (`source`: an id of `data/sources/*.yaml`). `model` is a catalog id (`data/models/<id>.yaml`);
a closed model people compare against (GPT-4o mini, Claude, Gemini Flash) has none and says `closed: true`.
The tests check that every source and model id resolves. Ranking and pricing a token count are in
:mod:`advisor.estimator.api_cost`.
"""

# No `from __future__ import annotations`: as in knowledge.schemas, the field annotations are evaluated when the
# class is made.

import datetime as dt
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from knowledge.catalog import read_yaml, validate_file
from knowledge.quantities import Currency
from knowledge.schemas import Slug
from knowledge.structs import Frozen, Meta, PositiveFloat

API_PRICES_FILE = Path(__file__).resolve().parent / "data" / "api_prices.yaml"


class ApiPrice(Frozen):
    """One provider's list price for one model's tokens, per million tokens, in the currency it bills."""

    provider: str
    api_model: str  # the provider's name of the endpoint
    model: Slug | None = None  # catalog id; None only for a closed model
    closed: bool = False  # no open weights: a reference to compare with, not a model to self-host
    input_usd_per_m: PositiveFloat | None = None  # a cache miss where the provider prices cache hits apart
    output_usd_per_m: PositiveFloat | None = None
    cached_input_usd_per_m: PositiveFloat | None = None
    input_cny_per_m: PositiveFloat | None = None
    output_cny_per_m: PositiveFloat | None = None
    cached_input_cny_per_m: PositiveFloat | None = None
    as_of: dt.date  # the date of the snapshot quoted
    source: str
    note: str = ""

    def check_invariants(self) -> None:
        if self.closed == (self.model is not None):
            raise ValueError("a quote names a catalog model, or says closed: true and names none")
        usd = (self.input_usd_per_m, self.output_usd_per_m, self.cached_input_usd_per_m)
        cny = (self.input_cny_per_m, self.output_cny_per_m, self.cached_input_cny_per_m)
        for given, other in ((usd, cny), (cny, usd)):
            if given[0] is not None or given[1] is not None:
                if given[0] is None or given[1] is None:
                    raise ValueError("a quote needs both its input and its output price")
                if any(v is not None for v in other):
                    raise ValueError("a quote is in one currency: *_usd_per_m or *_cny_per_m, not both")
                return
        raise ValueError("a quote needs input_usd_per_m and output_usd_per_m, or input_cny_per_m and output_cny_per_m")

    @property
    def currency(self) -> Currency:
        """The currency the provider bills this endpoint in."""
        return "USD" if self.input_usd_per_m is not None else "CNY"

    @property
    def input_per_m(self) -> float:
        value = self.input_usd_per_m if self.currency == "USD" else self.input_cny_per_m
        assert value is not None  # check_invariants
        return value

    @property
    def output_per_m(self) -> float:
        value = self.output_usd_per_m if self.currency == "USD" else self.output_cny_per_m
        assert value is not None  # check_invariants
        return value

    @property
    def cached_input_per_m(self) -> float | None:
        return self.cached_input_usd_per_m if self.currency == "USD" else self.cached_input_cny_per_m


class ApiPriceTable(Frozen):
    """The quotes of api_prices.yaml, in file order."""

    quotes: Annotated[tuple[ApiPrice, ...], Meta(min_length=1)]

    def source_ids(self) -> set[str]:
        return {q.source for q in self.quotes}

    def model_ids(self) -> set[str]:
        return {q.model for q in self.quotes if q.model is not None}


def parse_api_prices(path: Path) -> ApiPriceTable:
    """The validated table of `path`; a malformed file raises CatalogError naming the file and field."""
    shown = path.name
    return validate_file(ApiPriceTable, read_yaml(path), shown)


@lru_cache(maxsize=4)
def _load(path: str) -> ApiPriceTable:
    return parse_api_prices(Path(path))


def load_api_prices(path: str | os.PathLike[str] | None = None) -> ApiPriceTable:
    """The validated API price table (default: the package's `knowledge/data/api_prices.yaml`), cached per process."""
    return _load(str(Path(path) if path is not None else API_PRICES_FILE))


# How people name the providers of the table in a question (lower case; a name that is also a model family's,
# DeepSeek, MiniMax, Mistral, OpenAI, Anthropic, Google, Moonshot, Z.ai, is left out: "DeepSeek" names the model)
PROVIDER_ALIASES: dict[str, tuple[str, ...]] = {
    "Groq": ("groq",),
    "DeepInfra": ("deepinfra", "deep infra"),
    "Fireworks AI": ("fireworks",),
    "Together AI": ("together ai", "together.ai", "togetherai", "together's api", "together api"),
    "OpenRouter": ("openrouter", "open router"),
    "Cerebras": ("cerebras",),
    "AWS Bedrock": ("bedrock",),
    "Google Vertex AI": ("vertex",),
    "SiliconFlow": ("siliconflow", "硅基流动"),
    # the API products, not the clouds that also rent GPUs ("在阿里云上部署" rents cards)
    "Alibaba Cloud Bailian (DashScope, China)": ("bailian", "dashscope", "百炼", "阿里云 api", "阿里云api", "阿里云的 api",
                                                 "阿里云的api", "aliyun api", "alibaba cloud api", "阿里云接口"),
    "Volcengine Ark": ("volcengine ark", "火山方舟", "火山引擎 api", "火山引擎api", "火山引擎的 api", "火山引擎的api",
                       "volcengine api"),
    "Zhipu AI (BigModel)": ("bigmodel", "智谱"),
}


def provider_named(text: str) -> str | None:
    """The API provider of the price table a question names ("is paying Groq cheaper …", "用硅基流动的 API"), or
    None (the first of PROVIDER_ALIASES met, in the table's spelling)."""
    low = text.lower()
    hits = [(low.find(a), name) for name, aliases in PROVIDER_ALIASES.items() for a in aliases if a in low]
    return min(hits)[1] if hits else None
