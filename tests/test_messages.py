"""The message catalogs (knowledge/messages/{en,zh}.py): the same keys and placeholders in every language, plural
entries well formed, lookups as documented; and the front-end files already moved to the catalogs choose no
language inline."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from knowledge.messages import LANGS, known, pair, placeholders, t, table

ROOT = Path(__file__).resolve().parent.parent


def test_every_key_is_in_every_language_in_the_same_order() -> None:
    en = list(table("en"))
    for lang in LANGS:
        assert list(table(lang)) == en, lang


def _fields_agree(english: object, other: object) -> bool:
    """Same placeholders; a language without plural forms may leave out the count `n` that only picks
    English's form."""
    want, got = placeholders(english), placeholders(other)  # type: ignore[arg-type]
    return got == want or (not isinstance(english, str) and isinstance(other, str) and got == want - {"n"})


# Translations that leave out fields their English names, by key, each with its reason (the list only shrinks): they
# still format from the English's fields, so both languages render from the same fact
SAYS_LESS: dict[str, set[str]] = {
    # "以显存估算为准" (rely on the memory estimate) without repeating the configuration, as the Chinese always said
    "rules.value-scope-5080": {"count", "gpu"},
    # the validator's own explanation is English ("Input should be greater than 0"): the Chinese names the field and
    # the value given as invalid, and the values accepted
    "rules.fact.wrong_value": {"msg"},
    # the errors of a bad input (knowledge/messages/errors_zh.py): the Chinese names the value and what is wrong in
    # fewer words, as it always did; the English adds the arithmetic (DP, world size), the given value or the
    # tool's own detail (an exception's text, a process's exit status)
    "errors.layout_factor": {"dp", "world"},
    "errors.count_factor": {"tp", "cp", "pp"},
    "errors.tp_domain": {"where"},
    "errors.cp_context": {"context"},
    "errors.tokens_positive": {"tokens"},
    "errors.tokens_absurd": {"tokens", "most"},
    "errors.no_layout": {"pinned", "headroom", "leanest"},
    "errors.train_short": {"needs", "usable"},
    "errors.serve_short": {"weights", "kv", "concurrency", "context"},
    "errors.offload_task": {"task"},
    "errors.offload_engine": {"engine"},
    "errors.not_finite": {"detail"},
    "errors.chromium_timeout": {"seconds"},
    "errors.chromium_failed": {"code", "detail"},
}


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_match_english(lang: str) -> None:
    wrong = {key: (placeholders(table("en")[key]), placeholders(entry))
             for key, entry in table(lang).items() if not _fields_agree(table("en")[key], entry)
             and placeholders(entry) != placeholders(table("en")[key]) - SAYS_LESS.get(key, set())}
    assert wrong == {}


def test_what_a_translation_leaves_out_is_still_left_out() -> None:
    """An entry leaves the list once its translation names every field."""
    for key, left_out in SAYS_LESS.items():
        assert left_out and placeholders(table("zh")[key]) == placeholders(table("en")[key]) - left_out, key


def test_placeholder_check_can_fail() -> None:
    assert not _fields_agree("{a} and {b}", "{a}")
    assert not _fields_agree("{a}", "{a} {c}")
    assert _fields_agree({"one": "{n} x {a}", "other": "{n} xs {a}"}, "{a}")
    assert not _fields_agree("{n} {a}", "{a}")


@pytest.mark.parametrize("lang", LANGS)
def test_entries_are_well_formed(lang: str) -> None:
    for key, entry in table(lang).items():
        assert re.fullmatch(r"[a-z_]+(\.[A-Za-z0-9_ -]+)+", key), key
        forms = [entry] if isinstance(entry, str) else list(entry.values())
        if not isinstance(entry, str):
            assert set(entry) == {"one", "other"}, key  # picked by the field n
        for text in forms:
            assert text == text.strip("\n") and (text or lang != "en"), key  # a language may need no word
            list(string.Formatter().parse(text))  # raises on an unbalanced brace


def test_chinese_entries_are_chinese() -> None:
    """A Chinese entry differs from the English one unless it is only names, units and punctuation (no English
    word of three letters or more)."""
    same = [key for key, entry in table("zh").items()
            if entry == table("en")[key] and re.search(r"[a-z]{3,}", re.sub(r"\{[^}]*\}", "", str(entry)))]
    assert same == []


def test_lookup_fills_fields_picks_plurals_and_falls_back_to_english() -> None:
    assert t("quote.concurrency", "en", n=1) == "1 concurrent user"
    assert t("quote.concurrency", "en", n=20) == "20 concurrent users"
    assert t("quote.concurrency", "zh", n=1) == "1 路并发"
    assert t("quote.context", "en", context=32768) == "32,768 tokens of context"
    assert t("quote.used_accepted", "fr") == t("quote.used_accepted", "en") == "used cards accepted"
    assert pair("quote.budget", money="¥1") == ("budget ¥1", "预算 ¥1")
    assert known("price.condition.used") and not known("price.condition.mint")
    with pytest.raises(KeyError):
        t("no.such_key", "en")


# Files whose user-facing words all come from the catalogs: no `… if zh else …` / `if lang == "zh" …` choice of
# words is left in them (choosing a table or a language code stays allowed: `table(lang)`, `lang = "zh" if …`).
MOVED = ["advisor/recommend/results.py", "advisor/conversation/render/assumptions.py",
         "advisor/conversation/render/cost.py", "advisor/conversation/render/labels.py",
         "advisor/conversation/render/headline.py", "advisor/conversation/render/lead.py",
         "advisor/conversation/render/memory.py", "advisor/conversation/render/preamble.py",
         "advisor/conversation/render/options_table.py", "ui/quote/document.py", "ui/quote/render.py", "ui/cli/commands/history.py",
         "ui/web/panels.py", "ui/slack/details.py", "ui/web/store.py", "ui/web/chat.py", "ui/slack/replies.py",
         "ui/slack/render.py", "ui/web/messages.py", "rules/titles.py",
         "advisor/conversation/render/firstscreen.py", "advisor/conversation/render/compose.py",
         "advisor/conversation/render/findings.py", "advisor/conversation/dialog/policy.py",
         "advisor/conversation/dialog/compare.py", "advisor/conversation/render/scale_out.py",
         "advisor/conversation/llm/turns.py", "advisor/conversation/llm/prompts.py", "advisor/conversation/llm/state.py",
         "advisor/conversation/reader/inline_specs.py",
         "advisor/conversation/render/cost.py", "advisor/conversation/llm/read_then_answer.py", "ui/web/cost_chart.py",
         "ui/web/layout.py", "ui/web/events.py", "ui/api/conversations.py", "ui/cli/commands/ask_store.py"]
INLINE = re.compile(r"""["'](?!(?:zh|en)["'])[^"']*["']"""  # a literal other than a language code …
                    r"""\s+if\s+(zh|lang\s*==\s*["'](zh|en)["'])\s+else""")  # … chosen by the language


@pytest.mark.parametrize("path", MOVED)
def test_moved_files_choose_no_words_inline(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert [line.strip() for line in text.splitlines() if INLINE.search(line)] == []


def test_no_key_is_written_twice() -> None:
    """A dict literal keeps the last of two equal keys silently: each key is written once per table."""
    import ast
    from pathlib import Path

    from knowledge.messages import SECTIONS

    for name in ("en", "zh", *(f"{section}_{lang}" for section in SECTIONS for lang in ("en", "zh"))):
        path = Path(__file__).resolve().parents[1] / "knowledge" / "messages" / f"{name}.py"
        table = next(node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Dict))
        assert isinstance(table, ast.Dict)
        keys = [k.value for k in table.keys if isinstance(k, ast.Constant)]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        assert not twice, (name, twice)


def test_a_section_key_is_read_from_its_own_module_and_the_whole_table_has_it() -> None:
    """`recommend` reads its sentences from the "recommend" section alone; `table` (the tests, `known`) sees every
    key of every section, and a section's keys are the section's and nowhere else."""
    import importlib

    from knowledge.messages import SECTIONS

    for section in SECTIONS:
        for lang in LANGS:
            part = importlib.import_module(f"knowledge.messages.{section}_{lang}").MESSAGES
            main = importlib.import_module(f"knowledge.messages.{lang}").MESSAGES
            assert part and all(key.startswith(section + ".") and key not in main for key in part)
            assert all(table(lang)[key] == entry for key, entry in part.items())
            assert not any(key.startswith(section + ".") for key in main)
    assert t("recommend.per_node", "zh", n=8) == "每台服务器最多 8 张卡"
    assert t("recommend.deadline", "en", days=30.0).startswith("no deadline given: configurations that finish within 30 days")
    assert known("recommend.offload") and not known("recommend.no_such_sentence")
