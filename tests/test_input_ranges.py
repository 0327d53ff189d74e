"""Numbers in chat and config files: read whole, range-checked, refused with a reply that names the limit."""

from __future__ import annotations

import json
import sys

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.errors import InputError
from knowledge.hf_config import MAX_CONFIG_BYTES, load_hf_config, parse_config_json


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("serve llama-3-8b to 1e3 concurrent users", "concurrency", 1000),  # was 3
    ("pretrain llama-3-8b on 2e9 tokens", "train_tokens", 2e9),
    ("qwen 7b fp8e4m3 with 32k context", "context", 32768),  # an FP8 format name is not 8·10^4
])
def test_scientific_notation_is_read_whole(text: str, slot: str, value: float) -> None:
    slots = extract(text)
    assert getattr(slots, slot) == value and slots.out_of_range == []


@pytest.mark.parametrize(("text", "slot", "value", "hi"), [
    ("serve qwen2.5-7b to 200000 concurrent users", "concurrency", 200_000, 100_000),  # was silently 1
    ("qwen2.5-7b 200000 并发", "concurrency", 200_000, 100_000),
    ("qwen2.5-7b with 20000000 tokens context", "context", 2e7, 10_485_760),  # was silently 4096
    ("qwen2.5-7b 上下文 20000000", "context", 2e7, 10_485_760),
    ("pretrain llama-3-8b on 1e308 tokens", "train_tokens", 1e308, 1e15),  # was read as 308
    ("qwen2.5-7b context 1e400", "context", sys.float_info.max, 10_485_760),
])
def test_out_of_range_numbers_are_reported_not_replaced(text: str, slot: str, value: float, hi: float) -> None:
    slots = extract(text)
    assert [(o.slot, o.value, o.hi) for o in slots.out_of_range] == [(slot, value, hi)]
    assert getattr(slots, slot) is None


@pytest.mark.parametrize(("pending", "text"), [("context", "1e400"), ("concurrency", "200000"), ("context", "99999k")])
def test_bare_answers_are_range_checked(pending: str, text: str) -> None:
    slots = extract(text, pending=pending)
    assert getattr(slots, pending) is None and slots.out_of_range[0].slot == pending


@pytest.mark.parametrize(("text", "needles"), [
    ("serve qwen2.5-7b to 200000 concurrent users", ["200,000", "number of concurrent users", "1 to 100,000"]),
    ("qwen2.5-7b 200000 并发", ["200,000", "并发数", "1 到 100,000"]),
    ("qwen2.5-7b with 20000000 tokens context", ["20,000,000 tokens", "context length", "16 to 10,485,760"]),
    ("用 qwen2.5-7b，上下文 20000000", ["20,000,000", "上下文长度", "超过了上限"]),
])
def test_the_reply_says_what_was_read_and_the_limit(text: str, needles: list[str]) -> None:
    turn = Conversation(driver="deterministic").respond(text)
    for needle in needles:
        assert needle in turn.answer
    assert turn.options == []


def _llama(**over: object) -> str:
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 8192}
    return json.dumps({**base, **over})


@pytest.mark.parametrize(("text", "needle"), [
    (_llama().replace('"hidden_size": 4096', '"hidden_size": Infinity'), "Infinity"),
    (_llama().replace('"num_hidden_layers": 32', '"num_hidden_layers": NaN'), "NaN"),
    (_llama().replace('4096', '9' * 400, 1), "400 digits"),
    (_llama().replace('4096', '1e400', 1), "out of range"),
    ("[" * 100_000 + "]" * 100_000, "more than 32 levels"),
])
def test_config_json_numbers_and_nesting_are_bounded(text: str, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        parse_config_json(text)


def test_config_file_reads_are_bounded(tmp_path) -> None:
    with pytest.raises(InputError, match="larger than 4 MiB"):
        load_hf_config("/dev/zero")  # read forever before
    big = tmp_path / "big.json"
    big.write_text(" " * (MAX_CONFIG_BYTES + 1) + "{}")
    with pytest.raises(InputError, match="larger than"):
        load_hf_config(big)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"model_type": "llama\xe9"}')
    with pytest.raises(InputError, match="not UTF-8"):
        load_hf_config(latin)
    good = tmp_path / "config.json"
    good.write_text(_llama())
    assert load_hf_config(tmp_path).num_layers == 32


def test_config_path_too_long_is_one_error() -> None:
    with pytest.raises(InputError, match="cannot read config file"):
        load_hf_config("9" * 400)  # OSError: file name too long, from is_dir(), found by the fuzz test


def test_llama4_scouts_full_10m_context_is_sized_not_refused() -> None:
    """"10M context" for Llama 4 Scout is its whole window, 10 × 2²⁰ = 10,485,760 tokens (the model's config,
    knowledge/data/models): within the accepted range, so it is sized, not refused as out of range."""
    from advisor.conversation.session import Conversation
    from knowledge.catalog import load_catalog

    assert load_catalog().model("llama-4-scout").max_context == 10 * 2**20
    turn = Conversation(lang="en").respond("Llama 4 Scout with 10M context on 8 H100s?")
    assert "more than I can size" not in turn.answer and "GiB" in turn.answer.split("\n")[0], turn.answer[:300]
