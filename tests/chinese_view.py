"""What "the Chinese view has no English label left" reads: the words of a rendered Chinese view that are English,
beside what may stay English there (`english_words`).

May stay: the names of the catalog's cards, models and sources (a cited title, note or locator is quoted as
published: a registry text anywhere, and whatever follows a citation's "来源：" / "出处：" on its line), units,
engines, frameworks, number formats and hardware terms (`TERMS`), code (`backticks`, fenced blocks, URLs, file
names, command lines), Slack's emoji codes and HTML entities (`&gt;`). Everything else in Latin letters (a word of two or
more letters with a lower-case letter) is an English label that the Chinese view has left.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from advisor.estimator.engines import default_engines
from knowledge.catalog import load_catalog

# Terms a Chinese engineer reads in English (compared case-insensitively, whole words)
TERMS = frozenset(w.lower() for w in """
    GiB GB TB MB KB GiB/GPU TFLOPS FLOPs FLOP kWh W kW ms bit tok tokens token tokens/s tok/s PUE TCO MFU TGP TDP
    vLLM SGLang llama.cpp TensorRT-LLM TensorRT transformers DeepSpeed Megatron Megatron-LM PyTorch bitsandbytes
    Hugging Face Ollama FlashAttention Unsloth PEFT adamw AdamW
    FP8 FP16 BF16 FP32 FP4 INT4 INT8 AWQ GPTQ GGUF NF4 LoRA QLoRA ZeRO ZeRO-1 ZeRO-2 ZeRO-3 MoE KV TP PP DP EP
    GPU GPUs CPU RAM NVMe NVLink PCIe SXM HBM HBM3 HBM3e GDDR6 GDDR6X GDDR7 CUDA ECC OAM NVL PSU ATX
    NVIDIA AMD Intel Huawei Ascend GeForce RTX Tesla Quadro Volta Turing Ampere Ada Lovelace Hopper Blackwell
    Llama Qwen Mistral Mixtral DeepSeek Gemma Phi Yi GLM ChatGLM Baichuan InternLM
    LLM AI API CLI JSON Slack Markdown PDF prefill decode all-reduce nvidia-smi ROCm MLPerf InfiniBand RoCE
    GPU-Advisor Advisor zh-CN AutoDL RunPod gpushare.com Meta Reuters
    ShareGPT Chinchilla Hoffmann
""".split())
# A citation as the views print it ("（来源：<title>, <section> (<url>，检索于 …)）", "_出处：…_", Slack's "_来源: …_"):
# a registry title with the rule's locator, cut to a width, quoted as published, up to the end of its line
CITATION = re.compile(r"(?:来源|出处)[：:][^\n]*")
WORD = re.compile(r"(?<![A-Za-z0-9_./:-])[A-Za-z][A-Za-z0-9_'.+/-]*")  # a word with its digits, dashes and dots ("ZeRO-3")
CODE = re.compile(r"```.*?```|`[^`\n]*`|\{[^{}\n]*\}|https?://\S+|<[^<>\n]+>|:[a-z_]+:|\b[\w./-]+\.(?:yaml|json|md|py|gguf)\b"
                  r"|--[a-z][\w-]*|&[a-z]+;"
                  r"|\b[A-Z][A-Z0-9_]+=\S+|\bgpu-advisor(?: [a-z]+)?", re.S)


@lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], tuple[str, ...]]:
    """The words of the catalog's card and model names, and the cited texts (sources' titles and notes), longest
    first so that a title is cut out before a shorter one inside it."""
    cat = load_catalog()
    words: set[str] = set()
    for item in [*cat.gpus, *cat.models]:
        for text in (item.id, item.name, *getattr(item, "aliases", ())):
            words |= {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9'-]*", str(text))}
    cited = {str(x) for s in cat.sources.values() for x in (s.title, s.note, s.document) if x}
    cited |= {e.name for e in default_engines().engines.values()}  # "llama.cpp (CUDA backend)": a product's name
    return frozenset(words), tuple(sorted(cited, key=len, reverse=True))


def english_words(text: str, allowed: Iterable[str] = ()) -> set[str]:
    """The English words `text` (a Chinese view) shows outside code, cited texts, names and `TERMS`."""
    names, cited = _names()
    keep = {w.lower() for w in allowed}
    for quote in cited:  # before the code is cut out: a cited locator may hold a flag or a file name
        if quote in text:
            text = text.replace(quote, " ")
    text = CITATION.sub(" ", CODE.sub(" ", text))
    found = set()
    for token in WORD.findall(text):
        word = token.rstrip(".'-/+")
        if word.endswith("'s"):
            word = word[:-2]
        low = word.lower()
        if (len(word) < 2 or not re.search(r"[a-z]", word) or re.search(r"\d", word)  # ids, formats: "hgx-8"
                or low in TERMS or low in names or low in keep or "/" in word):
            continue
        found.add(word)
    return found


def block_texts(value: Any) -> Iterator[str]:
    """Every text a Slack block (or any JSON-like value) shows: the values of its "text" keys and table cells."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, str):
                if key in ("text", "alt_text", "fallback", "value"):
                    yield item
            else:
                yield from block_texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from block_texts(item)
    elif isinstance(value, str):
        yield value
