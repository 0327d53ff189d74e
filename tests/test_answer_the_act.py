"""The first sentence answers the act asked about the hardware named ("Answer the thing asked"), through the
deterministic dialog on the real catalog, estimator and recommender, in English and Chinese:

1. a training job with a GPU count and no card is answered at that count (on the card named in the answer);
2. "how many servers / 几台" is answered in servers of the stated node size;
3. a laptop GPU is sized with the laptop chip's memory (NVIDIA's spec), not the desktop card's;
4. an Apple Silicon Mac with the GPU's default share of unified memory (Metal recommendedMaxWorkingSetSize);
5. a coding use with no model named defaults to a coding model, said as a default;
6. "do I need NVLink?" is answered yes / no / when, with the reason.

Each case has phrasings the code was written against and one of each language it was not (`HELD_OUT`), so the
readers are checked on wording they were not tuned to. References are independent of the code: NVIDIA's laptop
memory table, llama.cpp's logged recommendedMaxWorkingSetSize figures, hand arithmetic (6·N·D, ⌈cards / 8⌉).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
GIB = 2**30


def ask(text: str) -> Any:
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    return Conversation(driver="deterministic", lang=lang).respond(text)


def first(answer: str) -> str:
    return answer.strip().split("\n\n")[0]


def job(turn: Any, name: str) -> dict[str, Any]:
    return next(v for v in turn.extra["request"]["job"] if v["name"] == name)


# --- 1. a GPU count said with no card: that count, not the search's own smallest ------------------------------------
# (question, GPUs said, parameters of the model (published), tokens)
COUNT_SAID = [
    ("How long to train Llama-3-70B on 2048 GPUs for 2T tokens?", 2048, 70.6e9, 2e12),
    ("How many days would pre-training Qwen2.5-7B on 1T tokens take with 256 GPUs?", 256, 7.6e9, 1e12),
    ("用2048张GPU训练Llama-3-70B 2T token要多久？", 2048, 70.6e9, 2e12),
    ("256张卡预训练 Qwen2.5-7B 1T tokens 需要几天？", 256, 7.6e9, 1e12),
]
HELD_OUT_COUNT = [
    ("With 512 GPUs, how long does pre-training Llama-3-8B on 15T tokens take?", 512, 8.03e9, 15e12),
    ("我们有 1024 张卡，从头训练一个 Llama-3-8B，3T tokens，大概要多少天？", 1024, 8.03e9, 3e12),
]


def _count_said(text: str, n: int, params: float, tokens: float) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    top = turn.options[0]
    assert top["count"] == n, (top["count"], lead)
    assert f"{n}×" in lead and top["gpu_name"] in lead, lead  # the count asked, on the card named
    days = float(re.search(r"([\d.]+) (?:days|天)", lead).group(1))  # type: ignore[union-attr]
    gpu = CAT.gpu(top["gpu"])
    # hand arithmetic: 6·N·D FLOPs at an MFU between 15 % and 70 % of the card's dense BF16 peak (90 % goodput)
    fastest = 6 * params * tokens / (n * gpu.bf16_dense_flops * 0.70) / 86400
    slowest = 6 * params * tokens / (n * gpu.bf16_dense_flops * 0.15) / 86400 / 0.9
    assert fastest <= days <= slowest, (fastest, days, slowest)
    said = "No card was named" if turn.lang == "en" else "没有指定显卡"
    assert said in lead, lead  # the card was chosen, and the answer says so up front


@pytest.mark.parametrize(("text", "n", "params", "tokens"), COUNT_SAID, ids=[c[0][:48] for c in COUNT_SAID])
def test_a_count_said_without_a_card_is_the_count_answered(text: str, n: int, params: float, tokens: float) -> None:
    _count_said(text, n, params, tokens)


# --- 2. servers, not cards ------------------------------------------------------------------------------------------
SERVERS = [
    "How many servers do I need to serve Llama-3-70B for 100 users?",
    "How many 8-GPU nodes to serve DeepSeek-R1?",
    "部署 Llama-3-70B 服务 100 个用户需要几台服务器？",
    "要多少台机器才能部署 DeepSeek-R1 满血版？",
]
HELD_OUT_SERVERS = [
    "How many machines would it take to host Qwen2.5-72B for 500 concurrent users?",
    "Qwen2.5-72B 给 500 个并发用户用，要几台服务器？",
]


def _servers(text: str) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    head = re.split(r"(?<=[.。])\s*", lead, maxsplit=1)[0]
    m = re.search(r"(\d+) servers?\*\* \((\d+)-GPU nodes\): (\d+)×", head) or re.search(
        r"需要 (\d+) 台服务器\*\*（每台最多 (\d+) 张卡）：共 (\d+) 张", head)
    assert m, head
    servers, per_node, cards = (int(g) for g in m.groups())
    assert per_node == 8
    top = turn.options[0]
    assert cards % top["count"] == 0 and cards >= top["count"], (cards, top["count"])  # whole copies of the option
    assert servers == math.ceil(cards / per_node), (servers, cards)  # hand arithmetic: ⌈cards / 8⌉
    assert top["gpu_name"] in head


@pytest.mark.parametrize("text", SERVERS)
def test_how_many_servers_is_answered_in_servers(text: str) -> None:
    _servers(text)


# --- 3. laptop GPUs: the laptop chip's memory ------------------------------------------------------------------------
# NVIDIA's standard memory configurations (nvidia.com, GeForce RTX 40 Series laptops, compare specs), in GB (= GiB)
LAPTOP_MEMORY = {"4050": 6, "4060": 8, "4070": 8, "4080": 12, "4090": 16}
DESKTOP_MEMORY = {"4060": 8, "4070": 12, "4080": 16, "4090": 24}
LAPTOPS = [
    ("Can I run Llama-3-8B on my laptop with an RTX 4060?", "4060"),
    ("Will Qwen2.5-14B fit on my gaming laptop's RTX 4080?", "4080"),
    ("笔记本 4070 能跑 Qwen2.5-14B 吗？", "4070"),
    ("游戏本 4060 跑 Llama-3-8B 够不够", "4060"),
]
HELD_OUT_LAPTOPS = [
    ("Does Mistral-7B run on a notebook with a 4090?", "4090"),
    ("我的笔记本是 RTX 4090 移动版，能跑 Qwen2.5-32B 吗", "4090"),
]


def _laptop(text: str, model: str) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    assert f"{model} Laptop GPU" in lead, lead  # the laptop chip named in the answer's first sentence
    gb = LAPTOP_MEMORY[model]
    need = float(re.search(r"([\d.]+) GiB", lead).group(1))  # type: ignore[union-attr]
    figures = {float(x) for x in re.findall(r"([\d.]+) GiB", lead)}
    assert gb in figures and float(DESKTOP_MEMORY.get(model, gb)) not in figures - {float(gb)}, lead
    assert lead.startswith(("**Yes**", "**可以**") if need <= gb else ("**No**", "**不够**")), lead
    assert "NVIDIA" in turn.answer  # the source of the memory figure


@pytest.mark.parametrize(("text", "model"), LAPTOPS)
def test_a_laptop_gpu_is_sized_with_its_own_memory(text: str, model: str) -> None:
    _laptop(text, model)


# --- 4. Apple Silicon: the GPU's default share of unified memory ------------------------------------------------------
# Metal's recommendedMaxWorkingSetSize as logged by llama.cpp: 10922.67 MB on 16 GB (llama-cpp-python #687), 21845.34 MB
# on 32 GB (llama.cpp #2011) — two thirds; about 48 GB on a 64 GB M2 Max (llama.cpp #1870) — three quarters
LOGGED_SHARE_GIB = {8: 8 * 2 / 3, 16: 10922.67 / 1024, 24: 16.0, 32: 21845.34 / 1024, 64: 48.0}
MACS = [
    ("Can I run Qwen2.5-14B on a MacBook Pro 16G?", 16),
    ("What can I run on a MacBook Pro 16G?", 16),
    ("MacBook Pro 64GB 能跑 Llama-3-70B 吗", 64),
    ("Mac mini 24G 能跑什么模型", 24),
]
HELD_OUT_MACS = [
    ("Will Llama-3-70B at 4-bit fit on my M2 Pro Mac mini with 32GB?", 32),
    ("我的 MacBook Air 8G 能跑 Qwen2.5-7B 吗", 8),
]
# a Mac the catalog lists (the M3 Max machines since 2026-12) is answered from its own entry, whose memory is the same
# default GPU share (64 GB → 48 GiB), not the pool
LISTED_MACS = [
    ("M3 Max 64GB 能跑 Llama-3-70B 吗", "mac-m3-max-64g", 64),
    ("Will Llama-3-70B at 4-bit fit on my M3 Max with 64GB?", "mac-m3-max-64g", 64),
]


def _mac(text: str, pool: int) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    want = LOGGED_SHARE_GIB[pool]
    figures = [float(x) for x in re.findall(r"([\d.]+) GiB", lead)]
    assert any(abs(f - want) <= 0.06 for f in figures), (want, lead)  # the usable share, not the pool
    assert not any(abs(f - pool) < 0.01 for f in figures), lead
    assert "recommendedMaxWorkingSetSize" in turn.answer and "iogpu.wired_limit_mb" in turn.answer


@pytest.mark.parametrize(("text", "pool"), MACS)
def test_a_mac_is_sized_with_the_gpu_share_of_unified_memory(text: str, pool: int) -> None:
    _mac(text, pool)


@pytest.mark.parametrize(("text", "gpu_id", "pool"), LISTED_MACS)
def test_a_listed_mac_is_sized_with_its_entrys_gpu_share(text: str, gpu_id: str, pool: int) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    assert CAT.gpu(gpu_id).name in lead, lead
    figures = [float(x) for x in re.findall(r"([\d.]+) GiB", lead)]
    assert any(abs(f - LOGGED_SHARE_GIB[pool]) <= 0.06 for f in figures), lead  # the usable share, not the pool
    assert not any(abs(f - pool) < 0.01 for f in figures), lead


# --- 5. coding with no model named: a coding model, said as the default ----------------------------------------------
CODING = [
    "I want a coding assistant for 20 developers",
    "Which GPU should I buy to host code completion for my team of 50?",
    "部署一个代码补全助手 给20个开发者",
    "我们有30名程序员，想私有化部署一个写代码的助手，需要什么显卡？",
]
HELD_OUT_CODING = [
    "We'd like a self-hosted programming copilot for 30 engineers; what hardware?",
    "给团队搭一个编程助手，大概 40 人用，要什么配置",
]


def _coding(text: str) -> None:
    turn = ask(text)
    assert turn.extra.get("kind") != "question", turn.answer[:300]  # answered, not asked which model
    model = job(turn, "model")
    assert model["provenance"] == "default", model
    spec = CAT.model(model["value"])
    assert "coder" in spec.name.lower(), spec.name  # a coding model of the catalog
    lead = first(turn.answer)
    assert spec.name in lead and ("default" in lead or "默认" in lead), lead  # said up front, as the default


@pytest.mark.parametrize("text", CODING)
def test_a_coding_use_defaults_to_a_coding_model(text: str) -> None:
    _coding(text)


# --- 6. "do I need NVLink?": yes / no / when first, with the reason ---------------------------------------------------
VERDICT = re.compile(r"^\*\*(?:Only when|只有把|No|Not needed|Not required|It helps|It matters for training|Already there|Optional|"
                     r"It would not help|不需要|有帮助|训练时很重要|已经有了|可选|不是必需的|这张卡没有 NVLink|TP \d+ 时帮不上)")
NVLINK = [
    "Do I need NVLink for 70B on 4 GPUs?",
    "Will I need an NVLink bridge for two 3090s running Llama-3-70B 4-bit?",
    "Does NVLink matter for inference?",
    "Does 2x RTX 4090 need NVLink to run Llama-3-70B AWQ?",
    "Is NVLink worth it for serving Qwen2.5-72B on two A100s?",
    "两张 4090 需要 NVLink 吗",
    "70B 用 4 张卡推理需要 NVLink 吗？",
    "两张 4090 跑 Qwen2.5-32B 需要 NVLink 吗",
]
HELD_OUT_NVLINK = [
    "Is NVLink necessary to serve Llama-3.1-70B across 4 L40S cards?",
    "4 张 A100 PCIe 跑 Qwen2.5-72B 有必要上 NVLink 吗",
]


def _nvlink(text: str) -> None:
    turn = ask(text)
    lead = first(turn.answer)
    assert VERDICT.match(lead), lead
    named = [g for g in CAT.gpus if g.name in lead]
    if not named:  # no card and no model: when a link matters, in general, before asking for the model
        assert lead.startswith(("**Only when", "**只有")) and ("tensor" in lead or "张量" in lead), lead
        return
    gpu = max(named, key=lambda g: len(g.name))  # "NVIDIA A100 80GB SXM4", not "NVIDIA A10" inside it
    has = gpu.nvlink_bytes_per_s > 0
    assert not has or ("cannot use it" not in lead and "用不了" not in lead), lead  # a card with NVLink can use it
    if not has:  # a card without NVLink is never said to have it, and its link is named: PCIe
        assert not lead.startswith(("**Already there", "**已经有了", "**Optional", "**可选")) and "PCIe" in lead, lead
    if gpu.segment == "consumer" and not has:  # GeForce since the 40 series: no connector, and the source says so
        assert ("cannot use it" in lead or "用不了" in lead) and ("source" in lead or "来源" in lead), lead
    share = re.search(r"(\d+) %", lead)
    if share and "TP 1" not in lead:  # the all-reduce share of a decode step, and the verdict that follows from it
        pct = int(share.group(1))
        assert 0 < pct < 100
        if lead.startswith(("**Not needed", "**不需要")):
            assert pct < 25, lead
        if lead.startswith(("**It helps", "**有帮助")):
            assert pct >= 25, lead


@pytest.mark.parametrize("text", NVLINK)
def test_do_i_need_nvlink_is_answered_first(text: str) -> None:
    _nvlink(text)


# --- phrasings the readers were not written against -------------------------------------------------------------------
HELD_OUT: list[tuple[Any, tuple[Any, ...]]] = (
    [(_count_said, c) for c in HELD_OUT_COUNT] + [(_servers, (c,)) for c in HELD_OUT_SERVERS]
    + [(_laptop, c) for c in HELD_OUT_LAPTOPS] + [(_mac, c) for c in HELD_OUT_MACS]
    + [(_coding, (c,)) for c in HELD_OUT_CODING] + [(_nvlink, (c,)) for c in HELD_OUT_NVLINK])


@pytest.mark.parametrize(("check", "args"), HELD_OUT, ids=[str(a[0])[:48] for _, a in HELD_OUT])
def test_held_out_phrasings(check: Any, args: tuple[Any, ...]) -> None:
    check(*args)
