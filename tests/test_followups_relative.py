"""Follow-ups that change the last answer's job by a factor ("what if we double the tokens?", "并发翻倍呢", "half the
context"), ask the last answer in the other language ("answer in Chinese please", "说英文"), give a training
conversation's data as samples ("how long for 10k samples of 4k tokens?"), or put a deadline in words ("doable
overnight?", "周末能训完吗"). Each had been misread: "no workload found", an English rent-vs-buy answer, a switch to
serving, a "Yes" for a run of 3.6 days asked overnight."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.lang import lang_asked
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()


def chat(lang: str, *turns: str) -> list[str]:
    """The deterministic answers to `turns`, asked in that order in one conversation started in `lang`."""
    c = Conversation(driver="deterministic", lang=lang)
    return [c.respond(text).answer for text in turns]


def first_screen(text: str) -> str:
    return text.split("<details>")[0]


def changed_line(text: str) -> str:
    m = re.search(r"\*\*(?:What changed|变化)[:：]?\*\*[:：]?\s*(.*)", text)
    assert m, text[:600]
    return m.group(1)


# --- 1. an amount said as a factor of the last one -------------------------------------------------------------------

@pytest.mark.parametrize("text, what, factor", [
    ("what if we double the tokens?", "tokens", 2), ("what if we double the users?", "users", 2),
    ("并发翻倍呢", "users", 2), ("用户量翻一番呢", "users", 2), ("tokens x3?", "tokens", 3),
    ("half the context", "context", 0.5), ("数据量减半呢", "tokens", 0.5), ("再加一倍数据", "tokens", 2),
    # paraphrases
    ("and if we had twice as many concurrent users?", "users", 2), ("cut the context in half?", "context", 0.5),
    ("what about 10x the data?", "tokens", 10), ("训练数据翻倍的话呢", "tokens", 2), ("请求量翻倍呢", "requests", 2),
    ("QPS x2?", "requests", 2), ("两倍的用户呢", "users", 2), ("上下文砍半", "context", 0.5),
    ("what if traffic triples?", "requests", 3), ("3 倍的数据要多久", "tokens", 3), ("and halve the budget?", "budget", 0.5),
    ("double the epochs?", "epochs", 2), ("what if we double the GPUs?", "gpus", 2), ("卡数翻倍", "gpus", 2),
    ("如果用户数量增加一倍呢", "users", 2), ("并发数量变成原来的3倍呢", "users", 3), ("double our user base", "users", 2),
])
def test_a_factor_is_read_with_what_it_applies_to(text: str, what: str, factor: float) -> None:
    s = extract(text, CAT)
    assert s.scales == {what: factor}, s.scales


@pytest.mark.parametrize("text", [
    "a team of 200, half the users are online at once",  # a peak share
    "4 nodes x 8 GPUs each for Llama 3.1 70B",  # a count of GPUs per node
    "serve qwen2.5-7b with output tokens x2",  # an answer's length, no training data
    "please double-check the memory for qwen2.5-7b",
    "full fine-tune qwen2.5-1.5b on 1 million samples x 512 tokens",  # the length of each sample
])
def test_no_factor_where_none_is_said(text: str) -> None:
    assert extract(text, CAT).scales == {}


def test_double_the_tokens_after_a_pretraining_run() -> None:
    before, after = chat("en", "pretrain a 1.5B model on 300B tokens with 64 H100", "what if we double the tokens?")
    assert "could not find a workload" not in after
    line = changed_line(after)
    assert "300 B tokens → 600 B tokens (×2" in line, line
    ratio = number(r"([\d.]+) days \(", after) / number(r"([\d.]+) days \(", before)
    assert 1.9 <= ratio <= 2.1, (before[:300], after[:300])


def test_tokens_times_three_and_then_twice_the_gpus() -> None:
    *_, thrice, more = chat("en", "pretrain a 1.5B model on 300B tokens with 64 H100", "tokens x3?", "and with 2x the GPUs?")
    assert "300 B tokens → 900 B tokens (×3" in changed_line(thrice)
    assert "128× NVIDIA H100" in first_screen(more).split("\n")[0]


@pytest.mark.parametrize("then", ["what if we double the users?", "twice the users?", "and if the user count doubled?"])
def test_double_the_users_after_a_serving_answer(then: str) -> None:
    _, after = chat("en", "serve gpt-oss-120b for 50 users", then)
    assert "At 100 concurrent users" in after, after[:400]
    assert "50 concurrent → 100 concurrent (×2" in changed_line(after)


@pytest.mark.parametrize("first, then, users", [
    ("部署 qwen2.5-32b，100 并发，需要几张卡？", "并发翻倍呢", 200),
    ("部署 qwen2.5-32b，给 200 个用户用", "用户量翻一番呢", 400),
    ("部署 qwen2.5-32b，100 并发", "要是并发量减半呢？", 50),
])
def test_chinese_factors_of_the_users(first: str, then: str, users: int) -> None:
    _, after = chat("zh", first, then)
    assert f"**{users} 路并发时**" in after, after[:400]
    assert "（按您说的 ×" in changed_line(after)


def test_half_the_context_after_a_serving_answer() -> None:
    _, after = chat("en", "serve llama 3.1 8b with 32k context for 20 users", "half the context")
    assert "context 32768 tokens → 16384 tokens (×0.5" in changed_line(after)


def test_a_request_rate_doubled() -> None:
    _, after = chat("en", "serve qwen2.5-7b at 10 QPS", "what if the request rate doubles?")
    assert "20 requests/s (×2" in changed_line(after), after[:600]


def test_chinese_data_halved_then_doubled_again() -> None:
    first, half, again = chat("zh", "用 8 张 H100 对 llama3 8b 做全参微调，数据 20 亿 token，要多久", "数据量减半呢", "再加一倍数据")
    assert "20 亿 tokens → 10 亿 tokens（按您说的 ×0.5）" in changed_line(half)
    assert "10 亿 tokens → 20 亿 tokens（按您说的 ×2）" in changed_line(again)
    assert number(r"约需 ([\d.]+) 小时", first) == number(r"约需 ([\d.]+) 小时", again)


def test_a_factor_of_the_default_training_data() -> None:
    """No data said: the factor applies to the 100 M tokens the last answer assumed and said."""
    _, after = chat("en", "LoRA llama 3.1 8b on an A100", "what if we double the data?")
    assert "100 M tokens → 200 M tokens (×2" in changed_line(after), after[:500]


# --- 2. the last answer in the other language -----------------------------------------------------------------------

@pytest.mark.parametrize("text, lang, alone", [
    ("and in Chinese?", "zh", True), ("answer in Chinese please", "zh", True), ("用中文回答", "zh", True),
    ("in English please", "en", True), ("说英文", "en", True),
    # paraphrases
    ("could you reply in English?", "en", True), ("换成中文回答吧", "zh", True), ("Chinese, please", "zh", True),
    ("请用英文再说一遍", "en", True), ("用中文回答：那 100 并发呢？", "zh", False),
    ("serve qwen2.5-7b for 20 users, answer in Chinese please", "zh", False),
])
def test_a_language_asked_for_the_answers(text: str, lang: str, alone: bool) -> None:
    assert lang_asked(text) == (lang, alone)


@pytest.mark.parametrize("text", ["a support bot that answers in Chinese, Qwen2.5-7B for 50 users",
                                  "处理用中文写的合同，Qwen2.5-7B 够吗", "模型要能用中文回答，部署 qwen2.5-7b",
                                  "Can Chinese companies buy the H100?", "serve qwen2.5-7b for an English tutoring app"])
def test_a_jobs_own_language_is_no_request(text: str) -> None:
    assert lang_asked(text) is None


def test_please_is_no_lease() -> None:
    """"answer in Chinese please" had been an English rent-vs-buy answer: "please" read as "lease"."""
    assert extract("please size qwen2.5-7b for 20 users", CAT).buy_or_rent is None


@pytest.mark.parametrize("ask", ["answer in Chinese please", "and in Chinese?", "用中文回答", "could you say that in Chinese?"])
def test_the_last_answer_again_in_chinese(ask: str) -> None:
    c = Conversation(driver="deterministic", lang="en")
    before = c.respond("serve gpt-oss-120b for 50 users").answer
    turn = c.respond(ask)
    again = turn.answer
    assert turn.lang == "zh" and c.lang == "zh"
    assert "**50 路并发时**" in again, again[:400]
    card = re.search(r"I recommend 1× (.+?) in 1 server", before)
    assert card and card.group(1) in first_screen(again).split("\n")[0]  # the same job, the same answer
    assert "租用" not in first_screen(again) and "could not find" not in again
    later = c.respond("what about 100 users?")  # the language stays for later turns
    assert later.lang == "zh" and "**100 路并发时**" in later.answer


@pytest.mark.parametrize("ask", ["in English please", "说英文", "用英文回答", "English please"])
def test_the_last_answer_again_in_english_keeps_the_job(ask: str) -> None:
    c = Conversation(driver="deterministic", lang="zh")
    before = c.respond("部署 qwen2.5-32b，100 并发").answer
    again = c.respond(ask)
    assert again.lang == "en" and "At 100 concurrent users" in again.answer, again.answer[:400]
    card = re.search(r"建议 (\d+× .+?)，", before)
    assert card and card.group(1) in first_screen(again.answer)
    assert "mainland China" in first_screen(again.answer)  # the region the Chinese answer assumed stays
    back = c.respond("说中文")
    assert back.lang == "zh" and card.group(1) in first_screen(back.answer)


def test_the_language_asked_survives_a_saved_conversation() -> None:
    c = Conversation(driver="deterministic")
    c.respond("serve qwen2.5-7b for 20 users")
    c.respond("answer in Chinese please")
    again = Conversation.from_dict(c.to_dict())
    assert again.respond("what about 40 users?").lang == "zh"


def test_a_language_asked_with_a_job_answers_the_job_in_it() -> None:
    turn = Conversation(driver="deterministic", lang="en").respond("用中文回答：serve qwen2.5-7b for 20 users")
    assert turn.lang == "zh" and "**20 路并发时**" in turn.answer, turn.answer[:300]


def test_a_language_asked_before_any_job() -> None:
    turn = Conversation(driver="deterministic", lang="zh").respond("in English please")
    assert turn.lang == "en" and "English" in turn.answer and "could not find a workload" not in turn.answer


def test_a_catalog_answer_again_in_english() -> None:
    *_, again = chat("zh", "8卡H100多少钱", "说英文")
    assert "8× NVIDIA H100" in again and "server" in again


# --- 3. a training conversation's data said as samples --------------------------------------------------------------

@pytest.mark.parametrize("then, tokens", [
    ("how long for 10k samples of 4k tokens?", 4e7),
    ("and how long would 20k examples of 2k tokens take?", 4e7),
    ("how many hours for 5000 samples x 1k tokens?", 5e6),
])
def test_samples_in_a_training_chain_are_its_data(then: str, tokens: float) -> None:
    c = Conversation(driver="deterministic", lang="en")
    c.respond("Mistral Small 24B QLoRA on a 3090")
    c.respond("max seq len at batch 1?")
    after = c.respond(then).answer
    assert "inference" not in changed_line(after) and "prompt length" not in after, after[:600]
    assert "training tokens 100 M tokens → " in changed_line(after)  # from the default the last answer was timed for
    assert c.state.slots.task == "qlora" and c.state.slots.train_tokens == tokens, c.state.slots


def test_samples_read_as_data_only_in_a_training_conversation() -> None:
    trained = extract("how long for 10k samples of 4k tokens?", CAT, training=True)
    assert trained.train_tokens == 4e7 and trained.context == 4096 and trained.job_requests is None \
        and trained.task is None, trained
    served = extract("how long for 10k samples of 4k tokens?", CAT)  # no training said: a batch job, as before
    assert served.job_requests == 1e4 and served.task == "inference", served
    batch = extract("how long to summarise 10k documents of 2k tokens with it?", CAT, training=True)
    assert batch.job_requests == 1e4, batch  # a job that runs the model says so


@pytest.mark.parametrize("then", ["1 万条样本，每条 2k token，要多久？", "5万条数据要跑多久", "两万条样本需要训练多久？"])
def test_chinese_samples_in_a_training_chain(then: str) -> None:
    c = Conversation(driver="deterministic", lang="zh")
    c.respond("用一张 3090 对 Qwen2.5-7B 做 QLoRA")
    after = c.respond(then).answer
    assert c.state.slots.task == "qlora", c.state.slots
    assert "推理部署" not in first_screen(after) and "训练" in after.split("\n")[0], after[:300]


# --- 4. a deadline in words, answered first -------------------------------------------------------------------------

@pytest.mark.parametrize("text, hours", [
    ("LoRA llama 3.1 8b on a 4090, doable overnight?", 12), ("can it be done by tomorrow?", 24),
    ("could we train it over the weekend?", 48), ("can it finish in a day?", 24), ("今晚能跑完吗", 12),
    ("一晚上能训完吗", 12), ("明天之前能训完吗", 24), ("周末能训完吗", 48), ("一个周末够不够", 48),
    ("would it finish over night on two 3090s?", 12), ("一天能跑完吗", 24),
])
def test_a_deadline_in_words(text: str, hours: float) -> None:
    assert extract(text, CAT).deadline_s == hours * 3600


@pytest.mark.parametrize("text", ["今晚要上线一个客服，用 qwen2.5-7b", "serve qwen2.5-7b for weekend traffic spikes"])
def test_no_deadline_where_none_is_asked(text: str) -> None:
    assert extract(text, CAT).deadline_s is None


def test_overnight_is_answered_first() -> None:
    got = first_screen(answer("is 1 epoch of 1M samples (avg 512 tokens) LoRA on llama 3.1 8b doable overnight on a 4090?"))
    lead = got.split("\n")[0]
    assert lead.startswith("**No**") and "**Yes" not in got, lead
    assert "taken as 12 hours" in lead and re.search(r"within 12 hours it would take \d+× GeForce RTX 4090", lead), lead
    days = number(r"about ([\d.]+) days on 1× GeForce RTX 4090", lead)
    assert days * 24 > 12


@pytest.mark.parametrize("text, limit", [
    ("LoRA llama 3.1 8b on 100M tokens with 1k sequences on a 4090, can it finish in 2 hours?", 2),
    ("LoRA llama 3.1 8b on 100M tokens with 1k sequences on a 4090, can it finish in 2 days?", 48),
    ("Could one 4090 get through a LoRA of llama 3.1 8b on 100M tokens of 1k-token samples over the weekend?", 48),
    ("LoRA of llama 3.1 8b, 100M tokens at 1k sequence length, single RTX 4090 — done within 3 hours?", 3),
])
def test_a_training_deadline_is_the_verdict(text: str, limit: float) -> None:
    """The time on the card asked against the deadline decides the first word (a fit alone is no "Yes")."""
    lead = first_screen(answer(text)).split("\n")[0]
    hours = number(r"about ([\d.]+) hours on 1× GeForce RTX 4090", lead)
    assert lead.startswith("**No**" if hours > limit else "**Yes**"), lead
    assert "The memory is enough" in lead


@pytest.mark.parametrize("text, verdict", [
    ("用一张 4090 对 llama 3.1 8b 做 LoRA，100 万条样本，每条 512 token，今晚能跑完吗？", "**来不及**"),
    ("用一张 4090 对 llama 3.1 8b 做 LoRA，数据 1 亿 token，序列 1k，周末能训完吗", "**来得及**"),
])
def test_a_chinese_training_deadline_is_the_verdict(text: str, verdict: str) -> None:
    got = answer(text, "zh")
    assert first_screen(got).startswith(verdict), got[:300]
    assert re.search(r"“(?:今晚|周末)”按 \d+ h 计", got), got  # the hours the words were taken as, said
