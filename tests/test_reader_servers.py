"""Counts said in servers ("2 nodes of 8x H100", "两台 8 卡 H800", "2 DGX B200") are GPU counts of nodes × GPUs per
node; a server without a per-server count holds the card's usual number (8 on HGX/DGX baseboards and data-centre
PCIe servers, one for a whole machine such as a DGX Spark), and a consumer card's "machine" keeps the count said.
Quotes for several servers say how many servers, and the price covers every one of them."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.session import Conversation
from knowledge.catalog import load_catalog


def _cards(text: str) -> list[tuple[str, int | None]]:
    s = extract(text, load_catalog())
    return [(m.gpu, m.count) for m in ([s.existing] if s.existing else []) + list(s.candidates)]


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("full fine-tune llama 3.1 70B on 2 nodes of 8x H100", "h100-sxm", 16),
    ("we have 4 servers with 8 A100 each, how long to pretrain a 7B on 1T tokens?", "a100-80g-sxm", 32),
    ("serve llama 3.3 70b on four 8-GPU H100 servers", "h100-sxm", 32),
    ("4 H100 nodes: how long to fine-tune Llama 3.1 70B on 1B tokens?", "h100-sxm", 32),
    ("Give me a quote for 4 servers of B200", "b200", 32),
    ("How much do 2 DGX B200 cost?", "b200", 16),
    ("3 nodes x 8 H200, can we train a 405B?", "h200-sxm", 24),
    ("an 8-GPU H200 box for Qwen3-235B?", "h200-sxm", 8),
    ("we have two 8x H100 servers, serve Llama 3.1 70B to 200 users", "h100-sxm", 16),  # not 8 servers of 8
    ("two 8xH100 nodes for Qwen2.5-72B", "h100-sxm", 16),
    ("three 4x A100 boxes, can they train a 13B?", "a100-80g-sxm", 12),
    ("用 2 台 8 卡 H800 训练 70B 要多久，数据 1T tokens", "h800-sxm", 16),
    ("报价：两台 8 卡 H200 服务器", "h200-sxm", 16),
    ("两台 H100 服务器，每台 8 卡，能跑 DeepSeek-V3 吗", "h100-sxm", 16),
    ("2机16卡 A800 微调 Qwen2.5-72B 全参要多久", "a800-80g-sxm", 16),
    ("H100 服务器多少钱", "h100-sxm", 8),
    ("2 台 DGX Spark 能跑 405B 吗", "dgx-spark", 2),
])
def test_server_counts_are_gpu_counts(text: str, gpu: str, count: int) -> None:
    assert (gpu, count) in _cards(text), _cards(text)


@pytest.mark.parametrize(("text", "gpu", "count"), [
    ("what does an 8x H200 box cost?", "h200-sxm", 8),  # one box of eight, not eight boxes
    ("我有一台 4090 机器，能跑 Qwen2.5-14B 吗", "rtx-4090", 1),  # a PC with its card, not a server of eight
    ("serve Llama 3.1 8B on 2x H100", "h100-sxm", 2),
    ("two 8x H100 for Llama 3.1 70B?", "h100-sxm", 8),  # no server word: the eight cards said
])
def test_card_counts_are_not_server_counts(text: str, gpu: str, count: int | None) -> None:
    assert (gpu, count) in _cards(text), _cards(text)


@pytest.mark.parametrize(("text", "lang", "servers", "cards"), [
    ("Quote me 3 servers of 8x H200", "en", "3 servers", "24×"),
    ("what would two DGX B200 cost us?", "en", "2 servers", "16×"),
    ("三台 8 卡 H20 服务器报价", "zh", "3 台服务器", "24 卡"),
])
def test_a_quote_for_several_servers_prices_all_of_them(text: str, lang: str, servers: str, cards: str) -> None:
    first = Conversation(lang=lang).respond(text).answer.split("\n")[0]
    assert first.startswith(servers) and cards in first, first
    money = [float(x.replace(",", "")) for x in re.findall(r"[$¥]([\d,]+)", first)]
    total, gpus, per, rest = money[0], money[1], money[2], money[3]
    n = int(re.search(r"(\d+)\s*(?:×| 卡)", first).group(1))  # type: ignore[union-attr]
    assert gpus == pytest.approx(n * per, abs=n)  # the cards: every card at the dated unit price
    assert total == pytest.approx(gpus + rest, abs=2)  # plus the rest of every server


def test_a_training_question_on_two_nodes_is_sized_on_sixteen_gpus() -> None:
    first = Conversation(lang="en").respond("How long to fine-tune Llama-3.1-8B fully on 2 nodes of 8 H100 for 1B tokens?"
                                             ).answer.split("\n")[0]
    assert "16× NVIDIA H100" in first, first


def test_a_configuration_an_engineering_rule_forbids_is_not_a_plain_yes() -> None:
    """70B fully fine-tuned on 16 H100s holds only with optimizer offload, which needs more host RAM than the
    servers have: the lead says it is ruled out, not "Yes … fits"."""
    first = Conversation(lang="en").respond("full fine-tune llama 3.1 70B on 2 nodes of 8x H100").answer.split("\n")[0]
    assert not first.startswith("**Yes") and "ruled out" in first.split("**")[1], first



@pytest.mark.parametrize("text", ["需要几台 H20 服务器部署 DeepSeek-R1，100 并发", "how many H100 servers for Llama 3.1 405B?"])
def test_a_server_count_asked_is_not_one_server(text: str) -> None:
    assert all(count is None for _, count in _cards(text)), _cards(text)
