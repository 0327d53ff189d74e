"""The grounding gate: every number in a model's answer comes from this turn's tool results."""
