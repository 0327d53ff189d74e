"""The rule engine: durable_rules behind one function. The only module that imports `durable`.

    evaluate(facts) -> list[Finding]

durable_rules keeps process-global state in its C extension and is not thread-safe (concurrent calls
crash the process; see ../shared/reference/ecosystem_notes.md §2.4), so this wrapper:

* builds one ruleset from the rule metadata (`rules.meta.all_rules`) as a plain definition dict, on one
  private host whose background dispatch threads are disabled (actions run inside `assert_fact`);
* serialises every durable call behind one process-wide lock, so Gradio worker threads and Slack
  listener threads may call `evaluate` concurrently;
* evaluates each request in a fresh session id: asserts the facts one by one (a fact no rule matches is
  fine), reads back the finding facts the actions asserted, and always deletes the session state;
* turns durable's errors (bare `Exception`s, error codes, exceptions swallowed into the session state)
  into `RuleEngineError`, an `AdvisorError` with a clear message;
* renders and sorts the findings outside the lock (`rules.request.collect`): deterministic results.

Rules compile to durable conditions: `Cmp` → `{field: v}` / `{"$lt": {field: v}}` …, `Exists` →
`{"$ex"|"$nex": {field: 1}}`, `All` → `$and`, `AnyOf` → `$or`, each under `kind == applies_to`.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from durable import engine as _durable
from durable.engine import MessageNotHandledException

from knowledge.errors import AdvisorError
from rules.conditions import All, AnyOf, Cmp, Cond, Exists
from rules.findings import Finding
from rules.meta import RuleMeta, all_rules
from rules.request import collect, prepare

RULESET = "gpu_advisor"
_LOCK = threading.Lock()  # one lock for every durable_rules call in the process
_OPS = {"!=": "$neq", "<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte"}


class RuleEngineError(AdvisorError):
    """The rule engine failed on a request (a bug or an engine limit, not the user's input)."""


class _SyncHost(_durable.Host):
    """A durable host without the dispatch and timer threads `Host.__init__` starts (not needed: no timers,
    no async actions); every action runs synchronously inside `assert_fact`."""

    def _run(self) -> None:
        pass


def compile_condition(cond: Cond) -> dict[str, Any]:
    """A `rules.conditions` tree as a durable_rules expression."""
    if isinstance(cond, Cmp):
        if cond.op == "==":
            return {cond.field: cond.value}
        return {_OPS[cond.op]: {cond.field: cond.value}}
    if isinstance(cond, Exists):
        return {"$ex" if cond.present else "$nex": {cond.field: 1}}
    if isinstance(cond, All):
        return {"$and": [compile_condition(p) for p in cond.parts]}
    if isinstance(cond, AnyOf):
        return {"$or": [compile_condition(p) for p in cond.parts]}
    raise TypeError(f"cannot compile condition {cond!r}")


class _Hits:
    """Where actions record what fired. Only touched under `_LOCK`, on the evaluating thread (the host has
    no dispatcher threads), so a plain list is safe."""

    current: list[tuple[str, int]] = []


def _emit(rule_id: str) -> Any:
    # exactly one parameter: durable treats a two-parameter action as asynchronous
    def action(c: Any) -> None:
        _Hits.current.append((rule_id, c.m._d["_i"]))

    return action


def ruleset_definition(rules: Sequence[RuleMeta]) -> dict[str, Any]:
    definition: dict[str, Any] = {}
    for r in rules:
        expr = {"$and": [{"kind": r.applies_to}, compile_condition(r.when)]}
        definition[r.id] = {"all": [{"m": expr}], "run": _emit(r.id)}
    return definition


class RuleEngine:
    """One durable ruleset on a private host. Create once per process (see `engine()`); thread-safe."""

    def __init__(self, rules: Sequence[RuleMeta]) -> None:
        self.rules = tuple(rules)
        self._sids = itertools.count(1)
        definition = ruleset_definition(self.rules)
        with _LOCK:
            try:
                self._host = _SyncHost()
                self._host.register_rulesets({RULESET: definition})
            except Exception as exc:  # durable raises bare Exceptions with an error code
                raise RuleEngineError(f"could not build the rule engine: {exc}") from exc

    def hits(self, facts: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
        """(rule id, fact index) for every rule that fires on the validated `facts` of one request."""
        with _LOCK:
            sid = f"r{next(self._sids)}"
            touched = False
            found: list[tuple[str, int]] = []
            _Hits.current = found
            try:
                for index, fact in enumerate(facts):
                    try:
                        state = self._host.assert_fact(RULESET, {**fact, "sid": sid, "_i": index})
                    except MessageNotHandledException:
                        continue  # no rule reads this fact: nothing to find
                    touched = True
                    if isinstance(state, dict) and "exception" in state:
                        # durable swallows action errors into the state: "exception caught X, traceback [...]"
                        text = str(state["exception"]).split(", traceback", 1)[0].removeprefix("exception caught ")
                        raise RuleEngineError(f"a rule action failed: {text}")
            except AdvisorError:
                raise
            except Exception as exc:  # durable raises bare Exceptions carrying an error code
                raise RuleEngineError(f"rule evaluation failed: {exc}") from exc
            finally:
                _Hits.current = []
                if touched:
                    try:
                        self._host.delete_state(RULESET, sid)
                    except Exception:  # noqa: S110 - a session that is already gone needs no cleanup
                        pass
        return found

    def evaluate(self, facts: Any) -> list[Finding]:
        prepared = prepare(facts)
        return collect(self.hits(prepared), prepared)


_ENGINE: RuleEngine | None = None
_BUILD_LOCK = threading.Lock()


def engine() -> RuleEngine:
    """The process's rule engine, built on first use (thread-safe)."""
    global _ENGINE
    if _ENGINE is None:
        with _BUILD_LOCK:
            if _ENGINE is None:
                _ENGINE = RuleEngine(all_rules())
    return _ENGINE


def evaluate(facts: Mapping[str, Any] | Sequence[Mapping[str, Any]] | Any) -> list[Finding]:
    """Findings for one request: a fact or a list of facts (mappings with `kind`, or `rules.facts` models).

    Raises InputError/UnknownGpu for bad facts (naming the field and accepted values) and RuleEngineError
    when the engine itself fails. Safe to call from any thread.
    """
    return engine().evaluate(facts)
