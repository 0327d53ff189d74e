"""Two counts of one card in one message: a comparison of the same card at two sizes ("8 H100s or 16?",
"from 512 to 1024 H100s", "H100 从 512 张加到 1024 张"). Each count becomes a configuration of its own
(`Slots.candidates`), so the answer can put the two side by side (scaling: `dialog.compare`).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.slots import GpuMention, Slots
from advisor.conversation.reader.text import Text

_MAX_CANDIDATES = 4
_MAX_COUNT = 100_000  # a count of one card read beside another

# "from 512 to 1024 H100s", "512 张还是 1024 张 H100", "8 or 16 A100s": a second count of the card named after it
_COUNT_THEN_COUNT = re.compile(r"(?:from\s+)?(?<![\d.])(?P<a>\d{1,5})\s*(?:张|块|台|x)?\s*(?:to|->|→|vs\.?|versus|or|and|"
                               r"和|或者?|还是|到|变成|换成|增加到|加到|扩到|扩容到)\s*$")

# "8 张 H100 … 和 16 张比", "8 H100s or 16 GPUs?": another count of the card named, said after it with a comparison
_THEN_COUNT = re.compile(r"^[^?？。!！]{0,24}?(?:和|跟|与|还是|或者?|对比|比起?|换成|vs\.?|versus|or|compared (?:to|with)|against)\s*"
                         r"(?P<b>\d{1,5})\s*(?:张|块|台|卡|gpus?(?![a-z])|cards?(?![a-z])|of them(?![a-z]))")

# the card named first, then both counts: "H100 从 512 张加到 1024 张", "our H100 cluster from 512 to 1024 GPUs",
# "H100s: going from 64 to 128 GPUs". A card unit follows one count or both; a change word or "to" joins them.
_UNIT = r"(?:张|块|台|卡|片|gpus?(?![a-z])|cards?(?![a-z])|nodes?(?![a-z])|of them(?![a-z]))"
_TO = r"(?:(?:增加|扩容|扩展|扩|加|升级|提升|提高|翻倍|变|换|上|涨)(?:到|至|成)|到|至|(?:up )?to|->|→)"  # "from A … B"
_FROM_TO = re.compile(rf"^[^?？。!！,，;；]{{0,30}}?(?:从|由|(?<![a-z])from)\s*(?P<a>\d{{1,5}})\s*(?P<unit_a>{_UNIT})?\s*"
                      rf"{_TO}\s*(?P<b>\d{{1,5}})\s*(?P<unit>{_UNIT})?")


def read_count_pairs(t: Text, slots: Slots) -> None:
    """Second counts of a card named once: before it ("from 512 to 1024 H100s"), after it with a comparison ("8 张
    H100 … 和 16 张比"), or both after it ("H100 从 512 张加到 1024 张"). Each is a configuration of that card."""
    _count_before_count(t, slots)
    if len(slots.candidates) == 1:
        _counts_from_to(t, slots)
    if len(slots.candidates) == 1:  # "8 张 H100 … 和 16 张比": a second count of the one card named
        _count_after_count(t, slots)


def _counts_from_to(t: Text, slots: Slots) -> None:
    """A card named once, then "from A to B" of it: two configurations, A and B of that card. Node counts ("from
    2 to 4 nodes") are not GPU counts and are left to the server reader."""
    c = slots.candidates[0]
    if c.count is not None or not c.text:
        return
    low = t.original.lower()
    at = low.find(c.text.lower())
    if at < 0:
        return
    after = at + len(c.text)
    m = _FROM_TO.search(low[after:after + 80])
    units = (m.group("unit_a") or "", m.group("unit") or "") if m is not None else ("", "")
    if m is None or not any(units) or any(u.startswith("node") for u in units):
        return  # "from 2023 to 2025" (no card unit) is no count; nodes are servers
    a, b = int(m.group("a")), int(m.group("b"))
    if not _two_counts(a, b):
        return
    c.count = a
    slots.candidates.append(GpuMention(gpu=c.gpu, count=b, text=t.quote(after + m.start("b"), after + m.end())))
    t.consume(after + m.start("a"), after + m.end())


def _count_after_count(t: Text, slots: Slots) -> None:
    """A count said with a comparison after one named card and its count, with a card unit and no card of its own
    ("8 张 H100 训练 8B 和 16 张比", "8 H100s or 16 GPUs"), is a second configuration of that card."""
    low = t.original.lower()
    for c in list(slots.candidates):
        if c.count is None or not c.text or len(slots.candidates) >= _MAX_CANDIDATES:
            continue
        at = low.find(c.text.lower())
        m = _THEN_COUNT.search(low[at + len(c.text):at + len(c.text) + 60]) if at >= 0 else None
        if m is None:
            continue
        n = int(m.group("b"))
        if 1 <= n <= _MAX_COUNT and n != c.count and not any(x.gpu == c.gpu and x.count == n for x in slots.candidates):
            slots.candidates.append(GpuMention(gpu=c.gpu, count=n, text=m.group(0).strip()))


def _count_before_count(t: Text, slots: Slots) -> None:
    """A count said just before another count of a named card ("double from 512 to 1024 H100s") is a second
    configuration of that card."""
    low = t.original.lower()
    for c in list(slots.candidates):
        if c.count is None or not c.text or len(slots.candidates) >= _MAX_CANDIDATES:
            continue
        at = low.find(c.text.lower())
        m = _COUNT_THEN_COUNT.search(low[max(0, at - 40):at]) if at > 0 else None
        if m is None:
            continue
        start = max(0, at - 40) + m.start("a")
        if any(x is not c and x.text and _covers(low, x.text.lower(), start) for x in slots.candidates):
            continue  # "a 4090 and 2 3090s": that number is another card's name
        n = int(m.group("a"))
        if 1 <= n <= _MAX_COUNT and n != c.count and not any(x.gpu == c.gpu and x.count == n for x in slots.candidates):
            slots.candidates.insert(slots.candidates.index(c), GpuMention(gpu=c.gpu, count=n, text=m.group(0).strip()))


def _two_counts(a: int, b: int) -> bool:
    """Two different counts, each a count of GPUs (1 to _MAX_COUNT)."""
    return a != b and 1 <= a <= _MAX_COUNT and 1 <= b <= _MAX_COUNT


def _covers(text: str, part: str, at: int) -> bool:
    """Whether an occurrence of `part` in `text` spans position `at`."""
    i = text.find(part)
    while i >= 0:
        if i <= at < i + len(part):
            return True
        i = text.find(part, i + 1)
    return False


# no card named, GPUs counted at two sizes: "doubling GPUs from 256 to 512", "从 256 卡扩到 512 卡", "going from 64 to
# 128 GPUs"; the GPU word before "from" or after a count (nodes are servers, not GPUs)
_GPU_WORD = r"(?:张卡|块卡|卡|gpus?(?![a-z])|cards?(?![a-z]))"
_GENERIC_FROM_TO = re.compile(
    rf"(?P<pre>(?<![a-z]){_GPU_WORD}[^?？。!！,，;；\d]{{0,12}}?)?(?:从|由|(?<![a-z])from)\s*(?P<a>\d{{1,5}})\s*"
    rf"(?P<unit_a>{_GPU_WORD})?\s*{_TO}\s*(?P<b>\d{{1,5}})\s*(?P<unit>{_GPU_WORD})?")


def read_generic_count_pair(t: Text, slots: Slots) -> None:
    """GPUs counted at two sizes with no card named ("does doubling GPUs from 256 to 512 halve the time?"): the
    first count is `gpu_count`, the second `gpu_count_to`; both are answered on the card the search leads with
    (advisor.analysis.evaluate.count_said). A GPU word must stand before "from" or after a count."""
    if slots.candidates or slots.existing is not None:
        return
    m = _GENERIC_FROM_TO.search(t.s)
    if m is None or not (m.group("pre") or m.group("unit_a") or m.group("unit")):
        return
    a, b = int(m.group("a")), int(m.group("b"))
    if not _two_counts(a, b):
        return
    slots.gpu_count, slots.gpu_count_to = a, b
    t.consume(m.start("a"), m.end())
