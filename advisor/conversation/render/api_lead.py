"""The lead of "self-host or use an API?": the cheapest hosted API for the model (knowledge/data/api_prices.yaml,
dated and cited) against the configuration the answer sizes, owned, at the daily volume stated, and the volume at
which self-hosting breaks even.

    API a day         = tokens a day / 10⁶ × blended price          blended = (r × input + output) / (r + 1)
    self-hosted a day = TCO / days it runs                          (the cards are paid for whether busy or idle)
    break-even        = self-hosted a day / blended price × 10⁶      tokens a day

r is the job's input:output ratio (its prompt and output lengths; a chat turn by default). A configuration that
makes fewer tokens a day at full load than the break-even volume never undercuts the API at that size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.conversation.render import firstscreen as fs
from advisor.conversation.render.book import SRC_THROUGHPUT, SRC_USER, Book
from advisor.conversation.render.options_table import opt_name
from advisor.conversation.render.token_cost import owned_day
from advisor.estimator.api_cost import ApiQuote, api_quotes
from advisor.estimator.calibration import load_economics
from advisor.workload import speed_workload
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.analysis.result import Analysis
    from advisor.recommend.results import Option

SRC_API = "knowledge/data/api_prices.yaml"
# the mainland providers' names as their users write them ("api.provider.<key>")
_PROVIDER_KEYS = {"Alibaba Cloud Bailian (DashScope, China)": "bailian", "Zhipu AI (BigModel)": "zhipu",
                  "Moonshot AI": "moonshot", "Volcengine Ark": "volcengine", "SiliconFlow": "siliconflow"}
SRC_SELF = "TCO / days it runs"


def _mix(ev: Analysis) -> float:
    """Input tokens per output token of the job: its prompt and output lengths, a chat turn's when none were said
    (advisor.workload.speed_workload)."""
    w = speed_workload(ev.workload)
    return max(w.prompt_tokens or 1, 1) / max(w.output_tokens or 1, 1)


def _quotes(ev: Analysis) -> list[ApiQuote]:
    rate = load_economics().exchange_rate_cny_per_usd.value
    return api_quotes(ev.model.id, ev.constraints.currency, input_per_output=_mix(ev), cny_per_usd=rate)


def cheapest_api(ev: Analysis) -> ApiQuote | None:
    """The cheapest quote (blended at the job's mix) for the model asked, in the answer's currency, or None. In
    mainland China the mainland providers' own (CNY-listed) quotes first, where any: an overseas API takes foreign
    payment and sends the data abroad, as the rental answers prefer the region's clouds."""
    quotes = _quotes(ev)
    if ev.constraints.region == "cn":
        quotes = [q for q in quotes if not q.converted] or quotes
    return quotes[0] if quotes else None


def named_api(ev: Analysis) -> ApiQuote | None:
    """The cheapest quote of the provider the question names (ev.api_provider), or None when it names none or that
    provider does not list the model."""
    if not ev.api_provider:
        return None
    return next((q for q in _quotes(ev) if q.provider == ev.api_provider), None)


def _most_output(o: Option, ev: Analysis) -> float:
    """Output tokens/s `o` makes at most: at the most sequences it holds (ev.capacity, no load stated), else at the
    most users the simulated load keeps within its per-token target (that many × the target's rate); 0 unknown."""
    cap = ev.capacity.get((o.gpu, o.count)) or {}
    if cap.get("total"):
        return float(cap["total"])
    load = ev.load or {}
    limit, tpot = load.get("max_concurrency_for_target"), (load.get("target") or {}).get("tpot_s")
    return float(limit) / float(tpot) if limit and tpot else 0.0


def api_lead(o: Option, ev: Analysis, book: Book, lang: str, per_day: float | None) -> fs.Lead | None:
    """The API against self-hosting on `o` first (module docstring); None when the catalog has no API price for the
    model or `o` is unpriced or has no serving speed."""
    if ev.workload.is_training or not o.fits:
        return None
    cheapest, day = cheapest_api(ev), owned_day(o)
    quote = named_api(ev) or cheapest
    if quote is None or day is None:
        return None
    cur, where, mix = ev.constraints.currency, f"{o.count}× {o.gpu_name}", _mix(ev)
    api_src = f"{SRC_API}: {quote.provider} ({quote.source}, {quote.as_of})"
    inp = book.money(f"API input price per million tokens ({quote.provider})", quote.input_per_m, cur, api_src)
    out = book.money(f"API output price per million tokens ({quote.provider})", quote.output_per_m, cur, api_src)
    blend = book.money(f"API blended price per million tokens ({quote.provider})", quote.blended_per_m, cur,
                       "(r × input + output) / (r + 1)")
    ratio = book.num("input tokens per output token", mix, "ratio", "prompt / output lengths", 1, suffix="")
    own = book.money(f"self-hosted cost a day on {where}", day, cur, SRC_SELF)
    even = day / quote.blended_per_m * 1e6  # tokens a day at which the API costs as much as owning
    even_s = book.tokens(f"break-even tokens a day on {where}", even, "self-hosted a day / blended price", lang)
    full_out = _most_output(o, ev)
    full = full_out * 86_400 * (1 + mix)  # tokens processed a day at full load, input and output
    reach = ""
    if full:
        full_s = book.tokens(f"tokens a day at full load on {where}", full, SRC_THROUGHPUT, lang)
        reach = t("api.reach.never" if full < even else "api.reach.within", lang, full=full_s)
    key = _PROVIDER_KEYS.get(quote.provider)
    provider = t(f"api.provider.{key}", lang) if key else quote.provider
    price = t("api.quote", lang, provider=provider, inp=inp, out=out, as_of=str(quote.as_of), blend=blend,
              ratio=ratio)
    if per_day:
        vol = book.tokens("tokens a day you stated", per_day, SRC_USER, lang)
        api_day = book.money(f"API cost a day at the stated volume ({quote.provider})",
                             per_day / 1e6 * quote.blended_per_m, cur, "tokens a day / 10⁶ × blended price")
        key = "api.lead.api_cheaper" if per_day < even else "api.lead.self_cheaper"
        text = t(key, lang, vol=vol, price=price, api_day=api_day, name=opt_name(o, book), own=own, even=even_s,
                 reach=reach)
    else:
        text = t("api.lead.no_volume", lang, model=ev.model.name, price=price,
                 name=opt_name(o, book), own=own, even=even_s, reach=reach)
    if ev.api_provider and quote.provider != ev.api_provider:  # the provider named first: it has no quote
        key = _PROVIDER_KEYS.get(ev.api_provider)
        named = t(f"api.provider.{key}", lang) if key else ev.api_provider
        text = t("api.named.unlisted", lang, provider=named, model=ev.model.name) + t("sentence.gap", lang) + text
    return fs.Lead(text + _beside_named(ev, quote, cheapest, book, lang), None, f"break-even tokens a day on {where}")


def _beside_named(ev: Analysis, quote: ApiQuote, cheapest: ApiQuote | None, book: Book, lang: str) -> str:
    """After the comparison with the provider named: the cheapest listed quote when another is cheaper; "" otherwise
    (and when the provider named does not list the model: `api_lead` says so first)."""
    if not ev.api_provider or quote.provider != ev.api_provider:
        return ""
    if cheapest is None or cheapest.provider == quote.provider or cheapest.blended_per_m >= quote.blended_per_m:
        return ""
    key = _PROVIDER_KEYS.get(cheapest.provider)
    name = t(f"api.provider.{key}", lang) if key else cheapest.provider
    blend = book.money(f"API blended price per million tokens ({cheapest.provider})", cheapest.blended_per_m,
                       ev.constraints.currency, "(r × input + output) / (r + 1)")
    return t("sentence.gap", lang) + t("api.named.cheaper", lang, provider=name, blend=blend, as_of=str(cheapest.as_of))
