"""The rule engine: durable_rules behind one function. The only module that imports durable_rules.

    evaluate(facts) -> list[Finding]

durable_rules keeps process-global state in its C extension and is not thread-safe (concurrent calls
crash the process; see ../shared/reference/ecosystem_notes.md §2.4), so this wrapper:

* builds one ruleset from the rule metadata (`rules.meta.all_rules`) as a plain definition dict, on one
  private host (`_Host`) that drives durable's C engine (`durable_rules_engine`) as durable's own Python host
  (`durable.engine`) does for synchronous actions, without its dispatch threads: actions run inside `assert_fact`.
  durable's Python host is not imported: it loads `inspect` and `logging` (≈ 9 ms of CPU of each `gpu-advisor
  recommend` start) for timers, asynchronous actions and statecharts this wrapper does not use;
* serialises every durable call behind one process-wide lock, so Gradio worker threads and Slack
  listener threads may call `evaluate` concurrently;
* evaluates each request in a fresh session id: opens it with a session fact that a no-op rule consumes,
  asserts the facts one by one (a fact no rule matches is fine), records what fired, and always deletes the
  session state. The opening fact matters: durable creates a session's state for any fact, even one no rule
  reads, but fills the state's action context only when an action runs, and `delete_state` frees that context.
  Without it a request whose facts all go unread left a state behind that could not be deleted (deleting it
  aborts the process); each kept ~0.4 MB and the ruleset holds at most 1,024 states, so after ~1,000 such
  requests every evaluation failed with MemoryError;
* rebuilds the engine once when an evaluation fails and retries the request on the new one; a request that
  fails twice raises `RuleEngineError`, whose message says the answer is not validated;
* turns durable's errors (bare `Exception`s, error codes, exceptions swallowed into the session state)
  into `RuleEngineError`, an `AdvisorError` with a clear message;
* renders and sorts the findings outside the lock (`rules.request.collect`): deterministic results.

Rules compile to durable conditions: `Cmp` → `{field: v}` / `{"$lt": {field: v}}` …, `Exists` →
`{"$ex"|"$nex": {field: 1}}`, `All` → `$and`, `AnyOf` → `$or`, each under `kind == applies_to`.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

# durable_rules' C engine; it ships neither stubs nor a py.typed marker: Any here (pyproject.toml's mypy override)
import durable_rules_engine as _durable

from knowledge.errors import AdvisorError, NotValidated
from knowledge.messages import pair
from rules.conditions import All, AnyOf, Cmp, Cond, Exists
from rules.findings import Finding
from rules.meta import RuleMeta, all_rules
from rules.request import collect, prepare

RULESET = "gpu_advisor"
SESSION_KIND = "_session"  # the fact that opens every evaluation session (see the module docstring)
_LOCK = threading.Lock()  # one lock for every durable_rules call in the process
_OPS = {"!=": "$neq", "<": "$lt", "<=": "$lte", ">": "$gt", ">=": "$gte"}


class RuleEngineError(AdvisorError):
    """The rule engine failed on a request (a bug or an engine limit, not the user's input)."""


class RulesNotChecked(RuleEngineError, NotValidated):
    """The engine failed on a request twice (before and after a rebuild): the answer cannot be validated."""


def not_validated(detail: str) -> RulesNotChecked:
    """The error a user sees when the rules could not be evaluated (never an answer without its findings)."""
    message, message_zh = pair("rules.not_validated", detail=detail)
    return RulesNotChecked(message, message_zh=message_zh)


class _Host:
    """One durable ruleset whose actions (one parameter: the matched message) run synchronously inside
    `assert_fact`, driven as durable's Python host drives its C engine (durable.engine: Ruleset.assert_fact,
    do_actions, _flush_actions): assert the fact; start the actions of its session state; run each, write the state
    back and complete the action, which starts the next. An action's exception is caught into the state as durable's
    host does ("exception caught …, traceback …"), so the engine's bookkeeping is the same either way."""

    def __init__(self, name: str, definition: dict[str, dict[str, Any]]) -> None:
        self.actions: dict[str, Callable[[Any], None]] = {rule: body["run"] for rule, body in definition.items()}
        conditions = {rule: {k: v for k, v in body.items() if k != "run"} for rule, body in definition.items()}
        self.handle = _durable.create_ruleset(name, json.dumps(conditions, ensure_ascii=False))

    def assert_fact(self, ruleset: str, fact: Mapping[str, Any]) -> dict[str, Any] | None:
        """The session state after the actions `fact` started (None when it started none); `_NotHandled` when no
        rule reads the fact, `_Observed` when the session holds it already (durable's error codes 1 and 2)."""
        code, state_handle = _durable.assert_fact(self.handle, json.dumps(fact, ensure_ascii=False))[:2]
        if code == 1:
            raise _NotHandled(ruleset)
        if code == 2:
            raise _Observed(ruleset)
        if code == 3:
            state_handle = 0
        started = _durable.start_action_for_state(self.handle, state_handle)
        if not started:
            return None
        state: dict[str, Any] = json.loads(started[0])
        pending: dict[str, Any] | None = json.loads(started[1])
        while pending:
            rule, message = next(iter(pending.items()))
            try:
                self.actions[rule](message)
            except Exception as error:  # noqa: BLE001 - kept in the state, as durable's host does; read by _assert
                import traceback  # start-up: only when an action fails (≈ 1.3 ms to import)

                state["exception"] = f"exception caught {error}, traceback {traceback.format_tb(error.__traceback__)}"
            _durable.update_state(self.handle, json.dumps(state, ensure_ascii=False))
            following = _durable.complete_and_start_action(self.handle, state_handle)
            pending = json.loads(following) if following else None
        return state

    def delete_state(self, ruleset: str, sid: str) -> None:
        _durable.delete_state(self.handle, sid)

    def get_state(self, ruleset: str, sid: str) -> Any:
        """A session's state (durable raises "Could not get …" for one that is not there)."""
        return json.loads(_durable.get_state(self.handle, sid))

    def get_facts(self, ruleset: str, sid: str) -> Any:
        return json.loads(_durable.get_facts(self.handle, sid))

    def discard(self) -> None:
        _durable.delete_ruleset(self.handle)


class _NotHandled(Exception):
    """No rule reads the fact (durable.engine.MessageNotHandledException)."""


class _Observed(Exception):
    """The session holds this fact already (durable.engine.MessageObservedException)."""


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

    current: ClassVar[list[tuple[str, int]]] = []


def _emit(rule_id: str) -> Callable[[Any], None]:
    # one parameter, the matched message (`_Host` runs every action synchronously, as durable runs one-parameter ones)
    def action(message: dict[str, Any]) -> None:
        _Hits.current.append((rule_id, message["m"]["_i"]))

    return action


def _open_session(message: dict[str, Any]) -> None:
    """The session rule's action: nothing to record; running it is what readies the state for deletion."""


def ruleset_definition(rules: Sequence[RuleMeta]) -> dict[str, Any]:
    definition: dict[str, Any] = {SESSION_KIND: {"all": [{"m": {"kind": SESSION_KIND}}], "run": _open_session}}
    for r in rules:
        expr = {"$and": [{"kind": r.applies_to}, compile_condition(r.when)]}
        definition[r.id] = {"all": [{"m": expr}], "run": _emit(r.id)}
    return definition


class RuleEngine:
    """One durable ruleset on a private host. Create once per process (see `engine()`); thread-safe."""

    def __init__(self, rules: Sequence[RuleMeta]) -> None:
        self.rules = tuple(rules)
        self._sids = itertools.count(1)
        self.broken: str | None = None  # why this engine must be rebuilt, once a session could not be deleted
        definition = ruleset_definition(self.rules)
        with _LOCK:
            try:
                self._host: _Host | None = _Host(RULESET, definition)
            except Exception as exc:  # durable raises bare Exceptions with an error code
                raise RuleEngineError(f"could not build the rule engine: {exc}") from exc

    @property
    def _live_host(self) -> _Host:
        """The host, or RuleEngineError once `discard` freed it (another thread may still hold this engine)."""
        if self._host is None:
            raise RuleEngineError("the rule engine was discarded")
        return self._host

    def hits(self, facts: Sequence[Mapping[str, Any]]) -> list[tuple[str, int]]:
        """(rule id, fact index) for every rule that fires on the validated `facts` of one request."""
        with _LOCK:
            sid = f"r{next(self._sids)}"
            found: list[tuple[str, int]] = []
            _Hits.current = found
            try:
                self._live_host.assert_fact(RULESET, {"kind": SESSION_KIND, "sid": sid})
            except Exception as exc:  # no session, nothing to delete
                _Hits.current = []
                raise RuleEngineError(f"could not open a rule session: {exc!r}") from exc
            try:
                for index, fact in enumerate(facts):
                    self._assert(sid, index, fact)
            except AdvisorError:
                raise
            except Exception as exc:  # durable raises bare Exceptions carrying an error code
                raise RuleEngineError(f"rule evaluation failed: {exc!r}") from exc
            finally:
                _Hits.current = []
                self._close(sid)
        return found

    def _assert(self, sid: str, index: int, fact: Mapping[str, Any]) -> None:
        try:
            state = self._live_host.assert_fact(RULESET, {**fact, "sid": sid, "_i": index})
        except _NotHandled:
            return  # no rule reads this fact: nothing to find
        if isinstance(state, dict) and "exception" in state:
            # durable swallows action errors into the state: "exception caught X, traceback [...]"
            text = str(state["exception"]).split(", traceback", 1)[0].removeprefix("exception caught ")
            raise RuleEngineError(f"a rule action failed: {text}")

    def _close(self, sid: str) -> None:
        """Delete the session's state; an engine that cannot is marked broken (rebuilt by `evaluate`)."""
        try:
            self._live_host.delete_state(RULESET, sid)
        except Exception as exc:  # noqa: BLE001 - any failure of the C engine marks it broken, to be rebuilt
            self.broken = f"could not delete rule session {sid}: {exc!r}"

    def discard(self) -> None:
        """Free the ruleset's engine memory (the engine must not be used afterwards)."""
        with _LOCK:
            if self._host is not None:
                try:
                    self._host.discard()
                except Exception:  # noqa: BLE001 - a handle already gone needs no freeing
                    pass
            self._host = None

    def evaluate(self, facts: Any) -> list[Finding]:
        prepared = prepare(facts)
        return collect(self.hits(prepared), prepared)


_ENGINE: RuleEngine | None = None
_BUILD_LOCK = threading.Lock()


def _log_error(message: str, *args: object) -> None:
    """Log an engine failure on this module's logger."""
    import logging  # start-up: only after a failure (importing logging costs ≈ 4 ms of CPU)

    logging.getLogger(__name__).error(message, *args)


def engine() -> RuleEngine:
    """The process's rule engine, built on first use (thread-safe)."""
    global _ENGINE
    if _ENGINE is None:
        with _BUILD_LOCK:
            if _ENGINE is None:
                _ENGINE = RuleEngine(all_rules())
    return _ENGINE


def rebuild(failed: RuleEngine | None = None) -> RuleEngine:
    """A new process engine in place of `failed` (when another thread already replaced it, that one)."""
    global _ENGINE
    with _BUILD_LOCK:
        if _ENGINE is failed or _ENGINE is None:
            old, _ENGINE = _ENGINE, RuleEngine(all_rules())
            if old is not None:
                old.discard()
            HEALTH.rebuilds += 1
            _observe("rebuild")
            HEALTH.last_error = failed.broken if failed is not None and failed.broken else HEALTH.last_error
        return _ENGINE


def _discard_current() -> None:
    """Drop the process engine so the next request builds a new one."""
    global _ENGINE
    with _BUILD_LOCK:
        old, _ENGINE = _ENGINE, None
    if old is not None:
        old.discard()


def _observe(kind: str) -> None:
    """Count a rebuild or a failure for the servers' metrics (advisor.observe; a no-op without a listener)."""
    # start-up: `gpu-advisor recommend` never loads advisor.observe
    from advisor import observe

    observe.rule_engine_error(kind)


class EngineHealth:
    """Counters for health checks and metrics: engine rebuilds, requests refused as not validated, last error."""

    def __init__(self) -> None:
        self.rebuilds = 0
        self.failures = 0
        self.last_error: str | None = None


HEALTH = EngineHealth()
CANARY = ({"kind": "workload", "task": "pretrain", "params": 1.2e11}, ("size-table-130b", "tier-beyond"))


def check() -> None:
    """Readiness: the engine evaluates a known request to its known findings, else RuleEngineError."""
    facts, expected = CANARY
    got = tuple(f.rule_id for f in evaluate(facts))
    if got != expected:
        raise RuleEngineError(f"the rule engine's self-check gave {got}, expected {expected}")


def evaluate(facts: Mapping[str, Any] | Sequence[Mapping[str, Any]] | Any) -> list[Finding]:
    """Findings for one request: a fact or a list of facts (mappings with `kind`, or `rules.facts` models).

    Raises InputError/UnknownGpu for bad facts (naming the field and accepted values) and RuleEngineError
    (`not_validated`) when the engine fails twice: once on the process engine, which is then rebuilt, and
    once on the new one. Safe to call from any thread.
    """
    prepared = prepare(facts)
    try:
        current = engine()
        hits = current.hits(prepared)
    except RuleEngineError as exc:
        _log_error("rule engine failed, rebuilding it: %s", exc)
        HEALTH.last_error = str(exc)
        try:
            current = rebuild(_ENGINE)
            hits = current.hits(prepared)
        except RuleEngineError as again:
            _log_error("rule engine failed again after a rebuild: %s", again)
            HEALTH.failures += 1
            _observe("failure")
            HEALTH.last_error = str(again)
            _discard_current()
            raise not_validated(str(again)) from again
    if current.broken:
        _log_error("rule engine needs rebuilding: %s", current.broken)
        rebuild(current)
    return collect(hits, prepared)
