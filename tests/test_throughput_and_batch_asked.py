"""Two acts answered as asked (Dec 9): a throughput asked with no load stated ("what throughput can 8× H100 reach?",
"吞吐能到多少") is the full-load figure, not one user's speed; and "what batch fits?" on a card that holds not one
sequence as asked goes on to the batch the change that makes it fit would hold."""

from __future__ import annotations

import re

import pytest

from tests.answer_text import answer, number


def first_line(text: str, lang: str = "en") -> str:
    return answer(text, lang).strip().split("\n")[0]


# --- a throughput with no load stated: the most the cards carry ----------------------------------------------------

@pytest.mark.parametrize(("text", "lang"), [
    ("What throughput can 8x H100 reach for Qwen2.5-72B?", "en"),
    ("How much throughput does one H200 get on gpt-oss-120b?", "en"),
    ("What's the throughput of Llama 3.1 8B on an L4?", "en"),
    ("Qwen2.5-72B on 8 H100s - what total throughput would it manage?", "en"),
    ("Roughly what aggregate tokens/s could a pair of A6000s push with Mistral Small 24B?", "en"),
    ("8 卡 H100 上 Qwen2.5-72B 的吞吐能到多少 token/s？", "zh"),
    ("单卡 4090 跑 Qwen2.5-7B 吞吐多少", "zh"),
    ("一张 L40S 部署 Llama 3.1 8B，吞吐量大概有多少？", "zh"),
])
def test_a_throughput_without_a_load_is_the_full_load_figure(text: str, lang: str) -> None:
    """These had opened with one user's speed ("about 99 tokens/s per user"), a figure nobody sizing a server reads
    as its throughput; the answer now opens with the most concurrent requests the memory holds and the total
    tokens/s at that load (the phrasing the "maximum throughput" questions already got)."""
    line = first_line(text, lang)
    if lang == "en":
        assert "at most" in line and "in total" in line, line
    else:
        assert "最多可同时服务" in line and "合计" in line, line


def test_the_full_load_total_exceeds_one_users_speed() -> None:
    """The figure is the load's total, not a restated single-user speed: 8× H100 with Qwen2.5-72B carries hundreds
    of sequences, so its total is many times what one user gets (checked against the per-user speed asked in the
    same words with a load of one)."""
    full = first_line("What throughput can 8x H100 reach for Qwen2.5-72B?")
    one = first_line("What throughput per user for Qwen2.5-72B on 8x H100 with 1 user?")
    total = number(r"([\d,.]+) tokens/s in total", full)
    per_user = number(r"([\d,.]+) tokens/s per user", one)
    assert total > 10 * per_user, (full, one)


@pytest.mark.parametrize(("text", "lang"), [
    ("gpt-oss-120b on one H100, 32 users, what throughput?", "en"),
    ("Qwen3-32B 两张 4090，10 个人同时用，吞吐多少", "zh"),
])
def test_a_throughput_at_a_stated_load_stays_at_that_load(text: str, lang: str) -> None:
    """With a load said, the throughput is the one at that load, not the memory's most."""
    said = answer(text, lang)
    assert ("At 32 concurrent users" in said) if lang == "en" else ("10 路并发时" in said), said[:400]
    assert "serves at most" not in said.split("\n")[0] and "最多可同时服务" not in said.split("\n")[0]


def test_throughput_per_user_is_still_one_users_speed() -> None:
    line = first_line("What throughput per user for Llama 3.1 8B on an L4?")
    assert "per user" in line and "at most" not in line, line


# --- "what batch fits?" when not one sequence does as asked --------------------------------------------------------

@pytest.mark.parametrize(("text", "lang", "fmt"), [
    ("What's the max batch I can run for Qwen2.5-32B on an RTX 4090 with 8k context?", "en", "With GGUF Q4_K_M"),
    ("Mistral Small 3.1 24B 在一张 4090 上 8k 上下文最多能开多大 batch？", "zh", "改用 AWQ INT4 权重后"),
    ("What batch size can I use for Llama 3.1 70B on one A100 80GB at 4k?", "en", "With INT8"),
])
def test_no_batch_as_asked_goes_on_to_the_batch_the_change_holds(text: str, lang: str, fmt: str) -> None:
    """These had stopped at "there is no batch size to choose … what would make it work: AWQ INT4", leaving the
    person to ask again; the answer now gives the batch that format holds on the same card at the same context, as
    the speed questions already did for a configuration that fits only after a change."""
    line = first_line(text, lang)
    assert fmt in line, line
    after = line.split(fmt, 1)[1]
    if lang == "en":
        assert re.search(r"holds (?:at most \d+ concurrent sequences|only one sequence)", after), after
    else:
        assert re.search(r"最多同时容纳 \d+ 条|同时只能容纳 1 条", after), after


def test_one_sequence_is_said_in_the_singular() -> None:
    line = first_line("What batch size can I use for Llama 3.1 70B on one A100 80GB at 4k?")
    assert "1 concurrent sequences" not in line and "only one sequence" in line, line


# --- "how many users can it serve?" when the card holds the model only after a change -------------------------------

@pytest.mark.parametrize(("text", "lang", "fmt"), [
    ("Qwen3-30B-A3B 单卡 L20 能跑多少并发？", "zh", "改用 FP8 权重后"),
    ("How many concurrent users can one L20 handle with Qwen3-30B-A3B?", "en", "With FP8 weights"),
    ("How many users can a single RTX 4090 serve with Qwen2.5-14B?", "en", "With FP8 weights"),
])
def test_users_asked_on_a_card_that_needs_a_change_are_answered_as_changed(text: str, lang: str, fmt: str) -> None:
    """These had stopped at "not as asked … switching to FP8 weights would make it fit" with no number of users; the
    answer now goes on with the users the card holds in that format at the default per-token target, simulated."""
    said = answer(text, lang)
    assert said.startswith(fmt), said[:500]  # the users in that format lead (test_users_in_changed_format)
    after = said.rsplit(fmt, 1)[1].split("\n")[0]  # then the load line in that format
    users = re.search(r"(\d+) 路并发时" if lang == "zh" else r"At (\d+) concurrent users", after)
    assert users and int(users.group(1)) >= 1, after
    assert re.search(r"tokens/s", after), after


# --- "locally" is one person's machine, unless an organisation is said -----------------------------------------------

@pytest.mark.parametrize("text", [
    "Best GPU to run Qwen3-30B-A3B locally?",
    "Best GPU under $5000 to run Qwen3-30B-A3B locally?",
    "What card do I need to run Llama 3.1 8B on my own machine?",
])
def test_running_locally_is_a_home_machine(text: str) -> None:
    """"Run it locally" had been read as a server job: BF16 on vLLM, and a $9,856 RTX PRO 6000 or eight RTX 5060 Ti
    in tensor parallel for one person. It now reads as "at home" did: the 4-bit GGUF file people run on llama.cpp."""
    said = answer(text)
    assert "llama.cpp" in said.split("\n")[0] and "GGUF" in said, said[:400]


def test_locally_for_a_team_stays_a_server_job() -> None:
    said = answer("We want to deploy Qwen3-30B-A3B locally for our team, which GPU?")
    assert "llama.cpp" not in said.split("\n")[0], said[:400]


# --- "how long to prefill a long prompt?" is the first-token time ---------------------------------------------------

@pytest.mark.parametrize(("text", "lang"), [
    ("How long does it take to prefill a 100k token prompt on Llama 3.1 8B with one H100?", "en"),
    ("What's the prefill time for a 20k prompt on Qwen2.5-14B with one L40S?", "en"),
    ("预填充 3 万 token 的提示词要多久？Qwen2.5-7B，一张 4090", "zh"),
])
def test_a_prefill_question_opens_with_the_first_token_time(text: str, lang: str) -> None:
    """"How long to prefill a 100k prompt?" had been answered with a purchase ("I recommend 1× H100 … $59,510"): the
    prompt's processing is what the first token waits for, so the answer now opens with that time."""
    line = first_line(text, lang)
    assert re.search(r"First token after [\d.]+ (?:s|ms) for a prompt of [\d,]+ tokens|的输入首 token 约 [\d.]+ (?:s|ms)",
                     line), line


def test_a_prefill_time_on_cards_that_need_another_format_is_given_in_it() -> None:
    """2× H100 holds Llama 3.1 70B with a 32k prompt only in FP8: the first-token time in FP8 follows the shortfall,
    where only the decode speed had been given."""
    line = first_line("What is the prefill time for a 32k prompt with Llama 3.1 70B on 2x H100?")
    assert re.search(r"With FP8 weights on 2× NVIDIA H100 SXM5 80GB, first token after [\d.]+ s for a prompt of "
                     r"32000 tokens", line), line


# --- an FP4 checkpoint is not offered on Ascend A2/A3 NPUs ------------------------------------------------------------

def test_gpt_oss_is_not_sent_to_an_ascend_card_as_mxfp4() -> None:
    """"一张 5090 能跑 gpt-oss-120b 吗？" had offered "2× Huawei Ascend 310P 48GB … (TP 2, vLLM, MXFP4)": Ascend A2/A3
    NPUs and the 310P have no MXFP4 kernels (SGLang's Ascend quantisation table), so the MXFP4 file does not run there
    (rule cap-fp4-ascend: W8A8 INT8 instead)."""
    said = answer("一张 5090 能跑 gpt-oss-120b 吗？", "zh")
    line = said.split("\n")[0]
    assert not re.search(r"Ascend[^。]*MXFP4", line), line
    ruled = answer("gpt-oss-120b 用两张昇腾 910B 部署行吗？", "zh")
    assert "被规则排除" in ruled.split("\n")[0] and "FP4" in ruled.split("\n")[0], ruled[:300]
