"""The answer to "do I need NVLink?" (advisor.analysis.interconnect): yes, no or when, first, with the reason — the
share of a decode step the tensor-parallel all-reduces take on the configuration's own link, or the card's own
link from the catalog when no job was sized ("两张 4090 需要 NVLink 吗"), with the catalog's source for it; and to
"do I need InfiniBand?" (advisor.analysis.fabric): the training run over one 100 GbE port per server against the
network assumed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.analysis.interconnect import NVLINK_CLASS, WORTH_SHARE, LinkShare
from advisor.conversation.render.book import SRC_THROUGHPUT, Book
from knowledge.catalog import load_catalog
from knowledge.messages import t
from knowledge.quantities import DAY, Seconds
from rules.meta import get_rule

if TYPE_CHECKING:
    from advisor.analysis.fabric import FabricNeed
    from knowledge.schemas import GpuSpec

NO_NVLINK_RULE = "cap-no-nvlink"  # "GeForce 40 and 50 series have no NVLink connector" (rules.capability)
LINK_LEAD = "interconnect"  # Lead.deciding of an answer that opens with the link (dialog.policy adds none then)
SRC_CARD = "knowledge catalog: GpuSpec.nvlink / link_kind / pcie_gen and calibration.inference.allreduce"
SRC_LINK = "advisor.analysis.interconnect: all-reduce time / decode-step time (advisor.estimator.throughput)"


def link_text(link: LinkShare, name: str, book: Book, lang: str) -> str:
    """The opening sentences for a sized configuration `name` (its count × card, already recorded in `book`)."""
    source = _source(link.gpu, lang)
    if link.tp <= 1:
        return t("link.training.dp" if link.training else "link.tp1", lang, name=name)
    if link.training:
        key = "link.training.has" if link.has_nvlink else "link.training.none"
        return book.text(t(key, lang, name=name, tp=link.tp, link=link.link, nvlink=link.nvlink, source=source),
                         "interconnect", SRC_CARD)
    share = book.num(f"all-reduce share of a decode step on {link.count}× {link.gpu_name}",
                     round((link.share or 0.0) * 100, 0), "%", SRC_LINK, 0, suffix="%")
    worth = book.num("share of a step that makes a faster link worth it", WORTH_SHARE * 100, "%", SRC_THROUGHPUT,
                     0, suffix="%")
    pcie = book.num(f"all-reduce share of a decode step on {link.count}× {link.gpu_name} over PCIe",
                    round(link.share_pcie * 100, 0), "%", SRC_LINK, 0, suffix="%") if link.share_pcie is not None else ""
    if link.kind == "nvlink-bridge" and link.tp > 2:  # a bridge joins pairs: TP above 2 crosses PCIe (cap-3090-nvlink-pairs)
        key = "link.bridge_pairs"
    elif link.kind == "nvlink-bridge":
        key = "link.bridge" if link.worth else "link.bridge_optional"
    elif link.has_nvlink:
        key = "link.has"
    elif link.consumer:
        key = "link.consumer_none"
    else:
        key = "link.helps" if link.worth else "link.not_needed"
    text = t(key, lang, name=name, gpu=link.gpu_name, tp=link.tp, link=link.link, nvlink=link.nvlink, share=share,
             worth=worth, source=source, pcie=pcie)
    return book.text(text, "interconnect", SRC_CARD)


def card_text(gpu: GpuSpec, count: int, book: Book, lang: str, *, sized: bool = False) -> str:
    """Whether `count` × `gpu` have NVLink at all (the catalog's link) and what decides the need; `sized`: a job was
    sized (it does not fit), else the answer asks for the model that would give the share."""
    source = _source(gpu.id, lang)
    if gpu.link_kind == "nvlink-bridge":
        key = "link.card.bridge"
    elif gpu.link_kind in NVLINK_CLASS:
        key = "link.card.has"
    else:
        key = "link.card.consumer_none" if gpu.segment == "consumer" else "link.card.none"
    tail = "" if sized else t("link.card.name_model", lang)
    return book.text(t(key, lang, gpu=gpu.name, count=count, nvlink=gpu.nvlink, source=source) + tail,
                     "interconnect", SRC_CARD)


def _source(gpu_id: str, lang: str) -> str:
    """Where the card's link comes from, as "(source: title)": for a GeForce card without NVLink the references of
    the rule that says so (rules.capability `cap-no-nvlink`: the Ada whitepaper, the GA102 NVLink paragraph), else
    the catalog's citation of the card's NVLink field; "" when neither cites one."""
    catalog = load_catalog()
    gpu = catalog.find_gpu(gpu_id)
    if gpu is None:
        return ""
    if gpu.link_kind not in NVLINK_CLASS and gpu.segment == "consumer":
        ids: list[str] = [r for r in get_rule(NO_NVLINK_RULE).refs if r in catalog.sources][::-1]
    else:
        ids = gpu.cite.get("nvlink") or gpu.cite.get("nvlink_bytes_per_s") or []
    titles = [catalog.sources[sid].title.split(" (")[0] for sid in ids if sid in catalog.sources]
    return t("link.source", lang, title=titles[0]) if titles else ""


SRC_FABRIC = "advisor.analysis.fabric.fabric_need (the planner or 6·N·D estimate under each network)"


def fabric_text(fabric: FabricNeed, name: str, lay: str, book: Book, lang: str) -> str:
    """The opening sentence of "do I need InfiniBand?": one server uses no network between servers; otherwise the
    run over the assumed network against one 100 Gb/s Ethernet port per server, and whether that is needed."""
    if fabric.nodes <= 1:
        return t("fabric.one_server", lang, name=name)
    where = f"on {fabric.count}× {fabric.gpu_name}"
    fast = _run_time(book, f"training wall-clock {where}", fabric.wall_s, lang)
    slow = _run_time(book, f"training wall-clock {where} over 100 GbE per server", fabric.ethernet_wall_s, lang)
    ratio = book.num(f"slowdown over 100 GbE per server {where}", fabric.slowdown, "ratio", SRC_FABRIC, 2, suffix="")
    gbps = book.num(f"network per server assumed {where}", fabric.network_bytes_per_s * 8 / 1e9, "Gb/s", SRC_FABRIC, 0,
                    suffix="")
    key = "fabric.needed" if fabric.needed else "fabric.not_needed"
    return t(key, lang, name=name, nodes=fabric.nodes, fast=fast, slow=slow, r=ratio, gbps=gbps, lay=lay)


def _run_time(book: Book, name: str, seconds: float, lang: str) -> str:
    """A run's wall-clock in days (hours below a day), recorded in `book`."""
    s = Seconds(seconds)
    if s < DAY:
        return book.duration(name, s, "h", SRC_FABRIC, 1, suffix=t("slot.hours", lang))
    return book.duration(name, s, "days", SRC_FABRIC, 1, suffix=t("slot.days", lang))
