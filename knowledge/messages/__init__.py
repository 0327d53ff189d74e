"""The user-facing strings of every front end, one table per language (`en.py`, `zh.py`): one place to translate.

    t("quote.per_card", "zh")                 -> " 单卡"
    t("history.turns", lang, n=3)             -> the entry's text with its fields filled by `str.format`

An entry is a string, or a plural entry ``{"one": …, "other": …}`` chosen by the field ``n`` (1 → "one"). Every key
exists in every language with the same placeholders (`tests/test_messages.py`). A language other than "zh" reads
English, as the front ends always did. A table is imported on its first use only, so a command that shows no
sentence (``gpus --json``) never loads one. A key whose first part names a section (`SECTIONS`: "recommend.…",
"rules.…") lives in that section's own small module per language (`recommend_en.py`, `recommend_zh.py`; the rules'
findings, one template per rule id, in `rules_en.py`, `rules_zh.py`; the errors of a bad input, which only a failing
command reads, in `errors_en.py`, `errors_zh.py`): `recommend --json` states its assumptions and
its findings in both languages and loads those four alone (≈ 0.1 ms for the recommend section from byte-code, against
≈ 1 ms for both main tables and ≈ 10 ms compiling them without byte-code). `table(lang)` is the whole catalog,
sections included.
The renderer, the language model's layer, the front ends and the rules keep
no (English, Chinese) pair of their own (`tests/test_message_pairs.py`; its short allowed list says why).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

LANGS = ("en", "zh")

Entry = str | Mapping[str, str]

SECTIONS = ("recommend", "rules", "errors")  # key prefixes kept in their own modules, `<section>_<lang>.py`

_tables: dict[str, Mapping[str, Entry]] = {}


def _module(name: str) -> Mapping[str, Entry]:
    """The MESSAGES of `knowledge.messages.<name>`, imported once."""
    found = _tables.get(name)
    if found is None:
        found = _tables[name] = importlib.import_module(f"knowledge.messages.{name}").MESSAGES
    return found


def table(lang: str) -> Mapping[str, Entry]:
    """The whole message catalog of `lang` ("zh", else English): the main table, then each section's."""
    lang = "zh" if lang == "zh" else "en"
    whole = f"{lang}+sections"
    found = _tables.get(whole)
    if found is None:
        merged = dict(_module(lang))
        for section in SECTIONS:
            merged.update(_module(f"{section}_{lang}"))
        found = _tables[whole] = merged
    return found


def _entry(key: str, lang: str) -> Entry:
    lang = "zh" if lang == "zh" else "en"
    section = key.partition(".")[0]
    return _module(f"{section}_{lang}" if section in SECTIONS else lang)[key]


def t(key: str, lang: str, /, **fields: object) -> str:
    """The message `key` in `lang`, its ``{placeholders}`` filled from `fields` (a plural entry by ``n``)."""
    entry = _entry(key, lang)
    if not isinstance(entry, str):
        entry = entry["one" if fields.get("n") == 1 else "other"]
    return entry.format(**fields) if fields else entry


def known(key: str, /) -> bool:
    """Whether the catalog has the message `key` (for words looked up by a data value, e.g. a price condition)."""
    section = key.partition(".")[0]
    return key in _module(f"{section}_en" if section in SECTIONS else "en")


def pair(key: str, /, **fields: object) -> tuple[str, str]:
    """The message `key` in English and in Chinese, for records that keep both (``message``, ``message_zh``)."""
    return t(key, "en", **fields), t(key, "zh", **fields)


def placeholders(entry: Entry) -> set[str]:
    """The field names an entry formats (over every plural form)."""
    import string  # only the catalog tests call this: `recommend` imports this module and need not load `string`

    texts = [entry] if isinstance(entry, str) else list(entry.values())
    return {name.split(".")[0].split("[")[0] for text in texts
            for _, name, _, _ in string.Formatter().parse(text) if name}
