"""What else carries a job that one configuration does not: identical copies of a serving deployment (or of one of
its replica groups) for more users than one copy serves within the target, and the copies asked for by "how many of
these?"; the named card itself with llama.cpp layer offload (slowly); and the smaller models of the same series that
run on the user's own card."""

from __future__ import annotations

import math
from typing import Any

from advisor.conversation.render.book import SRC_RECOMMEND, SRC_THROUGHPUT, Book
from advisor.conversation.render.labels import format_label, option_format
from advisor.estimator.memory import default_inference_format
from knowledge.catalog import load_catalog
from knowledge.messages import t


def copy_unit(o: Any, users: int, limit: int) -> tuple[int, int]:
    """(copies, GPUs in each) that serve `users` within the target when `limit` users are the most the whole
    configuration serves so. A configuration of several replicas scales by one replica's group, not by the whole:
    its limit is the group's times the replicas (advisor.estimator.serving.serve_report), so

        copies = ⌈users / (limit / replicas)⌉ groups of count / replicas GPUs

    (24 H100 as 3 × TP 8 serving 969 within 40 ms take 4 groups of 8 for 1,000 users, not 2 × 24)."""
    reps = max(1, int(getattr(o.layout, "replicas", 1) or 1))
    if reps > 1 and o.count % reps == 0 and limit >= reps:
        return math.ceil(users / (limit // reps)), o.count // reps
    return math.ceil(users / limit), o.count


def servers_for(o: Any, ev: Any, copies: int, each: int) -> tuple[int, int]:
    """(servers, GPUs per server) for `copies` of `each` GPUs of `o`'s card: the search's node size
    (`max_gpus_per_node`, 8 unless the user said otherwise; a unified-memory machine is its own server),

        servers = ⌈copies × each / per_node⌉ when one copy fits a server, else copies × ⌈each / per_node⌉."""
    gpu = load_catalog().find_gpu(o.gpu)
    per_node = 1 if gpu is not None and gpu.is_machine else ev.constraints.max_gpus_per_node
    n = math.ceil(copies * each / per_node) if each <= per_node else copies * math.ceil(each / per_node)
    return n, per_node


def group_label(o: Any, lang: str) -> str:
    """One replica group of `o` in words: "TP 8", or "1 GPU" for a model one card holds."""
    return f"TP {o.layout.tp}" if o.layout.tp > 1 else t("layout.one_gpu", lang)


def replicas_for_load(o: Any, users: int, limit: int, book: Book, lang: str) -> str:
    """More users than one deployment serves within the target: R identical copies of it (`copy_unit`: of one of
    its replica groups when it has several), each taking an equal share of the users (data-parallel replicas of an
    inference deployment scale linearly: each keeps its own weights and KV cache), with the cards and the purchase
    in proportion. "" when one copy suffices."""
    if limit < 1 or users <= limit:
        return ""
    copies, size = copy_unit(o, users, limit)
    whole = size == o.count
    unit = f"{o.count}× {o.gpu_name}" if whole else f"{size}-GPU groups of {o.count}× {o.gpu_name}"
    src = (f"computed: ⌈{users} users / {limit} per deployment⌉" if whole else
           f"computed: ⌈{users} users / ({limit} / {o.count // size} replicas) per group⌉")
    r = book.count(f"copies of {unit} for {users} users within the target", copies, "deployments", src)
    cards = book.count(f"GPUs in {copies} copies of {unit}", copies * size, "GPUs", f"computed: {copies} × {size}")
    total = o.tco.purchase.total if o.tco is not None and "existing" not in o.labels else None
    cost = ""
    if total and total.amount:
        money = book.money(f"full purchase of {copies} copies of {unit}", copies * total.amount * size / o.count,
                           total.currency, f"computed: {copies} × full purchase of one deployment × {size} / {o.count}")
        cost = t("replicas.cost", lang, money=money)
    if whole:
        return t("replicas.copies", lang, users=users, r=r, cards=cards, cost=cost)
    return t("replicas.copies_group", lang, users=users, r=r, size=size, cards=cards, cost=cost)


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
    group = group_label(o, lang)
    layout = t("layout.replicas", lang, n=o.layout.replicas, group=group) if (o.layout.replicas or 1) > 1 else group
    total = o.tco.purchase.total if o.tco is not None else None
    cost = ""
    if total and total.amount:
        cost = t("replicas.cost", lang, money=book.money(f"full purchase of {o.count}× {o.gpu_name}", total.amount,
                                                          total.currency, SRC_RECOMMEND))
    if limit < 1:
        return t("replicas.at_target_none", lang, users=users, config=config, layout=layout, cost=cost)
    copies, size = copy_unit(lead, users, limit)
    r = book.count(f"copies of {size} of {lead.count}× {lead.gpu_name} for {users} users within the target", copies,
                   "copies", f"computed: ⌈{users} users / {limit} per deployment⌉ in groups of {size}")
    return t("replicas.at_target", lang, users=users, config=config, layout=layout, cost=cost, r=r,
             cards=book.count(f"GPUs in {copies} copies of {size} of {lead.count}× {lead.gpu_name}", copies * size,
                              "GPUs", f"computed: {copies} × {size}"))


def copies_for_load(ev: Any, o: Any) -> tuple[int, int]:
    """(copies, GPUs in each) of `o` the stated load needs within the stated target (`copy_unit`); (1, o.count)
    when no load was simulated, one copy carries it, or the target is only the default one: the configuration was
    sized without it, and the load sentence says what the default speed would take (`replicas_for_load`)."""
    c = getattr(ev, "constraints", None)
    load = getattr(ev, "load", None) or {}
    if c is not None and c.max_ms_per_token is None and not c.min_tokens_per_s and not (load.get("target") or {}).get(
            "ttft_s"):
        return 1, o.count
    limit, users = int(load.get("max_concurrency_for_target") or 0), int(load.get("concurrency") or 0)
    if limit < 1 or users <= limit:
        return 1, o.count
    return copy_unit(o, users, limit)


def servers_sentence(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"How many servers?": the configuration in servers (`servers_for`), for all the copies the load needs."""
    copies, each = copies_for_load(ev, o)
    cards = copies * each
    n, per_node = servers_for(o, ev, copies, each)
    src = (f"computed: ⌈{copies} × {each} GPUs / {per_node} per server⌉" if each <= per_node
           else f"computed: {copies} × ⌈{each} / {per_node}⌉ servers")
    servers = book.count(f"servers for {cards}× {o.gpu_name}", n, "servers", src)
    size = book.count("GPUs per server", per_node, "GPUs", "advisor.workload.Constraints.max_gpus_per_node")
    total = book.count(f"GPUs in {n} servers of {o.gpu_name}", cards, "GPUs", f"computed: {copies} × {each}")
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


def copies_lead(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"8× H100 for 1,000 users: how many of these do I need?" when one copy of the configuration named holds fewer
    users than asked (the recommender's change: at most n at the context asked): the copies that hold them all,

        copies = ⌈users / n⌉, each with its own weights and KV cache,

    then, where the per-token target (stated, else the default) serves fewer than n on one copy (its load
    simulated at n), the copies that keep every user within it. "" when the question is not that one."""
    if not getattr(ev, "asks_servers", False) or o.fits or ev.workload.is_training:
        return ""
    held = next((int(ch.value) for ch in ev.named_changes or [] if ch.kind == "concurrency"
                 and isinstance(ch.value, (int, float)) and ch.value >= 1), 0)
    users = int(ev.workload.concurrency or 0)
    if not held or users <= held:
        return ""
    copies = math.ceil(users / held)
    servers, per_node = servers_for(o, ev, copies, o.count)
    name = f"{o.count}× {o.gpu_name}"
    src = f"computed: ⌈{users} users / {held} users one copy holds⌉"
    text = t("lead.copies", lang, copies=book.count(f"copies of {name} for {users} users", copies, "copies", src),
             name=name, cards=book.count(f"GPUs in {copies} copies of {name}", copies * o.count, "GPUs",
                                         f"computed: {copies} × {o.count}"),
             servers=book.count(f"servers for {copies} copies of {name}", servers, "servers",
                                f"computed: {copies} copies of {o.count} GPUs, {per_node} per server"),
             held=book.count(f"users one copy of {name} holds", held, "sequences", SRC_RECOMMEND), users=users,
             context=ev.workload.context, n=servers)
    load = getattr(ev, "changed_load", None) or {}
    target, limit = (load.get("target") or {}).get("tpot_s"), int(load.get("max_concurrency_for_target") or 0)
    if target and 1 <= limit < held:
        more = math.ceil(users / limit)
        rate = book.target_rate(target)
        stated = ev.constraints.max_ms_per_token is not None or ev.constraints.min_tokens_per_s
        text += t("lead.copies.target", lang, rate=rate, limit=book.count(
            f"users one copy of {name} serves within the target", limit, "sequences", SRC_THROUGHPUT),
            why=t("screen.load.your_target" if stated else "screen.load.default_target", lang), users=users,
            more=book.count(f"copies of {name} for {users} users within the target", more, "copies",
                            f"computed: ⌈{users} users / {limit} within the target⌉"),
            cards=book.count(f"GPUs in {more} copies of {name}", more * o.count, "GPUs",
                             f"computed: {more} × {o.count}"))
    return text + t("sentence.end", lang)


def servers_at_default_target(o: Any, ev: Any, book: Book, lang: str) -> str:
    """"How many servers?" answered for memory (no target stated) when the load simulated on them keeps fewer users
    than asked within the default per-token target: the servers that keep them all within it, from `copy_unit`
    (3 servers of H100 hold 1,000 users of a 70B; 4 keep them at 25 tokens/s each). "" otherwise."""
    c, load = ev.constraints, getattr(ev, "load", None) or {}
    target, limit = (load.get("target") or {}).get("tpot_s"), int(load.get("max_concurrency_for_target") or 0)
    users = int(load.get("concurrency") or 0)
    if c.max_ms_per_token is not None or c.min_tokens_per_s or not target or limit < 1 or users <= limit:
        return ""
    copies, each = copy_unit(o, users, limit)
    n, per_node = servers_for(o, ev, copies, each)
    rate = book.target_rate(target)
    return t("screen.servers.at_default", lang, users=users, rate=rate, n=n,
             servers=book.count(f"servers of {o.gpu_name} for {users} users within the default target", n, "servers",
                                f"computed: {copies} copies of {each} GPUs, {per_node} per server"),
             cards=book.count(f"GPUs in {copies} copies of {each}× {o.gpu_name}", copies * each, "GPUs",
                              f"computed: {copies} × {each}"))
