"""What one conversational turn returns, whichever driver (LLM agent or deterministic dialog) produced it.

Every interface renders this object: the CLI prints `answer` (or the JSON of `to_contract()`),
the web chat shows `answer`, `steps`, the `options` table and the `memory` chart, Slack turns it into blocks.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.findings import Finding


class Number(BaseModel):
    """A number shown to the user, with its unit and where it came from (a tool/formula or a catalog source)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    value: float
    unit: str
    source: str


class Step(BaseModel):
    """One tool call made during the turn (shown as a collapsible step in the web chat)."""

    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: dict[str, Any] = {}
    duration_s: float = 0.0
    ok: bool = True
    summary: str = ""


class Fallback(BaseModel):
    """Why the model's answer was replaced by the deterministic one. `reason` is a stable code (the agent's
    `AgentUnavailable.reason`: timeout, unreachable, rate_limited, server_error, tools_failed, ungrounded,
    unsafe_text, not_configured, circuit_open, …, or "error" for an unexpected failure)."""

    model_config = ConfigDict(extra="forbid")
    reason: str
    detail: str = ""  # short technical detail (no secrets: exception text cut to 160 characters)


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

    def to_contract(self) -> dict[str, Any]:
        """The `gpu-advisor ask --json` shape from DESIGN.md."""
        return {
            "answer": self.answer,
            "questions": self.questions,
            "numbers": [{"name": n.name, "value": n.value, "unit": n.unit, "source": n.source} for n in self.numbers],
            "findings": [
                {"rule_id": f.rule_id, "severity": f.severity, "message": f.text(self.lang), "source": f.source}
                for f in self.findings
            ],
            "mode": self.mode,
            "fallback": self.fallback.model_dump() if self.fallback else None,
            "note": self.note,
        }


def fallback_of(exc: BaseException, detail: str = "") -> Fallback:
    """The Fallback for an LLM driver failure: the agent's own reason code when it gave one, else "error"."""
    reason = getattr(exc, "reason", None)
    return Fallback(reason=reason if isinstance(reason, str) and reason else "error", detail=detail[:160])
