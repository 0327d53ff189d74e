"""What else carries a job that one configuration does not: identical copies of a serving deployment for more users
than one copy serves within the target, the named card itself with llama.cpp layer offload (slowly), and the
smaller models of the same series that run on the user's own card."""

from __future__ import annotations

import math
from typing import Any

from advisor.conversation.render.book import SRC_RECOMMEND, SRC_THROUGHPUT, Book
from advisor.conversation.render.labels import format_label, option_format
from advisor.estimator.memory import default_inference_format
from knowledge.catalog import load_catalog
from knowledge.messages import t


def replicas_for_load(o: Any, users: int, limit: int, book: Book, lang: str) -> str:
    """More users than one deployment serves within the target: R = ⌈users / limit⌉ identical copies of it, each
    taking an equal share of the users (data-parallel replicas of an inference deployment scale linearly: each
    keeps its own weights and KV cache), with R × the cards and R × the purchase. "" when one copy suffices."""
    if limit < 1 or users <= limit:
        return ""
    copies = math.ceil(users / limit)
    src = f"computed: ⌈{users} users / {limit} per deployment⌉"
    r = book.count(f"deployments of {o.count}× {o.gpu_name} for {users} users within the target", copies, "deployments", src)
    cards = book.count(f"GPUs in {copies} deployments of {o.count}× {o.gpu_name}", copies * o.count, "GPUs",
                       f"computed: {copies} × {o.count}")
    total = o.tco.purchase.total if o.tco is not None and "existing" not in o.labels else None
    cost = ""
    if total and total.amount:
        money = book.money(f"full purchase of {copies} deployments of {o.count}× {o.gpu_name}",
                           copies * total.amount, total.currency,
                           f"computed: {copies} × full purchase of one deployment")
        cost = t("replicas.cost", lang, money=money)
    return t("replicas.copies", lang, users=users, r=r, cards=cards, cost=cost)


def at_target_clause(ev: Any, lead: Any, users: int, limit: int, book: Book, lang: str) -> str:
    """The clause after "at most N users stay within the default target" when N is far below the users asked
    (advisor.analysis.evaluate._at_default_target): the configuration sized with that target, with its weight
    format where it differs from the leading one's, its layout and purchase, in place of ⌈users / N⌉ copies. ""
    when there is none."""
    o = getattr(ev, "at_target", None)
    if o is None:
        return ""
    config = f"{book.count(f'GPUs sized for {users} users within the default target', o.count, 'GPUs', SRC_RECOMMEND)}× {o.gpu_name}"
    if o.layout.weights != lead.layout.weights:
        config += t("replicas.with_weights", lang, fmt=option_format(o, lang))
    group = f"TP {o.layout.tp}" if o.layout.tp > 1 else t("layout.one_gpu", lang)
    layout = t("layout.replicas", lang, n=o.layout.replicas, group=group) if (o.layout.replicas or 1) > 1 else group
    total = o.tco.purchase.total if o.tco is not None else None
    cost = ""
    if total and total.amount:
        cost = t("replicas.cost", lang, money=book.money(f"full purchase of {o.count}× {o.gpu_name}", total.amount,
                                                          total.currency, SRC_RECOMMEND))
    if limit < 1:
        return t("replicas.at_target_none", lang, users=users, config=config, layout=layout, cost=cost)
    copies = math.ceil(users / limit)
    r = book.count(f"copies of {lead.count}× {lead.gpu_name} for {users} users within the target", copies, "copies",
                   f"computed: ⌈{users} users / {limit} per deployment⌉")
    return t("replicas.at_target", lang, users=users, config=config, layout=layout, cost=cost, r=r,
             cards=book.count(f"GPUs in {copies} copies of {lead.count}× {lead.gpu_name}", copies * lead.count,
                              "GPUs", f"computed: {copies} × {lead.count}"))


def copies_for_load(ev: Any) -> int:
    """Identical deployments the stated load needs: ⌈users / most users one serves within the target⌉ (1 when no
    load was simulated, one copy carries it, or the target is only the default one: the configuration was sized
    without it, and the load sentence says what the default speed would take; see `replicas_for_load`)."""
    c = getattr(ev, "constraints", None)
    load = getattr(ev, "load", None) or {}
    if c is not None and c.max_ms_per_token is None and not c.min_tokens_per_s and not (load.get("target") or {}).get(
            "ttft_s"):
        return 1
    limit, users = int(load.get("max_concurrency_for_target") or 0), int(load.get("concurrency") or 0)
    if limit < 1 or users <= limit:
        return 1
    return math.ceil(users / limit)


def servers_sentence(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"How many servers?": the configuration in servers of the search's node size (`max_gpus_per_node`, 8 unless
    the user said otherwise; a unified-memory machine is its own server), for all the copies the load needs:

        servers = ⌈copies × count / per_node⌉ when one copy fits a server, else copies × the copy's nodes."""
    gpu = load_catalog().find_gpu(o.gpu)
    per_node = 1 if gpu is not None and gpu.is_machine else ev.constraints.max_gpus_per_node
    copies = copies_for_load(ev)
    cards = copies * o.count
    n = math.ceil(cards / per_node) if o.count <= per_node else copies * o.nodes
    src = (f"computed: ⌈{copies} × {o.count} GPUs / {per_node} per server⌉" if o.count <= per_node
           else f"computed: {copies} × {o.nodes} servers")
    servers = book.count(f"servers for {cards}× {o.gpu_name}", n, "servers", src)
    size = book.count("GPUs per server", per_node, "GPUs", "advisor.workload.Constraints.max_gpus_per_node")
    total = book.count(f"GPUs in {n} servers of {o.gpu_name}", cards, "GPUs", f"computed: {copies} × {o.count}")
    return t("screen.servers", lang, n=n, servers=servers, size=size, total=total, gpu=o.gpu_name)


def offload_sentence(off: Any, book: Book, lang: str, owned: bool = False, full_context: int | None = None) -> str:
    """One sentence: the named card itself runs it only with llama.cpp layer offload, at its decode speed (`owned`:
    the user's own card, the nearest way to run it there; `full_context`: a change already said holds it at a
    shorter context, so the offload is for the context asked)."""
    where = f"on 1× {off.gpu_name} with layer offload"
    tps = off.throughput.decode_tokens_per_s
    speed = book.num(f"decode tokens/s {where}", tps, "tokens/s", SRC_THROUGHPUT, 1 if tps < 10 else 0)
    fmt = format_label(off.layout.weights, lang)
    if full_context:
        return t("replicas.offload_full_context", lang, gpu=off.gpu_name, fmt=fmt, speed=speed, context=full_context)
    return t("replicas.offload_owned" if owned else "replicas.offload_only", lang, gpu=off.gpu_name, fmt=fmt,
             speed=speed)


def own_card_smaller(ev: Any, book: Book, lang: str, asked: str | None) -> str:
    """Smaller models of the same family that run on the user's own card: as asked, then as a 4-bit GGUF when
    that is a larger model (advisor.analysis.smaller). `asked`: the job's weight format when the user gave one."""
    parts = []
    for s in ev.smaller:
        where = f"{s.model.name} on 1× {s.gpu.name}" + (f" ({s.weights})" if s.weights else "")
        need = book.gib(f"memory per GPU of {where}", s.estimate.per_gpu.total)
        usable = book.gib(f"usable memory of {s.gpu.name} for {s.model.name}" + (f" ({s.weights})" if s.weights else ""),
                          s.estimate.usable_bytes(s.gpu), f"catalog: {s.gpu.id} memory_bytes × engine usable fraction")
        fmt = format_label(s.weights or asked or default_inference_format(s.model), lang)
        parts.append(t("smaller.part", lang, model=s.model.name, fmt=fmt, need=need, usable=usable))
    if not parts:
        return ""
    return t("smaller.line", lang, parts=t("smaller.sep", lang).join(parts))
