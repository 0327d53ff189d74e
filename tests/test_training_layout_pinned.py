"""A training question that pins the parallel layout ("Train Llama-3.1-70B on 1T tokens with TP8 PP4 on 512 H100.
How long?") is answered with that layout (2026-12-06).

It had been answered with the planner's own (TP 4, PP 4, DP 32), never mentioning TP8 PP4: the reader read no TP/PP
for training, and the dialog's Workload could not carry them (its `tp`/`pp` are the layout an estimate is sized at,
with tp × pp ≤ gpus × nodes, and the dialog's job names no GPUs: gpus = nodes = 1). Now

* the reader reads the degrees ("TP8 PP4", "TP=8, PP=4", "tensor parallel 8, pipeline 4", "8-way TP", "EP 8", "CP 2",
  "张量并行 8、流水线并行 4", "TP8×PP4×DP16": a DP with no count makes the count) into `Workload.pinned_layout`;
* the planner runs them (DP = GPUs ÷ TP·PP·CP); the layout column shows them, the "Assumed" line says the layout is
  the user's, and the planner's own layout is named in one sentence when it is more than 5 % faster;
* a layout the planner cannot run there (TP·PP not dividing the count, TP beyond the KV heads or a server, PP beyond
  the layers, EP not dividing the experts, no fit in memory, a DP that makes another count) is said so in one line
  in the user's language, with what is accepted, before the answer with the planner's own layout;
* "on 512 rented H100" is 512 cards (a word between the count and the card had left the count unread).

Real catalog, reader, planner, rules and deterministic dialog; no network. The figures are checked against the
planner asked directly, never against numbers copied from an answer.
"""

from __future__ import annotations

import re

import pytest

from advisor.conversation.grounding import gate as grounding
from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from advisor.estimator.calibration import load_calibration
from advisor.estimator.planner import Overrides, plan_training
from knowledge.catalog import load_catalog
from knowledge.structs import dump
from tests.answer_text import number
from tests.chinese_view import english_words

CAT = load_catalog()
ASKED = "Train Llama-3.1-70B on 1T tokens with TP8 PP4 on 512 H100. How long?"


def _slots(text: str):
    return extract(text, CAT)


def _pins(text: str) -> dict[str, int]:
    pins = _slots(text).pinned_layout
    return {} if pins is None else {k: v for k, v in dump(pins).items() if v is not None}


def _counts(text: str) -> list[int | None]:
    s = _slots(text)
    return [m.count for m in s.candidates] + ([s.existing.count] if s.existing else []) + (
        [s.gpu_count] if s.gpu_count else [])


def _turn(text: str, lang: str = "en"):
    return Conversation(driver="deterministic", lang=lang).respond(text)


def _head(answer: str) -> str:
    """The answer above its table: the lead (and a refusal line) and the "Assumed" line."""
    return answer.split("\n|")[0]


def _assumed(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith("_"))


def _planned_days(model: str, count: int, tokens: float, **pins: int) -> float:
    """The planner's run total (goodput included) in days, asked directly, as the recommender asks it."""
    plan = plan_training(CAT.model(model), CAT.gpu("h100-sxm"), count, tokens, load_calibration(), context=4096,
                         ov=Overrides(**pins), explain=False)
    return plan.run_wall_s / 86400


def _grounded(turn, said: str) -> None:
    pool = grounding.Pool.of([{"numbers": [dump(n) for n in turn.numbers]}], texts=[said])
    for n in turn.numbers:
        pool.add_text(f"{n.value!r} {n.unit}")
        pool.add_text(f"{n.value!r}{n.unit}")
    report = grounding.check(turn.answer, pool)
    assert report.ok, [m.text for m in report.ungrounded]


# --- the reader ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "pins"), [
    (ASKED, {"tp": 8, "pp": 4}),
    ("Train Llama-3.1-70B on 1T tokens with TP=8, PP=4 on 512 H100", {"tp": 8, "pp": 4}),
    ("pretrain llama 3.1 70b, tp 8 / pp 4, 512 H100s, 1T tokens", {"tp": 8, "pp": 4}),
    ("Pre-train Llama-3.1-70B with tensor parallel 8, pipeline 4 on 512 H100 for 1T tokens", {"tp": 8, "pp": 4}),
    ("用 512 张 H100 预训练 Llama-3.1-70B，1T tokens，张量并行 8、流水线并行 4，要多久？", {"tp": 8, "pp": 4}),
    ("Llama-3.1-70B on H100 with TP8×PP4×DP16, 1T tokens: how long?", {"tp": 8, "pp": 4, "dp": 16}),
    ("8-way TP on 64 H100 to train llama 3 70b on 100B tokens", {"tp": 8}),
    ("DeepSeek-V3 pretraining on 2048 H800 with EP 8 and PP 16, 14.8T tokens", {"ep": 8, "pp": 16}),
    ("Llama 3.1 70B pretrain on 256 H100 with 32k sequences and CP 2", {"cp": 2}),
    # paraphrases the reader was not written against
    ("How long would it take to pre-train Llama 3.1 70B on 512 H100s for 1T tokens using a tensor-parallel size of "
     "8 and 4 pipeline stages?", {"tp": 8, "pp": 4}),
    ("Llama-3.1-405B, 15T tokens, 1024 H100s, with a TP of 8 and a PP of 16", {"tp": 8, "pp": 16}),
    ("We pretrain Llama 3.1 70B with 8-way tensor parallelism and 4-way pipeline parallelism on 512 H100",
     {"tp": 8, "pp": 4}),
    ("train llama 3.1 405b with TP/PP = 8/16 on 1024 H100 for 15T tokens", {"tp": 8, "pp": 16}),
    ("(tp, pp) = (4, 8) for llama 3.1 70b pretraining on 256 h100", {"tp": 4, "pp": 8}),
    ("Qwen2.5-72B 预训练，256 张 H800，张量并行度为 8，流水线并行度为 4，2T token 要多久", {"tp": 8, "pp": 4}),
    ("用 8 路张量并行、4 级流水线在 256 张 H800 上训练 Qwen2.5-72B，2T token", {"tp": 8, "pp": 4}),
    ("在 512 张 H100 上预训练 Llama-3.1-70B，1T token，TP 设为 4，PP 设为 8，要几天", {"tp": 4, "pp": 8}),
    ("DeepSeek-V3 在 2048 张 H800 上预训练，专家并行 64，流水线并行 16", {"ep": 64, "pp": 16}),
    ("TP 度 8、PP 度 4，用 512 张 H800 预训练 Qwen2.5-72B", {"tp": 8, "pp": 4}),
    ("张量并行开 8，流水线开 4，用 512 张 H100 训练 Llama-3.1-70B 1T token 要多久", {"tp": 8, "pp": 4}),
])
def test_the_degrees_said_are_read(text: str, pins: dict[str, int]) -> None:
    assert _pins(text) == pins


@pytest.mark.parametrize("text", [
    "how many TPS does Llama 3 8B get on one H100",
    "deploy qwen 7b on 8 H100 for 100 users",
    "PPO fine-tuning of Llama 3 8B on 8 A100",
    "DPO on Qwen2.5-7B with 4 H100s",
    "step 4: serve Llama 3 70B on a pipeline of H100s",
    "Llama 70B tensor parallel across 2 GPUs, 4090, does it fit?",
    "张量并行 4 卡部署 Qwen2.5-72B 需要什么卡",
])
def test_no_degree_is_read_where_none_is_said(text: str) -> None:
    assert _pins(text) == {}


@pytest.mark.parametrize(("text", "pins", "count", "tokens"), [
    ("用 64 张 H100 预训练 Llama 2 7B，张量并行 16，100B token 要多久", {"tp": 16}, 64, 1e11),
    ("Llama-3.1-70B 预训练，流水线并行 4，512 张 H100，1T token", {"pp": 4}, 512, 1e12),
])
def test_a_chinese_comma_before_a_number_is_no_thousands_group(text, pins, count, tokens) -> None:
    """"张量并行 16，100B token" had been read as 16,100B tokens (NFKC makes "，" the "," of "16,100")."""
    assert _pins(text) == pins and count in _counts(text) and _slots(text).train_tokens == tokens


def test_a_dp_said_with_no_count_makes_the_count() -> None:
    assert 512 in _counts("Llama-3.1-70B on H100 with TP8×PP4×DP16, 1T tokens: how long?")
    assert 256 in _counts("TP 4 PP 4 DP 16 for llama 3.1 70b pretraining on H100s")
    assert _counts("Train Llama-3.1-70B with TP8×PP4×DP16 on 256 H100") == [256]  # the count said stands


@pytest.mark.parametrize(("text", "task"), [
    ("Train Llama 3.1 8B on 8 H100 with TP 2 for 1B tokens", "pretrain"),
    ("Fine-tune Llama-3.1-70B with TP8 PP2 on 64 H100 on 1B tokens", "full"),
    ("用 TP8 PP2 在 64 张 H100 上微调 Llama-3.1-70B", "full"),
    ("LoRA fine-tune Llama-3.1-70B with TP 8 on 8 H100", "lora"),  # the method said stands
])
def test_a_pinned_layout_is_full_parameter_training(text: str, task: str) -> None:
    assert _slots(text).task == task


def test_a_layout_with_no_training_word_is_a_training_run_and_keeps_the_kind_said_before() -> None:
    """"Llama 70B with TP8 PP4 on 64 H100 for 1B tokens": training of every weight (pre-training assumed, said so);
    "with TP 8 PP 2?" after a full fine-tuning stays a full fine-tuning."""
    answer = _turn("Llama-3.1-70B with TP8 PP4 on 64 H100 for 1B tokens, how long?").answer
    assert "pre-training assumed" in answer.splitlines()[0]
    assert "your layout TP 8, PP 4" in _assumed(answer)
    c = Conversation(driver="deterministic", lang="en")
    c.respond("Fully fine-tune Llama-3.1-70B on 1B tokens on 64 H100")
    answer = c.respond("with TP 8 PP 2?").answer
    assert _assumed(answer).startswith("_Assumed: full fine-tuning") and "your layout TP 8, PP 2" in _assumed(answer)
    assert "TP 8, PP 2, DP 4" in answer


@pytest.mark.parametrize(("text", "count"), [
    ("Pre-train Llama-3.1-70B on 1T tokens on 512 rented H100 at $2/h. What does the run cost?", 512),
    ("we'll run Qwen2.5-72B on 8 used A100s for 50 users", 8),
    ("Fine-tune Llama 3 8B fully on 16 spare H800s", 16),
    ("pretrain a 7B on 1024 refurbished A100 for 100B tokens", 1024),
    ("用 64 张租来的 H100 预训练 Llama 3 8B 要多久", 64),
    ("我们有 16 张闲置的 A800，能跑 Qwen2.5-72B 吗", 16),
])
def test_a_word_between_the_count_and_the_card_keeps_the_count(text: str, count: int) -> None:
    assert count in _counts(text)


# --- the answer -------------------------------------------------------------------------------------------------

def test_the_pinned_layout_is_planned_shown_and_compared_with_the_planners_own() -> None:
    turn = _turn(ASKED)
    answer = turn.answer
    lead = answer.splitlines()[0]
    days = number(r"About ([\d.]+) days on 512× NVIDIA H100", lead)
    assert days == pytest.approx(_planned_days("llama-3.1-70b", 512, 1e12, tp=8, pp=4), abs=0.06)
    assert "TP 8, PP 4, DP 16" in answer  # the layout column: DP = 512 ÷ (8 × 4)
    assert "TP 4, PP 4, DP 32" not in answer  # the planner's own layout is no row
    assert "your layout TP 8, PP 4" in _assumed(answer)
    m = re.search(r"Your TP 8, PP 4 takes ([\d.]+) days; TP (\d+), PP (\d+) would take ([\d.]+) days\.", lead)
    assert m, lead
    mine, theirs = float(m.group(1)), float(m.group(4))
    best = _planned_days("llama-3.1-70b", 512, 1e12)
    assert mine == days and theirs == pytest.approx(best, abs=0.06) and mine > theirs * 1.05
    _grounded(turn, "")


def test_in_chinese_too() -> None:
    turn = _turn("用 512 张 H100 预训练 Llama-3.1-70B，1T tokens，张量并行 8、流水线并行 4，要多久？", "zh")
    head = _head(turn.answer)
    assert "按您给定的并行布局 TP 8、PP 4" in head
    assert re.search(r"按您的 TP 8、PP 4 需要 [\d.]+ 天；换成 TP \d+、PP \d+ 只需 [\d.]+ 天。", head), head
    assert "TP 8、PP 4、DP 16" in turn.answer
    assert not english_words(head), english_words(head)
    _grounded(turn, "")


def test_a_layout_as_fast_as_the_planners_own_is_not_compared() -> None:
    answer = _turn("Pretrain Llama-3.1-70B on 1T tokens on 512 H100 with TP=4, PP=4. How many days?").answer
    assert "your layout TP 4, PP 4" in _assumed(answer)
    assert "would take" not in answer.splitlines()[0]


def test_a_follow_up_changes_one_degree_and_keeps_the_other() -> None:
    c = Conversation(driver="deterministic", lang="en")
    c.respond(ASKED)
    answer = c.respond("and with TP 4?").answer
    assert "your layout TP 4, PP 4" in _assumed(answer)
    assert "TP 4, PP 4, DP 32" in answer


def test_a_dp_makes_the_count_asked_about() -> None:
    answer = _turn("Llama-3.1-70B on H100 with TP8×PP4×DP16, 1T tokens: how long?").answer
    assert "on 512× NVIDIA H100" in answer.splitlines()[0]
    assert "TP 8, PP 4, DP 16" in answer


def _refused(answer: str) -> str:
    first = answer.splitlines()[0]
    assert first.startswith(("**Your layout", "**您给定的并行布局")), first
    return first


@pytest.mark.parametrize(("text", "lang", "said", "why"), [
    # TP·PP = 24 does not divide 512
    ("Train Llama-3.1-70B on 1T tokens with TP8 PP3 on 512 H100. How long?", "en", "TP 8, PP 3",
     "512 GPUs do not factor as TP 8 × CP 1 × PP 3 × DP (accepted: a GPU count that is a multiple of 24"),
    ("用 512 张 H100 预训练 Llama-3.1-70B，1T tokens，TP8 PP3，要多久？", "zh", "TP 8、PP 3", "需为 24 的倍数"),
    # Llama 3.1 70B has 8 KV heads: TP 16 splits none of them
    ("Train Llama-3.1-70B on 1T tokens with TP16 PP4 on 512 H100. How long?", "en", "TP 16, PP 4",
     "8 KV heads of Llama-3.1-70B (grouped-query attention: TP ≤ KV heads) (accepted here: TP 1, 2, 4, 8)"),
    ("Llama-3.1-70B 在 512 张 H100 上预训练 1T token，张量并行 16、流水线并行 4，要多久", "zh", "TP 16、PP 4",
     "（这里可用：TP 1, 2, 4, 8）"),
    # 80 layers: at most 80 stages, and TP 4 × PP must divide 512
    ("Train Llama-3.1-70B on 1T tokens with TP 4, PP 128 on 512 H100. How long?", "en", "TP 4, PP 128",
     "cannot split the 80 layers of Llama-3.1-70B into 128 non-empty stages (accepted here: PP 1, 2, 4, 8, 16, 32, 64)"),
    # DeepSeek-V3's 256 routed experts
    ("DeepSeek-V3 pretraining on 2048 H800 with EP 7, 14.8T tokens, how long?", "en", "EP 7",
     "expert parallelism 7 must divide the 256 routed experts of DeepSeek-V3"),
    # TP 8 × PP 4 × DP 16 is 512 GPUs
    ("Train Llama-3.1-70B on 1T tokens with TP8×PP4×DP16 on 256 H100. How long?", "en", "TP 8, PP 4, DP 16",
     "TP 8 × PP 4 × DP 16 is 512 GPUs, not the 256 named (accepted: TP × PP × CP × DP = 256)"),
    # the 405B's states on 64 cards need more than TP 2 × PP 2 shards them
    ("Pretrain Llama-3.1-405B on 1T tokens with TP 2 PP 2 on 64 H100. How long?", "en", "TP 2, PP 2",
     "no ZeRO stage, recomputation or micro-batch the planner tries fits in the memory of 64 × NVIDIA H100"),
    ("用 64 张 H100 预训练 Llama-3.1-405B，1T token，TP 2，PP 2", "zh", "TP 2、PP 2", "放不下 64 张 NVIDIA H100"),
])
def test_a_layout_that_cannot_run_is_said_so_in_one_line_then_the_planners_own_answers(text, lang, said, why):
    turn = _turn(text, lang)
    first = _refused(turn.answer)
    assert said in first and why in first, first
    rest = turn.answer.split("\n", 1)[1]
    assert "Your layout" not in rest and "your layout" not in rest and "您给定的并行布局" not in rest
    assert "Your " + said not in rest and "按您的" not in rest  # no comparison with a layout that does not run
    if lang == "zh":
        assert not english_words(first), english_words(first)
    _grounded(turn, "")


def test_the_refused_layouts_answer_is_the_planners_own() -> None:
    answer = _turn("Train Llama-3.1-70B on 1T tokens with TP8 PP3 on 512 H100. How long?").answer
    lead = answer.splitlines()[2]
    days = number(r"About ([\d.]+) days on 512× NVIDIA H100", lead)
    assert days == pytest.approx(_planned_days("llama-3.1-70b", 512, 1e12), abs=0.06)


def test_a_rented_count_is_priced_at_that_count() -> None:
    answer = _turn("Pre-train Llama-3.1-70B on 1T tokens on 512 rented H100 at $2/h. What does the run cost?").answer
    first = answer.splitlines()[0]
    hours = number(r"this job's ([\d,]+) GPU-hours on 512× NVIDIA H100", first)
    cost = number(r"cost \$([\d,]+)", first)
    assert cost == pytest.approx(hours * 2, abs=2)
    assert "400×" not in first
