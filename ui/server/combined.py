"""Serve the Slack bot over HTTP, alone or beside the web app, in one FastAPI/uvicorn process.

Routes: `POST /slack/events` (events, slash commands and interactions; Slack signs every request and bolt
verifies it), `GET /healthz`, and the Gradio app at `/` when `with_web` is set.

Bolt's `App.dispatch` is synchronous; it runs in Starlette's thread pool so a slow Slack request never blocks the
event loop Gradio shares. The dispatch itself only verifies, deduplicates and acknowledges; the answer is worked
out afterwards on the bot's own pool (ui/slack/app.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ui.server import logs, metrics
from ui.server.http import uvicorn_config
from ui.server.metrics import OpsEndpoints, metrics_response, retry_after_header
from ui.server.metrics import readiness as check_rules
from ui.server.process import settle_process

if TYPE_CHECKING:
    from fastapi import FastAPI
    from gradio import Blocks
    from slack_bolt import App
    from starlette.requests import Request

    from advisor.store.sql import SqlStore
    from ui.web.settings import WebSettings

SLACK_PATH = "/slack/events"
MAX_BODY_BYTES = 512 * 1024  # Slack payloads are a few KiB; a 40 000-character message is about 160 KiB at most

log = logging.getLogger("gpu_advisor.slack")


def mount_slack(api: FastAPI, bolt_app: App, path: str = SLACK_PATH) -> FastAPI:
    """Add the Slack endpoint to a FastAPI app (before any catch-all mount such as Gradio's at "/")."""
    from slack_bolt import BoltRequest  # optional dependency: slack_bolt only with the slack extra
    from starlette.concurrency import run_in_threadpool  # optional dependency: starlette only with the web extra
    from starlette.responses import Response  # optional dependency: starlette only with the web extra

    async def slack_events(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > MAX_BODY_BYTES:
            return Response(status_code=413, content=b"request too large")
        chunks, size = [], 0
        async for chunk in request.stream():  # read at most MAX_BODY_BYTES, whatever the headers claim
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                return Response(status_code=413, content=b"request too large")
            chunks.append(chunk)
        body = b"".join(chunks)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return Response(status_code=400, content=b"body is not UTF-8")
        stamp = request.headers.get("x-slack-request-timestamp")
        if stamp is not None and not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
            return Response(status_code=401, content=b"invalid request")  # bolt's int() would raise (500)
        bolt_req = BoltRequest(body=text, query=request.url.query, headers=dict(request.headers))
        bolt_resp = await run_in_threadpool(bolt_app.dispatch, bolt_req)
        return Response(status_code=bolt_resp.status, content=bolt_resp.body,
                        headers=bolt_resp.first_headers_without_set_cookie())

    api.add_route(path, slack_events, methods=["POST"], include_in_schema=False)
    return api


def build_server_app(bolt_app: App | None = None, *, with_web: bool = False, web_app: Blocks | None = None,
                     web_settings: WebSettings | None = None, slack_path: str = SLACK_PATH,
                     store: SqlStore | None = None) -> FastAPI:
    """One FastAPI app: the Slack endpoint (when `bolt_app` is given), `/healthz`, and the web app at `/`.

    The web app is `web_app` (a Gradio Blocks) or, when `with_web` is set, `ui.web.app.build_app(web_settings)`; it is
    mounted with the same protections `gpu-advisor web` launches it with (`ui.web.app.launch_kwargs`: login when
    configured, request-size limit, no SSR, uploads refused). The login guards the web app only: Slack's requests
    are authenticated by their signatures.
    """
    from fastapi import FastAPI  # optional dependency: fastapi only with the web extra
    from fastapi.responses import JSONResponse, Response  # optional dependency: fastapi only with the web extra

    metrics.prepare()  # before turn workers spawn (multi-process metrics)

    web = with_web or web_app is not None
    middleware: list[Any] = []
    mount_kwargs: dict[str, Any] = {}
    if web:
        import inspect

        import gradio as gr  # optional dependency: gradio only with the web extra

        # start-up: a Slack-only server never loads the web app
        from ui.web.app import WebSettings, build_app, launch_kwargs, start_turn_workers

        web_settings = (web_settings or WebSettings()).validated()
        if web_app is None:
            web_app = build_app(web_settings, store=store)  # `store`: conversations kept as the bot's are
            start_turn_workers(web_app)
        launch = launch_kwargs(web_settings, web_app)
        middleware = [m for m in (launch.get("app_kwargs") or {}).get("middleware") or []
                      if getattr(m, "cls", None) is not OpsEndpoints]  # this app has its own /healthz, /readyz
        accepted = set(inspect.signature(gr.mount_gradio_app).parameters) - {"app", "blocks", "path", "app_kwargs",
                                                                             "server_name", "server_port"}
        mount_kwargs = {k: v for k, v in launch.items() if k in accepted and v is not None}

    api = FastAPI(title="GPU Advisor", docs_url=None, redoc_url=None, openapi_url=None, middleware=middleware)

    async def healthz(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "slack": bolt_app is not None, "web": web})

    async def readyz(request: Request) -> JSONResponse:
        from starlette.concurrency import run_in_threadpool  # optional dependency: starlette only with the web extra

        status, body = await run_in_threadpool(readiness)
        return JSONResponse(body, status_code=status)

    async def metrics_route(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool  # optional dependency: starlette only with the web extra

        status, body, ctype = await run_in_threadpool(metrics_response, {k.lower(): v for k, v in request.headers.items()},
                                                      request.scope)
        extra = {k.decode(): v.decode() for k, v in retry_after_header(status, body)}
        return Response(body, status_code=status, media_type=ctype.split(";")[0],
                        headers={"cache-control": "no-store", **extra})

    api.add_route("/healthz", healthz, methods=["GET"], include_in_schema=False)
    api.add_route("/readyz", readyz, methods=["GET"], include_in_schema=False)
    api.add_route("/metrics", metrics_route, methods=["GET"], include_in_schema=False)
    if bolt_app is not None:
        mount_slack(api, bolt_app, slack_path)
    if web:
        api = gr.mount_gradio_app(api, web_app, path="/", **mount_kwargs)
    return api


def readiness() -> tuple[int, dict[str, Any]]:
    """(HTTP status, body) of the readiness check: 200 when the rules engine evaluates its self-check request to
    the known findings, else 503 — a server whose answers would not be validated is not ready."""
    return check_rules()


def serve(api: FastAPI, host: str = "127.0.0.1", port: int = 3000) -> None:
    """Run `api` with uvicorn until interrupted."""
    import uvicorn  # optional dependency: uvicorn only with the web extra

    settle_process()  # long-running server: load what turns use, then keep it out of the collector's scans

    logs.configure()  # JSON lines with the conversation id
    # deadlines, connection caps and security headers of every server (ui.server.http)
    uvicorn.Server(uvicorn_config(api, host, port, log_level="info")).run()
