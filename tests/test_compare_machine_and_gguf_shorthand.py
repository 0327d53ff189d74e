""""Mac Studio M3 Ultra 512GB vs 4× 3090 for DeepSeek-R1 Q4": the machine named without a count is one machine and
is compared (not dropped for the other side), and "Q4" / "Q8" are the GGUF files people mean; "in Q4 2026" is a
quarter, not a format."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(("text", "weights"), [
    ("DeepSeek-R1 Q4 on a Mac Studio", "q4_k_m"),
    ("Q8 版本的 Qwen2.5-32B 用 4090 能跑吗", "q8_0"),
    ("llama 3 70b q5 on two 3090s", "q5_k_m"),
    ("We buy in Q4 2026: 8 H100 for Llama 3 70B", None),
    ("budget for next Q2, serve Qwen2.5-72B", None),
])
def test_gguf_shorthand(text: str, weights: str | None) -> None:
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
    assert extract(text, load_catalog(), lang=lang).weights == weights


@pytest.mark.parametrize("text", ["Mac Studio M3 Ultra 512GB vs 4x 3090 for DeepSeek-R1 Q4?",
                                  "M3 Ultra 512GB 和 4 张 3090 跑 DeepSeek-R1 Q4 哪个好？"])
def test_a_machine_without_a_count_is_compared_as_one(text: str) -> None:
    turn = Conversation(driver="deterministic").respond(text)
    first = turn.answer.splitlines()[0]
    # Dec 5: when neither holds the job, that is said first ("**Neither holds the job as asked**: …"), then the items
    first = first.split("**: ", 1)[-1].split("**：", 1)[-1]
    assert first.startswith("1× Apple Mac Studio M3 Ultra 512GB") and "4× GeForce RTX 3090" in first
    assert "Q4_K_M" in first
