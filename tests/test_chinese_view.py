"""The Chinese view has no English label left: Chinese conversations rendered as the chat answer, the web page's
panels, the Slack blocks (and the details reply) and the quote, each checked for English words outside names,
units, engines, formats, code and cited texts (`tests/chinese_view.py`). Also the fixed Chinese labels of the web
page and of the message catalogs.

The words Chinese views still show today are listed in `KNOWN` by view; a word not listed there fails the test,
so the list only shrinks (remove a word once it is translated). Each is a label, a phrase or a raw identifier that
has no Chinese wording yet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.chinese_view import block_texts, english_words

CONVERSATIONS = Path(__file__).parent / "conversations" / "zh.yaml"
STEP = 4  # every 4th Chinese conversation of the dialog test set (about 20), to keep the test short

# English words the Chinese views still show (this test's conversations, Dec 2026), by view: a source's kind and
# locator in citations ("news article", "table, 7B row", "retrieved"), the Slack table's raw layout fields
# ("offload=none, engine=deepspeed"), the recommender's English assumptions and cost inputs in the quote's
# appendix, English guide quotes cited without a catalog source. Remove a word once it is translated.
KNOWN: dict[str, set[str]] = {
    "answer": {"amends", "and", "Apr", "Arguments", "bit", "China", "cn", "config", "course", "Customer", "da",
        "Datacenter", "default", "defaults", "Deployment", "documentation", "Engine", "exports", "Final",
        "followed", "For", "for", "Form", "handout", "hidden", "http", "incl", "Inference", "Interim", "is",
        "License", "license", "licensed", "model", "No", "not", "now", "Oct", "of", "on", "Report", "required",
        "row", "Rule", "section", "size", "Software", "table", "The", "the", "to", "training", "Use"},
    "findings": {"and", "are", "Arguments", "China", "compute", "config", "cost", "Datacenter", "default",
        "defaults", "Deployment", "documentation", "each", "Engine", "estimator", "exports", "fine-tuning", "for",
        "formula", "inference", "Item", "its", "licence", "lines", "memory", "model", "No", "notes", "now", "part",
        "pre-training", "recommendation", "required", "requirement", "requirements", "result", "retrieved", "row",
        "rule", "section", "stated", "table", "tables", "the", "thresholds", "throughput", "time", "to", "total",
        "training", "under", "with"},
    "table": set(),
    "slack": {"engine", "full", "global_batch_tokens", "grad_accum", "hidden", "interleaved", "micro_batch", "no",
        "none", "offload", "rec", "reco", "recom", "recompute", "recompute_layers", "size", "summary", "vpp",
        "weights", "Ze"},
    "details": {"amends", "amp", "and", "Apr", "Arguments", "bit", "China", "cn", "config", "course", "Customer",
        "da", "Datacenter", "default", "defaults", "Deployment", "documentation", "Engine", "exports", "Final",
        "followed", "For", "for", "Form", "gt", "handout", "http", "incl", "Inference", "Interim", "is", "License",
        "license", "licensed", "model", "No", "not", "now", "Oct", "of", "on", "Report", "required", "row", "Rule",
        "section", "Software", "table", "The", "the", "to", "training", "Use"},
    "quote": {"activations", "and", "are", "Arguments", "at", "cache", "checkpointing", "claims", "cloud", "cn",
        "config", "cost", "default", "defaults", "demand", "documentation", "each", "Engine", "engine", "estimator",
        "fills", "fine-tuning", "followed", "for", "formula", "full", "GPU-hour", "gradient",
        "gradient_checkpointing", "Inference", "its", "leave", "lines", "memory", "micro-batch", "model", "of",
        "on", "optimizer", "price", "ratio", "recompute", "references", "reservation", "result", "retrieved",
        "rule", "sequence", "shows", "start-up", "stated", "that", "the", "thresholds", "throughput", "time", "to",
        "total", "training", "updated", "weights", "what", "with"},
}


def _cases() -> list[tuple[str, list[str]]]:
    data = yaml.safe_load(CONVERSATIONS.read_text(encoding="utf-8"))
    cases = []
    for case in data["conversations"]:
        texts = [t["say"] for t in case.get("turns", []) if isinstance(t.get("say"), str)]
        if texts and all(t.strip() and len(t) < 2000 for t in texts):
            cases.append((case["id"], texts))
    return cases[::STEP]


def _views(texts: list[str]) -> dict[str, str]:
    from advisor.conversation.session import new_conversation
    from ui.quote.document import build_quote
    from ui.quote.render import quote_markdown
    from ui.slack.details import details_reply
    from ui.slack.render import render_turn
    from ui.web import panels as web_panels

    conv = new_conversation(lang=None)
    for text in texts:
        turn = conv.respond(text)
    if turn.lang != "zh":
        return {}
    options = [o for o in (turn.options or []) if isinstance(o, dict)]
    views = {"answer": turn.answer, "findings": web_panels.findings_markdown(turn, "zh"),
             "table": "\n".join(block_texts(web_panels.options_table(options, "zh"))),
             "slack": "\n".join(block_texts(render_turn(turn))),
             "details": "\n".join(block_texts(details_reply(turn) or ()))}
    if options:
        views["quote"] = quote_markdown(build_quote(turn, questions=texts, lang="zh"))
    for name, view in views.items():
        for text in texts:  # the user's own words are theirs
            view = view.replace(text, " ")
        views[name] = view
    return views


@pytest.mark.parametrize(("case_id", "texts"), _cases(), ids=[c[0] for c in _cases()])
def test_chinese_conversation_views_have_no_new_english_label(case_id: str, texts: list[str]) -> None:
    new = {name: sorted(english_words(view) - KNOWN[name]) for name, view in _views(texts).items()}
    assert {name: words for name, words in new.items() if words} == {}


def test_the_checker_finds_english_labels_and_leaves_names_units_and_code() -> None:
    text = ("推荐 2× GeForce RTX 4090，每卡 21.3 GiB，vLLM 下 1,200 tokens/s；ZeRO-3、BF16、LoRA；"
            "运行 `vllm serve --tensor-parallel-size 2`，见 https://example.com/a-b。")
    assert english_words(text) == set()
    assert english_words("推荐配置 used cards，每卡 21.3 GiB (already owned)") == {"used", "cards", "already",
                                                                                     "owned"}
    assert english_words("Llama-3.1-70B 需要 4 张 H100 SXM") == set()


def _zh_values(table: dict[str, Any]) -> list[str]:
    return [str(v["zh"]) for v in table.values() if isinstance(v, dict) and "zh" in v]


# Chinese catalog messages that still hold an English word, by key (the list only shrinks)
KNOWN_MESSAGES: dict[str, set[str]] = {
    "preamble.unknown_model": {"hidden", "size"},  # "它的层数、hidden size、KV 头数": the config.json field's name
}


def test_fixed_chinese_labels_have_no_english_word() -> None:
    """The web page's labels (ui/web_messages), the chart's part names and every Chinese message of the catalogs."""
    from knowledge.messages import table
    from ui.web.messages import LABELS, PART_LABELS

    texts = {f"web: {text}": text for text in _zh_values(LABELS) + _zh_values(PART_LABELS)}
    texts |= {key: e if isinstance(e, str) else " ".join(e.values()) for key, e in table("zh").items()}
    found = {key: sorted(english_words(text) - KNOWN_MESSAGES.get(key, set())) for key, text in texts.items()}
    assert {key: words for key, words in found.items() if words} == {}
