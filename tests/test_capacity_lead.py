"""A bare capacity ("a 24GB GPU", "24G 显存") for a training job: the lead names the training method and what the
memory holds (optimizer states, activations), not a KV cache; the card it points to instead carries its layout
(an optimizer offload is part of why it fits)."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("text", "lang", "method"), [
    ("Can I fine-tune Llama 3 8B on a 24GB GPU?", "en", "LoRA fine-tuning"),
    ("is 48GB enough to QLoRA Llama 3.1 70B?", "en", "QLoRA fine-tuning"),
    ("能用 24G 显存的卡微调 Qwen2.5-7B 吗", "zh", "LoRA 微调"),
    ("24G 显存能全参微调 Qwen2.5-1.5B 吗", "zh", "全参微调"),
])
def test_a_training_capacity_lead_speaks_of_training(text: str, lang: str, method: str) -> None:
    first = Conversation(lang=lang).respond(text).answer.split("\n")[0]
    assert method in first and "KV" not in first, first


def test_the_card_that_fits_instead_says_how() -> None:
    first = Conversation(lang="zh").respond("24G 显存能全参微调 Qwen2.5-1.5B 吗").answer.split("\n")[0]
    tail = first.split("。")[-2]  # "1× … 放得下（ZeRO-2, 卸载 optimizer, deepspeed）"
    assert "放得下（" in tail and "DeepSpeed" in tail, first
