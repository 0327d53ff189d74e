"""English sentences of the recommender's own answer (`recommend --json` states them in both languages): the
catalog's "recommend" section, kept in its own small module so that command loads only these (see
knowledge/messages/__init__.py). Keys and placeholders as in `recommend_zh.py`, same order."""

from __future__ import annotations

from collections.abc import Mapping

MESSAGES: Mapping[str, str | Mapping[str, str]] = {
    "recommend.list_sep": ", ",
    "recommend.end": ".",
    # the recommender's assumptions (advisor/recommend/assumptions.py)
    "recommend.headroom": "a configuration fits when its per-GPU memory leaves ≥ {headroom:.0%} of the card free (an engine that reserves 90 % of the card, as vLLM does, leaves that by itself)",
    "recommend.prices": "prices in {currency}: the newest dated price per card in the catalog (converted at the dated exchange rate where only the other currency is known) plus the rest of the server as the guides' tiers price it; TCO over the default years at full utilisation",
    "recommend.per_node": "at most {n} GPUs per node",
    "recommend.layouts": "serving layout: the smallest tensor-parallel group inside a server that holds the weights and its share of the users' KV cache, copied as independent replicas over the other GPUs (no more copies than users); pipeline parallel across servers only when one copy does not fit in a server",
    "recommend.default_tokens": "training time for a default token budget (20 tokens per parameter for pre-training, 100 M tokens for fine-tuning): give the real budget for a real estimate",
    "recommend.used": "used cards asked for: priced at dated used-card prices where the catalog has them",
    "recommend.new": "new-card prices (a company purchase){eol}",
    "recommend.new.eol": "; {names}: end of life (the catalog's newest price is a used one), so priced used",
    "recommend.reasoning_context": "context {context} tokens per sequence: {model} is a reasoning model whose answers run long (its own default, instead of {default})",
    "recommend.compact_lead": "at its own precision ({own}) the model takes {n}× {gpu} over {servers} servers; in {fmt} one server holds it for no more money, so that leads (name a precision to size it as said)",
    "recommend.quantised_lead": "the named card does not run the model at its own precision on fewer cards, so the 4-bit configuration leads",
    "recommend.market.cn": "region cn: only cards sold new there are offered (left out: {names})",
    "recommend.market.global": "region global (outside mainland China): cards sold only in mainland China are not offered (left out: {names})",
    "recommend.deadline": "no deadline given: configurations that finish within {days:g} days are preferred (give a deadline to change this)",
    "recommend.deadline_out_of_reach": "no configuration tried finishes within the default {days:g} days: the fastest ones tried are shown, each with its own time",
    "recommend.stack": "software stack: CUDA or ROCm (what vLLM and SGLang support in their own tree) is preferred; a card on another stack (Gaudi SynapseAI, Ascend CANN outside China, Apple Metal as a multi-user server) leads only when it is at least {pct} cheaper over the horizon than the cheapest CUDA/ROCm option meeting the same targets (a judgment: a second stack costs porting and validation time)",
    "recommend.stack.kept": "; {count}× {gpu} ({stack}) is {gap:.0%} cheaper, under that margin, so {lead_count}× {lead} leads",
    "recommend.stack.cheaper": "; {count}× {gpu} ({stack}) leads because it is {gap:.0%} cheaper than {alt_count}× {alt}",
    "recommend.stack.alone": "; no CUDA/ROCm option meets the targets, so {count}× {gpu} ({stack}) leads",
    "recommend.interactive": "Default interactivity target: at least {tps:.0f} tokens/s for each user ({ms:.0f} ms per output token, MLPerf Inference's Llama 2 70B interactive scenario)",
    "recommend.interactive.met": ".",
    "recommend.interactive.unmet": "; no configuration that can be bought new in the region at a catalog price reaches it, so the options below are sized for memory; their speed is in the table.",
    # the llama.cpp layer-offload option (advisor/recommend/offload.py); the host classes are the words
    # advisor.estimator.offload and knowledge/data/calibration.yaml write
    "recommend.offload": "one {gpu} does not hold {model} even at 4 bits: the offload option keeps -ngl {ngl} layers on the card and {cpu_layers} in system RAM ({ram:.1f} GiB), ≈ {tps:.1f} tokens/s ({host})",
    "recommend.host.hedt": "HEDT/workstation",
    "recommend.host.workstation": "workstation",
    "recommend.host.server": "server socket",
    "recommend.host.desktop": "desktop",
    "recommend.host.assumed": " (assumed)",
    "recommend.host.stated": "stated ",
}
