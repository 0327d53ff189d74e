"""What one conversational turn returns, whichever driver (LLM agent or deterministic dialog) produced it.

Every interface renders this object: the CLI prints `answer` (or the JSON of `to_contract()`),
the web chat shows `answer`, `steps`, the `options` table and the `memory` chart, Slack turns it into blocks.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from advisor.analysis.steps import Step as Step  # the Turn carries the analysis's steps; imported from here too
from advisor.estimator.results import BREAKDOWN_KEYS, Breakdown
from knowledge.pydantic_models import pydantic_model  # also installs the hook that makes a struct a pydantic field
from rules.findings import Finding


class Number(BaseModel):
    """A number shown to the user, with its unit and where it came from (a tool/formula or a catalog source)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    value: float
    unit: str
    source: str


class Fallback(BaseModel):
    """Why the model's answer was replaced by the deterministic one. `reason` is a stable code (the agent's
    `AgentUnavailable.reason`: timeout, unreachable, rate_limited, server_error, tools_failed, ungrounded,
    unsafe_text, not_configured, circuit_open, …, "reading" when the structured reader's answer was unusable and the
    offline reader read the message (Settings.reader = "structured"), or "error" for an unexpected failure)."""

    model_config = ConfigDict(extra="forbid")
    reason: str
    detail: str = ""  # short technical detail (no secrets: exception text cut to 160 characters)


Verdict = Literal["yes", "no", "with_changes"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _LeadConfig(_Open):
    gpu: str
    count: int


# the estimator's Breakdown fields (bytes by purpose and their total), after the configuration they are of;
# pydantic orders the fields of several bases from the last base to the first
_BYTES = pydantic_model(Breakdown, _Open, only=(*BREAKDOWN_KEYS, "total"))


class MemoryBreakdown(_BYTES, _LeadConfig):  # type: ignore[misc,valid-type]
    """Memory per GPU of the answer's lead configuration, in bytes: weights + gradients + optimizer states +
    activations + KV cache + runtime overhead = total; `capacity` is the card's memory, `usable` what the engine
    may fill (advisor.estimator.memory)."""

    capacity: int = 0
    usable: int = 0


class ContractFinding(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rule_id: str
    severity: str
    message: str
    source: str


class AskContract(BaseModel):
    """`gpu-advisor ask --json` (DESIGN.md): the answer, then its parts as structured fields."""

    model_config = ConfigDict(extra="forbid")
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


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str  # markdown, in the user's language
    lang: Literal["zh", "en"] = "en"
    mode: Literal["llm", "deterministic"] = "deterministic"
    questions: list[str] = []  # clarifying questions, when the workload is underspecified
    numbers: list[Number] = []
    findings: list[Finding] = []
    options: list[dict[str, Any]] = []  # ranked options, as `gpu-advisor recommend --json` gives them
    memory: dict[str, Any] | None = None  # breakdown of the first option for the chart: bytes per part + capacity
    steps: list[Step] = []
    workload: dict[str, Any] = {}  # the workload and constraints as understood after this turn
    note: str = ""  # e.g. "the model was unreachable; this is the deterministic answer"
    model_name: str | None = None  # LLM model name in llm mode
    fallback: Fallback | None = None  # set when the LLM driver was asked and its answer was replaced
    extra: dict[str, Any] = Field(default_factory=dict)

    def contract(self) -> AskContract:
        """The typed `gpu-advisor ask --json` contract. `intent`, `verdict` and `assumptions` are what the dialog
        recorded for this turn (`extra`); `breakdown` is the memory chart's configuration."""
        verdict = self.extra.get("answer_verdict")
        mem = self.memory or {}
        breakdown = MemoryBreakdown(**{k: v for k, v in mem.items() if k in MemoryBreakdown.model_fields}) \
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
        return self.contract().model_dump(mode="json")


def fallback_of(exc: BaseException, detail: str = "") -> Fallback:
    """The Fallback for an LLM driver failure: the agent's own reason code when it gave one, else "error"."""
    reason = getattr(exc, "reason", None)
    return Fallback(reason=reason if isinstance(reason, str) and reason else "error", detail=detail[:160])
