"""Conversation layer: one tool surface, driven by an LLM agent or by the deterministic dialog."""
