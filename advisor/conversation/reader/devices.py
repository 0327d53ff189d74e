"""Hardware named by the product people own (knowledge.devices): a laptop GPU ("my laptop with an RTX 4060",
"笔记本 4070") or an Apple Silicon Mac the catalog does not list ("MacBook Pro 16G", "M2 Pro 32GB", "Mac mini 24G").

Both are read as the memory the job may use, with the device said (`Slots.device`), so the answer sizes the job
against that memory and says where it came from:

* a laptop GPU: its own memory (8 GB for an RTX 4060 Laptop GPU), not the desktop card of the same name; a desktop
  catalog card matched by the same words ("4090" in "4090 laptop") is dropped;
* a Mac: the GPU's default share of the unified memory (Metal's recommendedMaxWorkingSetSize, ≈ 2/3 up to 36 GB and
  ≈ 3/4 above), not the whole pool, run by a llama.cpp-style engine (vLLM and TensorRT-LLM need CUDA).

A Mac the catalog lists ("M4 Max 36GB", "Mac Studio M3 Ultra 96GB") is left to the catalog's own entry.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from advisor.conversation.reader.cues import words
from advisor.conversation.reader.slots import Claim, DeviceMention
from knowledge.devices import GiB, laptop_gpu, load_devices

if TYPE_CHECKING:
    from advisor.conversation.reader.slots import Slots
    from advisor.conversation.reader.text import Text
    from knowledge.catalog import Catalog

_LAPTOP = words(zh=r"笔记本|游戏本|轻薄本|移动版|移动端", en=r"laptops?|notebooks?|mobile|max-q")
_GEFORCE = re.compile(r"(?<![\d.])(?:(?:geforce\s*)?rtx\s*)?(?P<model>[45]0[5-9]0)(?:\s*(?P<ti>ti))?(?![\d])")
# "MacBook Pro", "Mac mini", "Mac Studio", "iMac", "M3 Max", "苹果笔记本": an Apple Silicon Mac
_APPLE = words(zh=r"苹果(?:电脑|笔记本|芯片)?|mac",
               en=r"mac\s*book(?:\s*(?:pro|air))?|mac\s*mini|mac\s*studio|imac|mac\s*pro|macs?|apple(?:\s*silicon)?|"
                  r"m[1-5](?:\s*(?:pro|max|ultra))?")
_POOL = re.compile(r"(?<![\d.])(?P<gb>\d{1,3})\s*(?:gb|g|gib)(?![a-z0-9])(?:\s*(?:的)?\s*(?:统一内存|内存|unified memory|ram|memory))?")
_NEAR = 40  # characters between the Mac's name and its memory size


def read_device(t: Text, slots: Slots, catalog: Catalog) -> None:
    """A laptop GPU or an unlisted Mac in the message: its usable memory as the capacity, the device said."""
    s = t.original.lower()
    if _LAPTOP.search(s):
        _read_laptop(t, s, slots, catalog)
    if slots.device is None and _APPLE.search(s) and not _listed_mac(slots, catalog):
        _read_mac(t, s, slots)


def _read_laptop(t: Text, s: str, slots: Slots, catalog: Catalog) -> None:
    for m in _GEFORCE.finditer(s):
        model = m.group("model") + (" ti" if m.group("ti") else "")
        lap = laptop_gpu(model)
        if lap is None:
            continue
        words_ = t.quote(m.start(), m.end())
        desktop = {g.id for g in catalog.gpus if g.segment == "consumer" and re.search(
            rf"(?<!\d){m.group('model')}(?!\d)" + (r"\s*ti" if m.group("ti") else r"(?!\s*ti)"), g.name.lower())}
        slots.candidates = [c for c in slots.candidates if c.gpu not in desktop]
        if slots.existing is not None and slots.existing.gpu in desktop:
            slots.existing = None
        slots.unknown_gpus = [u for u in slots.unknown_gpus if m.group("model") not in u]
        slots.device = DeviceMention(kind="laptop", id=lap.id, name=lap.name, text=words_)
        slots.capacity = Claim(text=words_, value=lap.memory_gb, unit="GiB", bytes_if_gb=lap.memory_gb * 1e9,
                               bytes_if_gib=float(lap.memory_bytes))
        slots.home = True
        t.consume(m.start(), m.end())
        return


def _listed_mac(slots: Slots, catalog: Catalog) -> bool:
    """A catalog Mac was named ("M4 Max 36GB"): its own entry holds the GPU share."""
    named = [*slots.candidates, *([slots.existing] if slots.existing else [])]
    return any(catalog.gpu(m.gpu).is_machine for m in named)


def _read_mac(t: Text, s: str, slots: Slots) -> None:
    for name in _APPLE.finditer(s):
        pool = next((p for p in _POOL.finditer(s, name.start()) if p.start() - name.end() <= _NEAR), None)
        if pool is None:
            continue
        gb = float(pool.group("gb"))
        if not 4 <= gb <= 512:
            continue
        share = load_devices().apple.gpu_bytes(gb)
        words_ = t.quote(name.start(), pool.end())
        slots.device = DeviceMention(kind="apple", id="apple-silicon", name=words_, text=words_, pool_gb=gb)
        slots.capacity = Claim(text=words_, value=round(share / GiB, 2), unit="GiB", bytes_if_gb=share * 1e9 / GiB,
                               bytes_if_gib=float(share))
        slots.unknown_gpus = [u for u in slots.unknown_gpus if u.lower() not in words_.lower()]
        slots.home = True
        slots.engine = "llama.cpp"  # Metal: llama.cpp (Ollama, LM Studio) or MLX, never the CUDA servers
        t.consume(name.start(), pool.end())
        return
