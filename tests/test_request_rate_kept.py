"""A request rate said with the noun first ("请求速率每秒 1 个", "request rate of 2 per second", "请求量每分钟 120 次")
had not been read: "4 张 L40S 跑 Llama-3.1-70B AWQ，请求速率每秒 1 个 … 能撑住吗？" was sized for one user. And a
configuration asked whether it keeps up with a rate was answered only on whether it fits; the first sentence now says
whether its output keeps up with the rate (rate × output tokens a request, Little's law for the load it makes)."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from knowledge.catalog import load_catalog
from tests.answer_text import answer, number

CAT = load_catalog()


@pytest.mark.parametrize(("text", "lang", "qps"), [
    ("4 张 L40S 跑 Llama-3.1-70B AWQ，请求速率每秒 1 个，输入 2000 输出 500，能撑住吗？", "zh", 1.0),
    ("请求量每分钟 120 次，Qwen2.5-7B 单卡 4090 够吗？", "zh", 2.0),
    ("调用频率每秒 3 次，输入 500 token，用 A10 跑 Qwen2.5-7B 行不行？", "zh", 3.0),
    ("访问量每小时 3600 次，Qwen2.5-7B 用 A10 够吗", "zh", 1.0),
    ("Request rate of 2 per second, 1k prompts, 200-token answers, Llama-3.1-8B on an L40S: will it hold?", "en", 2.0),
    ("With a request rate around 300 per minute, how many A100s for Mistral-7B?", "en", 5.0),
    ("arrival rate 4/s for Llama-3.1-8B on one H100", "en", 4.0),
    ("每秒 3 个请求，单张 L4 跑 Llama-3.1-8B 扛得住吗？", "zh", 3.0),  # the number first, as before
])
def test_rate_with_the_noun_first(text: str, lang: str, qps: float) -> None:
    assert extract(text, CAT, lang=lang).qps == pytest.approx(qps)


@pytest.mark.parametrize(("text", "lang"), [
    ("每秒输出 1000 token，Qwen2.5-7B 用几张 4090？", "zh"),  # a throughput, not requests
    ("请求速率每秒 50 token 够用吗，Qwen2.5-7B 单卡 4090", "zh"),
    ("What learning rate for LoRA on Llama-3.1-8B?", "en"),
    ("error rate of 2 per second on our H100 server", "en"),
])
def test_not_a_request_rate(text: str, lang: str) -> None:
    assert extract(text, CAT, lang=lang).qps is None


def _need_and_got(first: str) -> tuple[float, float]:
    got = number(r"([\d,]+) tokens/s of output", first)
    need = number(r"against the ([\d,]+) tokens/s", first)
    return got, need


def test_keeps_up_said_first() -> None:
    first = answer("Request rate of 2 per second, 1k prompts, 200-token answers, Llama-3.1-8B on an L40S: will it "
                   "hold?").splitlines()[0]
    assert first.startswith("**Yes: 1× NVIDIA L40S fits**, keeping up with 2 requests/s"), first
    got, need = _need_and_got(first)
    assert need == 400  # 2 requests/s × 200 tokens out
    assert got >= need


def test_does_not_keep_up_said_first_zh() -> None:
    first = answer("4 张 L40S 跑 Llama-3.1-70B AWQ，请求速率每秒 1 个，输入 2000 输出 500，能撑住吗？", "zh").splitlines()[0]
    assert "跟不上每秒 1 个请求" in first, first
    got = number(r"输出合计 ([\d,]+) tokens/s", first)
    need = number(r"需要 ([\d,]+) tokens/s", first.split("跟不上")[1])
    assert need == 500 and got < need
    assert "吞吐量不达标" not in first  # said once, in the person's terms


def test_speed_question_with_a_rate_zh() -> None:
    first = answer("单卡 L20 部署 GLM-4-9B，QPS 2，每次输入 1000 token 输出 200 token，延迟多少？", "zh").splitlines()[0]
    assert first.startswith("**1× NVIDIA L20 上约每路"), first  # the speed asked, first
    assert "每秒 2 个请求" in first and "需要 400 tokens/s" in first, first


def test_more_cards_keep_up_with_more() -> None:
    """The verdict follows the simulation: a rate one H100 keeps up with, eight H100s keep up with at ten times it."""
    one = answer("Can one H100 handle 2 QPS of Llama-3.1-8B?").splitlines()[0]
    eight = answer("Can 8x H100 handle 20 QPS of Llama-3.1-70B?").splitlines()[0]
    for first in (one, eight):
        assert "keeping up with" in first, first
        got, need = _need_and_got(first)
        assert got >= need


def test_no_rate_no_rate_sentence() -> None:
    first = answer("Can one L40S serve Llama-3.1-8B to 16 users?").splitlines()[0]
    assert "requests/s" not in first and "keeping up" not in first, first


@pytest.mark.parametrize(("text", "lang", "kept"), [
    ("can 1 h100 do 100 rps for llama 8b", "en", False),
    ("can 1 h100 do 20 rps for llama 8b", "en", True),
    ("一张 H100 跑 Llama-3.1-8B，每秒 100 个请求扛得住吗？", "zh", False),
])
def test_rate_said_of_cards_holding_only_chat_turns(text: str, lang: str, kept: bool) -> None:
    """The users a rate makes (Little's law) hold as chat turns, not as whole contexts: the first sentence says
    whether the output at that load keeps up with the rate, not that the cards fall short of whole contexts."""
    first = answer(text, lang).splitlines()[0]
    if lang == "en":
        assert first.startswith("**Yes," if kept else "**No,"), first
        got, need = _need_and_got(first)
    else:
        assert ("跟得上" in first) if kept else ("跟不上" in first), first
        got, need = number(r"输出合计 ([\d,]+) tokens/s", first), number(r"需要 ([\d,]+) tokens/s", first)
    assert (got >= need) == kept
    rate = number(r"(?:do|每秒) (\d+)", text)
    assert need == rate * 195  # the rate × a chat turn's 195 output tokens
