"""The operations behind the MCP server (`ui/api/mcp_server.py`) and the HTTP API (`ui/api/http.py`).

Each operation is a typed function of a pydantic argument model and returns one JSON object: the keys of the CLI's
`--json` contract (DESIGN.md) for the same computation, plus `summary` (one line for a model to quote), `numbers`
[{name, value, unit, display, source}], `findings` [{rule_id, severity, message, source, as_of}] and the
`assumptions`. The argument models are the conversation layer's own (`advisor.conversation.tools.registry`), so the LLM agent,
the MCP client and the HTTP client are offered the same inputs with the same bounds; the computations are that
layer's tool functions, which call the estimator, the recommender and the rules the CLI calls (same numbers).

Errors are `knowledge.errors.AdvisorError` with one line naming the field and what is accepted (`field`,
`accepted`, `suggestions` for unknown ids); nothing else escapes for user input.
"""

from __future__ import annotations

import math
import re
import typing
from collections.abc import Callable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from advisor.conversation.tools import registry as T
from advisor.workload import Region
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.quantities import Bytes
from knowledge.structs import StructError, Value
from ui.api.conversations import ask_turn
from ui.cli.commands.catalog import gpu_detail, gpu_row, model_detail, model_row

MAX_ASK_CHARS = 4000  # one advisor turn; the web chat's limit is of the same order


# ------------------------------------------------------------------------------------------------------------
# Argument models of the operations the conversation layer has no tool for

class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, str_max_length=300)


class ListGpusArgs(_Args):
    """Filters over the GPU catalog; the rows are `gpu-advisor gpus --json`'s."""

    region: Region = Field("global", description="as `gpu-advisor gpus --region`; every row carries the dated "
                                                 "China-market status (filter with `china_available`)")
    min_memory_gib: float | None = Field(None, ge=0, le=10_000, description="at least this much memory (GiB)")
    vendor: str | None = Field(None, max_length=40, description="e.g. 'nvidia', 'amd', 'huawei'")
    segment: str | None = Field(None, max_length=40, description="e.g. 'datacenter', 'consumer', 'workstation'")
    china_available: bool | None = Field(None, description="true: only cards whose China-market status is "
                                                           "'available' or 'china_variant'")
    query: str | None = Field(None, max_length=80, description="substring of the id, name or an alias")
    limit: int = Field(200, ge=1, le=200)


class ListModelsArgs(_Args):
    """Filters over the model catalog; the rows are `gpu-advisor models --json`'s."""

    family: str | None = Field(None, max_length=40, description="e.g. 'llama', 'qwen', 'deepseek'")
    min_params_b: float | None = Field(None, ge=0, le=100_000, description="at least this many parameters (billions)")
    max_params_b: float | None = Field(None, ge=0, le=100_000, description="at most this many parameters (billions)")
    moe: bool | None = Field(None, description="true: mixture-of-experts models only; false: dense only")
    query: str | None = Field(None, max_length=80, description="substring of the id, name or an alias")
    limit: int = Field(200, ge=1, le=200)


class AskTurnArgs(_Args):
    """One advisor turn in Chinese or English; give the returned `conversation_id` to continue the conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_max_length=MAX_ASK_CHARS)
    text: str = Field(min_length=1, max_length=MAX_ASK_CHARS, description="the question, in Chinese or English")
    conversation_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{1,64}$",
                                        description="continue this conversation (from an earlier result)")
    lang: Literal["zh", "en"] | None = Field(None, description="answer language (default: the question's)")


# ------------------------------------------------------------------------------------------------------------
# Strict input at the edge (the HTTP API and MCP; the LLM agent's calls go through the models' own lax parsing)

_NOT_FINITE_TEXT = re.compile(r"(?<![A-Za-z0-9_])[+-]?(?:inf(?:inity)?|nan)(?![A-Za-z0-9_-])", re.IGNORECASE)
_NUMBER_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _numeric_kinds(annotation: Any) -> set[type]:
    """The number and bool types a field's annotation admits (int, float, bool; through Optional)."""
    if annotation in (int, float, bool):
        return {annotation}
    return {a for a in typing.get_args(annotation) if a in (int, float, bool)}


def _field_of(model: type[BaseModel], name: str) -> Any:
    if name in model.model_fields:
        return model.model_fields[name]
    for field in model.model_fields.values():  # an alias (train_time's seq_len)
        choices = getattr(field.validation_alias, "choices", ())
        if name in choices:
            return field
    return None


def strict_input(model: type[BaseModel], raw: Mapping[str, Any], op: str, *, query: bool = False) -> None:
    """Refuse what pydantic's lax mode would quietly coerce: true/false for a number, a number written as a string
    ("12", "1_000", "  12  "), an empty or blank string. `query`: values are query-string text, where a number must
    be written plainly (no padding, no underscores). InputError naming the field."""
    for name, value in raw.items():
        field = _field_of(model, str(name))
        if field is None:
            continue  # unknown fields: the model's own "unknown field" error
        kinds = _numeric_kinds(field.annotation)
        numeric = kinds & {int, float}
        if query:
            if numeric and isinstance(value, str) and not _NUMBER_TEXT.fullmatch(value):
                raise InputError(f"invalid arguments for {op}: {name}: {_shown(value[:40])} is not a plain number",
                                 field=str(name), accepted="a number written plainly, e.g. 12 or 0.5 (no spaces or _)")
            continue
        what = "a valid integer" if numeric == {int} else "a number"
        if isinstance(value, bool) and numeric and bool not in kinds:
            raise InputError(f"invalid arguments for {op}: {name}: {str(value).lower()} is not {what}",
                             field=str(name), accepted=f"{what}, as a JSON number")
        if isinstance(value, str) and numeric:
            raise InputError(f"invalid arguments for {op}: {name}: {_shown(value[:40])} is text, not {what}",
                             field=str(name), accepted=f"{what}, as a JSON number unquoted (12, not \"12\")")
        texts = [value] if isinstance(value, str) else [v for v in value if isinstance(v, str)] \
            if isinstance(value, list) else []
        if any(not t.strip() for t in texts):
            raise InputError(f"invalid arguments for {op}: {name}: an empty string is not a value",
                             field=str(name), accepted="a non-empty value, or leave the field out")


# ------------------------------------------------------------------------------------------------------------
# Errors

def input_error(exc: ValidationError, model: type[BaseModel], op: str) -> InputError:
    """A pydantic error as one InputError: the field, the CLI-style one-line message and what is accepted."""
    return errors_to_input_error(exc.errors(), model, op)


def errors_to_input_error(errors: list[Any], model: type[BaseModel] | None, op: str,
                          skip: tuple[str, ...] = ()) -> InputError:
    """pydantic/FastAPI error dicts as one InputError; `skip`: leading loc parts to drop ("body", "query")."""
    parts = []
    for err in errors[:6]:
        loc = [str(p) for p in err.get("loc", ())]
        while loc and loc[0] in skip:
            loc = loc[1:]
        where = ".".join(loc) or "arguments"
        if err.get("type") == "extra_forbidden":
            parts.append(f"{where}: unknown field")
            continue
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        got = err.get("input")
        parts.append(f"{where}: {msg}" + (f" (got {_shown(got)})" if "input" in err and not isinstance(got, (dict, list))
                                          and err.get("type") != "missing" else ""))
    first = errors[0] if errors else {}
    loc = [str(p) for p in first.get("loc", ())]
    while loc and loc[0] in skip:
        loc = loc[1:]
    if first.get("type") == "json_invalid":  # loc is the character position
        return InputError(f"invalid arguments for {op}: the body is not valid JSON ({first.get('msg', '')})",
                          field="body", accepted="a JSON object")
    text = " ".join("; ".join(parts).split())
    return InputError(f"invalid arguments for {op}: {text}", field=".".join(loc) or "body",
                      accepted=_accepted(first, model))


def _shown(value: Any) -> str:
    """A rejected input as an error message quotes it: at most 60 characters, and never an inf or nan (an error
    body is shown too)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "a number that is not finite"
    text = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    return "text that names no finite number" if _NOT_FINITE_TEXT.search(text) else text


def _accepted(err: Mapping[str, Any], model: type[BaseModel] | None) -> str | None:
    """What the field accepts, from the error's context: the choices, the bounds, or the known fields."""
    ctx = err.get("ctx") or {}
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return ", ".join(model.model_fields) if model is not None else None
    if kind == "json_invalid":
        return "a JSON object"
    if "expected" in ctx:
        return str(ctx["expected"])
    if kind == "missing":
        return "a value (required)"
    if kind == "value_error" and "accepted: " in str(err.get("msg", "")):  # a validator's own "…; accepted: X"
        return str(err["msg"]).rsplit("accepted: ", 1)[1]
    bounds = [f"{sym} {ctx[k]:g}" for k, sym in (("gt", ">"), ("ge", "≥"), ("lt", "<"), ("le", "≤"))
              if isinstance(ctx.get(k), (int, float))]
    if "max_length" in ctx:
        bounds.append(f"at most {ctx['max_length']} characters or items")
    if "min_length" in ctx:
        bounds.append(f"at least {ctx['min_length']} characters or items")
    if "pattern" in ctx:
        bounds.append(f"matching {ctx['pattern']}")
    return " and ".join(bounds) or None


class ErrorBody(BaseModel):
    """The error contract of the HTTP API (status 422, 413, 401) and of MCP tool errors (`structuredContent`)."""

    error: str = Field(description="one line naming what was wrong and what is accepted")
    field: str | None = Field(None, description="the argument at fault")
    accepted: str | None = Field(None, description="what that argument accepts")
    suggestions: list[str] | None = Field(None, description="close matches, for an unknown GPU or model id")


def error_body(exc: AdvisorError) -> dict[str, Any]:
    """The error contract of one AdvisorError; an input quoted back that reads as inf or nan is not repeated."""
    def shown(text: str | None) -> str | None:
        return None if text is None else _NOT_FINITE_TEXT.sub("(not shown: not a finite number)", text)

    body = ErrorBody(error=shown(" ".join(str(exc).split())) or "invalid input", field=shown(exc.field),
                     accepted=shown(exc.accepted), suggestions=getattr(exc, "suggestions", None))
    return body.model_dump(exclude_none=True)


# ------------------------------------------------------------------------------------------------------------
# Results

def _finding(f: Any) -> dict[str, Any]:
    return {"rule_id": f.rule_id, "severity": f.severity, "message": f.message, "message_zh": f.message_zh,
            "source": f.source, "as_of": f.as_of}


def _finite_doc(doc: Mapping[str, Any]) -> dict[str, Any]:
    """`_finite` of a JSON object."""
    return {str(k): _finite(v) for k, v in doc.items()}


def _finite(obj: Any) -> Any:
    """NaN/inf become null: JSON has no such numbers and they must never reach a user."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return _finite_doc(obj)
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def _from_tool(out: T.ToolOutput, contract: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The contract keys first, then the tool's summary, numbers, findings and assumptions (contract keys win)."""
    body = {**contract, **(extra or {})}
    body["summary"] = out.summary
    body["numbers"] = list(out.numbers)
    if "findings" not in body:
        body["findings"] = [_finding(f) for f in out.findings]
    body.setdefault("assumptions", list(out.data.get("assumptions", [])))
    return _finite_doc(body)


def _run_tool(name: str, args: BaseModel) -> T.ToolOutput:
    return T.TOOLS[name].run(args)


# ------------------------------------------------------------------------------------------------------------
# The operations

def estimate(args: T.EstimateMemoryArgs) -> dict[str, Any]:
    """`gpu-advisor estimate --json` (+ `fit` with a GPU)."""
    out = _run_tool("estimate_memory", args)
    extra = {"fit": out.artifact["fit"]} if "fit" in out.artifact else {}
    return _from_tool(out, out.artifact["estimate"], extra)


def _tool_contract(tool: str, key: str, args: BaseModel) -> dict[str, Any]:
    """The tool's `key` artifact (a CLI `--json` contract) with its summary, numbers, findings and assumptions."""
    out = _run_tool(tool, args)
    return _from_tool(out, out.artifact[key])


def throughput(args: T.EstimateThroughputArgs) -> dict[str, Any]:
    """`gpu-advisor throughput --json`."""
    return _tool_contract("estimate_throughput", "throughput", args)


def train_time(args: T.TrainTimeArgs) -> dict[str, Any]:
    """`gpu-advisor train-time --json`."""
    return _tool_contract("train_time", "train_time", args)


def tco(args: T.TcoArgs) -> dict[str, Any]:
    """`gpu-advisor tco --json`."""
    return _tool_contract("tco", "tco", args)


def recommend(args: T.RecommendArgs) -> dict[str, Any]:
    """`gpu-advisor recommend --json` (options, closest, changes, findings, assumptions)."""
    return _tool_contract("recommend", "recommendation", args)


def _matches(query: str | None, *texts: Any) -> bool:
    if not query:
        return True
    q = query.strip().lower()
    return any(q in str(t).lower() for t in texts)


def list_gpus(args: ListGpusArgs) -> dict[str, Any]:
    """The GPU catalog rows (`gpu-advisor gpus --json`), filtered, smallest memory first."""
    gpus = [g for g in load_catalog().gpus
            if (args.min_memory_gib is None or g.memory >= Bytes.of(args.min_memory_gib, "GiB"))
            and (args.vendor is None or g.vendor.lower() == args.vendor.strip().lower())
            and (args.segment is None or g.segment.lower() == args.segment.strip().lower())
            and (not args.china_available or g.china.status in ("available", "china_variant"))
            and _matches(args.query, g.id, g.name, *g.aliases)]
    gpus.sort(key=lambda g: (g.memory_bytes, g.bf16_dense_flops))
    rows = [gpu_row(g, args.region) for g in gpus[: args.limit]]
    summary = f"{len(gpus)} GPU(s) match" + (f"; showing {len(rows)}" if len(rows) < len(gpus) else "")
    return _finite_doc({"gpus": rows, "count": len(gpus), "summary": summary,
                    "units": "memory in bytes (GiB = 2^30), bandwidth in bytes/s, FLOP/s dense, W"})


def list_models(args: ListModelsArgs) -> dict[str, Any]:
    """The model catalog rows (`gpu-advisor models --json`), filtered, smallest first."""
    rows = [model_row(m) for m in load_catalog().models]
    rows = [r for r in rows
            if (args.family is None or str(r["family"]).lower() == args.family.strip().lower())
            and (args.min_params_b is None or r["params"] >= args.min_params_b * 1e9)
            and (args.max_params_b is None or r["params"] <= args.max_params_b * 1e9)
            and (args.moe is None or r["moe"] == args.moe)
            and _matches(args.query, r["id"], r["name"], *r["aliases"])]
    rows.sort(key=lambda r: r["params"])
    shown = rows[: args.limit]
    summary = f"{len(rows)} model(s) match" + (f"; showing {len(shown)}" if len(shown) < len(rows) else "")
    return _finite_doc({"models": shown, "count": len(rows), "summary": summary})


def show_gpu(args: T.LookupGpuArgs) -> dict[str, Any]:
    """One GPU with every field and its sources (`gpu-advisor gpus show ID --json`)."""
    cat = load_catalog()
    out = _run_tool("lookup_gpu", args)
    return _from_tool(out, gpu_detail(cat.gpu(args.gpu), cat))


def show_model(args: T.LookupModelArgs) -> dict[str, Any]:
    """One model with its architecture, parameter counts and sources (`gpu-advisor models show ID --json`)."""
    cat = load_catalog()
    out = _run_tool("lookup_model", args)
    return _from_tool(out, model_detail(cat.model(args.model), cat))


def check_claim(args: T.ExplainArgs) -> dict[str, Any]:
    """A hardware-guide claim (or a rule): the guide's figure, the computed one, the verdict and the source."""
    out = _run_tool("explain_rule_or_claim", args)
    return _from_tool(out, out.data)


def ask(args: AskTurnArgs) -> dict[str, Any]:
    """One turn (`gpu-advisor ask --json`) plus `conversation_id` and a one-line `summary`."""
    cid, turn = ask_turn(args.conversation_id, args.text, args.lang)
    body = turn.to_contract()
    body["conversation_id"] = cid
    first = turn.answer.strip().splitlines()[0] if turn.answer.strip() else ""
    body["summary"] = first[:300]
    return _finite_doc(body)


# ------------------------------------------------------------------------------------------------------------
# The rendering edge: nothing that is not a finite number is shown

def unshowable(obj: Any, where: str = "") -> str | None:
    """Where in a result a value is not finite — a float inf/nan, or text showing one ("¥inf", "inf%", "NaN")
    — else None."""
    if isinstance(obj, float):
        return None if math.isfinite(obj) else where or "result"
    if isinstance(obj, str):
        return where or "result" if _NOT_FINITE_TEXT.search(obj) else None
    if isinstance(obj, Mapping):
        items: Any = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return None
    for key, value in items:
        found = unshowable(value, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None


def showable(name: str, body: dict[str, Any]) -> dict[str, Any]:
    """`body` when every value in it is finite; else an AdvisorError (the one guard of the API and MCP results)."""
    where = unshowable(body)
    if where is not None:
        import logging

        logging.getLogger(__name__).warning("operation %s: a value that is not finite at %s was refused", name, where)
        raise InputError(f"{name}: these inputs give a figure that cannot be shown ({where} is not a finite number); "
                         "try values nearer the middle of their ranges", field="arguments",
                         accepted="inputs within the documented bounds that give finite figures")
    return body


# ------------------------------------------------------------------------------------------------------------
# Registry

class Operation(Value):
    name: str  # MCP tool name
    path: str  # HTTP path under /api/v1 ("" when the API does not serve it as its own route)
    args: type[BaseModel]
    run: Callable[[Any], dict[str, Any]]
    description: str


def _op(name: str, path: str, run: Callable[[Any], dict[str, Any]], what: str,
        args: type[BaseModel] | None = None) -> Operation:
    """An operation; its arguments are the conversation tool's of the same name unless `args` is given (the
    operations the LLM has no tool for, or has under another name)."""
    doc = (run.__doc__ or "").strip().splitlines()[0]
    return Operation(name, path, args or T.TOOLS[name].args, run, f"{what} Result: {doc}")


OPERATIONS: dict[str, Operation] = {o.name: o for o in (
    _op("estimate_memory", "/estimate", estimate,
        "Memory per GPU (weights, KV cache, activations, gradients, optimizer states, overhead; bytes) for "
        "inference, fine-tuning or training; give `gpu` to check the fit, tp/pp/gpus/nodes for layouts."),
    _op("estimate_throughput", "/throughput", throughput,
        "Decode tokens/s per sequence and in total, prefill tokens/s, time to first token and the memory capacity "
        "(concurrent sequences) of `count` GPUs serving a model."),
    _op("train_time", "/train-time", train_time,
        "Training wall-clock time, GPU-hours, tokens/s and MFU for a token budget (6·N·D at a calibrated MFU)."),
    _op("tco", "/tco", tco,
        "Buy versus rent: purchase, power, operations, depreciation and TCO over N years against renting the same "
        "GPU-hours; break-even utilisation; cost per million tokens with a model. Prices carry their dates."),
    _op("recommend", "/recommend", recommend,
        "Ranked GPU configurations (GPU × count × layout) that fit a workload under budget, region (cn: China "
        "export rules), latency and deadline constraints, with dated prices and cited findings."),
    _op("list_gpus", "/gpus", list_gpus,
        "The GPU catalog (memory, bandwidth, dense FLOPS, TDP, NVLink, China-market status, dated prices), filtered.",
        args=ListGpusArgs),
    _op("show_gpu", "/gpus/{gpu}", show_gpu,
        "One GPU's every field with the sources behind it; unknown ids get close suggestions.", args=T.LookupGpuArgs),
    _op("list_models", "/models", list_models,
        "The model catalog (architecture, parameter counts computed from it), filtered.", args=ListModelsArgs),
    _op("show_model", "/models/{model}", show_model,
        "One model's architecture, parameter counts, weight sizes by format and sources.", args=T.LookupModelArgs),
    _op("check_claim", "/check-claim", check_claim,
        "Check a figure or claim from a hardware guide, article or vendor (e.g. '70B 4bit 28GB'): the claimed "
        "value, the computed one, the verdict and the source.", args=T.ExplainArgs),
    _op("ask", "/ask", ask,
        "One turn of the GPU Advisor conversation in Chinese or English (answer first, then numbers with sources); "
        "pass `conversation_id` from a previous result to continue.", args=AskTurnArgs),
)}


def parse(name: str, raw: Any) -> BaseModel:
    """Validate `raw` against the operation's argument model; InputError (one line) otherwise."""
    op = OPERATIONS.get(name) if isinstance(name, str) else None
    if op is None:
        raise InputError(f"unknown tool '{str(name)[:80]}'", field="tool", accepted=", ".join(OPERATIONS))
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise InputError(f"arguments of {name} must be an object, not {type(raw).__name__}", field="arguments",
                         accepted="a JSON object")
    strict_input(op.args, raw, name)
    try:
        return op.args.model_validate(dict(raw))
    except ValidationError as exc:
        raise input_error(exc, op.args, name) from None


def execute(name: str, raw: Any) -> dict[str, Any]:
    """Validate and run one operation; AdvisorError for user errors (an internal error is one line too)."""
    args = parse(name, raw)
    return run(name, args)


def run(name: str, args: BaseModel) -> dict[str, Any]:
    """Run an operation on validated arguments; internal failures become one AdvisorError line, logged."""
    try:
        return showable(name, OPERATIONS[name].run(args))
    except AdvisorError:
        raise
    except (ValidationError, StructError) as exc:  # valid arguments made an invalid internal object (an impossible combination)
        raise errors_to_input_error(exc.errors(), None, name) from None
    except Exception as exc:
        import logging

        logging.getLogger(__name__).exception("operation %s failed", name)
        raise AdvisorError(f"internal error in {name} ({type(exc).__name__}); try other arguments") from None
