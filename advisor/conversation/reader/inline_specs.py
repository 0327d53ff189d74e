"""Specs the user types instead of a catalog name ("a card with 96 GB at 1.8 TB/s", "一张 96G 显存、带宽 1.8TB/s 的卡"):
read from the text, used as given and said so in the answer's first lines (issue 27, "honesty about the rest").

A card given by its memory is sized by the memory estimate alone (advisor.conversation.render.firstscreen.memory_lead); with
its bandwidth the answer adds the decode ceiling of one sequence, the memory-bandwidth roofline

    tokens/s ≤ bandwidth / bytes read per token,   bytes per token = active weights + the sequence's KV cache

(every decode step reads the weights the token uses and its KV cache once; Williams et al. 2009, "Roofline"; for a
MoE model only the routed experts' share of the weights is read, the active parameters over the total)."""

from __future__ import annotations

import re
from typing import Any

from advisor.conversation.render.book import SRC_USER, Book

_BANDWIDTH = re.compile(r"(?<![\d.])(\d{1,5}(?:\.\d+)?)\s*(tb/s|tbps|tb每秒|gb/s|gbps)(?![a-z])")
_SCALE = {"tb/s": 1e12, "tbps": 1e12, "tb每秒": 1e12, "gb/s": 1e9, "gbps": 1e9}  # bytes/s (decimal, as sold)
SRC_ROOFLINE = "memory-bandwidth roofline: bandwidth / (active weight bytes + KV cache bytes) per decoded token"


def read_bandwidth(s: str) -> float | None:
    """A memory bandwidth typed beside an unnamed card ("at 1.8 TB/s", "带宽 1.8TB/s", "3350 GB/s"), in bytes/s.
    Link speeds are not memory bandwidths: a figure right after "nvlink", "pcie", "ib" or "网络" is left alone."""
    for m in _BANDWIDTH.finditer(s.lower()):
        before = s.lower()[max(0, m.start() - 14):m.start()]
        if re.search(r"nvlink|pcie|infiniband|\bib\b|roce|网络|互联|以太网|ethernet", before):
            continue
        value = float(m.group(1)) * _SCALE[m.group(2)]
        if 1e10 <= value <= 1e14:  # 10 GB/s to 100 TB/s: a memory system, not a typo
            return value
    return None


def card_lines(ev: Any, capacity: Any, bandwidth: float | None, book: Book, lang: str) -> list[str]:
    """The sentence saying the typed card's specs were taken as given, with the decode ceiling they imply."""
    if capacity is None:
        return []
    zh = lang == "zh"
    cap = book.num("capacity you named", capacity.value, capacity.unit, SRC_USER, 0 if capacity.value >= 10 else 1)
    if bandwidth is None:
        return ["按您给的规格计算：一张 " + cap + " 显存的卡（不是目录里的卡，只核对显存）。" if zh else
                f"Taken as given: a card with {cap} of memory (not a catalog card, so only its memory is checked)."]
    bw = book.num("memory bandwidth you named", bandwidth / 1e12, "TB/s", SRC_USER, 2 if bandwidth < 1e12 else 1)
    need = getattr(ev, "need", None)
    model = getattr(ev, "model", None)
    if need is None or model is None:
        return [f"按您给的规格计算：{cap} 显存、带宽 {bw} 的卡。" if zh else f"Taken as given: a card with {cap} at {bw}."]
    from knowledge.params import param_counts

    counts = param_counts(model)
    share = counts.active / counts.total if counts.total else 1.0
    per_token = need.per_gpu.weights * share + need.per_gpu.kv_cache
    ceiling = book.num("decode ceiling of one sequence on the card you described", bandwidth / per_token, "tokens/s",
                       SRC_ROOFLINE, 0 if bandwidth / per_token >= 10 else 1)
    read = book.gb("bytes read per decoded token (active weights + KV cache)", per_token)
    if zh:
        return [f"按您给的规格计算：{cap} 显存、带宽 {bw} 的卡（不是目录里的卡）。单路解码速度上限约 {ceiling}"
                f"（带宽 ÷ 每个 token 读取的 {read} 权重与 KV 缓存；实际引擎通常只能达到其中一部分）。"]
    return [f"Taken as given: a card with {cap} at {bw} (not a catalog card). One sequence decodes at most about "
            f"{ceiling} (bandwidth ÷ the {read} of weights and KV cache read per token; engines reach a fraction of "
            "this)."]
