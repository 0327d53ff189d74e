"""What a demanding reader of the web chat noticed in the answers to new kinds of questions (Dec 2026 screenshots at
desktop and phone width, both languages), each checked on the rendered markdown: no English label in the Chinese
server quote (price kind, dated inputs, the catalog's note said to be quoted), a bold Chinese label closed before its
full-width colon (no "： " gap), layout cells listed with "、" and engines as their projects spell them, a batch-size
question answered first when not even one sequence fits, and a guide's words quoted once."""

from __future__ import annotations

import re

import pytest

from advisor.conversation.session import new_conversation
from tests.chinese_view import english_words


def _answer(text: str) -> str:
    return new_conversation(lang=None).respond(text).answer


@pytest.fixture(scope="module")
def zh_quote() -> str:
    return _answer("报价：两台 8 卡 H200 服务器")


def test_chinese_server_quote_names_the_price_kind_and_inputs_in_chinese(zh_quote: str) -> None:
    lead = zh_quote.split("\n")[0]
    assert "市场价" in lead and "street" not in zh_quote, lead
    dated = next(line for line in zh_quote.splitlines() if line.startswith("带日期的输入"))
    assert "汇率" in dated and "电价" in dated and "云租用价" in dated, dated
    assert english_words(dated, allowed=["packet.ai", "RunPod"]) == set(), dated  # "exchange rate", "cloud on demand"
    assert re.search(r"（整机其余部分）[\d,]+ 元", dated), dated  # no ASCII gap after the full-width parenthesis
    # 190,000 CNY per card: the catalog's figure with its thousands separator, not "190000"
    assert "单卡市场价 190,000 元" in dated, dated
    # the catalog's English note is said to be quoted as written, not passed off as the answer's own words
    note = next(line for line in zh_quote.splitlines() if re.search(r"[A-Za-z]{4,} [a-z]{3,}", line)
                and "带日期的输入" not in line)
    assert note.startswith("目录备注（英文原文）："), note


def test_english_server_quote_says_street_price() -> None:
    answer = _answer("Give me a quote for 4 servers of B200")
    assert "each, street price, as of" in answer.split("\n")[0]
    assert "per card (street) 40,000 USD" in answer  # 4 servers × 8 = 32 cards at $40,000 each


@pytest.mark.parametrize("text", ["显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡",
                                  "4090 上 LoRA 微调 Qwen2.5-7B，batch size 最大能开多少"])
def test_chinese_bold_labels_close_before_the_colon(text: str) -> None:
    answer = _answer(text)
    assert "**接下来想确认**：" in answer and "：** " not in answer and "： " not in answer, answer


def test_zh_spacing_moves_a_closing_bold_before_its_colon_and_leaves_an_opening_one() -> None:
    from advisor.conversation.render.compose import zh_spacing

    assert zh_spacing("**变化：** 模型 A → B") == "**变化**：模型 A → B"
    assert zh_spacing("说明：**重要** 内容") == "说明：**重要** 内容"  # a bold opened after a colon stays
    assert zh_spacing("**规则检查：**\n- 一条") == "**规则检查：**\n- 一条"  # a label on its own line stays
    assert zh_spacing("其余（整机） 228,190 元") == "其余（整机）228,190 元"


def test_chinese_layout_lists_with_the_enumeration_comma_and_names_the_engine() -> None:
    lead = _answer("显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡").split("\n")[0]
    assert "TP 2、vLLM" in lead and "TP 2, vllm" not in lead, lead
    first = new_conversation(lang="zh").respond("24G 显存能全参微调 Qwen2.5-1.5B 吗").answer.split("\n")[0]
    assert "卸载优化器状态" in first and "optimizer" not in first, first


def test_batch_question_that_does_not_fit_answers_the_batch_first() -> None:
    # Qwen2.5-7B LoRA at 4096 tokens needs more than the 4090's 24 GiB even at micro-batch 1
    first = _answer("4090 上 LoRA 微调 Qwen2.5-7B，batch size 最大能开多少").split("\n")[0]
    assert first.startswith("**1× GeForce RTX 4090 上微批为 1 也放不下**（每条序列 4096 tokens）"), first
    need, usable = (float(x) for x in re.search(r"需要 ([\d.]+) GiB，GeForce RTX 4090 可用 ([\d.]+) GiB", first).groups())
    assert need > usable
    # Llama 3 70B in BF16: 70.6e9 parameters × 2 bytes = 131 GiB of weights alone, over one 24 GB card
    en = _answer("What batch size can I serve Llama 3 70B with on one RTX 4090?").split("\n")[0]
    assert en.startswith("**Not even one sequence of 4096 tokens fits on 1× GeForce RTX 4090**"), en


def test_a_guide_quote_is_shown_once() -> None:
    answer = _answer("两张 4090 需要 NVLink 吗")
    quote = "使用两张卡通过NVLink连接可获得更好性能"
    assert answer.count(quote) == 1 and "上面引用的这段话" in answer, answer


@pytest.mark.parametrize("text", ["Best GPU under $1000 for running 7B models?", "显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡"])
def test_one_user_speed_is_said_once(text: str) -> None:
    answer = _answer(text)  # one user (the default): per user and in total are the same figure
    assert re.search(r"tokens/s per user|每路 [\d.]+ tokens/s", answer.split("\n")[0]), answer
    assert not re.search(r"([\d.]+ tokens/s) per user, \1 total|每路 ([\d.]+ tokens/s)，合计 \2", answer), answer


def test_token_cost_lead_nests_no_parenthesis_three_deep() -> None:
    first = _answer("L4 跑 8B 每百万 token 成本").split("\n")[0]
    assert "每百万输出 token" in first and "单路请求时 " in first, first
    depth = deepest = 0
    for ch in first:
        depth += 1 if ch in "（(" else -1 if ch in "）)" else 0
        deepest = max(deepest, depth)
    assert deepest <= 2, first


def test_chinese_breakdown_and_cost_lines_use_the_full_width_colon() -> None:
    answer = _answer("显卡预算 5000 元，跑 Qwen2.5-7B 用什么卡")
    lines = [x for x in answer.splitlines() if x.startswith("- ")]
    labelled = [x for x in lines if re.match(r"- (权重|KV 缓存|合计|购置|电费|TCO)[:：]", x)]
    assert len(labelled) >= 5, lines  # the memory breakdown and the cost block were shown
    assert all(re.match(r"- [^:：]+：", x) for x in labelled), labelled
    assert "（" in next(x for x in labelled if x.startswith("- 电费")), labelled  # "/年（7474 kWh/年）"


def test_english_cost_inputs_spell_out_the_price_kind() -> None:
    answer = _answer("Do I need NVLink for 70B on 4 GPUs?")
    dated = next(x for x in answer.splitlines() if x.startswith("- dated inputs"))
    assert "launch_msrp" not in dated and "per card (launch MSRP) " in dated, dated
