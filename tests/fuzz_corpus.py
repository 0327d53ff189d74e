"""A deterministic corpus of hostile requests for the HTTP API and the MCP tools (issue 31): valid requests with
values drawn inside the documented bounds, the bounds themselves and just past them, wrong types (bool, text,
padded and underscored numbers, null, lists, objects), empty and huge strings, unknown fields, bodies that are not
JSON (invalid UTF-8, deep nesting, truncation, NaN/Infinity literals), unknown paths and methods, and `ask` turns
with hostile text and conversation ids. `api_cases(n, seed)` and `mcp_cases(n, seed)` give the same cases for the
same seed; `check_body` is what every answer must satisfy."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

BASES: dict[str, tuple[str, dict[str, Any]]] = {  # operation: (API path, a valid request)
    "estimate_memory": ("/estimate", {"model": "llama-3.1-8b"}),
    "estimate_throughput": ("/throughput", {"model": "llama-3.1-8b", "gpu": "h100-sxm"}),
    "train_time": ("/train-time", {"model": "qwen2.5-7b", "gpu": "h100-sxm", "tokens": 1e9, "task": "lora",
                                   "count": 8}),
    "tco": ("/tco", {"gpu": "h100-sxm"}),
    "recommend": ("/recommend", {"model": "llama-3.1-8b", "candidates": ["h20", "h100-sxm", "l20"]}),  # (fast)
    "check_claim": ("/check-claim", {"query": "70B 4bit 28GB"}),
}
GETS = {"list_gpus": "/gpus", "list_models": "/models"}
HOSTILE: list[Any] = [
    True, False, None, "", " ", "1_000", "  12  ", "12", "NaN", "Infinity", "-inf", "1e400", 1e308, -1e308,
    5e-324, -5e-324, -1, 0, 0.5, 2**63, 10**30, -(10**30), [], {}, [1, 2], {"a": 1}, "x" * 5000, "\u0000",
    "💥" * 50, "\u202e\u200b", "../../etc/passwd", "<script>alert(1)</script>", "'; DROP TABLE turns; --",
    "h100-sxm", "llama-3.1-8b", "cn", "fp8", 1e-9, 3.2e9, 1e10, 4096, 1025, 100_001,
]
TEXTS = ["Serve Llama-3.1-70B to 40 users with 8k context", "那换成 FP8 呢？", "NaN", "inf", "1e400 users",
         "上下文 20000000", "hi", "?" * 300, "Qwen2.5-72B 训练 1e12 tokens 在 8 张 H20 上要多久", "\u0000\u0001",
         "budget ¥1e308", "70B 4bit 28GB 对吗"]
RAW_BODIES: list[bytes] = [
    b'{"model": "\xff\xfe"}', b"[" * 5000 + b"]" * 5000, b'{"a":' * 2000 + b"1" + b"}" * 2000, b"\xc3\x28",
    b'{"model": "llama-3.1-8b"', b"", b"null", b"[]", b"42", b'"text"', b'{"model": NaN}', b'{"model":"llama-3.1-8b",'
    b'"context": Infinity}', b'{"model":"llama-3.1-8b","concurrency":-Infinity}', b"\x00" * 100,
    b'{"model": "llama-3.1-8b", "model": "x"}', b'{"__proto__": {"x": 1}}',
]
ERROR_KEYS = {"error", "field", "accepted", "suggestions"}


@dataclass(frozen=True)
class Case:
    method: str
    path: str  # under /api/v1 (API cases)
    op: str  # the operation (MCP tool name)
    args: Any  # the JSON arguments (None for a raw body)
    raw: bytes | None = None  # a raw body instead of JSON args
    query: str = ""


def _schema_fields(op: str) -> dict[str, dict[str, Any]]:
    from ui.api.service import OPERATIONS

    return dict(OPERATIONS[op].args.model_json_schema().get("properties", {}))


def _inside(rng: random.Random, prop: dict[str, Any]) -> Any:
    for schema in [prop, *prop.get("anyOf", [])]:
        kind = schema.get("type")
        if kind in ("integer", "number"):
            lo = schema.get("minimum", schema.get("exclusiveMinimum", 0) or 0)
            hi = schema.get("maximum", lo + 1000)
            value = rng.choice([lo, hi, rng.uniform(lo, hi), lo + (hi - lo) * rng.random() ** 4])
            if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
                value = schema["exclusiveMinimum"] + 1e-6
            return round(value) if kind == "integer" else value
        if "enum" in schema:
            return rng.choice(schema["enum"])
        if "const" in schema:
            return schema["const"]
        if kind == "boolean":
            return rng.random() < 0.5
    return None


def _outside(rng: random.Random, prop: dict[str, Any]) -> Any:
    for schema in [prop, *prop.get("anyOf", [])]:
        if schema.get("type") in ("integer", "number"):
            if "maximum" in schema and rng.random() < 0.5:
                return schema["maximum"] + (1 if schema["type"] == "integer" else abs(schema["maximum"]) * 1e-6 + 1e-9)
            if "minimum" in schema:
                return schema["minimum"] - (1 if schema["type"] == "integer" else abs(schema["minimum"]) * 1e-6 + 1e-9)
            if "exclusiveMinimum" in schema:
                return schema["exclusiveMinimum"]
    return rng.choice(HOSTILE)


def _mutated(rng: random.Random, op: str, base: dict[str, Any]) -> dict[str, Any]:
    fields = _schema_fields(op)
    args = dict(base)
    kind = rng.random()
    names = sorted(fields)
    if kind < 0.35:  # inside the documented bounds
        for name in rng.sample(names, k=min(len(names), rng.randint(1, 3))):
            value = _inside(rng, fields[name])
            if value is not None:
                args[name] = value
    elif kind < 0.55:  # just outside
        name = rng.choice(names)
        args[name] = _outside(rng, fields[name])
    elif kind < 0.9:  # a hostile value in a field
        for name in rng.sample(names, k=min(len(names), rng.randint(1, 2))):
            args[name] = rng.choice(HOSTILE)
    elif kind < 0.95:  # an unknown field
        args[rng.choice(["modle", "__class__", "x" * 300, "", "gpus_per_node"])] = rng.choice(HOSTILE)
    else:  # a required field missing
        if args:
            args.pop(rng.choice(sorted(args)))
    return args


def api_cases(n: int, seed: int = 31) -> list[Case]:
    """`n` API requests (about 3 % of them `ask` turns, the slowest operation)."""
    rng = random.Random(seed)
    ops = sorted(BASES)
    cases: list[Case] = []
    known_ids = ["A" * 22, "x", "../../", "a" * 65, "", None]
    while len(cases) < n:
        roll = rng.random()
        if roll < 0.75:
            op = rng.choice(ops)
            path, base = BASES[op]
            cases.append(Case("POST", path, op, _mutated(rng, op, base)))
        elif roll < 0.83:
            op = rng.choice(ops)
            cases.append(Case("POST", BASES[op][0], op, None, raw=rng.choice(RAW_BODIES)))
        elif roll < 0.91:
            op = rng.choice(sorted(GETS))
            fields = _schema_fields(op)
            name = rng.choice(sorted(fields))
            value = rng.choice([_inside(rng, fields[name]), _outside(rng, fields[name]), rng.choice(HOSTILE)])
            text = json.dumps(value) if not isinstance(value, str) else value
            from urllib.parse import quote

            cases.append(Case("GET", GETS[op], op, {name: value}, query=f"{name}={quote(text[:300])}"))
        elif roll < 0.95:
            ident = rng.choice(["h20", "h100-sxm", "nope", "💥", "x" * 301, "..%2F..%2Fetc", "llama-3.1-8b", "%00"])
            kind = rng.choice(["gpus", "models"])
            cases.append(Case("GET", f"/{kind}/{ident}", "show_gpu" if kind == "gpus" else "show_model",
                              {"gpu" if kind == "gpus" else "model": ident}))
        elif roll < 0.97:
            cases.append(Case(rng.choice(["GET", "PUT", "DELETE", "PATCH"]),
                              rng.choice(["/estimate", "/nope", "/ask", "/", "/openapi.json/x"]), "none", None))
        else:
            cid = rng.choice(known_ids)
            args: dict[str, Any] = {"text": rng.choice(TEXTS)}
            if cid is not None:
                args["conversation_id"] = cid
            if rng.random() < 0.3:
                args["lang"] = rng.choice(["zh", "en", "fr", "", None])
            cases.append(Case("POST", "/ask", "ask", args))
    return cases


def mcp_cases(n: int, seed: int = 32) -> list[tuple[str, Any]]:
    """`n` MCP tool calls: (tool name, arguments), over every tool, a few unknown tools and non-object arguments."""
    from ui.api.service import OPERATIONS

    rng = random.Random(seed)
    out: list[tuple[str, Any]] = []
    simple = {"list_gpus": {}, "list_models": {}, "show_gpu": {"gpu": "h20"}, "show_model": {"model": "qwen2.5-7b"},
              "ask": {"text": "hi"}}
    while len(out) < n:
        roll = rng.random()
        if roll < 0.93:
            op = rng.choice(sorted(OPERATIONS))
            if op == "ask" and rng.random() < 0.8:
                op = "estimate_memory"  # turns are the slow part: about 1 % of the calls
            base = BASES[op][1] if op in BASES else simple[op]
            out.append((op, _mutated(rng, op, base)))
        elif roll < 0.97:
            out.append((rng.choice(["rm_rf", "", "x" * 300, "estimate", "__init__"]), {}))
        else:
            out.append((rng.choice(sorted(BASES)), {"model": rng.choice(HOSTILE), "gpu": rng.choice(HOSTILE)}))
    return out


def check_body(status: int, body: Any) -> str | None:
    """Why an answer breaks the contract (None: it keeps it): no 5xx; an error is {error, field, accepted
    [, suggestions]}; nothing anywhere in the body is inf or nan, as a number or as text."""
    from ui.api.service import unshowable

    if status >= 500:
        return f"status {status}"
    if status >= 400:
        if not isinstance(body, dict) or "error" not in body or not set(body) <= ERROR_KEYS:
            return f"error body {str(body)[:200]}"
    where = unshowable(body)
    return f"not finite at {where}" if where is not None else None
