"""The guides' heuristics and engineering rules, evaluated by durable_rules, each rule cited.

Modules:

* `rules.facts`: the fact vocabulary callers assert (`ConfigFacts`, `WorkloadFacts`, `ClaimFacts`);
* `rules.engine`: `evaluate(facts) -> list[Finding]`, the only importer of durable, thread-safe;
* `rules.meta`: `RuleMeta`, `all_rules()`, `get_rule(id)`; `rules.conditions`: the condition language;
* one module per topic with its `RULES`: `substitution`, `market`, `risk`, `capability`, `value`,
  `scenario`, `practice`, `sizing`, `claims`;
* `rules.render`, `rules.sources`: wording (the message catalogs' "rules" section, knowledge/messages/rules_{en,zh}.py,
  keyed by rule id) and citations (the metadata); `rules.gpus`: GPU families;
* `rules.pure`: a durable-free reference evaluator the tests compare the engine with.

`python -m rules` lists every rule (`--json` for machines, `--topic T` to filter).
"""

import knowledge as _knowledge  # noqa: F401 - msgspec loaded the way knowledge/__init__.py says (start-up)
