"""English messages (the keys and placeholders of `zh.py`, same order). Edit the words, never the keys or fields."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    # --- shared ---------------------------------------------------------------------------------------------
    "list.sep": ", ",
    # --- prices: condition and source reliability ----------------------------------------------------------
    "price.condition.new": "new",
    "price.condition.used": "used",
    "price.condition.street": "street estimate",
    "price.condition.street_estimate": "street estimate",
    "price.reliability.high": "high",
    "price.reliability.medium": "medium",
    "price.reliability.low": "low",
    # the cost inputs advisor.estimator.cost names
    "cost_input.exchange rate": "exchange rate",
    "cost_input.electricity": "electricity",
    "cost_input.PUE": "PUE",
    # --- the quote (ui/quote.py) -----------------------------------------------------------------------------
    "quote.model": "model {model}",
    "quote.weights": "weights in {fmt}",
    "quote.kv": "KV cache in {fmt}",
    "quote.context": "{context:,} tokens of context",
    "quote.concurrency": {"one": "{n} concurrent user", "other": "{n} concurrent users"},
    "quote.budget": "budget {money}",
    "quote.region": "region: {region}",
    "quote.used_accepted": "used cards accepted",
    "quote.owned_gpus": "{names} (already owned)",
    "quote.compared_gpus": "GPUs compared: {names}",
    "quote.per_card": "{gpu}, per card",
    "quote.train_days": "about {days:,.1f} days to train",
    "quote.speed_total": ", {total:,.0f} in total",
    "quote.speed_each": "{each:,.0f} tokens/s per user{tail}",
    "quote.tco_years": "{money} over {years} years",
    "quote.nothing_to_buy": "nothing to buy",
    "quote.running_cost": "running cost (power and operations) {tco}",
    "quote.no_price": "no price in the catalog",
    "quote.with_servers": {"one": " (GPUs and {n} server)", "other": " (GPUs and {n} servers)"},
    "quote.cards_only": " (cards only)",
    "quote.owned_suffix": " (already owned)",
    "quote.used_suffix": " (used)",
    "quote.config_owned": "{name}: {buy}; {tco}; {speed}.",
    "quote.config": "{name}: {buy} to buy; total cost of ownership {tco}; {speed}.",
    "quote.input.rest_of_system": "server tier {tier} (rest of system)",
    "quote.generator_llm": "GPU Advisor (LLM {model})",
    "quote.generator_deterministic": "GPU Advisor (deterministic mode)",
    "quote.date_range": "{first} to {last}",
    # --- gpu-advisor history (ui/commands/history.py) ------------------------------------------------------
    "history.usage": "usage: gpu-advisor history {action} ID",
    "history.no_store": "no conversation store is configured (GPU_ADVISOR_DATABASE_URL=memory)",
    "history.not_found": "not found: {what!r} is no stored conversation or quote",
    "history.cannot_write": "cannot write {path}: {why}",
    "history.quotes": "quotes: {n}",
    "history.conversations": "conversations: {n}",
    "history.turns": "turns",
    "history.quote": "quote",
    "history.md_conversation": "- conversation: `{id}` ({source})",
    "history.md_updated": "- updated: {when}",
    "history.md_quote": "quote: `{id}`",
    "history.purged": ("deleted what is older than {days:g} days: {conversations} conversations, {turns} turns, "
                       "{quotes} quotes, {events} expired event ids"),
}
