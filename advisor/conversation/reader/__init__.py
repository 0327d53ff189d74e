"""Reading a message: the number grammar, names, cues and the typed request (offline and LLM)."""
