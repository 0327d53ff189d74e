"""The guides' heuristics and engineering rules as durable_rules rulesets. Only `rules.engine` imports durable."""
