"""First sentences for acts that are not a plain sizing: "is this card still worth buying?" (a value verdict per
dollar against the newest card of its kind), "which engine is faster here?", "why does 70B need two GPUs?", and what
a DPO sizing assumes about the reference model. Checked by hand arithmetic on the catalog's printed specs, dated
prices and the models' published parameter counts; several paraphrases per act, English and Chinese (the last of
each language in a list was not used while writing the code)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks, engines_compared, reference_method
from advisor.conversation.session import Conversation


def first(lang: str, text: str) -> str:
    return Conversation(lang=lang).respond(text).answer.strip().split("\n\n")[0]


# hand arithmetic from the catalog's vendor figures and dated USD prices, per $1,000:
# A100 80GB SXM4: 80 GiB, 2039 GB/s, 312 TFLOPS BF16 dense at $11,500 (street, 2026-03-20)
#   -> 80/11.5 = 6.96 GiB, 2039/11.5 = 177.3 GB/s, 312/11.5 = 27.1 TFLOPS
# H100 SXM5: 80 GiB, 3350 GB/s, 989.4 TFLOPS at $27,500 (street, 2026-05-25) -> 2.91 GiB, 121.8 GB/s, 36.0 TFLOPS
# B300 (newest SXM card, 2025): 270 GiB, 7700 GB/s, 2250 TFLOPS at $53,000 (2026-12-04) -> 5.09, 145.3, 42.5
# RTX 3090 (end of life, used $700, 2026-06-29): 24 GiB, 936 GB/s, 71 TFLOPS -> 34.3 GiB, 1337 GB/s, 101.4 TFLOPS
# RTX 5090 (newest GeForce, $1,999 MSRP 2025-01-06): 32 GiB, 1792 GB/s, 209.5 TFLOPS -> 16.0 GiB, 896 GB/s, 104.8
@pytest.mark.parametrize(("lang", "text", "expect"), [
    ("en", "Is the H100 still worth buying in 2026?", ("**No", "$27,500", "2026-05-25", "B300", "2.9 GiB vs 5.1 GiB",
                                                       "36.0 TFLOPS vs 42.5 TFLOPS", "2022")),
    ("en", "Should I still buy a 3090?", ("**Only for memory and bandwidth", "$700", "used", "RTX 5090",
                                          "34.3 GiB vs 16.0 GiB", "101.4 TFLOPS vs 104.8 TFLOPS", "2020")),
    ("en", "Is the A100 worth it in 2026?", ("**Only for memory and bandwidth", "$11,500", "2026-03-20",
                                             "7.0 GiB vs 5.1 GiB", "177 GB/s vs 145 GB/s", "27.1 TFLOPS vs 42.5")),
    ("en", "Is a used 3090 a good buy these days?", ("**Only for memory", "$700", "1337 GB/s vs 896 GB/s")),
    ("zh", "A100 还值得买吗", ("**只在显存和带宽上更划算", "$11,500", "2026-03-20", "B300", "7.0 GiB 对 5.1 GiB",
                               "受限", "2023-10-17", "2020")),
    ("zh", "现在入手 4090 划算吗", ("**按每美元性价比，不值得", "$1,900", "2026-05-01", "RTX 5090")),
    ("zh", "H100 现在买还值不值得", ("不值得", "$27,500", "2.9 GiB 对 5.1 GiB", "36.0 TFLOPS 对 42.5 TFLOPS")),
    ("zh", "RTX 3090 现在还值得入手吗？", ("**只在显存和带宽上更划算", "$700", "二手", "34.3 GiB 对 16.0 GiB")),
])
def test_is_it_still_worth_buying_opens_with_a_value_verdict(lang: str, text: str, expect: tuple[str, ...]) -> None:
    head = first(lang, text)
    for part in expect:
        assert part in head, (part, head)


def test_the_newest_card_of_its_kind_says_so() -> None:
    head = first("en", "Is the RTX 5090 worth buying?")
    assert head.startswith("**It is the newest priced card of its kind"), head
    assert "16.0 GiB" in head  # 32 GiB / $1.999k


def test_renting_worth_it_is_still_rent_versus_buy() -> None:
    assert first("en", "Is renting H100s worth it?").startswith(("**Renting is cheaper", "**Buying is cheaper"))


# Qwen2.5-14B: 14.77 B parameters (Qwen2.5 technical report); RTX 4090: 1008 GB/s, 24 GiB. Hand arithmetic:
#   BF16 weights 14.77e9 × 2 B = 27.5 GiB > 24 GiB: neither engine can serve it at BF16 on one card;
#   FP8 (vLLM): 14.77 GB read per token -> at most 1008 / 14.77 = 68.2 tokens/s;
#   GGUF Q8_0 (llama.cpp, 8.5 bits/weight): 15.69 GB -> at most 1008 / 15.69 = 64.2 tokens/s.
_CEILING = {"FP8": 1008 / 14.77, "Q8_0": 1008 / 15.69}


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Is vLLM or llama.cpp faster for Qwen2.5-14B on a 4090?"),
    ("en", "For Qwen2.5-14B on one RTX 4090, llama.cpp vs vLLM: which one gives more tokens per second?"),
    ("zh", "在 4090 上跑 Qwen2.5-14B，用 vLLM 还是 llama.cpp 更快？"),
    ("zh", "一张 4090 跑 Qwen2.5-14B，Ollama 和 vLLM 哪个快"),
])
def test_engines_compared_on_a_card_open_with_each_engines_speed(lang: str, text: str) -> None:
    head = first(lang, text)
    assert head.startswith(("**vLLM is faster", "**vLLM 更快")), head
    for fmt, ceiling in _CEILING.items():  # each engine's speed with the format it fits in, under its roofline
        m = re.search(rf"(\d+) tokens/s[^(（]*[(（](?:GGUF )?{fmt}", head)
        assert m is not None, (fmt, head)
        assert 0.5 * ceiling <= float(m.group(1)) <= ceiling, (fmt, m.group(1), ceiling)
    assert "BF16" not in head  # 27.5 GiB of BF16 weights do not fit 24 GiB


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Which is faster, Ollama or vLLM?"),
    ("zh", "Ollama 和 vLLM 哪个快"),
])
def test_engines_compared_with_no_model_use_the_default_model_and_say_so(lang: str, text: str) -> None:
    head = first(lang, text)
    assert "Qwen2.5-7B" in head.split("**")[0], head  # said before the verdict
    assert re.search(r"vLLM (?:decodes about|每用户约) \d+ tokens/s", head), head
    assert re.search(r"llama\.cpp (?:decodes about|每用户约) \d+ tokens/s", head), head


def test_engines_compared_reads_only_a_comparison_of_two_engines() -> None:
    assert engines_compared("vLLM or SGLang, which is quicker for Llama 3 8B?") == ("vllm", "sglang")
    assert engines_compared("Ollama 跟 TensorRT-LLM 比较") == ("llama.cpp", "trtllm")
    assert engines_compared("Serve Llama 3 8B with vLLM on an H100") == ()  # one engine, nothing compared
    assert engines_compared("Ollama or LM Studio?") == ()  # both run llama.cpp


# Llama-3.1-70B: 70.55 B parameters (Meta's model card: 70B) -> BF16 weights 70.55e9 × 2 B / 2^30 = 131.4 GiB,
# more than any 80/96/128 GB card; B200 (180 GB) is the smallest catalog card that holds 134.9 GiB with headroom.
@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Why does 70B need two GPUs?"),
    ("en", "How come Llama 3 70B takes 2 GPUs?"),
    ("zh", "为什么 70B 要两张卡"),
    ("zh", "为啥 70B 模型得用两块显卡"),
    ("zh", "Llama 3.1 70B 为什么一张卡放不下？"),
    ("en", "Why do I need 2 cards for Llama 3.3 70B?"),
])
def test_why_two_gpus_opens_with_the_weights_against_one_cards_memory(lang: str, text: str) -> None:
    head = first(lang, text)
    assert head.startswith(("**Because", "**因为")), head
    assert "131.4 GiB" in head, head
    assert "B200" in head, head


def test_why_two_named_cards_for_72b() -> None:
    # Qwen2.5-72B: 72.7 B parameters -> 72.7e9 × 2 B / 2^30 = 135.4 GiB of BF16 weights, over one H100's 80 GB
    head = first("zh", "Qwen2.5-72B 为什么需要两张 H100？")
    assert head.startswith("**因为") and "135.4 GiB" in head and "H100" in head, head


def test_two_cards_in_chinese_are_not_two_yuan() -> None:
    from advisor.conversation.dialog.machine import default_catalog
    from advisor.conversation.reader.extract import extract

    s = extract("两块显卡跑 70B", default_catalog(), lang="zh")
    assert s.budget is None and s.gpu_count == 2
    assert extract("预算 5000 块，买什么卡", default_catalog(), lang="zh").budget == 5000


def test_why_count_reads_the_question_not_any_why() -> None:
    assert asks("why_count", "Why can't a 70B model run on a single GPU?")
    assert asks("why_count", "为什么 Qwen2.5-72B 需要 4 张卡？")
    assert not asks("why_count", "Why is the H100 faster than the A100?")
    assert not asks("why_count", "为什么 4090 比 3090 快")


def test_a_small_model_answered_on_one_card_says_it_needs_only_one() -> None:
    head = first("en", "Why does Qwen2.5-7B need 2 GPUs? I have an RTX 4090")
    # 7.62 B × 2 B = 14.2 GiB of BF16 weights: one 24 GB card holds the job
    assert head.startswith("**It does not need more than one card"), head
    assert "14.2 GiB" in head


# Llama-3.1-8B: 8.03 B parameters -> a second BF16 copy of the weights is 8.03e9 × 2 B / 2^30 = 15.0 GiB;
# Qwen2.5-7B: 7.62 B -> 14.2 GiB.
@pytest.mark.parametrize(("lang", "text", "adapter", "extra"), [
    ("en", "DPO training Llama 3.1 8B on 8 A100s, how much memory?", True, "15.0 GiB"),
    ("en", "How much GPU memory for full-parameter DPO of Llama 3.1 8B on 8 A100s?", False, "15.0 GiB"),
    ("en", "Can I run DPO on Qwen2.5-7B with QLoRA on one 4090?", True, "14.2 GiB"),
    ("zh", "用 DPO 训练 Llama 3.1 8B，8 张 A100，显存要多少？", True, "15.0 GiB"),
    ("zh", "Llama 3.1 8B 全参 DPO 需要多少显存", False, "15.0 GiB"),
    ("zh", "8 张 H100 做 Qwen2.5-7B 的 DPO 对齐够吗", True, "14.2 GiB"),
    ("zh", "Qwen2.5-7B 做 DPO，4 张 4090 够不够？", True, "14.2 GiB"),
])
def test_dpo_says_what_it_assumes_about_the_reference_model_after_the_verdict(lang: str, text: str, adapter: bool,
                                                                               extra: str) -> None:
    head = first(lang, text)
    # the answer to the act asked (a verdict, or the memory figure) first; then what the sizing assumes about the
    # reference model
    at = head.find("DPO ")
    assert at > 0 and "GiB" in head[:at], head
    note = head[at:]
    assert f"+{extra}" in note, head
    # full-parameter DPO: the reference copy is part of the sizing (it was said as not included before)
    said = ("adapter disabled", "关闭适配器") if adapter else ("figures below include", "已包含")
    assert any(s in note for s in said), head


def test_reference_method_names_only_methods_with_a_reference_model() -> None:
    assert reference_method("DPO on Llama 3 8B") == "DPO"
    assert reference_method("KTO 训练 Qwen2.5-7B") == "KTO"
    assert reference_method("ORPO on Llama 3 8B") == ""  # ORPO needs no reference model
