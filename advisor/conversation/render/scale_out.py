"""What else carries a job that one configuration does not: identical copies of a serving deployment for more users
than one copy serves within the target, and the named card itself with llama.cpp layer offload (slowly)."""

from __future__ import annotations

import math
from typing import Any

from advisor.conversation.render.book import SRC_THROUGHPUT, Book
from advisor.conversation.render.labels import format_label


def replicas_for_load(o: Any, users: int, limit: int, book: Book) -> tuple[str, str]:
    """More users than one deployment serves within the target: R = ⌈users / limit⌉ identical copies of it, each
    taking an equal share of the users (data-parallel replicas of an inference deployment scale linearly: each
    keeps its own weights and KV cache), with R × the cards and R × the purchase. ("", "") when one copy suffices."""
    if limit < 1 or users <= limit:
        return "", ""
    copies = math.ceil(users / limit)
    src = f"computed: ⌈{users} users / {limit} per deployment⌉"
    r = book.count(f"deployments of {o.count}× {o.gpu_name} for {users} users within the target", copies, "deployments", src)
    cards = book.count(f"GPUs in {copies} deployments of {o.count}× {o.gpu_name}", copies * o.count, "GPUs",
                       f"computed: {copies} × {o.count}")
    total = o.tco.purchase.total if o.tco is not None and "existing" not in o.labels else None
    cost_en = cost_zh = ""
    if total and total.amount:
        money = book.money(f"full purchase of {copies} deployments of {o.count}× {o.gpu_name}",
                           copies * total.amount, total.currency,
                           f"computed: {copies} × full purchase of one deployment")
        cost_en, cost_zh = f", {money} to buy", f"，整机采购 {money}"
    return (f"; all {users} users within that take {r} copies of this deployment ({cards} cards{cost_en})",
            f"；要让 {users} 路都达到该速度，需要 {r} 套这样的部署（共 {cards} 张卡{cost_zh}）")


def offload_sentence(off: Any, book: Book, lang: str) -> str:
    """One sentence: the named card itself runs it only with llama.cpp layer offload, at its decode speed."""
    where = f"on 1× {off.gpu_name} with layer offload"
    tps = off.throughput.decode_tokens_per_s
    speed = book.num(f"decode tokens/s {where}", tps, "tokens/s", SRC_THROUGHPUT, 1 if tps < 10 else 0)
    fmt = format_label(off.layout.weights, lang)
    return (f"这张卡本身只能用 llama.cpp 按层卸载（{fmt}，部分层放进系统内存）来跑，生成约 {speed}。" if lang == "zh" else
            f" On the {off.gpu_name} itself it runs only with llama.cpp layer offload ({fmt}, some layers in system "
            f"RAM), at about {speed}.")
