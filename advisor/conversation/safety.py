"""What an LLM answer may not show, whatever its numbers: checks run before grounding (agent.AgentDriver).

    refusal(answer, results) -> reason key | None

* "tools_failed": no tool call of the turn succeeded, yet the answer names hardware (a GPU, "显卡", …) — a
  recommendation with nothing computed behind it (e.g. after three failed calls, one to a tool that does not
  exist), which grounding alone let through when the text carried no numbers;
* "unsafe_text": the answer asks the user for a secret (API key, password, token, 密钥/密码) or names a web
  address (without a scheme, which the output sanitiser leaves) that no tool result carries.
The agent then falls back to the deterministic answer with a note naming the reason.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

HARDWARE = re.compile(r"(?i)\b(?:rtx\s*\d|geforce|tesla\s*[a-z]?\d|a100|a800|a6000|h100|h200|h800|h20|b200|b100|"
                      r"l40s?|l20|4090|3090|5090|mi300x?|ascend\s*\d|\d+\s*[x×]\s*[a-z]*\d)\b|[张块台]\s*(?:卡|显卡)")
SECRET = re.compile(r"(?i)\b(?:api[\s_-]?keys?|openai_api_key|[a-z_]*_(?:api_)?(?:key|token|secret)|passwords?|"
                    r"access[\s_-]?tokens?|credentials?|secret[\s_-]?keys?|sk-[a-z0-9]{8,})\b|密钥|密码|口令|令牌")
# a web address without a scheme ("buy it from evil.example"); links with a scheme are removed from the shown
# answer by the agent's own output sanitising
URL = re.compile(r"(?i)(?<![/@\w.])(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\."
                 r"(?:com|net|org|io|ai|cn|ru|xyz|top|example|info|biz|me|app|dev)\b(?!\.\w)")


def _results_text(results: Iterable[Any]) -> str:
    return " ".join(json.dumps(getattr(r, "data", {}), ensure_ascii=False, default=str).lower() for r in results)


def refusal(answer: str, results: list[Any]) -> str | None:
    """The reason key ("tools_failed", "unsafe_text") when `answer` must not be shown, else None."""
    answer = unicodedata.normalize("NFKC", answer).replace("\u200b", "")  # full-width and zero-width tricks
    if SECRET.search(answer):
        return "unsafe_text"
    known = _results_text(r for r in results if getattr(r, "ok", False))
    for m in URL.finditer(answer):
        if m.group(0).lower().rstrip(".,;:") not in known:
            return "unsafe_text"
    if not any(getattr(r, "ok", False) for r in results) and HARDWARE.search(answer):  # a card, not "GPU"
        return "tools_failed"
    return None
