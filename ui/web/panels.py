"""The web page's panels beside the chat, as pure functions of a `Turn`: the ranked options table, the memory chart
(per-GPU parts against the card's capacity), the price-vs-throughput and memory-vs-context plots' rows, and the
findings with their sources. Tables are `{"headers": [...], "data": [[...]]}`, chart data lists of row dicts (the
memory-vs-context plot's become a DataFrame; the memory and price charts are drawn as SVG by
`ui.web.memory_chart` and `ui.web.cost_chart`). Memory is shown in GiB (1 GiB = 2^30 bytes) with the unit written out; money
keeps its currency and, where the catalog gives one, its "as of" date. Every figure is read from the turn
(estimator/recommender results); nothing is computed here but unit conversions and headroom = capacity − total.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from knowledge.messages import known, t
from knowledge.quantities import in_unit
from knowledge.structs import dump
from rules.titles import plain_words as plain_words  # the page's and the chat's one place
from rules.titles import rule_ids_to_titles as rule_ids_to_titles
from rules.titles import rule_title
from ui.citations import source_without_path
from ui.turn_like import TurnLike
from ui.turn_like import get_field as _get
from ui.web.messages import LANGS, PART_LABELS, PARTS, label, safe_markdown
from ui.web.messages import plain_text as _plain

# ---------------------------------------------------------------------------------------------------------------
# Options table, memory chart, plots


def number_or_none(value: Any) -> float | None:
    """`value` as a float when it is an int or float (not a bool), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def fmt_gib(nbytes: Any) -> str:
    v = number_or_none(nbytes)
    return "–" if v is None else f"{in_unit(v, 'GiB'):,.1f}"


def fmt_rate(value: Any) -> str:
    v = number_or_none(value)
    if v is None:
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_money(amount: Any, currency: str | None, as_of: str | None = None) -> str:
    v = number_or_none(amount)
    if v is None:
        return "–"
    text = f"{v:,.0f} {currency or ''}".strip()
    return f"{text} (as of {as_of})" if as_of else text


def option_tokens_per_s(option: Mapping[str, Any]) -> float | None:
    """The option's headline throughput in tokens/s: for serving at a stated load the continuous-batching
    simulation's output tokens/s (`under_load`, prefills sharing the steps), else total decode; training tokens/s
    for training."""
    tp = option.get("throughput") or {}
    if not isinstance(tp, Mapping):
        return number_or_none(tp)
    load = tp.get("under_load")
    if isinstance(load, Mapping) and number_or_none(load.get("total_tokens_per_s")) is not None:
        return number_or_none(load.get("total_tokens_per_s"))
    for key in ("decode_tokens_per_s_total", "tokens_per_s", "decode_tokens_per_s", "tokens_per_s_total"):
        v = number_or_none(tp.get(key))
        if v is not None:
            return v
    return None


def _money(value: Any) -> tuple[float | None, str | None]:
    """(amount, currency) from a number or an {"amount", "currency"} dict."""
    if isinstance(value, Mapping):
        return number_or_none(value.get("amount")), value.get("currency")
    return number_or_none(value), None


def option_price(option: Mapping[str, Any]) -> tuple[float | None, str | None, str | None]:
    """(amount, currency, as_of) of one GPU of the option, as the recommender gives it (`price` is per card)."""
    price = option.get("price")
    if isinstance(price, Mapping):
        return number_or_none(price.get("amount")), price.get("currency"), price.get("as_of")
    return number_or_none(price), None, None


def option_purchase(option: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(amount, currency) of buying the whole configuration: the TCO's purchase total (GPUs plus the rest of the
    server, as `advisor.recommend.recommender.total_price`), else GPU price × count; None when the catalog has no price or the
    cards are the user's own (nothing to buy: `owned`)."""
    tco = option.get("tco")
    if owned(option):
        return None, None
    if isinstance(tco, Mapping) and isinstance(tco.get("purchase"), Mapping):
        amount, currency = _money(tco["purchase"].get("total"))
        if amount is not None:
            return amount, currency or tco.get("currency")
    unit, currency, _ = option_price(option)
    count = option.get("count")
    if unit is None or not isinstance(count, int):
        return None, None
    return unit * count, currency


def owned(option: Mapping[str, Any]) -> bool:
    """The user's own cards: costed by their running cost, never bought again."""
    tco = option.get("tco")
    return "existing" in (option.get("labels") or []) or (isinstance(tco, Mapping) and tco.get("basis") == "owned")


def option_tco(option: Mapping[str, Any]) -> tuple[float | None, str | None, Any]:
    """(amount, currency, years) of the option's total cost of ownership, when the recommender adds one."""
    tco = option.get("tco")
    if isinstance(tco, Mapping):
        for key in ("tco", "total", "amount", "total_cost"):
            amount, currency = _money(tco.get(key))
            if amount is not None:
                return amount, currency or tco.get("currency"), tco.get("years")
        return None, None, None
    return number_or_none(tco), None, None





def option_label(option: Mapping[str, Any], lang: str = "en") -> str:
    """The recommender's names for the option's place in the ranking (lowest cost, best value, …)."""
    labels = option.get("labels")
    if isinstance(labels, (list, tuple)) and labels:
        # a label the catalogs have no words for ("web.tag.LABEL") is not shown
        shown = [t(f"web.tag.{x}", lang) for x in labels if known(f"web.tag.{x}")]
        return t("list.sep", lang).join(shown) if shown else "–"
    for key in ("label", "kind", "tier"):
        if option.get(key):
            return str(option[key])
    return "–"


def option_name(option: Mapping[str, Any]) -> str:
    """"2× NVIDIA H100 SXM" style name of an option."""
    count = option.get("count")
    gpu = str(option.get("gpu_name") or option.get("gpu") or "?")
    return f"{count}× {gpu}" if count else gpu


def option_short(option: Mapping[str, Any]) -> str:
    """"2× H100 SXM": count and the card's display name without the vendor prefix, short enough for a chart
    axis (the catalog id only when the option has no display name)."""
    count = option.get("count")
    gpu = re.sub(r"^(NVIDIA|AMD|GeForce)\s+", "", str(option.get("gpu_name") or option.get("gpu") or "?"))
    return f"{count}× {gpu}" if count else gpu


def _fits_text(fits: Any, lang: str) -> str:
    if fits is True:
        return t("table.fits_yes", lang)
    if fits is False:
        return t("table.fits_no", lang)
    return "–"





def _layout_text(layout: Any, lang: str = "en") -> str:
    """"TP 4", "TP 2 × PP 2", "DP 8, ZeRO-3", "2 replicas × TP 8" (2 个副本 × TP 8), "1 GPU" (单卡) from a layout
    dict; text layouts as given."""
    if isinstance(layout, Mapping):
        def n(key: str) -> int:
            v = layout.get(key)
            return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0

        shard = " × ".join(f"{name} {n(key)}" for key, name in (("tp", "TP"), ("pp", "PP")) if n(key) > 1)
        if layout.get("attention_dp") and shard:  # an MLA model's attention data-parallel over the TP group
            shard = t("layout.dp_attention", lang, group=shard)
        extra = [f"DP {n('dp')}"] if n("dp") > 1 and "replicas" not in layout else []
        if n("replicas") > 1:  # serving: independent engine copies ("2 replicas × TP 8", 2 个副本 × TP 8)
            shard = t("layout.replicas", lang, n=n("replicas"), group=shard or t("layout.one_gpu", lang))
        extra += [f"ZeRO-{n('zero')}"] if n("zero") > 0 else []
        if layout.get("offload") not in (None, "", "none"):
            where = str(layout["offload"])
            extra.append(t("layout.offload", lang, where=t(f"web.offload.{where}", lang)
                           if known(f"web.offload.{where}") else where))
        text = ", ".join(x for x in [shard, *extra] if x)
        return text or t("layout.one_gpu", lang)
    return str(layout) if layout not in (None, "") else "–"


# the options table's columns, their headers "web.table.COLUMN" in the message catalogs
TABLE_COLUMNS = ("rank", "option", "gpus", "gib", "fits", "speed", "purchase", "tco", "gpu_price")


def options_table(options: Sequence[Mapping[str, Any]], lang: str = "en") -> dict[str, Any]:
    """Rows of the ranked-options table (`gr.Dataframe` value), in the recommender's order. Tokens/s is the
    option's headline throughput (total decode for serving, training tokens/s for training); Purchase is the
    whole configuration (`option_purchase`), GPU price is one card with the catalog's date."""
    rows = []
    for i, opt in enumerate(options or [], 1):
        if not isinstance(opt, Mapping):
            continue
        per_gpu = opt.get("per_gpu_bytes") or {}
        amount, currency, as_of = option_price(opt)
        price = fmt_money(amount, currency)
        if amount is not None and as_of:
            price += f" ({as_of})"
        purchase, purchase_cur = option_purchase(opt)
        tco, tco_cur, years = option_tco(opt)
        tco_text = fmt_money(tco, tco_cur or currency)
        if tco is not None and years:
            y = f"{years:g}" if isinstance(years, (int, float)) else str(years)
            tco_text += t("table.per_years", lang, years=y)
        rows.append([
            i,
            option_label(opt, lang),
            option_name(opt) + (f" ({layout})" if (layout := _layout_text(opt.get("layout"), lang)) != "–" else ""),
            fmt_gib(per_gpu.get("total") if isinstance(per_gpu, Mapping) else None),
            _fits_text(opt.get("fits"), lang),
            fmt_rate(option_tokens_per_s(opt)),
            t("table.owned", lang) if owned(opt) else fmt_money(purchase, purchase_cur or currency),
            tco_text,
            price,
        ])
    return {"headers": [t(f"web.table.{col}", lang) for col in TABLE_COLUMNS], "data": rows}


def capacity_bytes(source: Mapping[str, Any] | None) -> float | None:
    """A card's memory in bytes from the first capacity key a result carries, else None."""
    if not isinstance(source, Mapping):
        return None
    for key in ("capacity_bytes", "capacity", "memory_bytes", "gpu_memory_bytes"):
        v = number_or_none(source.get(key))
        if v is not None and v > 0:
            return v
    return None


def _parts(source: Mapping[str, Any] | None) -> dict[str, float]:
    """Bytes per memory part from a per-GPU breakdown (flat, or nested under "per_gpu_bytes"/"parts")."""
    if not isinstance(source, Mapping):
        return {}
    for nest in ("per_gpu_bytes", "parts", "breakdown"):
        if isinstance(source.get(nest), Mapping):
            source = {**source, **source[nest]}
    return {p: float(source[p]) for p in PARTS if number_or_none(source.get(p)) is not None and float(source[p]) > 0}


def memory_chart_rows(turn: TurnLike, lang: str = "en", limit: int = 5,
                      capacity_of: Callable[[str], float | None] | None = None) -> list[dict[str, Any]]:
    """Stacked-bar rows {"option", "part", "GiB", "order"}: per-GPU memory of each ranked option by part, topped
    up with "free" to the card's capacity (capacity − total, only when positive). The capacity comes from the
    option, else from `turn.memory` (first option), else from `capacity_of(gpu id)` (the catalog). Falls back to
    `turn.memory` alone when the options carry no per-GPU bytes."""
    memory = _get(turn, "memory", None)
    options = [o for o in (_get(turn, "options", []) or []) if isinstance(o, Mapping)][:limit]
    bars: list[tuple[str, dict[str, float], float | None]] = []
    for i, opt in enumerate(options, 1):
        parts = _parts(opt.get("per_gpu_bytes"))
        if not parts:
            continue
        cap = capacity_bytes(opt) or (capacity_bytes(memory) if i == 1 else None)
        if cap is None and capacity_of is not None and opt.get("gpu"):
            cap = capacity_of(str(opt["gpu"]))
        total = number_or_none((opt.get("per_gpu_bytes") or {}).get("total")) or sum(parts.values())
        bars.append((f"{i}. {option_short(opt)}", {**parts, "_total": total}, cap))
    if not bars and isinstance(memory, Mapping) and _parts(memory):
        parts = _parts(memory)
        total = number_or_none(memory.get("total")) or sum(parts.values())
        bars.append((str(memory.get("label") or memory.get("gpu") or "1."), {**parts, "_total": total},
                     capacity_bytes(memory)))
    rows: list[dict[str, Any]] = []
    for name, parts, cap in bars:
        total = parts.pop("_total")
        bar = [{"option": name, "part": PART_LABELS[part][lang], "GiB": round(in_unit(parts[part], "GiB"), 3), "order": order}
               for order, part in enumerate(PARTS) if part in parts]
        if cap is not None and cap > total:
            bar.append({"option": name, "part": PART_LABELS["free"][lang], "GiB": round(in_unit(cap - total, "GiB"), 3),
                        "order": len(PARTS)})
        rows.extend(reversed(bar))  # the chart stacks the first row on top: weights end up at the bottom
    return rows


def cost_throughput_rows(options: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Scatter rows {"option", "price", "currency", "tokens_per_s"} (price = purchase of the whole configuration)
    for options that have both a price and a throughput; all in one currency (the first priced option's),
    others left out rather than converted."""
    rows: list[dict[str, Any]] = []
    currency = None
    for i, opt in enumerate(options or [], 1):
        if not isinstance(opt, Mapping):
            continue
        amount, cur = option_purchase(opt)
        rate = option_tokens_per_s(opt)
        if amount is None or rate is None:
            continue
        currency = currency or cur
        if cur != currency:
            continue
        rows.append({"option": f"{i}. {option_short(opt)}", "price": amount, "currency": cur or "",
                     "tokens_per_s": round(rate, 2)})
    return rows


# Context lengths swept for the memory-vs-context plot, in tokens (cut to the model's maximum context).
SWEEP_CONTEXTS = (1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288, 1048576)


def sweep_contexts(max_context: int | None, requested: int | None = None) -> tuple[int, ...]:
    """The plot's x values: powers of two from 1k up to the model's maximum context (itself included), plus the
    requested context; all of `SWEEP_CONTEXTS` up to 128k when the maximum is unknown."""
    top = int(max_context) if max_context else 131072
    ctxs = {c for c in SWEEP_CONTEXTS if c <= top} | {top}
    if requested:
        ctxs.add(int(requested))
    return tuple(sorted(ctxs))


def context_sweep_rows(
    context: int,
    estimate: Callable[[int], Mapping[str, Any] | None],
    capacity_bytes: float | None,
    lang: str = "en",
    contexts: Iterable[int] = SWEEP_CONTEXTS,
) -> list[dict[str, Any]]:
    """Line rows {"context", "series", "GiB"} of per-GPU memory against context length. `estimate(ctx)` must return
    the estimator's per-GPU bytes ({"total", "kv_cache", …}) for the same workload at `ctx` tokens; contexts where it
    returns None are skipped. The capacity line is drawn when known; the KV-cache line only when it is not zero
    throughout (training has none); the requested context is marked by a vertical line from 0 to the top of the
    plot (series "requested context")."""
    lang = lang if lang in LANGS else "en"
    ctxs = sorted({int(c) for c in contexts} | ({int(context)} if context else set()))
    total_name, cap_name = t("web.sweep.total", lang), t("web.sweep.capacity", lang)
    kv_name = PART_LABELS["kv_cache"][lang]
    rows: list[dict[str, Any]] = []
    kv_rows: list[dict[str, Any]] = []
    for ctx in ctxs:
        per_gpu = estimate(ctx)
        if not isinstance(per_gpu, Mapping) or number_or_none(per_gpu.get("total")) is None:
            continue
        rows.append({"context": ctx, "series": total_name, "GiB": round(in_unit(float(per_gpu["total"]), "GiB"), 3)})
        if number_or_none(per_gpu.get("kv_cache")) is not None:
            kv_rows.append({"context": ctx, "series": kv_name, "GiB": round(in_unit(float(per_gpu["kv_cache"]), "GiB"), 3)})
        if capacity_bytes:
            rows.append({"context": ctx, "series": cap_name, "GiB": round(in_unit(capacity_bytes, "GiB"), 3)})
    if any(r["GiB"] > 0 for r in kv_rows):
        rows.extend(kv_rows)
    if context and rows:
        top = max(r["GiB"] for r in rows)
        name = f"{t('web.sweep.requested', lang)} ({int(context):,})"
        rows += [{"context": int(context), "series": name, "GiB": 0.0},
                 {"context": int(context), "series": name, "GiB": top}]
    return rows


def money_axis_title(rows: Sequence[Mapping[str, Any]], lang: str = "en") -> str:
    """The price axis title with the currency of the plotted rows ("price (CNY)"); rows are in one currency
    (`cost_throughput_rows`)."""
    base = t("chart.purchase_price", lang)
    currency = next((str(r.get("currency")) for r in rows if r.get("currency")), "")
    return f"{base} ({currency})" if currency else base


# ---------------------------------------------------------------------------------------------------------------
# Findings


def finding_dicts(turn: TurnLike) -> list[dict[str, Any]]:
    """The turn's findings as dicts; when the turn has none, the options' findings (first occurrence of each id)."""
    found = []
    for f in _get(turn, "findings", []) or []:
        found.append(dump(f) if isinstance(f, msgspec.Struct) else dict(f))
    if not found:
        seen = set()
        for opt in _get(turn, "options", []) or []:
            for f in (opt.get("findings") or []) if isinstance(opt, Mapping) else []:
                d = dump(f) if isinstance(f, msgspec.Struct) else dict(f)
                if d.get("rule_id") not in seen:
                    seen.add(d.get("rule_id"))
                    found.append(d)
    return found


def findings_markdown(turn: TurnLike, lang: str = "en") -> str:
    """Findings as a Markdown list: severity and the rule's short title in `lang` (rules.titles), the message
    (rule ids and guide numbers in words), then in small print the source and the "as of" date. Rule ids are
    for engineers: the JSON and the quote's appendix keep them, the page does not show them."""
    items = finding_dicts(turn)
    if not items:
        return label("no_findings", lang)
    lines = []
    for f in items:
        msg = plain_words(rule_ids_to_titles((f.get("message_zh") if lang == "zh" else None) or f.get("message") or "",
                                             lang))
        rule_id = _plain(f.get("rule_id", ""))
        severity = str(f.get("severity", ""))
        mark = t(f"web.severity.{severity}", lang) if known(f"web.severity.{severity}") else severity
        line = f"- **{mark} · {_plain(rule_title(rule_id, lang))}** — {msg}"
        extra = []
        if f.get("source"):
            extra.append(t("finding.source", lang, source=source_without_path(str(f["source"]), lang)))
        if f.get("as_of"):
            extra.append(t("finding.as_of", lang, when=str(f["as_of"])))
        if extra:
            line += "  \n  _" + "; ".join(extra) + "_"
        lines.append(line)
    return safe_markdown("\n".join(lines))


def has_result(turn: TurnLike) -> bool:
    """True when the turn carries a recommendation or a memory breakdown worth showing beside the chat."""
    return bool(_get(turn, "options", None) or _get(turn, "memory", None))


def workload_view(workload: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(workload fields, constraint fields) from `Turn.workload`, flat or nested as {"workload", "constraints"}."""
    if not isinstance(workload, Mapping):
        return {}, {}
    if isinstance(workload.get("workload"), Mapping) or isinstance(workload.get("constraints"), Mapping):
        return dict(workload.get("workload") or {}), dict(workload.get("constraints") or {})
    return dict(workload), {}
