"""Labels in English and Chinese: tasks, formats, slots, memory parts, regions, and slot values in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.conversation.render.book import SRC_USER, Book, decimals_for
from knowledge.messages import t

if TYPE_CHECKING:
    from advisor.conversation.reader.extract import GpuMention
    from knowledge.catalog import Catalog

TASK = {
    "inference": ("inference (serving)", "推理部署"), "lora": ("LoRA fine-tuning", "LoRA 微调"),
    "qlora": ("QLoRA fine-tuning", "QLoRA 微调"), "full": ("full fine-tuning", "全参微调"),
    "freeze": ("freeze-tuning", "冻结微调"), "pretrain": ("pre-training", "预训练"),
}


FORMAT = {
    "fp32": "FP32", "bf16": "BF16", "fp16": "FP16", "fp8": "FP8", "int8": "INT8", "int4": "INT4",
    "gptq-int4": "GPTQ INT4", "gptq-int8": "GPTQ INT8", "awq-int4": "AWQ INT4", "nf4": "NF4 (bitsandbytes)",
    "bnb-int8": "bitsandbytes INT8", "q8_0": "GGUF Q8_0", "q6_k": "GGUF Q6_K", "q5_k_m": "GGUF Q5_K_M",
    "q4_k_m": "GGUF Q4_K_M", "q4_0": "GGUF Q4_0", "q3_k_m": "GGUF Q3_K_M", "q2_k": "GGUF Q2_K",
    "mxfp4": "MXFP4", "nvfp4": "NVFP4", "int4-experts": "INT4 experts + BF16",
}


SLOT_LABEL = {
    "model": ("model", "模型"), "task": ("task", "任务"), "weights": ("precision", "精度"),
    "kv": ("KV cache format", "KV 缓存格式"), "context": ("context", "上下文"), "concurrency": ("concurrency", "并发"),
    "qps": ("QPS", "QPS"), "budget": ("budget", "预算"), "currency": ("currency", "币种"), "region": ("region", "地区"),
    "existing": ("your GPUs", "现有显卡"), "candidates": ("GPUs compared", "候选显卡"),
    "gpu_count": ("GPU count", "卡数"), "train_tokens": ("training tokens", "训练 token 数"),
    "deadline_s": ("deadline", "期限"), "tco_years": ("TCO years", "TCO 年限"), "engine": ("engine", "推理/训练框架"),
    "batch": ("batch", "批大小"), "prompt_tokens": ("prompt length", "输入长度"),
    "output_tokens": ("output length", "输出长度"), "lora_rank": ("LoRA rank", "LoRA 秩"), "zero": ("ZeRO stage", "ZeRO 阶段"),
    "buy_or_rent": ("buy or rent", "买或租"),
}


PART = {
    "weights": ("weights", "权重"), "kv_cache": ("KV cache", "KV 缓存"), "activations": ("activations", "激活"),
    "gradients": ("gradients", "梯度"), "optimizer_states": ("optimizer states", "优化器状态"),
    "overhead": ("runtime overhead", "运行时开销"),
}


REGION = {"cn": ("mainland China", "中国大陆"), "global": ("outside China", "海外/不限")}


ROLE = {"existing": ("your", "现有"), "candidate": ("", ""), "fit": ("", ""), "recommended": ("", "")}


def pick(pair: tuple[str, str], lang: str) -> str:
    """The English or the Chinese half of an (en, zh) pair."""
    return pair[1] if lang == "zh" else pair[0]


def task_label(task: str | None, lang: str) -> str:
    return pick(TASK.get(task or "inference", (task or "", task or "")), lang)


def format_label(fmt: str | None, lang: str) -> str:
    return FORMAT.get(fmt or "bf16", (fmt or "").upper())


def gpu_name(catalog: Catalog, gpu_id: str) -> str:
    spec = catalog.find_gpu(gpu_id) if hasattr(catalog, "find_gpu") else None
    return spec.name if spec is not None else gpu_id


def model_name(catalog: Catalog, model_id: str | None) -> str:
    if model_id is None:
        return "?"
    spec = catalog.find_model(model_id) if hasattr(catalog, "find_model") else None
    return spec.name if spec is not None else model_id


def slot_value(book: Book, slot: str, value: Any, lang: str, catalog: Catalog, prefix: str) -> str:
    """A slot value in words, with its numbers recorded."""
    if value is None:
        return t("slot.unset", lang)
    name = f"{prefix} {slot}"
    if slot == "model":
        return model_name(catalog, value)
    if slot == "task":
        return task_label(value, lang)
    if slot in ("weights", "kv"):
        return format_label(value, lang)
    if slot in ("context", "prompt_tokens", "output_tokens"):
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "train_tokens":
        return book.tokens(name, value, SRC_USER, lang)
    if slot == "concurrency":
        return book.num(name, value, "sequences", SRC_USER, suffix=t("slot.concurrency_unit", lang))
    if slot == "qps":
        return book.num(name, value, "requests/s", SRC_USER, decimals_for(value))
    if slot == "budget":
        return str(value)
    if slot == "region":
        return pick(REGION.get(value, (value, value)), lang)
    if slot == "existing":
        return mention_text(book, value, lang, catalog, name)
    if slot == "candidates":
        return ", ".join(mention_text(book, m, lang, catalog, f"{name} {i}") for i, m in enumerate(value))
    if slot == "deadline_s":
        return book.num(name, value / 86400, "days", SRC_USER, decimals_for(value / 86400), suffix=t("slot.days", lang))
    if slot in ("gpu_count", "batch", "lora_rank", "zero", "tco_years"):
        return book.count(name, value, {"gpu_count": "GPUs", "tco_years": "years"}.get(slot, ""), SRC_USER)
    return str(value)


def mention_text(book: Book, mention: GpuMention, lang: str, catalog: Catalog, name: str) -> str:
    gpu = gpu_name(catalog, mention.gpu)
    if mention.count:
        return f"{book.count(name, mention.count, 'GPUs', SRC_USER)}× {gpu}"
    return gpu
