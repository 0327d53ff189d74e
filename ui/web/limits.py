"""ASGI middleware of the web server: request bodies over a limit refused with 413, file uploads with 403."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send



class BodyLimit:
    """ASGI middleware: refuse HTTP requests whose body exceeds `max_bytes` with 413 (declared or streamed), and
    file uploads altogether with 403 (the app has no file inputs, so nothing legitimate uploads)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        if str(scope.get("path", "")).rstrip("/").endswith("/upload"):
            await _refuse(send, 403, "file uploads are not accepted")
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, 413, f"request body too large (limit {self.max_bytes} bytes)")
            return
        if scope.get("method") in ("GET", "HEAD"):  # no body to count: Gradio's event streams poll receive()
            await self.app(scope, receive, send)
            return
        seen = 0
        refused = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    refused = True
                    raise _TooLarge()
            return message

        try:
            await self.app(scope, limited_receive, send)
        except _TooLarge:
            if refused:
                await _refuse(send, 413, f"request body too large (limit {self.max_bytes} bytes)")


class _TooLarge(Exception):
    pass


async def _refuse(send: Send, status: int, text: str) -> None:
    body = text.encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
