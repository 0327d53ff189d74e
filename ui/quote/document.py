"""The quote a sales engineer attaches: one typed `Quote` built from the conversation's latest recommendation, and
its Markdown and print-ready HTML renderings (the PDF is that HTML printed by Chromium: `ui.quote.pdf`).

What it holds, all read from the turn (nothing computed here but unit conversion and dates):
* the whole request — every message of the conversation up to the recommendation, not just the last follow-up;
* the job and constraints in words ("budget ¥300,000", "20 concurrent users"), never `budget: 300000.0`;
* the headline (the answer's first line), the ranked options, the first option's memory per GPU;
* each price with its condition (new / used / street estimate), its date and its source's reliability;
* each finding once, under its short title, with its sources by title and date (never a repository file path);
* the assumptions the answer rests on, and the quote's validity date (`QUOTE_VALID_DAYS` after it was made,
  or earlier when a price it uses is older than `PRICE_STALE_DAYS` — then the quote says so).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import msgspec

from advisor.conversation.render.cost import dated_zh
from advisor.conversation.render.labels import FORMAT, region_label, slot_label, task_label
from advisor.estimator.cost import STATED  # the source of a figure the user gave
from advisor.recommend.prices import PRICE_STALE_DAYS  # older than this at quote time: get a fresh supplier quote
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError
from knowledge.messages import known, t
from knowledge.quantities import Seconds
from knowledge.structs import Value
from rules.sources import source
from rules.titles import rule_title
from ui.citations import source_without_path
from ui.turn_like import TurnLike
from ui.web import panels as R
from ui.web.messages import LANGS

QUOTE_VALID_DAYS = 30  # a GPU quote's prices are good for about a month: the market moves (DESIGN.md prices)

CURRENCY_SIGN = {"CNY": "¥", "USD": "$"}


def _known(key: str, lang: str, default: str) -> str:
    """The catalog's message `key` in `lang`, or `default` for a value the catalog has no words for."""
    return t(key, lang) if known(key) else default


def money_words(amount: float, currency: str | None) -> str:
    """"¥300,000" / "$60,000" / "1,234 EUR": the currency sign where there is one, whole units."""
    sign = CURRENCY_SIGN.get(currency or "")
    return f"{sign}{amount:,.0f}" if sign else f"{amount:,.0f} {currency or ''}".strip()


class PriceLine(Value):
    """One dated price the quote uses."""

    item: str
    amount: float
    currency: str
    condition: str  # new / used / street estimate (in the quote's language)
    as_of: str | None
    reliability: str | None
    source: str  # by title and date


class FindingLine(Value):
    severity: str
    title: str
    message: str
    rule_id: str
    sources: tuple[str, ...]
    as_of: str | None = None


class Quote(Value):
    lang: str
    generated_at: datetime
    valid_until: date
    generator: str  # "GPU Advisor (deterministic mode)" / "GPU Advisor (LLM model-name)"
    request: tuple[str, ...]
    job: tuple[str, ...]
    constraints: tuple[str, ...]
    headline: str
    table: dict[str, Any]
    memory: tuple[tuple[str, float], ...]  # (part, GiB) of the first option
    prices: tuple[PriceLine, ...]
    findings: tuple[FindingLine, ...]
    sources: tuple[str, ...]
    assumptions: tuple[str, ...]
    launch_hints: tuple[tuple[str, str], ...]
    stale_prices: tuple[str, ...] = ()
    configuration: str = ""  # the recommended configuration in words with its full price and TCO
    alternatives: tuple[tuple[str, ...], ...] = ()  # (configuration, why, purchase, TCO, speed) of 2–3 others
    risks: tuple[str, ...] = ()  # warnings and blocks in plain words (no rule ids)
    prices_as_of: str = ""  # the newest and oldest dates of the card prices used

    def to_json(self) -> dict[str, Any]:
        """The quote's words for the JSON export (beside the raw contract fields)."""
        return {
            "lang": self.lang, "generated_at": self.generated_at.isoformat(timespec="seconds"),
            "valid_until": self.valid_until.isoformat(), "request": list(self.request), "job": list(self.job),
            "constraints": list(self.constraints), "headline": self.headline,
            "prices": [msgspec.structs.asdict(p) for p in self.prices],
            "findings": [{**msgspec.structs.asdict(f), "sources": list(f.sources)} for f in self.findings],
            "sources": list(self.sources), "assumptions": list(self.assumptions),
            "stale_prices": list(self.stale_prices), "configuration": self.configuration,
            "alternatives": [list(a) for a in self.alternatives], "risks": list(self.risks),
            "prices_as_of": self.prices_as_of,
        }


# ---------------------------------------------------------------------------------------------------------------
# Building the quote from a turn


def _get(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, Mapping) else getattr(obj, name, default)


def source_words(source_id: str, lang: str = "en") -> str:
    """A registry source by title and date ("Title (published 2025-06-16)", "Title (retrieved 2025-08-21)", the
    date's kind in `lang`), never its repository file; the id itself when the registry lacks it."""
    try:
        src = source(source_id)
    except Exception:  # noqa: BLE001 - an unknown id is shown as it is rather than dropped
        return source_id
    title = src.title.strip()
    when = src.published or src.retrieved
    if when and when.isoformat() not in title:
        title += t("quote.source_published" if src.published else "quote.source_retrieved", lang,
                   when=when.isoformat())
    if src.url and not src.document:
        title += f" — {src.url}"
    return title


def _source_ids(value: Any) -> list[str]:
    if isinstance(value, str):
        return [s.strip() for s in value.split(",") if s.strip()]
    if isinstance(value, (list, tuple)):
        return [str(s) for s in value if s]
    return []


def _words(job: Mapping[str, Any], limits: Mapping[str, Any], slots: Mapping[str, Any],
           lang: str) -> tuple[list[str], list[str]]:
    """The job and the constraints as phrases in `lang` (labels from advisor.conversation.render.labels)."""
    job_words: list[str] = []
    model = slots.get("model_text") or job.get("model")
    if model:
        job_words.append(t("quote.model", lang, model=str(model)))
    if job.get("task"):
        job_words.append(task_label(job["task"], lang))
    if job.get("weights"):
        job_words.append(t("quote.weights", lang, fmt=FORMAT.get(job["weights"], str(job["weights"]).upper())))
    if job.get("kv"):
        job_words.append(t("quote.kv", lang, fmt=FORMAT.get(job["kv"], str(job["kv"]).upper())))
    if job.get("context"):
        job_words.append(t("quote.context", lang, context=int(job["context"])))
    if job.get("concurrency"):
        job_words.append(t("quote.concurrency", lang, n=int(job["concurrency"])))
    done = {"model", "task", "weights", "kv", "context", "concurrency"}
    for key, value in job.items():
        if key not in done and value not in (None, "", [], {}):
            job_words.append(f"{slot_label(key, lang)} {_plain_value(value)}")
    limits_words: list[str] = []
    currency = limits.get("currency") or slots.get("currency")  # the slots keep what the user typed ("$400,000")
    if limits.get("budget"):
        limits_words.append(t("quote.budget", lang, money=money_words(float(limits["budget"]), currency)))
    region = limits.get("region") or slots.get("region")
    if region:
        limits_words.append(t("quote.region", lang, region=region_label(region, lang)))
    if limits.get("condition") == "used":
        limits_words.append(t("quote.used_accepted", lang))
    for key in ("existing", "candidates"):
        if limits.get(key):
            limits_words.append(_gpus_words(key, limits[key], lang))
    power = limits.get("electricity")
    if isinstance(power, Mapping) and power.get("per_kwh"):  # the person's own tariff (Constraints.electricity)
        cur = str(power.get("currency") or currency or "USD")
        limits_words.append(t("quote.electricity", lang, price=t(f"power.price.{cur}", lang, v=f"{float(power['per_kwh']):g}")))
    done = {"budget", "currency", "region", "condition", "existing", "candidates", "electricity"}
    for key, value in limits.items():
        if key not in done and value not in (None, "", [], {}):
            limits_words.append(f"{slot_label(key, lang)} {_plain_value(value)}")
    return job_words, limits_words


def _gpu_display(gpu: Any) -> str:
    """A catalog card's display name ("GeForce RTX 4090"); the text as given when the catalog lacks it."""
    try:
        return load_catalog().gpu(str(gpu)).name
    except AdvisorError:
        return str(gpu)


def _gpus_words(key: str, value: Any, lang: str) -> str:
    """"2× GeForce RTX 4090 (already owned)" / "候选显卡：NVIDIA L20、GeForce RTX 4090 D" — never "gpu rtx-4090, count 2"."""
    items = value if isinstance(value, (list, tuple)) else [value]
    names = []
    for item in items:
        if isinstance(item, Mapping):
            count = item.get("count")
            names.append((f"{count}× " if count else "") + _gpu_display(item.get("gpu") or item.get("name") or "?"))
        else:
            names.append(_gpu_display(item))
    listed = t("list.sep", lang).join(names)
    return t("quote.owned_gpus" if key == "existing" else "quote.compared_gpus", lang, names=listed)


def _plain_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {v}" for k, v in value.items() if v not in (None, "", [], {}))
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain_value(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return f"{int(value):,}"
    return str(value)


def _prices(options: Sequence[Mapping[str, Any]], lang: str) -> list[PriceLine]:
    """Per-card prices of the ranked options (each card once) and the first option's other dated inputs."""
    out: list[PriceLine] = []
    seen: set[str] = set()
    for opt in options:
        price = opt.get("price")
        gpu = str(opt.get("gpu_name") or opt.get("gpu") or "?")
        if not isinstance(price, Mapping) or R.number_or_none(price.get("amount")) is None or gpu in seen:
            continue
        seen.add(gpu)
        cond = str(price.get("condition") or "new")
        out.append(PriceLine(
            item=t("quote.per_card", lang, gpu=gpu), amount=float(price["amount"]),
            currency=str(price.get("currency") or ""), condition=_known(f"price.condition.{cond}", lang, cond),
            as_of=price.get("as_of"), reliability=_known(f"price.reliability.{price.get('reliability')}", lang, "") or None,
            source="; ".join(source_words(s, lang) for s in _source_ids(price.get("source")))))
    tco = options[0].get("tco") if options else None
    for entry in (tco.get("prices") or []) if isinstance(tco, Mapping) else []:
        name = str(entry.get("name", ""))
        if "per card" in name or R.number_or_none(entry.get("value")) is None:
            continue  # the card's own price is listed above, with its condition
        out.append(PriceLine(item=_input_name(name, lang), amount=float(entry["value"]),
                             currency=_input_unit(str(entry.get("unit") or ""), lang),
                             condition="–", as_of=entry.get("as_of"), reliability=None,
                             source=t("quote.user_input", lang) if entry.get("source") == STATED else
                             "; ".join(source_words(s, lang) for s in _source_ids(entry.get("source")))))
    return out


def _speed_words(opt: Mapping[str, Any], lang: str) -> str:
    """Serving: tokens/s for each user (1000 / ms per output token) and in total; training: the wall-clock."""
    speed = opt.get("throughput") or {}
    if not isinstance(speed, Mapping):
        return "–"
    if R.number_or_none(speed.get("wall_s")) is not None:
        return t("quote.train_days", lang, days=Seconds(float(speed["wall_s"])).days)
    ms, total = R.number_or_none(speed.get("ms_per_token")), R.number_or_none(speed.get("decode_tokens_per_s_total"))
    if ms is None or not ms:
        return "–"
    tail = t("quote.speed_total", lang, total=total) if total else ""
    return t("quote.speed_each", lang, each=1000.0 / ms, tail=tail)


def _purchase_words(opt: Mapping[str, Any], lang: str) -> tuple[str, str]:
    """(purchase, TCO) of an option in words: the whole configuration (GPUs and servers) and its TCO over the
    horizon; owned cards: "already owned" and their running cost (power and operations)."""
    tco_amount, tco_cur, years = R.option_tco(opt)
    y = f"{float(years):g}" if R.number_or_none(years) is not None else "3"
    tco = t("quote.tco_years", lang, money=money_words(tco_amount, tco_cur), years=y) if tco_amount is not None else "–"
    if R.owned(opt):
        return t("quote.nothing_to_buy", lang), (t("quote.running_cost", lang, tco=tco) if tco_amount is not None else "–")
    amount, cur = R.option_purchase(opt)
    if amount is None:
        return t("quote.no_price", lang), tco
    cost = opt.get("tco") if isinstance(opt.get("tco"), Mapping) else {}
    servers = int(R.number_or_none((cost or {}).get("servers")) or opt.get("nodes") or 1)
    with_servers = (t("quote.with_servers", lang, n=servers) if (cost or {}).get("purchase")
                    else t("quote.cards_only", lang))
    return money_words(amount, cur) + with_servers, tco


def _configuration(opt: Mapping[str, Any], lang: str) -> str:
    buy, tco = _purchase_words(opt, lang)
    name = R.option_name(opt) + (t("suffix.owned", lang) if R.owned(opt) else "")
    if "used" in (opt.get("labels") or []):
        name += t("suffix.used", lang)
    key = "quote.config_owned" if R.owned(opt) else "quote.config"
    return t(key, lang, name=name, buy=buy, tco=tco, speed=_speed_words(opt, lang))


def _alternatives(options: Sequence[Mapping[str, Any]], lang: str) -> list[tuple[str, ...]]:
    """Up to three other options, the labelled ones first: (configuration, why, purchase, TCO, speed)."""
    rest = list(options[1:])
    rest.sort(key=lambda o: 0 if set(o.get("labels") or []) - {"quantised"} else 1)  # stable: the ranking's order
    out: list[tuple[str, ...]] = []
    for opt in rest[:3]:
        buy, tco = _purchase_words(opt, lang)
        why = R.option_label(opt, lang)
        out.append((R.option_name(opt), "" if why == "–" else why, buy, tco, _speed_words(opt, lang)))
    return out


def _risks(findings: Sequence[FindingLine]) -> list[str]:
    """The warnings and blocks in plain words (title and message, no rule ids or guide numbers), the most serious
    first."""
    order = {"block": 0, "warn": 1}
    picked = sorted((f for f in findings if f.severity in order), key=lambda f: order[f.severity])
    return [R.plain_words(f"{f.title}: {f.message}" if f.title and f.title not in f.message else f.message)
            for f in picked][:5]


def _input_name(name: str, lang: str) -> str:
    """A cost input's name (advisor.estimator.cost's English) in the quote's language."""
    if lang != "zh":
        return name
    m = re.fullmatch(r"server tier (\S+) \(rest of system\)", name)
    return t("quote.input.rest_of_system", lang, tier=m.group(1)) if m else _known(f"cost_input.{name}", lang,
                                                                                    dated_zh(name, "")[0])


def _input_unit(unit: str, lang: str) -> str:
    """A cost input's unit ("CNY per GPU-hour", "ratio") in the quote's language; currency codes stay (they pick
    the sign)."""
    return unit if lang != "zh" or unit in ("CNY", "USD") else dated_zh("", unit)[1]


def _findings(turn: TurnLike, lang: str) -> list[FindingLine]:
    """Each finding once (by rule id), under its short title, with its sources by title and date."""
    out: list[FindingLine] = []
    seen: set[str] = set()
    for f in R.finding_dicts(turn):
        rule_id = str(f.get("rule_id", ""))
        if rule_id in seen:
            continue
        seen.add(rule_id)
        ids = _source_ids(f.get("sources"))
        sources = tuple(source_words(s, lang) for s in ids) or ((source_without_path(str(f["source"])),)
                                                          if f.get("source") else ())
        out.append(FindingLine(severity=str(f.get("severity", "")), title=rule_title(rule_id, lang),
                               message=str((f.get("message_zh") if lang == "zh" else None) or f.get("message") or ""),
                               rule_id=rule_id, sources=sources, as_of=f.get("as_of")))
    return out


_ASSUMPTION_HEAD = re.compile(r"^\*\*(Assumptions|假设)[:：]?\*\*[:：]?\s*$")


def _assumptions(turn: TurnLike) -> list[str]:
    """The turn's assumptions: its `extra["assumptions"]` when the conversation layer lists them, else the
    bullets under the answer's "Assumptions" heading."""
    listed = (_get(turn, "extra", {}) or {}).get("assumptions")
    if isinstance(listed, (list, tuple)) and listed:
        return [str(a) for a in listed]
    out: list[str] = []
    inside = False
    for line in str(_get(turn, "answer", "") or "").splitlines():
        if _ASSUMPTION_HEAD.match(line.strip()):
            inside = True
            continue
        if inside:
            if line.lstrip().startswith(("- ", "* ")):
                out.append(line.lstrip()[2:].strip())
            elif line.strip():
                break
    return out


def headline(turn: TurnLike) -> str:
    """The answer's first line without Markdown emphasis: what the recommendation says in one sentence (the chat's
    "within your budget of …" opening left out: the quote lists the budget under its constraints)."""
    for line in str(_get(turn, "answer", "") or "").splitlines():
        text = re.sub(r"[*_`#>]+", "", line).strip()
        if text and not text.startswith("<"):
            return _WITHIN_BUDGET.sub("", text, count=1)
    return ""


def _budget_opening() -> re.Pattern[str]:
    """The chat lead's budget opening (render.lead.within_budget) in either language, any amounts."""
    alts = []
    for lang in LANGS:
        for key in ("lead.within_budget", "lead.within_budget.spent"):
            said = re.sub(r"[*_`#>]+", "", t(key, lang, budget="\0", spent="\0", when="\0"))
            alts.append(".+?".join(re.escape(part) for part in said.split("\0")))
    return re.compile("^(?:" + "|".join(sorted(alts, key=len, reverse=True)) + ")")


_WITHIN_BUDGET = _budget_opening()


def build_quote(turn: TurnLike, *, questions: Sequence[str] = (), lang: str = "en",
                generated_at: datetime | None = None) -> Quote:
    """The quote for `turn` (the latest recommendation) and the messages that led to it, in `lang`."""
    lang = lang if lang in LANGS else "en"
    when = generated_at or datetime.now(UTC)
    options = [o for o in (_get(turn, "options", []) or []) if isinstance(o, Mapping)]
    workload = _get(turn, "workload", {}) or {}
    job, limits = R.workload_view(workload)
    slots = workload.get("slots")
    slots = slots if isinstance(slots, Mapping) else {}
    job_words, limit_words = _words(job, limits, slots, lang)
    prices = _prices(options, lang)
    stale = [p.item for p in prices if p.as_of and _age_days(p.as_of, when) > PRICE_STALE_DAYS]
    memory = [(r["part"], float(r["GiB"])) for r in reversed(R.memory_chart_rows(turn, lang, limit=1))]
    mode, model_name = _get(turn, "mode", "deterministic"), _get(turn, "model_name", None)
    generator = (t("quote.generator_llm", lang, model=str(model_name)) if mode == "llm"
                 else t("quote.generator_deterministic", lang))
    findings = _findings(turn, lang)
    sources = tuple(dict.fromkeys([s for f in findings for s in f.sources] + [p.source for p in prices if p.source]))
    dates = sorted({str(p.as_of)[:10] for p in prices if p.as_of})
    return Quote(
        configuration=_configuration(options[0], lang) if options else "",
        alternatives=tuple(_alternatives(options, lang)), risks=tuple(_risks(findings)),
        prices_as_of=(dates[-1] if len(dates) == 1 else t("quote.date_range", lang, first=dates[0], last=dates[-1])
                      ) if dates else "",
        lang=lang, generated_at=when, valid_until=(when + timedelta(days=QUOTE_VALID_DAYS)).date(),
        generator=generator, request=tuple(q for q in questions if q and q.strip()),
        job=tuple(job_words), constraints=tuple(limit_words), headline=headline(turn),
        table=R.options_table(options, lang), memory=tuple(memory), prices=tuple(prices),
        findings=tuple(findings), sources=sources, assumptions=tuple(_assumptions(turn)),
        launch_hints=tuple((R.option_name(o), str(o["launch_hint"])) for o in options[:3] if o.get("launch_hint")),
        stale_prices=tuple(stale))


def _age_days(as_of: str, when: datetime) -> int:
    try:
        return (when.date() - date.fromisoformat(str(as_of)[:10])).days
    except ValueError:
        return 0
