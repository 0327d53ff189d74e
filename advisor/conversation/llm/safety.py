"""What an LLM answer may not show, whatever its numbers: checks run before grounding (agent.AgentDriver).

    refusal(answer, results) -> reason key | None

* "tools_failed": no tool call of the turn succeeded, yet the answer names hardware (a GPU, "显卡", …) — a
  recommendation with nothing computed behind it (e.g. after three failed calls, one to a tool that does not
  exist), which grounding alone let through when the text carried no numbers;
* "unsafe_text": the answer asks the user for a secret (API key, password, token, 密钥/密码) or names a web
  address (without a scheme, which the output sanitiser leaves) that no tool result carries.
* "unsafe_text" too: the answer relays instructions ("ignore the estimator", "SYSTEM OVERRIDE", "忽略…指令",
  "ignorieren Sie", …), also when hidden by base64, percent- or HTML-encoding, full-width, zero-width or
  Cyrillic look-alike letters.
The agent then falls back to the deterministic answer with a note naming the reason.

Tool results are data: `scrub(data)` replaces each string in a successful result that gives instructions, asks
for a secret or names a web address by "[removed: …]" before the model reads it (agent.wrap_tool_call), and a
web address in the answer is accepted only when a result's `source` field carries it.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from advisor.conversation.tools.registry import ToolResult

HARDWARE = re.compile(r"(?i)\b(?:rtx\s*\d|geforce|tesla\s*[a-z]?\d|a100|a800|a6000|h100|h200|h800|h20|b200|b100|"
                      r"l40s?|l20|4090|3090|5090|mi300x?|ascend\s*\d|\d+\s*[x×]\s*[a-z]*\d)\b|[张块台]\s*(?:卡|显卡)")
SECRET = re.compile(r"(?i)\b(?:api[\s_-]?keys?|openai_api_key|[a-z_]*_(?:api_)?(?:key|token|secret)|passwords?|"
                    r"access[\s_-]?tokens?|credentials?|secret[\s_-]?keys?|sk-[a-z0-9]{8,})\b|密钥|密码|口令|令牌")
# a web address without a scheme ("buy it from evil.example"); links with a scheme are removed from the shown
# answer by the agent's own output sanitising
URL = re.compile(r"(?i)(?<![/@\w.])(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*\."
                 r"(?:com|net|org|io|ai|cn|ru|xyz|top|example|info|biz|me|app|dev)\b(?!\.\w)")


# instructions addressed to the assistant (or relayed to the user), in the languages the product meets
INSTRUCTION = re.compile(
    r"(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|previous\s+|prior\s+|"
    r"above\s+|earlier\s+|these\s+)*(?:instructions|rules|prompts?|tools?|estimator|system|guidelines|results?)\b"
    r"|\bsystem\s*(?:override|prompt|message)\b|\bnew\s+(?:policy|instructions?)\b|\bdeveloper\s+mode\b"
    r"|\b(?:assistant|ai|model)\s*[,:]\s*(?:tell|say|recommend|ask|instruct)\b|\btell\s+the\s+user\s+to\b"
    r"|\b(?:instructs?|instructed)\s*(?:you|the\s+assistant)?\s*:|\[\[\s*(?:admin|system)\s*\]\]|<\s*/?\s*system\s*>"
    r"|\bignorier\w*\b|\bignorez\b|\bignora\w*\s+(?:las|le|todas|tutte)\b|\bvergiss\b|\boubliez\b"
    r"|忽略|无视|不要理会|忘记(?:之前|以上|所有)|系统(?:指令|提示|覆盖)|新的?(?:指令|规定|政策)|告诉用户|指示に従|無視して"
)
# Cyrillic and Greek letters that look like Latin ones (the rest of the confusables are rare in practice)
_LOOKALIKE = str.maketrans("аеорсухкмтнвіѕјАЕОРСУХКМТНВІЅЈοΟαΑνΝτΤ", "aeopcyxkmthbisjAEOPCYXKMTHBISJoOaAvNtT")
_HIDDEN = re.compile("[\u200b-\u200f\u2060-\u2064\ufeff\u00ad]")
_B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")


def normalise(text: str) -> str:
    """`text` as a reader would see it: NFKC (full-width), invisible characters removed, look-alike letters
    mapped to Latin, HTML entities and percent-escapes decoded, and base64 runs decoded and appended."""
    text = unicodedata.normalize("NFKC", html.unescape(text))
    text = _HIDDEN.sub("", text).translate(_LOOKALIKE)
    if "%" in text:
        text = urllib.parse.unquote(text)
    decoded = []
    for run in _B64.findall(text):
        try:
            plain = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if plain.isprintable():
            decoded.append(plain)
    return " ".join([text, *decoded])


def _unsafe(text: str) -> bool:
    seen = normalise(text)
    return bool(SECRET.search(seen) or INSTRUCTION.search(seen) or URL.search(seen) or _SCHEME.search(seen))


_SCHEME = re.compile(r"(?i)\b(?:https?|ftp|javascript|data|file):")
_KEEP = {"source", "sources", "url", "as_of", "id"}  # citation fields: catalog data, shown with every number


def scrub(data: object, _key: str = "") -> object:
    """`data` (a tool result) with every string that gives instructions, asks for a secret or names a web
    address replaced by a marker; citation fields are kept. The model reads this, never the raw text."""
    if isinstance(data, dict):
        return {k: scrub(v, str(k)) for k, v in data.items()}
    if isinstance(data, list):
        return [scrub(v, _key) for v in data]
    if isinstance(data, str) and _key not in _KEEP and _unsafe(data):
        return "[removed: text in the data that gave instructions or named an address]"
    return data


def _sources_text(results: Iterable[ToolResult]) -> str:
    """The citation fields of the results (lower case): the only place an address in an answer may come from."""
    out: list[str] = []

    def walk(node: object, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif key in ("source", "sources", "url") and isinstance(node, str):
            out.append(node.lower())

    for r in results:
        walk(r.data)
    return " ".join(out)


def refusal(answer: str, results: list[ToolResult]) -> str | None:
    """The reason key ("tools_failed", "unsafe_text") when `answer` must not be shown, else None."""
    answer = normalise(answer)
    if SECRET.search(answer) or INSTRUCTION.search(answer):
        return "unsafe_text"
    known = _sources_text(r for r in results if r.ok)
    for m in URL.finditer(answer):
        if m.group(0).lower().rstrip(".,;:") not in known:
            return "unsafe_text"
    if not any(r.ok for r in results) and HARDWARE.search(answer):  # a card, not "GPU"
        return "tools_failed"
    return None
