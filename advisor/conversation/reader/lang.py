"""Which language a message is in, and the fixed sentences the deterministic dialog says in each (the catalog's
"reader" entries).

Detection is by script: CJK ideographs mean Chinese, Latin letters mean English; a message with
neither (digits, emoji, punctuation) has no language of its own and the conversation keeps its current one.
"""

from __future__ import annotations

import re
from typing import Literal

from advisor.conversation.reader.text import normalise
from knowledge.messages import t

Lang = Literal["zh", "en"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
# words that appear inside Chinese questions but are not English prose
_TECH = re.compile(
    r"(?i)\b(?:gpu|gpus|cpu|vram|qps|tokens?|lora|qlora|fp\d+|bf16|int\d|bit|gb|gib|tb|k|rtx|nvlink|pcie|sxm|"
    r"vllm|sglang|ollama|llama|qwen|deepseek|mistral|mixtral|gemma|glm|chatglm|baichuan|yi|phi|moe|tco|api|"
    r"usd|rmb|cny|instruct|chat|hf|base|distill|sft|kv|cache|q\d_k_m|gguf|gptq|awq|nf4|zero|deepspeed|ti|super|"
    # the words of product names ("Ryzen AI Max", "gpt-oss", "Mac Studio", "Kimi K2", "RTX PRO", "DGX Spark")
    r"gpt|oss|ai|max|pro|ultra|air|mini|mac|macbook|studio|ryzen|kimi|nvidia|amd|intel|apple|geforce|radeon|"
    r"instinct|ascend|atlas|dgx|spark|coder|thinking|flash|scout|maverick|nemotron|next|turbo|vl|dpo|mlx|lm)\b"
)
# a Chinese question's own words: with them the message is Chinese however many product names it quotes
_ZH_QUESTION = re.compile(r"[吗呢吧么嘛]\s*[?？]?\s*$|能不能|可不可以|够不够|行不行|多少|几张|几块|几台|怎么|什么|哪个|需要|能跑|跑得")


def detect(text: str) -> Lang | None:
    """"zh" when the text has Chinese characters and at most a little English prose; "en" for English prose;
    None when there is no language to detect (empty, digits, emoji)."""
    if not text:
        return None
    cjk = len(_CJK.findall(text))
    prose = [w for w in _LATIN_WORD.findall(text) if not _TECH.fullmatch(w)]
    if cjk and (cjk >= len(prose) or _ZH_QUESTION.search(text)):
        return "zh"
    if prose:
        return "en"
    if cjk:
        return "zh"
    if _TECH.search(text):
        return "en"
    return None


def say(key: str, lang: str, **values: object) -> str:
    """A fixed sentence in `lang` ("zh" or "en"): the catalog's "reader.<key>", with {placeholders} filled."""
    return t(f"reader.{key}", lang, **values)


# the language the answers are asked in: "answer in Chinese please", "and in Chinese?", "in English please", "用中文回答",
# "说英文", "换成英文". A bare "in Chinese" counts only as the whole message; a request with a verb ("answer in …",
# "用中文回答") also at the start or the end of a longer one — never a job's own language ("a bot to answer in Chinese",
# "用中文写的合同")
_ZH_WORD = r"中文|汉语|简体中文|普通话|chinese|mandarin"
_EN_WORD = r"英文|英语|english"
_TARGET = rf"(?:(?P<zh>{_ZH_WORD})|(?P<en>{_EN_WORD}))"
_FILLER = (r"(?:\s|[,.!?;:，。！？；：~]|please|pls|plz|now|and|ok(?:ay)?|then|again|also|instead|can you|could you|"
           r"would you|thanks|thank you|what about|how about|the same|same|that|this|it|answer|请|麻烦|吧|呢|吗|一下|一遍|"
           r"再|好吗|可以吗|谢谢|那|用)*")
_VERBS = (r"(?<![a-z])(?:please\s+)?(?:answer|reply|respond|write|say|explain|repeat|tell\s+me|translate|give\s+me)"
          r"(?:\s+(?:it|that|this|the\s+answer|again|back|me))*\s+(?:in|into|to)\s+{t}(?![a-z])",
          r"(?<![a-z])switch\s+to\s+{t}(?![a-z])",
          r"(?:用|以|换成|改用|切换到|切换成|翻译成|改成)\s*{t}\s*(?:来)?\s*(?:回答|回复|答|说|讲|解释|写|输出|再说一遍|重新回答|"
          r"再回答一遍)?(?!\s*(?:写|编写|撰写)?的)",
          r"说\s*{t}", r"{t}\s*(?:回答|回复|版)")
_BARE = r"(?<![a-z])(?:in\s+|into\s+)?{t}(?![a-z])"
_RXS = [*((re.compile(v.format(t=_TARGET)), False) for v in _VERBS), (re.compile(_BARE.format(t=_TARGET)), True)]
_FILLER_RX = re.compile(rf"^{_FILLER}$")
# a job's own language: "a bot that answers in Chinese", "to reply in English", "模型要能用中文回答"
_JOB_BEFORE = re.compile(r"(?:(?<![a-z])(?:to|can|that|which|who|will|should|must|bots?|models?|assistants?|agents?)|"
                         r"(?:能|会|可以|要能|支持|需要)\s*(?:用|以)?)$")


def asked_lang(s: str) -> tuple[Lang, int, int] | None:
    """The language `s` (normalised: lower case) asks the answers in, with the span of the request; None when it
    asks none."""
    for rx, alone_only in _RXS:
        for m in rx.finditer(s):
            before, after = s[:m.start()], s[m.end():]
            if _JOB_BEFORE.search(before.rstrip()):
                continue
            at_edge = _FILLER_RX.match(before) is not None or _FILLER_RX.match(after) is not None
            alone = _FILLER_RX.match(before) is not None and _FILLER_RX.match(after) is not None
            if alone or (at_edge and not alone_only):
                return ("zh" if m.group("zh") else "en"), m.start(), m.end()
    return None


def lang_asked(text: str) -> tuple[Lang, bool] | None:
    """The language `text` asks the answers in, and whether that is all it says ("and in Chinese?", "说英文");
    None when it asks none."""
    s = normalise(text[:2000])
    found = asked_lang(s)
    if found is None:
        return None
    return found[0], _FILLER_RX.match(s[:found[1]] + " " + s[found[2]:]) is not None
