"""The extractor's reader of a parallel layout the user fixes for a training run: "TP8 PP4", "TP=8, PP=4",
"tp 8 / pp 4", "tensor parallel 8, pipeline 4", "8-way TP", "TP8×PP4×DP16", "TP/PP = 8/4", "EP 8", "CP 2",
"--tensor-model-parallel-size 8", "张量并行 8、流水线并行 4", "8 路张量并行", "4 级流水线"; for serving, copies of the
model side by side ("4 replicas", "4 个副本": `Slots.replicas`, the serving DP; each copy the count ÷ replicas GPUs,
recommend.search.replica_layouts).

Each degree read is blanked out of the working text, so its number is no GPU count, batch or length. A DP said
with no GPU count ("TP8×PP4×DP16 on H100") states the count: TP × PP × CP × DP. The dialog hands the degrees to
the planner for pre-training and full fine-tuning (`Workload.pinned_layout`); a TP/PP layout said with a bare
"train" or "fine-tune" is such a run (Megatron's full-parameter training).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.intent import tp_degrees_said
from advisor.conversation.reader.numbers import to_number
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.text import Text
from advisor.workload import PinnedLayout

_SIZE = r"(?:[\s_-]*(?:size|degree|dim(?:ension)?)|\s*度)?"
_PAR = rf"[\s_-]*(?:model[\s_-]*)?parallel(?:ism|ization)?{_SIZE}"
# each degree's names: the abbreviation as a whole word, the English words, the Chinese words
_NAMES = {
    "tp": rf"(?<![a-z])tp(?![a-z]){_SIZE}|tensor{_PAR}|张量并行(?:度|数|规模)?|张量切分",
    "pp": rf"(?<![a-z])pp(?![a-z]){_SIZE}|pipeline(?:{_PAR}|[\s_-]*stages?)?|流水线并行(?:度|数|规模)?|流水并行(?:度)?|流水线",
    "cp": rf"(?<![a-z])cp(?![a-z]){_SIZE}|context{_PAR}|上下文并行(?:度)?",
    "ep": rf"(?<![a-z])ep(?![a-z]){_SIZE}|experts?{_PAR}|专家并行(?:度)?",
    "dp": rf"(?<![a-z])dp(?![a-z]){_SIZE}|data{_PAR}|数据并行(?:度)?",
}


def _number(words: str, zh: str = "一二两四八十六") -> str:
    """A degree's number, named `n`: digits, a Chinese numeral of the characters `zh`, or one of the English `words`."""
    return (rf"(?P<n>(?<![\d.])\d{{1,6}}(?!\d|\.\d)|(?<![零〇一二两三四五六七八九十百千万])[{zh}]+"
            rf"(?![零〇一二三四五六七八九十百千万亿])|(?<![a-z])(?:{words})(?![a-z]))")


_N = _number("two|four|eight|sixteen")
# a degree is no amount with a unit after it ("TP 8 H100s", "a pipeline of 2 TB", "流水线 3 万条")
_NOT_COUNT = (r"(?!\s*(?:x\s*)?(?:gpus?|cards?|nodes?|servers?|张|块|卡|台|[ahbl]\d{2,3}|%|[kmbt]\b|[kmgt]i?b|g\b|"
              r"tokens?|ms\b|users?|requests?|samples?|docs?|documents?|万|亿|千|条|个|人|小时|天|秒))")
_LINK = r"\s*(?:=|:|：|of|is|at|to|as|为|是|设为|设成|设置为|设置成|取|开到|开成|开|用|等于)?\s*"
_AFTER = {k: re.compile(rf"(?:{names}){_LINK}{_N}{_NOT_COUNT}") for k, names in _NAMES.items()}
# "8-way TP", "8 路张量并行", "a 4-stage pipeline", "4 级流水线", "4 pipeline stages"
_BEFORE = {k: re.compile(rf"{_N}\s*(?:-\s*)?(?:way|路)\s*(?:of\s+)?(?:{names})") for k, names in _NAMES.items()}
# copies come in any number ("三个副本"), degrees in the usual powers of two
_N_COPIES = _number("two|three|four|five|six|seven|eight|nine|ten|twelve|sixteen", "一二两三四五六七八九十")
# copies of the model served side by side ("4 replicas", "two copies of the model", "4 个副本", "副本数 4"): the
# serving DP (vLLM --data-parallel-size); "from 2 to 4 replicas" is the 4
_REPLICAS = [
    # "把副本从 2 个扩到 4 个", "副本数从 2 加到 4": the number it goes to
    re.compile(rf"(?:副本|实例)[^，。？！?!,;；]{{0,10}}?(?:扩到|扩成|扩容到|增加到|加到|提到|提高到|改成|改为|调到|变成)\s*{_N}"),
    re.compile(rf"{_N_COPIES}\s*(?:(?:model|serving|inference|vllm|sglang|independent|separate|identical|full)\s+)?"
               r"(?:replicas|copies|instances)(?![a-z])(?!\s+of\s+(?:the\s+)?(?:data|dataset|documents?|files?))"),
    re.compile(rf"{_N_COPIES}\s*(?:个|份|套)\s*(?:模型\s*)?(?:副本|实例)"),
    re.compile(rf"(?:副本|实例)数?\s*(?:为|是|=|:|：|改成|改为|扩到|扩成|增加到|加到|到)?\s*{_N}(?!\s*(?:张|块|卡))"),
]
_STAGES = re.compile(rf"{_N}\s*(?:-\s*)?(?:stages?\s*(?:of\s*)?pipeline|pipeline[\s-]*stages|(?:级|段|个阶段|阶段)\s*(?:的)?\s*流水线)")
# "TP/PP/DP = 8/4/16", "(tp, pp) = (8, 4)", "TP×PP: 8×4"
_ABBR = r"(?<![a-z])(?:tp|pp|cp|ep|dp)(?![a-z])"
_JOINED = re.compile(rf"\(?(?P<names>{_ABBR}(?:\s*[/,、x]\s*{_ABBR})+)\)?\s*(?:=|:|：|of|is|为|是)?\s*"
                     rf"\(?(?P<values>\d{{1,6}}(?:\s*[/,、x]\s*\d{{1,6}})+)\)?")
_SEP = re.compile(r"\s*[/,、x]\s*")
LIMITS = {"tp": 1024, "pp": 1024, "cp": 1024, "ep": 1024, "dp": 100_000}  # PinnedLayout's bounds


def read_layout(t: Text, slots: Slots) -> None:
    """The parallel degrees said (`Slots.pinned_layout`), each phrase blanked; see the module docstring."""
    found: dict[str, int] = {}
    for m in t.finditer(_JOINED):  # "TP/PP = 8/4, 512 GPUs": as many values as names, the rest left to others
        names = _SEP.split(m.group("names").strip())
        values = list(re.finditer(r"\d+", m.group("values")))[:len(names)]
        if len(values) == len(names) and len(set(names)) == len(names):
            found.update({name: int(v.group(0)) for name, v in zip(names, values, strict=True)})
            t.consume(m.start(), m.start("values") + values[-1].end())
    for rxs in (_BEFORE, _AFTER):
        for key, rx in rxs.items():
            for m in t.finditer(rx):
                value = to_number(m.group("n"))
                if key not in found and value is not None and value.is_integer():
                    found[key] = int(value)
                    t.consume(m.start(), m.end())
    for rx in _REPLICAS:
        hits = t.finditer(rx)
        value = to_number(hits[-1].group("n")) if hits else None  # the last: "from 2 to 4 replicas"
        if value is not None and value.is_integer() and 1 <= value <= LIMITS["dp"]:
            slots.replicas = int(value)
            for m in hits:
                t.consume(m.start(), m.end())
            break
    stages = _STAGES.search(t.s)
    if stages and "pp" not in found and (value := to_number(stages.group("n"))) is not None:
        found["pp"] = int(value)
        t.consume(stages.start(), stages.end())
    found = {k: v for k, v in found.items() if 1 <= v <= LIMITS[k]}
    if "tp" in found and len(tp_degrees_said(t.original)) >= 2:  # "TP 8 or TP 16?": a comparison, no pin
        del found["tp"]
    if found:
        slots.pinned_layout = PinnedLayout(**found)


def count_of_layout(slots: Slots) -> None:
    """A DP said with no GPU count ("TP8×PP4×DP16 on H100s"): the count it makes, TP × PP × CP × DP; so do served
    replicas of a group said ("4 replicas of TP 2": 8)."""
    pins = slots.pinned_layout
    counts = [m.count for m in slots.candidates] + [slots.existing.count if slots.existing else None]
    if pins is None or slots.gpu_count is not None or any(counts):
        return
    if pins.dp is not None:
        slots.gpu_count = pins.split * pins.dp
    elif slots.replicas and (pins.tp or pins.pp):  # "4 replicas of TP 2": 8 GPUs
        slots.gpu_count = pins.split * slots.replicas


__all__ = ["count_of_layout", "read_layout"]
