"""Which language a message is in, and the fixed sentences the deterministic dialog says in each.

Detection is by script: CJK ideographs mean Chinese, Latin letters mean English; a message with
neither (digits, emoji, punctuation) has no language of its own and the conversation keeps its current one.
"""

from __future__ import annotations

import re
from typing import Literal

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


MESSAGES: dict[str, dict[str, str]] = {
    "empty": {
        "en": "I got an empty message. Tell me about the job: which model, and whether you want to serve it, fine-tune it or pre-train it.",
        "zh": "收到的是空消息。请说说您的任务：哪个模型，是推理部署、微调还是预训练？",
    },
    "nonsense": {
        "en": "I could not find a workload in that message. I size GPUs for LLM jobs: tell me the model (or its size), "
              "the task (serving, LoRA/QLoRA/full fine-tuning, pre-training) and anything you know about precision, "
              "context length, concurrency, budget or region.",
        "zh": "这条消息里没有找到可用的任务信息。我帮您为大模型任务选 GPU：请告诉我模型（或参数规模）、任务（推理部署、"
              "LoRA/QLoRA/全参微调、预训练），以及已知的精度、上下文长度、并发数、预算或地区。",
    },
    "greeting": {
        "en": "Hello! I size GPUs for LLM inference, fine-tuning and pre-training, with every number computed and cited. "
              "For example: \"Serve Qwen2.5-32B for {conc} concurrent users at {ctx} context in China, budget {budget}\".",
        "zh": "您好！我可以为大模型推理、微调和预训练推荐 GPU 配置，每个数字都有计算依据和来源。"
              "例如：“Qwen2.5-32B 推理部署，{conc} 并发，上下文 {ctx}，国内机房，预算 {budget}”。",
    },
    "thanks": {
        "en": "You're welcome. Ask a follow-up any time (\"what about FP8?\", \"what about 4 cards?\").",
        "zh": "不客气。随时可以继续追问（例如“换成 FP8 呢？”“四张卡呢？”）。",
    },
    "reset": {
        "en": "Starting over: the earlier workload is cleared.",
        "zh": "好的，重新开始：之前的任务信息已清空。",
    },
    "injection": {
        "en": "I can only size hardware with my own calculators; requests to change my instructions, reveal a prompt "
              "or run other actions are ignored.",
        "zh": "我只能用自带的计算工具为硬件选型；修改指令、透露提示词或执行其他操作的请求会被忽略。",
    },
    "truncated": {
        "en": "Your message was very long; I read only its first {n} characters.",
        "zh": "消息过长，只读取了前 {n} 个字符。",
    },
    "kept": {
        "en": "What I have so far: {summary}.",
        "zh": "目前已知：{summary}。",
    },
    "nothing_yet": {
        "en": "Nothing about the workload yet.",
        "zh": "还没有任务信息。",
    },
}


def say(key: str, lang: str, **values: object) -> str:
    """A fixed sentence in `lang` ("zh" or "en"), with {placeholders} filled."""
    entry = MESSAGES[key]
    text = entry.get(lang) or entry["en"]
    return text.format(**values) if values else text
