"""A fine-tuning dataset given by its size ("50k samples of 1k tokens, 3 epochs", "10万条数据，每条 1k tokens，训练
3 轮") sets the training token budget to samples × tokens each × epochs; a serving question with per-user lengths
does not. Expected budgets are the hand products of the figures in each sentence."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog

CASES = [  # (sentence, samples × tokens × epochs)
    ("How long to LoRA fine-tune Qwen2.5-7B on 50k samples of 1k tokens on one 4090?", 50e3 * 1e3),
    ("LoRA Qwen2.5-7B, 120,000 examples averaging 800 tokens, 3 epochs, one A100", 120e3 * 800 * 3),
    ("fine-tune llama 3 8B on 20k conversations at ~2k tokens each for 2 epochs", 20e3 * 2e3 * 2),
    ("Fine-tune Mistral-7B with LoRA: our dataset is 200k instruction pairs, roughly 600 tokens each, 2 epochs",
     200e3 * 600 * 2),
    ("We have 80,000 customer-support dialogues averaging 1.2k tokens; how long for QLoRA on Llama-3.1-8B on an L4?",
     80e3 * 1.2e3),
    ("full fine-tune qwen2.5-1.5b on 1 million samples x 512 tokens", 1e6 * 512),
    ("30k 512-token examples, QLoRA on a 3090", 30e3 * 512),
    ("LoRA on 5,000 examples of 256 tokens, 10 epochs", 5e3 * 256 * 10),
    ("用 10万条数据，每条约 1k tokens，训练 3 轮，LoRA 微调 Qwen2.5-14B 要多久？", 1e5 * 1e3 * 3),
    ("5万条 2k token 的对话数据，全参微调 7B 要几张卡", 5e4 * 2e3),
    ("我们有 2 万条样本（平均 1500 tokens），跑 2 个 epoch", 2e4 * 1500 * 2),
    ("我有 3 万条问答数据，每条平均 800 tokens，LoRA 微调 Qwen2.5-7B 训练 2 个 epoch 要多久", 3e4 * 800 * 2),
    ("50万条样本，每条约 1k token，一张 A100 全参微调 1.5B 需要几天", 5e5 * 1e3),
    ("12万条对话，平均长度 2k tokens，跑 3 遍", 1.2e5 * 2e3 * 3),
]
NOT_A_DATASET = [
    "serve a conversation of 8k tokens with Llama 3 8B",
    "serve Llama-3-8B for 20 users with 4k tokens each",
    "20 个用户，每个 4k tokens 的上下文，部署 Qwen2.5-7B",
    "50k samples, context 8k tokens, LoRA on Llama-3.1-8B",  # the length is the context, not each sample's
]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _lang(text: str) -> str:
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


@pytest.mark.parametrize(("text", "tokens"), CASES)
def test_dataset_size_sets_the_token_budget(catalog, text: str, tokens: float) -> None:
    assert extract(text, catalog, lang=_lang(text)).train_tokens == pytest.approx(tokens)


@pytest.mark.parametrize("text", NOT_A_DATASET)
def test_lengths_that_are_not_a_dataset(catalog, text: str) -> None:
    assert extract(text, catalog, lang=_lang(text)).train_tokens is None


def test_the_answer_trains_on_the_stated_dataset() -> None:
    from advisor.conversation.session import Conversation

    first = Conversation(driver="deterministic").respond(
        "How long to LoRA fine-tune Qwen2.5-7B on 50k samples of 1k tokens on one 4090?").answer.splitlines()[0]
    assert "50 M tokens" in first and "default" not in first


def test_lora_too_big_for_the_one_card_asked_offers_qlora_on_it() -> None:
    """"How long on one 4090?" when LoRA of a 14B (BF16 base, ≈ 28 GiB of weights alone) cannot fit on 24 GB: the
    first sentence says so, and the way on that card (QLoRA, a 4-bit base) — not a purchase line for the card."""
    from advisor.conversation.session import Conversation

    first = Conversation(driver="deterministic").respond(
        "How long to LoRA fine-tune Qwen2.5-14B on one 4090 with 300M tokens?").answer.splitlines()[0]
    assert "short by" in first and "qlora" in first.lower() and "to buy" not in first


@pytest.mark.parametrize("text", ["I have one 4090, how long to LoRA fine-tune Qwen2.5-14B?",
                                  "我有一张 4090，LoRA 微调 Qwen2.5-14B 要多久？"])
def test_own_card_too_small_for_lora_gets_qlora_on_that_card(text: str) -> None:
    """An owned card is judged as owned: a market rule about buying it (the RTX 4090 in mainland China, the default
    region of a Chinese question) does not hide the way to use it."""
    from advisor.conversation.session import Conversation

    first = Conversation(driver="deterministic").respond(text).answer.splitlines()[0]
    assert "qlora" in first.lower() and "4090" in first.split("qlora")[-1].split("QLoRA")[-1]
