"""Two settings of one job compared ("LoRA vs QLoRA for a 13B", "is an 8-bit KV cache worth it at 128k?", "FP16 or
INT4 for Llama 3 70B?") and "how much does the context change the memory?": the variants of the workload whose
memory the answer sets side by side (advisor.analysis.variants).

A variant is (workload field, value). Two methods or two weight formats are read when both are named in the
message; an 8-bit / FP8 KV cache is compared with the default FP16 one; a question about the context's effect gets a
ladder of contexts (4k, 32k, 128k, within the model's maximum).
"""

from __future__ import annotations

import itertools
import re

from advisor.conversation.reader.text import normalise

Variant = tuple[str, str | int]

_SEP = r"\s*(?:vs\.?|versus|or|and|against|compared (?:to|with)|over|instead of|than|和|与|跟|还是|对比|比|相比|或)\s*"
# a few words, then a comparative ("FP8 training on H100 faster than BF16", "LoRA uses less memory than full")
_COMPARED_AFTER = re.compile(r"[\s\w,()/-]{0,40}?(?<![a-z])(?:faster|slower|quicker|better|worse|cheaper|(?:more|less|fewer)"
                             r"(?:\s+\w+)?)\s+than\s*(?:the|a|an)?\s*")
# further apart in one sentence: "With FP8 training, how much faster is pretraining a 70B on 512 H100 than BF16?",
# "用 FP8 训练 70B 比 BF16 快多少": a comparative before "than", or "比/相比" right before the second setting
_ANY = r"(?:[^.?!;。？！；]|\.(?=\S))"  # within the sentence: a point inside a name ("llama-3.1") is no full stop
_COMPARED_FAR = re.compile(rf"{_ANY}{{0,90}}?(?<![a-z])(?:faster|slower|quicker|better|worse|cheaper|more|less|"
                           rf"fewer)(?![a-z]){_ANY}{{0,60}}?(?<![a-z])than\s*(?:the|a|an)?\s*|"
                           rf"{_ANY}{{0,40}}?(?<![a-z])(?:instead of|rather than|versus|vs\.?|compared (?:to|with))\s*|"
                           r"[^.?!;。？！；，,]{0,24}?(?:比|相比|对比)\s*")
_METHODS = {
    "full": r"full(?:[\s-]*parameter)?[\s-]*(?:fine[\s-]*tun(?:e|ing)|ft)|全参(?:数)?(?:微调)?|全量微调",
    "qlora": r"q[\s-]?lora",
    "lora": r"(?<![a-z])lora(?![a-z])",
}
_FORMATS = {
    "bf16": r"(?<![a-z0-9])(?:bf16|fp16|16[\s-]?bit|半精度)(?![a-z0-9])",
    "fp8": r"(?<![a-z0-9])fp8(?![a-z0-9])",
    "int8": r"(?<![a-z0-9])(?:int8|8[\s-]?bit|8 位)(?![a-z0-9])",
    "int4": r"(?<![a-z0-9])(?:int4|4[\s-]?bit|4 位|awq|gptq)(?![a-z0-9])",
}
_KV_8BIT = re.compile(r"(?:8[\s-]?bit|fp8|int8|量化|quantiz\w*)\s*(?:的\s*)?kv|kv\s*(?:cache|缓存)?\s*(?:in|at|to|用|做|为)?\s*"
                      r"(?:8[\s-]?bit|fp8|int8)|kv\s*(?:cache|缓存)?\s*(?:量化|quantiz\w*)")
_CONTEXT_EFFECT = re.compile(r"(?:context|sequence)(?: length| window| size)? (?:affect|change|impact|effect|scale|matter|"
                             r"add|cost)|(?:longer|bigger|larger) (?:context|sequence)s?.{0,30}(?:memory|vram)|(?:affect|effect|impact) of (?:the )?(?:context|sequence)|how (?:does|do) "
                             r"(?:the )?(?:context|sequence)|memory (?:grow|scale|increase)s? with (?:the )?(?:context|sequence)|"
                             r"上下文(?:长度)?.{0,24}?(?:影响|关系)|上下文(?:长度)?(?:对|会)?(?:显存|内存)?(?:的)?(?:增加|变化)|上下文.{0,6}(?:越长|增加).{0,8}显存")
CONTEXT_LADDER = (4096, 32768, 131072)
# "should I turn gradient checkpointing on?", "要开梯度检查点吗": the job with full recomputation and without it
_CHECKPOINTING = re.compile(r"gradient[\s_-]*checkpoint\w*|activation[\s_-]*(?:checkpoint\w*|recomput\w*)|"
                            r"梯度检查点|激活(?:值)?重计算|重计算")
# "what quant fits in 48 GB?", "which GGUF quant for a 3090?", "how low do I need to quantize?", "最低用几bit": the
# formats from the checkpoint's precision down to 2-bit GGUF, each sized (the answer names the most precise that fits)
# the comparative before both settings: "how much faster is FSDP2 with FP8 than BF16?"
_THAN = re.compile(r"\s+(?:training\s+|train\s+)?than\s+(?:the\s+|a\s+|an\s+)?")
_COMPARATIVE = re.compile(r"(?<![a-z])(?:faster|slower|quicker|better|worse|cheaper)(?![a-z])")
_QUANT_QUESTION = re.compile(
    r"(?<![a-z])(?:what|which|best|highest|biggest|largest|lowest|max(?:imum)?)\s+(?:gguf\s+|q\s*)?(?:quant(?:s|ization|isation)?"
    r"(?:\s+level)?|bit[\s-]?(?:width|depth)|q[\s-]?level)(?![a-z])|how (?:low|far|much) (?:do|should|must|would) (?:i|we|you) "
    r"(?:need to |have to )?quanti[sz]e|(?:哪个|什么|哪种|最高|最低|用几|几)\s*(?:位|bit|比特)?\s*(?:量化|精度)(?!\s*kv)")
# a training run's FP8 gain asked with FP8 alone named ("would FP8 training speed up a 70B run, and by how much?",
# "用 FP8 训练能快多少"): the run in FP8 against the BF16 it would otherwise use
_FP8_SPEEDUP = re.compile(rf"(?<![a-z0-9])fp8(?![a-z0-9]){_ANY}{{0,60}}?(?:speed(?:s|ed)?[\s-]*(?:it\s+|things\s+)?up|"
                          r"speed[\s-]?up|faster|quicker|(?:how\s+much|what)\s+(?:time|gain|speed[\s-]?up)|save|提速|加速|快多少|快几|"
                          rf"能快|更快|省多少|节省)|(?:speed[\s-]?up|faster|提速|加速|快多少){_ANY}{{0,80}}?(?:with|用|换成|改用)\s*"
                          r"fp8(?![a-z0-9])")
_TRAINING_WORD = re.compile(r"(?<![a-z])(?:train(?:ing|ed)?|pre[\s-]?train(?:ing)?|fine[\s-]?tun\w*)(?![a-z])|训练|预训练|微调")
QUANT_LADDER = ("bf16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k")


def read_variants(text: str) -> tuple[Variant, ...]:
    """The variants the message compares, in the order named; () when it compares none."""
    s = normalise(text or "")  # "float8", "bfloat16": the formats' own names
    for field, table in (("task", _METHODS), ("weights", _FORMATS)):
        named = _two_named(s, table)
        if named:
            return tuple((field, v) for v in named)
    if _FP8_SPEEDUP.search(s) and _TRAINING_WORD.search(s):  # FP8 named alone, its gain asked: against BF16
        return (("weights", "fp8"), ("weights", "bf16"))
    if _QUANT_QUESTION.search(s) and not _two_named(s, _FORMATS):
        return tuple(("weights", f) for f in QUANT_LADDER)
    if _KV_8BIT.search(s):
        return (("kv", "fp16"), ("kv", "fp8"))
    if _CONTEXT_EFFECT.search(s):
        return tuple(("context", c) for c in CONTEXT_LADDER)
    if _CHECKPOINTING.search(s):
        return (("recompute", "full"), ("recompute", "none"))
    return ()


def _before(s: str, end: int) -> str:
    """The text before the word that ends at `end` ("… going from" before "fp8")."""
    m = re.search(r"[\w.-]+$", s[:end])
    return s[:m.start()] if m else s[:end]


def _two_named(s: str, table: dict[str, str]) -> list[str]:
    """Two different values of `table` named with a comparison word between them ("LoRA vs QLoRA"), in order."""
    hits: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for value, pattern in table.items():
        for m in re.finditer(pattern, s):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # "qlora" is not also a "lora"
            taken.append((m.start(), m.end()))
            hits.append((m.start(), m.end(), value))
    hits.sort()
    for (_, end_a, a), (start_b, _, b) in itertools.pairwise(hits):
        if a != b and (re.fullmatch(rf"[\s,()]*(?:{_SEP})[\s,()]*(?:the|a|an)?\s*", s[end_a:start_b])
                       or (_THAN.fullmatch(s[end_a:start_b]) and _COMPARATIVE.search(s[max(0, end_a - 80):end_a]))
                       or re.fullmatch(r"\s+(?:saves?|gains?|loses?|costs?|buys?)\s+(?:over|vs\.?|versus|against|compared (?:to|with)|"
                                       r"relative to)\s*(?:the\s+)?", s[end_a:start_b])
                       or (re.fullmatch(r"\s+(?:to|into|到|换成|改成)\s*", s[end_a:start_b])
                           and re.search(r"(?:from|从)\s*$", _before(s, end_a)))
                       or _COMPARED_AFTER.fullmatch(s[end_a:start_b]) or _COMPARED_FAR.fullmatch(s[end_a:start_b])):
            return [a, b]
    return []
