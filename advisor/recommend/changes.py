"""When nothing fits: the concrete changes that would produce a configuration meeting every constraint — more
budget, more or faster GPUs, a lighter training method, lower precision, a shorter context — each checked by
running the search again with that one change.
"""

from __future__ import annotations

import math

from advisor.estimator.formats import FORMAT_NAMES, bits_per_weight
from advisor.estimator.limits import largest, largest_context
from advisor.recommend.options import SPEED_MISSES, search_gpu
from advisor.recommend.prices import budget_price, cost_of
from advisor.recommend.rank import leadable
from advisor.recommend.results import Change, Option
from advisor.recommend.rules import apply_rules, blocked, ruled_out_beyond_fit
from advisor.recommend.search import (
    MIN_HEADROOM,
    Layout,
    Search,
    candidate_gpus,
    counts,
    headroom,
    memory_of,
    precision,
)
from advisor.workload import Constraints, Workload
from knowledge.messages import t
from knowledge.quantities import GIB, Seconds, memory_text
from knowledge.schemas import GpuSpec
from knowledge.structs import replace

# 4-bit is the lowest precision suggested as a fix: below it (Q3_K, Q2_K) quality falls off sharply (llama.cpp's
# perplexity tables), so more cards are the answer there; a sub-4-bit format the user asks for is still sized
LOWER_PRECISION = {"inference": ("fp8", "int8", "awq-int4", "q4_k_m")}
LLAMA_CPP_MAX_USERS = 8  # above this many users a GGUF (llama.cpp) weight format is no change to offer
BELOW_4_BIT = ("q3_k_m", "q2_k")  # a last resort for one user on the one card allowed (a home setup), never for serving
# a context cut below this is not offered: a chat turn (system prompt, question, answer) needs a few thousand tokens,
# and the 2,048-token window of the first Llama generation is the shortest any current model was trained with
MIN_USEFUL_CONTEXT = 2048
LIGHTER_TASK = {"full": ("lora", "qlora"), "pretrain": (), "freeze": ("lora", "qlora"), "lora": ("qlora",),
                "qlora": ()}


def changes(search: Search, options: list[Option], closest: list[Option], scope: Constraints | None = None,
            owned: bool = False) -> list[Change]:
    """Concrete changes that would produce a configuration meeting every constraint, each checked by re-running
    the search with that one change (within `scope`, e.g. only the user's own cards, when given; `owned`: those
    cards are the user's, so rules about buying them do not apply)."""
    c = scope or search.constraints
    fitting = [o for o in options if o.fits]
    out = _budget_change(fitting, c, search)
    if any(m in SPEED_MISSES for o in fitting for m in o.misses):
        out.append(Change(kind="gpus", message=t("change.gpus", "en"), message_zh=t("change.gpus", "zh")))
    if search.workload.is_training:
        out += _task_change(search, scope, owned)
    else:
        out += _gpu_share_change(search, closest)
        out += _kv_change(search, scope, owned)
        out += _precision_change(search, c, scope, owned)
        out += _engine_change(search, scope, owned)
        out += _users_change(search, closest)
        out += _context_change(search, closest)
    return out


def _budget_change(fitting: list[Option], c: Constraints, search: Search) -> list[Change]:
    """The budget that buys the cheapest fitting configuration, when every fitting one is over the budget: of those
    a buyer could be recommended (new, sold in the region) when there are any, else of all."""
    if not fitting or c.budget is None or not all("budget" in o.misses or "no_price" in o.misses for o in fitting):
        return []
    # the budget is what every option misses: those missing nothing else that the lead rule allows
    leads = [o for o in fitting if set(o.misses) <= {"budget"} and leadable(o, search.catalog.gpu(o.gpu), c)]
    cheapest = min((o for o in leads or fitting if budget_price(o, c.budget_covers)),
                   key=lambda o: budget_price(o, c.budget_covers) or math.inf, default=None)
    if cheapest is None:
        return []
    amount = budget_price(cheapest, c.budget_covers)
    fields = {"money": _money(amount, c.currency), "count": cheapest.count, "gpu": cheapest.gpu_name}
    return [Change(kind="budget", value=amount, message=t("change.budget", "en", **fields),
                   message_zh=t("change.budget", "zh", **fields))]


def _task_change(search: Search, scope: Constraints | None, owned: bool = False) -> list[Change]:
    """Training: the first lighter method (LoRA, QLoRA) that fits."""
    w = search.workload
    for task in LIGHTER_TASK.get(w.task, ()):
        alt = _retry(search, replace(w, task=task, weights=None), scope, owned)
        if alt is not None:
            wall = alt.training.wall if alt.training else None

            def say(lang: str, task: str = task, alt: Option = alt, wall: Seconds | None = wall) -> str:
                time = t("change.task.time", lang, days=f"{wall.days:.1f}") if wall else ""
                return t("change.task", lang, new=t(f"task.{task}", lang), old=t(f"task.{w.task}", lang),
                         count=alt.count, gpu=alt.gpu_name, time=time)

            return [Change(kind="task", value=task, message=say("en"), message_zh=say("zh"))]
    return []


def _kv_change(search: Search, scope: Constraints | None, owned: bool = False) -> list[Change]:
    """Serving: an FP8 KV cache (one byte a value instead of two; vLLM --kv-cache-dtype fp8), the weights as asked,
    when that alone fits: many users or a long context fill the cache, not the weights."""
    w = search.workload
    if w.kv in ("fp8", "int8") or w.concurrency * w.context < 32_768:
        return []
    alt = _retry(search, replace(w, kv="fp8"), scope, owned)
    if alt is None:
        return []
    key = "change.kv.same" if owned else "change.kv"
    return [Change(kind="kv", value="fp8", message=t(key, "en", count=alt.count, gpu=alt.gpu_name),
                   message_zh=t(key, "zh", count=alt.count, gpu=alt.gpu_name))]


def _precision_change(search: Search, c: Constraints, scope: Constraints | None, owned: bool = False
                      ) -> list[Change]:
    """Serving: the first lower weight format that fits (INT8 first on cards without FP8 tensor cores)."""
    w = search.workload
    current = precision(w, search.model)
    formats = list(LOWER_PRECISION["inference"])
    if c.candidates and not all(search.catalog.gpu(g).supports_fp8 for g in c.candidates):
        formats.remove("int8")
        formats.insert(0, "int8")  # no FP8 tensor cores: INT8 runs natively, FP8 only as weight-only upcast
    # one person's one card: 3- and 2-bit GGUF files too; not for a data-centre card, which is scaled by the server
    # ("an MI300X for Llama-3.1-405B": eight of them, not a 3-bit file on one)
    named = [search.catalog.gpu(g) for g in c.candidates]
    server_card = bool(named) and all(g.server_card for g in named)
    if c.max_gpus_per_node * c.max_nodes == 1 and w.concurrency <= 1 and not server_card:
        formats += BELOW_4_BIT
    if w.concurrency > LLAMA_CPP_MAX_USERS:  # a GGUF quant runs under llama.cpp: a handful of parallel slots, not a
        formats.remove("q4_k_m")  # service for dozens of users (it had been offered for 400, with a 257 s first token)
    for fmt in formats:
        if _bits(fmt) >= _bits(current):
            continue
        if fmt == BELOW_4_BIT[0] and (cut := _four_bit_shorter(search, scope, owned, current)):
            return [cut]  # 4-bit at a shorter context before any format below 4 bits
        alt = _retry(search, replace(w, weights=fmt), scope, owned)
        if alt is not None:
            new, old = FORMAT_NAMES.get(fmt, fmt.upper()), FORMAT_NAMES.get(current, current.upper())
            key = "change.precision.same" if owned else "change.precision"  # owned: the same cards, not named again
            return [Change(kind="precision", value=fmt, message=t(key, "en", new=new, old=old, count=alt.count,
                                                                   gpu=alt.gpu_name),
                           message_zh=t(key, "zh", new=new, old=old, count=alt.count, gpu=alt.gpu_name))]
    return []


# the shortest context a 4-bit file with a cut context is offered at before a format below 4 bits: Ollama's default
# window (4,096 tokens; docs.ollama.com/faq "How can I specify the context window size?"), a chat turn with room
FOUR_BIT_MIN_CONTEXT = 4096
FOUR_BIT_FILE = "q4_k_m"  # the 4-bit GGUF file one person runs on one card (llama.cpp, Ollama, LM Studio)


def _four_bit_shorter(search: Search, scope: Constraints | None, owned: bool, current: str) -> Change | None:
    """One person on one card, where no 4-bit format holds the job at its context: the 4-bit GGUF file with the
    longest context (≥ FOUR_BIT_MIN_CONTEXT) that the cheapest such card holds, rather than 3- or 2-bit weights
    (R1-Distill-32B on a 4090 at 32k: Q4_K_M up to the context that fits, not Q2_K). None when none holds it."""
    w = search.workload
    floor = max(FOUR_BIT_MIN_CONTEXT, (w.prompt_tokens or 0) + (w.output_tokens or 0))
    if w.context <= floor:
        return None
    short = replace(w, weights=FOUR_BIT_FILE, context=floor)
    alt = _retry(search, short, scope, owned)
    if alt is None:
        return None
    sub = search.varied(short, scope or search.constraints)
    longest = largest_context(lambda n: _fits_on(sub, alt, context=n), w.context)
    if longest < floor or longest >= w.context:
        return None
    key = "change.precision_context.same" if owned else "change.precision_context"
    fields = {"new": FORMAT_NAMES.get(FOUR_BIT_FILE, FOUR_BIT_FILE.upper()),
              "old": FORMAT_NAMES.get(current, current.upper()), "context": longest, "old_context": w.context,
              "count": alt.count, "gpu": alt.gpu_name}
    return Change(kind="precision", value=FOUR_BIT_FILE, context=longest, message=t(key, "en", **fields),
                  message_zh=t(key, "zh", **fields))


# llama.cpp's file of the same weight class: for one person or a few, it splits whole layers over the cards and keeps
# no share of the memory back (vLLM's gpu_memory_utilization leaves 10 %), so a job just over the limit fits there
GGUF_FOR = {"int4": "q4_k_m", "awq-int4": "q4_k_m", "gptq-int4": "q4_k_m", "nf4": "q4_k_m", "int8": "q8_0",
            "fp8": "q8_0", "gptq-int8": "q8_0", "bnb-int8": "q8_0"}
FEW_USERS = 4  # llama.cpp serves one request at a time per slot: suggested for a home or a small team, not a service


def _engine_change(search: Search, scope: Constraints | None, owned: bool = False) -> list[Change]:
    """Serving one person or a few at 4 or 8 bits: llama.cpp with the GGUF file of that class, when it fits."""
    w = search.workload
    gguf = GGUF_FOR.get(precision(w, search.model))
    if gguf is None or w.engine == "llama.cpp" or w.concurrency > FEW_USERS:
        return []
    alt = _retry(search, replace(w, weights=gguf, engine="llama.cpp"), scope, owned)
    if alt is None:
        return []
    name = FORMAT_NAMES.get(gguf, gguf.upper())

    def say(lang: str) -> str:
        speed = alt.throughput.decode_tokens_per_s if alt.throughput else None
        at = t("change.engine.speed", lang, tps=f"{speed:.0f}") if speed else ""
        return t("change.engine", lang, fmt=name, count=alt.count, gpu=alt.gpu_name, speed=at)

    return [Change(kind="engine", value="llama.cpp", message=say("en"), message_zh=say("zh"))]


def _context_change(search: Search, closest: list[Option]) -> list[Change]:
    """Serving: the longest context that fits on the closest configuration no rule rules out."""
    w = search.workload
    best = _closest_allowed(closest)
    if best is None:
        return []
    max_context = largest_context(lambda n: _fits_on(search, best, context=n), w.context)
    useful = max(MIN_USEFUL_CONTEXT, (w.prompt_tokens or 0) + (w.output_tokens or 0))
    if not max_context or max_context >= w.context or max_context < useful:
        return []  # nothing to change, or a window too short to be of use (R1 for 100 users on 8 H20s: 768 tokens)
    fields = {"context": max_context, "old": w.context, "count": best.count, "gpu": best.gpu_name}
    return [Change(kind="context", value=max_context, message=t("change.context", "en", **fields),
                   message_zh=t("change.context", "zh", **fields))]


SYSTEM_SHARE = 1 / 16  # of a unified pool left to the operating system when the GPU's share is raised (at least
SYSTEM_MIN = 16 * GIB  # 16 GiB): a margin this tool chooses; macOS itself gives the GPU about 3/4 by default


def gpu_share_ceiling(gpu: GpuSpec) -> int | None:
    """The most of a unified pool its documented setting may give the GPU (macOS iogpu.wired_limit_mb): the
    catalog's `max_gpu_bytes`, else the pool less what the system keeps (SYSTEM_SHARE, at least SYSTEM_MIN); None
    for a card or a machine without such a setting."""
    um = gpu.unified_memory
    if um is None or "iogpu.wired_limit_mb" not in um.setting:
        return None
    return int(um.max_gpu_bytes or um.total_bytes - max(SYSTEM_MIN, um.total_bytes * SYSTEM_SHARE))


def raised_share_mb(gpu: GpuSpec, need: int) -> int | None:
    """The iogpu.wired_limit_mb value that holds `need` bytes: the need plus 2 GiB, never above the ceiling; None
    when the ceiling does not hold it (or nothing is needed)."""
    ceiling = gpu_share_ceiling(gpu)
    if ceiling is None or not 0 < need <= ceiling:
        return None
    return int(min(ceiling, math.ceil(need / GIB + 2) * GIB) // 2**20)


def _gpu_share_change(search: Search, closest: list[Option]) -> list[Change]:
    """A unified-memory machine (a Mac) short of its default GPU share but not of its pool: the documented setting
    that raises the share (the catalog's `UnifiedMemory.setting`, macOS `iogpu.wired_limit_mb`), to the need plus
    2 GiB, never above the pool less what the system keeps."""
    best = _closest_allowed(closest)
    if best is None:
        return []
    gpu = search.catalog.gpu(best.gpu)
    um, need = gpu.unified_memory, best.per_gpu.total.n
    mb = raised_share_mb(gpu, need) if need > best.usable.n else None
    if um is None or mb is None:
        return []
    share = mb * 2**20

    def say(lang: str) -> str:
        return t("change.gpu_share", lang, share=memory_text(share, "GiB", 0), mb=mb, pool=memory_text(um.total_bytes, "GiB", 0),
                 count=best.count, gpu=best.gpu_name, left=memory_text(um.total_bytes - share, "GiB", 0))

    return [Change(kind="gpu_share", value=mb, message=say("en"), message_zh=say("zh"))]


def _users_change(search: Search, closest: list[Option]) -> list[Change]:
    """Serving several users: the most concurrent users whose KV cache fits at the asked context on the closest
    configuration no rule rules out (memory only; speed at that load is the simulation's)."""
    w = search.workload
    best = _closest_allowed(closest)
    if best is None or w.concurrency <= 1:
        return []
    most = largest(lambda n: _fits_on(search, best, concurrency=n), w.concurrency - 1)
    if most < 1:
        return []

    def say(lang: str) -> str:
        return t("change.users", lang, n=most, old=w.concurrency, context=w.context, count=best.count,
                 gpu=best.gpu_name)

    return [Change(kind="concurrency", value=most, message=say("en"), message_zh=say("zh"))]


def _bits(fmt: str) -> float:
    return bits_per_weight(fmt)


def _retry(search: Search, w: Workload, constraints: Constraints | None = None, owned: bool = False
           ) -> Option | None:
    """The cheapest option meeting every constraint for a changed workload that no rule blocks (a change must not
    point to a card the market rules rule out)."""
    c = constraints or search.constraints
    sub = search.varied(w, c)
    pairs = counts(c)
    found = []
    for gpu in candidate_gpus(search.catalog, c):
        opt, near = search_gpu(sub, gpu, pairs)
        if opt is None and constraints is not None and near is not None and near.fits:
            opt = near  # on the user's own cards a fit without the usual headroom is still the way (said as such)
        if opt is not None and opt.meets_targets:
            found.append((opt, gpu))
    for opt, gpu in sorted(found, key=lambda pair: cost_of(pair[0])):
        if owned:
            opt.labels.append("existing")  # the market rules judge an owned card as owned, not as a purchase
        apply_rules(sub, opt, gpu)
        if not blocked(opt):
            return opt
    return None


def _closest_allowed(closest: list[Option]) -> Option | None:
    """The closest configuration that no rule other than "does not fit" rules out (a change never points to a card
    a market or engineering rule rules out)."""
    return next((o for o in closest if not ruled_out_beyond_fit(o)), None)


def _fits_on(search: Search, opt: Option, **change: int) -> bool:
    """Whether the workload with `change` (a context, a number of users) fits with headroom on `opt`'s layout."""
    gpu = search.catalog.gpu(opt.gpu)
    layout = Layout(opt.count, opt.nodes, opt.layout.tp, opt.layout.pp, opt.layout.zero, opt.layout.zero_offload,
                    engine="fsdp" if opt.layout.engine == "fsdp" else None, attention_dp=opt.layout.attention_dp)
    found = memory_of(search.varied(replace(search.workload, **change)), gpu, layout)
    return found is not None and headroom(found.estimate, gpu) >= MIN_HEADROOM


def _money(amount: float | None, currency: str) -> str:
    if amount is None:
        return "?"
    return f"¥{amount:,.0f}" if currency == "CNY" else f"${amount:,.0f}"
