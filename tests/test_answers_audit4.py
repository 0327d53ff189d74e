"""Answers an audit found wrong (audit 4), each fixed as a mechanism and tested with paraphrases beside the audited
words: a share of the time in use prices renting at that share (F1); a length said in characters or words is read as
tokens, with the ratio stated (F4); "will it OOM?" is answered yes when it does not fit (F8), and a training job that
does not fit keeps its sequence length first (micro-batch × gradient accumulation); "how many users?" with none
meeting the per-token target leads with what the memory holds (F10); a speed asked of a card that holds the model only
in another weight format gives the speed in that format (F6)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.numbers import HOURS_PER_MONTH
from advisor.conversation.reader.targets import TOKENS_PER_WORD
from advisor.conversation.reader.text_length import TOKENS_PER_ZH_CHAR
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()


def lead(text: str, lang: str = "en") -> str:
    return answer(text, lang).split("\n\n")[0]


def assumed(text: str, lang: str = "en") -> str:
    line = next((p for p in answer(text, lang).split("\n\n") if p.startswith("_")), "")
    assert line, text
    return line


def money(pattern: str, text: str) -> float:
    return number(pattern, text.replace("¥", "$"))


# --- F1: a share of the time in use ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, share", [
    ("rent vs buy: 8x h100 for 18 months, we'd use it like 60% of the time", 0.6),
    ("rent or buy 4 a100s? about 60% busy", 0.6),
    ("should we buy or rent 4 a100s, we expect 70% utilization", 0.7),
    ("rent or buy 8 h100? the cluster would be busy roughly two thirds of the time", 2 / 3),
    ("buy or rent 8 h100, idle 30% of the time", 0.7),
    ("buy or rent? 8 h100, in use half the time", 0.5),
    ("8张h100 租还是买，利用率 60%", 0.6),
    ("8卡h100 租还是买，六成时间在用", 0.6),
    ("4张4090 买还是租，一半时间在用", 0.5),
    ("租还是买 4 张 a100，大概七成时间在跑", 0.7),
    ("买还是租 8 张 h100，三成时间闲置", 0.7),
    ("h100 租还是买，百分之七十的时间在跑", 0.7),
])
def test_a_share_of_the_time_is_usage_hours(text: str, share: float) -> None:
    s = extract(text, CAT, lang="zh" if re.search(r"[\u4e00-\u9fff]", text) else "en")
    assert s.usage_share == pytest.approx(share) and s.usage_hours_month == pytest.approx(share * HOURS_PER_MONTH), s


@pytest.mark.parametrize("text", [
    "train llama 3 8b on 8 h100 at 40% mfu",  # a training efficiency, not the time in use
    "训练 qwen2.5-7b，8 张 h100，利用率 40%",  # 利用率 of a training run: its MFU
    "serve llama 3 8b with 90% gpu memory utilization, rented",  # an engine's memory share
    "can 16 gpus finish it in half the time, or should we rent?",  # a faster run
])
def test_other_percentages_are_no_usage(text: str) -> None:
    s = extract(text, CAT, lang="en")
    assert s.usage_share is None and s.usage_hours_month is None, s


def test_utilisation_of_a_training_run_stays_its_mfu() -> None:
    s = extract("训练 qwen2.5-7b，8 张 h100，利用率 40%", CAT, lang="zh")
    assert s.mfu == pytest.approx(0.4), s


def _rent_and_own(first: str) -> tuple[float, float]:
    """(rent a month, power and operations a month) of a rent-or-buy verdict."""
    rent = money(r"\(\$([\d,]+) a month at", first) if "a month at" in first else money(r"每月 \$([\d,]+)", first)
    own = (money(r"\+ \$([\d,]+) a month for power", first) if "a month for power" in first
           else money(r"每月(?:电费运维)? \$([\d,]+)）", first))
    return rent, own


@pytest.mark.parametrize("shared, full, share, lang", [
    ("rent vs buy: 8x H100 for 18 months, we'd use it like 60% of the time",
     "rent vs buy: 8x H100 for 18 months", 0.6, "en"),
    ("Is buying 8 H100s worth it over renting for 2 years if they sit idle 40% of the time?",
     "Is buying 8 H100s worth it over renting for 2 years?", 0.6, "en"),
    ("8张H100用18个月，租还是买？利用率大概60%", "8张H100用18个月，租还是买？", 0.6, "zh"),
    ("4张4090用两年，买还是租划算？一半的时间在用", "4张4090用两年，买还是租划算？", 0.5, "zh"),
])
def test_the_rent_or_buy_verdict_rents_the_share(shared: str, full: str, share: float, lang: str) -> None:
    """Renting costs share × the around-the-clock rent (GPU-hours = cards × share × 730 h); owning's power scales
    with it too (dialog.rent: power × hours / 730 + operations), and the verdict says the usage it priced."""
    part, whole = lead(shared, lang), lead(full, lang)
    (rent_p, own_p), (rent_w, own_w) = _rent_and_own(part), _rent_and_own(whole)
    assert rent_p / rent_w == pytest.approx(share, rel=0.01), (part, whole)
    assert own_p < own_w, (part, whole)
    said = f"{round(share * 100)}% of the time" if lang == "en" else f"{round(share * 100)}% 的时间在用"
    assert said in part, part


def test_a_share_said_after_a_rent_or_buy_answer_asks_it_again() -> None:
    c = Conversation(driver="deterministic", lang="en")
    first = c.respond("rent or buy 8 H100 for 2 years?").answer.split("\n\n")[0]
    again = c.respond("what if we only use it half the time?").answer.split("\n\n")[0]
    assert "50% of the time" in again, again
    assert _rent_and_own(again)[0] / _rent_and_own(first)[0] == pytest.approx(0.5, rel=0.01), (first, again)
    hours = c.respond("and 8 hours a day?").answer.split("\n\n")[0]
    assert "8 hours a day" in hours and "of the time" not in hours, hours


# --- F4: a length said in characters or words ---------------------------------------------------------------------

@pytest.mark.parametrize("text, prompt, output", [
    ("离线批量处理100万条文本，每条1000字，用qwen2.5-7b，4张4090要跑多久", 1000 * TOKENS_PER_ZH_CHAR, None),
    ("每篇文章大约 1500 字，qwen2.5-7b 批量摘要", 1500 * TOKENS_PER_ZH_CHAR, None),
    ("每条 500 字，回复 300 字，qwen2.5-14b 10 并发", 500 * TOKENS_PER_ZH_CHAR, 300 * TOKENS_PER_ZH_CHAR),
    ("生成一段 300 字左右的回复，qwen2.5-7b", None, 300 * TOKENS_PER_ZH_CHAR),
    ("summarize 2000-word documents with llama 3.1 8b", 2000 * TOKENS_PER_WORD, None),
    ("articles of ~800 words, 50 users, llama 3 70b", 800 * TOKENS_PER_WORD, None),
    ("emails of roughly 400 words, qwen2.5-14b", 400 * TOKENS_PER_WORD, None),
    ("300-word summaries of 5000-word reports, 20 concurrent, qwen 14b", 5000 * TOKENS_PER_WORD,
     300 * TOKENS_PER_WORD),
    ("answers of about 300 words, llama 3 8b", None, 300 * TOKENS_PER_WORD),
])
def test_a_length_in_characters_or_words_is_tokens(text: str, prompt: float | None, output: float | None) -> None:
    s = extract(text, CAT, lang="en")
    assert s.prompt_tokens == (round(prompt) if prompt else None), s
    assert s.output_tokens == (round(output) if output else None), s


@pytest.mark.parametrize("text", [
    "用100万字的语料微调 qwen2.5-7b",  # a corpus, not one item
    "llama 3 8b, the speed should be at least 20 words per second",  # a speed
    "输入 800 tokens，每条 300 字",  # a length in tokens wins
])
def test_a_corpus_a_speed_or_a_token_length_is_no_text_length(text: str) -> None:
    s = extract(text, CAT, lang="en")
    assert s.prompt_tokens in (None, 800) and not any(x.slot == "prompt_tokens" and x.tokens != s.prompt_tokens
                                                        for x in s.said_lengths or ()), s


def test_the_audited_batch_job_reads_a_thousand_characters_and_says_the_ratio() -> None:
    q = "离线批量处理100万条文本，每条1000字，用Qwen2.5-7B，4张4090要跑多久"
    first = lead(q, "zh")
    assert number(r"输入 (\d+) tokens", first) == 1000, first
    line = assumed(q, "zh")
    assert "1000字" in line and "1 token" in line and "上限" in line, line


@pytest.mark.parametrize("q, tokens", [
    ("batch-summarize 500k news articles of about 600 words each with Llama 3.1 8B on one L40S, how long?", 800),
    ("summarize 1M 2000-word documents with Llama 3.1 8B on 2x L40S, how long will it take?", 2667),
])
def test_an_english_job_in_words_is_sized_in_tokens(q: str, tokens: int) -> None:
    first = lead(q)
    assert number(r"requests of (\d+) tokens in", first) == tokens, first
    line = assumed(q)
    assert f"read as {tokens} tokens in" in line and "75 words" in line, line


def test_a_longer_prompt_in_words_takes_longer_than_the_default() -> None:
    said = lead("batch-summarize 500k news articles of about 600 words each with Llama 3.1 8B on one L40S, how long?")
    default = lead("batch-summarize 500k news articles with Llama 3.1 8B on one L40S, how long?")
    hours = r"take about ([\d.]+) hours"
    assert number(hours, said) > number(hours, default), (said, default)


# --- F8: "will it OOM?" and the fix that keeps the sequence length ------------------------------------------------

@pytest.mark.parametrize("q, lang, head", [
    ("LoRA on Mistral 7B, single 4090, seq len 4096, batch 8 - OOM?", "en", "**Yes, it will run out of memory**"),
    ("Full fine-tune of Llama 3 8B on one 4090 with 2k sequences, batch 4: am I going to run out of memory?", "en",
     "**Yes"),
    ("用一张4090做Mistral 7B的LoRA，序列长度4096，batch 8，会不会OOM", "zh", "**会爆显存**"),
    ("单卡 4090 全参微调 Llama 3 8B，2k 长度，batch 4，会爆显存吗", "zh", "**会爆显存**"),
])
def test_an_oom_question_is_answered_yes_when_it_does_not_fit(q: str, lang: str, head: str) -> None:
    first = lead(q, lang)
    assert first.startswith(head) and "**No**" not in first and "**不够**" not in first, first


@pytest.mark.parametrize("q, lang, head", [
    ("Will Llama 3 8B inference OOM on a 24GB card at 8k context?", "en", "**No, it fits**"),
    ("Qwen2.5-7B inference on one 4090 at 4k context, out of memory?", "en", "**No, it fits"),
    ("单卡4090推理Qwen2.5-7B，4k上下文，会爆显存吗", "zh", "**不会爆显存"),
])
def test_an_oom_question_is_answered_no_when_it_fits(q: str, lang: str, head: str) -> None:
    first = lead(q, lang)
    assert first.startswith(head), first


def test_a_fit_question_keeps_its_own_verdict() -> None:
    first = lead("LoRA on Mistral 7B, single 4090, seq len 4096, batch 8 - will it fit?")
    assert first.startswith("**No**"), first


@pytest.mark.parametrize("q, lang", [
    ("LoRA on Mistral 7B, single 4090, seq len 4096, batch 8 - OOM?", "en"),
    ("QLoRA Llama 3 8B on a 4090, 2k context, batch 4, will it run out of memory?", "en"),
    ("用一张4090做Mistral 7B的LoRA，序列长度4096，batch 8，会爆显存吗", "zh"),
])
def test_a_training_job_that_does_not_fit_keeps_its_sequence_length_first(q: str, lang: str) -> None:
    """The micro-batch × accumulation that keeps the sequences (the same sequences a step) is offered before a
    shorter sequence; the micro-batch divides the one asked."""
    first = lead(q, lang)
    if lang == "en":
        asked = number(r"at micro-batch (\d+), sequences of up to", first)
        mb = number(r"at micro-batch (\d+) with", first)
        acc = number(r"with (\d+) steps of gradient accumulation", first)
        assert first.index("gradient accumulation") < first.index("sequences of up to"), first
    else:
        asked = number(r"保持每批 (\d+) 条", first)
        mb = number(r"每批 (\d+) 条、梯度累积", first)
        acc = number(r"梯度累积 (\d+) 步", first)
        assert first.index("梯度累积") < first.index("序列不超过"), first
    assert mb * acc == asked and mb < asked, first


# --- F10: none meets the per-token target ------------------------------------------------------------------------

@pytest.mark.parametrize("q, lang", [
    ("L20 跑 Qwen2.5-32B 能撑几个并发，4k 上下文", "zh"),
    ("两张L20部署Qwen2.5-32B，4k上下文，最多支持多少人同时用？", "zh"),
    ("how many concurrent users can 2x L20 handle with Qwen2.5-32B at 4k context?", "en"),
    ("How many simultaneous chats can two L20s sustain for Qwen2.5-32B with 4k context?", "en"),
])
def test_no_user_within_the_default_target_leads_with_what_memory_holds(q: str, lang: str) -> None:
    first = lead(q, lang)
    assert not re.search(r"serves at most 0|最多可同时服务 0 路", first), first
    if lang == "en":
        held, per = number(r"holds (\d+) concurrent requests", first), number(r"at about ([\d.]+) tokens/s each", first)
        assert "25 tokens/s per user of the interactive default" in first, first
    else:
        held, per = number(r"容纳 (\d+) 路", first), number(r"每路约 ([\d.]+) tokens/s", first)
        assert "默认交互目标的每路 25 tokens/s" in first, first
    assert held >= 1 and 0 < per < 25, first


@pytest.mark.parametrize("q, lang, said", [
    ("how many users can 2x L20 serve on Qwen2.5-32B, 4k context, under 30 ms per token?", "en",
     "None meets your target of 30 ms per token"),
    ("2张L20跑Qwen2.5-32B，4k上下文，每token 30ms以内，能支持多少并发", "zh", "没有一路能达到您的目标（每 token 30 ms）"),
])
def test_no_user_within_a_stated_target_says_so_and_the_speed_at_one_user(q: str, lang: str, said: str) -> None:
    first = lead(q, lang)
    assert said in first, first
    one = number(r"at 1 user it is ([\d.]+) tokens/s" if lang == "en" else r"只有 1 路时为 ([\d.]+) tokens/s", first)
    assert 0 < one < 1000 / 30, first


def test_users_within_the_target_are_still_counted() -> None:
    first = lead("how many concurrent users can one H100 serve on Llama 3.1 8B at 4k context?")
    assert number(r"serves at most (\d+) concurrent users", first) >= 1, first


# --- F6: a speed in the weight format that makes it fit ------------------------------------------------------------

@pytest.mark.parametrize("q, lang, fmt", [
    ("how many tok/s can a 3090 do on Qwen3-30B-A3B?", "en", "AWQ INT4"),
    ("what decode speed would a single RTX 4090 get on Qwen2.5-32B?", "en", "AWQ INT4"),
    ("3090跑Qwen3-30B-A3B能有多少token/s", "zh", "AWQ INT4"),
    ("单张4090跑Qwen2.5-32B速度怎么样", "zh", "AWQ INT4"),
])
def test_a_speed_asked_is_given_in_the_format_that_fits(q: str, lang: str, fmt: str) -> None:
    first = lead(q, lang)
    pattern = (rf"With {fmt} weights, 1× [^,]+ runs it at about ([\d.]+) tokens/s for one user" if lang == "en"
               else rf"用 {fmt} 权重时，1× .+? 单路约 ([\d.]+) tokens/s")
    assert number(pattern, first) > 0, first


def test_the_changed_speed_is_the_speed_of_that_format_asked_directly() -> None:
    changed = number(r"runs it at about ([\d.]+) tokens/s", lead("how many tok/s can a 3090 do on Qwen3-30B-A3B?"))
    direct = lead("how many tok/s can a 3090 do on Qwen3-30B-A3B in AWQ INT4?")
    assert f"{changed:.0f} tokens/s" in direct, (changed, direct)
