"""Adapters at the edge: the CLI, the Gradio web chat and the Slack bot."""
