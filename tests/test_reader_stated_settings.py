"""Settings the user states are used, not replaced by the product's own (issue 26): a training MFU ("assume 35%
MFU", "按 MFU 40% 算") drives the training time and is said in the assumed line; a ZeRO stage ("with ZeRO-3") is the
layout's. The time is checked against hand arithmetic: model FLOPs 6 · N · T (Kaplan et al. 2020, §2.1) over
the card's dense BF16 peak × the stated MFU; N = 8.03 B (Llama-3.1-8B model card), H100 SXM peak 989.4 TFLOPS
(NVIDIA H100 datasheet, dense BF16)."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation

N_LLAMA_8B = 8.03e9
H100_BF16 = 989.4e12


@pytest.mark.parametrize(("lang", "text", "mfu"), [
    ("en", "How long to full fine-tune Llama-3.1-8B on 1B tokens on 8 H100s, assume 35% MFU?", 0.35),
    ("zh", "全参微调 llama-3.1-8b，10 亿 tokens，8 张 H100，按 MFU 40% 算要多久", 0.40),
])
def test_a_stated_mfu_drives_the_training_time(lang: str, text: str, mfu: float) -> None:
    conv = Conversation(lang=lang)
    turn = conv.respond(text)
    lead = turn.options[0]
    t = lead["throughput"]
    assert lead["gpu"] == "h100-sxm" and lead["count"] == 8
    assert t["mfu"] == pytest.approx(mfu) and t["mfu_basis"] == "given"
    hours = 6 * N_LLAMA_8B * 1e9 / (H100_BF16 * mfu) / 3600
    assert t["step_gpu_hours"] == pytest.approx(hours, rel=0.01)
    assumed = next(line for line in turn.answer.splitlines() if line.startswith("_"))
    assert f"MFU {round(mfu * 100)}%" in assumed, assumed


def test_without_a_stated_mfu_the_calibrated_one_is_kept() -> None:
    turn = Conversation(lang="en").respond("How long to full fine-tune Llama-3.1-8B on 1B tokens on 8 H100s?")
    t = turn.options[0]["throughput"]
    assert t["mfu_basis"] != "given" and "MFU" not in turn.answer.split("\n\n")[1]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "Full fine-tune Llama-3.1-8B with ZeRO-3 on 8 A100s, how much memory per GPU?"),
    ("zh", "用 ZeRO-3 在 8 张 A100 上全参微调 llama-3.1-8b，每卡显存多少"),
])
def test_a_requested_zero_stage_is_the_layout(lang: str, text: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    lead = turn.options[0]
    assert lead["layout"]["zero"] == 3, lead["layout"]
    assert "ZeRO-3" in turn.answer.split("\n\n")[0] or "ZeRO-3" in turn.answer[:1500]
