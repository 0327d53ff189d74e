"""The web chat's pure renderers: chat messages, table, chart rows, findings, export, input checks (no Gradio)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from advisor.conversation.turn import Step, Turn
from tests.web_fakes import FINDING, GIB, OPTIONS
from ui.web import panels as web_panels
from ui.web import render as R


def _turn(**kw):
    base = dict(answer="**2× H100** fits.", options=OPTIONS, findings=[FINDING],
                memory={**OPTIONS[0]["per_gpu_bytes"], "capacity_bytes": 80 * GIB},
                workload={"model": "llama-3-70b", "task": "inference", "context": 8192, "budget": None})
    base.update(kw)
    return Turn(**base)


# --- input checks -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, key", [
    ("", "empty"), ("   \n\t", "empty"), (None, "empty"),
    ("x" * (R.MAX_MESSAGE_CHARS + 1), "too_long"),
    ("🙂🚀🔥", "no_words"), ("?!… 👍", "no_words"),
])
def test_bad_messages_get_a_clear_reply(text, key):
    reply = R.check_message(text, "en")
    assert reply is not None
    assert reply[:12] == R.LABELS[key]["en"][:12]


@pytest.mark.parametrize("text", ["70B?", "部署 Qwen 72B", "x" * R.MAX_MESSAGE_CHARS, "<b>Llama 8B</b>", "4090 🙂"])
def test_good_messages_pass(text):
    assert R.check_message(text) is None


def test_too_long_reply_names_size_and_limit_in_both_languages():
    n = 100_000
    assert "100,000" in R.check_message("a" * n, "en") and "20,000" in R.check_message("a" * n, "en")
    assert "100,000" in R.check_message("a" * n, "zh") and "上限" in R.check_message("a" * n, "zh")


# --- safe text ------------------------------------------------------------------------------------------------

def test_user_html_is_shown_literally():
    shown = R.user_message("<script>alert(1)</script> & <img src=x onerror=alert(2)>")["content"]
    assert "<" not in shown and ">" not in shown
    assert shown.startswith("&lt;script&gt;alert(1)&lt;/script&gt; &amp; ")


def test_model_markdown_loses_tags_and_images_but_keeps_code():
    text = "Hi <script>x()</script> ![pixel](https://evil.example/p.png?q=secret) `a<b` **bold**\n```\n<tag>\n```"
    out = R.safe_markdown(text)
    assert "<script" not in out and "&lt;script>" in out
    assert "evil.example" not in out and "pixel" in out
    assert "`a<b`" in out and "```\n<tag>\n```" in out  # code shows literally, Markdown never renders it as HTML
    assert "**bold**" in out


def test_answer_sections_keep_exactly_the_bare_details_and_summary_tags():
    text = ("Yes.\n\n<details><summary>Cost</summary>\n\nbody <b>x</b>\n\n</details>\n"
            "<details open><summary onclick=alert(1)>x</summary><script>y()</script><DETAILS>")
    out = R.safe_markdown(text)
    assert out.startswith("Yes.\n\n<details><summary>Cost</summary>\n\nbody &lt;b>x&lt;/b>\n\n</details>")
    assert "<details open" not in out and "&lt;details open>" in out  # attributes: the tag stays text
    assert "<summary onclick" not in out and "<script" not in out and "&lt;/summary>" not in out
    assert "<DETAILS>" not in out and out.count("<details>") == 1 and out.count("</details>") == 1


def test_long_user_message_echo_is_cut():
    shown = R.echo_user_text("a" * 50_000, "en")
    assert len(shown) < 400 and "50,000" in shown


# --- chat messages -------------------------------------------------------------------------------------------

def test_step_message_is_a_collapsible_thought_with_duration():
    msg = R.step_message(Step(name="estimate_memory", arguments={"model": "llama-3-70b"}, duration_s=0.0123,
                              summary="141.1 GiB"), 3)
    assert msg["metadata"] == {"title": "🛠️ estimate_memory", "id": "step-3", "status": "done", "duration": 0.0123}
    assert '"model": "llama-3-70b"' in msg["content"] and "141.1 GiB" in msg["content"]
    failed = R.step_message(Step(name="recommend", ok=False), 1)
    assert "failed" in failed["metadata"]["title"]


def test_answer_adds_note_and_unasked_questions():
    turn = Turn(answer="Need more.", questions=["Which model?"], note="fallback <b>")
    out = R.answer_markdown(turn)
    assert "- Which model?" in out and "> fallback &lt;b>" in out


def test_mode_badge():
    assert "`qwen2.5-72b`" in R.mode_badge("llm", "qwen2.5-72b", "en")
    assert "deterministic" in R.mode_badge("deterministic", None, "en")
    assert "确定性" in R.mode_badge("deterministic", None, "zh")
    assert "gpt-4o" in R.mode_badge("deterministic", "gpt-4o", "en", fallback=True)


# --- table and charts ------------------------------------------------------------------------------------------

def test_options_table_values():
    table = R.options_table(OPTIONS, "en")
    assert table["headers"][0] == "#" and len(table["headers"]) == len(table["data"][0])
    first, second = table["data"]
    # 60 GiB per GPU = 60 * 2^30 bytes; throughput is the total decode rate; price keeps currency and date
    # purchase = the TCO's purchase total (GPUs + server); without a TCO, card price × count (4 × 9,000)
    assert first == [1, "best value", "2× NVIDIA H100 SXM (TP 2)", "60.0", "yes", "2,075", "75,000 USD",
                     "95,000 USD / 3 y", "30,000 USD (2025-06-01)"]
    assert second[1] == "lowest cost" and second[3] == "30.5" and second[6] == "36,000 USD" and second[7] == "–"
    zh = R.options_table(OPTIONS, "zh")
    assert zh["headers"][3] == "单卡 GiB" and zh["data"][0][4] == "是" and zh["data"][0][7].endswith("/ 3 年")
    assert zh["data"][0][1] == "性价比最高"


def test_options_table_training_throughput_and_missing_fields():
    opt = {"gpu": "a100-80g", "count": 8, "fits": False, "throughput": {"tokens_per_s": 12345.6},
           "price": {"amount": 1_200_000, "currency": "CNY"}}
    row = R.options_table([opt])["data"][0]
    assert row[1] == "–" and row[2] == "8× a100-80g" and row[3] == "–" and row[4] == "NO" and row[5] == "12,346"
    assert row[6] == "9,600,000 CNY" and row[8] == "1,200,000 CNY"


@pytest.mark.parametrize("layout, text", [
    ({"tp": 4, "pp": 1, "dp": 1, "zero": 0, "offload": "none"}, "TP 4"),
    ({"tp": 2, "pp": 2}, "TP 2 × PP 2"),
    ({"tp": 1, "pp": 1, "dp": 8, "zero": 3, "offload": "optimizer"}, "DP 8, ZeRO-3, offload optimizer"),
    ({"tp": 1, "pp": 1, "dp": 1, "zero": 0}, "1 GPU"),
    ("TP 2", "TP 2"), (None, "–"),
])
def test_layout_text(layout, text):
    assert web_panels._layout_text(layout) == text


def test_memory_chart_rows_stack_to_capacity():
    rows = R.memory_chart_rows(_turn(), "en")
    first = [r for r in rows if r["option"].startswith("1.")]
    by_part = {r["part"]: r["GiB"] for r in first}
    assert by_part == {"weights": 35.0, "KV cache": 20.0, "activations": 2.0, "overhead": 3.0,
                       "free (to capacity)": 20.0}
    assert sum(by_part.values()) == pytest.approx(80.0)  # stacked bar reaches the card's 80 GiB
    assert first[-1]["part"] == "weights"  # drawn at the bottom of the stack
    second = {r["part"]: r["GiB"] for r in rows if r["option"].startswith("2.")}
    assert sum(second.values()) == pytest.approx(48.0)  # capacity_bytes of the L40S option


def test_memory_chart_without_free_when_over_capacity_and_from_memory_only():
    over = {**OPTIONS[0], "capacity_bytes": 40 * GIB, "fits": False}
    rows = R.memory_chart_rows(Turn(answer="", options=[over]), "zh")
    assert all(r["part"] != R.PART_LABELS["free"]["zh"] for r in rows)
    assert sum(r["GiB"] for r in rows) == pytest.approx(60.0)
    only_memory = Turn(answer="", memory={"weights": 14 * GIB, "kv_cache": 2 * GIB, "capacity_bytes": 24 * GIB})
    rows = R.memory_chart_rows(only_memory, "en")
    assert {r["part"]: r["GiB"] for r in rows} == {"weights": 14.0, "KV cache": 2.0, "free (to capacity)": 8.0}


def test_cost_throughput_rows_keep_one_currency():
    cny = {**OPTIONS[1], "price": {"amount": 250000, "currency": "CNY"}}
    rows = R.cost_throughput_rows([OPTIONS[0], cny, OPTIONS[1]])
    assert [(r["option"], r["price"], r["tokens_per_s"]) for r in rows] == [
        ("1. 2× H100 SXM", 75000.0, 2075.0), ("3. 4× L40S", 36000.0, 1000.0)]  # display names, not ids


def test_context_sweep_uses_the_estimator_values():
    calls = []

    def estimate(ctx):
        calls.append(ctx)
        if ctx > 65536:
            return None  # the estimator refused: point left out, not extrapolated
        return {"total": 40 * GIB + ctx * 2**20, "kv_cache": ctx * 2**20}

    rows = R.context_sweep_rows(8192, estimate, 80 * GIB, "en", contexts=(4096, 131072))
    assert calls == [4096, 8192, 131072]
    totals = {r["context"]: r["GiB"] for r in rows if r["series"] == "total per GPU"}
    assert totals == {4096: 44.0, 8192: 48.0}
    assert {r["GiB"] for r in rows if r["series"] == "capacity"} == {80.0}


# --- findings and export ---------------------------------------------------------------------------------------

def test_findings_markdown_has_rule_source_and_date():
    """Issue 30: the rule's title, never its id, is shown to people (the JSON and the quote's appendix keep ids)."""
    en = R.findings_markdown(_turn(), "en")
    assert "capability.nvlink.4090" not in en and "Capability nvlink 4090" in en and "no NVLink" in en
    assert "source: NVIDIA RTX 4090 spec sheet" in en and "as of 2024-01-01" in en
    assert "没有 NVLink" in R.findings_markdown(_turn(), "zh")
    # with no turn-level findings, the options' findings are listed once each
    assert "Sanity headroom" in R.findings_markdown(_turn(findings=[]), "en")
    assert R.findings_markdown(Turn(answer=""), "en") == R.label("no_findings", "en")


def test_export_markdown_is_a_pasteable_quote():
    when = datetime(2025, 7, 1, 12, 0, tzinfo=timezone.utc)
    md = R.export_markdown(_turn(), question="70B for <50> users", lang="en", generated_at=when)
    assert md.startswith("# GPU recommendation\n") and "2025-07-01 12:00 UTC" in md
    assert "Valid until 2025-07-31" in md  # ui.quote.document.QUOTE_VALID_DAYS after it was made
    assert "1. 70B for &lt;50&gt; users" in md
    assert "| 1 | best value | 2× NVIDIA H100 SXM (TP 2) | 60.0 |" in md
    assert "`vllm serve meta-llama/Meta-Llama-3-70B --tensor-parallel-size 2`" in md
    assert "| weights | 35.00 |" in md and "| free (to capacity) | 20.00 |" in md and "2^30" in md
    assert "- model llama-3-70b" in md and "budget" not in md  # in words; empty workload fields are left out
    assert "- 8,192 tokens of context" in md and "- inference (serving)" in md
    assert "NVIDIA RTX 4090 spec sheet" in md and md.count("capability.nvlink.4090") == 1  # each finding once
    zh = R.export_markdown(_turn(), lang="zh", generated_at=when)
    assert zh.startswith("# GPU 配置建议") and "| 权重 | 35.00 |" in zh


def test_export_json_has_contract_and_bytes():
    doc = json.loads(R.export_json(_turn(), question="q", generated_at=datetime(2025, 7, 1, tzinfo=timezone.utc)))
    assert doc["generated_at"] == "2025-07-01T00:00:00+00:00" and doc["question"] == "q"
    assert doc["mode"] == "deterministic" and doc["answer"].startswith("**2×")
    assert doc["options"][0]["per_gpu_bytes"]["total"] == 60 * GIB
    assert doc["findings"][0]["rule_id"] == "capability.nvlink.4090" and doc["findings"][0]["as_of"] == "2024-01-01"
    assert doc["units"]["memory"] == "bytes"


def test_labels_exist_in_both_languages():
    for key, texts in R.LABELS.items():
        assert set(texts) == {"en", "zh"}, key
    assert R.label("too_long", "fr", n=5, limit=4).startswith("That message")  # unknown language: English
    assert sum(R.detect_lang(e) == "zh" for e in R.EXAMPLES) >= 5 and sum(R.detect_lang(e) == "en" for e in R.EXAMPLES) >= 5


def test_compact_option_keeps_contract_and_totals():
    full = {**OPTIONS[0], "throughput": {**OPTIONS[0]["throughput"], "formulas": ["x"] * 50}}
    c = R.compact_option(full)
    assert c["per_gpu_bytes"]["total"] == 60 * GIB and c["price"]["as_of"] == "2025-06-01"
    assert c["purchase"] == {"amount": 75000.0, "currency": "USD"}
    assert c["tco"] == {"amount": 95000.0, "currency": "USD", "years": 3.0}
    assert c["finding_ids"] == ["sanity.headroom"] and "formulas" not in c["throughput"]
    assert R.compact_option(OPTIONS[1])["purchase"] == {"amount": 36000.0, "currency": "USD"}


def test_pretty_json_matches_the_standard_library():
    """The export's JSON text (orjson when installed) parses to what `json.dumps(..., default=str)` gives,
    non-ASCII kept as text, dates and paths as strings, integer keys as strings, and big integers kept exact."""
    from pathlib import Path

    doc = {"名称": "显存 80 GB", "when": datetime(2025, 7, 1, tzinfo=timezone.utc), "path": Path("/a/b"),
           "n": [1, 2.5, None, True], "bytes": 2**40, 3: "int key", "huge": 2**70}
    text = R.pretty_json(doc)
    assert "显存" in text and "\n  " in text
    assert json.loads(text) == json.loads(json.dumps(doc, default=str))


def test_context_plot_spans_the_model_and_marks_the_requested_context():
    assert R.sweep_contexts(32768, 20000) == (1024, 2048, 4096, 8192, 16384, 20000, 32768)
    assert R.sweep_contexts(131072)[-1] == 131072 and R.sweep_contexts(None)[-1] == 131072

    def estimate(ctx):
        return {"total": 40 * GIB + ctx * 2**20, "kv_cache": ctx * 2**20}

    rows = R.context_sweep_rows(8192, estimate, 80 * GIB, "zh", contexts=R.sweep_contexts(32768, 8192))
    marker = [r for r in rows if r["series"].startswith("所需上下文")]
    assert [(r["context"], r["GiB"]) for r in marker] == [(8192, 0.0), (8192, 80.0)]  # up to the capacity line
    assert {r["series"] for r in rows} == {"单卡合计", "显存容量", "KV 缓存", "所需上下文 (8,192)"}


def test_training_context_plot_has_no_flat_zero_kv_line():
    rows = R.context_sweep_rows(4096, lambda ctx: {"total": 30 * GIB + ctx * 2**18, "kv_cache": 0}, None, "en")
    assert {r["series"] for r in rows} == {"total per GPU", "requested context (4,096)"}


def test_money_axis_names_the_currency():
    rows = R.cost_throughput_rows([{**OPTIONS[1], "price": {"amount": 250000, "currency": "CNY"}}])
    assert R.money_axis_title(rows, "en") == "purchase price (CNY)" and R.money_axis_title([], "zh") == "采购价"
