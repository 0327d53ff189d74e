"""Training questions at cluster scale, as people write them: "how long on 16k H100s?" (the issue's example).

- a GPU count in the thousands is read as a count ("16,384 H100s", "16k H100 GPUs", "on 16K H100"), never as a
  context length; a bare "32k H100" next to a serving question stays a context;
- "train X on 16k GPUs" without a task is pre-training (fine-tuning runs on hundreds of GPUs, not thousands);
- with no count, a run the default 30-day deadline cannot be met for still gets the fastest configuration tried
  and its time, not "nothing fits";
- short runs are given in minutes or hours, large token budgets in T / 万亿.

Reference for the numbers (not fitted on): the Llama 3.1 model card gives 30.84M H100 GPU-hours for
Llama-3.1-405B (15.6T tokens on up to 16,384 H100s); the answers must be within 25 % of it."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog

CAT = load_catalog()
PUBLISHED_405B_GPU_HOURS = 30.84e6


def _slots(text: str):
    return extract(text, CAT)


@pytest.mark.parametrize(("text", "count"), [
    ("how long to train llama 3.1 405b on 16,384 H100s for 15.6T tokens", 16384),
    # a "k" of GPUs is 1,024 where clusters are built in powers of two or eights (Meta's "16K H100" is 16,384, its
    # "24K" clusters 24,576), else 1,000 ("100k H100s")
    ("how long to pretrain llama 3.1 405b on 16k H100 GPUs with 15.6T tokens", 16384),
    ("how long to train llama 3.1 405b on 16K H100", 16384),
    ("We have 24k H100s, how long for a 70B on 15T tokens?", 24576),
    ("pretrain a 70B on 15T tokens on 100k H100s, how long?", 100000),
    ("Llama 3.1 405B 在 16384 张 H100 上预训练 15.6T tokens 要多久", 16384),
    ("用 8192 张 H800 训练 DeepSeek-V3 要多久", 8192),
    ("estimate training time for a 70B model across 100,000 H100 GPUs on 15T tokens", 100000),
])
def test_a_cluster_sized_count_is_a_count(text: str, count: int) -> None:
    s = _slots(text)
    counts = [m.count for m in s.candidates] + ([s.existing.count] if s.existing else [])
    assert count in counts, (counts, s.gpu_count)
    assert s.context in (None, 4096)  # "16k" was not taken as a context length


def test_a_bare_k_beside_a_card_in_a_serving_question_stays_a_context() -> None:
    s = _slots("serve Llama 3 70B at 32k H100")
    assert s.context == 32768
    assert all(m.count in (None, 1) for m in s.candidates)


@pytest.mark.parametrize("text", [
    "how long to train llama 3.1 405b on 16,384 H100s for 15.6T tokens",
    "Llama 3.1 405B 在 16384 张 H100 上预训练 15.6T tokens 要多久",
    "How many days would Llama-3.1-405B take on 16k H100 GPUs with 15.6 trillion tokens?",
])
def test_405b_on_16k_h100_is_answered_near_the_published_gpu_hours(text: str) -> None:
    answer = Conversation().respond(text).answer
    first = answer.splitlines()[0]
    m = re.search(r"\(([\d,]+) GPU-hours\)|GPU 时数 ([\d,]+)", first)
    assert m, first
    hours = float((m.group(1) or m.group(2)).replace(",", ""))
    assert abs(hours / PUBLISHED_405B_GPU_HOURS - 1) <= 0.25, first
    assert re.search(r"1[56]\d{3}×", first), first  # on the cluster asked about


@pytest.mark.parametrize("text", ["how long to train llama 3.1 405b on 16k H100",
                                  "训练 Llama 3 70B，2048 张 H800 要多久"])
def test_training_on_thousands_of_gpus_without_a_task_is_pretraining(text: str) -> None:
    answer = Conversation().respond(text).answer
    assert re.search(r"pre-training|预训练", answer.split("\n\n")[1] if "\n\n" in answer else answer), answer[:400]
    assert "LoRA" not in answer.splitlines()[0]


@pytest.mark.parametrize("text", ["how long to pretrain llama 3.1 405b on H100s for 15.6T tokens",
                                  "Llama 3.1 405B 用 H100 预训练 15.6T tokens 要多久？"])
def test_an_unreachable_default_deadline_still_gets_the_fastest_configuration(text: str) -> None:
    answer = Conversation().respond(text).answer
    first = answer.splitlines()[0]
    assert "Nothing" not in first and "没有" not in first, first
    m = re.search(r"(\d[\d.]*) (days|天)", first) or re.search(r"约需 (\d[\d.]*) (天)", first)
    assert m and float(m.group(1)) > 30, first  # past the default deadline, and said
    assert re.search(r"default 30 days|默认的 30 天", answer), answer[-1500:]


@pytest.mark.parametrize(("text", "unit"), [
    ("how long to LoRA fine-tune llama 3.1 8b on one H100 with 10M tokens", r"\d+ min "),
    ("how long to LoRA fine-tune Qwen2.5-7B on one H100 with 200M tokens", r"\d+\.\d hours "),
    ("用一张 H100 对 Llama-3.1-8B 做 LoRA 微调，1000 万 token 要多久", r"\d+ 分钟"),
])
def test_short_runs_are_given_in_minutes_or_hours(text: str, unit: str) -> None:
    first = Conversation().respond(text).answer.splitlines()[0]
    assert re.search(unit, first) and "0.0 days" not in first and "0.0 天" not in first, first


@pytest.mark.parametrize(("text", "task"), [
    ("How long to fine-tune Qwen3-8B fully on 1B tokens with 8 H20?", "full"),
    ("finetune it fully on our 4 A100s, Llama 3.1 8B", "full"),
    ("we'd fine-tune the model fully, Llama 3.1 70B on 64 H100", "full"),
    ("fine-tune Llama 3 8B with LoRA, fully utilising 2 GPUs", "lora"),
])
def test_fine_tuning_a_model_fully_is_full_fine_tuning(text: str, task: str) -> None:
    assert _slots(text).task == task


@pytest.mark.parametrize("text", ["Is the H20 good for training a 7B model from scratch on 100B tokens?",
                                  "用一张 H20 从头预训练 7B 模型，1000 亿 tokens，行吗？",
                                  "Can one A100 80GB pretrain a 7B LLM on 100B tokens?"])
def test_a_card_that_fits_but_takes_years_says_how_many_finish_in_time(text: str) -> None:
    """Memory fits on one card, but C ≈ 6 · 7.6e9 · 1e11 = 4.6e21 FLOPs at ≤ 1e15 FLOP/s takes > 50 days: the
    first sentence says so and names the count of that card that finishes within the default 30 days."""
    first = Conversation().respond(text).answer.splitlines()[0]
    m = re.search(r"(\d+)× [^:：]+? (?:finish in|约) ([\d.]+) ?(?:days|天)", first.split("30")[-1])
    assert re.search(r"default 30-day deadline|默认的 30 天期限", first), first
    assert m and int(m.group(1)) > 1 and float(m.group(2)) <= 30, first
