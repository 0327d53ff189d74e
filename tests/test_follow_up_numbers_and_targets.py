"""Follow-ups found by holding conversations. "what about 512?" after "Pretrain a 13B model on 1T tokens with 256
A100s" had answered "I could not find a workload"; a number alone is read in the unit the previous answer was sized
in (the card count of a training run; the users of a serving answer when it is more than a server's cards). "那要几张卡
才能保证每路 20 token/s？" had read "才" as a measured figure and kept the earlier four cards; the speed is the target
the count is for."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader import targets
from advisor.conversation.session import Conversation


def _firsts(turns: list[str], lang: str = "en") -> list[str]:
    c = Conversation(driver="deterministic", lang=lang)
    return [c.respond(q).answer.splitlines()[0] for q in turns]


def test_bare_number_is_the_training_card_count() -> None:
    first = _firsts(["Pretrain a 13B model on 1T tokens with 256 A100s", "what about 512?", "and 1024?"])
    counts = [int(re.search(r"(\d+)× NVIDIA A100", f).group(1)) for f in first]  # type: ignore[union-attr]
    assert counts == [256, 512, 1024], first
    days = [float(re.search(r"([\d.]+) days", f).group(1)) for f in first]  # type: ignore[union-attr]
    assert days[0] > days[1] > days[2]  # more GPUs never lengthen the run


def test_bare_number_zh() -> None:
    first = _firsts(["用 64 张 H100 全参微调 Llama-3.1-70B，10 亿 token", "128 呢？"], "zh")
    assert "128× NVIDIA H100" in first[1], first


def test_bare_number_after_serving_is_users_when_large() -> None:
    first = _firsts(["Serve Llama-3.1-70B to 50 users on 4x L40S", "what about 100?"])
    assert "4× NVIDIA L40S" in first[1] and "could not find" not in first[1], first


@pytest.mark.parametrize("text", ["what about 2?", "and 4?"])
def test_small_bare_number_after_serving_is_not_guessed(text: str) -> None:
    """2 could be users or cards after a serving answer: it is not read as either."""
    from advisor.conversation.dialog.machine import DialogState
    from advisor.conversation.reader.extract import extract
    from advisor.conversation.reader.turn import bare_count
    from knowledge.catalog import load_catalog

    cat = load_catalog()
    state = DialogState()
    state.answered = 1
    state.slots = extract("Serve Llama-3.1-70B to 50 users on 4x L40S", cat, lang="en")
    slots = extract(text, cat, lang="en")
    bare_count(text, slots, state)
    assert slots.gpu_count is None and slots.concurrency is None


@pytest.mark.parametrize(("text", "role"), [
    ("那要几张卡才能保证每路 20 token/s？", "speed"),
    ("要几张卡才能每路 20 token/s", "speed"),
])
def test_condition_with_cai_is_a_target(text: str, role: str) -> None:
    assert role in targets._roles(text.lower())


@pytest.mark.parametrize("text", ["现在才 10 token/s，怎么提速", "只有 15 token/s，正常吗"])
def test_measured_speed_is_no_target(text: str) -> None:
    assert targets._roles(text.lower()) == {}


def test_count_for_a_speed_target_follow_up() -> None:
    first = _firsts(["用 4 张 H20 部署 Qwen2.5-72B，30 人同时用", "并发加到 80 呢？", "那要几张卡才能保证每路 20 token/s？"], "zh")
    m = re.match(r"需要 (\d+)× NVIDIA H20", first[2])
    assert m and int(m.group(1)) > 4, first[2]
    per = float(re.search(r"约每路 ([\d.]+) tokens/s", first[2]).group(1))  # type: ignore[union-attr]
    assert per >= 20, first[2]


def test_bare_number_after_gpus_without_a_card() -> None:
    """"… with 256 GPUs" (no card: the search's leading card) then "what about 512?": 512 of that card."""
    first = _firsts(["Pretrain a 13B model on 1T tokens with 256 GPUs", "what about 512?"])
    card = re.search(r"256× (.+?) fits", first[0]).group(1)  # type: ignore[union-attr]
    assert f"512× {card}" in first[1], first


def test_bare_number_after_generic_fine_tuning_zh() -> None:
    """"用 4 张 A100 微调 …" (the method not said: LoRA by default) then "那 8 呢？": eight of them."""
    first = _firsts(["用 4 张 A100 微调 Qwen2.5-14B", "那 8 呢？"], "zh")
    assert "8× NVIDIA A100" in first[1], first
