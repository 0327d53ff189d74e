"""What must never be written to the store: API keys and Slack tokens. Every text the store writes (questions,
answers, titles, states, results, quotes) passes through `scrub` first, which replaces

- the values of the credential variables this process was given (`SECRET_ENV`, e.g. a user pasting the bot's own
  token into a question), and
- anything shaped like an OpenAI-style key (`sk-…`) or a Slack token (`xoxb-…`, `xoxp-…`, `xapp-…`; formats from
  https://docs.slack.dev/authentication/tokens)

with `[redacted]`."""

from __future__ import annotations

import os
import re

SECRET_ENV = ("OPENAI_API_KEY", "ADVISOR_API_KEY", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET",
              "SLACK_CLIENT_SECRET", "GPU_ADVISOR_API_TOKEN")
REDACTED = "[redacted]"
_SHAPES = re.compile(r"(?:sk-[A-Za-z0-9_-]{16,}|xox[abposre]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,})")
_MIN_SECRET_LEN = 8  # shorter values (a test's "x") would redact ordinary words
_PREFIXES = ("sk-", "xox", "xapp-")  # found by substring search, then matched there: a regex scan of a 100 kB
#                                       result costs ~6 ms a turn, this ~0.1 ms


def scrub(text: str | None) -> str | None:
    """`text` with credentials replaced by REDACTED (None stays None)."""
    if not text:
        return text
    for name in SECRET_ENV:
        value = os.environ.get(name, "").strip()
        if len(value) >= _MIN_SECRET_LEN and value in text:
            text = text.replace(value, REDACTED)
    return _redact_shapes(text)


def _redact_shapes(text: str) -> str:
    """`text` with each token-shaped word (`_SHAPES` at a word start) replaced by REDACTED."""
    spans: list[tuple[int, int]] = []
    for prefix in _PREFIXES:
        at = text.find(prefix)
        while at != -1:
            before = text[at - 1] if at else " "
            found = None if before.isalnum() or before == "_" else _SHAPES.match(text, at)
            if found:
                spans.append(found.span())
            at = text.find(prefix, at + 1)
    if not spans:
        return text
    out, done = [], 0
    for start, end in sorted(spans):
        if start >= done:
            out += [text[done:start], REDACTED]
            done = end
    return "".join(out) + text[done:]
