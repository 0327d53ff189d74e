"""Turn → Slack blocks: escaping, Markdown conversion, Slack's size limits, the options table and findings."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.conversation.turn import Turn
from knowledge.structs import replace
from rules.findings import Finding
from ui.slack import render as R

FAST = settings(max_examples=150, derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def all_text(blocks):
    out = []
    for b in blocks:
        out.append((b.get("text") or {}).get("text", ""))
        out += [f.get("text", "") for f in b.get("fields") or []]
        out += [e.get("text", "") for e in b.get("elements") or [] if isinstance(e.get("text"), str)]
        out += [c.get("text", "") for r in b.get("rows") or [] for c in r]
    return "\n".join(out)


# ------------------------------------------------------------------------------------------------ escaping

@pytest.mark.parametrize("raw, escaped", [
    ("a & b", "a &amp; b"),
    ("<!channel> hi", "&lt;!channel&gt; hi"),
    ("<https://evil.example|docs>", "&lt;https://evil.example|docs&gt;"),
    ("<@U123>", "&lt;@U123&gt;"),
    ("&lt;", "&amp;lt;"),  # already-escaped text is escaped again, so it shows literally
    ("@channel @Here @everyone", "@\u2060channel @\u2060Here @\u2060everyone"),
    ("mail me @ home", "mail me @ home"),
])
def test_escape(raw, escaped):
    assert R.escape(raw) == escaped


@FAST
@given(st.text(alphabet=st.sampled_from(list("<>&!@|*_~`#[]()-: \nahttps/.x中")), max_size=400))
def test_no_control_sequence_survives_markdown_conversion(text):
    out = R.md_to_mrkdwn(text)
    assert "<" not in out and ">" not in out  # no mention, broadcast or link can be formed
    assert re.search(r"&(?!amp;|lt;|gt;)", out) is None  # every & starts one of the three entities
    assert re.search(r"@(channel|here|everyone)\b", out, re.IGNORECASE) is None


def test_markdown_to_mrkdwn():
    md = ("# Recommendation\n**2× H100** is *enough*, ~~maybe~~.\n- first\n* second\n"
          "See [the guide](https://example.com/a_(b)) and [x](javascript:alert(1)).\n\n"
          "| GPU | GiB |\n|---|---:|\n| H100 | 80 |\n\n```\nraw <code>\n```")
    out = R.md_to_mrkdwn(md)
    assert out.splitlines()[0] == "*Recommendation*"
    assert "*2× H100* is _enough_, ~maybe~." in out
    assert "• first" in out and "• second" in out
    assert "the guide (https://example.com/a_(b))" in out
    assert "javascript" not in out and " x." in out
    assert "```\nGPU   GiB\nH100  80\n```" in out
    assert "raw &lt;code&gt;" in out


def test_incoming_slack_markup_is_decoded():
    from ui.slack.app import clean_incoming

    assert clean_incoming("<@UBOT01>  Llama 70B &amp; 32k") == "Llama 70B & 32k"
    assert clean_incoming("<@UBOT01> <@U0OTHER>") == ""
    assert clean_incoming("see <https://hf.co/x|config> in <#C123|hw>") == "see config (https://hf.co/x) in #hw"
    assert clean_incoming("<!here> 70B &lt;4bit&gt;") == "70B <4bit>"
    assert clean_incoming("<!subteam^S1|@infra> 70B") == "@infra 70B"


# ------------------------------------------------------------------------------------------------ splitting

@FAST
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab &<\n`")), max_size=900), max_size=12),
       st.integers(min_value=200, max_value=3000))
def test_split_respects_the_limit_and_keeps_everything(parts, limit):
    text = "\n".join(parts)
    chunks = R.split_mrkdwn(text, limit)
    assert all(len(c) <= limit for c in chunks)
    squashed = re.sub(r"[\s`]", "", "".join(chunks))
    assert squashed == re.sub(r"[\s`]", "", text)  # nothing lost (fences and spacing may move)


def test_split_reopens_code_fences():
    text = "```\n" + "\n".join("line %04d" % i for i in range(800)) + "\n```"
    chunks = R.split_mrkdwn(text, 3000)
    assert len(chunks) >= 3
    for c in chunks:
        assert c.startswith("```") and c.endswith("```") and c.count("```") == 2


def test_long_line_is_not_cut_inside_an_entity():
    text = ("&" * 5000)
    chunks = R.split_mrkdwn(R.escape(text), 3000)
    assert all(c.endswith("&amp;") or c.endswith(";") for c in chunks)


# ------------------------------------------------------------------------------------------------ a Turn

def option(i, **kw):
    base = {"gpu": f"gpu-{i}", "count": i, "layout": {"tp": i, "pp": 1}, "per_gpu_bytes": {"total": 45 * 2**30},
            "fits": True, "throughput": {"decode_tokens_per_s": 31.25, "decode_tokens_per_s_total": 1250.0},
            "price": {"amount": 25000 * i, "currency": "USD", "as_of": "2025-06-01"}, "findings": []}
    base.update(kw)
    return base


FINDING = Finding(rule_id="fp16-weights-70b", severity="warn", message="Weights alone are 140 GB <!here>",
                  message_zh="仅权重就需要 140 GB", source="guide-000 §2.1 (seeds/000_40d9afaaa53413f3.txt)",
                  as_of="2025-05-01")


def test_turn_renders_summary_table_findings_mode_and_link():
    turn = Turn(answer="**Recommendation:** 2× H100.\n\n## Numbers\n| a | b |\n|--|--|\n| 1 | 2 |",
                options=[option(1), option(2, fits=False)], findings=[FINDING], mode="llm", model_name="qwen2.5",
                note="fallback used")
    text, blocks = R.render_turn(turn, web_url="https://advisor.example/", query="70B & int4")
    assert R.check_limits(blocks) == []
    assert text.startswith("*Recommendation:* 2× H100.")
    shown = all_text(blocks)
    kinds = [b["type"] for b in blocks]
    table_at = kinds.index("table")
    assert "Recommendation" in blocks[0]["text"]["text"] and "Numbers" not in blocks[0]["text"]["text"]
    details = blocks[table_at + 1]["text"]["text"]
    assert details.startswith("*Numbers*")  # the rest of the answer follows the table …
    assert "1  2" not in shown and "| 1 |" not in shown  # … without its Markdown table (the block shows options)
    table = blocks[table_at]
    assert [c["text"] for c in table["rows"][0]] == ["#", "GPU", "Count", "Layout", "Memory/GPU", "Fits",
                                                     "Decode tok/s", "Price"]
    assert [c["text"] for c in table["rows"][2]] == ["2", "gpu-2", "2", "tp=2, pp=1", "45.0 GiB", "no", "1,250",
                                                     "50,000 USD (as of 2025-06-01)"]
    assert "`fp16-weights-70b` Weights alone are 140 GB &lt;!here&gt;" in shown
    assert "guide-000 §2.1" in shown and "as of 2025-05-01" in shown
    assert "mode: LLM (qwen2.5)" in shown and "fallback used" in shown
    button = blocks[-1]["elements"][0]
    assert button["url"] == "https://advisor.example/?q=70B+%26+int4"


def test_chinese_turn_uses_chinese_labels_and_messages():
    turn = Turn(answer="推荐 2× H100。", lang="zh", options=[option(1)], findings=[FINDING])
    _, blocks = R.render_turn(turn)
    shown = all_text(blocks)
    assert "每卡显存" in shown and "仅权重就需要 140 GB" in shown and "截至 2025-06-01" in shown
    assert "模式：确定性规则" in shown


def test_fields_style_is_a_section_per_option():
    turn = Turn(answer="ok", options=[option(i) for i in range(1, 4)])
    _, blocks = R.render_turn(turn, style="fields")
    sections = [b for b in blocks if b.get("fields")]
    assert len(sections) == 3
    assert sections[0]["text"]["text"] == "*1. gpu-1 × 1*"
    assert "*Memory/GPU*\n45.0 GiB" in [f["text"] for f in sections[0]["fields"]]
    assert not any(b["type"] == "table" for b in blocks)


def test_clarifying_questions_are_listed():
    turn = Turn(answer="Which model?", questions=["Which model?", "What context length (default 4k)?"])
    _, blocks = R.render_turn(turn)
    shown = all_text(blocks)
    assert shown.count("Which model?") == 1  # already in the answer: not repeated
    assert "• What context length (default 4k)?" in shown


def test_huge_turn_stays_within_slack_limits():
    answer = "\n\n".join(f"Paragraph {i}: " + "word " * 300 for i in range(60))
    turn = Turn(answer=answer, options=[option(i) for i in range(1, 30)],
                findings=[replace(FINDING, rule_id=f"r{i}", message="m" * 900) for i in range(40)])
    for style in ("table", "fields"):
        text, blocks = R.render_turn(turn, web_url="https://a.example/", query="q" * 5000, style=style)
        assert R.check_limits(blocks) == [], style
        assert len(text) <= R.MAX_FALLBACK_TEXT
        assert len(blocks[-1]["elements"][0]["url"]) <= R.MAX_BUTTON_URL
        assert "shortened" in all_text(blocks) or "more options" in all_text(blocks)


def test_long_answer_without_options_is_split_not_lost():
    answer = "\n".join(f"line {i} " + "x" * 80 for i in range(200))  # ≈ 18 000 characters
    _, blocks = R.render_turn(Turn(answer=answer))
    assert R.check_limits(blocks) == []
    sections = [b for b in blocks if b["type"] == "section"]
    assert len(sections) >= 6
    assert "line 0 " in sections[0]["text"]["text"]


@pytest.mark.parametrize("url", ["", "javascript:alert(1)", "ftp://x", "https://ok.example/<x>", "not a url"])
def test_no_button_for_unusable_web_urls(url):
    _, blocks = R.render_turn(Turn(answer="x"), web_url=url, query="q")
    assert not any(b["type"] == "actions" for b in blocks)


def test_plain_cells_have_no_markup():
    turn = Turn(answer="x", options=[option(1, gpu="<!channel> @here")])
    _, blocks = R.render_turn(turn)
    cell = next(b for b in blocks if b["type"] == "table")["rows"][1][1]["text"]
    assert "<" not in cell and "@here" not in cell


def test_check_limits_catches_what_slack_refuses():
    too_many = [R.section("x")] * 51
    assert R.check_limits(too_many)
    assert R.check_limits([R.section("x" * 3001)])
    assert R.check_limits([{"type": "table", "rows": [[{"type": "raw_text", "text": "a"}]]}] * 2)
    assert R.check_limits([{"type": "section", "text": {"type": "mrkdwn", "text": "t"},
                            "fields": [{"type": "mrkdwn", "text": "f"}] * 11}])


def test_question_in_a_shortened_answer_is_still_asked():
    answer = "**Recommendation:** 2× H100.\n\n" + "\n".join(f"- detail {i} " + "y" * 60 for i in range(80)) + \
        "\n\n**Next question:** Which region?"
    turn = Turn(answer=answer, options=[option(1)], questions=["Which region?"])
    _, blocks = R.render_turn(turn)
    assert R.check_limits(blocks) == []
    shown = all_text(blocks)
    assert "• Which region?" in shown  # cut from the details, so listed on its own
    assert "shortened" in shown


def test_missing_values_are_dashes_never_empty_cells():
    turn = Turn(answer="x", options=[{"gpu": "", "count": None, "throughput": None, "price": None}])
    _, blocks = R.render_turn(turn)
    assert R.check_limits(blocks) == []  # Slack refuses empty raw_text cells
    row = next(b for b in blocks if b["type"] == "table")["rows"][1]
    assert all(c["text"] for c in row) and "None" not in [c["text"] for c in row]
    assert [c["text"] for c in row][1:4] == ["?", "–", "–"]


def test_answer_sections_go_to_a_thread_reply_not_the_message():
    from advisor.conversation.session import new_conversation
    from ui.slack.details import details_reply

    turn = new_conversation().respond("Can Qwen2.5-7B in FP16 fit on one RTX 4090 with 8k context?")
    assert "<details>" in turn.answer
    _, blocks = R.render_turn(turn)
    shown = "\n".join(str(b) for b in blocks)
    assert "details" not in shown.lower() and "Assumptions:" not in shown  # the first screen only
    assert blocks[0]["text"]["text"].startswith("*Yes")
    text, thread = details_reply(turn)
    body = "\n".join(str(b) for b in thread)
    assert text.startswith("Details:") and "*Memory breakdown*" in body and "*All assumptions*" in body
    assert "&lt;details" not in body and "<details>" not in body and R.check_limits(thread) == []
    from advisor.conversation.turn import Turn

    assert details_reply(Turn(answer="No sections here.")) is None
