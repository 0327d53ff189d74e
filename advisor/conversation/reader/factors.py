"""A count or a budget said as a factor of the last one ("and with 2x the GPUs?", "卡数翻倍", "预算翻倍呢"): the factor
is read here and applied to the last answer's figure in the dialog (`dialog.machine.merge`)."""

from __future__ import annotations

import re

from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text

# a count or a budget said against the last one ("and with 2x the GPUs?", "double the GPUs", "half the cards", "卡数翻倍",
# "预算翻倍呢", "double the budget"): the factor, applied to the last answer's in the dialog (machine.merge)
_GPU_WORDS = r"(?:gpus?|cards?|nodes?|servers?|h100s?|h200s?|b200s?|a100s?|卡数?|显卡|机器|节点)"
_SCALE_GPUS = [
    (re.compile(rf"(?<![a-z0-9])(?:2\s*x|2\s*×|double|twice)\s+(?:the\s+|as\s+many\s+|that\s+many\s+|our\s+)?{_GPU_WORDS}|"
                rf"{_GPU_WORDS}\s*(?:翻倍|加倍|翻一倍|乘以?\s*2|x\s*2|×\s*2)|(?:double|twice)\s+(?:it|that|the count)(?![a-z])|"
                rf"(?:翻倍|加倍)\s*(?:卡数|显卡|机器|节点)"), 2.0),
    (re.compile(rf"(?<![a-z])half\s+(?:the\s+|as\s+many\s+)?{_GPU_WORDS}|{_GPU_WORDS}\s*减半"), 0.5),
]
_SCALE_BUDGET = re.compile(r"(?<![a-z0-9])(?:2\s*x|double|twice)\s+(?:the\s+|our\s+|my\s+)?budget|budget\s*(?:doubled|x\s*2)|"
                           r"预算\s*(?:翻倍|加倍|翻一倍|乘以?\s*2|x\s*2)")


def read_relative(t: Text, slots: Slots) -> None:
    """A GPU count or a budget said as a factor of the last one (`gpu_scale`, `budget_scale`)."""
    for rx, factor in _SCALE_GPUS:
        m = rx.search(t.s)
        if m:
            slots.gpu_scale = factor
            t.consume(m.start(), m.end())
            break
    b = _SCALE_BUDGET.search(t.s)
    if b:
        slots.budget_scale = 2.0
        t.consume(b.start(), b.end())
