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
_SHAPES = re.compile(r"\b(?:sk-[A-Za-z0-9_-]{16,}|xox[abposre]-[A-Za-z0-9-]{8,}|xapp-[A-Za-z0-9-]{8,})")
_MIN_SECRET_LEN = 8  # shorter values (a test's "x") would redact ordinary words


def scrub(text: str | None) -> str | None:
    """`text` with credentials replaced by REDACTED (None stays None)."""
    if not text:
        return text
    for name in SECRET_ENV:
        value = os.environ.get(name, "").strip()
        if len(value) >= _MIN_SECRET_LEN and value in text:
            text = text.replace(value, REDACTED)
    return _SHAPES.sub(REDACTED, text)
