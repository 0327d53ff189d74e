""""How many users … at 30 ms per token / with TTFT under 200 ms / at 20 tokens/s each?": the most concurrent users
meeting the stated target opens the answer (the serving simulation's limit, never above what the memory holds),
in place of the memory's capacity alone."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation


@pytest.mark.parametrize(("text", "lang", "target"), [
    ("Serve Llama 3.1 8B on one L40S: how many users at 30 ms per token?", "en", "within 30 ms per token"),
    ("how many users can 2x A100 serve Llama 3.3 70B at 20 tokens/s each?", "en", "within 50 ms per token"),
    ("How many users can one H100 serve for Llama 3.1 8B with TTFT under 200 ms?", "en",
     "within 200 ms to the first token"),
    ("一张 H100 跑 Qwen2.5-32B，每个 token 40 毫秒以内能服务多少人？", "zh", "每 token 40 ms 以内"),
    ("Qwen2.5-7B 部署在一张 4090 上，首 token 500 毫秒以内最多几路并发？", "zh", "首 token 500 ms 以内"),
])
def test_the_most_users_meeting_the_stated_target_leads(text: str, lang: str, target: str) -> None:
    turn = Conversation(lang=lang).respond(text)
    first = turn.answer.split("\n")[0]
    assert target in first, first
    most = int(re.search(r"(?:at most|最多可同时服务) (\d+)", first).group(1))  # type: ignore[union-attr]
    limit_ms = float(re.search(r"(\d+) ms", target).group(1))  # type: ignore[union-attr]
    load = re.search(r"\*\*(?:At (\d+) concurrent users|(\d+) 路并发时)\*\*.*?(?:first token after|首 token 延迟) (\d+) ms"
                     r".*?(?:\(|每 token )(\d+) ms(?: per token)?", turn.answer)
    assert load, turn.answer[:600]
    at = int(load.group(1) or load.group(2))
    if at == most:  # the simulated load is the limit itself: its median figures meet the target
        measured = float(load.group(3) if "first token" in target or "首 token" in target else load.group(4))
        assert measured <= limit_ms, (measured, limit_ms)
    assert most <= at  # never more users than the memory holds (the simulated load)


def test_without_a_target_the_default_target_bounds_the_users_and_the_memory_is_said() -> None:
    """No target stated (Dec 6): the users at the default per-token target, simulated, as every other load the
    answer shows; where latency binds before the memory, the memory's most at the context asked follows, slower
    (it had been the answer alone: 214 users of Qwen2.5-72B on 8 H20 at 14 tokens/s each)."""
    first = Conversation(lang="en").respond("How many concurrent users can one H100 handle for Qwen2.5-32B AWQ?"
                                            ).answer.split("\n")[0]
    assert first.startswith("**1× NVIDIA H100 SXM5 80GB serves at most") and "the default interactivity target" in first
    zh = Conversation(lang="zh").respond("Qwen2.5-72B 在 8 张 H20 上能撑多少人？").answer.split("\n")[0]
    m = re.search(r"最多可同时服务 (\d+) 路.*显存最多能同时容纳 (\d+) 路", zh)
    assert m and int(m.group(1)) < int(m.group(2)), zh