"""A claim about memory with no job in the message is answered by its verdict with the arithmetic, not followed by
"no workload found"; a KV-cache claim that names no model is shown on two common shapes (8 KV heads of 128)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize("lang,text", [
    ("zh", "听说 MoE 模型只需要放激活专家的显存，对吗？"),
    ("en", "MoE models only need memory for their active experts, right?"),
])
def test_moe_claim_verdict_stands_alone(lang: str, text: str) -> None:
    answer = Conversation(lang=lang).respond(text).answer
    assert answer.startswith("**不对**" if lang == "zh" else "**No**")
    assert "没有找到可用的任务信息" not in answer and "could not find a workload" not in answer


def test_kv_claim_without_a_model_uses_two_shapes() -> None:
    first = Conversation(lang="en").respond("a 32k KV cache is only a couple of GB, isn't it?").answer.split("\n")[0]
    # per sequence: 2 × layers × 8 KV heads × 128 × 2 bytes × 32768 tokens; 32 layers (8B) and 80 layers (70B)
    per_layer = 2 * 8 * 128 * 2 * 32768
    found = dict(re.findall(r"(Llama-3\.1-\d+B) ([\d.]+) GiB", first))
    assert float(found["Llama-3.1-8B"]) == pytest.approx(32 * per_layer / 2**30, abs=0.05)
    assert float(found["Llama-3.1-70B"]) == pytest.approx(80 * per_layer / 2**30, abs=0.05)
