"""The user-facing strings of every front end, one table per language (`en.py`, `zh.py`): one place to translate.

    t("quote.per_card", "zh")                 -> " 单卡"
    t("history.turns", lang, n=3)             -> the entry's text with its fields filled by `str.format`

An entry is a string, or a plural entry ``{"one": …, "other": …}`` chosen by the field ``n`` (1 → "one"). Every key
exists in every language with the same placeholders (`tests/test_messages.py`). A language other than "zh" reads
English, as the front ends always did. A table is imported on its first use only, so a command that shows no
sentence (``gpus --json``) never loads one. The renderer, the language model's layer, the front ends and the rules keep
no (English, Chinese) pair of their own (`tests/test_message_pairs.py`; its short allowed list says why).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

LANGS = ("en", "zh")

Entry = str | Mapping[str, str]

_tables: dict[str, Mapping[str, Entry]] = {}


def table(lang: str) -> Mapping[str, Entry]:
    """The message table of `lang` ("zh", else English), imported once."""
    lang = "zh" if lang == "zh" else "en"
    found = _tables.get(lang)
    if found is None:
        found = _tables[lang] = importlib.import_module(f"knowledge.messages.{lang}").MESSAGES
    return found


def t(key: str, lang: str, /, **fields: object) -> str:
    """The message `key` in `lang`, its ``{placeholders}`` filled from `fields` (a plural entry by ``n``)."""
    entry = table(lang)[key]
    if not isinstance(entry, str):
        entry = entry["one" if fields.get("n") == 1 else "other"]
    return entry.format(**fields) if fields else entry


def known(key: str, /) -> bool:
    """Whether the catalog has the message `key` (for words looked up by a data value, e.g. a price condition)."""
    return key in table("en")


def pair(key: str, /, **fields: object) -> tuple[str, str]:
    """The message `key` in English and in Chinese, for records that keep both (``message``, ``message_zh``)."""
    return t(key, "en", **fields), t(key, "zh", **fields)


def placeholders(entry: Entry) -> set[str]:
    """The field names an entry formats (over every plural form)."""
    import string  # only the catalog tests call this: `recommend` imports this module and need not load `string`

    texts = [entry] if isinstance(entry, str) else list(entry.values())
    return {name.split(".")[0].split("[")[0] for text in texts
            for _, name, _, _ in string.Formatter().parse(text) if name}
