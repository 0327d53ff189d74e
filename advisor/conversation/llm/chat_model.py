"""The chat model class the agent and the LLM reader call: LangChain's ChatOpenAI over any OpenAI-compatible
server, imported on first use (the CLI's scriptable commands never load LangChain)."""

from __future__ import annotations

from typing import Any

_CHAT_OPENAI: Any = None


def chat_openai_class() -> Any:
    """ChatOpenAI whose assistant tool-call messages carry `content: ""` instead of `null`.

    LangChain sends `null` content beside `tool_calls`; OpenAI accepts both, but llama-cpp-python's server (0.3.x)
    rejects `null` with HTTP 500, so every tool-calling turn against it failed. An empty string means the same."""
    global _CHAT_OPENAI
    if _CHAT_OPENAI is None:
        from langchain_openai import ChatOpenAI  # optional dependency: langchain_openai only with the llm extra

        class _ChatOpenAI(ChatOpenAI):
            def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict[str, Any]:
                payload = super()._get_request_payload(input_, stop=stop, **kwargs)
                for message in payload.get("messages", []):
                    if message.get("role") == "assistant" and message.get("content") is None:
                        message["content"] = ""
                return payload

        _CHAT_OPENAI = _ChatOpenAI
    return _CHAT_OPENAI
