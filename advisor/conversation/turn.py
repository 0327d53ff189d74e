"""What one conversational turn returns, whichever driver (LLM agent or deterministic dialog) produced it.

Every interface renders this object: the CLI prints `answer` (or the JSON of `to_contract()`),
the web chat shows `answer`, `steps`, the `options` table and the `memory` chart, Slack turns it into blocks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import msgspec

from advisor.analysis.steps import Step as Step  # the Turn carries the analysis's steps; imported from here too
from advisor.estimator.results import BREAKDOWN_KEYS
from knowledge.structs import Frozen, Mutable, NonNegativeInt, Value, dump, fields, validate
from rules.findings import Finding


class Number(Value, kw_only=True, forbid_unknown_fields=True):
    """A number shown to the user, with its unit and where it came from (a tool/formula or a catalog source).
    Made by the code by the hundred a turn (`render.book`): typed, not checked again; a stored one is read by
    `load_turn` (types checked, unknown fields refused)."""

    name: str
    value: float
    unit: str
    source: str


class Fallback(Frozen):
    """Why the model's answer was replaced by the deterministic one. `reason` is a stable code (the agent's
    `AgentUnavailable.reason`: timeout, unreachable, rate_limited, server_error, tools_failed, ungrounded,
    unsafe_text, not_configured, circuit_open, …, "reading" when the structured reader's answer was unusable and the
    offline reader read the message (Settings.reader = "structured"), or "error" for an unexpected failure)."""

    reason: str
    detail: str = ""  # short technical detail (no secrets: exception text cut to 160 characters)


Verdict = Literal["yes", "no", "with_changes"]


class _LeadConfig(Frozen):
    gpu: str
    count: int


# the estimator's Breakdown fields (bytes by purpose and their total), after the configuration they are of: the
# names taken from Breakdown, not written again; integers of bytes, as the contract writes Breakdown.to_contract()
_BYTE_FIELDS = (*BREAKDOWN_KEYS, "total")
_STRUCT_CLASS: Any = type(_LeadConfig)  # the checked structs' metaclass: a class from the fields' annotations
_BYTES = _STRUCT_CLASS("_Bytes", (_LeadConfig,), {
    "__module__": __name__, "__annotations__": dict.fromkeys(_BYTE_FIELDS, NonNegativeInt),
    **dict.fromkeys(_BYTE_FIELDS, 0)})


class MemoryBreakdown(_BYTES):  # type: ignore[misc,valid-type]
    """Memory per GPU of the answer's lead configuration, in bytes: weights + gradients + optimizer states +
    activations + KV cache + runtime overhead = total; `capacity` is the card's memory, `usable` what the engine
    may fill (advisor.estimator.memory)."""

    capacity: int = 0
    usable: int = 0


class ContractFinding(Frozen):
    rule_id: str
    severity: str
    message: str
    source: str


class AskContract(Frozen):
    """`gpu-advisor ask --json` (DESIGN.md): the answer, then its parts as structured fields."""

    answer: str
    intent: str | None  # advisor.conversation.reader.intent.INTENTS; None when no question was answered (greeting, error)
    verdict: Verdict | None  # feasibility questions only
    questions: list[str]
    numbers: list[Number]
    options: list[dict[str, Any]]  # each as `gpu-advisor recommend --json` gives an option (its own contract)
    breakdown: MemoryBreakdown | None
    findings: list[ContractFinding]
    assumptions: list[str]
    mode: Literal["llm", "deterministic"]
    fallback: Fallback | None = None  # null unless the LLM driver was asked and its answer replaced (issue 19)
    note: str = ""  # the sentence the user sees about it ("" when none)
    request: dict[str, Any] | None = None  # the typed reading of the message (advisor.conversation.reader.request)


class Turn(Mutable):
    """One turn's answer and its parts. Mutable: the dialog finishes the answer text after composing it."""

    answer: str  # markdown, in the user's language
    lang: Literal["zh", "en"] = "en"
    mode: Literal["llm", "deterministic"] = "deterministic"
    questions: list[str] = msgspec.field(default_factory=list)  # clarifying questions, when underspecified
    numbers: list[Number] = msgspec.field(default_factory=list)
    findings: list[Finding] = msgspec.field(default_factory=list)
    options: list[dict[str, Any]] = msgspec.field(default_factory=list)  # as `gpu-advisor recommend --json` gives
    memory: dict[str, Any] | None = None  # breakdown of the first option for the chart: bytes per part + capacity
    steps: list[Step] = msgspec.field(default_factory=list)
    workload: dict[str, Any] = msgspec.field(default_factory=dict)  # workload and constraints as understood now
    note: str = ""  # e.g. "the model was unreachable; this is the deterministic answer"
    model_name: str | None = None  # LLM model name in llm mode
    fallback: Fallback | None = None  # set when the LLM driver was asked and its answer was replaced
    extra: dict[str, Any] = msgspec.field(default_factory=dict)

    def contract(self) -> AskContract:
        """The typed `gpu-advisor ask --json` contract. `intent`, `verdict` and `assumptions` are what the dialog
        recorded for this turn (`extra`); `breakdown` is the memory chart's configuration."""
        verdict = self.extra.get("answer_verdict")
        mem = self.memory or {}
        breakdown = MemoryBreakdown(**{k: v for k, v in mem.items() if k in fields(MemoryBreakdown)}) \
            if mem.get("gpu") and mem.get("count") else None
        return AskContract(
            answer=self.answer, intent=self.extra.get("intent"),
            verdict=verdict if verdict in ("yes", "no", "with_changes") else None,
            questions=self.questions, numbers=self.numbers, options=self.options, breakdown=breakdown,
            findings=[ContractFinding(rule_id=f.rule_id, severity=f.severity, message=f.text(self.lang),
                                      source=f.source) for f in self.findings],
            assumptions=[str(a) for a in self.extra.get("assumptions", [])], mode=self.mode,
            fallback=self.fallback, note=self.note, request=self.extra.get("request"))

    def to_contract(self) -> dict[str, Any]:
        """The `gpu-advisor ask --json` shape from DESIGN.md (the existing keys answer, questions, numbers,
        findings, mode, and intent, verdict, options, breakdown, assumptions, fallback, note)."""
        return dump(self.contract(), json=True)


def fallback_of(exc: BaseException, detail: str = "") -> Fallback:
    """The Fallback for an LLM driver failure: the agent's own reason code when it gave one, else "error"."""
    reason = getattr(exc, "reason", None)
    return Fallback(reason=reason if isinstance(reason, str) and reason else "error", detail=detail[:160])


def load_turn(data: str | bytes | Mapping[str, Any]) -> Turn:
    """A stored turn (its JSON text, or the parsed dict) as a Turn; a StructError (one line) when it is not one.
    Python's json reads the `Infinity`/`NaN` an older store wrote for a non-finite number."""
    return validate(Turn, json.loads(data) if isinstance(data, (str, bytes)) else data)
