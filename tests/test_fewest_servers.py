"""The smallest whole-server count that holds a job, not the next doubling: servers are tried 1, 2, 4, 8 … and the
counts in between are bisected once a doubling fits (advisor.recommend.search.first_fit). A person asking "what is
the minimum" gets the minimum; one server fewer does not fit."""

from __future__ import annotations

import pytest

from advisor.conversation.session import Conversation
from advisor.recommend.recommender import evaluate_configs, recommend
from advisor.workload import Constraints, Workload

JOBS = [  # (workload, card): each needs more than two servers, fewer than four
    (Workload(model="qwen2.5-72b", task="full", context=4096), "h100-sxm"),
    (Workload(model="deepseek-v3", weights="bf16", context=4096), "h100-sxm"),
]


@pytest.mark.parametrize(("workload", "gpu"), JOBS, ids=["72b-full-ft-h100", "dsv3-bf16-h100"])
def test_the_count_is_the_fewest_servers_that_fit(workload: Workload, gpu: str) -> None:
    rec = recommend(workload, Constraints(candidates=(gpu,)))
    lead = rec.options[0]
    assert lead.gpu == gpu and lead.fits and lead.nodes == 3 and lead.count == 24
    [fewer] = evaluate_configs(workload, [(gpu, lead.count - 8)], Constraints())
    assert not fewer.fits or fewer.layout.zero_offload != "none"  # two servers hold it only by offloading, or not


@pytest.mark.parametrize(("lang", "question"), [
    ("en", "What's the minimum number of H100s to full fine-tune Qwen2.5-72B?"),
    ("en", "fewest H100 GPUs that can do a full-parameter finetune of qwen2.5 72b"),
    ("en", "Least number of H100 cards we'd need to fully fine-tune Qwen2.5-72B (all weights, not LoRA)?"),
    ("zh", "Qwen2.5-72B 全参数微调，最少要几张 H100？海外机房"),
])
def test_minimum_count_question_is_answered_with_the_minimum(lang: str, question: str) -> None:
    answer = Conversation(driver="deterministic", lang=lang).respond(question).answer
    head = answer.split("\n", 1)[0]
    assert "24×" in head and "32×" not in head, head

