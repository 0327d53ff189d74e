"""The one line of defaults under an answer's lead ("Assumed: inference (serving), 40 users, 4096 tokens context, …"):
what the answer rests on that the person did not say."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from advisor.analysis.result import top_option
from advisor.conversation.dialog.load import PEAK_SHARE, PEAK_SHARE_SOURCE
from advisor.conversation.reader.slots import SaidLength
from advisor.conversation.render.book import SRC_DEFAULT, SRC_USER, Book, decimals_for, source_of
from advisor.conversation.render.firstscreen import (
    need_format,
    planned_precision,
    published_tokens,
    target_ms,
    train_tokens_text,
)
from advisor.conversation.render.labels import format_label, option_format, region_label, task_label
from advisor.conversation.render.training_lead import pinned_text
from advisor.workload import speed_workload
from knowledge.catalog import load_catalog
from knowledge.messages import t


def stated_targets(ev: Any, book: Book) -> list[str]:
    """The latency targets the user stated, as "TTFT ≤ 1000 ms", "TPOT ≤ 50 ms" (the TTFT one as the simulation
    was asked for it, advisor.analysis.limits.serving_load)."""
    out = []
    ttft = ((getattr(ev, "load", None) or {}).get("target") or {}).get("ttft_s")
    if ttft:
        pct = ev.constraints.ttft_percentile
        out.append(("" if pct == 50 else f"p{pct} ") + "TTFT ≤ " + target_ms(book, "TTFT target", ttft, SRC_USER))
    tpot = ev.constraints.max_ms_per_token  # set only when stated (the recommender adds its default to its own copy)
    if tpot is not None:
        out.append("TPOT ≤ " + book.num("TPOT target", tpot, "ms", SRC_USER, decimals_for(tpot)))
    return out


SRC_LENGTH = "user input in characters or words, advisor.conversation.reader.text_length"
SRC_CHAT = "advisor.workload.CHAT_PROMPT_TOKENS / CHAT_OUTPUT_TOKENS (ShareGPT means, sglang-vllm-060-bench)"


def said_length_bits(ev: Any, said: Sequence[SaidLength], book: Book, lang: str) -> list[str]:
    """Each length said in characters or words that the answer uses, with its conversion to tokens ("“1000字” read as
    1000 tokens in (1 token per Chinese character, …)", reader.text_length)."""
    out = []
    for x in said:
        if getattr(ev.workload, x.slot, None) != x.tokens:
            continue  # replaced since by a length in tokens
        per = book.num(f"tokens per unit of a length said in {x.unit}", x.per, "tokens", SRC_LENGTH,
                       0 if x.per == int(x.per) else 2, suffix="")
        bit = t("screen.assumed.length", lang, said=x.text, which=t(f"screen.assumed.length.{x.slot}", lang),
                tokens=book.tokens(f"{x.slot} read from a length in {x.unit}", x.tokens, SRC_LENGTH, lang),
                ratio=t(f"screen.assumed.length.{x.unit}", lang, per=per))
        out.append(book.text(bit, "length said in characters or words", SRC_LENGTH))
    return out


def assumed_line(ev: Any, book: Book, lang: str, people: int | None = None, users_answered: bool = False,
                 share: float | None = None, daily_each: float | None = None, qps: float | None = None,
                 said: Sequence[SaidLength] = (), instances_said: bool = False) -> str:
    """The defaults this answer rests on, in one line (all assumptions are in the details); `people`: the headcount
    the concurrency was inferred from ("team of 15" → 2 at the same time, dialog.load.PEAK_SHARE), or, with
    `daily_each` (each one's requests a day), their requests averaged over the day, `qps`, by Little's law;
    `users_answered`: the lead answers "how many users?", so the default concurrency is no assumption of it;
    `said`: the lengths said in characters or words, stated with their conversion to tokens; `instances_said`: the
    first sentence already names the cloud's instances, so the cloud is said without them."""
    w = ev.workload
    bits = [task_label(w.task, lang)]
    stated_users = "concurrency" in (getattr(ev, "stated", None) or ())
    if (users_answered or getattr(ev, "batch", None)) and not stated_users:
        pass  # the user count is the answer, not an assumption ("1 user" under "serves at most 5 users" misleads;
        # a batch job runs as many at once as the cards hold, which its lead says)
    elif w.task == "inference" and people and daily_each and qps:  # "1000 users, 20 messages a day each"
        bits.append(t("screen.assumed.people_daily", lang,
                      people=book.count("people using the service", people, "people", SRC_USER),
                      each=book.num("requests a day per person", daily_each, "requests", SRC_USER, 0, suffix=""),
                      qps=book.num("requests per second, the day's average", qps, "requests/s",
                                   "computed: people × requests a day each ÷ 86,400 s", 2, suffix=""),
                      n=book.count("concurrency", w.concurrency, "sequences", "Little's law L = λ·W")))
    elif w.task == "inference" and people and "concurrency" not in (getattr(ev, "stated", None) or ()):
        bits.append(t("screen.assumed.people.stated" if share else "screen.assumed.people", lang,
                      people=book.count("people using the service", people, "people", SRC_USER),
                      n=book.count("concurrency", w.concurrency, "sequences", source_of(ev, "concurrency")),
                      share=book.num("share of users active at peak", (share or PEAK_SHARE) * 100, "%",
                                     SRC_USER if share else PEAK_SHARE_SOURCE, suffix="")))
    elif w.task == "inference":
        n = book.count("concurrency", w.concurrency, "sequences", source_of(ev, "concurrency"))
        bits.append(t("screen.assumed.users", lang, n=w.concurrency, count=n))
    coding = "context_coding" in (getattr(ev, "inferred", None) or ())  # a coding use's 32K (dialog.machine)
    bits.append(t("screen.assumed.context_coding" if coding else "screen.assumed.context", lang,
                  ctx=book.tokens("context", w.context, source_of(ev, "context"), lang)))
    if w.task == "inference" and w.prompt_tokens is None and w.output_tokens is None and (
            getattr(ev, "load", None) or getattr(ev, "turns_load", None)):
        # said where the answer shows the simulated load (its TTFT and per-user speed are for one chat turn)
        chat = speed_workload(w)  # the lengths the speed is estimated for (advisor.workload: ShareGPT means)
        bits.append(t("screen.assumed.chat", lang,
                      prompt=book.tokens("prompt tokens of a chat turn", chat.prompt_tokens or 0, SRC_CHAT, lang),
                      output=book.tokens("output tokens of a chat turn", chat.output_tokens or 0, SRC_CHAT, lang)))
    elif w.task == "inference" and w.output_tokens is not None and (kind := _job_answer(ev)):
        # a batch job of labels or translations: its answers' length by what they are (advisor.workload.job_answer_tokens)
        bits.append(t(f"screen.assumed.answer_{kind}", lang,
                      output=book.tokens(f"output tokens of a {kind}", w.output_tokens, SRC_DEFAULT, lang)))
    elif w.task == "inference" and w.prompt_tokens is not None and w.output_tokens is not None \
            and source_of(ev, "output_tokens") == SRC_DEFAULT and getattr(ev, "load", None):
        # a prompt length said, the answer's not: the chat turn's answer was assumed (dialog.machine.answer_tokens)
        bits.append(t("screen.assumed.answer", lang,
                      output=book.tokens("output tokens of a chat turn", w.output_tokens, SRC_CHAT, lang)))
    bits += said_length_bits(ev, said, book, lang)
    if w.is_training:  # the data a training time is computed for; the default said as such
        tokens = train_tokens_text(ev, book, lang)
        key = "screen.assumed.train_tokens" if w.train_tokens else "screen.assumed.train_tokens_default"
        if published_tokens(ev):  # "pre-train DeepSeek-V3": the tokens its makers published
            key = "screen.assumed.train_tokens_published"
        elif w.train_tokens and "train_tokens" not in (getattr(ev, "stated", None) or ()):
            key = "screen.assumed.train_tokens_bound"  # a sample count without its length: an upper bound
        bits.append(t(key, lang, tokens=tokens, name=ev.model.name))
    pinned = getattr(ev, "pinned", None)
    if pinned is not None and pinned.why is None:  # the planner ran the layout the user gave
        bits.append(t("screen.assumed.pinned", lang, layout=pinned_text(pinned.layout, book, lang)))
    planned = planned_precision(ev) if w.is_training else None
    own = format_label(need_format(ev), lang)
    lead = top_option(ev) if w.task == "inference" and w.weights is None else None
    if planned == "fp8":
        bits.append(t("screen.assumed.fp8_training", lang))
    elif lead is not None and "quantised" in lead.labels and lead.layout.weights != need_format(ev):
        # the recommender led with another precision than the checkpoint's own (recommender._compact_lead)
        bits.append(t("screen.assumed.lead_format", lang, fmt=option_format(lead, lang), own=own))
    else:
        bits.append(own)
    targets = stated_targets(ev, book)
    if targets:
        pct = ev.constraints.ttft_percentile if ev.constraints.max_ttft_ms is not None else 50
        key = "screen.assumed.targets" if pct == 50 else "screen.assumed.targets_pct"
        bits.append(t(key, lang, targets=t("list.comma", lang).join(targets), pct=pct))
    if w.task != "inference" and getattr(ev.constraints, "mfu", None):  # a stated MFU replaces the calibrated one
        pct = book.num("training MFU you stated", ev.constraints.mfu * 100, "%", "user input", 0, suffix="").strip()
        bits.append(t("screen.assumed.mfu", lang, pct=pct))
    cloud = cloud_bit(ev, lang, instances_said)
    if cloud:
        bits.append(cloud)
    region = ev.constraints.region
    bits.append(region_label(region, lang))
    return t("screen.assumed", lang, bits=t("list.comma", lang).join(bits))


def instance_words(ev: Any, lang: str) -> str:
    """The lead's instances on the cloud named as the host ("on AWS", "which EC2 instance"): "1× g6e.12xlarge (4×
    NVIDIA L40S each)", with how many cards are used where some idle. Each model copy (TP × PP) sits inside one
    instance, replicas and data-parallel ranks in separate ones (CloudOffers.instances_for: 8 H200 are one
    p5en.48xlarge, 2 L40S in TP 2 one 4-card g6e.12xlarge). "" where no cloud was named, nothing leads, or the
    cloud's instances are not listed for the lead's card."""
    provider = getattr(ev, "host_cloud", None)
    lead = top_option(ev) if provider else None
    if provider is None or lead is None:
        return ""
    # start-up: the offers table is read only for an answer about a named cloud
    from knowledge.cloud_offers import load_cloud_offers

    picked = load_cloud_offers().instances_for(provider, lead.gpu, lead.count, lead.layout.tp * lead.layout.pp)
    if picked is None:
        return ""
    offer, n = picked
    key = "screen.instance" if n * offer.gpus == lead.count else "screen.instance_idle"
    return t(key, lang, n=n, instance=offer.instance, k=offer.gpus, gpu=load_catalog().gpu(lead.gpu).name,
             used=lead.count)


def cloud_bit(ev: Any, lang: str, instances_said: bool = False) -> str:
    """The cloud named as the host ("on AWS"): the search ran over the cards it rents, and the lead's instances
    (`instance_words`) unless the first sentence said them."""
    provider = getattr(ev, "host_cloud", None)
    if not provider:
        return ""
    words = "" if instances_said else instance_words(ev, lang)
    if not words:
        return t("screen.assumed.on_cloud", lang, provider=provider)
    return t("screen.assumed.on_cloud_instance", lang, provider=provider, instances=words)


def _job_answer(ev: Any) -> str:
    """What a batch job's answers were taken to be when no length was said ("label", "translation"), else ""."""
    return next((x.removeprefix("output_") for x in (getattr(ev, "inferred", None) or ()) if x.startswith("output_")), "")
