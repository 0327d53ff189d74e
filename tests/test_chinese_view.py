"""The Chinese view has no English label left: Chinese conversations rendered as the chat answer, the web page's
panels, the Slack blocks (and the details reply) and the quote, each checked for English words outside names,
units, engines, formats, code and cited texts (`tests/chinese_view.py`). Also the fixed Chinese labels of the web
page and of the message catalogs.

Words a Chinese view may still show beyond those would be listed in `KNOWN` by view, each with its reason; today
there are none, and a new English word in any view fails the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.chinese_view import block_texts, english_words

CONVERSATIONS = Path(__file__).parent / "conversations" / "zh.yaml"
STEP = 4  # every 4th Chinese conversation of the dialog test set (about 20), to keep the test short

# English words the Chinese views may still show, by view (this test's conversations, Dec 2026). Names, units,
# engines, formats, code and cited texts are allowed by `tests/chinese_view.py` itself; what is left here is none.
# A word added here needs its reason.
KNOWN: dict[str, set[str]] = {"answer": set(), "findings": set(), "table": set(), "slack": set(), "details": set(),
                              "quote": set()}


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
    # a citation is quoted as published to the end of its line; a label before it is still found
    assert english_words("显存够用 but tight（来源：vLLM documentation, \"Engine Arguments\", section 2）\n下一行") == {
        "but", "tight"}
    assert english_words("4090 &gt; 3090") == set()


def test_citation_dates_are_said_in_chinese() -> None:
    from rules.sources import citation_in

    cited = "NVIDIA, \"License\", section 2.1.3 (https://example.com, retrieved 2026-12-02)"
    assert citation_in(cited, "zh") == "NVIDIA, \"License\", section 2.1.3 (https://example.com，检索于 2026-12-02)"
    assert citation_in(cited, "en") == cited


def _zh_values(table: dict[str, Any]) -> list[str]:
    return [str(v["zh"]) for v in table.values() if isinstance(v, dict) and "zh" in v]


# Chinese catalog messages that still hold an English word, by key (the list only shrinks)
KNOWN_MESSAGES: dict[str, set[str]] = {
    # the software stacks' own names, which a Chinese answer keeps (Apple Metal, Intel Gaudi SynapseAI)
    "recommend.stack": {"Metal", "SynapseAI"},
    # the rules' findings (knowledge/messages/rules_zh.py): names of engines, kernels, libraries and hardware a
    # Chinese engineer reads as they are (Apple's Metal, Huawei's MindIE, NVIDIA's Rubin, …)
    "rules.cap-cann-engines": {"MindIE", "MindSpore", "torch_npu", "vllm-ascend"},
    "rules.cap-fa2-inference": {"xFormers"},
    "rules.cap-fp8-weight-only": {"Marlin"},
    "rules.cap-fp8-ascend": {"msModelSlim", "vllm-ascend"},  # Huawei's quantisation tool and the engine
    "rules.cap-fp4-ascend": {"msModelSlim"},
    "rules.sub-4090-3090-fp8": {"Marlin"},
    "rules.cap-machine-not-a-card": {"GbE", "exo"},  # 10 GbE Ethernet; exo, the cluster engine
    "rules.cap-metal-engines": {"Metal", "mlx-lm"},
    "rules.cap-metal-stack": {"Metal"},
    "rules.market-cn-blackwell-dc": {"Rubin"},
    "rules.practice-interconnect-multi-node": {"RoCE"},
    "rules.risk-modded-card": {"vBIOS"},
    "rules.fact.unknown_kind": {"config", "workload", "claim"},  # the fact kinds a caller passes, as values
    # the errors of a bad input quote the command line as it is typed: options and their values, a program's name
    # and the command that installs it
    "errors.offload_task": {"layers", "optimizer", "all"},
    "errors.offload_batch": {"layers", "batch"},
    "errors.offload_gpu": {"layers"},
    "errors.offload_engine": {"layers"},
    "errors.region": {"cn", "global"},
    "errors.no_chromium": {"Chromium", "apt-get", "install", "chromium"},
    "errors.chromium_timeout": {"Chromium"},
    "errors.chromium_failed": {"Chromium"},
    "rules.sizing-offload-ram-short": {"offload"},  # the English term after the Chinese one: “卸载（offload）”
    # vLLM's own error, quoted as it prints it so that the user recognises it
    "rules.sizing-tp-heads": {"Total", "number", "of", "attention", "heads", "must", "be", "divisible", "by", "tensor",
                              "parallel", "size"},
}


def test_fixed_chinese_labels_have_no_english_word() -> None:
    """The web page's labels (ui/web_messages), the chart's part names and every Chinese message of the catalogs."""
    from knowledge.messages import table
    from ui.web.messages import LABELS, PART_LABELS

    texts = {f"web: {text}": text for text in _zh_values(LABELS) + _zh_values(PART_LABELS)}
    texts |= {key: e if isinstance(e, str) else " ".join(e.values()) for key, e in table("zh").items()}
    found = {key: sorted(english_words(text) - KNOWN_MESSAGES.get(key, set())) for key, text in texts.items()}
    assert {key: words for key, words in found.items() if words} == {}
