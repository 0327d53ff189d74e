"""The advisor's tool surface: typed tools over the estimator, recommender, rules and catalog.

Both conversation drivers use it. Each tool is a plain function of a pydantic argument model; call any of them
by name with :func:`call_tool`, which validates the arguments, runs the tool, times it and never raises: an
invalid call returns a `ToolResult` with `ok=False` and a readable error naming the field and what is accepted.

A result holds what the model sees (`data`: a summary, the numbers with units and display strings, formulas,
assumptions, findings from rule metadata) and what the interfaces need beyond it (`artifact`: options table,
memory breakdown for the chart). Numbers are SI (bytes, seconds, FLOP/s, W; money with its currency); display
strings give GiB and GB side by side (1 GiB = 2^30 B, 1 GB = 1e9 B).

The tools live in `tool_estimates` (memory, speed, training time, TCO), `tool_hardware` (recommend, compare,
lookups) and `tool_explain` (rules, claims, the clarifying question); their arguments in `tool_args`, their
results in `tool_results`, the display of numbers in `tool_format`. This module registers them.

The LangChain wrappers (:func:`langchain_tools`) are built lazily, so importing this module does not import
LangChain. The agent never lets LangChain execute a tool itself: it routes every call through
:func:`call_tool` (complete mediation), so a name outside :data:`ALLOWED` is refused in code.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from advisor.conversation.tools.args import (
    AskArgs,
    CompareGpusArgs,
    EstimateMemoryArgs,
    EstimateThroughputArgs,
    ExplainArgs,
    LookupGpuArgs,
    LookupModelArgs,
    RecommendArgs,
    TcoArgs,
    TrainTimeArgs,
)
from advisor.conversation.tools.estimates import (
    estimate_memory_tool,
    estimate_throughput_tool,
    tco_tool,
    train_time_tool,
)
from advisor.conversation.tools.explain import ask_clarifying_question_tool, explain_rule_or_claim_tool
from advisor.conversation.tools.hardware import compare_gpus_tool, lookup_gpu_tool, lookup_model_tool, recommend_tool
from advisor.conversation.tools.results import ToolOutput, ToolResult, finding_dict, jsonable
from knowledge.errors import AdvisorError
from knowledge.structs import StructError, Value

log = logging.getLogger(__name__)


class ToolSpec(Value):
    name: str
    args: type[BaseModel]
    run: Callable[[Any], ToolOutput]
    description: str
    return_direct: bool = False


def _spec(name: str, args: type[BaseModel], run: Callable[[Any], ToolOutput], *, return_direct: bool = False,
          extra: str = "") -> ToolSpec:
    doc = (run.__doc__ or "").strip().splitlines()[0]
    return ToolSpec(name, args, run, (doc + (" " + extra if extra else "")).strip(), return_direct)


TOOLS: dict[str, ToolSpec] = {s.name: s for s in (
    _spec("estimate_memory", EstimateMemoryArgs, estimate_memory_tool,
          extra="Give `gpu` to check the fit. Use tp/gpus for multi-GPU layouts."),
    _spec("estimate_throughput", EstimateThroughputArgs, estimate_throughput_tool),
    _spec("train_time", TrainTimeArgs, train_time_tool),
    _spec("recommend", RecommendArgs, recommend_tool,
          extra="Use it for 'which GPUs should I buy/rent' questions; region 'cn' for mainland China."),
    _spec("compare_gpus", CompareGpusArgs, compare_gpus_tool),
    _spec("tco", TcoArgs, tco_tool),
    _spec("lookup_gpu", LookupGpuArgs, lookup_gpu_tool),
    _spec("lookup_model", LookupModelArgs, lookup_model_tool),
    _spec("explain_rule_or_claim", ExplainArgs, explain_rule_or_claim_tool,
          extra="Use it when the user quotes a figure or claim from an article, a guide or a vendor."),
    _spec("ask_clarifying_question", AskArgs, ask_clarifying_question_tool, return_direct=True),
)}

ALLOWED: frozenset[str] = frozenset(TOOLS)

# The compact tool surface (Settings.tool_surface = "compact"), for small local models: the sizing tools only, each
# with the arguments a sizing question sets (None: all of them) and no field titles or descriptions. The full
# surface's argument schemas are 7,268 prompt tokens (SmolLM2's tokenizer, measured with llama.cpp), which a small
# model on a CPU evaluates for minutes; the compact one about 1,140. Calls still go through
# `call_tool`, which validates against the full argument model, and `ALLOWED` stays the allow-list.
COMPACT: dict[str, tuple[str, ...] | None] = {
    "estimate_memory": ("model", "task", "weights", "context", "concurrency", "gpus", "gpu"),
    "recommend": ("model", "task", "weights", "context", "concurrency", "budget", "currency", "region"),
    "lookup_gpu": None,
    "lookup_model": None,
    "ask_clarifying_question": None,
}


def compact_schema(name: str) -> dict[str, Any]:
    """The JSON schema tool `name` shows on the compact surface: its COMPACT fields, without titles/descriptions."""
    full = TOOLS[name].args.model_json_schema()
    keep = COMPACT[name]
    props = {k: {key: v for key, v in p.items() if key not in ("title", "description")}
             for k, p in full["properties"].items() if keep is None or k in keep}
    required = [k for k in full.get("required", []) if k in props]
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    if "$defs" in full:
        schema["$defs"] = full["$defs"]
    return schema


def call_tool(name: Any, arguments: Any) -> ToolResult:
    """Validate and run tool `name`; never raises. Errors come back as `ok=False` with a readable message."""
    start = time.perf_counter()
    raw = arguments
    shown_name = str(name)[:80] if name is not None else "<none>"
    try:
        if not isinstance(name, str) or name not in TOOLS:
            raise AdvisorError(f"unknown tool '{shown_name}'", field="tool", accepted=", ".join(sorted(TOOLS)))
        spec = TOOLS[name]
        if isinstance(raw, str):
            try:
                raw = json.loads(raw) if raw.strip() else {}
            except json.JSONDecodeError as exc:
                raise AdvisorError(f"arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos})",
                                   field="arguments", accepted="a JSON object") from None
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise AdvisorError(f"arguments of {name} must be an object, not {type(raw).__name__}",
                               field="arguments", accepted="a JSON object")
        try:
            args = spec.args.model_validate(dict(raw))
        except ValidationError as exc:
            raise AdvisorError(f"invalid arguments for {name}: {validation_text(exc)}",
                               field=_first_loc(exc)) from None
        out = spec.run(args)
        body = dict(out.data)
        if out.findings and "findings" not in body:
            body["findings"] = [finding_dict(f) for f in out.findings]
        data = _finite({"tool": name, "ok": True, "summary": out.summary, **body})
        numbers = [n for n in _finite(out.numbers) if isinstance(n.get("value"), (int, float))]
        return ToolResult(name, True, _safe_args(raw), data, out.summary, numbers, list(out.findings),
                          out.artifact, time.perf_counter() - start)
    except AdvisorError as exc:
        message = str(exc)
    except (ValidationError, StructError) as exc:  # a tool built an invalid internal object from valid arguments
        message = f"{shown_name}: {validation_text(exc)}"
    except Exception as exc:
        log.exception("tool %s failed", shown_name)
        message = f"internal error in {shown_name} ({type(exc).__name__}); try other arguments"
    data = {"tool": shown_name, "ok": False, "error": message}
    return ToolResult(shown_name, False, _safe_args(raw), data, "", [], [], {}, time.perf_counter() - start,
                      message)


def validation_text(exc: ValidationError | StructError) -> str:
    """pydantic errors as 'field: message (got value)'; for unknown fields, the accepted ones."""
    parts = []
    for err in exc.errors()[:6]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            model = getattr(exc, "title", "")
            accepted = _accepted_fields(model)
            msg = "unknown field" + (f" (accepted: {accepted})" if accepted else "")
            parts.append(f"{loc}: {msg}")
            continue
        got = err.get("input")
        shown = repr(got)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        parts.append(f"{loc}: {msg} (got {shown})" if "input" in err and not isinstance(got, dict) else f"{loc}: {msg}")
    return "; ".join(parts)


def _accepted_fields(title: str) -> str:
    for spec in TOOLS.values():
        if spec.args.__name__ == title:
            return ", ".join(spec.args.model_fields)
    return ""


def _first_loc(exc: ValidationError | StructError) -> str | None:
    errors = exc.errors()
    return ".".join(str(p) for p in errors[0]["loc"]) if errors and errors[0].get("loc") else None


def _safe_args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, Mapping):
        return {str(k)[:80]: jsonable(v) for k, v in list(raw.items())[:40]}
    return {"raw": str(raw)[:300]}


def _finite(obj: Any) -> Any:
    """Replace NaN/inf anywhere in a result by None (they must never reach a user)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


# ==============================================================================================================
# LangChain wrappers (lazy)
# ==============================================================================================================

def langchain_tools(names: Iterable[str] | None = None, *, compact: bool = False) -> list[Any]:
    """StructuredTools with the pydantic schemas above (`compact`: the COMPACT surface and its schemas); each call
    goes through :func:`call_tool`.

    Content is the JSON the model reads, the artifact the full ToolResult (response_format content_and_artifact).
    """
    from langchain_core.tools import StructuredTool  # optional dependency: langchain_core only with the llm extra

    tools = []
    for name in (names or (COMPACT if compact else TOOLS)):
        spec = TOOLS[name]
        schema: Any = compact_schema(name) if compact else spec.args

        def _run(_name: str = name, **kwargs: Any) -> tuple[str, ToolResult]:
            result = call_tool(_name, kwargs)
            return result.content(), result

        tools.append(StructuredTool.from_function(
            func=_run, name=spec.name, description=spec.description, args_schema=schema,
            response_format="content_and_artifact", return_direct=spec.return_direct, infer_schema=False))
    return tools


__all__ = [
    "ALLOWED",
    "COMPACT",
    "TOOLS",
    "AskArgs",
    "CompareGpusArgs",
    "EstimateMemoryArgs",
    "EstimateThroughputArgs",
    "ExplainArgs",
    "LookupGpuArgs",
    "LookupModelArgs",
    "RecommendArgs",
    "TcoArgs",
    "ToolOutput",
    "ToolResult",
    "ToolSpec",
    "TrainTimeArgs",
    "call_tool",
    "compact_schema",
    "langchain_tools",
    "validation_text",
]
