""""What's the longest context on my card?" opens with the longest context that fits (the limits the answer already
computes for one named configuration), in both languages; it used to open with a fit verdict at the default context.

Hand check (Llama-3.1-8B on one RTX 4090, vLLM): K and V of 8 KV heads × 128 dims × 32 layers in BF16 are
131,072 bytes a token; the weights take 8.03e9 × 2 bytes ≈ 15.0 GiB of the card's 21.6 GiB usable, so no more than
(21.6 − 15.0) GiB / 131,072 B ≈ 54k tokens fit, less the activations and runtime (the answer must stay below it)."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import Conversation

QUESTIONS = [
    ("en", "What's the max context for Llama 3.1 8B on a single RTX 4090?"),
    ("en", "longest context I can run Llama-3.1-8B at on one RTX 4090?"),
    ("en", "How long a context can Llama 3.1 8B handle on an RTX 4090?"),
    ("zh", "一张 4090 跑 Llama 3.1 8B，上下文最长能到多少？"),
    ("zh", "Llama 3.1 8B 在一张 RTX 4090 上最长能开多少上下文？"),
]


@pytest.mark.parametrize(("lang", "text"), QUESTIONS)
def test_the_longest_context_comes_first(lang: str, text: str) -> None:
    first = Conversation().respond(text).answer.splitlines()[0]
    m = re.search(r"longest context that fits on 1× GeForce RTX 4090 is (\d[\d,]*) tokens|"
                  r"1× GeForce RTX 4090 上最长能放下 (\d[\d,]*) tokens", first)
    assert m, first
    n = int((m.group(1) or m.group(2)).replace(",", ""))
    assert 16_384 <= n <= (21.6 - 15.0) * 2**30 / 131_072, first  # more than the default, less than the bound
    assert n % 256 == 0


def test_a_fit_question_at_a_stated_context_is_still_a_fit_answer() -> None:
    first = Conversation().respond("Llama 3.1 8B on a 4090: will 8k context fit?").answer.splitlines()[0]
    assert first.startswith("**Yes"), first
