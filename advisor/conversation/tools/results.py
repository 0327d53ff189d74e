"""What a tool returns (`ToolOutput`; `call_tool` wraps it into a `ToolResult`) and the helpers every tool
shares: the catalog, citations, capped lists, findings as the model sees them, the rules engine, JSON-safe values."""

from __future__ import annotations

import datetime as dt
import json
import logging
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from advisor.conversation.turn import Number, Step
from knowledge.catalog import load_catalog
from knowledge.errors import NotValidated
from knowledge.structs import dump
from rules.findings import Finding

if TYPE_CHECKING:
    from knowledge.schemas import GpuSpec, ModelSpec
    from rules.facts import ConfigFacts

if TYPE_CHECKING:
    from knowledge.catalog import Catalog

log = logging.getLogger(__name__)

MAX_FORMULAS = 8
MAX_ASSUMPTIONS = 8


class ToolOutput(msgspec.Struct):
    """What a tool function returns (call_tool wraps it into a ToolResult)."""

    summary: str
    data: dict[str, Any]
    numbers: list[dict[str, Any]] = msgspec.field(default_factory=list)
    findings: list[Finding] = msgspec.field(default_factory=list)
    artifact: dict[str, Any] = msgspec.field(default_factory=dict)


class ToolResult(msgspec.Struct):
    name: str
    ok: bool
    arguments: dict[str, Any]
    data: dict[str, Any]
    summary: str = ""
    numbers: list[dict[str, Any]] = msgspec.field(default_factory=list)
    findings: list[Finding] = msgspec.field(default_factory=list)
    artifact: dict[str, Any] = msgspec.field(default_factory=dict)
    duration_s: float = 0.0
    error: str = ""

    def content(self) -> str:
        """The JSON the model reads (compact, UTF-8)."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"), default=str)

    def step(self) -> Step:
        return Step(name=self.name, arguments=jsonable(self.arguments), duration_s=round(self.duration_s, 6),
                    ok=self.ok, summary=self.summary if self.ok else f"error: {self.error}")

    def turn_numbers(self) -> list[Number]:
        return [to_number(n) for n in self.numbers]


def to_number(n: Mapping[str, Any]) -> Number:
    return Number(name=str(n["name"]), value=float(n["value"]), unit=str(n["unit"]), source=str(n.get("source", "")))


def catalog() -> Catalog:
    return load_catalog()


def cites(spec: GpuSpec | ModelSpec, field_name: str) -> str:
    ids = (getattr(spec, "cite", {}) or {}).get(field_name) or []
    return "catalog: " + ", ".join(ids) if ids else "catalog"


def cap(items: Iterable[str], n: int) -> list[str]:
    items = [str(i) for i in items]
    return items[:n] + ([f"… {len(items) - n} more"] if len(items) > n else [])


def finding_dict(f: Finding) -> dict[str, Any]:
    """A finding as the model sees it (the application renders the wording and citation for the user)."""
    out: dict[str, Any] = {"rule_id": f.rule_id, "severity": f.severity, "message": f.message}
    if f.alternative:
        out["alternative"] = f.alternative
    if f.as_of:
        out["as_of"] = f.as_of
    return out


def evaluate_rules(facts: Sequence[Mapping[str, Any] | ConfigFacts]) -> list[Finding]:
    """Findings of the rules engine for `facts`; none when the engine is not available (logged)."""
    if not facts:
        return []
    try:
        from rules.engine import evaluate  # optional: the answer degrades when rules.engine fails to import
    except ImportError:
        return []
    try:
        return list(evaluate(facts))
    except NotValidated:
        raise  # the rules could not be checked: the tool fails rather than answer without findings
    except Exception:
        log.exception("rules engine failed")
        return []


def dedupe_findings(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    out = []
    for f in findings:
        key = (f.rule_id, f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def jsonable(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):  # a pydantic model (a tool's arguments)
        return jsonable(obj.model_dump(mode="json"))
    if isinstance(obj, msgspec.Struct):
        return jsonable(dump(obj, json=True))
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat()
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if hasattr(obj, "__dict__"):
        return {k: jsonable(v) for k, v in vars(obj).items() if not k.startswith("_")}
    return str(obj)
