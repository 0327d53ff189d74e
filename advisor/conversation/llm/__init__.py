"""The LLM agent: the LangChain loop, its prompts, limits, middleware, tracing and checks."""
