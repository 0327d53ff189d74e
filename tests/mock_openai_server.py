"""A local OpenAI-compatible HTTP server for offline tests (stdlib only, 127.0.0.1, an ephemeral port).

It answers `POST /v1/chat/completions` from a script, one item per request, in order:

    with MockOpenAI([tool_calls(("lookup_gpu", {"gpu": "h100-sxm"})), message("H100 SXM has 80 GiB.")]) as srv:
        settings = Settings(api_key="sk-test", base_url=srv.base_url, model="mock-model", reader="agent")

Items (plain dicts, built with the helpers below):
- `message(text)`: an assistant reply (`finish_reason="stop"`); `finish_reason="length"` for a truncated one;
- `tool_calls((name, args), ...)`: assistant tool calls; `args` may be a dict or a raw (even malformed) string;
- `status(code, body=None, headers=None)`: an error response (429 with `Retry-After`, 500, 503, …);
- `hang(seconds)`: wait, then close the connection without answering (a client timeout fires first);
- `drip(seconds, every_s)`: answer at once, then send one small piece every `every_s` seconds for `seconds`
  (an SSE content delta when streaming, one byte of the JSON body otherwise), so no read ever times out.

Requests with `"stream": true` get Server-Sent Events: content split into several deltas, tool-call
arguments split across chunks, a usage chunk when `stream_options.include_usage` is set, then `[DONE]`.
Every request is recorded in `requests` (path, headers, JSON body, time) for assertions.
When the script runs out the server answers 500 with "script exhausted", so a test cannot pass by accident.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Item = dict[str, Any]


def message(text: str, *, finish_reason: str = "stop", usage: tuple[int, int] = (50, 20)) -> Item:
    return {"kind": "message", "content": text, "finish_reason": finish_reason, "usage": usage}


def tool_calls(*calls: tuple[str, Any], content: str = "", usage: tuple[int, int] = (50, 20)) -> Item:
    return {"kind": "tool_calls", "calls": list(calls), "content": content, "usage": usage}


def status(code: int, body: Any = None, headers: dict[str, str] | None = None) -> Item:
    if body is None:
        body = {"error": {"message": f"mock status {code}", "type": "mock_error", "code": code}}
    return {"kind": "status", "status": code, "body": body, "headers": headers or {}}


def hang(seconds: float) -> Item:
    return {"kind": "hang", "seconds": seconds}


def drip(seconds: float, every_s: float = 0.5) -> Item:
    return {"kind": "drip", "seconds": seconds, "every_s": every_s}


class MockOpenAI:
    """Context manager running the mock server in a background thread."""

    def __init__(self, script: Iterable[Item] = (), *, responder: Callable[[dict], Item] | None = None) -> None:
        self.script: deque[Item] = deque(script)
        self.responder = responder  # called with the request body when the script is empty
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._call_counter = 0

    # --- lifecycle -------------------------------------------------------------------------------------------
    def __enter__(self) -> MockOpenAI:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *items: Item) -> None:
        with self._lock:
            self.script.extend(items)

    @property
    def completions(self) -> list[dict[str, Any]]:
        """Recorded chat-completion requests only."""
        return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    # --- internals -------------------------------------------------------------------------------------------
    def _next(self, body: dict) -> Item:
        with self._lock:
            if self.script:
                return self.script.popleft()
        if self.responder is not None:
            return self.responder(body)
        return status(500, {"error": {"message": "mock script exhausted", "type": "mock_error"}})

    def _new_call_id(self) -> str:
        with self._lock:
            self._call_counter += 1
            return f"call_mock_{self._call_counter}"


class _Handler(BaseHTTPRequestHandler):
    mock: MockOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # GET /v1/models: some clients probe it
    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "mock-model", "object": "model", "owned_by": "mock"}]})
        else:
            self._json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        self.mock.requests.append(
            {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body, "t": time.monotonic()}
        )
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        item = self.mock._next(body)
        kind = item["kind"]
        if kind == "hang":
            time.sleep(item["seconds"])
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if kind == "drip":
            try:
                self._drip(item, bool(body.get("stream")))
            except OSError:  # the client gave up and closed the connection
                pass
            self.close_connection = True
            return
        if kind == "status":
            self._json(item["status"], item["body"], item.get("headers"))
            return
        model = body.get("model", "mock-model")
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(item, model, include_usage)
        else:
            self._json(200, self._completion(item, model))

    # --- responses -------------------------------------------------------------------------------------------
    def _json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _drip(self, item: Item, stream: bool) -> None:
        end = time.monotonic() + item["seconds"]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
        if not stream:
            self.send_header("Content-Length", str(10**6))  # never completed
        self.end_headers()
        self.wfile.flush()
        chunk = {"id": "chatcmpl-drip", "object": "chat.completion.chunk", "created": int(time.time()), "model": "m",
                 "choices": [{"index": 0, "delta": {"content": "."}, "finish_reason": None}]}
        piece = f"data: {json.dumps(chunk)}\n\n".encode() if stream else b" "
        while time.monotonic() < end:
            self.wfile.write(piece)
            self.wfile.flush()
            time.sleep(item["every_s"])

    def _calls(self, item: Item) -> list[dict[str, Any]]:
        out = []
        for name, args in item.get("calls", []):
            arguments = args if isinstance(args, str) else json.dumps(args)
            out.append({"id": self.mock._new_call_id(), "type": "function", "function": {"name": name, "arguments": arguments}})
        return out

    def _completion(self, item: Item, model: str) -> dict[str, Any]:
        prompt, completion = item.get("usage", (50, 20))
        msg: dict[str, Any] = {"role": "assistant", "content": item.get("content") or None}
        finish = item.get("finish_reason", "stop")
        if item["kind"] == "tool_calls":
            msg["tool_calls"] = self._calls(item)
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-mock-{int(time.time() * 1000)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    def _stream(self, item: Item, model: str, include_usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {"id": f"chatcmpl-mock-{int(time.time() * 1000)}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": model}

        def send(choices: list[dict[str, Any]], usage: dict[str, int] | None = None) -> None:
            chunk = {**base, "choices": choices}
            if usage is not None:
                chunk["usage"] = usage
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

        send([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        content = item.get("content") or ""
        for piece in _pieces(content, 3):
            send([{"index": 0, "delta": {"content": piece}, "finish_reason": None}])
        finish = item.get("finish_reason", "stop")
        if item["kind"] == "tool_calls":
            finish = "tool_calls"
            for index, call in enumerate(self._calls(item)):
                head = {"index": index, "id": call["id"], "type": "function",
                        "function": {"name": call["function"]["name"], "arguments": ""}}
                send([{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}])
                for piece in _pieces(call["function"]["arguments"], 3):
                    send([{"index": 0, "delta": {"tool_calls": [{"index": index, "function": {"arguments": piece}}]},
                           "finish_reason": None}])
        send([{"index": 0, "delta": {}, "finish_reason": finish}])
        if include_usage:
            prompt, completion = item.get("usage", (50, 20))
            send([], {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _pieces(text: str, n: int) -> list[str]:
    """`text` cut into about `n` consecutive pieces (at least one when non-empty)."""
    if not text:
        return []
    size = max(1, -(-len(text) // n))
    return [text[i:i + size] for i in range(0, len(text), size)]


# --------------------------------------------------------------------------------------------------------------
# In-process doubles: a scripted LangChain chat model (no HTTP at all)
# --------------------------------------------------------------------------------------------------------------

_SCRIPTED: Any = None
_ids = iter(range(1, 10**9))


def tool_call(name: str, args: Any) -> dict[str, Any]:
    """A LangChain tool call with a unique id (re-used ids confuse the agent's routing)."""
    return {"name": name, "args": args, "id": f"call_fake_{next(_ids)}", "type": "tool_call"}


def scripted_model(responses: Iterable[Any], *, delay_s: float = 0.0) -> Any:
    """A `GenericFakeChatModel` subclass whose `bind_tools` returns itself, replying with `responses` in order
    (AIMessages; a string becomes an AIMessage). It records every prompt it gets in `.calls`; `delay_s` makes
    each reply slow. An exhausted script raises, so a test cannot pass on a reply it did not plan."""
    global _SCRIPTED
    if _SCRIPTED is None:
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
        from pydantic import Field

        class ScriptedChatModel(GenericFakeChatModel):
            delay_s: float = 0.0
            calls: list[Any] = Field(default_factory=list)
            bound: list[str] = Field(default_factory=list)

            def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
                self.bound[:] = [getattr(t, "name", None) or t.get("name") for t in tools]
                return self

            def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
                self.calls.append(list(messages))
                if self.delay_s:
                    time.sleep(self.delay_s)
                return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

        _SCRIPTED = ScriptedChatModel
    from langchain_core.messages import AIMessage

    def as_message(r: Any) -> Any:
        return AIMessage(content=r) if isinstance(r, str) else r

    return _SCRIPTED(messages=(as_message(r) for r in responses), delay_s=delay_s)
