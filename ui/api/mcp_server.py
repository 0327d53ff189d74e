"""`gpu-advisor mcp`: the advisor over the Model Context Protocol, with the official SDK (`mcp` 2.x, `MCPServer`).

Tools are the operations of `ui/api/service.py`; their input schemas are the JSON schemas of the conversation
layer's pydantic argument models (`advisor.conversation.tools.registry`), so an MCP client sees the same typed, documented,
bounded arguments as the LLM agent. `MCPServer` derives a tool's schema from a Python signature and validates with
its own model, which would give a second, differently worded schema; `AdvisorMCPServer` therefore overrides the two
public tool hooks (`list_tools`, `call_tool`) to serve the argument models' schemas and to validate with them, so
an invalid call returns an MCP tool error (`isError`) with the CLI's one-line message in the text and
`{error, field, accepted[, suggestions]}` as structured content. Results: the JSON of the CLI contract plus
`summary`, `numbers`, `findings`, `assumptions`, as structured content and as text (summary line, then the JSON).

Resources (read-only JSON, with `as_of` dates): `gpu-advisor://catalog/gpus`, `gpu-advisor://catalog/models`,
`gpu-advisor://sources`. Prompts: `size_deployment`, `quote_customer`, `check_claim`.

Transports: stdio (default), or streamable HTTP (`serve_http`): stateless with JSON responses (any replica can
answer any request), loopback by default; a bearer token from `GPU_ADVISOR_MCP_TOKEN` is required when bound to
another address and enforced whenever it is set.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from mcp_types import Tool as MCPTool
from pydantic import Field

from advisor.workload import DEFAULT_CONTEXT
from knowledge.catalog import load_catalog
from knowledge.errors import AdvisorError, InputError
from knowledge.structs import dump
from ui.api import service as S
from ui.api.conversations import CALLER
from ui.cli.commands.catalog import gpu_row, model_row
from ui.server.auth_throttle import check, locked_response

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from ui.server.auth_throttle import Throttle

log = logging.getLogger(__name__)

ENV_TOKEN = "GPU_ADVISOR_MCP_TOKEN"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_BODY_BYTES = 64_000  # one JSON-RPC request over HTTP; the largest valid tool call is a few KB
MCP_PATH = "/mcp"

INSTRUCTIONS = (
    "GPU Advisor sizes LLM hardware: memory per GPU, throughput, training time, TCO and buy-vs-rent, ranked GPU "
    "configurations, catalog look-ups and checks of hardware-guide claims, in Chinese or English. Quote numbers "
    "only from tool results, with their units (GiB = 2^30 bytes vs GB = 10^9 bytes) and the `as_of` dates of "
    "prices and market rules; cite `findings[].source`.")


class AdvisorMCPServer(MCPServer):
    """`MCPServer` whose tools are `api_service.OPERATIONS`, described by the argument models' own schemas."""

    async def list_tools(self) -> list[MCPTool]:
        return [MCPTool(name=op.name, title=op.name.replace("_", " "), description=op.description,
                        input_schema=op.args.model_json_schema(),
                        annotations=ToolAnnotations(read_only_hint=op.name != "ask", destructive_hint=False,
                                                    idempotent_hint=op.name != "ask", open_world_hint=False))
                for op in S.OPERATIONS.values()]

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> CallToolResult:
        try:
            args = S.parse(name, arguments)
            body = await anyio.to_thread.run_sync(_run, name, args, _client_of(context))
        except AdvisorError as exc:
            err = S.error_body(exc)
            return CallToolResult(content=[TextContent(text=err["error"])], structured_content=err, is_error=True)
        return CallToolResult(content=[TextContent(text=tool_text(body))], structured_content=body)


def _client_of(context: Any) -> str:
    """The HTTP client's address of a tool call (its new-conversation admission is counted per address); "stdio"
    or "mcp" when there is none."""
    try:
        request = context.request_context.request if context is not None else None
    except (AttributeError, ValueError, LookupError):  # no request context: an in-process or stdio call
        request = None
    client = getattr(request, "client", None)
    return str(client.host) if client is not None and getattr(client, "host", None) else "mcp"


def _run(name: str, args: Any, client: str = "mcp") -> dict[str, Any]:
    """`api_service.run` as the MCP front end: `ask`'s conversations are the MCP server's (source "mcp")."""
    mark = CALLER.set(("mcp", "mcp", client))
    try:
        return S.run(name, args)
    finally:
        CALLER.reset(mark)


def tool_text(body: dict[str, Any]) -> str:
    """The text content: the one-line summary, then the whole result as compact JSON."""
    return f"{body.get('summary', '')}\n{json.dumps(body, ensure_ascii=False, separators=(',', ':'))}"


# ------------------------------------------------------------------------------------------------------------
# Resources

def _as_of_sources(ids: set[str]) -> str | None:
    dates = [s.retrieved for sid, s in load_catalog().sources.items() if sid in ids and s.retrieved]
    return max(dates).isoformat() if dates else None


def gpu_catalog() -> dict[str, Any]:
    """Every GPU row with its dated prices and China-market status; `as_of`: the newest date among them."""
    gpus = load_catalog().gpus
    dates = [p.date for g in gpus for p in g.prices] + [g.china.as_of for g in gpus]
    return {"as_of": max(dates).isoformat() if dates else None, "count": len(gpus),
            "units": "memory in bytes (GiB = 2^30), bandwidth in bytes/s, FLOP/s dense, W",
            "gpus": [gpu_row(g) for g in gpus]}


def model_catalog() -> dict[str, Any]:
    """Every model row; `as_of`: the newest retrieval date of the sources the models cite."""
    models = load_catalog().models
    used = {s for m in models for ids in m.cite.values() for s in ids}
    return {"as_of": _as_of_sources(used), "count": len(models), "models": [model_row(m) for m in models]}


def sources_registry() -> dict[str, Any]:
    """The sources registry: title, URL or document, retrieved/published dates."""
    sources = load_catalog().sources
    rows = [dump(s, json=True, exclude_none=True) for _, s in sorted(sources.items())]
    return {"as_of": _as_of_sources(set(sources)), "count": len(rows), "sources": rows}


# ------------------------------------------------------------------------------------------------------------
# Prompts

Short = Annotated[str, Field(max_length=200)]


def size_deployment(model: Short, users: Short = "10", context: Short = str(DEFAULT_CONTEXT), region: Short = "global") -> str:
    """Size an inference deployment: how many of which GPUs, how fast, and whether it fits."""
    return (f"Size a deployment of {model} for {users} concurrent users at {context} tokens of context "
            f"(region: {region}). Call `recommend` (concurrency={users}, context={context}, region={region}), then "
            "`estimate_throughput` for the first option to confirm per-user speed and time to first token. "
            "Answer first with the configuration, then memory per GPU (GiB), tokens/s and the findings with sources.")


def quote_customer(model: Short, budget: Short, currency: Short = "CNY", region: Short = "cn",
                   task: Short = "inference", users: Short = "10") -> str:
    """Prepare a hardware quote for a customer under a budget."""
    return (f"Prepare a quote for a customer: {task} of {model} for {users} users, budget {budget} {currency}, "
            f"region {region}. Call `recommend` with budget={budget}, currency={currency}, region={region}, "
            f"task={task}, concurrency={users}; then `tco` for the chosen GPU and count in {currency}. State each "
            "price with its `as_of` date and condition, the TCO over the default years, buy-vs-rent break-even, and "
            "every finding of severity warn or block with its source.")


def check_claim(claim: Annotated[str, Field(max_length=300)]) -> str:
    """Check a figure quoted from a hardware guide, an article or a vendor."""
    return (f"A user quotes: \"{claim}\". Call `check_claim` with this text; report the claimed value, the computed "
            "one, the verdict and the source. If the claim is about a specific configuration, confirm with "
            "`estimate_memory` or `lookup` tools and give the numbers with units.")


# ------------------------------------------------------------------------------------------------------------
# Building and serving

def build_server() -> AdvisorMCPServer:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("gpu-advisor")
    except PackageNotFoundError:
        ver = "0"
    server = AdvisorMCPServer(name="gpu-advisor", title="GPU Advisor", version=ver, instructions=INSTRUCTIONS,
                              log_level="WARNING")
    for uri, fn, desc in (
        ("gpu-advisor://catalog/gpus", gpu_catalog, "GPU catalog (JSON): specs, dated prices, China-market status"),
        ("gpu-advisor://catalog/models", model_catalog, "model catalog (JSON): architecture and parameter counts"),
        ("gpu-advisor://sources", sources_registry, "sources registry (JSON): every citation with its dates"),
    ):
        server.resource(uri, name=uri.rsplit("/", 1)[-1], description=desc, mime_type="application/json")(
            _json_resource(fn))
    server.prompt("size_deployment", title="Size a deployment")(size_deployment)
    server.prompt("quote_customer", title="Quote a customer")(quote_customer)
    server.prompt("check_claim", title="Check a claim")(check_claim)
    return server


def _json_resource(fn: Callable[[], object]) -> Callable[[], str]:
    def read() -> str:
        return json.dumps(fn(), ensure_ascii=False)

    read.__name__ = fn.__name__
    read.__doc__ = fn.__doc__
    return read


def serve_stdio() -> None:
    """Serve on stdin/stdout (nothing else may write to stdout)."""
    build_server().run("stdio")


class BearerAuth:
    """ASGI middleware: HTTP requests need `Authorization: Bearer <token>` (constant-time compare); 401 otherwise,
    under the one credential throttle (`ui.server.auth_throttle`: 429 + Retry-After while the address is locked)."""

    def __init__(self, app: ASGIApp, token: str, throttle: Throttle | None = None) -> None:
        self.app = app
        self.token = token.encode()
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            header = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, value = header.partition(b" ")
            right = scheme.lower() == b"bearer" and hmac.compare_digest(value.strip(), self.token)
            wait = await anyio.to_thread.run_sync(check, scope, None, lambda: right, self.throttle) if header else 0.0
            if wait is not None:
                status, doc, extra = (locked_response(wait) if wait else
                                      (401, {"error": "missing or wrong bearer token", "field": "authorization",
                                             "accepted": f"Authorization: Bearer <the value of {ENV_TOKEN}>"},
                                       [(b"www-authenticate", b"Bearer")]))
                body = json.dumps(doc).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode()), *extra]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_token(host: str, env: dict[str, str] | None = None) -> str | None:
    """The bearer token to enforce; InputError when binding beyond loopback without one."""
    token = (os.environ if env is None else env).get(ENV_TOKEN, "").strip() or None
    if token is None and host not in LOOPBACK:
        raise InputError(f"--host {host}: serving MCP beyond this machine needs a bearer token in {ENV_TOKEN}",
                         field="host", accepted=f"127.0.0.1/localhost/::1, or set {ENV_TOKEN}")
    if token is not None and len(token) < 16:
        raise InputError(f"{ENV_TOKEN} is too short ({len(token)} characters)", field=ENV_TOKEN,
                         accepted="at least 16 characters")
    return token


def http_app(host: str = "127.0.0.1", token: str | None = None) -> ASGIApp:
    """The streamable-HTTP ASGI app at /mcp: stateless, JSON responses, body limit, bearer auth when `token`."""
    app = build_server().streamable_http_app(streamable_http_path=MCP_PATH, stateless_http=True, json_response=True,
                                             max_request_body_size=MAX_BODY_BYTES, host=host)
    guarded = NoEventStream(app)
    return BearerAuth(guarded, token) if token else guarded


class NoEventStream:
    """ASGI middleware: GET /mcp is answered 405 (Allow: POST). The server is stateless with JSON responses, so it
    never sends on a server-to-client event stream; the SDK would hold each such stream open, idle, for ever
    (300 held 23 s+, +22 MB). The transport allows a server to refuse it so."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http" and scope.get("method") == "GET" \
                and str(scope.get("path", "")).rstrip("/") == MCP_PATH:
            body = json.dumps({"error": "this MCP server is stateless: it opens no event stream (GET)",
                               "field": "method", "accepted": "POST with a JSON-RPC request"}).encode()
            await send({"type": "http.response.start", "status": 405,
                        "headers": [(b"content-type", b"application/json"), (b"allow", b"POST"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)
