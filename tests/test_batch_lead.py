""""What batch size can I use?" opens with the largest micro-batch per GPU (training) or the most concurrent
sequences (serving) that fit on the named configuration, and that batch is one the memory estimate accepts while one
more sequence is not (checked with `estimate --batch` on the same layout)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation
from advisor.estimator.memory import estimate_memory
from advisor.workload import Workload
from knowledge.catalog import load_catalog


@pytest.mark.parametrize(("text", "lang"), [
    ("What batch size can I use to fine-tune Llama 3 8B on an A100 80GB?", "en"),
    ("How large a batch fits for LoRA of Llama-3-8B on one A100 80GB?", "en"),
    ("微调 Llama 3 8B，A100 80GB SXM 能开多大的 batch", "zh"),
    ("A100 80GB 上 LoRA 微调 Llama-3-8B，batch size 最大能开多少", "zh"),
])
def test_the_largest_micro_batch_leads(text: str, lang: str) -> None:
    first = Conversation(lang=lang).respond(text).answer.split("\n")[0]
    m = re.search(r"(?:is|为) (\d+) (?:sequences|条)", first)
    assert m and ("micro-batch" in first or "微批" in first), first
    n = int(m.group(1))
    gpu = load_catalog().gpu("a100-80g-sxm" if "SXM" in first else "a100-80g-pcie")
    model = load_catalog().model("llama-3-8b")

    def fits(batch: int) -> bool:
        w = Workload(model="llama-3-8b", task="lora", context=4096, batch=batch, engine="transformers")
        return bool(estimate_memory(model, w).fits(gpu.memory))

    assert fits(n) and not fits(n + 1), n


def test_a_serving_batch_is_the_concurrency_the_kv_cache_holds() -> None:
    first = Conversation(lang="en").respond(
        "what's the max batch size for serving Qwen2.5-7B on an L4 at 8k context?").answer.split("\n")[0]
    assert re.search(r"holds at most \d+ concurrent sequences of 8192 tokens", first), first
