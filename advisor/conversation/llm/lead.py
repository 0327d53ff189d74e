"""The answer-first gate for the LLM agent: the first sentence of a model's answer must answer the question asked.

    lead = check_lead(answer, intent, pool)   # intent from advisor.conversation.reader.intent.classify
    lead.ok, lead.reason, lead.sentence, lead.verdict

Rules (the same shape the deterministic first screen has, advisor.conversation.render.firstscreen):
- The lead is the first sentence (`firstscreen.first_sentences`); a bare verdict sentence ("No." / "不够。") is read
  together with the sentence after it.
- For the intents with a deciding number (`intent.NUMBERED`) the lead carries a number *with its unit* of that
  intent's dimension which this turn's tool results hold (`grounding.Pool.match` on the readings of that dimension
  only; a bare number does not count):
      feasibility  memory (GiB/GB) or speed (tokens/s); when the question is a yes/no one ("will it fit?",
                   "够吗", not "how much memory …?"), also a yes/no word ("Yes", "No", "fits", "可以", "不够" …)
      how_many     a GPU or node count ("2× H100", "两张", "4 GPUs")
      how_long     a duration ("12.3 days", "40 GPU-hours", "3 天")
      how_much     money with its currency ("$1,900", "¥13.5万", "20 万元")
- For every question (any intent but "other": greetings and thanks may be answered with "OK.") the lead is not a
  preamble ("Sure!", "Let me check…", "好的，", "Here is…"); no lead is empty.
Failures are reasons, not exceptions: the agent re-asks once, then falls back to the deterministic answer.
"""

from __future__ import annotations

import re

from advisor.conversation.grounding.gate import Mention, Pool, extract
from advisor.conversation.reader.intent import NUMBERED
from advisor.conversation.render.firstscreen import first_sentences
from knowledge.structs import Value, replace

# the dimensions (grounding.Candidate.dim) a deciding number of each numbered intent may have
LEAD_DIMS: dict[str, frozenset[str]] = {
    "feasibility": frozenset({"bytes", "tokens/s"}),
    "how_many": frozenset({"gpus", "nodes"}),
    "how_long": frozenset({"s"}),
    "how_much": frozenset({"USD", "CNY", "money"}),
}
assert set(LEAD_DIMS) == set(NUMBERED)

_YES = re.compile(r"(?i)^\W*(?:yes|yep|it (?:does|will|can) fit|(?:it )?fits\b)|^\W*(?:可以|能|够|放得下|装得下|没问题|行)")
_NO = re.compile(r"(?i)^\W*(?:no\b|not\b|nope|it (?:does not|doesn't|won't|will not|cannot|can't)|(?:it )?does not fit)|"
                 r"^\W*(?:不够|不能|不行|放不下|装不下|不可以|否)")
_VERDICT_WORD = re.compile(r"(?i)\b(?:yes|no|not|cannot|can't|won't|doesn't|fits?|fitting|enough|short|exceeds?|"
                           r"too (?:small|little|large|big))\b|可以|不够|够|不行|能|放得下|放不下|装得下|装不下|不足|超出|差")
_PREAMBLE = re.compile(r"(?i)^\W*(?:sure|of course|certainly|absolutely|great question|good question|okay|ok|hi|hello|"
                       r"let me|let's|i will|i'll|i can help|i'd be happy|here is|here's|here are|to answer|"
                       r"thanks?|thank you)\b|^\W*(?:好的|当然|没问题[，,！!]|让我|我来|我将|下面|首先|您好|你好|谢谢|感谢)")
_BARE_VERDICT = re.compile(r"(?i)^\W*(?:yes|no|nope|yep|可以|不够|不行|能|不能|不可以)\W*$")
_YES_NO_QUESTION = re.compile(
    r"(?i)^\W*(?:will|would|can|could|does|do|is|are|should|may|might)\b|\b(?:fits?|enough|feasible|possible)\b|"
    r"吗|够不够|能不能|行不行|可不可以|是否|可否|能否|放得下|装得下")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+|>\s*)+")


class LeadCheck(Value):
    ok: bool
    sentence: str  # the lead that was checked
    reason: str = ""  # "" | "empty" | "preamble" | "no_number" | "no_verdict"
    verdict: str | None = None  # "yes" / "no" when a feasibility lead says so plainly


def lead_sentence(answer: str) -> str:
    """The first sentence; a bare "Yes." / "No." / "不够。" is read with the sentence after it."""
    text = "\n".join(_HEADING.sub("", line) for line in (answer or "").strip().splitlines())
    first = first_sentences(text, 1).strip()
    if _BARE_VERDICT.match(first):
        first = first_sentences(text, 2).strip()
    return first


def verdict_of(sentence: str) -> str | None:
    """"yes" / "no" when the sentence opens with one (English or Chinese), else None."""
    if _NO.match(sentence):
        return "no"
    if _YES.match(sentence):
        return "yes"
    return None


def asks_yes_no(question: str) -> bool:
    """Is the user's message a yes/no question ("Will it fit on one 4090?", "28GB 显存够吗")?"""
    return bool(_YES_NO_QUESTION.search(question or ""))


def check_lead(answer: str, intent: str, pool: Pool, *, yes_no: bool = False) -> LeadCheck:
    """Does the first sentence answer a question of this intent (module docstring)? `yes_no`: the question was a
    yes/no one (`asks_yes_no`), so a feasibility lead must also say yes or no."""
    sentence = lead_sentence(answer)
    if not sentence:
        return LeadCheck(False, sentence, "empty")
    verdict = verdict_of(sentence) if intent == "feasibility" else None
    dims = LEAD_DIMS.get(intent)
    if dims is None:
        preamble = intent != "other" and bool(_PREAMBLE.match(sentence))
        return LeadCheck(not preamble, sentence, "preamble" if preamble else "")
    if not any(_deciding(m, dims, pool) for m in extract(sentence)):
        return LeadCheck(False, sentence, "no_number", verdict)
    if intent == "feasibility" and yes_no and verdict is None and not _VERDICT_WORD.search(sentence):
        return LeadCheck(False, sentence, "no_verdict")
    return LeadCheck(True, sentence, "", verdict)


def _deciding(mention: Mention, dims: frozenset[str], pool: Pool) -> bool:
    """The mention has a reading of one of `dims` that a tool result holds."""
    readings = tuple(c for c in mention.candidates if c.dim in dims)
    return bool(readings) and pool.match(replace(mention, candidates=readings)) is not None


__all__ = ["LEAD_DIMS", "LeadCheck", "asks_yes_no", "check_lead", "lead_sentence", "verdict_of"]
