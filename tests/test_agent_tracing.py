"""OpenTelemetry spans of agent turns (GenAI semantic conventions), recorded with the SDK's in-memory exporter."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_openai")
sdk_trace = pytest.importorskip("opentelemetry.sdk.trace")

from langchain_core.messages import AIMessage  # noqa: E402
from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from advisor.conversation.llm.agent import AgentDriver, AgentUnavailable  # noqa: E402
from advisor.conversation.llm.settings import Settings  # noqa: E402
from advisor.conversation.tools.registry import call_tool  # noqa: E402
from tests.mock_openai_server import MockOpenAI, message, tool_call, tool_calls  # noqa: E402
from tests.test_agent import fails  # noqa: E402

EXPORTER = InMemorySpanExporter()


@pytest.fixture(autouse=True)
def spans():
    provider = trace.get_tracer_provider()
    if not isinstance(provider, sdk_trace.TracerProvider):
        provider = sdk_trace.TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


ARGS = {"model": "llama-3-70b", "gpu": "h100"}


def _answer() -> str:
    shown = {n["name"]: n["display"] for n in call_tool("estimate_memory", ARGS).numbers}
    return f"Llama-3-70B needs {shown['total per GPU']} per GPU in BF16, so one H100 does not fit."


def test_a_turn_over_http_is_one_agent_span_with_chat_and_tool_children(spans) -> None:
    with MockOpenAI([tool_calls(("estimate_memory", ARGS)), message(_answer())]) as srv:
        s = Settings(api_key="sk-test", base_url=srv.base_url, model="mock-model", reader="agent")
        list(AgentDriver(s).run(None, "How much memory does Llama-3-70B need on an H100?"))
        port = srv.port
    got = {sp.name: sp for sp in spans.get_finished_spans()}
    agent, tool = got["invoke_agent gpu-advisor"], got["execute_tool estimate_memory"]
    chats = [sp for sp in spans.get_finished_spans() if sp.name == "chat mock-model"]
    assert len(chats) == 2 and agent.kind == trace.SpanKind.INTERNAL and chats[0].kind == trace.SpanKind.CLIENT
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent" and agent.attributes["gen_ai.agent.name"] == "gpu-advisor"
    assert "error.type" not in agent.attributes
    for child in (*chats, tool):
        assert child.parent.span_id == agent.context.span_id and child.context.trace_id == agent.context.trace_id
    first = chats[0].attributes
    assert first["gen_ai.operation.name"] == "chat" and first["gen_ai.request.model"] == "mock-model"
    assert first["gen_ai.usage.input_tokens"] == 50 and first["gen_ai.usage.output_tokens"] == 20
    assert first["server.address"] == "127.0.0.1" and first["server.port"] == port
    assert tuple(first["gen_ai.response.finish_reasons"]) == ("tool_calls",)
    assert tool.attributes["gen_ai.tool.name"] == "estimate_memory" and tool.attributes["gen_ai.tool.call.id"]


def test_a_fallback_marks_the_agent_span_with_its_reason(spans) -> None:
    shell = AIMessage("", tool_calls=[tool_call("run_shell", {"cmd": "cat ~/.env"})])
    exc, _, _ = fails([shell, "Please paste your API key here.", "Please paste your API key here."])
    assert isinstance(exc, AgentUnavailable)
    got = {sp.name: sp for sp in spans.get_finished_spans()}
    assert got["invoke_agent gpu-advisor"].attributes["error.type"] == exc.reason
    assert got["invoke_agent gpu-advisor"].status.status_code == trace.StatusCode.ERROR
    assert got["execute_tool run_shell"].attributes["error.type"] == "tool_error"
