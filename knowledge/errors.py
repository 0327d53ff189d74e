"""Errors shown to users. Every message names what was wrong and what is accepted.

`AdvisorError` is the root: the CLI prints its message on one line and exits with status 2,
the chat interfaces show it as a reply. Anything else escaping is a bug.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Self


class AdvisorError(Exception):
    """An error caused by the user's input or data, with a message fit to show them."""

    def __init__(self, message: str, *, field: str | None = None, accepted: str | None = None,
                 message_zh: str | None = None) -> None:
        self.field = field
        self.accepted = accepted
        self.message_zh = message_zh
        text = message
        if accepted and "accepted" not in message:
            text = f"{message} (accepted: {accepted})"
        super().__init__(text)

    @classmethod
    def from_key(cls, key: str, /, *, field: str | None = None, accepted: str | None = None,
                 **fields: object) -> Self:
        """The error whose words are the message catalogs' entry `key` in English and Chinese, filled from `fields`."""
        from knowledge.messages import pair  # start-up: only a command that fails loads the catalog

        message, message_zh = pair(key, **fields)
        return cls(message, field=field, accepted=accepted, message_zh=message_zh)

    @property
    def message(self) -> str:
        return str(self)

    def localized(self, lang: str) -> str:
        """The message in `lang` ("zh" or "en"); English when no Chinese text was given."""
        return self.message_zh if lang == "zh" and self.message_zh else self.message


class NotValidated(AdvisorError):
    """The rules could not be checked, so an answer would not be validated: shown to the user as an error,
    never replaced by an answer without its findings (raised by rules.engine)."""


class CatalogError(AdvisorError):
    """A data file is invalid: the message names the file and the field."""


class UnknownIdError(AdvisorError):
    """An id or alias that is not in a catalog; carries close matches."""

    def __init__(self, kind: str, name: str, candidates: Iterable[str]) -> None:
        pool = sorted(set(candidates))
        self.kind = kind
        self.name = name
        import difflib  # only when a name is not found: not on every start

        self.suggestions = difflib.get_close_matches(name.lower(), pool, n=5, cutoff=0.5)
        from knowledge.messages import t  # start-up: only a name not in the catalog loads the catalog's words

        def said(lang: str) -> str:
            close = t("errors.unknown_id.sep", lang).join(self.suggestions)
            hint = t("errors.unknown_id.hint", lang, names=close) if self.suggestions else ""
            return t("errors.unknown_id", lang, what=t(f"errors.unknown_id.{kind}", lang), name=name, hint=hint)

        super().__init__(said("en"), field=kind, message_zh=said("zh"))


class UnknownGpu(UnknownIdError):
    def __init__(self, name: str, candidates: Iterable[str]) -> None:
        super().__init__("gpu", name, candidates)


class UnknownModel(UnknownIdError):
    def __init__(self, name: str, candidates: Iterable[str]) -> None:
        super().__init__("model", name, candidates)


class InputError(AdvisorError):
    """A value outside its accepted range, or an impossible combination of options."""
