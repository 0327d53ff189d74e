"""The versioned HTTP API, `/api/v1/...`: the operations of `ui/api/service.py` as JSON over FastAPI.

    POST /api/v1/estimate | /throughput | /train-time | /tco | /recommend | /check-claim | /ask   (JSON body)
    GET  /api/v1/gpus[?min_memory_gib=80&vendor=nvidia…] | /gpus/{id} | /models[?moe=true…] | /models/{id}
    GET  /api/v1/openapi.json

Request bodies are the conversation layer's argument models, so the OpenAPI document is generated from the same
models the LLM agent and the MCP server use. Errors: every 4xx is `{error, field, accepted[, suggestions]}`: 422
for bad input (a body that cannot be parsed included), 413 for a body over the limit, 401 without the credentials,
429 while locked after failed sign-ins or past the new-conversation limit, 404 for an unknown path or a
conversation that is not the caller's, 405 for a method a path does not serve.

Served by the web process (`web_middleware`, mounted in front of Gradio) and on its own (`gpu-advisor api`).
Auth: when `GPU_ADVISOR_WEB_AUTH=user:password` is set, every request needs HTTP Basic with those credentials
(or `Authorization: Bearer $GPU_ADVISOR_API_TOKEN` when that is set), under the one credential throttle
(ui/server/auth_throttle.py). `ask` keeps its conversations in the store (ui/api/conversations.py).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import inspect
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Body, Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware import Middleware

from advisor.store import StoreUnavailable
from knowledge.errors import AdvisorError
from ui.api import service as S
from ui.api.conversations import CALLER, ConversationNotFound, TooManyConversations
from ui.server.auth_throttle import check, client_address, locked_response

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from ui.server.auth_throttle import Throttle

PREFIX = "/api/v1"
ENV_TOKEN = "GPU_ADVISOR_API_TOKEN"
OWNER_KEY = "gpu_advisor.owner"  # the scope key Credentials sets: who the login says the caller is
MAX_BODY_BYTES = 64_000  # the largest valid request is a few KB (an `ask` of 4000 characters is ≤ 16 KB)

_ERRORS: dict[int | str, dict[str, Any]] = {
    422: {"model": S.ErrorBody, "description": "invalid input (a body that is not JSON included): the field and what "
                                               "it accepts"},
    413: {"model": S.ErrorBody, "description": "request body over the limit"},
    401: {"model": S.ErrorBody, "description": "credentials required"},
    429: {"model": S.ErrorBody, "description": "too many failed sign-ins, or too many new conversations from this "
                                               "client (Retry-After says when to try again)"}}
_ASK_ERRORS = {**_ERRORS, 404: {"model": S.ErrorBody, "description": "conversation_id is not a conversation of "
                                                                     "this caller"},
               503: {"model": S.ErrorBody, "description": "the conversation store cannot be reached (Retry-After)"}}


def _json(body: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(body, status_code=status)


def _route(op: S.Operation, source: Any) -> Any:
    """A handler for `op` whose one argument model FastAPI reads from `source` (Body() or Query()); the caller
    (`api_conversations.CALLER`: the login's user and the client address) is set for the operation's thread."""
    def handler(args: Any, request: Request) -> JSONResponse:
        mark = CALLER.set(("api", str(request.scope.get(OWNER_KEY, "anonymous")), client_address(request.scope)))
        try:
            return _json(S.run(op.name, args))
        finally:
            CALLER.reset(mark)

    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("args", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[op.args, source]),
         inspect.Parameter("request", inspect.Parameter.KEYWORD_ONLY, annotation=Request)])
    handler.__name__ = op.name
    return handler


def _strict(op: S.Operation, query: bool) -> Any:
    """A dependency that checks the raw arguments strictly (`api_service.strict_input`) before FastAPI's lax
    validation into the model: dependencies run before the body is validated."""
    async def guard(request: Request) -> None:
        if query:
            raw: Any = dict(request.query_params.multi_items())
        else:
            try:
                raw = await request.json()
            except ValueError:
                return  # (FastAPI reports a body that is not JSON itself)
        if isinstance(raw, dict):
            S.strict_input(op.args, raw, op.name, query=query)

    return Depends(guard)


def _path_route(op: S.Operation, key: str) -> Any:
    def handler(ident: str) -> JSONResponse:
        return _json(S.execute(op.name, {key: ident}))

    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("ident", inspect.Parameter.KEYWORD_ONLY,
                           annotation=Annotated[str, Path(alias=key, min_length=1, max_length=300)])])
    handler.__name__ = op.name
    return handler


def build_api(auth: tuple[str, str] | None = None, *, token: str | None = None,
              max_body_bytes: int = MAX_BODY_BYTES, throttle: Throttle | None = None) -> ASGIApp:
    """The API as an ASGI app: FastAPI routes inside the auth and body-limit middlewares."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("gpu-advisor")
    except PackageNotFoundError:
        ver = "0"
    app = FastAPI(title="GPU Advisor API", version=ver, openapi_url=f"{PREFIX}/openapi.json", docs_url=None,
                  redoc_url=None, description=__doc__.split("\n\n", 2)[2].strip())
    ops = S.OPERATIONS
    for name in ("estimate_memory", "estimate_throughput", "train_time", "tco", "recommend", "check_claim", "ask"):
        op = ops[name]
        app.post(PREFIX + op.path, summary=op.description.split(" Result:")[0],
                 responses=_ASK_ERRORS if name == "ask" else _ERRORS, tags=["advisor"], dependencies=[_strict(op, False)])(_route(op, Body()))
    for name in ("list_gpus", "list_models"):
        op = ops[name]
        app.get(PREFIX + op.path, summary=op.description.split(" Result:")[0], responses=_ERRORS,
                tags=["catalog"], dependencies=[_strict(op, True)])(_route(op, Query()))
    for name, key in (("show_gpu", "gpu"), ("show_model", "model")):
        op = ops[name]
        app.get(PREFIX + op.path, summary=op.description.split(" Result:")[0], responses=_ERRORS,
                tags=["catalog"])(_path_route(op, key))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        op = _operation_of(request)
        model = ops[op].args if op in ops else None
        err = S.errors_to_input_error(list(exc.errors()), model, op, skip=("body", "query", "path"))
        return _json(S.error_body(err), 422)

    @app.exception_handler(AdvisorError)
    async def _advisor_error(request: Request, exc: AdvisorError) -> JSONResponse:
        if isinstance(exc, TooManyConversations):
            return JSONResponse(S.error_body(exc), 429, headers={"retry-after": str(exc.retry_after_s)})
        if isinstance(exc, StoreUnavailable):  # the conversation store is away: not the client's input
            return JSONResponse(S.error_body(exc), 503, headers={"retry-after": "5"})
        return _json(S.error_body(exc), 404 if isinstance(exc, ConversationNotFound) else 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(http_error_body(exc.status_code, str(exc.detail), request), _status(exc.status_code),
                            headers=exc.headers)

    return BodyLimit(Credentials(app, auth, token, throttle), max_body_bytes)


def _status(status: int) -> int:
    return 422 if status == 400 else status  # FastAPI's 400 is a body it could not parse: invalid input


def http_error_body(status: int, detail: str, request: Request) -> dict[str, Any]:
    """The error contract for FastAPI's and Starlette's own errors: a body that could not be parsed (invalid
    UTF-8, nesting too deep: FastAPI's 400), an unknown path, a method the path does not serve."""
    path = request.url.path[:200]
    if status == 400:
        return {"error": "the body could not be parsed as JSON (it must be UTF-8 text, nested at most a few "
                         "hundred levels)", "field": "body", "accepted": "a JSON object in UTF-8"}
    if status == 404:
        return {"error": f"no such endpoint: {path}", "field": "path",
                "accepted": f"a path listed in {PREFIX}/openapi.json"}
    if status == 405:
        return {"error": f"{request.method} is not served on {path}", "field": "method",
                "accepted": "the method listed for this path in " + f"{PREFIX}/openapi.json"}
    return {"error": " ".join(detail.split())[:300] or f"HTTP {status}", "field": "request",
            "accepted": f"a request as {PREFIX}/openapi.json describes"}


def _operation_of(request: Request) -> str:
    endpoint = request.scope.get("endpoint")
    return getattr(endpoint, "__name__", "request")


async def _send_json(send: Send, status: int, body: dict[str, Any], extra: Sequence[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body, ensure_ascii=False).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
                            *extra]})
    await send({"type": "http.response.body", "body": data})


class Credentials:
    """ASGI middleware: with `auth` (user, password) every request needs HTTP Basic with them, or the bearer
    `token`; compared in constant time, under the one credential throttle (`ui.server.auth_throttle`: 429 + Retry-After
    for a locked address or user, on every path). Without either, requests pass (the web's own setting: no login)."""

    def __init__(self, app: ASGIApp, auth: tuple[str, str] | None, token: str | None,
                 throttle: Throttle | None = None) -> None:
        self.app = app
        self.basic = None if auth is None else f"{auth[0]}:{auth[1]}".encode()
        self.token = token.encode() if token else None
        self.throttle = throttle

    def _credential(self, header: bytes) -> tuple[str | None, bool]:
        """(the user the header names, whether it is right)."""
        scheme, _, value = header.partition(b" ")
        value = value.strip()
        if scheme.lower() == b"bearer" and self.token is not None:
            return None, hmac.compare_digest(value, self.token)
        if scheme.lower() == b"basic" and self.basic is not None:
            try:
                decoded = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return None, False
            user = decoded.partition(b":")[0].decode("utf-8", "replace")
            return user, hmac.compare_digest(decoded, self.basic)
        return None, False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http" and (self.basic is not None or self.token is not None):
            import anyio

            header = dict(scope.get("headers") or []).get(b"authorization", b"")
            user, right = self._credential(header)
            # a request without credentials guesses nothing: answered 401 without counting (a client's first try)
            wait = await anyio.to_thread.run_sync(check, scope, user, lambda: right, self.throttle) if header else 0.0
            if wait:
                status, body, headers = locked_response(wait)
                await _send_json(send, status, body, headers)
                return
            if wait is not None:
                await _send_json(send, 401, {"error": "authentication required", "field": "authorization",
                                             "accepted": "HTTP Basic with the web login (GPU_ADVISOR_WEB_AUTH)"
                                                         + (f" or Bearer {ENV_TOKEN}" if self.token else "")},
                                 [(b"www-authenticate", b'Basic realm="gpu-advisor"')])
                return
            scope[OWNER_KEY] = f"user:{user}" if user is not None else "token"
        await self.app(scope, receive, send)


class BodyLimit:
    """ASGI middleware: 413 for a request body over `max_bytes`, declared (Content-Length) or streamed. The body
    (at most `max_bytes`) is read before the app runs, so the refusal never races a response."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _refusal(self) -> dict[str, Any]:
        return {"error": f"request body too large (limit {self.max_bytes} bytes)", "field": "body",
                "accepted": f"at most {self.max_bytes} bytes"}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _send_json(send, 413, self._refusal())
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message.get("type") != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_json(send, 413, self._refusal())
                return
            chunks.append(chunk)
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class ApiMount:
    """ASGI middleware for the web process: `/api/v1/...` goes to the API, everything else to the wrapped app."""

    def __init__(self, app: ASGIApp, api: ASGIApp) -> None:
        self.app = app
        self.api = api

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope.get("type") == "http" and (path == PREFIX or path.startswith(PREFIX + "/")):
            await self.api(scope, receive, send)
            return
        await self.app(scope, receive, send)


def web_middleware(auth: tuple[str, str] | None) -> Middleware:
    """The Starlette `Middleware` that serves the API inside the web chat's server, with the web's login."""
    import os

    return Middleware(ApiMount, api=build_api(auth, token=os.environ.get(ENV_TOKEN, "").strip() or None))
