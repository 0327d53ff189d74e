"""Wording that must not contradict its own numbers: a speed said to be below a target is printed below it, and one
user is one user."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


def _answer(question: str, lang: str = "en") -> str:
    return Conversation(driver="deterministic", lang=lang).respond(question).answer


@pytest.mark.parametrize("question", [
    "Our team has 4x A6000. Can we serve Llama 3.3 70B in FP8 to 20 engineers?",
    "We own four RTX A6000 cards - is that enough to run llama 3.3 70b fp8 for 20 developers?",
])
def test_a_speed_below_the_target_reads_below_it(question: str) -> None:
    answer = _answer(question)
    m = re.search(r"each gets ([\d.]+) tokens/s, below ([\d.]+) tokens/s", answer)
    assert m, answer[:600]
    assert float(m.group(1)) < float(m.group(2)), m.group(0)
    assert "at most 1 concurrent users" not in answer


@pytest.mark.parametrize("question", [
    "Can one 8x 4090 server LoRA fine-tune Qwen2.5-72B?",
    "is our 8-card RTX 4090 box enough for a LoRA finetune of qwen2.5 72b at 4k tokens?",
])
def test_a_named_setup_that_does_not_fit_points_to_another_card_not_hundreds_of_it(question: str) -> None:
    """The named 8× RTX 4090 does not hold a 72B LoRA at 4k; the configuration named after it is another card's,
    not 256 RTX 4090s (what more data-parallel copies of the same card would take)."""
    head = _answer(question).split("\n", 1)[0]
    assert head.startswith("**No**"), head
    others = re.findall(r"(\d+)× ([^()]+?) fits it", head)
    assert others, head
    n, card = int(others[0][0]), others[0][1]
    assert "4090" not in card or n <= 32, head


@pytest.mark.parametrize("question", [
    "can MI355X run llama 4 maverick and what does it cost",
    "can 4x H100 run Llama 3.3 70B and what does that cost?",
    "Could two H200s serve Qwen3-32B, and how much would they cost?",
])
def test_can_it_and_what_does_it_cost_answers_yes_first(question: str) -> None:
    head = _answer(question).split("\n", 1)[0]
    assert head.startswith("**Yes**"), head
    assert "GiB needed per GPU" in head


@pytest.mark.parametrize(("question", "lang"), [
    ("fine tune llama 3.1 70b on 8x A100, full fine-tuning, how long for 100M tokens", "en"),
    ("8 张 A100 全参微调 Llama 3.1 70B，1 亿 token 要多久", "zh"),
])
def test_a_time_on_a_ruled_out_configuration_says_so_and_what_runs(question: str, lang: str) -> None:
    """8× A100 holds a 70B full fine-tune only by offloading the optimizer to more host RAM than a node has: the time
    on it is said with the rule that rules it out, then the configuration that runs it."""
    head = _answer(question, lang).split("\n", 1)[0]
    assert ("ruled out" in head and "runs it" in head) if lang == "en" else ("排除" in head and "可以跑" in head), head


@pytest.mark.parametrize("question", [
    "GPU-hours to LoRA finetune qwen2.5 72b on 50M tokens on H100?",
    "total GPU hours for a LoRA of Qwen2.5-72B over 50M tokens on H100?",
])
def test_gpu_hours_asked_of_a_bare_card_sizes_it(question: str) -> None:
    head = _answer(question).split("\n", 1)[0]
    assert "GPU-hours" in head and "short by" not in head, head


@pytest.mark.parametrize(("question", "lang"), [
    ("mac studio m3 ultra 跑 deepseek r1 671b q4 每秒多少token", "zh"),
    ("tokens/s for DeepSeek R1 Q4 on my Mac Studio M3 Ultra 96GB?", "en"),
])
def test_a_mac_is_never_offered_layer_offload_to_system_ram(question: str, lang: str) -> None:
    """A Mac's GPU shares one unified memory with macOS: there is no separate host RAM to spill layers into (only
    the SSD), so no "offload to system RAM" speed is quoted for it."""
    answer = _answer(question, lang)
    assert "系统内存" not in answer and "system RAM" not in answer and "内存卸载" not in answer, answer[:800]


@pytest.mark.parametrize(("question", "lang", "word"), [
    ("5M tokens/day with qwen3 235b a22b - how many H100 and monthly rent cost", "en", "a month rented"),
    ("Qwen3-235B-A22B 每天 500 万 token，用 H100，每月租金多少？", "zh", "每月"),
])
def test_a_daily_volume_priced_by_the_month_when_a_month_is_asked(question: str, lang: str, word: str) -> None:
    """The money of a stated daily volume is said a month when a month is asked: the day's rent × 730 h / 24 h."""
    head = _answer(question, lang).split("\n", 1)[0]
    assert word in head, head
    if lang == "en":
        month = float(re.search(r"\$([\d,]+) a month rented", head).group(1).replace(",", ""))
        day = float(re.search(r"\(\$([\d,.]+) a day", head).group(1).replace(",", ""))
        assert month == pytest.approx(day * 730 / 24, rel=0.01)


@pytest.mark.parametrize(("question", "lang"), [
    ("serving gpt-oss-20b to 500 users with 128k context on H100s, how many", "en"),
    ("每天处理1000万token，128k长上下文，Qwen2.5-72B用H200要几张", "zh"),
])
def test_a_long_context_says_the_first_token_of_a_prompt_that_fills_it(question: str, lang: str) -> None:
    """The load line is a chat turn's (215 tokens in); with a 128k context the time to first token of one prompt
    that fills it is said too, and it is far longer than the chat turn's."""
    answer = _answer(question, lang)
    m = re.search(r"(?:first token after|首 token 延迟) ([\d.]+) (ms|s)", answer)
    long = re.search(r"(?:waits about|首 token 约需) ([\d.]+) (ms|s)", answer)
    assert m and long, answer[:1500]

    def sec(v: str, unit: str) -> float:
        return float(v) / (1000 if unit == "ms" else 1)

    assert sec(*long.groups()) > 5 * sec(*m.groups())


def test_a_short_context_has_no_long_prompt_sentence() -> None:
    assert "fills the context" not in _answer("Serve Llama 3.1 8B to 20 users with 4k context on one L40S")


def test_a_gguf_answer_serves_as_many_users_as_its_launch_line_sets() -> None:
    """Qwen3-32B Q4 for 20 users on 4× RTX 4090 (two llama.cpp replicas): the launch line sets --parallel to each
    replica's users, so the load runs them all; it had said "4× RTX 4090" and then that 20 users take 12 cards (the
    simulation kept llama-server's default of four slots)."""
    answer = _answer("how many 4090s do i need to run qwen3 32b at q4 for 20 users w/ 8k ctx")
    head = answer.split("\n", 1)[0]
    n = int(re.match(r"You need (\d+)×", head).group(1))
    assert "copies of this deployment" not in answer.split("<details>")[0], answer[:900]
    most = re.search(r"at most (\d+) concurrent users", answer)
    assert most and int(most.group(1)) >= 20 and n <= 4, answer[:900]


def test_a_sentence_after_yes_continues_in_lower_case() -> None:
    for question in ("can 4x H100 run Llama 3.3 70B and what does that cost?",
                     "QLoRA finetune llama 3 70b on a single A100 80GB - feasible? how long for 10k samples"):
        head = _answer(question).split("\n", 1)[0]
        assert head.startswith("**Yes** — ") and head[len("**Yes** — ")].islower(), head
