"""Training and fine-tuning questions read and answered first: the count glued to a card ("2x3090"), a dataset's
size (samples × tokens each × epochs, by hand below), epochs said alone on a follow-up, a global batch that is not
the per-GPU micro-batch, online RL said as not modelled, gradient checkpointing on/off, "minimum VRAM", "what
sequence length can I fit", the largest model to train on a card, and a card given only by its memory. Properties
(act, task, tokens read, count and card, the first sentence's verdict), not whole answers."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load_catalog()


def first(conv: Conversation, text: str) -> str:
    return conv.respond(text).answer.strip().split("\n\n")[0]


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("QLoRA 70B on 2x3090", "rtx-3090", 2),
    ("full fine-tune 7B on 8xH100", "h100-sxm", 8),
    ("8x4090 full finetune 7B", "rtx-4090", 8),
    ("LoRA Qwen2.5-7B on 4X A100 80GB", "a100-80g-sxm", 4),
])
def test_count_glued_to_the_card(catalog, text: str, gpu: str, count: int) -> None:  # type: ignore[no-untyped-def]
    s = extract(text, catalog)
    assert [(c.gpu, c.count) for c in s.candidates] == [(gpu, count)]


def test_a_speed_ratio_is_not_a_count(catalog) -> None:  # type: ignore[no-untyped-def]
    assert extract("is the H100 2x faster than the A100 for LoRA?", catalog).gpu_count is None


# hand arithmetic: samples × tokens per sample × epochs; the per-sample length is the sequence length (k = 1024)
@pytest.mark.parametrize(("text", "tokens", "context"), [
    ("fine-tune Llama 3.1 8B with LoRA on 100k examples of 512 tokens, 2 epochs", 100_000 * 512 * 2, 512),
    ("微调 Qwen2.5-7B，5 万条，每条 1k token，3 轮", 50_000 * 1_000 * 3, 1024),
    ("80,000 dialogues averaging 800 tokens, 4 epochs, LoRA Qwen2.5-14B", 80_000 * 800 * 4, 800),
    ("3 万条问答数据，每条平均 800 tokens，上下文 4k，训练 2 轮", 30_000 * 800 * 2, 4096),  # the context word wins
])
def test_dataset_size_and_sequence(catalog, text: str, tokens: int, context: int) -> None:  # type: ignore[no-untyped-def]
    s = extract(text, catalog)
    assert s.train_tokens == tokens
    assert s.context == context


@pytest.mark.parametrize(("text", "tokens"), [
    ("fine-tune Qwen2.5-7B on a 100M-token dataset for 3 epochs", 100e6 * 3),
    ("我的数据集有 2 亿 token，训练 3 轮，Qwen2.5-7B LoRA", 2e8 * 3),
    ("LoRA Qwen2.5-7B, 3 epochs, 600M tokens in total", 600e6),  # said to be the total: not multiplied
])
def test_epochs_beside_a_token_amount(catalog, text: str, tokens: float) -> None:  # type: ignore[no-untyped-def]
    assert extract(text, catalog).train_tokens == pytest.approx(tokens)


def test_conversation_turns_are_not_epochs(catalog) -> None:  # type: ignore[no-untyped-def]
    assert extract("客服机器人，3 轮对话，Qwen2.5-7B", catalog).epochs is None


def test_global_batch_is_not_the_micro_batch(catalog) -> None:  # type: ignore[no-untyped-def]
    assert extract("LoRA on Qwen2.5-7B with global batch 64 and micro batch 4 on 8 A100s", catalog).batch == 4
    assert extract("全局 batch 128，Qwen2.5-7B LoRA", catalog).batch is None


@pytest.mark.parametrize(("lang", "turns", "tokens", "said"), [
    # 50,000 × 2,000 × 5 = 500,000,000
    ("en", ["how long to fine-tune Qwen2.5-7B on 50k samples of 2k tokens for 3 epochs on one H100",
            "and 5 epochs?"], 500e6, "500 M tokens"),
    # 50,000 × 1,000 × 5 = 250,000,000 = 2.5 亿
    ("zh", ["微调数据 5 万条，每条 1k token，训练 3 轮，Qwen2.5-7B，一张 H100 要多久", "训练 5 轮呢"], 250e6, "2.5 亿"),
])
def test_epochs_alone_on_a_follow_up(lang: str, turns: list[str], tokens: float, said: str) -> None:
    conv = Conversation(lang=lang, driver="deterministic")
    for text in turns[:-1]:
        conv.respond(text)
    lead = first(conv, turns[-1])
    assert conv.state.slots.train_tokens == pytest.approx(tokens)
    assert said in lead


def test_two_of_them_is_a_count_of_the_previous_card() -> None:
    conv = Conversation(lang="en", driver="deterministic")
    conv.respond("can I LoRA fine-tune Qwen3-8B on a 4090?")
    lead = first(conv, "and on two of them?")
    assert "2× GeForce RTX 4090" in lead


@pytest.mark.parametrize(("lang", "text", "opening"), [
    ("en", "GRPO fine-tuning of Qwen2.5-7B on 8 H100s, how long?", "**GRPO (online reinforcement learning) is not modelled"),
    ("en", "PPO on Llama 3.1 8B with 4 A100s, does it fit?", "**PPO (online reinforcement learning) is not modelled"),
    ("zh", "GRPO 强化学习训练 Qwen2.5-7B 需要几张 H100", "**GRPO（在线强化学习）不在估算范围内"),
    ("zh", "用强化学习微调 Qwen3-8B，一张 4090 够吗", "**强化学习（在线 RL）微调不在估算范围内"),
])
def test_online_rl_is_said_unsupported_first(lang: str, text: str, opening: str) -> None:
    conv = Conversation(lang=lang, driver="deterministic")
    turn = conv.respond(text)
    assert turn.answer.startswith(opening)
    assert "cannot be sized" not in turn.answer  # sized as the policy's step, never refused on the method
    assert conv.workload is not None and conv.workload.method == "sft"


@pytest.mark.parametrize(("lang", "text", "on", "off"), [
    ("en", "should I turn gradient checkpointing on for full fine-tuning Llama 3 8B on 8 A100s?",
     "with gradient checkpointing on", "with gradient checkpointing off"),
    ("zh", "微调 Qwen3-8B 要开梯度检查点吗", "开梯度检查点需要", "不开梯度检查点需要"),
])
def test_gradient_checkpointing_question(lang: str, text: str, on: str, off: str) -> None:
    lead = first(Conversation(lang=lang, driver="deterministic"), text)
    assert on in lead and off in lead
    need_on, need_off = (float(x) for x in re.findall(r"([\d.]+) GiB", lead)[:2])
    assert need_off > need_on  # without recomputation every layer keeps its activations


@pytest.mark.parametrize(("text", "pattern"), [
    ("what's the minimum VRAM to LoRA fine-tune Mistral 7B?", r"needs about [\d.]+ GiB of GPU memory"),
    ("VRAM requirements for full fine-tuning Qwen2.5-3B?", r"needs about [\d.]+ GiB of GPU memory"),
    ("what sequence length can I fit for QLoRA on Llama 3.1 70B on an H100?", r"^\*\*The longest context that fits on 1× NVIDIA H100"),
])
def test_memory_and_sequence_acts(text: str, pattern: str) -> None:
    assert re.search(pattern, first(Conversation(lang="en", driver="deterministic"), text))


def test_card_given_by_its_memory_is_not_replaced() -> None:
    answer = Conversation(lang="en", driver="deterministic").respond(
        "max batch size for LoRA on Llama 3.1 8B on a 24GB card").answer
    assert "No card was named" not in answer
    assert answer.startswith("**No**")  # 8B at BF16 LoRA: weights alone ~15 GiB, plus activations, over 24 GB


@pytest.mark.parametrize(("lang", "text", "opening"), [
    ("en", "what's the biggest model I can LoRA fine-tune on a 4090?",
     "**The largest models that fit LoRA fine-tuning on 1× GeForce RTX 4090**"),
    ("zh", "24G 显存最大能 QLoRA 微调多大的模型", "上能做 QLoRA 微调的最大模型"),
])
def test_largest_model_to_train_is_sized_for_training(lang: str, text: str, opening: str) -> None:
    lead = first(Conversation(lang=lang, driver="deterministic"), text)
    assert opening in lead
    assert "1 user" not in lead and "路" not in lead  # not the serving answer
    # every model listed holds its training step: 10 % of a 24 GiB card free, so at most 21.6 GiB per GPU
    after_usable = re.findall(r"([\d.]+) GiB", lead.split("**", 2)[2])[1:]
    assert len(after_usable) == 3 and all(float(g) <= 24 * 0.9 for g in after_usable)


@pytest.mark.parametrize(("text", "pattern"), [
    # 25,000 × 2,000 × 4 = 200,000,000 tokens
    ("Time estimate for LoRA on Llama 3.1 8B: 25k conversations averaging 2k tokens, 4 epochs, one RTX 4090",
     r"^About [\d.]+ \w+ on 1× GeForce RTX 4090 for 200 M tokens"),
    # 40,000 × 1,500 × 3 = 180,000,000 tokens
    ("Estimate training time: Qwen2.5-7B, LoRA, 40k samples x 1.5k tokens, 3 epochs, single A100 80GB",
     r"^About [\d.]+ \w+ on 1× NVIDIA A100 80GB \w+ for 180 M tokens"),
    ("continued pretraining of Qwen2.5-14B on 50 billion tokens with 32 A100s — days?",
     r"^About [\d.]+ days on 32× NVIDIA A100 80GB \w+ for 50 B tokens"),
    ("VRAM needed for full fine-tuning Llama 3.2 1B?", r"^Llama-3.2-1B at BF16 needs about [\d.]+ GiB of GPU memory"),
    ("RLHF with PPO for Llama 3.1 8B on 8 A100s: how long?", r"^\*\*PPO \(online reinforcement learning\)"),
])
def test_more_paraphrases_lead_with_the_act(text: str, pattern: str) -> None:
    assert re.search(pattern, first(Conversation(lang="en", driver="deterministic"), text))


def test_this_time_is_not_a_time_question() -> None:
    lead = first(Conversation(lang="en", driver="deterministic"), "Can I LoRA fine-tune Qwen2.5-7B on a 4090 this time?")
    assert lead.startswith("**")  # a verdict on the card, not "About … days"


@pytest.mark.parametrize(("lang", "text", "said"), [
    # 10,000 samples × 4,096 tokens (the default sequence) × 1 epoch = 40,960,000 = 4096 万
    ("zh", "一万条数据微调 Qwen2.5-7B 要多久", "至多 4096 万 tokens"),
    # 20,000 × 4,096 × 3 = 245,760,000
    ("en", "fine-tune Llama 3.1 8B on 20k samples for 3 epochs with LoRA on one H100, how long?", "at most 245.76 M tokens"),
])
def test_samples_without_a_length_are_an_upper_bound(lang: str, text: str, said: str) -> None:
    answer = Conversation(lang=lang, driver="deterministic").respond(text).answer
    assert said in answer.split("\n\n")[0]
    assert ("no length given" in answer) or ("没有给出长度" in answer)


def test_a_count_per_day_is_a_rate_not_a_dataset(catalog) -> None:  # type: ignore[no-untyped-def]
    s = extract("客服机器人每天 5 万条对话，Qwen2.5-7B", catalog)
    assert s.samples is None and s.qps is not None


@pytest.mark.parametrize(("lang", "turns", "tokens"), [
    # 10,000 samples × 800 tokens × 3 epochs = 24,000,000
    ("zh", ["一万条数据微调 Qwen2.5-7B，一张 H100 要多久", "训练 3 轮呢", "每条大约 800 token"], 10_000 * 800 * 3),
    # 20,000 × 800 × 1 = 16,000,000
    ("en", ["fine-tune Llama 3.1 8B on 20k samples with LoRA on one H100, how long?", "each sample is about 800 tokens"],
     20_000 * 800),
])
def test_sample_length_said_after_the_count(lang: str, turns: list[str], tokens: int) -> None:
    conv = Conversation(lang=lang, driver="deterministic")
    for text in turns:
        conv.respond(text)
    assert conv.state.slots.train_tokens == pytest.approx(tokens)
    assert conv.state.slots.context == 800
