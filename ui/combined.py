"""Serve the Slack bot over HTTP, alone or beside the web app, in one FastAPI/uvicorn process.

Routes: `POST /slack/events` (events, slash commands and interactions; Slack signs every request and bolt
verifies it), `GET /healthz`, and the Gradio app at `/` when `with_web` is set.

Bolt's `App.dispatch` is synchronous; it runs in Starlette's thread pool so a slow Slack request never blocks the
event loop Gradio shares. The dispatch itself only verifies, deduplicates and acknowledges; the answer is worked
out afterwards on the bot's own pool (ui/slack_app.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI
    from slack_bolt import App

SLACK_PATH = "/slack/events"
MAX_BODY_BYTES = 512 * 1024  # Slack payloads are a few KiB; a 40 000-character message is about 160 KiB at most

log = logging.getLogger("gpu_advisor.slack")


def mount_slack(api: FastAPI, bolt_app: App, path: str = SLACK_PATH) -> FastAPI:
    """Add the Slack endpoint to a FastAPI app (before any catch-all mount such as Gradio's at "/")."""
    from starlette.responses import Response
    from slack_bolt import BoltRequest
    from starlette.concurrency import run_in_threadpool

    async def slack_events(request: Any) -> Response:  # a plain Starlette route: request is a Request
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > MAX_BODY_BYTES:
            return Response(status_code=413, content=b"request too large")
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return Response(status_code=413, content=b"request too large")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            return Response(status_code=400, content=b"body is not UTF-8")
        bolt_req = BoltRequest(body=text, query=request.url.query, headers=dict(request.headers))
        bolt_resp = await run_in_threadpool(bolt_app.dispatch, bolt_req)
        return Response(status_code=bolt_resp.status, content=bolt_resp.body,
                        headers=bolt_resp.first_headers_without_set_cookie())

    api.add_route(path, slack_events, methods=["POST"], include_in_schema=False)
    return api


def build_server_app(bolt_app: App | None = None, *, with_web: bool = False, web_app: Any = None,
                     slack_path: str = SLACK_PATH) -> FastAPI:
    """One FastAPI app: the Slack endpoint (when `bolt_app` is given), `/healthz`, and the web app at `/`.

    `web_app` is a Gradio Blocks; when it is None and `with_web` is set, `ui.web.build_app()` builds it.
    """
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse

    api = FastAPI(title="GPU Advisor", docs_url=None, redoc_url=None, openapi_url=None)

    async def healthz(request: Any) -> JSONResponse:
        return JSONResponse({"ok": True, "slack": bolt_app is not None, "web": bool(with_web or web_app)})

    api.add_route("/healthz", healthz, methods=["GET"], include_in_schema=False)

    if bolt_app is not None:
        mount_slack(api, bolt_app, slack_path)
    if with_web or web_app is not None:
        import gradio as gr

        if web_app is None:
            from ui.web import build_app

            web_app = build_app()
        api = gr.mount_gradio_app(api, web_app, path="/")
    return api


def serve(api: FastAPI, host: str = "127.0.0.1", port: int = 3000) -> None:
    """Run `api` with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(api, host=host, port=port, log_level="info", access_log=False)
