"""Adapters at the edge: the CLI, the Gradio web chat and the Slack bot."""

import knowledge as _knowledge  # noqa: F401 - msgspec loaded the way knowledge/__init__.py says (start-up)
