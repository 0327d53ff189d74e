"""The number grammar (advisor.conversation.reader.quantity): a table of typed forms with the value and dimension each
must read as, worked out by hand. The misreads the issue reported are among them (marked)."""

from __future__ import annotations

import pytest

from advisor.conversation.reader.extract import extract
from advisor.conversation.reader.quantity import cn_numeral, en_number, quantities, rewrite

GIB, GB = 2**30, 10**9

# (text, value, dimension, currency, hi)
FORMS: list[tuple[str, float, str, str | None, float | None]] = [
    ("一万五个用户", 15_000, "users", None, None),  # misread: 5 users and a budget of ¥10,000
    ("上下文三万二", 32_000, "tokens", None, None),  # misread: 30,000
    ("两千五个用户", 2_500, "users", None, None),  # misread: cn_int gave 2005
    ("fifty grand", 50_000, "money", "USD", None),  # dropped
    ("thirty-two thousand tokens", 32_000, "tokens", None, None),  # dropped
    ("a team of 50 engineers", 50, "users", None, None),  # dropped
    ("prompts up to 8,000 tokens", 8_000, "tokens", None, None),
    ("三百五十个用户", 350, "users", None, None),
    ("三百五个人", 350, "users", None, None),
    ("一万零五个 tokens", 10_005, "tokens", None, None),
    ("二十五个人", 25, "users", None, None),
    ("十万个用户", 100_000, "users", None, None),
    ("一亿五千万 tokens", 150_000_000, "tokens", None, None),
    ("两万元", 20_000, "money", "CNY", None),
    ("预算 20万", 200_000, "money", "CNY", None),
    ("预算两万五", 25_000, "money", "CNY", None),
    ("20万元", 200_000, "money", "CNY", None),
    ("1.5万元", 15_000, "money", "CNY", None),
    ("¥200k", 200_000, "money", "CNY", None),
    ("￥3,000", 3_000, "money", "CNY", None),
    ("$1.5M", 1_500_000, "money", "USD", None),
    ("$50k", 50_000, "money", "USD", None),
    ("50k USD", 50_000, "money", "USD", None),
    ("50 thousand dollars", 50_000, "money", "USD", None),
    ("30 grand", 30_000, "money", "USD", None),
    ("2 million rmb", 2_000_000, "money", "CNY", None),
    ("100 bucks", 100, "money", "USD", None),
    ("5000美元", 5_000, "money", "USD", None),
    ("3000块钱", 3_000, "money", "CNY", None),
    ("budget of 40k", 40_000, "money", "USD", None),
    ("20到30万元", 200_000, "money", "CNY", 300_000),
    ("50-100 users", 50, "users", None, 100),
    ("10~20张卡", 10, "gpus", None, 20),
    ("8k context", 8_192, "tokens", None, None),
    ("32k 上下文", 32_768, "tokens", None, None),
    ("上下文 8千", 8_192, "tokens", None, None),
    ("context of 128k", 131_072, "tokens", None, None),
    ("2B tokens", 2e9, "tokens", None, None),
    ("1.5亿 tokens", 1.5e8, "tokens", None, None),
    ("100 billion tokens", 1e11, "tokens", None, None),
    ("500M tokens", 5e8, "tokens", None, None),
    ("1T tokens", 1e12, "tokens", None, None),
    ("70B", 7e10, "params", None, None),
    ("700亿参数", 7e10, "params", None, None),
    ("7 billion parameters", 7e9, "params", None, None),
    ("1.5B", 1.5e9, "params", None, None),
    ("80GB", 80 * GB, "bytes", None, None),
    ("24 GiB", 24 * GIB, "bytes", None, None),
    ("1.5 TB", 1.5e12, "bytes", None, None),
    ("96G 显存", 96 * GB, "bytes", None, None),
    ("2 weeks", 14, "days", None, None),
    ("三天", 3, "days", None, None),
    ("两周", 14, "days", None, None),
    ("48 hours", 2, "days", None, None),
    ("3个月", 90, "days", None, None),
    ("35% MFU", 35, "percent", None, None),
    ("40 percent", 40, "percent", None, None),
    ("四张卡", 4, "gpus", None, None),
    ("8 GPUs", 8, "gpus", None, None),
    ("两块", 2, "gpus", None, None),
    ("sixteen cards", 16, "gpus", None, None),
    ("-5 张", -5, "gpus", None, None),
    ("-3 GPUs", -3, "gpus", None, None),
    ("1,200 users", 1_200, "users", None, None),
    ("one hundred and twenty users", 120, "users", None, None),
    ("a thousand users", 1_000, "users", None, None),
    ("twenty five concurrent users", 25, "users", None, None),
    ("50 并发", 50, "users", None, None),
    ("200 people", 200, "users", None, None),
    ("30 名员工", 30, "users", None, None),
]

# card names that are not amounts: nothing is read from them
CARDS = ["华为昇腾 910B", "昇腾910B", "Ascend 910C", "H20", "B300", "RTX 5090", "RTX PRO 6000", "MI325X", "GB200",
         "4090", "A100 and H100"]


@pytest.mark.parametrize(("text", "value", "dimension", "currency", "hi"), FORMS, ids=[f[0] for f in FORMS])
def test_form_reads_as_its_quantity(text: str, value: float, dimension: str, currency: str | None,
                                    hi: float | None) -> None:
    found = quantities(text)
    assert len(found) == 1, found
    q = found[0]
    assert (q.dimension, q.currency) == (dimension, currency)
    assert q.value == pytest.approx(value)
    assert (q.hi is None and hi is None) or q.hi == pytest.approx(hi)


@pytest.mark.parametrize("text", CARDS)
def test_card_names_are_not_amounts(text: str) -> None:
    assert quantities(text) == []


def test_table_size() -> None:
    assert len(FORMS) + len(CARDS) >= 60


@pytest.mark.parametrize(("text", "value"), [
    ("三万二", 32_000), ("两千五", 2_500), ("一万五", 15_000), ("一万五千", 15_000), ("三百五", 350), ("一万零五", 10_005),
    ("二十", 20), ("十二", 12), ("两", 2), ("一千五百万", 15_000_000), ("一亿五千万", 150_000_000), ("七百亿", 7e10),
    ("十万", 100_000), ("三千零二十", 3_020),
])
def test_chinese_numerals(text: str, value: int) -> None:
    assert cn_numeral(text) == value


@pytest.mark.parametrize(("text", "value"), [
    ("fifty", 50), ("thirty-two thousand", 32_000), ("one hundred and twenty", 120), ("a hundred", 100),
    ("two million", 2_000_000), ("ninety nine", 99),
])
def test_english_number_words(text: str, value: int) -> None:
    assert en_number(text) == value


@pytest.mark.parametrize(("text", "same"), [("千万别买 A100", True), ("万一不行呢", True), ("one H100", True),
                                            ("ZeRO-3 offload", True), ("zero 2", True),
                                            ("三万二", False)])
def test_rewrite_leaves_words_that_are_not_amounts(text: str, same: bool) -> None:
    assert (rewrite(text) == text) is same


@pytest.mark.parametrize(("text", "slot", "value"), [
    ("一万五个用户用 qwen2.5-7b 需要几张卡", "concurrency", 15_000),
    ("qwen2.5-7b 上下文三万二 够吗", "context", 32_000),
    ("budget is fifty grand for llama-3.1-70b serving", "budget", 50_000),
    ("thirty-two thousand tokens of context for llama-3.1-8b", "context", 32_000),
    # a team is a headcount, not 50 at once (dialog.load.PEAK_SHARE turns it into a concurrency)
    ("serve llama-3.1-70b to a team of 50 engineers", "headcount", 50),
])
def test_the_extractor_reads_the_misread_forms(text: str, slot: str, value: float) -> None:
    assert getattr(extract(text), slot) == value
