"""OpenTelemetry spans for agent turns, following the GenAI semantic conventions, when opentelemetry-api is there.

One turn is an `invoke_agent gpu-advisor` span (INTERNAL); inside it each model call is a `chat {model}` span
(CLIENT) and each tool call an `execute_tool {tool}` span (INTERNAL). Attributes (GenAI conventions,
https://opentelemetry.io/docs/specs/semconv/gen-ai/): `gen_ai.operation.name`, `gen_ai.provider.name` ("openai":
the API the client speaks), `gen_ai.agent.name`, `gen_ai.conversation.id`, `gen_ai.request.model`,
`gen_ai.request.max_tokens`, `gen_ai.request.temperature`, `gen_ai.response.finish_reasons`,
`gen_ai.usage.input_tokens`/`output_tokens`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`,
`server.address`/`server.port`, and `error.type` (the fallback reason) on a failed turn or call. No message
content is recorded. Without opentelemetry-api, or with no SDK configured, these are no-ops.

Spans are typed `Any`: opentelemetry is optional, so its `Span` type cannot be named where it is not installed
(and a span is None without it); LangChain's calls and replies are `Any` as in `agent_middleware`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from advisor.observe import CONVERSATION_ID

if TYPE_CHECKING:
    from advisor.conversation.llm.settings import Settings
    from advisor.conversation.tools.registry import ToolResult

AGENT_NAME = "gpu-advisor"


def _tracer() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:
        return None
    return trace.get_tracer("gpu_advisor.agent")


def _server(settings: Settings) -> dict[str, Any]:
    parts = urlsplit(settings.base_url or "https://api.openai.com/v1")
    out: dict[str, Any] = {"server.address": parts.hostname or ""}
    if parts.port:
        out["server.port"] = parts.port
    return out


@contextlib.contextmanager
def _span(name: str, kind: str, attributes: dict[str, Any]) -> Iterator[Any]:
    tracer = _tracer()
    if tracer is None:
        yield None
        return
    from opentelemetry.trace import SpanKind

    with tracer.start_as_current_span(name, kind=getattr(SpanKind, kind), attributes=attributes,
                                      record_exception=False, set_status_on_exception=False) as span:
        yield span


def start_agent_span(settings: Settings) -> Any:
    """The turn's span, started but not made current (the turn is a generator; its graph runs in a worker
    thread, which `in_context(span)` enters). End it with `end(span)`. None without opentelemetry."""
    tracer = _tracer()
    if tracer is None:
        return None
    from opentelemetry.trace import SpanKind

    attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai",
             "gen_ai.agent.name": AGENT_NAME, "gen_ai.request.model": settings.model}
    conversation_id = CONVERSATION_ID.get()
    if conversation_id:
        attrs["gen_ai.conversation.id"] = conversation_id
    return tracer.start_span(f"invoke_agent {AGENT_NAME}", kind=SpanKind.INTERNAL, attributes=attrs)


def end(span: Any, error_type: str | None = None) -> None:
    if span is None:
        return
    if error_type:
        record_error(span, error_type)
    span.end()


def traced_chat(handler: Callable[[Any], Any], settings: Settings, ai_of: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`handler` (one model call) inside a `chat {model}` span with the reply's finish reason and usage."""
    def run(call: Any) -> Any:
        with chat_span(settings, settings.model) as span:
            try:
                response = handler(call)
            except BaseException as exc:
                record_error(span, type(exc).__name__)
                raise
            record_response(span, ai_of(response))
            return response

    return run


def traced_tool(call_tool: Callable[[Any, Any], ToolResult], call_id: str | None) -> Callable[[Any, Any], ToolResult]:
    """`call_tool` inside an `execute_tool {name}` span; a refused or failed call sets error.type."""
    def run(name: Any, args: Any) -> ToolResult:
        with tool_span(str(name)[:80], call_id) as span:
            result = call_tool(name, args)
            if not result.ok:
                record_error(span, "tool_error")
            return result

    return run


def chat_span(settings: Settings, model: str) -> contextlib.AbstractContextManager[Any]:
    attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": model,
             "gen_ai.request.max_tokens": settings.max_tokens,
             "gen_ai.request.temperature": settings.temperature, **_server(settings)}
    return _span(f"chat {model}", "CLIENT", attrs)


def tool_span(name: str, call_id: str | None) -> contextlib.AbstractContextManager[Any]:
    attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function"}
    if call_id:
        attrs["gen_ai.tool.call.id"] = call_id
    return _span(f"execute_tool {name}", "INTERNAL", attrs)


def record_response(span: Any, ai: Any) -> None:
    """Finish reason and token usage of one model reply (an AIMessage) on its chat span."""
    if span is None or ai is None:
        return
    finish = (getattr(ai, "response_metadata", None) or {}).get("finish_reason")
    if finish:
        span.set_attribute("gen_ai.response.finish_reasons", [str(finish)])
    usage = getattr(ai, "usage_metadata", None) or {}
    for key, attr in (("input_tokens", "gen_ai.usage.input_tokens"), ("output_tokens", "gen_ai.usage.output_tokens")):
        if usage.get(key) is not None:
            span.set_attribute(attr, int(usage[key]))


def record_error(span: Any, error_type: str) -> None:
    if span is None:
        return
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR, error_type))


def in_context(span: Any, fn: Callable[[], None]) -> Callable[[], None]:
    """`fn` run with `span` as the current span (for the agent's worker thread), or `fn` itself."""
    if span is None:
        return fn
    from opentelemetry import context, trace

    ctx = trace.set_span_in_context(span)

    def run() -> None:
        token = context.attach(ctx)
        try:
            fn()
        finally:
            context.detach(token)

    return run
