"""Which language a message is in, and the fixed sentences the deterministic dialog says in each (the catalog's
"reader" entries).

Detection is by script: CJK ideographs mean Chinese, Latin letters mean English; a message with
neither (digits, emoji, punctuation) has no language of its own and the conversation keeps its current one.
"""

from __future__ import annotations

import re
from typing import Literal

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
