"""Questions about a training run itself, answered first: two counts of one card read as scaling ("would doubling
from 512 to 1024 H100s halve the time?"), "the fastest I could train it" as a duration, a run set against the makers'
published GPU-hours, a PyTorch framework with its dtype names ("FSDP2 with float8 vs BF16") as a training run, and
the pipeline bubble of a plan."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import classify
from advisor.conversation.reader.slots import Slots
from advisor.conversation.reader.variants import read_variants
from tests.answer_text import answer


def _days(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"([\d.]+) (?:days|天)", text)]


@pytest.mark.parametrize(("text", "lang"), [
    ("Would doubling from 512 to 1024 H100s halve the training time for a 70B on 2T tokens?", "en"),
    ("Is 64 or 128 H100 better for pretraining a 7B on 1T tokens?", "en"),
    ("从 512 张增加到 1024 张 A100，7B 模型 1T token 训练时间能减半吗？", "zh"),
    ("8 张 H100 训练 8B 模型和 16 张比，时间能减半吗？1T token", "zh"),
    ("8 H100s or 16 GPUs for a 7B pretrain on 1T tokens?", "en"),
])
def test_two_counts_of_one_card_are_read_as_scaling(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    head = first.split("**")[1]  # the bold opening: both times and the speed-up
    d1, d0 = _days(head)[:2]  # the larger count first, then the smaller one's time
    assert d1 < d0, head  # more GPUs never lengthen the wall-clock
    speedup = float(re.search(r"([\d.]+)× as fast" if lang == "en" else r"速度是.*?的 ([\d.]+) 倍", head).group(1))
    assert speedup == pytest.approx(d0 / d1, rel=0.03)
    assert 1.5 < speedup <= 2.0  # the GPUs doubled: at most twice as fast
    eff = re.search(r"(?:scaling efficiency|扩展效率) (\d+) %", first)
    assert eff and 75 <= int(eff.group(1)) <= 100, first


def test_two_different_cards_keep_their_comparison() -> None:
    first = answer("Compare 8x H100 and 8x A100 for fine-tuning Llama-3.1-8B on 1B tokens").split("\n")[0]
    assert "as fast with" not in first


@pytest.mark.parametrize("text", [
    "What's the fastest I could train Llama-3-8B on 15T tokens if I had 4096 H100s?",
    "the quickest we can fine-tune Qwen2.5-7B on 500M tokens with 8 A100",
])
def test_the_fastest_one_could_train_is_a_duration(text: str) -> None:
    first = answer(text).split("\n")[0]
    assert first.startswith("About ") and re.search(r"\d (?:days|hours)", first), first


@pytest.mark.parametrize(("text", "lang", "published"), [
    ("用 1024 张 H100 预训练 Llama-3-8B 15T token，和 Meta 公布的 GPU 小时比怎么样？", "zh", "1,300,000"),
    ("How does pretraining Llama-3-70B on 8192 H100 compare with Meta's published GPU hours?", "en", "6,400,000"),
])
def test_a_run_against_the_makers_published_hours(text: str, lang: str, published: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert published in first and ("below it" in first or "低" in first), first


@pytest.mark.parametrize("text", ["H100 每 GPU 小时单价是多少", "每 GPU 小时多少钱", "H100 的 GPU 小时价格"])
def test_a_price_per_gpu_hour_is_no_duration(text: str) -> None:
    assert classify(text, Slots()) != "how_long"


def test_a_price_per_gpu_hour_is_the_rent() -> None:
    first = answer("H100 每 GPU 小时多少钱？", "zh").split("\n")[0]
    assert "租用每 GPU 小时" in first, first


def test_pytorch_dtype_names_compare_training_precisions() -> None:
    assert read_variants("How much faster is FSDP2 with float8 than BF16?") == (("weights", "fp8"), ("weights", "bf16"))
    assert read_variants("torch.bfloat16 vs float8 for Llama 8B") == (("weights", "bf16"), ("weights", "fp8"))
    first = answer("How much faster is FSDP2 with float8 than BF16 for Llama-3.1-8B on 8 H100?").split("\n")[0]
    assert "as fast as in BF16" in first and "FSDP" in first, first
    ratio = float(re.search(r"([\d.]+)× as fast as in BF16", first).group(1))
    assert 1.0 < ratio < 2.0


def test_a_framework_named_alone_is_a_training_run() -> None:
    first = answer("Megatron on 64 A100 for a 13B: how many days for 300B tokens?").split("\n")[0]
    assert re.search(r"About [\d.]+ days on 64× NVIDIA A100", first), first


@pytest.mark.parametrize(("text", "lang"), [
    ("What pipeline bubble would a 405B have on 2048 H100 with PP 16?", "en"),
    ("405B 在 2048 张 H100 上 PP 16，流水线气泡占多少？", "zh"),
])
def test_the_pipeline_bubble_is_given_with_the_plan(text: str, lang: str) -> None:
    first = answer(text, lang).split("\n")[0]
    m = re.search(r"(?:idles|每步的) ([\d.]+) %", first)
    assert m, first
    pp, v, micro = (int(x) for x in re.search(r"PP (\d+)[,、].*?v = (\d+).*?m = (\d+)", first).groups())
    assert pp == 16
    # 1F1B interleaved: (PP − 1)/(v·m) of the compute, as a share of the step
    assert float(m.group(1)) == pytest.approx(100 * (pp - 1) / (v * micro) / (1 + (pp - 1) / (v * micro)), abs=0.15)


@pytest.mark.parametrize(("text", "lang"), [
    ("Should I use DualPipe for training DeepSeek-V3 on 256 H800?", "en"),
    ("用 DualPipe 训练 DeepSeek-V3，2048 张 H800，流水线怎么排？", "zh"),
])
def test_a_pipeline_schedule_named_is_answered_with_the_plan(text: str, lang: str) -> None:
    """DualPipe named: a pre-training plan (not the LoRA default), the schedule the planner chose and its bubble
    first. DualPipe's bubble, (PP/2 − 1)(F&B + B − 3W) against 1F1B's (PP − 1)(F + B), is about a third of 1F1B's;
    where the planner keeps 1F1B (DualPipe holds two copies of each stage's parameters) the answer says so."""
    first = answer(text, lang).split("\n")[0]
    assert "LoRA" not in first, first
    sched = re.search(r"(?:of its |用 `)(DualPipe|interleaved 1F1B|1F1B)", first)
    assert sched, first
    pct = float(re.search(r"(?:idles|每步的) ([\d.]+) %", first).group(1))
    pp, v, micro = (int(x) for x in re.search(r"PP (\d+)[,、].*?v = (\d+).*?m = (\d+)", first).groups())
    one_f_one_b = 100 * (pp - 1) / (v * micro)
    if sched.group(1) == "DualPipe":
        assert 0 < pct < 0.5 * one_f_one_b
    else:
        assert pct == pytest.approx(one_f_one_b / (1 + one_f_one_b / 100), abs=0.15)


@pytest.mark.parametrize(("text", "counts"), [
    ("8 张 h100 训练 8b 模型和 16 张比，时间能减半吗？", [8, 16]),
    ("8 h100s or 16 gpus for a 7b pretrain?", [8, 16]),
    ("8 张 h100 跑 70b，和 16 gb 显存比", [8]),  # 16 GB is memory, not cards
    ("we have 8 h100 and 16 users", []),  # users, and the cards are owned
])
def test_a_count_after_the_card_is_a_second_configuration_only_with_a_card_unit(text: str, counts: list[int]) -> None:
    from advisor.conversation.reader.extract import extract
    from knowledge.catalog import load_catalog

    s = extract(text, load_catalog(), lang="zh" if re.search(r"[\u4e00-\u9fff]", text) else "en")
    assert [c.count for c in s.candidates] == counts
