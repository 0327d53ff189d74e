"""The exported quote (ui.quote.document, ui.quote.render) on real conversations: the whole request, constraints in words,
each finding once, sources by title and date (no repository paths), prices with condition and date, validity
date, assumptions — in Markdown, JSON and the print-ready HTML."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from advisor.conversation.session import new_conversation
from ui.quote.document import QUOTE_VALID_DAYS, build_quote
from ui.quote.render import quote_html, quote_markdown
from ui.web import render as R

WHEN = datetime(2026, 12, 3, 9, 30, tzinfo=UTC)
ZH = ["部署 Qwen2.5-72B 推理，INT4 量化，32k 上下文，20 并发，预算 30 万元，国内", "上下文改成 16k"]
EN = ["Serve Llama 3.1 70B in FP8 with 8k context for 100 concurrent users", "budget $400,000"]


def _last_turn(questions):
    conv = new_conversation(lang=None)
    for q in questions:
        turn = conv.respond(q)
    return turn


@pytest.fixture(scope="module")
def zh_turn():
    return _last_turn(ZH)


@pytest.fixture(scope="module")
def en_turn():
    return _last_turn(EN)


def test_quote_holds_the_whole_request_and_constraints_in_words(zh_turn, en_turn):
    zh = build_quote(zh_turn, questions=ZH, lang="zh", generated_at=WHEN)
    assert zh.request == tuple(ZH)  # both turns, not just the follow-up
    assert "预算 ¥300,000" in zh.constraints and "采购地区：中国大陆" in zh.constraints
    assert "16,384 tokens 上下文" in zh.job and "20 路并发" in zh.job  # the follow-up's change is in
    en = build_quote(en_turn, questions=EN, lang="en", generated_at=WHEN)
    assert "budget $400,000" in en.constraints and "100 concurrent users" in en.job
    for text in (quote_markdown(zh), quote_html(zh), quote_markdown(en)):
        assert "300000.0" not in text and "400000.0" not in text and "budget:" not in text
        assert all(q in text for q in (ZH if "预算" in text else EN))


def test_findings_once_and_sources_by_title_and_date(zh_turn):
    q = build_quote(zh_turn, questions=ZH, lang="zh", generated_at=WHEN)
    md, page = quote_markdown(q), quote_html(q)
    ids = [f.rule_id for f in q.findings]
    assert ids and len(ids) == len(set(ids))
    for rule_id in ids:
        assert md.count(f"`{rule_id}`") == 1, rule_id  # each finding once, its id in the small print
    assert not re.search(r"seeds/|\.txt\b|knowledge/data|reference/", md + page)
    assert any("2025-06-16" in s for s in q.sources)  # guide-000 by title and its publication date
    assert all(not re.fullmatch(r"[a-z0-9-]+", s) for s in q.sources)  # titles, not registry ids


def test_prices_carry_condition_date_and_reliability(zh_turn, en_turn):
    zh = build_quote(zh_turn, questions=ZH, lang="zh", generated_at=WHEN)
    cards = [p for p in zh.prices if p.item.endswith("单卡")]
    first = zh_turn.options[0]["price"]
    assert cards[0].condition == ("二手" if first["condition"] == "used" else "新卡")
    assert cards[0].as_of == first["as_of"] and cards[0].amount == pytest.approx(first["amount"])
    assert all(p.condition in ("新卡", "二手", "市场估价") and p.as_of for p in cards)
    if any((o.get("price") or {}).get("condition") == "used" for o in zh_turn.options):
        assert "二手" in quote_markdown(zh)  # a used price is never unlabelled (issue 30: the lead is new now)
    en = build_quote(en_turn, questions=EN, lang="en", generated_at=WHEN)
    assert all(p.condition in ("new", "used", "street estimate") and p.reliability for p in en.prices
               if p.item.endswith("per card"))
    assert any(p.item.startswith("整机其余部分") for p in zh.prices)  # the other dated inputs, in Chinese too
    assert any("server tier" in p.item for p in en.prices)


def test_validity_assumptions_and_headline(zh_turn):
    q = build_quote(zh_turn, questions=ZH, lang="zh", generated_at=WHEN)
    assert (q.valid_until - WHEN.date()).days == QUOTE_VALID_DAYS
    md = quote_markdown(q)
    assert "有效期至 2027-01-02" in md and "编制于 2026-12-03 09:30 UTC" in md  # issue 30: "prepared", generator in the appendix
    assert q.assumptions and any("10%" in a for a in q.assumptions)
    assert q.headline.startswith("建议") and "**" not in q.headline and q.headline in md


def test_json_export_carries_the_quote(zh_turn):
    doc = json.loads(R.export_json(zh_turn, question=ZH[-1], questions=ZH, lang="zh", generated_at=WHEN))
    quote = doc["quote"]
    assert doc["questions"] == ZH and quote["request"] == ZH and quote["valid_until"] == "2027-01-02"
    assert "预算 ¥300,000" in quote["constraints"]
    assert all({"condition", "as_of", "reliability", "source"} <= set(p) for p in quote["prices"])
    assert doc["options"] and doc["units"]["memory"] == "bytes"  # the raw contract is still there


def test_html_is_self_contained_and_escapes_text():
    turn = _last_turn(["<script>alert(1)</script> Llama 3 8B inference, 8k context, 10 users"])
    page = quote_html(build_quote(turn, questions=["<script>alert(1)</script> Llama 3 8B"], lang="en"))
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "http" not in page.split("<body>")[0] and "@page" in page  # no outside resources; print rules


def test_web_export_quotes_every_message_that_led_to_the_recommendation(tmp_path):
    from pathlib import Path

    from ui.web.app import ChatController, ExportStore, SessionState

    ctl = ChatController(exports=ExportStore(str(tmp_path)), sweep=lambda turn: None)
    state = SessionState()
    for q in ZH:
        *_, final = ctl.turn(q, state, "zh")
    md = Path(final["export_md"]).read_text(encoding="utf-8")
    assert all(q in md for q in ZH) and md.index(ZH[0]) < md.index(ZH[1])
    page, pdf = ctl.exports.extra_paths(final["export_md"])
    assert Path(page).read_text(encoding="utf-8").startswith("<!doctype html>") and pdf is None  # not lazy: no PDF
