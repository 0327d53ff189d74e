"""Paraphrases found by fresh questions on Dec 7 (later) that had answered something else: "MFU for training …" opens
with the training rate and its MFU (it had answered "fits"), and one user is said in the singular."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.intent import asks
from tests.answer_text import answer


@pytest.mark.parametrize(("text", "asked"), [
    ("MFU for training a 7B on 64 H100 with FSDP?", True),
    ("The MFU when pretraining Llama-3.1-8B on 128 H100?", True),
    ("what MFU should I expect?", True),
    ("train at 40% MFU on 64 H100", False),  # a stated MFU is an input, not a question
    ("mfu-aware scheduling for my cluster", False),
])
def test_mfu_asked(text: str, asked: bool) -> None:
    assert asks("mfu", text) is asked


@pytest.mark.parametrize("text", ["MFU for training a 7B on 64 H100 with FSDP?",
                                  "The MFU when pretraining Llama-3.1-8B on 128 H100?"])
def test_an_mfu_question_opens_with_the_rate_and_the_mfu(text: str) -> None:
    first = answer(text).split("\n")[0]  # the MFU asked first, then the rate it comes from (test_mfu_and_latency_asked)
    m = re.search(r"About (\d+) % MFU\*\* on .*?: ([\d,]+) tokens/s per GPU, ([\d,]+) tokens/s on all (\d+)", first)
    assert m, first
    mfu, per, total, gpus = (int(x.replace(",", "")) for x in m.groups())
    assert abs(per * gpus - total) <= gpus  # the total is the per-GPU rate on every GPU (each rounded)
    assert 15 <= mfu <= 65  # a dense BF16 run on H100, as published runs go (30–55 %)


def test_one_user_is_singular() -> None:
    first = answer("Is speculative decoding worth it for Llama-3.3-70B on 2 H100 at batch 1?").split("\n")[0]
    assert "at 1 concurrent user:" in first and "1 concurrent users" not in first, first


@pytest.mark.parametrize(("text", "tpot_ms"), [
    ("Llama-3.1-70B on 8 H100, how many concurrent users within 25 tokens/s?", 40.0),
    ("how many users can we keep at 20 tok/s on 8 H100?", 50.0),
    ("we get 500 tokens/s within the cluster today", None),  # measured, no target
])
def test_a_speed_users_are_kept_within_is_a_target(text: str, tpot_ms: float | None) -> None:
    from advisor.conversation.reader.extract import extract
    from knowledge.catalog import load_catalog

    s = extract(text.lower(), load_catalog(), lang="en")
    assert s.tpot_ms == (pytest.approx(tpot_ms) if tpot_ms else None)


@pytest.mark.parametrize(("text", "lang"), [
    ("How long does it take to generate 1000 tokens with Llama-3.1-70B on 2x A100?", "en"),
    ("两张 A100 跑 Llama-3.1-70B，生成 1000 个 token 要多久？", "zh"),
])
def test_the_time_to_generate_n_tokens_is_one_answers_time(text: str, lang: str) -> None:
    """Hand check on the answer's own figures: total ≈ first token + 999 × time per token."""
    first = answer(text, lang).split("\n")[0]
    m = (re.search(r"1000 tokens takes about ([\d.]+) s\*\*.*?first token after (\d+) ms, then (\d+) ms per token", first)
         if lang == "en" else re.search(r"1000 tokens 的回答约需 ([\d.]+) s\*\*.*?首 token (\d+) ms，之后每 token (\d+) ms", first))
    assert m, first
    total, ttft, tpot = float(m.group(1)), int(m.group(2)), int(m.group(3))
    assert total == pytest.approx((ttft + 999 * tpot) / 1000, rel=0.03)


@pytest.mark.parametrize(("text", "lang", "fmt"), [
    ("What context length can I fit for Qwen2.5-7B on a 3060 12GB?", "en", "With INT8 weights"),
    ("Qwen2.5-14B 在一张 4060 Ti 16G 上最长能支持多少上下文？", "zh", "改用 AWQ INT4 权重后"),
])
def test_a_context_question_whose_weights_do_not_fit_gives_the_context_after_the_change(text: str, lang: str,
                                                                                       fmt: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert fmt in first, first
    after = first.split(fmt)[1]
    tokens = int(re.search(r"(\d+) tokens", after).group(1))  # the first figure after the change: the context
    assert 1024 <= tokens < 131_072, first


@pytest.mark.parametrize(("text", "lang"), [
    ("What's the difference in cost per million tokens between H100 and H200 for Llama-3.1-70B at 64 users?", "en"),
    ("Which is cheaper per million tokens for Qwen2.5-32B at 20 users, one H200 or two L40S?", "en"),
    ("H100 和 H200 跑 Llama-3.1-70B，64 并发，每百万 token 成本哪个低？", "zh"),
])
def test_two_cards_compared_by_their_cost_per_token(text: str, lang: str) -> None:
    """"The difference … between A and B" compares them (it had answered the purchase of one): the lower owned cost
    per million tokens leads."""
    first = answer(text, lang).split("\n")[0]
    m = re.search(r"costs less per token\*\*: \$([\d.]+) per million output tokens against \$([\d.]+)|"
                  r"每 token 成本更低\*\*：每百万输出 token ¥([\d.]+)，.+? 为 ¥([\d.]+)", first)
    assert m, first
    x, y = (float(v) for v in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
    assert x <= y


@pytest.mark.parametrize(("text", "start", "to"), [
    ("8 张 H20 跑 DeepSeek-R1，并发从 16 提到 64，速度掉多少？", 16, 64),
    ("并发从 100 调到 50，首 token 变化多少？", 100, 50),
    ("用户从 20 升到 80 会怎样", 20, 80),
])
def test_a_load_change_said_with_short_verbs(text: str, start: int, to: int) -> None:
    from advisor.conversation.reader.extract import extract
    from knowledge.catalog import load_catalog

    s = extract(text.lower(), load_catalog(), lang="zh")
    assert (s.load_from, s.concurrency) == (start, to)


@pytest.mark.parametrize(("text", "asked"), [
    ("How many chat sessions can a single H200 handle for Llama-3.3-70B FP8 while keeping 25 tok/s?", True),
    ("how many conversations can 2 L40S hold at once for Qwen2.5-14B?", True),
    ("how many concurrent chats before it slows down?", True),
    ("how many customers does our company have", False),
    ("how many conversations of training data do I need?", False),
])
def test_sessions_and_conversations_ask_for_the_users(text: str, asked: bool) -> None:
    assert asks("users", text) is asked


def test_a_sessions_question_opens_with_the_most_users() -> None:
    first = answer("How many chat sessions can a single H200 handle for Llama-3.3-70B FP8 while keeping 25 tok/s?"
                   ).split("\n")[0]
    assert re.search(r"serves at most \d+ concurrent users within 40 ms per token", first), first


@pytest.mark.parametrize(("text", "lang", "said"), [
    ("We need p95 TTFT under 500 ms for 40 concurrent users on Qwen2.5-32B. How many L40S?", "en",
     "for your target of a p95 first token within 500 ms"),
    ("首 token 1 秒以内，50 并发跑 Qwen2.5-72B，要几张 H100？", "zh", "满足您的目标（首 token 1.0 s 以内）"),
])
def test_a_count_for_a_first_token_target_names_that_target(text: str, lang: str, said: str) -> None:
    first = answer(text, lang).split("\n")[0]
    assert said in first, first
